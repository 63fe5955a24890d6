"""Benchmark records: where they live, what they hold, and how they are written.

One JSON file per kind of device under ``docs/_data/bench/``: ``cpu.json`` for the host
CPU, and for a GPU a slug of its name (``nvidia-h200.json``). ``INFRABOOK_BENCH_DIR``
points the reader and the writer at another folder.

A record (schema 1)::

    {"schema": 1, "device": "cpu", "updated": "2026-...Z",
     "experiments": {"fusion": {<experiment entry>}, ...}}

An experiment entry::

    {"name", "title", "status": "ok" | "skipped" | "failed", "reason": str | None,
     "provenance": {"device": {...}, "versions": {...}, "git": {...}, "date", "quick",
                    "host_load": {...}},
     "method": {..., "summary": str}, "params": {...}, "results": {...},
     "values": {key: number or str},          # what report.value() returns
     "tables": [{"title": str, "columns": [...], "rows": [[...], ...]}, ...],
     "targets": [{"id", "description", "measured", "threshold", "comparison", "unit",
                  "met": bool | None, "margin", "note"}],
     "duration_s": float}

Each experiment carries its own provenance because the record is assembled one
experiment at a time: a run that stops half-way leaves the experiments it did not reach as
the earlier run measured them. Every write replaces the whole file atomically (a temporary
file in the same folder, then :func:`os.replace`), so a reader never sees half a record.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import importlib.metadata
import json
import math
import os
import platform
import re
import subprocess
import tempfile
import time
from functools import cache
from pathlib import Path
from typing import Any

from infrabook import config
from infrabook.serialise import jsonable

SCHEMA = 1

#: Experiment names, in the order the suite runs them and the pages show them.
CPU_EXPERIMENTS = ("fusion", "attention_memory", "launches", "shapes")
GPU_EXPERIMENTS = ("gpu_swiglu", "gpu_flash", "gpu_graphs", "gpu_persistent")
EXPERIMENTS = CPU_EXPERIMENTS + GPU_EXPERIMENTS


def repo_root() -> Path:
    """The repository this module sits in (``src/infrabook/bench`` -> three levels up)."""
    return Path(__file__).resolve().parents[3]


def bench_dir() -> Path:
    """The folder the records are read from and written to.

    ``INFRABOOK_BENCH_DIR`` overrides it; otherwise ``docs/_data/bench`` of the repository.

    >>> bench_dir().parts[-3:]
    ('docs', '_data', 'bench')
    """
    override = os.environ.get("INFRABOOK_BENCH_DIR")
    if override:
        return Path(override)
    return repo_root() / "docs" / "_data" / "bench"


def slug(name: str) -> str:
    """A file-name-safe, lower-case slug of a device name.

    >>> slug("NVIDIA H200"), slug("NVIDIA GeForce RTX 4090 (laptop)")
    ('nvidia-h200', 'nvidia-geforce-rtx-4090-laptop')
    """
    out = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    if not out:
        raise ValueError(f"cannot make a record name from device name {name!r}")
    return out


def record_path(device: str, folder: Path | None = None) -> Path:
    """``<folder>/<device>.json`` for a device slug such as ``"cpu"``.

    >>> record_path("cpu", Path("/tmp/x")).as_posix()
    '/tmp/x/cpu.json'
    """
    if slug(device) != device:
        raise ValueError(f"device must be a slug such as 'cpu' or 'nvidia-h200', got {device!r}")
    return (folder if folder is not None else bench_dir()) / f"{device}.json"


def utc_now() -> str:
    """The current UTC time, ISO 8601 to the second, with a ``Z``."""
    now = _dt.datetime.now(_dt.UTC).replace(microsecond=0)
    return now.isoformat().replace("+00:00", "Z")


# --------------------------------------------------------------------------- provenance


@cache
def git_info(root: str | None = None) -> dict[str, Any]:
    """The commit checked out and whether the work tree had changes (untracked included).

    Returns ``{"commit": None, "dirty": None, "error": ...}`` outside a git checkout.
    """
    where = root or str(repo_root())
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True,
            timeout=10, check=True,
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain"], cwd=where, capture_output=True, text=True,
            timeout=30, check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError) as err:
        return {"commit": None, "dirty": None, "error": f"{type(err).__name__}: {err}"}
    return {"commit": commit, "dirty": bool(status.strip())}


def versions() -> dict[str, str | None]:
    """Versions of Python and of the libraries the measurements depend on.

    Read from the installed distributions, not by importing them: importing triton before
    :mod:`infrabook.kernels` has chosen between compiling and interpreting would leave
    Triton's own library functions compiled-only, and the interpreter then cannot call them.
    """
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in ("torch", "triton", "numpy", "numexpr"):
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    try:
        import torch

        out["cuda_runtime"] = torch.version.cuda
    except ImportError:
        out["cuda_runtime"] = None
    return out


def _read_text(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def llc_bytes() -> int | None:
    """Size of the CPU's last-level cache from sysfs, or None when unknown."""
    best = None
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    for index in sorted(base.glob("index*")) if base.is_dir() else []:
        size = _read_text(str(index / "size")).strip()
        level = _read_text(str(index / "level")).strip()
        kind = _read_text(str(index / "type")).strip()
        m = re.fullmatch(r"(\d+)([KMG]?)", size)
        if not m or kind == "Instruction":
            continue
        nbytes = int(m.group(1)) * {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}[m.group(2)]
        if best is None or int(level or 0) >= best[0]:
            best = (int(level or 0), nbytes)
    return None if best is None else best[1]


def usable_cores() -> int:
    """CPUs this process may run on (its affinity mask), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def cpu_info() -> dict[str, Any]:
    """The host CPU: model, cores, last-level cache, memory, MHz and vector flags."""
    cpuinfo = _read_text("/proc/cpuinfo")
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.M)
    mhz = re.search(r"^cpu MHz\s*:\s*([\d.]+)$", cpuinfo, re.M)
    flags = re.search(r"^flags\s*:\s*(.+)$", cpuinfo, re.M)
    flag_set = set(flags.group(1).split()) if flags else set()
    mem = re.search(r"^MemTotal:\s*(\d+) kB", _read_text("/proc/meminfo"), re.M)
    try:
        import torch

        threads: int | None = torch.get_num_threads()
    except ImportError:
        threads = None
    return {
        "kind": "cpu",
        "name": model.group(1).strip() if model else (platform.processor() or "unknown CPU"),
        "logical_cpus": os.cpu_count(),
        "usable_cores": usable_cores(),
        "torch_threads": threads,
        "llc_bytes": llc_bytes(),
        "mem_bytes": int(mem.group(1)) * 1024 if mem else None,
        "mhz": float(mhz.group(1)) if mhz else None,
        "vector": sorted(flag_set & {"avx", "avx2", "fma", "avx512f", "neon", "sve"}),
        "machine": platform.machine(),
        "os": platform.platform(terse=True),
    }


def _cpu_times() -> tuple[int, int] | None:
    line = _read_text("/proc/stat").split("\n", 1)[0].split()
    if not line or line[0] != "cpu":
        return None
    ticks = [int(x) for x in line[1:]]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
    return idle, sum(ticks)


def cpu_busy(interval: float = 0.25) -> float | None:
    """Fraction of all CPUs busy over ``interval`` seconds (from /proc/stat), or None.

    Sampled while this process sleeps, so it measures everything else on the machine.
    """
    first = _cpu_times()
    if first is None:
        return None
    time.sleep(interval)
    second = _cpu_times()
    if second is None or second[1] == first[1]:
        return None
    return 1.0 - (second[0] - first[0]) / (second[1] - first[1])


def host_load(sample_s: float = 0.25) -> dict[str, Any]:
    """Load average and the other processes' CPU use: other work on the machine skews times."""
    busy = cpu_busy(sample_s) if sample_s > 0 else None
    try:
        one, five, _ = os.getloadavg()
    except OSError:  # pragma: no cover
        one = five = float("nan")
    return {"loadavg_1m": round(one, 2), "loadavg_5m": round(five, 2), "cores": usable_cores(),
            "others_busy_fraction": None if busy is None else round(busy, 3)}


def provenance(device: dict[str, Any], *, quick: bool = False) -> dict[str, Any]:
    """Where, with what and when an experiment ran."""
    return {
        "device": device,
        "versions": versions(),
        "git": dict(git_info()),
        "date": utc_now(),
        "quick": quick,
        "host_load": host_load(),
    }


# ----------------------------------------------------------------------------- entries


def target(
    id: str,
    description: str,
    measured: float | None,
    threshold: float,
    comparison: str,
    unit: str = "",
    note: str = "",
) -> dict[str, Any]:
    """A target of the issue, judged: ``met`` is None when nothing was measured.

    ``margin`` is measured minus threshold (positive is better for ``>=``, negative for
    ``<=``); ``ratio`` is measured / threshold.

    >>> t = target("x", "speed", 1.2, 1.6, ">=", "x")
    >>> t["met"], round(t["margin"], 2), round(t["ratio"], 2)
    (False, -0.4, 0.75)
    >>> target("y", "peak", None, 0.05, "<=")["met"] is None
    True
    """
    if comparison not in (">=", "<="):
        raise ValueError(f"comparison must be '>=' or '<=', got {comparison!r}")
    ok = measured is not None and math.isfinite(measured)
    met = None if not ok else (measured >= threshold if comparison == ">=" else
                               measured <= threshold)
    return {
        "id": id,
        "description": description,
        "measured": measured if ok else None,
        "threshold": threshold,
        "comparison": comparison,
        "unit": unit,
        "met": met,
        "margin": (measured - threshold) if ok else None,
        "ratio": (measured / threshold) if ok and threshold else None,
        "note": note,
    }


def configured_target(id: str, measured: float | None, note: str = "") -> dict[str, Any]:
    """The target ``id`` of ``conf/bench_targets.toml``, judged against ``measured``."""
    t = config.bench_targets()[id]
    return target(id, t["description"], measured, t["threshold"], t["comparison"], t["unit"],
                  note)


def skipped(name: str, title: str, reason: str, prov: dict[str, Any]) -> dict[str, Any]:
    """An entry for an experiment that could not run here, with the reason."""
    return {
        "name": name,
        "title": title,
        "status": "skipped",
        "reason": reason,
        "provenance": prov,
        "method": {"summary": "not run"},
        "params": {},
        "results": {},
        "values": {},
        "tables": [],
        "targets": [],
        "duration_s": 0.0,
    }


def check_entry(entry: dict[str, Any]) -> None:
    """Raise ``ValueError`` unless ``entry`` has the fields of an experiment entry."""
    required = {"name", "title", "status", "provenance", "method", "results", "values",
                "tables", "targets"}
    missing = required - set(entry)
    if missing:
        raise ValueError(f"experiment entry lacks {sorted(missing)}")
    if entry["status"] not in ("ok", "skipped", "failed"):
        raise ValueError(f"status must be ok, skipped or failed, got {entry['status']!r}")
    if entry["name"] not in EXPERIMENTS:
        raise ValueError(f"unknown experiment {entry['name']!r}: expected one of {EXPERIMENTS}")
    for table in entry["tables"]:
        for row in table["rows"]:
            if len(row) != len(table["columns"]):
                raise ValueError(f"{entry['name']}: a row of table {table.get('title')!r} has "
                                 f"{len(row)} cells, expected {len(table['columns'])}")


# ------------------------------------------------------------------------ read / write


def read(path: Path) -> dict[str, Any] | None:
    """The record at ``path``, or None when there is none (or it is not a record)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return None
    data.setdefault("experiments", {})
    return data


def write_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` so that readers see the old file or the new one.

    The text is produced in full before anything touches the disk, written to a temporary
    file in the same folder, flushed to disk, then moved over ``path`` with
    :func:`os.replace`. On any error the temporary file is removed and ``path`` is left as
    it was.
    """
    text = json.dumps(jsonable(data), indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it 0600; a record is for everyone
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def merge(device: str, entry: dict[str, Any], folder: Path | None = None) -> Path:
    """Put one finished experiment into ``device``'s record, replacing its earlier entry.

    Other experiments in the record are kept as they were.
    """
    check_entry(entry)
    path = record_path(device, folder)
    data = read(path) or {"schema": SCHEMA, "device": device, "experiments": {}}
    experiments = dict(data.get("experiments", {}))
    experiments[entry["name"]] = entry
    ordered = {k: experiments[k] for k in EXPERIMENTS if k in experiments}
    data.update(schema=SCHEMA, device=device, updated=utc_now(), experiments=ordered)
    write_atomic(path, data)
    return path


def entry(
    name: str,
    title: str,
    *,
    device: dict[str, Any],
    quick: bool,
    method: dict[str, Any],
    params: dict[str, Any],
    results: dict[str, Any],
    values: dict[str, Any],
    tables: list[dict[str, Any]],
    targets: list[dict[str, Any]],
    duration_s: float,
    status: str = "ok",
    reason: str | None = None,
) -> dict[str, Any]:
    """Assemble an experiment entry with its provenance, and check it."""
    out = {
        "name": name,
        "title": title,
        "status": status,
        "reason": reason,
        "provenance": provenance(device, quick=quick),
        "method": method,
        "params": params,
        "results": results,
        "values": values,
        "tables": tables,
        "targets": targets,
        "duration_s": round(duration_s, 3),
    }
    check_entry(out)
    return out


def table(title: str, columns: list[str], rows: list[list[Any]]) -> dict[str, Any]:
    """One table of an entry: cells are numbers, strings, booleans or None (shown as —)."""
    return {"title": title, "columns": list(columns), "rows": [list(r) for r in rows]}
