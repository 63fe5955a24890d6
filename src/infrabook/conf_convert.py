"""How a conf file's text becomes typed values: one cattrs converter for the classes of
:mod:`infrabook.config`, strict, with one-line errors.

Why cattrs over the dataclasses of :mod:`infrabook.config`, and not pydantic or msgspec: the
classes must load in the live calculators (Pyodide, from the site alone, no network), and
stdlib dataclasses do so at no cost, where pydantic and msgspec are compiled and not vendored
with Pyodide here. cattrs is the well-kept converter for such classes (validation with paths
to the bad key, ``unstructure`` back to plain JSON values). Even so, importing attrs and
cattrs in Pyodide took more than a second (their sources are compiled there; measured under
Node, 2026-12), so the live calculators do not import them: they read the same files through
:mod:`infrabook.conf_plain`, the standard library's reader, which checks what this one checks and
says it in the same words.

This module is strict where cattrs is lenient: TOML already has types, so ``"1024"`` is not an
integer here, ``true`` is not a number and a string is not an array (cattrs alone reads
``"H200"`` as ``('H', '2', '0', '0')``). Any problem becomes one :class:`ConfError` line naming
the file, the key and what was expected; unknown keys are refused too, so a misspelt optional
key is not silently ignored.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

import cattrs
from cattrs.cols import homogenous_tuple_structure_factory, mapping_structure_factory
from cattrs.errors import AttributeValidationNote, ForbiddenExtraKeysError, IterableValidationNote
from cattrs.gen import make_dict_structure_fn

from infrabook.conf_kinds import KINDS, Call
from infrabook.conf_plain import describe, is_array, keys
from infrabook.conf_schema import ConfError

__all__ = ["CONVERTER", "describe", "structure"]

T = TypeVar("T")


class _Refused(ValueError):
    def __init__(self, what: str, got: Any) -> None:
        super().__init__(what)
        self.what, self.got = what, got


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
    make: Callable[[Any, cattrs.Converter], Callable[[Any, Any], Any]],
    shape: type,
    empty_ok: bool = False,
) -> Callable[[Any, cattrs.Converter], Callable[[Any, Any], Any]]:
    """cattrs' hook for a container, after a check that the value is a ``shape`` (and not
    empty, unless ``empty_ok``: an empty table is reported by its first missing key)."""

    def factory(hint: Any, converter: cattrs.Converter) -> Callable[[Any, Any], Any]:
        inner = make(hint, converter)

        def hook(value: Any, _: Any) -> Any:
            if not isinstance(value, shape) or not (value or empty_ok):
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
        is_array, _shape_first(homogenous_tuple_structure_factory, list)
    )
    conv.register_structure_hook_factory(
        lambda h: typing.get_origin(h) is dict, _shape_first(mapping_structure_factory, dict)
    )
    conv.register_structure_hook_factory(
        dataclasses.is_dataclass,
        _shape_first(lambda cl, c: make_dict_structure_fn(cl, c), dict, empty_ok=True),
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
        known = ", ".join(keys(err.cl))
        extra = ", ".join(sorted(err.extra_fields))
        return f"{where or '(top level)'}: expected only the keys {known}, got also {extra}"
    return f"{where}: expected {describe(hint)}, got a value cattrs refused: {err}"


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
        return CONVERTER.structure(data, cls)
    except (cattrs.BaseValidationError, _Refused) as err:
        raise ConfError(f"{path}: {_one_line(err, '')}") from None
