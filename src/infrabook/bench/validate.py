"""What a benchmark record may hold, checked when it is read, before anything uses it.

A record is a JSON file that anyone may contribute in a pull request, and pages print its
strings and numbers, so its contents are untrusted. :func:`parse` turns the file's bytes
into JSON values, refusing what no record needs: more than :data:`MAX_BYTES`, text that is
not UTF-8, ``NaN`` and ``Infinity`` (JSON has no such numbers; Python's reader would take
them), integers of more than 20 digits, duplicate keys (a reviewer would see one value and
the book use the other) and nesting deeper than :data:`MAX_DEPTH`. :func:`check` then looks
at every value by where it is:

- a string that names something (the record's device, dates, the commit, versions, the
  CPU or GPU, the platform) must match the pattern of what it names, so a name cannot
  carry markup: ``<``, ``[``, ``{`` or a backtick are refused there;
- any other string (a reason, a note, a kernel or operator name) is free text: at most
  :data:`MAX_TEXT` characters (a note :data:`MAX_NOTE`), one line, no control or
  invisible formatting characters; it may hold ``<`` or ``[`` (a C++ kernel name does),
  and pages show it literally (:func:`infrabook.tables.markdown_text`);
- a key outside ``results`` is an identifier; inside, free text (the profiler's kernel
  names are keys there, and a templated C++ name runs to hundreds of characters);
- a number is finite, not negative, and inside the range its unit allows (seconds, bytes,
  a fraction, ...), so no page derives a bandwidth of 1e308 from a time of 1e-300 s.

A record also holds nothing private: no string anywhere holds a file path (an absolute
path, a home folder such as ``~/x``, a Windows drive), no key is named after a host or a
user (``hostname``, ``user``, ...), and no string holds the host name or the user name of
the machine that checks it (:func:`private_names`): a record is made on the reader's own
machine, where these are the names that could leak, and checked there before it is written.

Each refusal is a ``ValueError`` of one line naming the field (``record.experiments.fusion.
provenance.device.name``) and what it should hold; the bad value is quoted shortened.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import math
import re
import socket
import unicodedata
from functools import cache
from typing import Any

MAX_BYTES = 2 * 2**20
MAX_DEPTH = 12
MAX_TEXT = 1000
MAX_NOTE = 8000
_INT_DIGITS = 20

#: A record's name: its machine's (:func:`infrabook.bench.record.machine_name`).
RECORD_NAME = re.compile(r"(cpu|gpu)(-[a-z0-9]+)+")
#: A file path in free text: absolute (``/home/x/``, ``C:\\``) or in a home folder (``~/``).
PATH = re.compile(r"(?<![\w.:/])(?:~[\w.-]*/|/(?:[\w.+-]+/)+|[A-Za-z]:\\)")
#: Keys that would name the machine or its user.
_PRIVATE_KEYS = re.compile(r"(host|node|user|login|home|cwd)(_?name)?|path|dir", re.I)
#: Host or user names shorter than this are too likely to be a word of free text.
_MIN_NAME = 4
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_ISO_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
_HEX_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}")
_HARDWARE = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ().,:@/_+-]{0,127}")
_PLATFORM = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+_-]{0,127}")
_DRIVER = re.compile(r"[A-Za-z0-9][A-Za-z0-9 .+_-]{0,63}")
_CAPABILITY = re.compile(r"\d{1,2}\.\d{1,2}")
_FLAG = re.compile(r"[a-z0-9_]{1,32}")

_NAME_CHARS = "letters, digits, spaces and ( ) . , : @ / _ + -"
_PROV = ("experiments", "*", "provenance")
_DEVICE = (*_PROV, "device")
_UTC = "a UTC time such as 2026-11-29T15:03:13Z"
#: Strings that name something, by the path that leads to them (``*`` is any one step).
_NAMED: tuple[tuple[tuple[str, ...], re.Pattern[str], str], ...] = (
    (("device",), RECORD_NAME, "a machine name such as 'cpu-amd-epyc-2c-c8153f'"),
    (("updated",), _ISO_UTC, _UTC),
    (("experiments", "*", "name"), _IDENT, "an experiment's name"),
    (("experiments", "*", "status"), re.compile("ok|skipped|failed"), "ok, skipped or failed"),
    (("experiments", "*", "targets", "*", "id"), _IDENT, "a target's id"),
    ((*_PROV, "date"), _ISO_UTC, _UTC),
    ((*_PROV, "git", "commit"), _HEX_COMMIT, "a hex git commit"),
    ((*_PROV, "versions", "*"), _VERSION, "a version such as 2.13.0+cpu"),
    ((*_DEVICE, "kind"), re.compile("cpu|cuda"), "cpu or cuda"),
    ((*_DEVICE, "name"), _HARDWARE, f"a CPU or GPU name ({_NAME_CHARS})"),
    ((*_DEVICE, "host_cpu"), _HARDWARE, f"a CPU name ({_NAME_CHARS})"),
    ((*_DEVICE, "driver"), _DRIVER, "a driver version"),
    ((*_DEVICE, "capability"), _CAPABILITY, "a compute capability such as 9.0"),
    ((*_DEVICE, "machine"), _PLATFORM, "a machine such as x86_64"),
    ((*_DEVICE, "os"), _PLATFORM, "a platform such as Linux-6.1-x86_64"),
    ((*_DEVICE, "vector", "*"), _FLAG, "a CPU flag such as avx2"),
)

#: The range of a number, by the end of the name of the nearest key that has a unit.
_RANGES: tuple[tuple[str, float, float], ...] = (
    ("median_s", 1e-9, 1e5),  # a timing: a time of 0 would make an infinite rate
    ("p20_s", 1e-9, 1e5),
    ("p80_s", 1e-9, 1e5),
    ("samples_s", 1e-9, 1e5),
    ("_s", 0, 1e5),
    ("_ms", 0, 1e8),
    ("_bytes", 0, 2**50),
    ("_mib", 0, 2**30),
    ("mhz", 0, 1e5),
    ("_fraction", 0, 1),
    ("_before", 0, 1),
    ("loadavg_1m", 0, 1e4),
    ("loadavg_5m", 0, 1e4),
    ("measured", 0, 1e6),
    ("max_abs_diff", 0, 1e6),
)
_DEFAULT_RANGE = (0, 2**53)  # counts, sizes, FLOPs: integers a float holds exactly

_INT, _NUM, _STR, _BOOL, _NONE = (int,), (int, float), (str,), (bool,), (type(None),)
#: The fields of the provenance's free-form objects: their JSON types, and which must be there.
_OBJECTS: tuple[tuple[tuple[str, ...], dict[str, tuple[type, ...]], frozenset[str]], ...] = (
    (
        _DEVICE,
        {
            "kind": _STR, "name": _STR, "logical_cpus": _INT + _NONE, "usable_cores": _INT,
            "torch_threads": _INT, "llc_bytes": _INT + _NONE, "mem_bytes": _INT + _NONE,
            "mhz": _NUM + _NONE, "vector": (list,), "machine": _STR, "os": _STR,
            "driver": _STR + _NONE, "sm_count": _INT, "capability": _STR,
            "memory_bytes": _INT, "l2_bytes": _INT + _NONE, "host_cpu": _STR,
            "sm_clock_mhz": _INT + _NONE, "max_sm_clock_mhz": _INT + _NONE,
            "mem_clock_mhz": _INT + _NONE,
        },
        frozenset({"kind", "name"}),
    ),
    (
        (*_PROV, "git"),
        # source: where host.git_info read the commit outside a checkout (a stopgap until
        # the record's shape is declared once)
        {"commit": _STR + _NONE, "dirty": _BOOL + _NONE, "error": _STR, "source": _STR},
        frozenset({"commit", "dirty"}),
    ),
    (
        (*_PROV, "host_load"),
        {
            "loadavg_1m": _NUM + _NONE, "loadavg_5m": _NUM + _NONE, "cores": _INT,
            "others_busy_fraction": _NUM + _NONE, "others_busy_before": _NUM + _NONE,
        },
        frozenset(),
    ),
)  # fmt: skip


def shown(value: Any) -> str:
    """A value as an error message quotes it: its ``repr``, cut to 40 characters.

    >>> shown("x" * 100)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…"
    """
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


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


def _matches(pattern: tuple[str, ...], path: tuple[str | int, ...]) -> bool:
    return len(pattern) == len(path) and all(
        p in ("*", str(k)) for p, k in zip(pattern, path, strict=True)
    )


def _where(path: tuple[str | int, ...]) -> str:
    return "record" + "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path)


def _check_text(text: str, path: tuple[str | int, ...], limit: int) -> None:
    if len(text) > limit:
        raise ValueError(f"{_where(path)} has {len(text):,} characters, at most {limit:,} allowed")
    for char in text:
        if unicodedata.category(char).startswith("C"):
            name = unicodedata.name(char, f"U+{ord(char):04X}")
            raise ValueError(
                f"{_where(path)} holds the control or formatting character {name}: "
                "free text is one line of visible characters"
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
    return frozenset(n.lower() for n in names if len(n) >= _MIN_NAME)


def _check_private(text: str, path: tuple[str | int, ...]) -> None:
    found = PATH.search(text)
    if found:
        raise ValueError(
            f"{_where(path)} holds the file path {shown(found.group())}: "
            "a record holds no paths (they name users and folders)"
        )
    for name in private_names():
        if re.search(rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])", text.lower()):
            raise ValueError(
                f"{_where(path)} holds this machine's host or user name: a record holds "
                "nothing that names a machine or a person"
            )


def _check_string(text: str, path: tuple[str | int, ...]) -> None:
    _check_private(text, path)
    for pattern, form, what in _NAMED:
        if _matches(pattern, path):
            if not form.fullmatch(text):
                raise ValueError(f"{_where(path)} must be {what}, got {shown(text)}")
            return
    _check_text(text, path, MAX_NOTE if path[-1:] == ("note",) else MAX_TEXT)


def _check_number(value: float, path: tuple[str | int, ...]) -> None:
    if not math.isfinite(value):
        raise ValueError(f"{_where(path)} must be a finite number, got {value!r}")
    names = [k for k in path if isinstance(k, str)][-2:]
    low, high = next(
        ((lo, hi) for name in reversed(names) for end, lo, hi in _RANGES if name.endswith(end)),
        _DEFAULT_RANGE,
    )
    if not low <= value <= high:
        raise ValueError(f"{_where(path)} must be from {low:g} to {high:g}, got {shown(value)}")


def _check_object(data: dict[str, Any], path: tuple[str | int, ...]) -> None:
    for pattern, fields, required in _OBJECTS:
        if not _matches(pattern, path):
            continue
        if pattern == _DEVICE and data.get("kind") == "cuda":
            required |= {"sm_count", "driver"}  # a GPU's provenance line names them
        missing = sorted(required - set(data))
        if missing:
            raise ValueError(f"{_where(path)} lacks the field {missing[0]!r}")
        for key, value in data.items():
            if key not in fields:
                raise ValueError(f"{_where(path)} has the unknown field {shown(key)}")
            kinds = fields[key]
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
                names = " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
                raise ValueError(f"{_where((*path, key))} must be {names}, got {shown(value)}")


def check(data: Any, path: tuple[str | int, ...] = ()) -> None:
    """Check parsed record JSON all the way down (see the module's description); the first
    bad value raises ``ValueError`` naming its field.

    >>> check({"device": "cpu-amd-epyc-2c-c8153f", "updated": "2026-11-29T15:03:13Z"})
    >>> check({"device": "<b>cpu</b>"})
    Traceback (most recent call last):
    ...
    ValueError: record.device must be a machine name such as '...', got '<b>cpu</b>'
    >>> check({"experiments": {"shapes": {"reason": "failed: /home/ada/x.py"}}})
    Traceback (most recent call last):
    ...
    ValueError: record.experiments.shapes.reason holds the file path '/home/ada/': ...
    >>> check({"experiments": {"fusion": {"duration_s": -1.0}}})
    Traceback (most recent call last):
    ...
    ValueError: record.experiments.fusion.duration_s must be from 0 to 100000, got -1.0
    """
    if len(path) > MAX_DEPTH:
        raise ValueError(f"{_where(path)} nests deeper than {MAX_DEPTH} levels")
    if isinstance(data, dict):
        _check_object(data, path)
        in_results = len(path) >= 3 and path[0] == "experiments" and path[2] == "results"
        for key, value in data.items():
            if _PRIVATE_KEYS.fullmatch(key):
                raise ValueError(
                    f"{_where(path)} has the key {shown(key)}: a record holds no host "
                    "name, user name or path"
                )
            if in_results:
                _check_text(key, (*path, key), MAX_TEXT)
                _check_private(key, (*path, key))
            elif not _IDENT.fullmatch(key):
                raise ValueError(f"{_where(path)} has a key that is no identifier: {shown(key)}")
            check(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            check(value, (*path, i))
    elif isinstance(data, str):
        _check_string(data, path)
    elif isinstance(data, int | float) and not isinstance(data, bool):
        _check_number(data, path)
