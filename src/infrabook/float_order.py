"""Floating-point sums depend on their order: the rounding constraint on legal transforms.

Section 4 (and 7): a compiler may only reorder, tile or fuse loops in ways that keep the
rounding of every result, unless it is allowed to change the numbers. Reordering a sum is the
smallest example: the same terms added in another order give another float.

Pure Python, so the reader's browser can run it: rounding to fp32 and fp16 goes through
``struct``, whose ``f`` and ``e`` formats round to nearest-even as IEEE 754 does.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction


def _rounder(fmt: str) -> Callable[[float], float]:
    def to_dtype(x: float) -> float:
        try:
            return float(struct.unpack(fmt, struct.pack(fmt, x))[0])
        except OverflowError:  # past the format's largest finite value, IEEE gives inf
            return math.copysign(math.inf, x)

    return to_dtype


_DTYPES: dict[str, Callable[[float], float]] = {
    "fp32": _rounder("<f"),
    "fp16": _rounder("<e"),
    "fp64": float,
}


def round_to(x: float, dtype: str) -> float:
    """``x`` rounded to nearest (ties to even) in ``dtype``.

    >>> round_to(1 + 2**-24, "fp32"), round_to(65520.0, "fp16"), round_to(0.1, "fp64")
    (1.0, inf, 0.1)
    """
    return _check([x], dtype)(x)


def _check(values: Sequence[float], dtype: str) -> Callable[[float], float]:
    if dtype not in _DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}: expected one of {', '.join(_DTYPES)}")
    if len(values) == 0:
        raise ValueError("values must not be empty")
    bad = [v for v in values if not math.isfinite(v)]
    if bad:
        raise ValueError(f"values must be finite, got {bad[:3]!r}")
    return _DTYPES[dtype]


def sequential_sum(values: Sequence[float], dtype: str = "fp32") -> float:
    """Add left to right, rounding to ``dtype`` after every addition.

    >>> sequential_sum([1e8, 1.0, -1e8, 1.0], "fp32")
    1.0
    """
    t = _check(values, dtype)
    acc = t(0.0)
    for v in values:
        acc = t(acc + t(v))
    return acc


def exact_sum(values: Sequence[float]) -> Fraction:
    """The exact sum of the values as given (each float is an exact rational).

    >>> exact_sum([1e8, 1.0, -1e8, 1.0])
    Fraction(2, 1)
    """
    return sum((Fraction(v) for v in values), Fraction(0))


@dataclass(frozen=True)
class OrderComparison:
    """One set of terms summed in several orders."""

    orders: dict[str, float]
    exact: Fraction

    @property
    def distinct_results(self) -> int:
        """How many different floats the orders produced."""
        return len(set(self.orders.values()))


def compare_orders(values: Sequence[float], dtype: str = "fp32") -> OrderComparison:
    """Sum ``values`` forwards, backwards, sorted and in pairs (tree), at ``dtype``.

    >>> c = compare_orders([1e8, 1.0, -1e8, 1.0])
    >>> c.orders["forward"], c.orders["backward"], c.exact
    (1.0, 0.0, Fraction(2, 1))
    """
    vals = [float(v) for v in values]
    t = _check(vals, dtype)

    def tree(xs: list[float]) -> float:
        level = [t(x) for x in xs]
        while len(level) > 1:
            pairs = [t(level[i] + level[i + 1]) for i in range(0, len(level) - 1, 2)]
            level = pairs + ([level[-1]] if len(level) % 2 else [])
        return float(level[0])

    return OrderComparison(
        orders={
            "forward": sequential_sum(vals, dtype),
            "backward": sequential_sum(vals[::-1], dtype),
            "sorted": sequential_sum(sorted(vals), dtype),
            "pairwise": tree(vals),
        },
        exact=exact_sum(vals),
    )
