"""The pages' glued values (infrabook.prose): computed by the package, the same names in both
editions, every word from labels.py, and the numbers equal to an independent reference.

References: the article's tensor sizes in exact integer arithmetic (bytes of a [rows, cols]
bf16 tensor), Python's own ``fractions`` for the softmax trace, and counting by hand.
"""

from __future__ import annotations

import re
from fractions import Fraction

import matplotlib.pyplot as plt
import pytest

from infrabook import config
from infrabook.labels import text
from infrabook.prose import (
    attention,
    audit,
    bucketing,
    conclusion,
    decision,
    fusion,
    glue_all,
    graph_replay,
    misconceptions,
    persistent,
    self_test,
)

# Every module's argument-free functions that return the glued mapping, by name.
VALUE_FUNCTIONS = {
    "fusion": lambda: fusion.basics() | fusion.intensities() | fusion.bandwidth(),
    "fusion.quant": lambda: fusion.quant_values() | fusion.shared_values() | fusion.exercises(),
    "attention": lambda: attention.sizes() | attention.flash_values() | attention.exercises(),
    "bucketing": lambda: bucketing.values() | bucketing.exercises(),
    "misconceptions": lambda: misconceptions.values() | misconceptions.exercises(),
    "audit": lambda: audit.verdict_table()[1] | audit.bandwidth()[1] | audit.bucketing(),
    "decision": lambda: decision.tie_table()[1],
    "conclusion": conclusion.values,
    "graph_replay": lambda: graph_replay.ffn_kernels() | graph_replay.exercises(),
    "self_test": self_test.values,
}
# ASCII words allowed in the Chinese edition: units, identifiers, dtypes and device names.
_WORD = re.compile(r"[A-Za-z]{3,}")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_glue_all_glues_each_value_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    import myst_nb

    calls = []
    monkeypatch.setattr(myst_nb, "glue", lambda *a, **kw: calls.append((a, kw)))
    glue_all({"a_1": "x", "b": 2})
    assert calls == [(("a_1", "x"), {"display": False}), (("b", 2), {"display": False})]


@pytest.mark.parametrize("name", ["", "a-b", "a b", "ä.b"])
def test_glue_all_refuses_a_name_a_role_cannot_reach(name: str) -> None:
    with pytest.raises(ValueError, match="expected letters, digits and underscores"):
        glue_all({name: "x"})


@pytest.mark.parametrize("subject", sorted(VALUE_FUNCTIONS))
def test_both_editions_glue_the_same_names(subject: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INFRABOOK_LANG", "zh")
    zh = VALUE_FUNCTIONS[subject]()
    monkeypatch.setenv("INFRABOOK_LANG", "en")
    en = VALUE_FUNCTIONS[subject]()
    assert zh.keys() == en.keys()
    assert all(isinstance(v, str) and v for v in zh.values())
    # numbers do not depend on the language: the digits of each value agree
    digits = {k: re.findall(r"\d+(?:\.\d+)?", v) for k, v in zh.items()}
    assert digits == {k: re.findall(r"\d+(?:\.\d+)?", v) for k, v in en.items()}


def test_the_chinese_tables_have_no_english_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INFRABOOK_LANG", "zh")
    tables = [
        fusion.device_table(),
        fusion.quant_plan_table(),
        fusion.shared_table(),
        bucketing.strategy_table(),
        bucketing.useful_table(),
        misconceptions.corrections_table(),
        conclusion.mechanisms_table(),
        persistent.schedule_table(),
        graph_replay.counts_table(),
        *decision.version_tables(),
    ]
    allowed = {"FLOP", "FLOPs", "MiB", "TFLOP", "MFU", "kernel", "launch", "SiLU", "CUDA", "Graph"}
    allowed |= {w for d in config.devices().values() for w in _WORD.findall(d.name)}
    for table in tables:
        for cell in (*table.columns, *(c for row in table.cells() for c in row)):
            assert set(_WORD.findall(cell)) <= allowed, (table.columns, cell)


def test_fusion_traffic_matches_the_tensor_sizes() -> None:
    chain = config.scenarios().ffn_chain
    tensor_mib = Fraction(chain.rows * chain.cols * 2, 2**20)  # one bf16 [rows, cols] tensor
    assert tensor_mib.denominator == 1  # the article's shape is a whole number of MiB
    v = fusion.basics()
    # separate: SiLU reads G, writes T; the multiply reads T and U, writes Z: five tensors.
    # fused: reads G and U, writes Z: three.
    assert v["c2_sep_mib"] == str(5 * tensor_mib)
    assert v["c2_fused_mib"] == str(3 * tensor_mib)
    assert v["c2_saved_mib"] == str(2 * tensor_mib)
    assert v["c2_model_speedup"] == f"{5 / 3:.2f}"


def test_fusion_fit_is_the_two_point_solution() -> None:
    rtx = config.device("rtx_pro_6000")
    v = fusion.fit(3.04, 2 * rtx.dram_tb_s.value)
    assert v == {
        "c2_fit_c": "3.0",
        "c2_fit_bw": f"{2 * rtx.dram_tb_s.value:.0f}",
        "c2_fit_over_dram": "2",
    }


def test_bucketing_lists_calls_with_english_plurals(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INFRABOOK_LANG", "en")
    assert (
        bucketing.call_list(((1000, 1), (300, 20))) == "1 call of 1,000 rows, 20 calls of 300 rows"
    )


@pytest.mark.parametrize("tie", [False, True])
def test_the_cpu_crossing_the_prose_quotes_is_the_one_the_table_shows(
    tie: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from infrabook.bench import report  # torch

    # the record's crossing, then the same crossing with run times within noise
    entry = report.entry("shapes")
    results = entry.results
    runs, _ = results.crossovers()["generic", "bucketed"]
    monkeypatch.setattr(
        type(results), "crossovers", lambda self: {("generic", "bucketed"): (runs, tie)}
    )
    quoted = bucketing.measured_crossing(results)["bk_cpu_gb"]
    pair = f"{text('bench.strategy.generic')} / {text('bench.strategy.bucketed')}"
    in_table = any(row[0] == pair for table in entry.tables for row in table.rows)
    assert in_table == (runs > 0 and not tie)
    assert (f"{runs:.1f}" in quoted) == in_table, quoted


def test_self_test_softmax_is_the_weighted_mean() -> None:
    weights, values = self_test.SOFTMAX_WEIGHTS, self_test.SOFTMAX_VALUES
    mean = Fraction(sum(w * v for w, v in zip(weights, values, strict=True)), sum(weights))
    assert self_test.softmax()["st_sm_result"] == str(mean)


def test_kernel_blocks_count_the_programs_by_ceiling_division() -> None:
    chain = config.scenarios().ffn_chain
    n = chain.rows * chain.cols
    v = fusion.kernel_blocks(1000)
    assert int(v["c2_k_programs"]) * 1000 >= n > (int(v["c2_k_programs"]) - 1) * 1000
    with pytest.raises(ValueError, match="block=0"):
        fusion.kernel_blocks(0)


def test_attention_exercise_trace_matches_fractions() -> None:
    exps, vals = attention.EXERCISE_EXPS, attention.EXERCISE_VALUES
    mean = Fraction(sum(w * v for w, v in zip(exps, vals, strict=True)), sum(exps))
    assert attention.exercises()["ex3_result"] == str(mean)


def test_recompute_says_one_line_when_one_line_differs():
    """Chapter 6's comparison: one differing line is "the only line", not "these lines"."""
    from infrabook.labels import text
    from infrabook.prose.recompute import comparison

    _, one = comparison(["a: 1", "b: 2"], ["a: 1", "b: 2"], ["a: 1", "x: 2"])
    _, two = comparison(["a: 1", "b: 2"], ["a: 1", "b: 2"], ["y: 1", "x: 2"])
    assert one["rc_text_diff"] == text("prose.recompute.line_differs", lines="b")
    assert two["rc_text_diff"] == text(
        "prose.recompute.lines_differ", lines=text("prose.recompute.quote_sep").join("ab")
    )
