"""The CPU experiments at tiny sizes: structure and the counted/computed facts (no times)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infrabook.bench.experiments import attention, fusion, launches, shapes
from infrabook.bench.experiments.attention import peak_bytes
from infrabook.bench.experiments.launches import FFN, count_runs
from infrabook.bench.measure import host
from infrabook.bench.records import report
from infrabook.bench.records.timing import Timing
from infrabook.labels import text
from infrabook.reference_attention import blockwise_attention, naive_attention

# One eager FFN run: G = X Wg, U = X Wu, T = silu(G), Z = T * U, Y = Z Wd, X + Y.
_MM = "aten.mm.default"
EAGER_OPS = (_MM, _MM, "aten.silu.default", "aten.mul.Tensor", _MM, "aten.add.Tensor")


@settings(max_examples=25, deadline=None)
@given(
    n_q=st.integers(1, 40),
    n_kv=st.integers(1, 40),
    d=st.integers(1, 16),
    block_q=st.integers(1, 17),
    block_k=st.integers(1, 17),
    seed=st.integers(0, 2**16),
    shift=st.sampled_from([0.0, 30.0]),
)
def test_blockwise_equals_naive(n_q, n_kv, d, block_q, block_k, seed, shift):
    # float64, so that rounding (the two orders sum differently) stays far below the
    # tolerance even for large, nearly tied scores; fp32 is checked at a fixed size below.
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n_q, d)) * 3 + shift
    k = rng.standard_normal((n_kv, d))
    v = rng.standard_normal((n_kv, d))
    np.testing.assert_allclose(
        blockwise_attention(q, k, v, block_q, block_k),
        naive_attention(q, k, v),
        rtol=1e-9,
        atol=1e-12,
    )


def test_blockwise_equals_naive_fp32():
    q, k, v = np.random.default_rng(1).standard_normal((3, 300, 64), dtype=np.float32)
    out = blockwise_attention(q, k, v, 128, 64)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, naive_attention(q, k, v), rtol=1e-4, atol=1e-5)


def test_naive_peak_is_s_plus_p_plus_o_and_blockwise_is_far_smaller():
    n, d = 512, 64
    q, k, v = np.random.default_rng(0).standard_normal((3, n, d), dtype=np.float32)
    _, naive = peak_bytes(naive_attention, q, k, v)
    _, block = peak_bytes(blockwise_attention, q, k, v, 64, 64)
    model = 2 * n * n * 4 + n * d * 4
    assert model <= naive <= 1.02 * model
    assert block < 0.2 * naive


def test_blockwise_rejects_bad_blocks():
    q = np.ones((2, 2), dtype=np.float32)
    with pytest.raises(ValueError, match="block_k must be a positive integer, got 0"):
        blockwise_attention(q, q, q, 2, 0)


def test_dispatch_counter_counts_18_eager_and_15_fused():
    ffn = FFN(2, 8, 16)
    eager = count_runs(ffn, 3, fused=False)
    fused = count_runs(ffn, 3, fused=True)
    assert len(eager.ops) == 18 and len(fused.ops) == 15
    assert tuple(eager.ops[:6]) == EAGER_OPS
    assert fused.ops[2] == "infrabook_bench.swiglu.default"
    assert "aten.silu.default" not in fused.ops


def test_launches_entry_takes_its_numbers_from_the_counter():
    e = launches.launches(rows=2, d_model=8, d_ff=16)
    assert (e.results.eager.dispatches, e.results.fused.dispatches) == (18, 15)
    assert e.params == {"runs": 3, "rows": 2, "d_model": 8, "d_ff": 16} | {
        "fused_op": "infrabook_bench::swiglu (torch.library.custom_op)"
    }  # the call's arguments, the default runs resolved, and what the experiment adds
    assert e.results.eager.ops_first_run == EAGER_OPS
    assert e.tables[0].rows[0][2] == 18


def test_fusion_live_structure():
    e = fusion.fusion(rows=16, cols=256, reps=2, warmup=1, compiled=False, flush=False)
    assert e.status == "ok" and e.provenance.quick
    paths = e.results.paths
    assert paths["eager"].allclose is True and paths["copy"].allclose is None
    assert paths["compile"].timing is None and paths["compile"].reason.startswith("skipped")
    assert (paths["numexpr"].timing is None) == (paths["numexpr"].reason is not None)
    assert e.tables[0].rows[1][1].endswith(f"({paths['compile'].reason})")
    assert e.results.model_speedup == pytest.approx(5 / 3)
    assert paths["eager"].model_bytes == 16 * 256 * 4 * 5
    assert e.params["compiled"] is False and e.params["reps"] == 2  # arguments are parameters
    assert {t.id for t in e.targets} == {"cpu_fused_speedup", "cpu_fused_bandwidth"}


def test_attention_memory_live_structure():
    e = attention.attention_memory(seq_lens=(64, 128), head_dim=16, block_q=32, block_k=16)
    assert all(r.allclose for r in e.results.per_seq_len)
    assert e.targets[0].met is None  # L=8192 not measured
    assert e.results.per_seq_len[1].predicted_naive_bytes == 2 * 128 * 128 * 4 + 128 * 16 * 4


def test_shapes_live_structure_without_prep():
    e = shapes.shapes(rows=(4, 8), k=16, n=16, reps=1, warmup=0, scale=64, prep="none")
    generic, bucketed = e.tables[1].rows  # strategy, rows executed, padding %, ...
    assert generic[1:3] == (88, 0.0)  # 8 x 4 + 24 + 32
    assert bucketed[1] == 128  # 8 x 8 + 32 + 32
    assert bucketed[2] == pytest.approx(100 * (128 / 88 - 1))
    assert e.results.crossovers() == {} and len(e.tables) == 2


def test_methods_are_described_from_params_in_either_language(monkeypatch):
    def no_compiler(*args):
        raise RuntimeError("no C++ compiler\nmore detail")

    monkeypatch.setattr(shapes, "_compile_prep", no_compiler)
    shaped = shapes.shapes(rows=(4, 8), k=16, n=16, reps=1, warmup=0, scale=64, prep="compile")
    assert shaped.params["compile_error"] == "RuntimeError: no C++ compiler"
    fused = fusion.fusion(rows=16, cols=256, reps=2, warmup=1, compiled=False, flush=True)
    assert fused.params["flush_mib"] >= 64
    for lang in ("zh", "en"):
        monkeypatch.setenv("INFRABOOK_LANG", lang)
        said = shaped.results.method(shaped.params)
        assert text("bench.method.interleaved", reps=1, warmup=0) in said
        assert text("bench.method.prep_failed", error="RuntimeError: no C++ compiler") in said
        flush = text("bench.method.flush", mib=fused.params["flush_mib"])
        assert flush in fused.results.method(fused.params)
    assert "median of 1 timed reps" in said and "中位数" not in said  # English, the last one
    none = shapes.shapes(rows=(4,), k=16, n=16, reps=1, warmup=0, scale=64, prep="none")
    assert text("bench.method.prep_none") in none.results.method(none.params)


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: launches.launches(runs=0), "runs must be a positive integer, got 0"),
        (
            lambda: attention.attention_memory(seq_lens=(8,), block_q=0),
            "block_q must be a positive integer, got 0",
        ),
        (
            lambda: attention.attention_memory(seq_lens=(8,), block_k=-1),
            "block_k must be a positive integer, got -1",
        ),
        (lambda: fusion.fusion(rows=0), "rows must be a positive integer, got 0"),
        (lambda: shapes.shapes(scale=0, prep="none"), "scale must be a positive integer, got 0"),
        (lambda: shapes.shapes(rows=(4, 0)), "rows must be a positive integer, got 0"),
        (lambda: shapes.shapes(rows=()), "rows must name at least one size"),
        (lambda: attention.attention_memory(seq_lens=()), "seq_lens must name at least one size"),
        (lambda: shapes.shapes(prep="jit"), "prep must be 'none' or 'compile', got 'jit'"),
    ],
)
def test_bad_sizes_are_refused_not_replaced_by_defaults(call, needle):
    with pytest.raises(ValueError, match=needle):
        call()


@pytest.mark.parametrize(
    ("flags", "per_cycle"),
    [(["avx", "avx2", "avx512f", "fma"], 64), (["avx", "avx2", "fma"], 32), (["avx"], 16)],
)
def test_peak_estimate_counts_the_widest_vector_unit(monkeypatch, flags, per_cycle):
    cpu = dataclasses.replace(host.cpu_info(), vector=tuple(flags), mhz=2000.0, usable_cores=3)
    monkeypatch.setattr(host, "cpu_info", lambda: cpu)
    params = {"peak_basis": shapes._peak_basis()}
    assert shapes.ShapesResults.est_peak_gflop_s(params) == pytest.approx(3 * 2.0 * per_cycle)
    assert params["peak_basis"]["per_cycle"] == per_cycle


def test_peak_estimate_is_unknown_without_vector_flags(monkeypatch):
    cpu = dataclasses.replace(host.cpu_info(), vector=("neon",), mhz=2000.0, usable_cores=3)
    monkeypatch.setattr(host, "cpu_info", lambda: cpu)
    assert shapes._peak_basis() is None
    assert shapes.ShapesResults.est_peak_gflop_s({"peak_basis": None}) is None


#: CPU results keep their repetitions (``time_interleaved``), so these are built from samples.
_FAST, _SLOW = Timing.of((0.012, 0.0124, 0.013)), Timing.of((0.0165, 0.017, 0.0175))


def test_crossovers_from_measured_lines():
    prep = shapes.Prep(0.0, (100.0,), {"8": 400.0}, {})
    fast, slow = _FAST, _SLOW
    results = shapes.ShapesResults({}, {"generic": slow, "bucketed": fast}, prep)
    (((a, b), (runs, tie)),) = results.crossovers().items()
    assert (a, b, round(runs), tie) == ("generic", "bucketed", 65, False)
    assert results._meaning(a, b, runs) == text(
        "bench.shapes.below",
        cheap=text("bench.strategy.generic"),
        runs="65.2",
        fast=text("bench.strategy.bucketed"),
    )
    results = shapes.ShapesResults({}, {"generic": fast, "bucketed": slow}, prep)
    (((a, b), (runs, tie)),) = results.crossovers().items()
    assert round(runs, 1) == -65.2 and not results.shown_crossing(runs, tie)
    # repetition i of each ran back to back: the ratios 0.94, 1.06, 1.05 straddle 1
    paired = {
        "generic": Timing.of((0.015, 0.017, 0.021)),
        "bucketed": Timing.of((0.016, 0.016, 0.02)),
    }
    results = shapes.ShapesResults({}, paired, prep)
    assert results.crossovers()["generic", "bucketed"][1] is True
    same = shapes.ShapesResults({}, {"generic": fast, "bucketed": fast}, prep)
    assert same.crossovers()["generic", "bucketed"][0] is None


def _crossing_rows(results, params):
    tables = results.tables(params, {})
    cross = [t for t in tables if t.columns[1] == text("bench.col.runs_star")]
    return cross[0].rows if cross else ()


@pytest.mark.parametrize(
    ("generic", "bucketed", "shown"),
    [
        (_SLOW, _FAST, True),  # n* = 65.2
        (_FAST, _SLOW, False),  # n* = -65.2
        (Timing.of((0.015, 0.017, 0.021)), Timing.of((0.016, 0.016, 0.02)), False),  # noise
        (_SLOW, _SLOW, False),  # parallel
    ],
    ids=["positive", "negative", "noise", "parallel"],
)
def test_the_crossover_table_lists_only_positive_crossings_beyond_noise(generic, bucketed, shown):
    """#26: the committed record's -1,121-group crossing was a row of this table."""
    prep = shapes.Prep(0.0, (100.0,), {"8": 400.0}, {})
    results = shapes.ShapesResults({"8": generic}, {"generic": generic, "bucketed": bucketed}, prep)
    params = {"calls": ((8, 1),), "buckets": (8,), "k": 4, "n": 4, "peak_basis": None}
    rows = _crossing_rows(results, params)
    assert [round(r[1], 1) for r in rows] == ([65.2] if shown else [])
    if shown:
        cross = next(t for t in results.tables(params, {}) if t.rows == rows)
        assert cross.title.endswith(text("bench.shapes.cross_note"))


def test_the_committed_record_shows_no_negative_crossing():
    book = Path(__file__).parents[2] / "docs" / "_data" / "bench"
    committed = report.load(report.reference("cpu", folder=book), folder=book)
    shapes = committed.experiments["shapes"]
    assert any(runs < 0 for runs, _ in shapes.results.crossovers().values())
    rows = _crossing_rows(shapes.results, shapes.params)
    assert all(r[1] > 0 for r in rows)
