"""What a benchmark record holds: typed :class:`Entry`\\ s, each with its :class:`Provenance`,
parameters, the experiment's :class:`Results` and its :class:`Target`\\ s
(:mod:`infrabook.bench.record` reads and writes the files).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from infrabook import config
from infrabook.bench import host
from infrabook.labels import text
from infrabook.tables import Table

#: An entry's parameters, and what an experiment compares machines on: by row, the book's
#: model (None where it has none) and the measured value.
Params = dict[str, Any]
Compared = dict[str, tuple[float | None, float | None]]

SCHEMA = 5
STATUSES = ("ok", "skipped", "failed")


class Results:
    """What an experiment measured: a frozen dataclass of this kind per experiment, whose
    methods and properties derive what pages quote; ``params`` are the entry's, ``device``
    its provenance's description of the device."""

    #: The experiment these results belong to: set when it is declared.
    experiment: ClassVar[str] = ""

    def tables(self, params: Params, device: Params) -> list[Table]:
        """The tables a page shows."""
        raise NotImplementedError

    def method(self, params: Params) -> str:
        """How it was measured, in the page's language: the label ``bench.method.<name>`` of
        the experiment these results belong to, filled from ``params``."""
        return text(f"bench.method.{self.experiment}", **params)

    def compared(self, params: Params, device: Params) -> Compared:
        """What machines are compared on, in the page's language: by row, the book's model
        prediction (None where the book has none) and the measured value; ``device`` is the
        entry's provenance's description of the device. Rows that do not
        depend on the machine's size (ratios, percentages, counts) let records from
        different machines sit side by side; none unless an experiment says."""
        return {}


@dataclass(frozen=True)
class Provenance:
    """Where, with what and when an experiment ran; ``note`` says what happened since."""

    device: dict[str, Any]
    versions: dict[str, Any]
    git: dict[str, Any]
    date: str
    quick: bool
    host_load: dict[str, Any]
    note: str = ""


@dataclass(frozen=True)
class Target:
    """What was measured for a target of ``conf/bench_targets.toml``, judged when read
    against the threshold there.

    >>> t = Target("cpu_fused_speedup", 1.2)
    >>> t.met, round(t.margin, 2), Target("cpu_fused_speedup", None).met
    (False, -0.4, None)
    """

    id: str
    measured: float | None

    def __post_init__(self) -> None:
        if self.id not in config.bench_targets():
            known = ", ".join(config.bench_targets())
            raise ValueError(f"unknown target {self.id!r}: conf/bench_targets.toml has {known}")
        if self.measured is not None and not math.isfinite(self.measured):
            object.__setattr__(self, "measured", None)

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
class Entry:
    """One experiment as measured (or why it was not): its call's parameters and what the
    method derived (from which the method is described when read), the typed results and
    the targets."""

    name: str
    status: str
    reason: str | None
    provenance: Provenance
    params: dict[str, Any] = dataclasses.field(default_factory=dict)
    results: Any = None
    targets: tuple[Target, ...] = ()
    duration_s: float = 0.0

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}, got {self.status!r}")

    @property
    def tables(self) -> list[Table]:
        """The tables a page shows (none unless ``ok``)."""
        ok = self.status == "ok"
        return self.results.tables(self.params, self.provenance.device) if ok else []


@dataclass(frozen=True)
class Record:
    """A machine's record: its entries, in suite order; ``device`` is the record's name
    (:func:`machine_name`), which is also its file's."""

    device: str
    updated: str
    experiments: dict[str, Entry]
    schema: int = SCHEMA


def utc_now() -> str:
    """The current UTC time, ISO 8601 to the second, with a ``Z``."""
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def provenance(device: dict[str, Any], *, quick: bool) -> Provenance:
    """Where, with what and when an experiment runs: now, here."""
    return Provenance(
        device, host.versions(), dict(host.git_info()), utc_now(), quick, host.host_load()
    )
