"""The suite's command line: ``python -m infrabook.bench [--quick] [--only NAME ...] [--out DIR]
[--machine LABEL] [--compare] [--isolate [--limit SECONDS]]``, ``python -m infrabook.bench
--merge DIR`` and ``python -m infrabook.bench compare RECORD ...``.

Runs the CPU experiments always and the GPU ones when CUDA is available (without it, each
GPU experiment is recorded in the CPU's record as skipped, with the reason). Records are
named after their machine (:func:`infrabook.bench.records.store.machine_name`), so a re-run on the
same machine replaces its entries, and ``--machine LABEL`` names a machine apart from one
that the recorded facts do not tell from it. Each experiment is
merged into its machine's record in ``--out`` the moment it finishes, by an atomic file
replace: stopping the run (Ctrl-C, a kill, a crash, a time-out) loses only the experiment
in progress, and one that fails (a NaN in its results included) is logged and skipped; one
that the validator refuses is kept in ``<out>/rejected/`` (:func:`infrabook.bench.records.store.
keep_rejected`), from where ``--merge`` takes it once the validator is fixed.
``--isolate`` runs each experiment in its own process, killed at its time limit, so that a
hang or a sticky CUDA error costs that experiment alone. ``--merge DIR`` brings the measured
entries of records made elsewhere (a GPU machine's) into ``--out``. Progress goes to
stderr, the targets' verdicts to stdout at the end; with ``--compare``, then the records
written beside the book's (every other record in ``docs/_data/bench``) and the model, in the
build's language (``INFRABOOK_LANG``). ``compare RECORD ...`` prints the same for record
files already written; a file that is not a record ends it with status 2 and one line.
``--only gpu`` on a GPU machine leaves the CPU's record as it is. The help and the
errors on options are in the build's language; the progress log, what is wrong inside a
record file (:mod:`infrabook.bench.records.validate`) and the CUDA rig's refusals are English.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from infrabook.argparse_lang import Parser, argparse_words
from infrabook.bench.records import compare, report, store
from infrabook.bench.records.entry import Record
from infrabook.bench.records.results import CPU_EXPERIMENTS, GPU_EXPERIMENTS, RESULTS
from infrabook.labels import text
from infrabook.quoting import quoted

#: Above this share of the CPUs busy with other processes, CPU times are noisy: say so.
BUSY = 0.25
#: The most characters of a --machine label: it becomes part of a record's file name, which
#: the file system limits (255 bytes), so a longer one would fail only at the first merge.
LABEL_LIMIT = 40

#: How ``--isolate`` starts the suite for one experiment (a test puts a fake suite here).
CHILD: tuple[str, ...] = (sys.executable, "-m", "infrabook.bench")

log = logging.getLogger("infrabook.bench")


def select(only: Sequence[str] | None) -> list[str]:
    """Experiments to run, in suite order; ``cpu`` and ``gpu`` name the groups.

    >>> select(["gpu", "fusion"])  # doctest: +NORMALIZE_WHITESPACE
    ['fusion', 'gpu_swiglu', 'gpu_flash', 'gpu_sdpa', 'gpu_graphs', 'gpu_persistent',
     'gpu_ceilings']
    """
    wanted: set[str] = set()
    for name in only or RESULTS:
        if name not in (*RESULTS, "cpu", "gpu"):
            names = " / ".join(("cpu", "gpu", *RESULTS))
            raise ValueError(text("bench.cli.error.experiment", name=repr(name), names=names))
        wanted.update({"cpu": CPU_EXPERIMENTS, "gpu": GPU_EXPERIMENTS}.get(name, (name,)))
    return [n for n in RESULTS if n in wanted]


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


def _isolated(
    names: Sequence[str], out: Path, quick: bool, limit_s: float | None, label: str | None
) -> int:
    """Each experiment in its own process under its time limit, then the verdicts of the
    records in ``out``, once; 0 when all finished."""
    from infrabook.bench.experiments.suite import EXPERIMENTS  # the experiments import torch

    failed = []
    for name in names:
        seconds = limit_s or EXPERIMENTS[name].limit_s
        log.info("%s: own process, time limit %g s", name, seconds)
        command = [*CHILD, "--only", name, "--out", str(out), *(["--quick"] if quick else [])]
        command += ["--machine", label] if label else []
        why = run_child(command, seconds)
        if why:
            failed.append(name)
            log.error("%s: FAILED (%s), record left as it was", name, why)
    for path in sorted(out.glob("*.json")):
        print(report.targets(path.stem, folder=out).tables[0].text())
    if failed:
        print(text("bench.cli.failed", names=", ".join(failed)), file=sys.stderr)
    return 1 if failed else 0


def _seconds(raw: str) -> float:
    """``--limit``: a positive, finite number of seconds."""
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise argparse.ArgumentTypeError(text("bench.cli.error.limit", raw=raw))
    return seconds


def merge_returned(folder: Path, out: Path) -> int:
    """Merge the measured (``ok``) entries of every record in ``folder`` into the records
    in ``out``, one experiment at a time; skipped and failed entries are listed, not merged
    (they would replace a measurement with its absence). 0 when something was merged;
    ``ValueError`` for a folder with no records, or with a file that is not one."""
    if folder.resolve() == out.resolve():
        raise ValueError(text("bench.cli.error.merge_out", folder=folder))
    paths = sorted(folder.glob("*.json"))
    if not paths:
        raise ValueError(text("bench.cli.error.merge_none", folder=folder))
    merged = 0
    for path in paths:
        returned = store.read(path)
        if returned is None:  # gone since the listing
            continue
        for name, entry in returned.experiments.items():
            if entry.status == "ok":
                target = store.merge(returned.device, entry, out)
                log.info("%s: %s -> %s", name, path, target)
                merged += 1
            else:
                log.info("%s: %s in %s (%s): not merged", name, entry.status, path, entry.reason)
    log.info("merged %d measured experiment(s) into %s", merged, out)
    return 0 if merged else 1


def comparison(paths: Sequence[Path], book: Path) -> str:
    """The records at ``paths`` (the reader's) beside the book's records in ``book`` and the
    model, per experiment the reader measured, as terminal text in the build's language;
    :class:`RecordError` for a file that is not a record."""
    yours: dict[str, Record] = {}
    for path in paths:
        found = store.read(path)
        if found is None:
            raise store.RecordError(path, "there is no such file")
        yours[found.device] = found
    # a record of the same name in the book (the same machine, or one its facts do not
    # tell apart) gives way to the reader's: theirs is the one asked about
    books = report.records(folder=book)  # read and checked once
    theirs = {n: r for n, r in books.items() if n not in yours}
    refs = {report.reference(kind, found=books) for kind in ("cpu", "gpu")} - set(yours)
    every = yours | theirs
    parts = [text("bench.cmp.files", paths=", ".join(map(str, paths)))]
    parts += [] if theirs else [text("bench.cmp.none_yet", path=book)]
    for experiment in RESULTS:
        if compare.entries(experiment, yours):
            shown = report.side_by_side(experiment, found=every, yours=yours, refs=refs)
            parts += [shown.text()] if shown.tables else []
    return "\n\n".join(parts)


def compare_main(argv: Sequence[str]) -> int:
    """``python -m infrabook.bench compare RECORD ...``: print the records beside the book's;
    2 and one line on stderr for a file that is not a record."""
    with argparse_words():
        parser = Parser(
            prog="python -m infrabook.bench compare",
            description=text("bench.cli.compare_description"),
        )
        parser.add_argument(
            "records", nargs="+", type=Path, metavar="RECORD", help=text("bench.cli.records")
        )
        parser.add_argument(
            "--book", type=Path, help=text("bench.cli.book", default=store.BOOK_DIR)
        )
        args = parser.parse_args(argv)
        for path in args.records:
            if not path.is_file():
                parser.error(text("bench.cli.error.not_file", path=path))
    try:
        print(comparison(args.records, args.book or store.bench_dir()))
    except store.RecordError as err:
        print(text("cli.error", prog=parser.prog, message=err), file=sys.stderr)
        return 2
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite; 0 when every selected experiment finished, 1 otherwise."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["compare"]:
        return compare_main(argv[1:])
    with argparse_words():
        parser = Parser(prog="python -m infrabook.bench", description=text("bench.cli.description"))
        option = parser.add_argument
        option("--quick", action="store_true", help=text("bench.cli.quick"))
        option("--only", nargs="+", metavar="NAME", help=text("bench.cli.only"))
        option("--out", type=Path, help=text("bench.cli.out", default=store.BOOK_DIR))
        option("--isolate", action="store_true", help=text("bench.cli.isolate"))
        option("--limit", type=_seconds, metavar="SECONDS", help=text("bench.cli.limit"))
        option("--merge", type=Path, metavar="DIR", help=text("bench.cli.merge"))
        option("--machine", metavar="LABEL", help=text("bench.cli.machine"))
        option("--compare", action="store_true", help=text("bench.cli.compare"))
        args = parser.parse_args(argv)
        if args.machine is not None:
            if len(args.machine) > LABEL_LIMIT:  # refused now, not at the first merge
                raw, n = quoted(repr(args.machine)), len(args.machine)
                parser.error(text("bench.cli.error.machine_long", raw=raw, n=n, limit=LABEL_LIMIT))
            try:
                store.slug(args.machine)
            except ValueError:
                parser.error(text("bench.cli.error.machine", raw=repr(args.machine)))
        if args.compare and args.isolate:
            parser.error(text("bench.cli.error.compare_isolate"))
        if args.limit is not None and not args.isolate:
            parser.error(text("bench.cli.error.limit_isolate"))
        try:
            names = select(args.only)
        except ValueError as err:
            parser.error(str(err))
    logging.basicConfig(level=logging.INFO, format="[bench] %(message)s", stream=sys.stderr)
    out = args.out or store.bench_dir()
    if args.merge:
        try:
            return merge_returned(args.merge, out)
        except ValueError as err:  # a RecordError too: a file there that is not a record
            parser.error(str(err))
    # measuring needs torch: imported only now, so that a bad option, --merge and compare
    # answer without it (importing torch takes seconds)
    import torch

    from infrabook.bench.experiments.suite import EXPERIMENTS
    from infrabook.bench.measure import cuda, host

    wanted_gpu = any(n in GPU_EXPERIMENTS for n in names)
    try:
        if wanted_gpu:
            cuda.check_native()
    except cuda.RigError as err:
        parser.error(str(err))
    log.info("suite: %s%s; records in %s", ", ".join(names), " (quick)" if args.quick else "", out)
    if args.isolate:
        return _isolated(names, out, args.quick, args.limit, args.machine)
    # one rig for every GPU experiment, and none without one: making it queries the driver
    # and starts the profiler
    rig = cuda.rig() if wanted_gpu and cuda.unavailable_reason() is None else None
    written, failed = set(), []
    for name in names:
        log.info("%s: start", name)
        on_gpu = rig is not None and name in GPU_EXPERIMENTS
        device = store.machine_name(rig.info if rig and on_gpu else host.cpu_info(), args.machine)
        try:
            entry = EXPERIMENTS[name](quick=args.quick, **({"rig": rig} if on_gpu else {}))
            path = store.merge(device, entry, out)  # refuses NaN, naming the field
        except Exception:
            failed.append(name)
            log.exception("%s: FAILED, record left as it was", name)
            continue
        finally:
            if on_gpu:
                torch.cuda.empty_cache()
        busy = entry.provenance.host_load.others_busy_fraction or 0.0
        if name in CPU_EXPERIMENTS and busy > BUSY:
            log.warning("%s: other processes kept %.0f%% of the CPUs busy", name, 100 * busy)
        written.add(device)
        log.info("%s: %s in %.1f s -> %s", name, entry.status, entry.duration_s, path)
    for device in sorted(written):  # the verdicts, as the book's appendix tabulates them
        print(report.targets(device, folder=out).tables[0].text())
    if args.compare and written:
        paths = [store.record_path(device, out) for device in sorted(written)]
        print("\n" + comparison(paths, store.bench_dir()))
    if failed:
        print(text("bench.cli.failed", names=", ".join(failed)), file=sys.stderr)
        return 1
    return 0
