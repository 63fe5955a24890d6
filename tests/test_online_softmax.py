"""Online softmax: the article's example exactly, equality with one pass for any blocking,
and stability for large scores.

Reference: a one-pass softmax in float64 numpy with the global maximum subtracted, or exact
rational arithmetic. Tolerance for float blockings: relative 1e-12, because every blocking
computes the same sums in float64 with a handful of extra roundings (r multiplications).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from infrabook import config
from infrabook.online_softmax import (
    Ln,
    block_state,
    merge,
    one_pass,
    online_softmax,
    trace,
    without_running_max,
)


def test_article_example_exactly():
    s = config.scenarios().online_softmax
    steps = trace([Ln(w) for w in s.score_exps], [Fraction(v) for v in s.values], 1)
    first, second = steps
    assert (first.state.m, first.state.l, first.state.u) == (Ln(1), 1, 1)
    assert second.state.m == Ln(2)
    assert second.r == Fraction(1, 2)
    assert second.state.l == Fraction(3, 2)
    assert second.state.u == Fraction(7, 2)
    assert second.state.result == Fraction(7, 3)
    # the article's one-pass check: (1 + 2*3) / (1 + 2)
    assert Fraction(1 + 2 * 3, 1 + 2) == one_pass([Ln(1), Ln(2)], [1, 3])


def test_article_example_in_floats():
    assert float(online_softmax([0.0, math.log(2)], [1.0, 3.0])) == pytest.approx(7 / 3)


def _reference(scores, values):
    s = np.asarray(scores, dtype=np.float64)
    w = np.exp(s - s.max())
    return np.tensordot(w, np.asarray(values, dtype=np.float64), axes=1) / w.sum()


@given(
    scores=st.lists(st.floats(-1e4, 1e4), min_size=1, max_size=40),
    block=st.integers(1, 45),
    width=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
)
def test_any_blocking_equals_one_pass(scores, block, width, seed):
    values = np.random.default_rng(seed).normal(size=(len(scores), width))
    got = online_softmax(scores, values, block)
    np.testing.assert_allclose(got, _reference(scores, values), rtol=1e-12, atol=1e-12)


@given(
    ws=st.lists(st.fractions(min_value=Fraction(1, 50), max_value=50), min_size=1, max_size=12),
    vs=st.data(),
    block=st.integers(1, 12),
)
def test_exact_blockings_are_identical(ws, vs, block):
    values = vs.draw(st.lists(st.fractions(-10, 10), min_size=len(ws), max_size=len(ws)))
    scores = [Ln(w) for w in ws]
    expected = sum(w * v for w, v in zip(ws, values, strict=True)) / sum(ws)
    assert online_softmax(scores, values, block) == expected


def test_merge_is_order_free_exactly():
    a = block_state([Ln(3), Ln(Fraction(1, 2))], [Fraction(2), Fraction(-1)])
    b = block_state([Ln(5)], [Fraction(7)])
    assert merge(a, b)[0].result == merge(b, a)[0].result


def test_large_scores_are_stable():
    scores = [1e4, -1e4, 1e4 - 1, 9e3]
    values = [1.0, 100.0, 2.0, 3.0]
    got = float(online_softmax(scores, values, block=1))
    assert math.isfinite(got)
    assert got == pytest.approx(float(_reference(scores, values)), rel=1e-12)
    assert math.isnan(without_running_max(scores, values))


@pytest.mark.parametrize(
    ("scores", "values", "block", "message"),
    [
        ([], [], 1, "must not be empty"),
        ([0.0, 1.0], [1.0], 1, "same length, got 2 and 1"),
        ([0.0, float("nan")], [1.0, 2.0], 1, "scores must be finite"),
        ([0.0, float("inf")], [1.0, 2.0], 1, "scores must be finite"),
        ([0.0, 1.0], [1.0, float("nan")], 1, "values must be finite"),
        ([0.0, 1.0], [1.0, 2.0], 0, "block must be a positive integer, got 0"),
        ([Ln(1), 1.0], [1.0, 2.0], 1, "not a mix"),
    ],
)
def test_bad_input(scores, values, block, message):
    with pytest.raises(ValueError, match=message):
        trace(scores, values, block)


def test_ln_needs_a_positive_rational():
    with pytest.raises(ValueError, match="positive rational, got 0"):
        Ln(0)
