"""The kinds of leaf value a conf file holds, each with its words and its test.

The classes of :mod:`infrabook.config` declare every key with one of these kinds (or a
``Literal``, an array of one, a table of them); :mod:`infrabook.conf_plain` checks a value
against its kind's test and says the kind's words when it fails. Only the standard library
here, as in the reader, so the live calculators load them in Pyodide at no cost.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, NewType

__all__ = [
    "KINDS",
    "Call",
    "Name",
    "NonNegative",
    "Number",
    "Numeral",
    "Positive",
    "PositiveInt",
    "UnitFraction",
]

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
