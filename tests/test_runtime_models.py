"""Launch counts, bucketing and crossovers against the article and exact arithmetic.

Crossovers are checked against Fraction arithmetic on the same inputs, which is exact and
shares no code with the float implementation.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infrabook.bucketing import (
    Strategy,
    actual_rows,
    article_bucketing,
    bucket_for,
    effective_rate_tflops,
    executed_rows,
    group_time_ms,
    padding_fraction,
    parse_calls,
)
from infrabook.crossover import Line, best_at, crossover, pairwise, parse_strategy, regimes
from infrabook.labels import text
from infrabook.launches import article_launch_counts, launch_counts


def test_article_launches():
    got = [(c.name, c.host_submissions, c.kernels) for c in article_launch_counts()]
    assert got == [("eager", 18, 18), ("graph", 3, 18), ("fused", 15, 15), ("fused+graph", 3, 15)]


@given(st.integers(1, 100), st.integers(1, 50), st.data())
def test_launch_identities(runs, k, data):
    kf = data.draw(st.integers(1, k))
    eager, graph, fused, both = launch_counts(runs, k, kf)
    assert graph.kernels == eager.kernels  # replay never removes a kernel
    assert graph.host_submissions == both.host_submissions == runs
    assert fused.host_submissions == fused.kernels == runs * kf


def test_fusion_never_adds_kernels():
    with pytest.raises(ValueError) as exc:
        launch_counts(3, 6, 7)
    assert str(exc.value) == text("error.launches.fused", fused=7, kernels=6)


def test_article_bucketing_rows_and_times():
    sc = article_bucketing()
    assert actual_rows(sc.calls) == 5632
    assert executed_rows(sc.calls, sc.buckets) == 8192
    assert padding_fraction(sc.calls, sc.buckets) == pytest.approx(8192 / 5632 - 1)
    assert round(padding_fraction(sc.calls, sc.buckets) * 100, 1) == 45.5
    assert [round(c.time_ms, 1) for c in sc.costs("article")] == [17.0, 12.4, 6.8]
    peak = sc.costs("peak")
    assert [round(c.rate_tflops, 2) for c in peak] == [100.76, 201.52, 251.9]
    # independent: rows x 6 x 4096 x 12288 FLOP / rate
    for c in peak:
        expected = Fraction(c.executed_rows * 6 * 4096 * 12288) / Fraction(str(c.rate_tflops))
        assert c.time_ms == pytest.approx(float(expected / 10**9), rel=1e-12)


def test_bucket_rules(monkeypatch):
    monkeypatch.setenv("INFRABOOK_LANG", "en")
    assert bucket_for(512, (512, 2048)) == 512
    assert bucket_for(513, (512, 2048)) == 2048
    with pytest.raises(ValueError, match="2049 rows is larger than the largest bucket"):
        bucket_for(2049, (512, 2048))
    with pytest.raises(ValueError, match="buckets must not be empty"):
        bucket_for(1, ())


@pytest.mark.parametrize(
    ("mfu", "ok"), [(0.0, False), (1.0, True), (1.01, False), (-0.2, False), (0.5, True)]
)
def test_mfu_range(mfu, ok):
    if ok:
        assert effective_rate_tflops(mfu, 500) == pytest.approx(mfu * 500)
    else:
        with pytest.raises(ValueError, match=r"mfu must be a fraction in \(0, 1\]"):
            effective_rate_tflops(mfu, 500)
    with pytest.raises(ValueError, match="mfu"):
        Strategy("x", False, float("nan"), 1.0)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("", "cannot read call ''"),
        ("256x", "cannot read call '256x'"),
        ("0x8", "call '0x8': rows and count must be positive integers"),
        ("256x-1", "call '256x-1': rows and count must be positive integers"),
    ],
)
def test_bad_calls(monkeypatch, raw, message):
    monkeypatch.setenv("INFRABOOK_LANG", "en")
    with pytest.raises(ValueError, match=message):
        parse_calls(raw)


def test_bucketing_errors_in_the_readers_language(monkeypatch):
    monkeypatch.setenv("INFRABOOK_LANG", "zh")
    with pytest.raises(ValueError, match="一次 1536 行的调用超过了最大的桶（512）"):
        bucket_for(1536, (512,))
    with pytest.raises(ValueError, match="无法读取调用 '256x'"):
        parse_calls("256x")


def test_group_time_rejects_bad_rates():
    with pytest.raises(ValueError, match="rate_tflops must be finite"):
        group_time_ms(10, 1.0, float("inf"))
    with pytest.raises(ValueError, match="rate_tflops must be finite and > 0, got 0"):
        group_time_ms(10, 1.0, 0)


ARTICLE_LINES = [
    Line("generic", 100, 17.0),
    Line("bucketed", 400, 12.4),
    Line("specialised", 900, 6.8),
]


def test_article_crossovers():
    got = {(c.a, c.b): c.runs for c in pairwise(ARTICLE_LINES)}
    exact = {
        ("generic", "bucketed"): Fraction(300) / Fraction("4.6"),
        ("generic", "specialised"): Fraction(800) / Fraction("10.2"),
        ("bucketed", "specialised"): Fraction(500) / Fraction("5.6"),
    }
    for key, value in exact.items():
        assert got[key] == pytest.approx(float(value), rel=1e-12)
    assert [round(v) for v in got.values()] == [65, 78, 89]


def test_unrounded_crossovers_round_to_65_78_90():
    costs = article_bucketing().costs("article")
    lines = [Line(c.strategy.name, c.strategy.prep_ms, c.time_ms) for c in costs]
    got = [c.runs for c in pairwise(lines)]
    assert [round(r, 1) for r in got] == [64.7, 78.4, 89.8]


def test_regimes_are_the_lower_envelope():
    regs = regimes(ARTICLE_LINES)
    assert [g.best for g in regs] == ["generic", "bucketed", "specialised"]
    assert regs[0].start == 0 and math.isinf(regs[-1].end)
    for g in regs:
        probe = g.start + 0.5 if math.isinf(g.end) else (g.start + g.end) / 2
        assert best_at(ARTICLE_LINES, probe).name == g.best


# No per-example deadline: on a loaded 2-core CI machine one example can exceed 200 ms.
@settings(deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2000), st.integers(1, 400)), min_size=2, max_size=5))
def test_regimes_agree_with_brute_force(params):
    lines = [Line(f"s{i}", p, t / 10) for i, (p, t) in enumerate(params)]
    regs = regimes(lines)
    for r in range(0, 3000, 7):
        expected = min(line.total_ms(r) for line in lines)
        owner = next(g for g in regs if g.start <= r < g.end or (r == g.start))
        chosen = next(line for line in lines if line.name == owner.best)
        assert chosen.total_ms(r) == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_parallel_lines_have_no_crossover():
    with pytest.raises(ValueError) as exc:
        crossover(Line("a", 1, 5.0), Line("b", 2, 5.0))
    assert str(exc.value) == text("error.strategy.parallel", a="'a'", b="'b'", run=5.0)
    lines = [Line("a", 1, 5.0), Line("b", 2, 5.0), Line("c", 0, 9.0)]
    assert [c.runs for c in pairwise(lines)] == [None, 0.25, 0.5]


def test_regimes_accept_parallel_lines():
    # equal run times never cross: the one cheaper to prepare dominates the other
    lines = [Line("a", 1, 5.0), Line("b", 2, 5.0), Line("c", 0, 9.0)]
    regs = regimes(lines)
    assert [g.best for g in regs] == ["c", "a"]
    assert regs[0].end == pytest.approx(0.25)


@pytest.mark.parametrize(
    ("raw", "key", "fields"),
    [
        ("a:1", "error.strategy.format", {"raw": "'a:1'"}),
        ("a:x:1", "error.strategy.numbers", {"raw": "'a:x:1'"}),
        ("a:1:0", "error.strategy.run", {"name": "'a'", "value": "0"}),
        ("a:1:-inf", "error.strategy.run", {"name": "'a'", "value": "-inf"}),
        ("a:nan:1", "error.strategy.prep", {"name": "'a'", "value": "nan"}),
        ("a:-1:1", "error.strategy.prep", {"name": "'a'", "value": "-1"}),
        (":1:1", "error.strategy.name", {}),
    ],
)
def test_bad_strategies(raw, key, fields):
    with pytest.raises(ValueError) as exc:
        parse_strategy(raw)
    assert str(exc.value) == text(key, **fields)


def test_need_two_distinct_strategies():
    with pytest.raises(ValueError) as exc:
        regimes([Line("a", 1, 1)])
    assert str(exc.value) == text("error.strategy.too_few", count=1)
    with pytest.raises(ValueError) as exc:
        pairwise([Line("b", 1, 1), Line("a", 1, 1), Line("b", 2, 2)])
    assert str(exc.value) == text("error.strategy.duplicate", name="'b'")
