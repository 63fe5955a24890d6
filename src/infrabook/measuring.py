"""The rates a timing turns into: achieved bandwidth, MFU and HFU. Pure arithmetic, so
that pages and records derive them without measuring anything (the measurements are
:mod:`infrabook.bench.measure`'s).
"""

from __future__ import annotations


def _positive(name: str, value: float) -> float:
    if not value > 0:  # also refuses NaN
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return value


def gb_s(nbytes: float, seconds: float) -> float:
    """Achieved bandwidth in GB/s (10**9 byte/s): the bytes a kernel must move over its time.

    >>> gb_s(72 * 2**20, 7.7e-6)
    9804.8...
    >>> gb_s(1, 0)
    Traceback (most recent call last):
    ...
    ValueError: seconds must be a positive number, got 0
    """
    return nbytes / _positive("seconds", seconds) / 1e9


def utilisation(flop: float, seconds: float, peak_tflops: float) -> float:
    """FLOP per second over the peak, as a fraction. Given the model's own FLOP it is MFU;
    given every FLOP the hardware executed (recomputation, padded rows too) it is HFU.

    >>> round(utilisation(2 * 4096**3, 1e-3, 989.4), 3)
    0.139
    >>> utilisation(1.0, 1.0, 0.0)
    Traceback (most recent call last):
    ...
    ValueError: peak_tflops must be a positive number, got 0.0
    """
    rate = flop / _positive("seconds", seconds)
    return rate / (_positive("peak_tflops", peak_tflops) * 1e12)
