"""Data types, byte sizes and the binary units the article counts in."""

from __future__ import annotations

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


def mib(nbytes: int | float) -> float:
    """Bytes as MiB (2**20 bytes), the unit the article writes as "MiB".

    >>> mib(1024 * 12288 * 2)
    24.0
    """
    return nbytes / MiB
