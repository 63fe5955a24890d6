"""The machine a measurement ran on: CPU, load, library versions and the git commit.

psutil answers what it can (cores, affinity, memory, clock, load, busy time); the CPU's
model, vector flags and last-level cache come from Linux's /proc and sysfs, which psutil
does not read. Every field is None where the machine does not say.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import re
import subprocess
from functools import cache
from pathlib import Path
from typing import Literal

import psutil
import torch

from infrabook.bench.records.entry import (
    CpuDevice,
    CudaDevice,
    GitInfo,
    HostLoad,
    Provenance,
    Versions,
    utc_now,
)
from infrabook.bench.records.schema import COMMIT

VECTOR_FLAGS = frozenset({"avx", "avx2", "fma", "avx512f", "neon", "sve"})


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def usable_cores() -> int:
    """CPUs this process may run on (its affinity mask), at least 1."""
    try:
        return max(1, len(psutil.Process().cpu_affinity() or []))
    except (AttributeError, psutil.Error):  # no affinity on macOS
        return max(1, psutil.cpu_count() or 1)


def llc_bytes() -> int | None:
    """Size of the CPU's last-level data cache from sysfs, or None when unknown."""
    best: tuple[int, int] | None = None
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        m = re.fullmatch(r"(\d+)([KMG]?)", _read(index / "size").strip())
        if not m or _read(index / "type").strip() == "Instruction":
            continue
        level = int(_read(index / "level").strip() or 0)
        nbytes = int(m.group(1)) * {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}[m.group(2)]
        if best is None or level >= best[0]:
            best = (level, nbytes)
    return None if best is None else best[1]


def cpu_info() -> CpuDevice:
    """The host CPU: model, cores, last-level cache, memory, MHz and vector flags."""
    text = _read(Path("/proc/cpuinfo"))
    model = re.search(r"^model name\s*:\s*(.+)$", text, re.M)
    flags = re.search(r"^(?:flags|Features)\s*:\s*(.+)$", text, re.M)
    freq = psutil.cpu_freq()
    return CpuDevice(
        kind="cpu",
        name=model.group(1).strip() if model else (platform.processor() or "unknown CPU"),
        logical_cpus=psutil.cpu_count(),
        usable_cores=usable_cores(),
        torch_threads=torch.get_num_threads(),
        llc_bytes=llc_bytes(),
        mem_bytes=psutil.virtual_memory().total,
        mhz=freq.current if freq and freq.current else None,
        vector=tuple(sorted(set(flags.group(1).split()) & VECTOR_FLAGS)) if flags else (),
        machine=platform.machine(),
        os=platform.platform(terse=True),
    )


def host_load(sample_s: float = 0.25) -> HostLoad:
    """Load average, and the fraction of all CPUs busy over ``sample_s`` seconds while this
    process sleeps (what everything else uses): other work on the machine skews times."""
    one, five, _ = psutil.getloadavg()
    busy = psutil.cpu_percent(interval=sample_s) / 100 if sample_s > 0 else None
    return HostLoad(
        loadavg_1m=round(one, 2),
        loadavg_5m=round(five, 2),
        cores=usable_cores(),
        others_busy_fraction=None if busy is None else round(busy, 3),
    )


def versions() -> Versions:
    """Versions of Python and of the libraries the measurements depend on, with the CUDA
    runtime and cuDNN that torch was built with (None without CUDA).

    Read from the installed distributions, not by importing them: importing triton before
    :mod:`infrabook.kernels` has chosen between compiling and interpreting would leave
    Triton's own library functions compiled-only, and the interpreter then cannot call them.
    Nightly torch ships Triton as ``pytorch-triton``.

    >>> versions().python == platform.python_version()
    True
    """
    cudnn = torch.backends.cudnn.version() if torch.version.cuda else None  # e.g. 91500
    return Versions(
        python=platform.python_version(),
        torch=_version("torch"),
        triton=_version("triton") or _version("pytorch-triton"),
        numpy=_version("numpy"),
        numexpr=_version("numexpr"),
        cuda_runtime=torch.version.cuda,
        cudnn=cudnn and _cudnn_text(cudnn),
    )


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _cudnn_text(version: int) -> str:
    """cuDNN's version number as text: 9 and later count major * 10000 + minor * 100 +
    patch, 8 and earlier major * 1000 + minor * 100 + patch.

    >>> _cudnn_text(91500), _cudnn_text(8907)
    ('9.15.0', '8.9.7')
    """
    major = version // 10000 if version >= 90000 else version // 1000
    return f"{major}.{version // 100 % (100 if version >= 90000 else 10)}.{version % 100}"


#: The package's own folder: its commit is the one a record names, wherever it runs from.
PACKAGE_DIR = Path(__file__).resolve().parents[2]
#: Where a commit is read when the package is no git checkout: ``git archive`` (and a
#: forge's source download) writes the commit into this file (``export-subst`` in
#: .gitattributes).
ARCHIVED_COMMIT = PACKAGE_DIR / "COMMIT"


def _given_commit() -> tuple[str, Literal["INFRABOOK_COMMIT", "archive"]] | None:
    """The commit passed in (``$INFRABOOK_COMMIT``) or stamped into the package by ``git
    archive``, with where it came from; ``ValueError`` for a value that is no commit."""
    stamped = _read(ARCHIVED_COMMIT).strip()
    given: tuple[tuple[Literal["INFRABOOK_COMMIT", "archive"], str], ...] = (
        ("INFRABOOK_COMMIT", os.environ.get("INFRABOOK_COMMIT", "").strip()),
        ("archive", "" if stamped.startswith("$Format") else stamped),  # not substituted
    )
    for source, value in given:
        if value and not re.fullmatch(COMMIT, value):
            raise ValueError(f"{source}: expected a git commit (7 to 64 hex digits), got {value!r}")
        if value:
            return value, source
    return None


def _git(*args: str) -> str:
    """What ``git -C PACKAGE_DIR ARGS`` prints; ``OSError`` or ``SubprocessError`` if it fails."""
    command = ["git", "-C", str(PACKAGE_DIR), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=30, check=True).stdout


@cache
def git_info() -> GitInfo:
    """The commit of the package's own git checkout and whether its work tree had changes
    (untracked files included), asked of git only when the package's own files are tracked
    there: a copy of the project inside some other repository must not record that one's
    commit. Otherwise the commit passed in as ``$INFRABOOK_COMMIT``, else the one ``git
    archive`` stamped into the package, with ``dirty`` None (unknown); ``source`` says
    which. Else no commit, and ``error`` says why."""
    try:
        _git("ls-files", "--error-unmatch", "--", "__init__.py")  # the package's own file
        lines = _git("status", "--porcelain=v2", "--branch").splitlines()
    except (OSError, subprocess.SubprocessError) as err:
        given = _given_commit()
        if given:
            return GitInfo(commit=given[0], dirty=None, source=given[1])
        # git's own message would name the package's folder, and a record holds no path
        why = "not tracked by git" if isinstance(err, subprocess.CalledProcessError) else "no git"
        return GitInfo(commit=None, dirty=None, error=f"{type(err).__name__}: {why}")
    oid = [line.split()[2] for line in lines if line.startswith("# branch.oid")]
    changed = [line for line in lines if not line.startswith("#")]
    commit = oid[0] if oid and oid[0] != "(initial)" else None
    return GitInfo(commit=commit, dirty=bool(changed), source="git")


def provenance(device: CpuDevice | CudaDevice, *, quick: bool) -> Provenance:
    """Where, with what and when an experiment runs: now, here."""
    return Provenance(device, versions(), git_info(), utc_now(), quick, host_load())
