"""Input validators: one clear ``ValueError`` naming the bad value and what was expected.

Used at the edges (calculators' arguments, dataclass construction, the benchmark's sizes,
the kernels' launch parameters), so that code inside can trust its inputs.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence


def check_positive_int(name: str, value: object) -> int:
    """Return ``value`` if it is a positive integer, else raise a ``ValueError`` naming it.

    >>> check_positive_int("rows", 1024)
    1024
    >>> check_positive_int("rows", 0)
    Traceback (most recent call last):
    ...
    ValueError: rows must be a positive integer, got 0
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_sizes(name: str, values: object) -> tuple[int, ...]:
    """Return ``values`` as a tuple if it is a non-empty sequence of positive integers.

    >>> check_sizes("seq_lens", [1024, 8192])
    (1024, 8192)
    >>> check_sizes("seq_lens", [])
    Traceback (most recent call last):
    ...
    ValueError: seq_lens must name at least one size, got []
    """
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
        raise ValueError(f"{name} must name at least one size, got {values!r}")
    return tuple(check_positive_int(name, v) for v in values)


def check_finite(name: str, value: object, *, positive: bool = False) -> float:
    """Return ``value`` as a float if it is finite and >= 0 (> 0 with ``positive``).

    >>> check_finite("prep_ms", 100), check_finite("peak_tflops", 503.8, positive=True)
    (100.0, 503.8)
    >>> check_finite("seconds", 0, positive=True)
    Traceback (most recent call last):
    ...
    ValueError: seconds must be finite and > 0, got 0
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise ValueError(f"{name} must be finite and {'>' if positive else '>='} 0, got {value!r}")
    return float(value)


def check_fraction(name: str, value: object) -> float:
    """Return ``value`` as a float if it is in (0, 1], else raise a ``ValueError``.

    >>> check_fraction("mfu", 0.4)
    0.4
    >>> check_fraction("mfu", 1.5)
    Traceback (most recent call last):
    ...
    ValueError: mfu must be a fraction in (0, 1], got 1.5
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < float(value) <= 1:
        raise ValueError(f"{name} must be a fraction in (0, 1], got {value!r}")
    return float(value)
