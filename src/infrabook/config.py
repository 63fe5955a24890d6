"""The one loader for ``conf/``: the article's scenarios, claims, benchmark targets and the
hardware profiles, each file described once by the frozen dataclasses below.

The files live in the repository's ``conf/`` folder and are packaged into the wheel as
``infrabook/conf``; ``INFRABOOK_CONF`` points the loader at another folder. A file is turned
into its classes by :mod:`infrabook.conf_convert` (cattrs; why, it says) when it is first
read: every key the code reads is declared here with its kind (:mod:`infrabook.conf_kinds`),
so a missing key, a mistyped value or an unknown key fails with one ``ConfError`` line naming
the file, the key and what was expected. The rules between keys (a call larger than every
bucket, a peak device hardware.toml lacks) are :mod:`infrabook.conf_schema`'s.

The live calculators read the same TOML files in the reader's browser, where Pyodide has no
cattrs: there :mod:`infrabook.conf_plain` checks them, as strictly and with the same words.
A conf folder holds data only: every file is read through :func:`infrabook.safe_files.read_bounded`
(no link followed, no pipe waited on, at most :data:`MAX_BYTES`), and a pickle in it is refused,
never loaded (unpickling runs code).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal, TypeVar

from infrabook.conf_kinds import (
    Call,
    Name,
    NonNegative,
    Number,
    Numeral,
    Positive,
    PositiveInt,
    UnitFraction,
)
from infrabook.conf_schema import ConfError, check_device, check_relations
from infrabook.quoting import printable
from infrabook.safe_files import FileRefused, read_bounded

__all__ = [
    "Attention",
    "Bucketing",
    "Claim",
    "ConfError",
    "Device",
    "FfnChain",
    "Figure",
    "GraphReplay",
    "LiveTargets",
    "OnlineSoftmax",
    "Overlap",
    "Reference",
    "Scenarios",
    "StandardTiles",
    "StrategyConf",
    "Target",
    "Timeline",
    "bench_references",
    "bench_targets",
    "check_all",
    "claims",
    "conf_dir",
    "device",
    "devices",
    "live_targets",
    "scenarios",
]

T = TypeVar("T")


def conf_dir() -> Path:
    """The folder the TOML files are read from.

    >>> (conf_dir() / "scenarios.toml").is_file()
    True
    """
    override = os.environ.get("INFRABOOK_CONF")
    if override:
        return Path(override)
    packaged = Path(str(files("infrabook"))) / "conf"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "conf"


Dtype = Literal["fp32", "fp16", "bf16"]


@dataclass(frozen=True)
class FfnChain:
    """Section 2 / 2.1: the FFN activation chain's shape, dtype and quantisation step."""

    rows: PositiveInt
    cols: PositiveInt
    dtype: Dtype
    quant_dtype: Literal["int8", "fp8"]


@dataclass(frozen=True)
class Attention:
    """Section 3: standard attention for one head, and the FlashAttention tiles."""

    seq_len: PositiveInt
    head_dim: PositiveInt
    dtype: Dtype
    score_dtype: Dtype
    block_q: PositiveInt
    block_k: PositiveInt


@dataclass(frozen=True)
class OnlineSoftmax:
    """Section 3.1, example 5-6: scores (as the exponentials of them), values, block size."""

    score_exps: tuple[Positive, ...]
    values: tuple[Number, ...]
    block: PositiveInt


@dataclass(frozen=True)
class GraphReplay:
    """Section 5.1: FFN runs and kernels per run, eager and with SiLU and multiply fused."""

    runs: PositiveInt
    kernels_per_run: PositiveInt
    fused_kernels_per_run: PositiveInt


@dataclass(frozen=True)
class StrategyConf:
    """One shape strategy of example 5-12 (:class:`infrabook.bucketing.Strategy`)."""

    name: Name
    bucketed: bool
    mfu: UnitFraction
    prep_ms: NonNegative
    article_rate_tflops: Positive | None = None


@dataclass(frozen=True)
class Bucketing:
    """Section 5.2 / 5.3, example 5-12: the calls, the buckets and the three strategies."""

    calls: tuple[Call, ...]
    buckets: tuple[PositiveInt, ...]
    peak_tflops: Positive
    peak_device: Name
    d_model: PositiveInt
    d_ff: PositiveInt
    flop_per_row_factor: PositiveInt
    strategies: tuple[StrategyConf, ...]


@dataclass(frozen=True)
class Overlap:
    """Section 5: one chunk's copy and compute, in μs, and how many chunks."""

    chunks: PositiveInt
    copy_us: Positive
    compute_us: Positive


@dataclass(frozen=True)
class Timeline:
    """Section 5 / 5.1: the assumed host and device times of the timelines, in μs."""

    launch_us: Positive
    graph_launch_us: Positive
    device_gap_us: NonNegative
    kernel_us: tuple[Positive, ...]
    overlap: Overlap


@dataclass(frozen=True)
class StandardTiles:
    """Section 3: the tiles of the standard implementation's two GEMMs."""

    block_m: PositiveInt
    block_n: PositiveInt


@dataclass(frozen=True)
class Scenarios:
    """``conf/scenarios.toml``: the article's worked examples."""

    ffn_chain: FfnChain
    attention: Attention
    online_softmax: OnlineSoftmax
    graph_replay: GraphReplay
    bucketing: Bucketing
    timeline: Timeline
    attention_standard_tiles: StandardTiles


@dataclass(frozen=True)
class Claim:
    """One numeric claim of the article, as it states it (``stated`` keeps its digits)."""

    id: Name
    section: Name
    text: Name
    stated: Numeral
    unit: str


@dataclass(frozen=True)
class _ClaimsFile:
    claim: tuple[Claim, ...]


@dataclass(frozen=True)
class LiveTargets:
    """The live calculators' targets, in milliseconds."""

    first_result_ms: PositiveInt
    update_ms: PositiveInt


#: The benchmark suite's experiments, by name: what a target may be judged on. Listed here
#: because the suite itself (:data:`infrabook.bench.experiments.suite.EXPERIMENTS`) imports
#: torch, which reading conf never should; the test suite holds the two lists equal.
ExperimentName = Literal[
    "fusion",
    "attention_memory",
    "launches",
    "shapes",
    "gpu_swiglu",
    "gpu_flash",
    "gpu_sdpa",
    "gpu_graphs",
    "gpu_persistent",
    "gpu_ceilings",
]


@dataclass(frozen=True)
class Target:
    """One benchmark target: the figure a measurement is judged against, and its case."""

    id: Name
    experiment: ExperimentName
    threshold: Number
    comparison: Literal[">=", "<="]
    unit: str
    seq_len: PositiveInt | None = None
    head_dim: PositiveInt | None = None
    dtype: Dtype | None = None
    device: Name | None = None


@dataclass(frozen=True)
class Reference:
    """The record of one kind of machine that the chapters' prose quotes, and why."""

    kind: Literal["cpu", "gpu"]
    record: Name
    reason: Name


@dataclass(frozen=True)
class _BenchTargetsFile:
    live: LiveTargets
    target: tuple[Target, ...]
    reference: tuple[Reference, ...] = ()


@dataclass(frozen=True)
class Figure:
    """One hardware figure and where it comes from; ``value`` is None when unknown."""

    source: Name
    value: Positive | None = None

    def __post_init__(self) -> None:
        # TOML writes 108 and 4.8 alike; a figure is a float either way
        if self.value is not None:
            object.__setattr__(self, "value", float(self.value))


@dataclass(frozen=True)
class Device:
    """A device profile: dense bf16 and FP32 peaks, DRAM and L2 bandwidth, memory sizes, SMs."""

    name: Name
    bf16_dense_tflops: Figure
    dram_tb_s: Figure
    l2_mib: Figure
    smem_per_sm_kib: Figure
    sm_count: Figure
    fp32_tflops: Figure
    l2_tb_s: Figure
    regs_per_sm_kib: Figure
    dram_gb: Figure
    #: Regular expressions for the whole name CUDA reports (less "NVIDIA ") of this GPU.
    cuda_names: tuple[Name, ...] = ()
    #: The profile's table name in hardware.toml (``[devices.KEY]``); the loader sets it.
    key: str = field(default="", init=False)

    @property
    def l2_bytes(self) -> float | None:
        """L2 size in bytes, or None when unknown."""
        return None if self.l2_mib.value is None else self.l2_mib.value * 2**20


@dataclass(frozen=True)
class _HardwareFile:
    devices: dict[str, Device]

    def __post_init__(self) -> None:
        for key, dev in self.devices.items():
            object.__setattr__(dev, "key", key)


#: Each conf file and the class that describes it.
FILES: dict[str, type] = {
    "scenarios.toml": Scenarios,
    "claims.toml": _ClaimsFile,
    "bench_targets.toml": _BenchTargetsFile,
    "hardware.toml": _HardwareFile,
}
#: The most bytes a conf file may hold (the book's are under 10 KB).
MAX_BYTES = 1 << 20
#: What a snapshot of the typed conf was once saved as: refused in a conf folder, not read.
PICKLE_SUFFIXES = (".pickle", ".pkl", ".pck", ".pcl")


def _refuse_pickles(folder: Path) -> None:
    """A pickle in the conf folder is refused by name: loading one would run its code, and
    an old snapshot beside the TOML files would hide every edit of them."""
    try:
        found = sorted(p for p in folder.iterdir() if p.suffix.lower() in PICKLE_SUFFIXES)
    except OSError:
        return  # no folder: the file read below says so
    if found:
        raise ConfError(
            f"{printable(str(found[0]))}: a pickle in the conf folder: expected only the TOML "
            f"files {', '.join(FILES)} (a pickle is never read: loading one runs code); remove it"
        )


@cache
def _load(name: str, cls: type[T], folder: Path) -> T:
    _refuse_pickles(folder)
    path = folder / name
    where = printable(str(path))
    try:
        data = tomllib.loads(read_bounded(path, MAX_BYTES).decode("utf-8"))
    except FileNotFoundError:
        raise ConfError(
            f"{where}: file not found: expected the conf file {name} there "
            "(is INFRABOOK_CONF set to the right folder?)"
        ) from None
    except FileRefused as err:
        raise ConfError(str(err)) from None
    except UnicodeDecodeError as err:
        raise ConfError(f"{where}: cannot be read: {err}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfError(f"{where}: expected valid TOML: {err}") from None
    typed = _structure()(data, cls, path)
    check_relations(typed, path)
    return typed


def _structure() -> Callable[[Any, type[T], Path], T]:
    """The reader of parsed TOML: cattrs' where it is installed, else (in the browser) the
    standard library's, which checks the same and says the same."""
    try:
        from infrabook.conf_convert import structure
    except ImportError:
        from infrabook.conf_plain import structure
    return structure


def scenarios() -> Scenarios:
    """The article's worked examples from ``conf/scenarios.toml``.

    >>> scenarios().ffn_chain.cols
    12288
    """
    folder = conf_dir()
    data = _load("scenarios.toml", Scenarios, folder)
    check_device(data.bucketing.peak_device, devices(), folder / "scenarios.toml")
    return data


def claims() -> tuple[Claim, ...]:
    """The article's numeric claims from ``conf/claims.toml``, in the article's order.

    >>> claims()[0].id
    'fusion.tensor_mib'
    """
    return _load("claims.toml", _ClaimsFile, conf_dir()).claim


def bench_targets() -> dict[str, Target]:
    """The benchmark targets of ``conf/bench_targets.toml``, keyed by id.

    >>> t = bench_targets()["cpu_fused_speedup"]
    >>> t.comparison, t.threshold
    ('>=', 1.6)
    """
    return {t.id: t for t in _load("bench_targets.toml", _BenchTargetsFile, conf_dir()).target}


def bench_references() -> dict[str, Reference]:
    """The record of each kind of machine (``cpu``, ``gpu``) that the chapters' prose quotes,
    from ``conf/bench_targets.toml`` [[reference]], keyed by kind; each says why.

    >>> bench_references()["cpu"].record.startswith("cpu-")
    True
    """
    found = _load("bench_targets.toml", _BenchTargetsFile, conf_dir()).reference
    return {r.kind: r for r in found}


def live_targets() -> LiveTargets:
    """The live calculators' targets of ``conf/bench_targets.toml`` [live], in milliseconds.

    >>> live_targets()
    LiveTargets(first_result_ms=3000, update_ms=50)
    """
    return _load("bench_targets.toml", _BenchTargetsFile, conf_dir()).live


def devices() -> dict[str, Device]:
    """All device profiles of ``conf/hardware.toml``, keyed by their short name.

    >>> devices()["h200"].dram_tb_s.value
    4.8
    >>> devices()["rtx_pro_6000"].bf16_dense_tflops.value
    503.8
    """
    return _load("hardware.toml", _HardwareFile, conf_dir()).devices


def check_all() -> None:
    """Load and check every conf file, raising the first problem as one ``ConfError``.

    The CLI and the docs build call this at startup, so a typo stops them with one line
    instead of a traceback from inside a page.

    >>> check_all()
    """
    scenarios()
    claims()
    bench_targets()
    bench_references()
    devices()


def device(key: str) -> Device:
    """One device profile by key, with a clear error for an unknown one.

    >>> device("a100_80gb").sm_count.value
    108.0
    """
    profiles = devices()
    if key not in profiles:
        raise ValueError(f"unknown device {key!r}: expected one of {', '.join(profiles)}")
    return profiles[key]
