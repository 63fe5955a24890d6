"""Wall-clock timing on the CPU: warm-ups, repetitions, median and the p20-p80 spread.

Times are taken with :func:`time.perf_counter` around one call. The statistic is the
median, the spread the 20th and 80th percentiles (the quantiles Triton's ``do_bench``
reports), so one slow repetition caused by another process does not move the result.

Several candidates are timed *interleaved*: each repetition runs every candidate once, in
an order that rotates, so drift in the machine's load (other processes, frequency
changes) falls on all of them alike instead of on whichever ran last.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Timing:
    """The repetitions of one measurement, in seconds.

    >>> t = Timing((0.003, 0.001, 0.002, 0.010, 0.002))
    >>> t.median, t.n
    (0.002, 5)
    >>> round(t.p20, 4), round(t.p80, 4)
    (0.0018, 0.0044)
    """

    samples: tuple[float, ...]

    def __post_init__(self) -> None:
        if not self.samples:
            raise ValueError("a timing needs at least one sample")

    @property
    def n(self) -> int:
        """Number of repetitions."""
        return len(self.samples)

    @property
    def median(self) -> float:
        """Median seconds."""
        return float(np.median(self.samples))

    @property
    def p20(self) -> float:
        """20th percentile (linear interpolation)."""
        return float(np.percentile(self.samples, 20))

    @property
    def p80(self) -> float:
        """80th percentile (linear interpolation)."""
        return float(np.percentile(self.samples, 80))

    @property
    def min(self) -> float:
        """Fastest repetition."""
        return float(min(self.samples))

    def as_dict(self) -> dict[str, Any]:
        """Median, spread and the raw samples, for the record.

        >>> Timing((0.5, 1.0, 1.5)).as_dict()["median_s"]
        1.0
        """
        return {
            "median_s": self.median,
            "p20_s": self.p20,
            "p80_s": self.p80,
            "min_s": self.min,
            "n": self.n,
            "samples_s": [float(f"{s:.6g}") for s in self.samples],
        }


def time_interleaved(
    candidates: Mapping[str, Callable[[], object]],
    *,
    warmup: int,
    reps: int,
    before: Callable[[], object] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, Timing]:
    """Time each candidate ``reps`` times after ``warmup`` untimed calls, interleaved.

    ``before`` (e.g. a cache flush) runs untimed before every timed call.

    >>> calls = []
    >>> ticks = iter(range(100))
    >>> out = time_interleaved({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")},
    ...                        warmup=1, reps=2, clock=lambda: next(ticks))
    >>> calls, out["a"].samples
    (['a', 'b', 'a', 'b', 'b', 'a'], (1, 1))
    """
    if reps < 1 or warmup < 0:
        raise ValueError(f"need reps >= 1 and warmup >= 0, got reps={reps}, warmup={warmup}")
    names = list(candidates)
    if not names:
        raise ValueError("nothing to time")
    for _ in range(warmup):
        for name in names:
            candidates[name]()
    samples: dict[str, list[float]] = {name: [] for name in names}
    for rep in range(reps):
        order = names[rep % len(names) :] + names[: rep % len(names)]
        for name in order:
            if before is not None:
                before()
            start = clock()
            candidates[name]()
            samples[name].append(clock() - start)
    return {name: Timing(tuple(s)) for name, s in samples.items()}


class CacheFlush:
    """Evicts the CPU caches by reading and writing a buffer larger than the last level.

    >>> f = CacheFlush(1 << 20)
    >>> f(); f.nbytes
    1048576
    """

    def __init__(self, nbytes: int) -> None:
        if nbytes < 1:
            raise ValueError(f"nbytes must be positive, got {nbytes}")
        self.nbytes = int(nbytes)
        self._buf = np.ones(self.nbytes // 8, dtype=np.float64)

    def __call__(self) -> None:
        self._buf += 1.0
