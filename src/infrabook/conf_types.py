"""How a conf file's text becomes typed values: the kinds of leaf value, and one converter.

The conf files are described by frozen attrs classes (:mod:`infrabook.config`), and cattrs
turns parsed TOML into them. Why attrs + cattrs and not pydantic or msgspec: the live
calculators run :mod:`infrabook.live` in Pyodide from the site alone, and ``live`` reads the
conf; attrs and cattrs are pure Python, so the docs build ships their installed files beside
the package's wheel (``docs/_ext/infrabook_live.py``), while pydantic and msgspec are compiled
and Pyodide's own builds of them are not vendored here. mypy checks attrs classes natively.

One description per file gives validation (this converter), attribute access (the classes)
and JSON (``CONVERTER.unstructure``). This module is strict where cattrs is lenient: TOML
already has types, so ``"1024"`` is not an integer here, ``true`` is not a number and a
string is not an array (cattrs alone would read ``"H200"`` as ``('H', '2', '0', '0')``).
Any problem becomes one :class:`ConfError` line naming the file, the key and what was
expected; extra keys are refused too, so a misspelt optional key is not silently ignored.
"""

from __future__ import annotations

import math
import types
import typing
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal, NewType, TypeVar

import attrs
import cattrs
from cattrs.cols import homogenous_tuple_structure_factory, mapping_structure_factory
from cattrs.errors import AttributeValidationNote, ForbiddenExtraKeysError, IterableValidationNote
from cattrs.gen import make_dict_structure_fn

__all__ = [
    "CONVERTER",
    "Call",
    "ConfError",
    "Name",
    "NonNegative",
    "Number",
    "Numeral",
    "Positive",
    "PositiveInt",
    "UnitFraction",
    "describe",
    "structure",
]

T = TypeVar("T")


class ConfError(ValueError):
    """A conf file that does not hold what the loader expects; the message is one line."""


PositiveInt = NewType("PositiveInt", int)
Positive = NewType("Positive", float)
NonNegative = NewType("NonNegative", float)
Number = NewType("Number", float)
UnitFraction = NewType("UnitFraction", float)
Name = NewType("Name", str)
#: An exact number as the article writes it: "24", "0.6", "7/3".
Numeral = NewType("Numeral", str)
#: One row of example 5-12's calls: (rows, how many calls).
Call = NewType("Call", tuple[int, int])


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _numeral(v: Any) -> bool:
    if not isinstance(v, str):
        return False
    try:
        Fraction(v)
    except (ValueError, ZeroDivisionError):
        return False
    return True


def _positive_int(v: Any) -> bool:
    return type(v) is int and v > 0


#: Each leaf kind: what it is in words, and the test a value must pass. Values are kept as
#: TOML gives them (an integer stays an integer, so exact arithmetic stays exact).
KINDS: dict[Any, tuple[str, Callable[[Any], bool]]] = {
    PositiveInt: ("a positive integer", _positive_int),
    Positive: ("a finite number > 0", lambda v: _number(v) and v > 0),
    NonNegative: ("a finite number >= 0", lambda v: _number(v) and v >= 0),
    Number: ("a finite number", _number),
    UnitFraction: ("a number in (0, 1]", lambda v: _number(v) and 0 < v <= 1),
    Name: ("a non-empty string", lambda v: isinstance(v, str) and v.strip() != ""),
    str: ("a string", lambda v: isinstance(v, str)),
    bool: ("true or false", lambda v: isinstance(v, bool)),
    Numeral: ('a number or fraction written as a string, e.g. "24" or "7/3"', _numeral),
    Call: (
        "a [rows, count] pair of positive integers",
        lambda v: isinstance(v, list) and len(v) == 2 and all(map(_positive_int, v)),
    ),
}


class _Refused(ValueError):
    def __init__(self, what: str, got: Any) -> None:
        super().__init__(what)
        self.what, self.got = what, got


def _optional(hint: Any) -> Any:
    """``X`` for ``X | None``, else None."""
    if typing.get_origin(hint) in (types.UnionType, typing.Union):
        rest = [a for a in typing.get_args(hint) if a is not type(None)]
        return rest[0] if len(rest) == 1 else None
    return None


def _is_array(hint: Any) -> bool:
    args = typing.get_args(hint)
    return typing.get_origin(hint) is tuple and len(args) == 2 and args[1] is Ellipsis


def _keys(cls: Any) -> list[str]:
    """The keys a file may hold for attrs class ``cls`` (a field the loader sets is none)."""
    return [a.name for a in attrs.fields(cls) if a.init]


def describe(hint: Any) -> str:
    """What a value of ``hint`` is, in the words of the error messages.

    >>> describe(tuple[PositiveInt, ...])
    'a non-empty array of a positive integer'
    >>> describe(Literal["fp32", "bf16"])
    "one of 'fp32', 'bf16'"
    """
    if hint in KINDS:
        return KINDS[hint][0]
    if _optional(hint) is not None:
        return describe(_optional(hint))
    if typing.get_origin(hint) is Literal:
        return "one of " + ", ".join(map(repr, typing.get_args(hint)))
    if _is_array(hint):
        return f"a non-empty array of {describe(typing.get_args(hint)[0])}"
    if typing.get_origin(hint) is dict:
        return f"a non-empty table of named entries, each {describe(typing.get_args(hint)[1])}"
    if attrs.has(hint):
        return "a table with keys " + ", ".join(_keys(hint))
    raise TypeError(f"no words for the conf type {hint!r}")


def _leaf(hint: Any) -> Callable[[Any, Any], Any]:
    what, ok = KINDS[hint]

    def check(value: Any, _: Any) -> Any:
        if not ok(value):
            raise _Refused(what, value)
        return tuple(value) if hint is Call else value

    return check


def _literal(value: Any, hint: Any) -> Any:
    if value not in typing.get_args(hint):
        raise _Refused(describe(hint), value)
    return value


def _shape_first(
    make: Callable[[Any, cattrs.Converter], Callable[[Any, Any], Any]], shape: type
) -> Callable[[Any, cattrs.Converter], Callable[[Any, Any], Any]]:
    """cattrs' hook for a container, after a check that the value is a non-empty ``shape``."""

    def factory(hint: Any, converter: cattrs.Converter) -> Callable[[Any, Any], Any]:
        inner = make(hint, converter)

        def hook(value: Any, _: Any) -> Any:
            if not isinstance(value, shape) or not value:
                raise _Refused(describe(hint), value)
            return inner(value, hint)

        return hook

    return factory


def _make_converter() -> cattrs.Converter:
    conv = cattrs.Converter(detailed_validation=True, forbid_extra_keys=True)
    for kind in KINDS:
        conv.register_structure_hook(kind, _leaf(kind))
    conv.register_structure_hook_func(lambda h: typing.get_origin(h) is Literal, _literal)
    conv.register_structure_hook_factory(
        _is_array, _shape_first(homogenous_tuple_structure_factory, list)
    )
    conv.register_structure_hook_factory(
        lambda h: typing.get_origin(h) is dict, _shape_first(mapping_structure_factory, dict)
    )
    conv.register_structure_hook_factory(
        attrs.has, _shape_first(lambda cl, c: make_dict_structure_fn(cl, c), dict)
    )
    return conv


#: The one converter: parsed TOML to the classes of :mod:`infrabook.config`, and back to
#: plain JSON values with ``unstructure``.
CONVERTER = _make_converter()


def _one_line(err: BaseException, where: str) -> str:
    """The first problem inside cattrs' nested errors, as ``key: expected ..., got ...``."""
    hint: Any = None
    while True:
        for note in getattr(err, "__notes__", ()):
            if isinstance(note, AttributeValidationNote):
                where, hint = f"{where}.{note.name}" if where else note.name, note.type
            elif isinstance(note, IterableValidationNote):
                step = f".{note.index}" if isinstance(note.index, str) else f"[{note.index}]"
                where, hint = where + step, note.type
        if not isinstance(err, BaseExceptionGroup):
            break
        err = err.exceptions[0]
    if isinstance(err, _Refused):
        return f"{where}: expected {err.what}, got {err.got!r}"
    if isinstance(err, KeyError):
        return f"{where}: expected {describe(hint)}, got nothing (the key is missing)"
    if isinstance(err, ForbiddenExtraKeysError):
        known = ", ".join(_keys(err.cl))
        extra = ", ".join(sorted(err.extra_fields))
        return f"{where or '(top level)'}: expected only the keys {known}, got also {extra}"
    return f"{where}: expected {describe(hint)}, got a value cattrs refused: {err}"


def structure(data: Any, cls: type[T], path: Path) -> T:
    """``data`` (the parsed ``path``) as a ``cls``, or one :class:`ConfError` line.

    >>> @attrs.frozen
    ... class Chain:
    ...     rows: PositiveInt
    ...     dtype: Literal["fp32", "bf16"]
    >>> structure({"rows": 1024, "dtype": "bf16"}, Chain, Path("s.toml"))
    Chain(rows=1024, dtype='bf16')
    >>> structure({"rows": "1024", "dtype": "bf16"}, Chain, Path("s.toml"))
    Traceback (most recent call last):
    ...
    infrabook.conf_types.ConfError: s.toml: rows: expected a positive integer, got '1024'
    """
    try:
        return CONVERTER.structure(data, cls)
    except (cattrs.BaseValidationError, _Refused) as err:
        raise ConfError(f"{path}: {_one_line(err, '')}") from None
