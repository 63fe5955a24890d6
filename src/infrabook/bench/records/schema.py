"""The rules a record's values obey, stated once, on the fields of the types that hold them.

A field's rule is metadata of its type (``Annotated[float, Range(1e-9, 1e5)]``): a
:class:`Range` for a number, a :class:`Pattern` for a string that names something, a
:class:`MaxLen` for free text. The same declaration serves three readers: a :class:`Checked`
dataclass applies its fields' rules when it is constructed (so a producer that measures a
zero time, or writes a field nobody declared, fails in its own test), the record validator
(:mod:`infrabook.bench.records.validate`) walks the types to check a contributed file, and
:func:`json_schema` writes them out for contributors. The aliases below (:data:`Seconds`,
:data:`Bytes`, ...) name the rules that many fields share.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
import re
import types
import typing
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Literal


def shown(value: Any) -> str:
    """A value as an error message quotes it: its ``repr`` (which escapes what is not
    printable: ESC, U+202E, U+2028), cut to 40 characters.

    >>> shown("x" * 100)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…"
    >>> shown("\\x1b]0;title\\u202e")
    "'\\\\x1b]0;title\\\\u202e'"
    """
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


@dataclass(frozen=True)
class Range:
    """A number's rule: finite, from ``low`` to ``high``."""

    low: float
    high: float

    def problem(self, value: Any) -> str | None:
        """What ``value`` should be, or None when it obeys the rule (or is no number)."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        if not math.isfinite(value):
            return "a finite number"
        return None if self.low <= value <= self.high else f"from {self.low:g} to {self.high:g}"


@dataclass(frozen=True)
class Pattern:
    """A string's rule: the whole of it matches ``regex``; ``what`` says what it names."""

    regex: str
    what: str

    def problem(self, value: Any) -> str | None:
        """What ``value`` should be, or None when it obeys the rule (or is no string)."""
        if not isinstance(value, str) or re.fullmatch(self.regex, value):
            return None
        return self.what


@dataclass(frozen=True)
class MaxLen:
    """Free text's rule: at most ``chars`` characters."""

    chars: int

    def problem(self, value: Any) -> str | None:
        """What ``value`` should be, or None when it obeys the rule (or is no string)."""
        if not isinstance(value, str) or len(value) <= self.chars:
            return None
        return f"at most {self.chars:,} characters (it has {len(value):,})"


@dataclass(frozen=True)
class Instant:
    """A time's rule: UTC, to the second, with a ``Z``, and on the calendar (no 2026-13-45)."""

    def problem(self, value: Any) -> str | None:
        """What ``value`` should be, or None when it obeys the rule (or is no string)."""
        if not isinstance(value, str):
            return None
        try:
            datetime.datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ")
        except ValueError:
            return "a UTC time such as 2026-11-29T15:03:13Z"
        return None if len(value) == 20 else "a UTC time such as 2026-11-29T15:03:13Z"


@dataclass(frozen=True)
class MaxItems:
    """A list's or an object's rule: at most ``items`` entries (a valid record of millions
    of samples would take seconds to read on every page that shows it)."""

    items: int

    def problem(self, value: Any) -> str | None:
        """What ``value`` should be, or None when it obeys the rule (or holds no entries)."""
        if not isinstance(value, list | tuple | dict) or len(value) <= self.items:
            return None
        return f"at most {self.items:,} entries (it has {len(value):,})"


Rule = Range | Pattern | MaxLen | Instant | MaxItems
#: The most entries a list or an object of a record holds.
MAX_ITEMS = 10_000

MAX_TEXT = 1000
MAX_NOTE = 8000
#: A number with no stated range: counts, sizes, FLOPs; integers a float holds exactly.
DEFAULT_RANGE = Range(0, 2**53)

#: A record's name: its machine's (:func:`infrabook.bench.records.store.machine_name`).
RECORD_NAME = r"(cpu|gpu)(-[a-z0-9]+)+"
_NAME_CHARS = "letters, digits, spaces and ( ) . , : @ / _ + -"

Seconds = Annotated[float, Range(0, 1e5)]
#: A timed repetition: a time of 0 would make an infinite rate.
TimedSeconds = Annotated[float, Range(1e-9, 1e5)]
Millis = Annotated[float, Range(0, 1e8)]
Bytes = Annotated[int, Range(0, 2**50)]
Count = Annotated[int, Range(0, 2**53)]
Positive = Annotated[int, Range(1, 2**53)]
#: What a rate is computed over: never 0.
ModelBytes = Annotated[int, Range(1, 2**50)]
MHz = Annotated[float, Range(0, 1e5)]
Share = Annotated[float, Range(0, 1)]
Load = Annotated[float, Range(0, 1e4)]
AbsDiff = Annotated[float, Range(0, 1e6)]
Text = Annotated[str, MaxLen(MAX_TEXT)]
Ident = Annotated[str, Pattern(r"[A-Za-z_][A-Za-z0-9_]{0,63}", "an identifier")]
IsoUtc = Annotated[str, Instant()]
#: One rule for the commit a producer reads and the one a validator accepts: a short or
#: full SHA-1 or SHA-256 name.
COMMIT = r"[0-9a-f]{7,64}"
Commit = Annotated[str, Pattern(COMMIT, "a git commit (7 to 64 hex digits)")]
Version = Annotated[str, Pattern(r"[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}", "a version such as 2.13.0")]
Hardware = Annotated[
    str,
    Pattern(r"[A-Za-z0-9][A-Za-z0-9 ().,:@/_+-]{0,127}", f"a CPU or GPU name ({_NAME_CHARS})"),
]
Platform = Annotated[
    str, Pattern(r"[A-Za-z0-9][A-Za-z0-9.+_-]{0,127}", "a platform such as Linux-6.1-x86_64")
]
Driver = Annotated[str, Pattern(r"[A-Za-z0-9][A-Za-z0-9 .+_-]{0,63}", "a driver version")]
Capability = Annotated[str, Pattern(r"\d{1,2}\.\d{1,2}", "a compute capability such as 9.0")]
Flag = Annotated[str, Pattern(r"[a-z0-9_]{1,32}", "a CPU flag such as avx2")]


def unannotated(hint: Any) -> tuple[Any, tuple[Rule, ...]]:
    """A type without its ``Annotated`` layer, and the rules that layer held.

    >>> unannotated(Seconds)
    (<class 'float'>, (Range(low=0, high=100000.0),))
    """
    if typing.get_origin(hint) is Annotated:
        base, *meta = typing.get_args(hint)
        rules = Range | Pattern | MaxLen | Instant | MaxItems
        return base, tuple(m for m in meta if isinstance(m, rules))
    return hint, ()


def is_union(hint: Any) -> bool:
    """Whether ``hint`` is ``X | Y`` (either spelling)."""
    return typing.get_origin(hint) in (types.UnionType, typing.Union)


@cache
def field_types(cls: Any) -> dict[str, Any]:
    """A dataclass's fields (not its class variables) and their types, rules included."""
    hints = typing.get_type_hints(cls, include_extras=True)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


def required(cls: type) -> frozenset[str]:
    """The fields of a dataclass that have no default."""
    return frozenset(
        f.name
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    )


def apply_rules(value: Any, hint: Any, where: str) -> None:
    """Check ``value`` against the rules ``hint`` states, inside unions, tuples, lists and
    dicts too (not inside dataclasses: those check themselves); ``ValueError`` naming
    ``where`` for the first broken rule.

    >>> apply_rules((1.0, 0.0), tuple[TimedSeconds, ...], "t")
    Traceback (most recent call last):
    ...
    ValueError: t[1] must be from 1e-09 to 100000, got 0.0
    """
    base, rules = unannotated(hint)
    for rule in rules:
        problem = rule.problem(value)
        if problem:
            raise ValueError(f"{where} must be {problem}, got {shown(value)}")
    origin, args = typing.get_origin(base), typing.get_args(base)
    if value is None or dataclasses.is_dataclass(value):
        return
    if is_union(base):
        arms = [a for a in args if a is not type(None)]
        if len(arms) == 1:
            apply_rules(value, arms[0], where)
    elif origin is Literal and value not in args:
        choices = ", ".join(str(a) for a in args)
        raise ValueError(f"{where} must be one of {choices}, got {shown(value)}")
    elif origin in (tuple, list) and isinstance(value, tuple | list):
        for i, item in enumerate(value):
            apply_rules(item, args[0], f"{where}[{i}]")
    elif origin is dict and isinstance(value, dict):
        for key, item in value.items():
            apply_rules(item, args[1], f"{where}.{key}")


class Checked:
    """A frozen dataclass whose fields' rules hold from construction on."""

    def __post_init__(self) -> None:
        for name, hint in field_types(typing.cast(Any, type(self))).items():
            apply_rules(getattr(self, name), hint, f"{type(self).__name__}.{name}")


def json_schema(hint: Any, defs: dict[str, Any] | None = None) -> dict[str, Any]:
    """A JSON Schema (draft 2020-12) of ``hint``, dataclasses under ``$defs`` by name, for
    contributors' editors and tools; :mod:`infrabook.bench.records.validate` checks more (no paths,
    no private names, one line of visible characters), which a schema cannot say.

    >>> json_schema(Seconds)
    {'type': 'number', 'minimum': 0, 'maximum': 100000.0}
    """
    defs = {} if defs is None else defs
    base, rules = unannotated(hint)
    origin, args = typing.get_origin(base), typing.get_args(base)
    out: dict[str, Any]
    if base is Any:
        out = {}
    elif dataclasses.is_dataclass(base) and isinstance(base, type):
        name = base.__name__
        if name not in defs:
            defs[name] = {}  # a placeholder while its own fields are written
            props = {k: json_schema(t, defs) for k, t in field_types(base).items()}
            defs[name] = {
                "type": "object",
                "properties": props,
                "required": sorted(required(base)),
                "additionalProperties": False,
            }
        out = {"$ref": f"#/$defs/{name}"}
    elif is_union(base):
        out = {"anyOf": [json_schema(a, defs) for a in args]}
    elif origin is Literal:
        out = {"enum": list(args)}
    elif origin in (tuple, list):
        out = {"type": "array", "items": json_schema(args[0], defs)}
    elif origin is dict:
        out = {"type": "object", "additionalProperties": json_schema(args[1], defs)}
    else:
        names = {str: "string", bool: "boolean", int: "integer", float: "number"}
        out = {"type": names.get(base, "null")}
    for rule in rules:
        if isinstance(rule, Range):
            out |= {"minimum": rule.low, "maximum": rule.high}
        elif isinstance(rule, Pattern):
            out["pattern"] = f"^(?:{rule.regex})$"
        elif isinstance(rule, Instant):
            out["pattern"] = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"
        elif isinstance(rule, MaxItems):
            out["maxItems" if out.get("type") == "array" else "maxProperties"] = rule.items
        else:
            out["maxLength"] = rule.chars
    return out
