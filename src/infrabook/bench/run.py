"""The suite's command line: ``python -m infrabook.bench [--quick] [--only NAME ...] [--out DIR]``.

Runs the CPU experiments always and the GPU ones when CUDA is available (without it, each
GPU experiment is recorded in ``cpu.json`` as skipped, with the reason). Each experiment is
merged into its device's record the moment it finishes, by an atomic file replace: stopping
the run (Ctrl-C, a kill, a crash, a time-out) loses only the experiment in progress.
Progress goes to stderr, the targets' verdicts to stdout at the end. ``--only gpu`` on a
GPU machine leaves ``cpu.json`` as it is.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

import torch

from infrabook.bench import gpu, record, report
from infrabook.bench.registry import CPU_EXPERIMENTS, EXPERIMENTS, GPU_EXPERIMENTS

#: Above this share of the CPUs busy with other processes, CPU times are noisy: say so.
BUSY = 0.25

log = logging.getLogger("infrabook.bench")


def select(only: Sequence[str] | None) -> list[str]:
    """Experiments to run, in suite order; ``cpu`` and ``gpu`` name the groups.

    >>> select(["gpu", "fusion"])
    ['fusion', 'gpu_swiglu', 'gpu_flash', 'gpu_graphs', 'gpu_persistent']
    """
    wanted: set[str] = set()
    for name in only or EXPERIMENTS:
        if name not in (*EXPERIMENTS, "cpu", "gpu"):
            raise SystemExit(
                f"unknown experiment {name!r}: expected cpu, gpu or one of {', '.join(EXPERIMENTS)}"
            )
        wanted.update({"cpu": CPU_EXPERIMENTS, "gpu": GPU_EXPERIMENTS}.get(name, (name,)))
    return [n for n in EXPERIMENTS if n in wanted]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite; 0 when every selected experiment finished, 1 otherwise."""
    parser = argparse.ArgumentParser(
        prog="python -m infrabook.bench", description="Run the infrabook benchmark suite."
    )
    parser.add_argument("--quick", action="store_true", help="scaled-down sizes (seconds)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="cpu, gpu or experiments")
    parser.add_argument("--out", type=Path, help="folder for the records (docs/_data/bench)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="[bench] %(message)s", stream=sys.stderr)
    names = select(args.only)
    # one rig for every GPU experiment, and none without one: making it queries the driver
    # and starts the profiler
    wanted_gpu = any(n in GPU_EXPERIMENTS for n in names)
    rig = gpu.rig() if wanted_gpu and gpu.unavailable_reason() is None else None
    out = args.out or record.bench_dir()
    log.info("suite: %s%s; records in %s", ", ".join(names), " (quick)" if args.quick else "", out)
    written, failed = set(), []
    for name in names:
        log.info("%s: start", name)
        on_gpu = rig is not None and name in GPU_EXPERIMENTS
        try:
            entry = EXPERIMENTS[name](quick=args.quick, **({"rig": rig} if on_gpu else {}))
        except Exception:
            failed.append(name)
            log.exception("%s: FAILED, record left as it was", name)
            continue
        busy = entry.provenance.host_load.get("others_busy_fraction") or 0.0
        if name in CPU_EXPERIMENTS and busy > BUSY:
            log.warning("%s: other processes kept %.0f%% of the CPUs busy", name, 100 * busy)
        device = record.slug(rig.info["name"]) if rig and on_gpu else "cpu"
        path = record.merge(device, entry, out)
        written.add(device)
        log.info("%s: %s in %.1f s -> %s", name, entry.status, entry.duration_s, path)
        if on_gpu:
            torch.cuda.empty_cache()
    for device in sorted(written):  # the verdicts, as the book's appendix tabulates them
        print(report.targets(device, folder=out).tables[0].text())
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0
