"""What a benchmark record holds: typed :class:`Entry`\\ s, each with its :class:`Provenance`,
parameters, the experiment's :class:`Results` and its :class:`Target`\\ s
(:mod:`infrabook.bench.records.store` reads and writes the files).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

from infrabook import config
from infrabook.bench.records.schema import (
    MAX_NOTE,
    RECORD_NAME,
    Bytes,
    Capability,
    Checked,
    Commit,
    Count,
    Driver,
    Flag,
    Hardware,
    Ident,
    IsoUtc,
    Load,
    MaxLen,
    MHz,
    Pattern,
    Platform,
    Positive,
    Range,
    Seconds,
    Share,
    Text,
    Version,
)
from infrabook.bench.records.timing import Timing
from infrabook.labels import text
from infrabook.tables import Table

#: An entry's parameters, and what an experiment compares machines on: by row, the book's
#: model (None where it has none) and the measured value.
Params = dict[str, Any]
Compared = dict[str, tuple[float | None, float | None]]

SCHEMA = 5
Status = Literal["ok", "skipped", "failed"]


class Results(Checked):
    """What an experiment measured: a frozen dataclass of this kind per experiment, whose
    methods and properties derive what pages quote; ``params`` are the entry's, ``device``
    its provenance's description of the device."""

    #: The experiment these results belong to, and where it runs: the host CPU or a GPU.
    experiment: ClassVar[str] = ""
    runs_on: ClassVar[Literal["cpu", "cuda"]] = "cpu"
    #: The parameters its methods read, and their types: an entry whose results these are
    #: must hold them (:mod:`infrabook.bench.records.validate`).
    PARAMS: ClassVar[dict[str, Any]] = {}

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.runs_on != "cpu":
            return  # a GPU timer (do_bench) reports quantiles only
        for where, timing in _timings(self, type(self).__name__):
            if not timing.samples_s:
                raise ValueError(
                    f"{where}.samples_s must hold the repetitions' times on a CPU (only a GPU "
                    "timer reports quantiles alone), got none"
                )

    def tables(self, params: Params, device: Device) -> list[Table]:
        """The tables a page shows."""
        raise NotImplementedError

    def method(self, params: Params) -> str:
        """How it was measured, in the page's language: the label ``bench.method.<name>`` of
        the experiment these results belong to, filled from ``params``."""
        return text(f"bench.method.{self.experiment}", **params)

    def compared(self, params: Params, device: Device) -> Compared:
        """What machines are compared on, in the page's language: by row, the book's model
        prediction (None where the book has none) and the measured value; ``device`` is the
        entry's provenance's description of the device. Rows that do not
        depend on the machine's size (ratios, percentages, counts) let records from
        different machines sit side by side; none unless an experiment says."""
        return {}


def _timings(value: Any, where: str) -> list[tuple[str, Timing]]:
    """Every :class:`Timing` inside ``value`` (dataclasses, dicts, lists), with its path."""
    if isinstance(value, Timing):
        return [(where, value)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        items = [(f".{f.name}", getattr(value, f.name)) for f in dataclasses.fields(value)]
    elif isinstance(value, dict):
        items = [(f".{k}", v) for k, v in value.items()]
    elif isinstance(value, list | tuple):
        items = [(f"[{i}]", v) for i, v in enumerate(value)]
    else:
        return []
    return [found for key, v in items for found in _timings(v, where + key)]


@dataclass(frozen=True)
class CpuDevice(Checked):
    """The host CPU an experiment ran on (:func:`infrabook.bench.measure.host.cpu_info`); None where
    the machine does not say."""

    kind: Literal["cpu"]
    name: Hardware
    logical_cpus: Positive | None
    usable_cores: Positive
    torch_threads: Positive
    llc_bytes: Annotated[int, Range(1, 2**50)] | None
    mem_bytes: Annotated[int, Range(1, 2**50)] | None
    mhz: Annotated[float, Range(1, 1e5)] | None
    vector: tuple[Flag, ...]
    machine: Platform
    os: Platform


@dataclass(frozen=True)
class CudaDevice(Checked):
    """The GPU an experiment ran on (:func:`infrabook.bench.measure.cuda.gpu_info`).

    Clocks: ``max_sm_clock_mhz`` and ``max_mem_clock_mhz`` are the device's static maxima,
    the only clocks recorded, since the provenance is made before the timed loops run.
    ``sm_clock_mhz`` and ``mem_clock_mhz`` were the clocks at that moment: the first H200
    record (2026-12-04) holds 345 MHz read idle for a GPU that ran at 1980 MHz, so nothing
    writes them any more; they are declared so that record still reads.
    """

    kind: Literal["cuda"]
    name: Hardware
    driver: Driver | None
    sm_count: Annotated[int, Range(1, 2**20)]
    capability: Capability
    memory_bytes: Bytes
    l2_bytes: Bytes | None
    host_cpu: Hardware
    max_sm_clock_mhz: MHz | None = None
    max_mem_clock_mhz: MHz | None = None
    sm_clock_mhz: MHz | None = None
    mem_clock_mhz: MHz | None = None


Device = CpuDevice | CudaDevice


@dataclass(frozen=True)
class GitInfo(Checked):
    """The project's own commit when the experiment ran, and whether its files had changes
    (None: unknown); ``source`` says where the commit was read (:func:`infrabook.bench.measure.host.
    git_info`), ``error`` why there is none. Records made before ``source`` existed lack it."""

    commit: Commit | None
    dirty: bool | None
    source: Literal["git", "INFRABOOK_COMMIT", "archive"] | None = None
    error: Text | None = None


@dataclass(frozen=True)
class HostLoad(Checked):
    """How busy the host was (:func:`infrabook.bench.measure.host.host_load`): load averages, usable
    cores, and the fraction of all CPUs that other processes kept busy while this one slept.
    ``others_busy_before`` is held by records of November 2026 only; nothing writes it."""

    loadavg_1m: Load | None
    loadavg_5m: Load | None
    cores: Count
    others_busy_fraction: Share | None
    others_busy_before: Share | None = None


@dataclass(frozen=True)
class Versions(Checked):
    """Python's version and the libraries' the measurements depend on
    (:func:`infrabook.bench.measure.host.versions`); None for what is not installed. Records of
    November 2026 lack ``cudnn``."""

    python: Version
    torch: Version | None
    triton: Version | None
    numpy: Version | None
    numexpr: Version | None
    cuda_runtime: Version | None
    cudnn: Version | None = None


@dataclass(frozen=True)
class Provenance(Checked):
    """Where, with what and when an experiment ran; ``note`` says what happened since."""

    device: Device
    versions: Versions
    git: GitInfo
    date: IsoUtc
    quick: bool
    host_load: HostLoad
    note: Annotated[str, MaxLen(MAX_NOTE)] = ""


#: The most a target in each unit can measure (security review L5: a record claiming 1e6 %
#: passed): a share of a reference (the same bytes copied, a peak) at most ten times it, a
#: speed-up or ratio at most a thousandfold; the book's thresholds are 0.9 to 90.
PLAUSIBLE = {"%": 1000.0, "x": 1000.0}


@dataclass(frozen=True)
class Target(Checked):
    """What was measured for a target of ``conf/bench_targets.toml``, judged when read
    against the threshold there.

    >>> t = Target("cpu_fused_speedup", 1.2)
    >>> t.met, round(t.margin, 2), Target("cpu_fused_speedup", None).met
    (False, -0.4, None)
    """

    id: Ident
    measured: Annotated[float, Range(0, 1e6)] | None

    def __post_init__(self) -> None:
        if self.id not in config.bench_targets():
            known = ", ".join(config.bench_targets())
            raise ValueError(f"unknown target {self.id!r}: conf/bench_targets.toml has {known}")
        if self.measured is not None and not math.isfinite(self.measured):
            object.__setattr__(self, "measured", None)
        super().__post_init__()
        unit = config.bench_targets()[self.id].unit
        most = PLAUSIBLE.get(unit)
        if self.measured is not None and most is not None and self.measured > most:
            raise ValueError(
                f"target {self.id!r} measured {self.measured:g}{unit}, more than the "
                f"{most:g}{unit} any of the book's targets could measure"
            )

    @classmethod
    def at_seq_len(cls, id: str, rows: Sequence[Any], measure: Callable[[Any], float]) -> Target:
        """The target ``id`` judged on the row whose ``seq_len`` is the target's (not
        measured when no row has it)."""
        want = config.bench_targets()[id].seq_len
        row = next((r for r in rows if r.seq_len == want), None)
        return cls(id, None if row is None else measure(row))

    @property
    def met(self) -> bool | None:
        """Whether the target was met; None when nothing was measured."""
        m, goal = self.measured, config.bench_targets()[self.id]
        if m is None:
            return None
        return m >= goal.threshold if goal.comparison == ">=" else m <= goal.threshold

    @property
    def margin(self) -> float | None:
        """Measured minus threshold."""
        goal = config.bench_targets()[self.id]
        return None if self.measured is None else self.measured - goal.threshold


@dataclass(frozen=True)
class Entry(Checked):
    """One experiment as measured (or why it was not): its call's parameters and what the
    method derived (from which the method is described when read), the typed results and
    the targets."""

    name: Ident
    status: Status
    reason: Text | None
    provenance: Provenance
    params: dict[str, Any] = dataclasses.field(default_factory=dict)
    results: Any = None
    targets: tuple[Target, ...] = ()
    duration_s: Seconds = 0.0

    @property
    def tables(self) -> list[Table]:
        """The tables a page shows (none unless ``ok``)."""
        ok = self.status == "ok"
        return self.results.tables(self.params, self.provenance.device) if ok else []


@dataclass(frozen=True)
class Record(Checked):
    """A machine's record: its entries, in suite order; ``device`` is the record's name
    (:func:`machine_name`), which is also its file's."""

    device: Annotated[str, Pattern(RECORD_NAME, "a machine name such as 'cpu-amd-epyc-2c-c8153f'")]
    updated: IsoUtc
    experiments: dict[Ident, Entry]
    schema: int = SCHEMA


def utc_now() -> str:
    """The current UTC time, ISO 8601 to the second, with a ``Z``."""
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
