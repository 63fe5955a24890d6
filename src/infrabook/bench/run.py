"""The suite's command line: ``python -m infrabook.bench [--quick] [--only NAME ...]``.

Runs the CPU experiments always and the GPU experiments when CUDA is available (without
it, each GPU experiment is recorded in ``cpu.json`` as skipped, with the reason). Each
experiment is merged into its device's record the moment it finishes, by an atomic file
replace: stopping the run (Ctrl-C, a crash, a time-out) loses only the experiment in
progress. Progress goes to stderr; the targets' verdicts to stdout at the end.

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
import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from infrabook.bench import record
from infrabook.bench.record import CPU_EXPERIMENTS, EXPERIMENTS, GPU_EXPERIMENTS
from infrabook.bench.timing import progress

QUIET_BUSY = 0.25


def cpu_params(quick: bool) -> dict[str, dict[str, Any]]:
    """Arguments of each CPU experiment for a full run (the article's sizes) or a quick one."""
    from infrabook import config

    chain = config.scenarios()["ffn_chain"]
    if quick:
        return {
            "fusion": {"rows": chain["rows"] // 4, "cols": chain["cols"] // 3, "reps": 5,
                       "warmup": 1, "compiled": True},
            "attention_memory": {"seq_lens": (256, 512, 1024), "head_dim": 128},
            "launches": {},
            "shapes": {"rows": (16, 64, 256, 1024), "k": 256, "n": 256, "reps": 3,
                       "scale": 4, "prep": "compile"},
        }
    return {
        "fusion": {"rows": chain["rows"], "cols": chain["cols"], "reps": 15, "warmup": 2,
                   "compiled": True},
        "attention_memory": {"seq_lens": (1024, 2048, 4096, 8192), "head_dim": 128},
        "launches": {},
        "shapes": {"rows": (16, 32, 64, 128, 256, 512, 1024, 2048), "k": 1024, "n": 1024,
                   "reps": 10, "warmup": 2, "scale": 1, "prep": "compile"},
    }


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
        if name == "cpu":
            wanted.update(CPU_EXPERIMENTS)
        elif name == "gpu":
            wanted.update(GPU_EXPERIMENTS)
        elif name in EXPERIMENTS:
            wanted.add(name)
        else:
            raise SystemExit(f"unknown experiment {name!r}: expected cpu, gpu or one of "
                             f"{', '.join(EXPERIMENTS)}")
    return [n for n in EXPERIMENTS if n in wanted]


def wait_quiet(limit_s: float) -> float | None:
    """Wait up to ``limit_s`` seconds until the other processes leave the CPUs mostly idle
    (two one-second samples in a row under 25 % busy); return the last sample."""
    deadline = time.monotonic() + limit_s
    quiet_in_a_row = 0
    busy = None
    while quiet_in_a_row < 2:
        busy = record.cpu_busy(1.0)
        if busy is None:
            return None
        quiet_in_a_row = quiet_in_a_row + 1 if busy <= QUIET_BUSY else 0
        if quiet_in_a_row == 0:
            if time.monotonic() >= deadline:
                progress(f"still {busy:.0%} busy after {limit_s:.0f} s: going ahead")
                return busy
            progress(f"other processes keep {busy:.0%} of the CPUs busy; waiting ...")
            time.sleep(2.0)
    return busy


def run_experiment(
    name: str, fn: Callable[[], dict[str, Any]], device: str, out: Path | None,
    busy_before: float | None = None,
) -> dict[str, Any]:
    """Run one experiment and merge its entry into ``device``'s record; return the entry."""
    started = time.perf_counter()
    progress(f"{name}: start")
    entry = fn()
    entry["provenance"].setdefault("host_load", {})["others_busy_before"] = (
        None if busy_before is None else round(busy_before, 3))
    path = record.merge(device, entry, out)
    progress(f"{name}: {entry['status']} in {time.perf_counter() - started:.1f} s "
             f"-> {path}")
    return entry


def _verdicts(entries: list[dict[str, Any]]) -> list[str]:
    lines = []
    for e in entries:
        for t in e.get("targets", []):
            verdict = {True: "MET", False: "MISSED", None: "NOT MEASURED"}[t["met"]]
            measured = "—" if t["measured"] is None else f"{t['measured']:.3g}{t['unit']}"
            lines.append(f"{verdict:12} {t['description']}: {measured} "
                         f"(target {t['comparison']} {t['threshold']:g}{t['unit']})")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite; 0 when every selected experiment finished, 1 otherwise."""
    parser = argparse.ArgumentParser(prog="python -m infrabook.bench",
                                     description="Run the infrabook benchmark suite.")
    parser.add_argument("--quick", action="store_true", help="scaled-down sizes")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="cpu, gpu or experiments")
    parser.add_argument("--out", type=Path, help="folder for the records")
    parser.add_argument("--threads", type=int, help="torch threads")
    parser.add_argument("--wait-quiet", type=float, default=0.0, metavar="S",
                        help="wait up to S s for an idle CPU before each CPU experiment")
    args = parser.parse_args(argv)
    names = select(args.only)

    import torch

    from infrabook.bench import cpu, gpu

    if args.threads:
        torch.set_num_threads(args.threads)
    out = args.out
    if out is not None:
        os.environ["INFRABOOK_BENCH_DIR"] = str(out)
    params = cpu_params(args.quick)
    done: list[dict[str, Any]] = []
    failed: list[str] = []
    progress(f"suite: {', '.join(names)}{' (quick)' if args.quick else ''}; records in "
             f"{out or record.bench_dir()}")

    for name in [n for n in names if n in CPU_EXPERIMENTS]:
        busy = wait_quiet(args.wait_quiet) if args.wait_quiet > 0 else record.cpu_busy(0.5)
        if busy is not None and busy > QUIET_BUSY:
            progress(f"warning: other processes keep {busy:.0%} of the CPUs busy: times "
                     "will be slower and noisier (the record notes the load)")
        fn = getattr(cpu, name)
        try:
            done.append(run_experiment(
                name, lambda fn=fn, name=name: fn(quick=args.quick, log=progress,
                                                  **params[name]), "cpu", out, busy))
        except Exception:
            failed.append(name)
            progress(f"{name}: FAILED, record left as it was\n{traceback.format_exc()}")

    gpu_names = [n for n in names if n in GPU_EXPERIMENTS]
    reason = gpu.unavailable_reason() if gpu_names else None
    device = "cpu" if reason else (gpu.device_slug() if gpu_names else "cpu")
    if reason and gpu_names:
        progress(f"GPU experiments skipped: {reason}")
    for name in gpu_names:
        fn = gpu.EXPERIMENTS[name]
        try:
            done.append(run_experiment(
                name, lambda fn=fn: fn(quick=args.quick, log=progress), device, out))
        except Exception:
            failed.append(name)
            progress(f"{name}: FAILED, record left as it was\n{traceback.format_exc()}")
        finally:
            if not reason:
                torch.cuda.empty_cache()

    for line in _verdicts(done):
        print(line)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0
