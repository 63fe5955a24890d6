"""Data types, byte sizes and the binary units the article counts in."""

from __future__ import annotations

import math
import numbers

MiB = 1024**2
GiB = 1024**3

#: Bytes per element of every dtype the calculators understand.
DTYPE_BYTES: dict[str, int] = {
    "fp32": 4,
    "fp16": 2,
    "bf16": 2,
    "fp8": 1,
    "int8": 1,
}


def dtype_bytes(dtype: str) -> int:
    """Bytes per element of ``dtype``.

    >>> dtype_bytes("bf16"), dtype_bytes("fp32"), dtype_bytes("int8")
    (2, 4, 1)
    """
    try:
        return DTYPE_BYTES[dtype]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown dtype {dtype!r}: expected one of {', '.join(DTYPE_BYTES)}"
        ) from None


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


def check_finite_positive(name: str, value: object) -> float:
    """Return ``value`` as a float if it is finite and > 0, else raise a ``ValueError``.

    >>> check_finite_positive("peak_tflops", 503.8)
    503.8
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be finite and > 0, got {value!r}")
    return float(value)


def check_finite_nonnegative(name: str, value: object) -> float:
    """Return ``value`` as a float if it is finite and >= 0, else raise a ``ValueError``.

    >>> check_finite_nonnegative("prep_ms", 100)
    100.0
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be finite and >= 0, got {value!r}")
    return float(value)


def mib(nbytes: int | float) -> float:
    """Bytes as MiB (2**20 bytes), the unit the article writes as "MiB".

    >>> mib(1024 * 12288 * 2)
    24.0
    """
    return nbytes / MiB
