"""Parsed TOML to the classes of :mod:`infrabook.config`, with the standard library alone:
the one reader of the conf files, for the CLI, the pages, the tests and the live calculators.

Why not a converter library (cattrs, which reads the benchmark records): the live calculators
read the same files in the reader's browser, and there importing attrs and cattrs took 1.0 to
1.2 s, plus 0.3 s for a cattrs converter module, under Pyodide (measured under Node, 2026-12-04,
on the build machine): more than the whole first answer may take (issue #42 item 8: 1.5 s
after the click). A second reader beside this one, held equal to it by tests, was one
description of the conf too many. The records stay with cattrs: no page reads them in a
browser.

It is strict where a converter is lenient: TOML already has types, so ``"1024"`` is not an
integer, ``true`` is not a number and a string is not an array. Any problem becomes one
:class:`ConfError` line naming the file, the key and what was expected; unknown keys are
refused too, so a misspelt optional key is not silently ignored.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from pathlib import Path
from typing import Any, Literal, TypeVar

from infrabook.conf_kinds import KINDS, Call
from infrabook.conf_schema import ConfError

__all__ = ["describe", "is_array", "keys", "optional", "structure"]

T = TypeVar("T")


def optional(hint: Any) -> Any:
    """``X`` for ``X | None``, else None."""
    if typing.get_origin(hint) in (types.UnionType, typing.Union):
        rest = [a for a in typing.get_args(hint) if a is not type(None)]
        return rest[0] if len(rest) == 1 else None
    return None


def is_array(hint: Any) -> bool:
    """Whether ``hint`` is ``tuple[X, ...]``, what a TOML array is read as."""
    args = typing.get_args(hint)
    return typing.get_origin(hint) is tuple and len(args) == 2 and args[1] is Ellipsis


def keys(cls: Any) -> list[str]:
    """The keys a file may hold for class ``cls`` (a field the loader sets is none)."""
    return [f.name for f in dataclasses.fields(cls) if f.init]


def describe(hint: Any) -> str:
    """What a value of ``hint`` is, in the words of the error messages.

    >>> from infrabook.conf_kinds import PositiveInt
    >>> describe(tuple[PositiveInt, ...])
    'a non-empty array of a positive integer'
    >>> describe(Literal["fp32", "bf16"])
    "one of 'fp32', 'bf16'"
    """
    if hint in KINDS:
        return KINDS[hint][0]
    if optional(hint) is not None:
        return describe(optional(hint))
    if typing.get_origin(hint) is Literal:
        return "one of " + ", ".join(map(repr, typing.get_args(hint)))
    if is_array(hint):
        return f"a non-empty array of {describe(typing.get_args(hint)[0])}"
    if typing.get_origin(hint) is dict:
        return f"a non-empty table of named entries, each {describe(typing.get_args(hint)[1])}"
    if dataclasses.is_dataclass(hint):
        return "a table with keys " + ", ".join(keys(hint))
    raise TypeError(f"no words for the conf type {hint!r}")


class _Refused(ValueError):
    pass


def _refuse(where: str, hint: Any, got: Any) -> _Refused:
    return _Refused(f"{where}: expected {describe(hint)}, got {got!r}")


def _value(value: Any, hint: Any, where: str) -> Any:
    if optional(hint) is not None:
        hint = optional(hint)
    if hint in KINDS:
        if not KINDS[hint][1](value):
            raise _refuse(where, hint, value)
        return tuple(value) if hint is Call else value
    if typing.get_origin(hint) is Literal:
        if value not in typing.get_args(hint):
            raise _refuse(where, hint, value)
        return value
    if is_array(hint):
        if not isinstance(value, list) or not value:
            raise _refuse(where, hint, value)
        item = typing.get_args(hint)[0]
        return tuple(_value(v, item, f"{where}[{i}]") for i, v in enumerate(value))
    if typing.get_origin(hint) is dict:
        if not isinstance(value, dict) or not value:
            raise _refuse(where, hint, value)
        item = typing.get_args(hint)[1]
        return {k: _value(v, item, f"{where}.{k}") for k, v in value.items()}
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        if not isinstance(value, dict):
            raise _refuse(where, hint, value)
        return _table(value, hint, where)
    raise TypeError(f"no reader for the conf type {hint!r}")


def _table(data: dict[str, Any], cls: type[T], where: str) -> T:
    hints = typing.get_type_hints(cls)
    known = keys(cls)
    extra = sorted(set(data) - set(known))
    if extra:
        raise _Refused(
            f"{where or '(top level)'}: expected only the keys {', '.join(known)}, "
            f"got also {', '.join(extra)}"
        )
    found = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not f.init:
            continue
        key = f"{where}.{f.name}" if where else f.name
        if f.name in data:
            found[f.name] = _value(data[f.name], hints[f.name], key)
        elif f.default is dataclasses.MISSING:
            raise _Refused(
                f"{key}: expected {describe(hints[f.name])}, got nothing (the key is missing)"
            )
    return cls(**found)


def structure(data: Any, cls: type[T], path: Path) -> T:
    """``data`` (the parsed ``path``) as a ``cls``, or one :class:`ConfError` line.

    >>> from infrabook.config import FfnChain
    >>> chain = {"rows": 1024, "cols": 8, "dtype": "bf16", "quant_dtype": "int8"}
    >>> structure(chain, FfnChain, Path("s.toml"))
    FfnChain(rows=1024, cols=8, dtype='bf16', quant_dtype='int8')
    >>> structure(chain | {"rows": "1024"}, FfnChain, Path("s.toml"))
    Traceback (most recent call last):
    ...
    infrabook.conf_schema.ConfError: s.toml: rows: expected a positive integer, got '1024'
    """
    try:
        return _table(data, cls, "")
    except _Refused as err:
        raise ConfError(f"{path}: {err}") from None
