"""Benchmark records: typed entries, where their files live, and how they are read and written.

One JSON file per kind of device: ``cpu.json`` for the host CPU, and for a GPU a slug of its
name (``nvidia-h200.json``), in ``$INFRABOOK_BENCH_DIR`` or else ``docs/_data/bench`` under
the current directory. A file holds a :class:`Record` of schema :data:`SCHEMA`: for each
experiment one :class:`Entry` with its own :class:`Provenance` (the record is assembled one
experiment at a time), its parameters, its typed :class:`Results` and its :class:`Target`\\ s.
Each number is stored once; the values the prose quotes, the tables and the figures are
derived from the results when reading, so changing a column never needs a rerun.

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
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infrabook import config
from infrabook.bench import host
from infrabook.serialise import jsonable
from infrabook.tables import Table

SCHEMA = 3
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


class Results:
    """What an experiment measured; each experiment's is a frozen dataclass of this kind,
    with the views pages read derived from it (``params`` are the entry's)."""

    def values(self, params: dict[str, Any]) -> dict[str, Any]:
        """The numbers and words the prose quotes."""
        return {}

    def tables(self, params: dict[str, Any]) -> list[Table]:
        """The tables a page shows."""
        return []


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
        if self.comparison == ">=":
            return self.measured >= self.threshold
        return self.measured <= self.threshold

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
    results: Any = None
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
        """The numbers the prose quotes (empty unless ``ok``)."""
        return self.results.values(self.params) if self.status == "ok" else {}

    @property
    def tables(self) -> list[Table]:
        """The tables a page shows (none unless ``ok``)."""
        return self.results.tables(self.params) if self.status == "ok" else []


@dataclass(frozen=True)
class Record(_Fields):
    """A device's record: its entries, in suite order."""

    device: str
    updated: str
    experiments: dict[str, Entry]
    schema: int = SCHEMA


def decode(hint: Any, data: Any, where: str) -> Any:
    """Parsed JSON ``data`` as a value of the type ``hint`` (a dataclass, ``X | None``,
    ``list``, ``tuple[X, ...]``, ``dict[str, X]``, a scalar or ``Any``), checked all the
    way down; ``ValueError`` naming where it is wrong.

    >>> decode(tuple[Target, ...], [{"id": "t", "description": "d", "measured": 2,
    ...        "threshold": 1, "comparison": ">="}], "targets")[0].met
    True
    >>> decode(dict[str, int], {"a": "3"}, "x")
    Traceback (most recent call last):
    ...
    ValueError: x.a must be int, got '3'
    """
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return data
    if dataclasses.is_dataclass(hint):
        if not isinstance(data, dict):
            raise ValueError(f"{where} must be an object, got {type(data).__name__}")
        hints = typing.get_type_hints(hint)
        fields = {f.name: f for f in dataclasses.fields(hint)}
        if set(data) - set(fields):
            raise ValueError(f"{where} has unknown fields {sorted(set(data) - set(fields))}")
        for name, f in fields.items():
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            if required and name not in data:
                raise ValueError(f"{where} lacks the field {name!r}")
        kwargs = {k: decode(hints[k], v, f"{where}.{k}") for k, v in data.items()}
        return typing.cast(Any, hint)(**kwargs)
    if origin in (types.UnionType, typing.Union):
        if data is None and type(None) in args:
            return None
        (inner,) = (a for a in args if a is not type(None))
        return decode(inner, data, where)
    if origin in (list, tuple, dict):
        if not isinstance(data, dict if origin is dict else list):
            kind = "an object" if origin is dict else "a list"
            raise ValueError(f"{where} must be {kind}, got {type(data).__name__}")
        if isinstance(data, dict):
            return {k: decode(args[1], v, f"{where}.{k}") for k, v in data.items()}
        items = [decode(args[0], v, f"{where}[{i}]") for i, v in enumerate(data)]
        return tuple(items) if origin is tuple else items
    wanted = (int, float) if hint is float else hint
    if not isinstance(data, wanted) or (isinstance(data, bool) and hint is not bool):
        raise ValueError(f"{where} must be {hint.__name__}, got {data!r}")
    return data


def from_json(data: Any) -> Record:
    """A :class:`Record` from parsed JSON; ``ValueError`` saying which field is wrong."""
    from infrabook.bench.registry import EXPERIMENTS

    if not isinstance(data, dict):
        raise ValueError("the file is not a JSON object")
    if data.get("schema") != SCHEMA:
        raise ValueError(
            f"schema {data.get('schema')!r}, this version of infrabook reads schema {SCHEMA}"
        )
    experiments = decode(dict[str, Any], data.get("experiments"), "experiments")
    entries = {}
    for name, raw in experiments.items():
        if name not in EXPERIMENTS:
            raise ValueError(f"unknown experiment {name!r}")
        where = f"experiments.{name}"
        entry = decode(Entry, raw, where)
        if entry.name != name:
            raise ValueError(f"{where} is named {entry.name!r}")
        if entry.results is not None:
            results = decode(EXPERIMENTS[name].results, entry.results, f"{where}.results")
            entry = dataclasses.replace(entry, results=results)
        elif entry.status == "ok":
            raise ValueError(f"{where} is ok but has no results")
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
