"""The suite's command line: ``python -m infrabook.bench [--quick] [--only NAME ...] [--out DIR]
[--isolate [--limit SECONDS]]``, and ``python -m infrabook.bench --merge DIR``.

Runs the CPU experiments always and the GPU ones when CUDA is available (without it, each
GPU experiment is recorded in ``cpu.json`` as skipped, with the reason). Each experiment is
merged into its device's record in ``--out`` the moment it finishes, by an atomic file
replace: stopping the run (Ctrl-C, a kill, a crash, a time-out) loses only the experiment
in progress, and one that fails (a NaN in its results included) is logged and skipped.
``--isolate`` runs each experiment in its own process, killed at its time limit, so that a
hang or a sticky CUDA error costs that experiment alone. ``--merge DIR`` brings the measured
entries of records made elsewhere (a GPU machine's) into ``--out``. Progress goes to
stderr, the targets' verdicts to stdout at the end. ``--only gpu`` on a GPU machine leaves
``cpu.json`` as it is.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import torch

from infrabook.bench import gpu, record, report
from infrabook.bench.registry import CPU_EXPERIMENTS, EXPERIMENTS, GPU_EXPERIMENTS

#: Above this share of the CPUs busy with other processes, CPU times are noisy: say so.
BUSY = 0.25

#: How ``--isolate`` starts the suite for one experiment (a test puts a fake suite here).
CHILD: tuple[str, ...] = (sys.executable, "-m", "infrabook.bench")

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


def run_child(command: Sequence[str], limit_s: float) -> str | None:
    """Run ``command`` in a process group of its own, its standard output discarded (its
    log goes to standard error); None when it exits with 0 within ``limit_s`` seconds, else
    why not. At the limit, or when this process is interrupted, the whole group is killed
    (a hung CUDA call ignores gentler signals).

    >>> run_child([sys.executable, "-c", "pass"], 60), run_child(["false"], 60)
    (None, 'exit status 1')
    """
    proc = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL)
    try:
        status = proc.wait(timeout=limit_s)
    except subprocess.TimeoutExpired:
        return f"killed at its time limit of {limit_s:g} s"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return None if status == 0 else f"exit status {status}"


def _isolated(names: Sequence[str], out: Path, quick: bool, limit_s: float | None) -> int:
    """Each experiment in its own process under its time limit, then the verdicts of the
    records in ``out``, once; 0 when all finished."""
    failed = []
    for name in names:
        seconds = limit_s or EXPERIMENTS[name].limit_s
        log.info("%s: own process, time limit %g s", name, seconds)
        command = [*CHILD, "--only", name, "--out", str(out), *(["--quick"] if quick else [])]
        why = run_child(command, seconds)
        if why:
            failed.append(name)
            log.error("%s: FAILED (%s), record left as it was", name, why)
    for path in sorted(out.glob("*.json")):
        print(report.targets(path.stem, folder=out).tables[0].text())
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


def merge_returned(folder: Path, out: Path) -> int:
    """Merge the measured (``ok``) entries of every record in ``folder`` into the records
    in ``out``, one experiment at a time; skipped and failed entries are listed, not merged
    (they would replace a measurement with its absence). 0 when something was merged."""
    if folder.resolve() == out.resolve():
        raise SystemExit(f"--merge {folder}: that is where the records go (--out)")
    paths = sorted(folder.glob("*.json"))
    if not paths:
        raise SystemExit(f"--merge {folder}: no records (*.json) there")
    merged = 0
    for path in paths:
        returned = record.read(path)
        if returned is None:  # gone since the listing
            continue
        for name, entry in returned.experiments.items():
            if entry.status == "ok":
                target = record.merge(returned.device, entry, out)
                log.info("%s: %s -> %s", name, path, target)
                merged += 1
            else:
                log.info("%s: %s in %s (%s): not merged", name, entry.status, path, entry.reason)
    log.info("merged %d measured experiment(s) into %s", merged, out)
    return 0 if merged else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite; 0 when every selected experiment finished, 1 otherwise."""
    parser = argparse.ArgumentParser(
        prog="python -m infrabook.bench", description="Run the infrabook benchmark suite."
    )
    parser.add_argument("--quick", action="store_true", help="scaled-down sizes (seconds)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="cpu, gpu or experiments")
    parser.add_argument("--out", type=Path, help="folder for the records (docs/_data/bench)")
    parser.add_argument("--isolate", action="store_true", help="each experiment in its own process")
    parser.add_argument(
        "--limit", type=float, metavar="SECONDS", help="with --isolate: time limit for each"
    )
    parser.add_argument(
        "--merge", type=Path, metavar="DIR", help="merge the measured entries of DIR's records"
    )
    args = parser.parse_args(argv)
    if args.limit is not None and (not args.isolate or args.limit <= 0):
        parser.error(f"--limit needs --isolate and a positive number, got {args.limit}")
    logging.basicConfig(level=logging.INFO, format="[bench] %(message)s", stream=sys.stderr)
    out = args.out or record.bench_dir()
    if args.merge:
        return merge_returned(args.merge, out)
    names = select(args.only)
    wanted_gpu = any(n in GPU_EXPERIMENTS for n in names)
    try:
        if wanted_gpu:
            gpu.check_native()
    except gpu.RigError as err:
        raise SystemExit(f"python -m infrabook.bench: {err}") from None
    log.info("suite: %s%s; records in %s", ", ".join(names), " (quick)" if args.quick else "", out)
    if args.isolate:
        return _isolated(names, out, args.quick, args.limit)
    # one rig for every GPU experiment, and none without one: making it queries the driver
    # and starts the profiler
    rig = gpu.rig() if wanted_gpu and gpu.unavailable_reason() is None else None
    written, failed = set(), []
    for name in names:
        log.info("%s: start", name)
        on_gpu = rig is not None and name in GPU_EXPERIMENTS
        device = record.slug(rig.info["name"]) if rig and on_gpu else "cpu"
        try:
            entry = EXPERIMENTS[name](quick=args.quick, **({"rig": rig} if on_gpu else {}))
            path = record.merge(device, entry, out)  # refuses NaN, naming the field
        except Exception:
            failed.append(name)
            log.exception("%s: FAILED, record left as it was", name)
            continue
        finally:
            if on_gpu:
                torch.cuda.empty_cache()
        busy = entry.provenance.host_load.get("others_busy_fraction") or 0.0
        if name in CPU_EXPERIMENTS and busy > BUSY:
            log.warning("%s: other processes kept %.0f%% of the CPUs busy", name, 100 * busy)
        written.add(device)
        log.info("%s: %s in %.1f s -> %s", name, entry.status, entry.duration_s, path)
    for device in sorted(written):  # the verdicts, as the book's appendix tabulates them
        print(report.targets(device, folder=out).tables[0].text())
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0
