"""The rates a timing turns into, against exact arithmetic; the cache experiment's byte
counts against the chain counted by hand (no assertion about times: they vary)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from infrabook import measuring
from infrabook.bench.measure import caches


@pytest.mark.parametrize("nbytes, seconds", [(72 * 2**20, 7.7e-6), (1, 1e-9), (10**12, 2.5)])
def test_gb_s_is_bytes_over_seconds(nbytes, seconds):
    exact = Fraction(nbytes) / Fraction(seconds) / 10**9
    assert measuring.gb_s(nbytes, seconds) == pytest.approx(float(exact), rel=1e-15)


def test_utilisation_mfu_and_hfu_of_a_padded_batch():
    # 300 useful rows padded to 512: the hardware runs 512 rows' FLOP, the model needs 300.
    d, f, t, peak = 4096, 11008, 1e-3, 989.4
    model, executed = 2 * 300 * d * f, 2 * 512 * d * f
    mfu = measuring.utilisation(model, t, peak)
    hfu = measuring.utilisation(executed, t, peak)
    assert mfu == pytest.approx(float(Fraction(model) / Fraction(t) / Fraction(peak) / 10**12))
    assert mfu / hfu == pytest.approx(300 / 512, rel=1e-15)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan")])
def test_rates_refuse_non_positive_times_and_peaks(bad):
    with pytest.raises(ValueError, match="seconds"):
        measuring.gb_s(1.0, bad)
    with pytest.raises(ValueError, match="peak_tflops"):
        measuring.utilisation(1.0, 1.0, bad)


def test_cache_effect_counts_the_unfused_chains_bytes():
    rows, cols = 8, 48
    e = caches.cache_effect(rows, cols, reps=2, warmup=0)
    tensor = rows * cols * 4  # fp32
    # read G, write T; read T, read U, write Z
    assert e.traffic == 5 * tensor
    assert e.working_set == 4 * tensor  # G, U, T, Z
    assert e.flush_bytes >= 64 * 2**20
    assert len(e.flushed.samples_s) == len(e.warm.samples_s) == 2


def test_cache_effect_refuses_zero_reps():
    with pytest.raises(ValueError, match="reps"):
        caches.cache_effect(8, 8, reps=0)
