"""What a benchmark record may hold, checked when it is read, before anything uses it.

A record is a JSON file that anyone may contribute in a pull request, and pages print its
strings and numbers, so its contents are untrusted. :func:`parse` turns the file's bytes
into JSON values, refusing what no record needs: more than :data:`MAX_BYTES`, text that is
not UTF-8, ``NaN`` and ``Infinity`` (JSON has no such numbers; Python's reader would take
them), integers of more than 20 digits, duplicate keys (a reviewer would see one value and
the book use the other) and nesting deeper than :data:`MAX_DEPTH`. :func:`check` then walks
the record along its declared types (:class:`~infrabook.bench.records.entry.Record`, its entries,
their provenance and each experiment's results type), taking every value's shape, JSON
type and rule from the field that holds it (:mod:`infrabook.bench.records.schema`):

- an object has the fields its type declares, no others, and every field without a default;
- a string that names something (the record's device, dates, the commit, versions, the
  CPU or GPU, the platform) must match the pattern of what it names, so a name cannot
  carry markup: ``<``, ``[``, ``{`` or a backtick are refused there;
- any other string (a reason, a note, a kernel or operator name) is free text: at most
  :data:`~infrabook.bench.records.schema.MAX_TEXT` characters (or its field's own limit), one line,
  no control, invisible formatting or line-separator characters; it may hold ``<`` or ``[``
  (a C++ kernel name does), and pages show it literally
  (:func:`infrabook.tables.markdown_text`);
- a key outside ``results`` is an identifier; inside, free text (the profiler's kernel
  names are keys there, and a templated C++ name runs to hundreds of characters);
- a number is finite and inside its field's range (seconds, bytes, a fraction, ...; by
  default 0 to 2**53), so no page derives a bandwidth of 1e308 from a time of 1e-300 s.
  Where a type says ``Any`` (an entry's parameters), these generic rules still apply.

A record also holds nothing private: no string anywhere holds a file path (an absolute
path, a home folder such as ``~/x``, a Windows drive), no key is named after a host or a
user (``hostname``, ``user``, ...), and no string holds the host name or the user name of
the machine that checks it (:func:`private_names`): a record is made on the reader's own
machine, where these are the names that could leak, and checked there before it is written.

Each refusal is a ``ValueError`` of one line naming the field (``record.experiments.fusion.
provenance.device.name``) and what it should hold; the bad value, and any key that is no
identifier, is quoted escaped and shortened (:func:`~infrabook.bench.records.schema.shown`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import getpass
import json
import math
import re
import socket
import typing
import unicodedata
from collections.abc import Mapping
from functools import cache
from typing import Any, Literal

from infrabook.bench.records import schema
from infrabook.bench.records.entry import SCHEMA, Entry, Record, Results
from infrabook.bench.records.schema import shown

MAX_BYTES = 2 * 2**20
MAX_DEPTH = 12
_INT_DIGITS = 20

RECORD_NAME = re.compile(schema.RECORD_NAME)
#: What names a place or a person in free text: a file path, absolute (/home/x/, a./x/, C:\,
#: C:/), in a home folder (~/, ~ada), a file:// URL, a Windows share (\\server) or variable
#: (%USERPROFILE%), an e-mail address or user@host.
PATH = re.compile(
    r"(?<![\w:/])(?:~[\w.-]*/|/(?:[\w.+-]+/)+|[A-Za-z]:[\\/])"
    r"|file://|\\\\[\w.$-]+|%\w+%|[\w.+-]+@[A-Za-z][\w.-]*|~[A-Za-z_][\w.-]*"
)
#: User names that name no one: whoever checks a record as one of them (CI runs as root)
#: would otherwise refuse the word in any record ("the root cause").
_NOBODY = frozenset({"root", "runner"})
#: Keys that would name the machine or its user.
_PRIVATE_KEYS = re.compile(r"(host|node|user|login|home|cwd)(_?name)?|path|dir", re.I)
#: Host or user names shorter than this are too likely to be a word of free text.
_MIN_NAME = 4
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_JSON_TYPES = {str: "a string", bool: "true or false", int: "an integer", float: "a number"}

Path_ = tuple[str | int, ...]
#: The results type of each experiment a record may hold, by name.
Known = Mapping[str, type[Results]]


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"the file holds the number {name}, which JSON does not have")


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > _INT_DIGITS:
        raise ValueError(f"the file holds an integer of {len(digits)} digits")
    return int(digits)


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {shown(key)} appears twice in one object")
        out[key] = value
    return out


def parse(raw: bytes) -> Any:
    """The JSON values of a record file's bytes; ``ValueError`` of one line when they are
    more than a record may be (see the module's description).

    >>> parse(b'{"schema": 5}')
    {'schema': 5}
    >>> parse(b'{"x": NaN}')
    Traceback (most recent call last):
    ...
    ValueError: the file holds the number NaN, which JSON does not have
    >>> parse(b'[' * 100_000)
    Traceback (most recent call last):
    ...
    ValueError: the file nests deeper than 12 levels
    """
    if len(raw) > MAX_BYTES:
        raise ValueError(f"the file has {len(raw):,} bytes, more than the {MAX_BYTES:,} allowed")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"the file is not UTF-8 text ({err.reason} at byte {err.start})") from None
    try:
        return json.loads(
            text,
            parse_constant=_refuse_constant,
            parse_int=_bounded_int,
            object_pairs_hook=_unique,
        )
    except RecursionError:
        raise ValueError(f"the file nests deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"the file is not valid JSON (truncated or hand-edited? {err})") from None


def _where(path: Path_) -> str:
    """A field's name: ``record.experiments.fusion.params``; a key that is no identifier
    quoted, escaped and shortened (:func:`~infrabook.bench.records.schema.shown`)."""
    steps = (
        f"[{k}]" if isinstance(k, int) else f".{k}" if _IDENT.fullmatch(k) else f"[{shown(k)}]"
        for k in path
    )
    return "record" + "".join(steps)


#: Combining marks one character may carry: enough for any script's accents (Vietnamese stacks
#: two, Tibetan a few), far below the hundreds that draw over a page's neighbouring lines.
MAX_MARKS = 4


def _check_text(text: str, path: Path_, limit: int) -> None:
    if len(text) > limit:
        raise ValueError(f"{_where(path)} has {len(text):,} characters, at most {limit:,} allowed")
    stacked = 0  # combining marks on the character before them
    for char in text:
        if unicodedata.category(char)[0] == "C" or unicodedata.category(char) in ("Zl", "Zp"):
            name = unicodedata.name(char, f"U+{ord(char):04X}")
            raise ValueError(
                f"{_where(path)} holds the control or formatting character {name}: "
                "free text is one line of visible characters"
            )
        stacked = stacked + 1 if unicodedata.combining(char) else 0
        if stacked > MAX_MARKS:
            raise ValueError(
                f"{_where(path)} stacks more than {MAX_MARKS} combining marks on one "
                "character: they would draw over the lines around it"
            )


@cache
def private_names() -> frozenset[str]:
    """This machine's host name (short and full) and user name, lower-case: what a record
    made here must not hold (names under 4 characters are left out: too likely a word).

    >>> all(len(name) >= 4 for name in private_names())
    True
    """
    names = {socket.gethostname(), socket.gethostname().split(".")[0]}
    with contextlib.suppress(KeyError, OSError):  # no user for this uid: nothing to leak
        names.add(getpass.getuser())
    return frozenset(n.lower() for n in names if len(n) >= _MIN_NAME and n.lower() not in _NOBODY)


def _check_private(text: str, path: Path_) -> None:
    found = PATH.search(text)
    if found:
        raise ValueError(
            f"{_where(path)} holds the path or address {shown(found.group())}: "
            "a record holds none (they name users, machines and folders)"
        )
    for name in private_names():
        if re.search(rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])", text.lower()):
            raise ValueError(
                f"{_where(path)} holds this machine's host or user name: a record holds "
                "nothing that names a machine or a person"
            )


def _check_string(text: str, path: Path_, rules: tuple[schema.Rule, ...]) -> None:
    _check_private(text, path)
    for rule in rules:
        problem = None if isinstance(rule, schema.MaxLen) else rule.problem(text)  # see below
        if problem:
            raise ValueError(f"{_where(path)} must be {problem}, got {shown(text)}")
    if not any(isinstance(r, schema.Pattern | schema.Instant) for r in rules):
        limit = next((r.chars for r in rules if isinstance(r, schema.MaxLen)), schema.MAX_TEXT)
        _check_text(text, path, limit)


def _check_number(value: float, path: Path_, rules: tuple[schema.Rule, ...]) -> None:
    for rule in [r for r in rules if isinstance(r, schema.Range)] or [schema.DEFAULT_RANGE]:
        problem = rule.problem(value)
        if problem:
            raise ValueError(f"{_where(path)} must be {problem}, got {shown(value)}")


def _check_key(key: str, path: Path_) -> None:
    """A key of an object at ``path``: never a host, user or path name; inside an
    experiment's results free text (kernel names), elsewhere an identifier."""
    if _PRIVATE_KEYS.fullmatch(key):
        raise ValueError(
            f"{_where(path)} has the key {shown(key)}: a record holds no host "
            "name, user name or path"
        )
    if len(path) >= 3 and path[0] == "experiments" and path[2] == "results":
        _check_text(key, (*path, key), schema.MAX_TEXT)
        _check_private(key, (*path, key))
    elif not _IDENT.fullmatch(key):
        raise ValueError(f"{_where(path)} has a key that is no identifier: {shown(key)}")


def _results_type(name: Any, path: Path_, known: Known) -> Any:
    """The results type of the experiment called ``name``."""
    if name not in known:
        raise ValueError(
            f"{_where((*path, 'name'))} must be one of {', '.join(known)}, got {shown(name)}"
        )
    return known[name]


def _check_params(entry: dict[str, Any], path: Path_, known: Known) -> None:
    """The parameters a measured entry's results read (their ``PARAMS``) are there, each of
    its type: pages divide by them and index with them."""
    params, where = entry.get("params", {}), (*path, "params")
    for key, hint in _results_type(entry.get("name"), path, known).PARAMS.items():
        if key not in params:
            raise ValueError(f"{_where(where)} lacks the parameter {key!r}")
        _walk(params[key], hint, (*where, key), known)


def _check_object(data: Any, cls: type, path: Path_, known: Known) -> None:
    if not isinstance(data, dict):
        raise ValueError(f"{_where(path)} must be an object, got {shown(data)}")
    fields = schema.field_types(cls)
    for key in data:
        _check_key(key, path)
        if key not in fields:
            raise ValueError(f"{_where(path)} has the unknown field {shown(key)}")
    for key, value in data.items():
        if (cls, key) == (Entry, "results"):
            _walk(value, _results_type(data.get("name"), path, known) | None, (*path, key), known)
        else:
            _walk(value, fields[key], (*path, key), known)
    missing = sorted(schema.required(cls) - set(data))
    if missing:
        raise ValueError(f"{_where(path)} lacks the field {missing[0]!r}")
    if cls is Entry and data.get("status") == "ok":
        _check_params(data, path, known)


def _arm(arms: list[Any], data: Any, path: Path_) -> Any:
    """Which type of a union of dataclasses ``data`` is: the one whose ``kind`` it names."""
    kinds = {typing.get_args(schema.field_types(a)["kind"])[0]: a for a in arms}
    kind = data.get("kind") if isinstance(data, dict) else None
    if kind not in kinds:
        raise ValueError(
            f"{_where((*path, 'kind'))} must be one of {', '.join(kinds)}, got {shown(kind)}"
        )
    return kinds[kind]


def _walk(data: Any, hint: Any, path: Path_, known: Known) -> None:
    """Check ``data`` as a value of type ``hint`` at ``path``, all the way down."""
    if len(path) > MAX_DEPTH:
        raise ValueError(f"{_where(path)} nests deeper than {MAX_DEPTH} levels")
    base, rules = schema.unannotated(hint)
    origin, args = typing.get_origin(base), typing.get_args(base)
    if schema.is_union(base):
        if data is None and type(None) in args:
            return
        arms = [a for a in args if a is not type(None)]
        _walk(data, arms[0] if len(arms) == 1 else _arm(arms, data, path), path, known)
    elif base is Any:
        _generic(data, path)
    elif dataclasses.is_dataclass(base) and isinstance(base, type):
        _check_object(data, base, path, known)
    elif origin is Literal:
        if data not in args or isinstance(data, bool) != isinstance(args[0], bool):
            choices = ", ".join(str(a) for a in args)
            raise ValueError(f"{_where(path)} must be one of {choices}, got {shown(data)}")
    elif origin is dict:
        if not isinstance(data, dict):
            raise ValueError(f"{_where(path)} must be an object, got {shown(data)}")
        _check_size(data, rules, path)
        for key, value in data.items():
            _check_key(key, path)
            _walk(key, args[0], (*path, key), known)
            _walk(value, args[1], (*path, key), known)
    elif origin in (tuple, list):
        if not isinstance(data, list):
            raise ValueError(f"{_where(path)} must be a list, got {shown(data)}")
        _check_size(data, rules, path)
        for i, value in enumerate(data):
            _walk(value, args[0], (*path, i), known)
    else:
        _scalar(data, base, rules, path)


def _check_size(
    data: list[Any] | dict[str, Any], rules: tuple[schema.Rule, ...], path: Path_
) -> None:
    for rule in (r for r in rules if isinstance(r, schema.MaxItems)):
        problem = rule.problem(data)
        if problem:
            raise ValueError(f"{_where(path)} must hold {problem}")


def _scalar(data: Any, base: type, rules: tuple[schema.Rule, ...], path: Path_) -> None:
    if isinstance(data, float) and not math.isfinite(data):
        raise ValueError(f"{_where(path)} must be a finite number, got {data!r}")
    wanted = (int, float) if base is float else (base,)
    if not isinstance(data, wanted) or (isinstance(data, bool) and base is not bool):
        raise ValueError(f"{_where(path)} must be {_JSON_TYPES[base]}, got {shown(data)}")
    if isinstance(data, str):
        _check_string(data, path, rules)
    elif isinstance(data, int | float) and not isinstance(data, bool):
        _check_number(data, path, rules)


def _generic(data: Any, path: Path_) -> None:
    """What every value obeys where its type says nothing (``Any``)."""
    if len(path) > MAX_DEPTH:
        raise ValueError(f"{_where(path)} nests deeper than {MAX_DEPTH} levels")
    if isinstance(data, dict):
        for key, value in data.items():
            _check_key(key, path)
            _generic(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            _generic(value, (*path, i))
    elif isinstance(data, str):
        _check_string(data, path, ())
    elif isinstance(data, int | float) and not isinstance(data, bool):
        _check_number(data, path, ())


def check_entry(data: Any, known: Known) -> None:
    """Check one parsed entry as :func:`check` checks it inside a record: before an
    experiment runs, its provenance is checked this way, so that a record that would be
    refused is known before anything is measured."""
    _walk(
        data, Entry, ("experiments", str(data.get("name") if isinstance(data, dict) else "")), known
    )


def check(data: Any, known: Known) -> None:
    """Check a parsed record all the way down, along its declared types (see the module's
    description), each entry's results as the type ``known`` gives for its experiment; the
    first bad value raises ``ValueError`` naming its field.


    >>> check({"schema": 5, "device": "cpu-amd-epyc-2c-c8153f",
    ...        "updated": "2026-11-29T15:03:13Z", "experiments": {}}, {})
    >>> check({"schema": 5, "device": "<b>cpu</b>"}, {})
    Traceback (most recent call last):
    ...
    ValueError: record.device must be a machine name such as '...', got '<b>cpu</b>'
    >>> check({"schema": 5, "experiments": {"shapes": {"reason": "failed: /home/ada/x.py"}}}, {})
    Traceback (most recent call last):
    ...
    ValueError: record.experiments.shapes.reason holds the path or address '/home/ada/': ...
    >>> check({"schema": 5, "experiments": {"fusion": {"duration_s": -1.0}}}, {})
    Traceback (most recent call last):
    ...
    ValueError: record.experiments.fusion.duration_s must be from 0 to 100000, got -1.0
    >>> check({"schema": 5, "\x1b]0;x": 1}, {})
    Traceback (most recent call last):
    ...
    ValueError: record has a key that is no identifier: '\\x1b]0;x'
    """
    if not isinstance(data, dict):
        raise ValueError("the file is not a JSON object")
    if data.get("schema") != SCHEMA:
        raise ValueError(
            f"schema {shown(data.get('schema'))}, this version of infrabook reads schema {SCHEMA}"
        )
    _walk(data, Record, (), known)
