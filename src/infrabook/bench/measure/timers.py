"""Wall-clock timers on the CPU: warm-ups, repetitions, and a cache flush between them.

Candidates are timed *interleaved*: each repetition runs every candidate once, in an order
that rotates, so drift in the machine's load falls on all of them alike.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from functools import partial

import numpy as np

from infrabook.bench.records.timing import Timing
from infrabook.checks import check_positive_int


def time_interleaved(
    candidates: Mapping[str, Callable[[], object]],
    *,
    warmup: int,
    reps: int,
    before: Callable[[], object] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, Timing]:
    """Time each candidate ``reps`` times after ``warmup`` untimed calls, interleaved;
    ``before`` (a cache flush, say) runs untimed before every timed call.

    >>> calls = []
    >>> ticks = iter(range(100))
    >>> out = time_interleaved({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")},
    ...                        warmup=1, reps=2, clock=lambda: next(ticks))
    >>> calls, out["a"].samples_s
    (['a', 'b', 'a', 'b', 'b', 'a'], (1.0, 1.0))
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
    return {name: Timing.of(s) for name, s in samples.items()}


def cache_flush(nbytes: int) -> Callable[[], object]:
    """A call that evicts the CPU caches by reading and writing ``nbytes`` (give more than
    the last level holds).

    >>> cache_flush(1 << 20)().nbytes
    1048576
    """
    buf = np.ones(check_positive_int("nbytes", nbytes) // 8)
    return partial(np.add, buf, 1.0, out=buf)
