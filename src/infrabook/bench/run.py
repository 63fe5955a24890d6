"""The suite's command line: ``python -m infrabook.bench [--quick] [--only NAME ...]``.

Runs the CPU experiments always and the GPU experiments when CUDA is available (without
it, each GPU experiment is recorded in ``cpu.json`` as skipped, with the reason). Each
experiment is merged into its device's record the moment it finishes, by an atomic file
replace: stopping the run (Ctrl-C, a kill, a crash, a time-out) loses only the experiment
in progress. Progress goes to stderr; the targets' verdicts to stdout at the end.

Options:

``--quick``            scaled-down sizes (seconds, not minutes); the record says so.
``--only NAME ...``    run only these experiments; ``cpu`` and ``gpu`` name the groups. On a
                       GPU machine, ``--only gpu`` leaves ``cpu.json`` as it is.
``--out DIR``          write the records to DIR instead of ``docs/_data/bench``.
``--threads N``        torch threads (default: as torch chooses, the usable cores).
``--wait-quiet S``     before each CPU experiment wait up to S seconds for the other
                       processes to leave the CPUs (< 25 % busy): a shared machine skews times.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from infrabook.bench import host, record, report
from infrabook.bench.registry import CPU_EXPERIMENTS, EXPERIMENTS, GPU_EXPERIMENTS

QUIET_BUSY = 0.25

log = logging.getLogger("infrabook.bench")


def select(only: Sequence[str] | None) -> list[str]:
    """Experiments to run, in suite order.

    >>> select(["gpu", "fusion"])
    ['fusion', 'gpu_swiglu', 'gpu_flash', 'gpu_graphs', 'gpu_persistent']
    >>> select(None) == list(EXPERIMENTS)
    True
    """
    if not only:
        return list(EXPERIMENTS)
    wanted: set[str] = set()
    for name in only:
        if name in ("cpu", "gpu"):
            wanted.update(CPU_EXPERIMENTS if name == "cpu" else GPU_EXPERIMENTS)
        elif name in EXPERIMENTS:
            wanted.add(name)
        else:
            raise SystemExit(
                f"unknown experiment {name!r}: expected cpu, gpu or one of {', '.join(EXPERIMENTS)}"
            )
    return [n for n in EXPERIMENTS if n in wanted]


def wait_quiet(limit_s: float) -> float:
    """Wait up to ``limit_s`` seconds until the other processes leave the CPUs mostly idle
    (two one-second samples in a row under 25 % busy); return the last sample."""
    deadline = time.monotonic() + limit_s
    quiet_in_a_row, busy = 0, 1.0
    while quiet_in_a_row < 2:
        busy = host.cpu_busy(1.0)
        quiet_in_a_row = quiet_in_a_row + 1 if busy <= QUIET_BUSY else 0
        if quiet_in_a_row == 0:
            if time.monotonic() >= deadline:
                log.info("still %.0f%% busy after %.0f s: going ahead", 100 * busy, limit_s)
                return busy
            log.info("other processes keep %.0f%% of the CPUs busy; waiting ...", 100 * busy)
            time.sleep(2.0)
    return busy


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite; 0 when every selected experiment finished, 1 otherwise."""
    parser = argparse.ArgumentParser(
        prog="python -m infrabook.bench", description="Run the infrabook benchmark suite."
    )
    parser.add_argument("--quick", action="store_true", help="scaled-down sizes")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="cpu, gpu or experiments")
    parser.add_argument("--out", type=Path, help="folder for the records")
    parser.add_argument("--threads", type=int, help="torch threads")
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=0.0,
        metavar="S",
        help="wait up to S s for an idle CPU before each CPU experiment",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="[bench] %(message)s", stream=sys.stderr)
    names = select(args.only)
    import torch

    from infrabook.bench import gpu

    if args.threads:
        torch.set_num_threads(args.threads)
    out = args.out or record.bench_dir()
    gpu_device = None if gpu.unavailable_reason() else gpu.rig().info["slug"]
    log.info("suite: %s%s; records in %s", ", ".join(names), " (quick)" if args.quick else "", out)
    written: set[str] = set()
    failed: list[str] = []
    for name in names:
        experiment = EXPERIMENTS[name]
        busy = None
        if experiment.device == "cpu":
            busy = wait_quiet(args.wait_quiet) if args.wait_quiet > 0 else host.cpu_busy(0.5)
            if busy > QUIET_BUSY:
                log.warning(
                    "other processes keep %.0f%% of the CPUs busy: times will be "
                    "slower and noisier (the record notes the load)",
                    100 * busy,
                )
        started = time.perf_counter()
        log.info("%s: start", name)
        try:
            entry = experiment(quick=args.quick)
        except Exception:
            failed.append(name)
            log.exception("%s: FAILED, record left as it was", name)
            continue
        if busy is not None:
            prov = entry.provenance
            entry = dataclasses.replace(
                entry,
                provenance=dataclasses.replace(
                    prov, host_load=prov.host_load | {"others_busy_before": round(busy, 3)}
                ),
            )
        device = gpu_device if gpu_device is not None and experiment.device == "cuda" else "cpu"
        path = record.merge(device, entry, out)
        written.add(device)
        log.info("%s: %s in %.1f s -> %s", name, entry.status, time.perf_counter() - started, path)
        if gpu_device and experiment.device == "cuda":
            torch.cuda.empty_cache()
    for device in sorted(written):  # the verdicts, as the book's appendix tabulates them
        print(report.targets(device, folder=out).tables[0].text())
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0
