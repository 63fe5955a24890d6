"""Statistics of the timer (no wall-clock assertions)."""

from __future__ import annotations

import pytest

from infrabook.bench.measure.timers import time_interleaved
from infrabook.bench.records.timing import Timing


def test_timing_statistics():
    t = Timing.of((4.0, 1.0, 3.0, 2.0, 5.0))
    assert t.median_s == 3.0
    assert t.p20_s == pytest.approx(1.8) and t.p80_s == pytest.approx(4.2)
    assert t.samples_s == (4.0, 1.0, 3.0, 2.0, 5.0) and (t.ms, t.us) == (3e3, 3e6)
    assert Timing.of([1.0, 2.0]).ties(Timing.of([1.0, 2.0]))


def test_interleaving_rotates_and_flushes_before_every_call():
    log = []
    ticks = iter(range(1000))
    out = time_interleaved(
        {"a": lambda: log.append("a"), "b": lambda: log.append("b"), "c": lambda: log.append("c")},
        warmup=0,
        reps=3,
        before=lambda: log.append("f"),
        clock=lambda: next(ticks),
    )
    calls = [x for x in log if x != "f"]
    assert calls == ["a", "b", "c", "b", "c", "a", "c", "a", "b"]
    assert log.count("f") == 9
    assert all(len(t.samples_s) == 3 for t in out.values())


def test_bad_arguments():
    with pytest.raises(ValueError, match="at least one sample"):
        Timing.of(())
    with pytest.raises(ValueError, match="reps >= 1 and warmup >= 0, got reps=0"):
        time_interleaved({"a": lambda: None}, warmup=0, reps=0)
    with pytest.raises(ValueError, match="nothing to time"):
        time_interleaved({}, warmup=0, reps=1)
