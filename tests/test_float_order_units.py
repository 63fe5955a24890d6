"""Order-dependent sums against exact rational sums, and the shared input checks."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from infrabook.checks import check_finite, check_positive_int
from infrabook.float_order import compare_orders, exact_sum, sequential_sum


def test_reordering_changes_an_fp32_sum():
    c = compare_orders([1e8, 1.0, -1e8, 1.0])
    assert c.exact == 2 and c.distinct_results > 1
    assert c.orders["forward"] == 1.0 and c.orders["backward"] == 0.0


@given(st.lists(st.integers(-(2**20), 2**20), min_size=1, max_size=50))
def test_small_integers_sum_exactly_in_any_order(xs):
    # integers below 2**24 in magnitude, with partial sums below 2**26: fp32 represents
    # every intermediate exactly, so no order can differ from the exact sum
    c = compare_orders(xs)
    assert set(c.orders.values()) == {float(sum(xs))}
    assert c.exact == Fraction(sum(xs))


def test_fp64_sequential_matches_python_float_sum():
    xs = list(np.random.default_rng(0).normal(size=100))
    total = 0.0
    for x in xs:
        total += x
    assert sequential_sum(xs, "fp64") == total
    assert exact_sum(xs) == sum(Fraction(x) for x in xs)


@pytest.mark.parametrize(
    ("values", "dtype", "message"),
    [
        ([], "fp32", "must not be empty"),
        ([1.0], "int4", "unknown dtype 'int4'"),
        ([1.0, float("nan")], "fp32", "values must be finite"),
        ([float("inf")], "fp16", "values must be finite"),
    ],
)
def test_bad_sums(values, dtype, message):
    with pytest.raises(ValueError, match=message):
        compare_orders(values, dtype)


def test_numpy_integers_and_reals_are_accepted():
    assert check_positive_int("rows", np.int64(4)) == 4
    assert check_finite("peak", np.float32(2.5), positive=True) == 2.5
    with pytest.raises(ValueError, match=r"must be a positive integer, got 2\.0"):
        check_positive_int("rows", 2.0)
    with pytest.raises(ValueError, match="must be a positive integer, got True"):
        check_positive_int("rows", True)


@given(
    st.lists(st.floats(-7e4, 7e4, allow_nan=False, allow_infinity=False), min_size=1, max_size=30),
    st.sampled_from(["fp16", "fp32", "fp64"]),
)
def test_pure_python_rounding_matches_numpy(values, dtype):
    """The module rounds with ``struct``; numpy's float types are the independent reference.

    Each addition is done in float64 and then rounded, where numpy adds in the narrow type
    directly: the two agree exactly because float64 carries more than 2p + 2 bits of a p-bit
    format (double rounding is then harmless for +), so the comparison is exact, and it covers
    fp16's overflow to inf past 65504.
    """
    t = {"fp16": np.float16, "fp32": np.float32, "fp64": np.float64}[dtype]
    acc = t(0)
    with np.errstate(over="ignore", invalid="ignore"):
        for v in values:
            acc = t(acc + t(v))
    got = sequential_sum(values, dtype)
    assert (got == float(acc)) or (math.isnan(got) and math.isnan(float(acc)))
