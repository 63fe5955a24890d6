"""Measuring it yourself: what a cache left warm does to a timing, what the first call costs,
and the rates a timing turns into (achieved bandwidth, MFU and HFU).

:func:`cache_effect` times the unfused activation chain on the CPU twice, once with the
caches flushed before every repetition and once without, at a size whose whole working set
fits in the last-level cache: the CPU's version of a GPU timing loop that leaves the
tensors in L2.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch

from infrabook.bench.measure import host
from infrabook.bench.measure.timers import cache_flush, time_interleaved
from infrabook.bench.records.timing import Timing
from infrabook.checks import check_positive_int
from infrabook.dataflow import account, unfused
from infrabook.ffn_chain import activation_chain

MiB = 2**20


def _positive(name: str, value: float) -> float:
    if not value > 0:  # also refuses NaN
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return value


def gb_s(nbytes: float, seconds: float) -> float:
    """Achieved bandwidth in GB/s (10**9 byte/s): the bytes a kernel must move over its time.

    >>> gb_s(72 * MiB, 7.7e-6)
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


@dataclass(frozen=True)
class CacheEffect:
    """The unfused chain at ``rows`` x ``cols`` fp32: bytes it moves by the dataflow model,
    the working set, the first call's time, and timings with and without a cache flush."""

    rows: int
    cols: int
    traffic: int
    working_set: int
    llc: int | None
    flush_bytes: int
    first_s: float
    flushed: Timing
    warm: Timing


def cache_effect(rows: int = 256, cols: int = 2048, reps: int = 9, warmup: int = 2) -> CacheEffect:
    """Time ``silu(g) * u`` (T written and read back, the unfused plan) on one CPU thread: the
    first call alone, then ``reps`` repetitions after ``warmup`` with the caches flushed before each
    (by ``2 x`` the last-level cache, at least 64 MiB), and ``reps`` without.

    >>> e = cache_effect(rows=16, cols=64, reps=3, warmup=1)
    >>> e.traffic == 5 * 16 * 64 * 4, e.working_set == 4 * 16 * 64 * 4
    (True, True)
    >>> len(e.flushed.samples_s), len(e.warm.samples_s)
    (3, 3)
    """
    check_positive_int("reps", reps)
    graph = activation_chain(rows, cols, "fp32")
    accounting = account(graph, unfused(graph))
    gen = torch.Generator().manual_seed(0)
    g, u = (torch.randn(rows, cols, generator=gen) for _ in range(2))
    t, z = torch.empty_like(g), torch.empty_like(g)

    def chain() -> None:
        torch.ops.aten.silu.out(g, out=t)
        torch.mul(t, u, out=z)

    llc = host.llc_bytes()
    flush_bytes = max(2 * (llc or 0), 64 * MiB)
    # One thread: after a flush a sleeping worker thread has to be woken, and on a shared
    # machine that wait (tens of ms when the other cores are busy) would swamp the timing.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        start = time.perf_counter()
        chain()
        first_s = time.perf_counter() - start
        flushed = time_interleaved(
            {"chain": chain}, warmup=warmup, reps=reps, before=cache_flush(flush_bytes)
        )["chain"]
        warm = time_interleaved({"chain": chain}, warmup=warmup, reps=reps)["chain"]
    finally:
        torch.set_num_threads(threads)
    return CacheEffect(
        rows,
        cols,
        accounting.traffic,
        accounting.footprint_bytes,
        llc,
        flush_bytes,
        first_s,
        flushed,
        warm,
    )
