"""Benchmark records: typed entries, where their files live, and how they are read and written.

One JSON file per kind of device: ``cpu.json`` for the host CPU, and for a GPU a slug of its
name (``nvidia-h200.json``), in ``$INFRABOOK_BENCH_DIR`` or else ``docs/_data/bench`` under
the current directory. A file holds a :class:`Record` of schema :data:`SCHEMA`: for each
experiment one :class:`Entry` with its own :class:`Provenance` (the record is assembled one
experiment at a time), its parameters, its raw ``results`` and its judged :class:`Target`\\ s.
Each number is stored once; the values the prose quotes, the tables and the figures are
derived from ``results`` when reading, so changing a column never needs a rerun.

Every write replaces the whole file atomically (a temporary file in the same folder, then
:func:`os.replace`), so a reader never sees half a record and an interrupted run leaves the
previous one. A file that cannot be read as this schema raises :class:`RecordError`, naming
the file and why; nothing overwrites it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import json
import math
import os
import re
import tempfile
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infrabook import config
from infrabook.bench import host
from infrabook.serialise import jsonable

SCHEMA = 2
STATUSES = ("ok", "skipped", "failed")


class RecordError(ValueError):
    """A record file that is not a readable record of this schema."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(
            f"benchmark record {path}: {why}; it was left as it is (rerun "
            "`nox -s bench`, or restore it with git)"
        )
        self.path = path


class _Fields:
    """Read access by field name (``entry["params"]``), as the pages index the JSON."""

    def __getitem__(self, key: str) -> Any:
        if not isinstance(key, str) or key.startswith("_") or not hasattr(self, key):
            raise KeyError(key)
        return getattr(self, key)


@dataclass(frozen=True)
class Provenance(_Fields):
    """Where, with what and when an experiment ran; ``note`` says what happened since."""

    device: dict[str, Any]
    versions: dict[str, Any]
    git: dict[str, Any]
    date: str
    quick: bool
    host_load: dict[str, Any]
    note: str = ""


@dataclass(frozen=True)
class Target(_Fields):
    """A target of ``conf/bench_targets.toml`` and what was measured; judged when read.

    >>> t = Target("x", "speed", 1.2, 1.6, ">=", "x")
    >>> t.met, round(t.margin, 2)
    (False, -0.4)
    >>> Target("y", "peak", None, 0.05, "<=").met is None
    True
    """

    id: str
    description: str
    measured: float | None
    threshold: float
    comparison: str
    unit: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        if self.comparison not in (">=", "<="):
            raise ValueError(f"comparison must be '>=' or '<=', got {self.comparison!r}")
        if self.measured is not None and not math.isfinite(self.measured):
            object.__setattr__(self, "measured", None)

    @classmethod
    def configured(cls, id: str, measured: float | None, note: str = "") -> Target:
        """The target ``id`` of ``conf/bench_targets.toml`` with what was measured."""
        t = config.bench_targets()[id]
        return cls(id, t["description"], measured, t["threshold"], t["comparison"], t["unit"], note)

    @property
    def met(self) -> bool | None:
        """Whether the target was met; None when nothing was measured."""
        if self.measured is None:
            return None
        return (
            self.measured >= self.threshold
            if self.comparison == ">="
            else (self.measured <= self.threshold)
        )

    @property
    def margin(self) -> float | None:
        """Measured minus threshold."""
        return None if self.measured is None else self.measured - self.threshold


@dataclass(frozen=True)
class Entry(_Fields):
    """One experiment as measured (or why it was not); values and tables derive from it."""

    name: str
    status: str
    reason: str | None
    provenance: Provenance
    method: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    results: dict[str, Any] = field(default_factory=dict)
    targets: tuple[Target, ...] = ()
    duration_s: float = 0.0

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}, got {self.status!r}")

    @property
    def title(self) -> str:
        """The experiment's title, in the build's language."""
        from infrabook.bench.registry import get

        return get(self.name).title

    @property
    def values(self) -> dict[str, Any]:
        """The numbers the prose quotes, derived from ``results`` (empty unless ``ok``)."""
        from infrabook.bench.registry import get

        return get(self.name).values(self) if self.status == "ok" else {}


@dataclass(frozen=True)
class Record(_Fields):
    """A device's record: its entries, in suite order."""

    device: str
    updated: str
    experiments: dict[str, Entry]
    schema: int = SCHEMA


def _build(cls: type, data: Any, where: str) -> Any:
    """``cls`` from its JSON dict, field by field, failing with the path of a bad field."""
    if not isinstance(data, dict):
        raise ValueError(f"{where} must be an object, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = set(data) - names
    if unknown:
        raise ValueError(f"{where} has unknown fields {sorted(unknown)}")
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ValueError(f"{where} lacks the field {f.name!r}")
            continue
        value, hint = data[f.name], hints[f.name]
        if hint is Provenance:
            value = _build(Provenance, value, f"{where}.provenance")
        elif f.name == "targets":
            value = tuple(_build(Target, t, f"{where}.targets[{i}]") for i, t in enumerate(value))
        elif hint == dict[str, Any] and not isinstance(value, dict):
            raise ValueError(f"{where}.{f.name} must be an object")
        kwargs[f.name] = value
    return cls(**kwargs)


def from_json(data: Any) -> Record:
    """A :class:`Record` from parsed JSON; ``ValueError`` saying which field is wrong."""
    if not isinstance(data, dict):
        raise ValueError("the file is not a JSON object")
    if data.get("schema") != SCHEMA:
        raise ValueError(
            f"schema {data.get('schema')!r}, this version of infrabook reads schema {SCHEMA}"
        )
    experiments = data.get("experiments")
    if not isinstance(experiments, dict):
        raise ValueError("it has no 'experiments' object")
    from infrabook.bench.registry import EXPERIMENTS

    entries = {}
    for name, raw in experiments.items():
        if name not in EXPERIMENTS:
            raise ValueError(f"unknown experiment {name!r}")
        entry = _build(Entry, raw, f"experiments.{name}")
        if entry.name != name:
            raise ValueError(f"experiments.{name} is named {entry.name!r}")
        entries[name] = entry
    if not isinstance(data.get("device"), str) or not isinstance(data.get("updated"), str):
        raise ValueError("it lacks the text fields 'device' and 'updated'")
    return Record(device=data["device"], updated=data["updated"], experiments=entries)


def bench_dir() -> Path:
    """The folder the records are read from and written to: ``$INFRABOOK_BENCH_DIR``, or the
    ``docs/_data/bench`` of the nearest checkout at or above the current directory (pages
    run in ``docs/chapters``), or else ``./docs/_data/bench``."""
    if os.environ.get("INFRABOOK_BENCH_DIR"):
        return Path(os.environ["INFRABOOK_BENCH_DIR"])
    here = Path.cwd()
    for folder in (here, *here.parents):
        if (folder / "docs" / "_data" / "bench").is_dir():
            return folder / "docs" / "_data" / "bench"
    return here / "docs" / "_data" / "bench"


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
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def provenance(device: dict[str, Any], *, quick: bool) -> Provenance:
    """Where, with what and when an experiment runs: now, here."""
    return Provenance(
        device=device,
        versions=host.versions(),
        git=dict(host.git_info()),
        date=utc_now(),
        quick=quick,
        host_load=host.host_load(),
    )


def read(path: Path) -> Record | None:
    """The record at ``path``; None when there is no file; :class:`RecordError` when there
    is one that is not a record of this schema (truncated, hand-edited, older)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as err:
        raise RecordError(path, f"cannot be read ({err})") from err
    try:
        return from_json(json.loads(text))
    except json.JSONDecodeError as err:
        raise RecordError(path, f"is not valid JSON (truncated or hand-edited? {err})") from err
    except (ValueError, TypeError) as err:
        raise RecordError(path, str(err)) from err


def write_atomic(path: Path, data: Any) -> None:
    """Write ``data`` as JSON to ``path`` so that readers see the old file or the new one.

    The text is produced in full before anything touches the disk, written to a temporary
    file in the same folder, flushed to disk, then moved over ``path`` with
    :func:`os.replace`. On any error (an interrupt included) the temporary file is removed
    and ``path`` is left as it was.
    """
    text = json.dumps(jsonable(data), indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, 0o644)  # mkstemp makes it 0600; a record is for everyone to read
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def merge(device: str, entry: Entry, folder: Path | None = None) -> Path:
    """Put one finished experiment into ``device``'s record, replacing its earlier entry and
    keeping the others; an unreadable record stops the merge (:class:`RecordError`)."""
    from infrabook.bench.registry import EXPERIMENTS

    path = record_path(device, folder)
    old = read(path)
    experiments = dict(old.experiments) if old else {}
    experiments[entry.name] = entry
    ordered = {k: experiments[k] for k in EXPERIMENTS if k in experiments}
    write_atomic(
        path, {"schema": SCHEMA, "device": device, "updated": utc_now(), "experiments": ordered}
    )
    return path
