"""Benchmark record files: where they live, what they are named, and how they are read and written.

One JSON file per machine holds a :class:`~infrabook.bench.records.entry.Record`, named after
the machine (:func:`machine_name`: ``cpu-amd-epyc-2c-c8153f.json``, ``gpu-h200-5d0e2b.json``):
per experiment one :class:`~infrabook.bench.records.entry.Entry`. Each number is stored once;
tables, figures and the method's description are derived when reading, so changing a column
never needs a rerun (a change of method is a change of schema). Writes replace the file
atomically; a file that is not a record of schema :data:`~infrabook.bench.records.entry.SCHEMA`
raises :class:`RecordError` naming the file and why, and nothing overwrites it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import logging
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import cattrs

from infrabook.bench.records import schema, validate
from infrabook.bench.records.entry import SCHEMA, CpuDevice, Device, Entry, Record, utc_now
from infrabook.bench.records.results import RESULTS
from infrabook.quoting import printable
from infrabook.safe_files import FileRefused, read_bounded
from infrabook.serialise import jsonable

log = logging.getLogger("infrabook.bench")


class RecordError(ValueError):
    """A record file that is not a readable record of this schema."""

    def __init__(self, path: Path, why: str) -> None:
        why = " ".join(why.split())  # one line, whatever a file name or a message holds
        # a file name or a key may hold escape sequences: shown escaped, never sent raw
        super().__init__(printable(f"benchmark record {path}: {why}"))
        self.path = path


#: Records as typed values and back: strict (an unknown key is refused), and only ever given
#: what :func:`infrabook.bench.records.validate.check` has passed.
CONVERTER = cattrs.Converter(forbid_extra_keys=True)


def _said(exc: BaseException, hint: Any) -> str:
    """A problem as a message says it: a type's own rule in its own words (``ValueError``
    from a :class:`~infrabook.bench.records.schema.Checked` type), others in cattrs'."""
    return str(exc) if type(exc) is ValueError else cattrs.v.format_exception(exc, hint)


def _structure(data: Any, hint: Any, where: str) -> Any:
    """``data`` as a ``hint``; ``ValueError`` of one line naming the field otherwise."""
    try:
        return CONVERTER.structure(data, hint)
    except Exception as err:  # cattrs groups every problem; the first one, in one line
        grouped = isinstance(err, cattrs.BaseValidationError)
        problems = cattrs.transform_error(err, where, _said) if grouped else [str(err)]
        raise ValueError(problems[0]) from None


def from_json(data: Any) -> Record:
    """A :class:`Record` from parsed JSON that :func:`infrabook.bench.records.validate.check` has
    passed; ``ValueError`` saying which field is wrong.

    >>> from_json({"schema": 4})
    Traceback (most recent call last):
    ...
    ValueError: schema 4, this version of infrabook reads schema 5
    """
    if not isinstance(data, dict):
        raise ValueError("the file is not a JSON object")
    if data.get("schema") != SCHEMA:
        raise ValueError(
            f"schema {data.get('schema')!r}, this version of infrabook reads schema {SCHEMA}"
        )
    record: Record = _structure(data, Record, "record")
    for name, entry in record.experiments.items():
        where = f"record.experiments.{name}"
        if name not in RESULTS or entry.name != name:
            raise ValueError(f"{where}: unknown experiment, or named {entry.name!r}")
        if entry.status == "ok" and entry.results is None:
            raise ValueError(f"{where} is ok but has no results")
        results = _structure(entry.results, RESULTS[name] | None, f"{where}.results")
        record.experiments[name] = dataclasses.replace(entry, results=results)
    return record


def json_schema() -> dict[str, Any]:
    """A JSON Schema (draft 2020-12) of a record file, made from the types that declare it,
    each entry's results as one of the experiments' results types: for contributors' editors
    and tools. :func:`read` checks more (see :mod:`infrabook.bench.records.validate`)."""
    defs: dict[str, Any] = {}
    top = schema.json_schema(Record, defs)
    measured = [schema.json_schema(t, defs) for t in RESULTS.values()]
    defs["Entry"]["properties"]["results"] = {"anyOf": [{"type": "null"}, *measured]}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **top, "$defs": defs}


#: Where the book keeps its records, from the repository's root.
BOOK_DIR = Path("docs", "_data", "bench")


def bench_dir() -> Path:
    """Where records are read and written: ``$INFRABOOK_BENCH_DIR``, or the nearest
    ``docs/_data/bench`` at or above the current directory (pages run in ``docs/chapters``),
    or else ``./docs/_data/bench``."""
    if os.environ.get("INFRABOOK_BENCH_DIR"):
        return Path(os.environ["INFRABOOK_BENCH_DIR"])
    here = Path.cwd()
    for folder in (here, *here.parents):
        if (folder / BOOK_DIR).is_dir():
            return folder / BOOK_DIR
    return here / BOOK_DIR


def slug(name: str) -> str:
    """A file-name-safe, lower-case slug of a device name.

    >>> slug("NVIDIA H200"), slug("NVIDIA GeForce RTX 4090 (laptop)")
    ('nvidia-h200', 'nvidia-geforce-rtx-4090-laptop')
    """
    out = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    if not out:
        raise ValueError(f"cannot make a record name from device name {name!r}")
    return out


#: Words of a CPU or GPU name that tell no two machines apart.
_FILLER = frozenset({"r", "tm", "cpu", "processor", "nvidia", "with", "core"})
#: What a machine's name is derived from: facts its record holds anyway, none private.
_IDENTITY = {
    "cpu": ("name", "logical_cpus", "llc_bytes", "mem_bytes", "machine", "vector"),
    "cuda": ("name", "sm_count", "memory_bytes", "l2_bytes", "capability"),
}


def machine_name(device: Device, label: str | None = None) -> str:
    """The name of a machine's record: its kind, a few words of its CPU or GPU name, the
    CPU's logical cores, and 6 hex digits of a hash of what tells machines apart (model,
    cores, cache, memory, architecture, vector units; for a GPU its SMs, memory and L2),
    then ``label`` when given, for two machines that those facts do not tell apart.
    The same machine always gets the same name, so a re-run replaces its record.

    >>> cpu = CpuDevice("cpu", "Intel(R) Xeon(R) CPU @ 2.20GHz", 2, 2, 2, 2**25, 2**34, 2200.0,
    ...                 ("avx2",), "x86_64", "Linux-6.1-x86_64")
    >>> machine_name(cpu), machine_name(cpu, "Lab box")
    ('cpu-intel-xeon-2c-bc41a0', 'cpu-intel-xeon-2c-bc41a0-lab-box')
    >>> from infrabook.bench.records.entry import CudaDevice
    >>> machine_name(CudaDevice("cuda", "NVIDIA H200", "580.159.04", 132, "9.0", 150109880320,
    ...                         62914560, "Intel(R) Xeon(R) Processor"))
    'gpu-h200-13ac61'
    """
    kind = device.kind
    name = re.sub(r"@.*|\(.*?\)", " ", device.name)
    words = [w for w in slug(name).split("-") if w not in _FILLER][:3] or ["unknown"]
    facts = {k: getattr(device, k) for k in _IDENTITY[kind]}
    digest = hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()[:6]
    cpus = device.logical_cpus if isinstance(device, CpuDevice) else None
    parts = ["cpu" if kind == "cpu" else "gpu", *words, *([f"{cpus}c"] if cpus else []), digest]
    return "-".join(parts + ([slug(label)] if label else []))


def kind_of(name: str) -> str:
    """The kind of machine a record's name says: ``cpu`` or ``gpu``.

    >>> kind_of("cpu-amd-epyc-2c-c8153f"), kind_of("gpu-h200-bdae84")
    ('cpu', 'gpu')
    """
    kind = name.split("-", 1)[0]
    if kind not in ("cpu", "gpu"):
        raise ValueError(f"a record's name starts with cpu- or gpu-, got {name!r}")
    return kind


def record_path(name: str, folder: Path | None = None) -> Path:
    """``<folder>/<name>.json`` for a record name such as ``"cpu-amd-epyc-2c-c8153f"``."""
    if slug(name) != name or not validate.RECORD_NAME.fullmatch(name):
        raise ValueError(
            f"a record's name is a machine name such as 'cpu-amd-epyc-2c-c8153f', got {name!r}"
        )
    return (folder if folder is not None else bench_dir()) / f"{name}.json"


def read(path: Path) -> Record | None:
    """The record at ``path``; None when there is no file; :class:`RecordError` of one line
    naming the file and the field when there is one that is not a record of this schema
    (truncated, hand-edited, older) or holds what a record may not
    (:mod:`infrabook.bench.records.validate`: records are contributed, so untrusted)."""
    try:  # no link followed, no pipe or device waited on, at most MAX_BYTES read
        raw = read_bounded(path, validate.MAX_BYTES, "a record file (*.json)")
    except FileNotFoundError:
        return None
    except FileRefused as err:
        raise RecordError(path, err.why) from err
    try:
        return _checked(raw, path.stem, path.name)
    except (ValueError, TypeError) as err:
        raise RecordError(path, str(err)) from err


@functools.lru_cache(maxsize=64)
def _checked(raw: bytes, stem: str, name: str) -> Record:
    """The record that a file called ``name`` (``stem`` without its ending) holding ``raw``
    is, checked. Cached by the bytes themselves (security review L3): a build asks for every
    record many times, and parsing and checking a large one takes about a second, while
    reading it again costs little and tells a changed file from the same one. A refusal is
    raised again each time, never cached."""
    data = validate.parse(raw)
    validate.check(data, RESULTS)
    found = from_json(data)
    if found.device != stem:
        raise ValueError(
            f"record.device is {validate.shown(found.device)}, but the file is "
            f"named {name}: a record is named after its machine"
        )
    return found


def write_atomic(path: Path, data: Any) -> None:
    """Write ``data`` as JSON to ``path`` so that readers see the old file or the new one:
    the whole text goes to a temporary file in the same folder, is flushed to disk and moved
    over ``path`` (:func:`os.replace`); on any error, an interrupt included, the temporary
    file is removed and ``path`` left as it was. NaN or infinity anywhere in ``data`` raises
    ``ValueError`` naming the field before the file is touched."""
    plain = jsonable(data, "record")
    text = json.dumps(plain, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
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


def merge(name: str, entry: Entry, folder: Path | None = None) -> Path:
    """Put one finished experiment into the record called ``name`` (its machine's), replacing
    its earlier entry and keeping the others; an unreadable record stops the merge
    (:class:`RecordError`), and so does one that would hold something private (a path, this
    machine's host or user name: :func:`infrabook.bench.records.validate.check`), before writing."""
    path = record_path(name, folder)
    old = read(path)
    experiments = (dict(old.experiments) if old else {}) | {entry.name: entry}
    ordered = {k: experiments[k] for k in RESULTS if k in experiments}
    data = {"schema": SCHEMA, "device": name, "updated": utc_now(), "experiments": ordered}
    plain = jsonable(data, "record")  # NaN and what JSON cannot hold: ValueError, TypeError
    try:
        validate.check(plain, RESULTS)
    except ValueError as err:
        kept = keep_rejected(name, entry, path.parent)
        raise RecordError(path, f"not written: {err} (the entry is kept in {kept})") from err
    write_atomic(path, data)
    return path


def keep_rejected(name: str, entry: Entry, folder: Path) -> Path:
    """Keep an entry that the validator refused, unchecked, in ``<folder>/rejected/<name>.json``
    (beside the other entries refused there for that machine): a measurement is never lost
    to a validator that is wrong, and once it is fixed, ``python -m infrabook.bench --merge
    <folder>/rejected`` merges what it now accepts."""
    path = folder / "rejected" / f"{name}.json"
    try:
        old = json.loads(path.read_text(encoding="utf-8"))["experiments"]
    except (OSError, ValueError, KeyError, TypeError):  # none yet, or not a record: replaced
        old = {}
    experiments = old | {entry.name: entry}
    data = {"schema": SCHEMA, "device": name, "updated": utc_now(), "experiments": experiments}
    write_atomic(path, data)
    log.warning("%s: refused by the validator, kept in %s", entry.name, path)
    return path
