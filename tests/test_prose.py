"""The pages' glued values (infrabook.prose): computed by the package, the same names in both
editions, every word from infrabook.labels, and the numbers equal to an independent reference.

References: the article's tensor sizes in exact integer arithmetic (bytes of a [rows, cols]
bf16 tensor), Python's own ``fractions`` for the softmax trace, and counting by hand.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

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
    ladder,
    measurements,
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
    "graph_replay.gpu": graph_replay.measured,
    "persistent.gpu": persistent.measured,
    "fusion.gpu": fusion.gpu_check,
    "attention.gpu": attention.gpu_values,
    "ladder.gpu": ladder.speeds,
    "audit.gpu": audit.gpu_values,
    "measurements.gpu": measurements.gpu_verdicts,
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
    from infrabook.bench.records import report  # torch

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


# The GPU chapters' claims, against the reference GPU record read as plain JSON.
def _gpu_record() -> dict:
    ref = next(r for r in config.bench_references().values() if r.kind == "gpu").record
    path = Path(__file__).parent.parent / "docs" / "_data" / "bench" / f"{ref}.json"
    return json.loads(path.read_text(encoding="utf-8"))["experiments"]


def test_persistent_prose_matches_the_record() -> None:
    variants = _gpu_record()["gpu_persistent"]["results"]["variants"]
    t = {n: v["timing"]["median_s"] for n, v in variants.items()}
    v = persistent.measured()
    # the page says one program per SM is slower, and by how much
    assert t["persistent_1x_sm"] > t["persistent_4x_sm"] > t["per_tile"]
    assert v["pkm_slow_1x"] == f"{t['persistent_1x_sm'] / t['per_tile']:.1f}"
    # Little's law by hand: needed bytes = copy bandwidth x (time per tile of one program)
    one = variants["persistent_1x_sm"]
    latency = t["persistent_1x_sm"] * one["programs"] / one["tiles"]
    copy = _gpu_record()["gpu_swiglu"]["results"]["shapes"][0]["paths"]["copy"]
    needed = copy["model_bytes"] / copy["flushed"]["median_s"] * latency
    assert v["pkm_needed_mib"] == f"{needed / 2**20:.1f}"
    assert v["pkm_tile_kib"] == "6"  # G and U read, Z written: 3 x 1024 bf16 elements


def test_graph_replay_prose_matches_the_record() -> None:
    configs = _gpu_record()["gpu_graphs"]["results"]["configs"]
    v = graph_replay.measured()
    eager, graph, fused = configs["eager"], configs["graph"], configs["fused"]
    assert (v["gm_eager_kernels"], v["gm_graph_host"]) == (str(eager["kernels"]), "3")
    # the page says the fused path's host time is longer than eager's
    assert fused["issue"]["median_s"] > eager["issue"]["median_s"]
    split = sum(n for k, n in eager["kernel_names"].items() if "splitKreduce" in k)
    assert v["gm_splitk_kernels"] == str(split) == str(eager["kernels"] - 18)
    ratio = eager["total"]["median_s"] / graph["total"]["median_s"]
    assert v["gm_speedup"] == f"{ratio:.1f}"
    launch_us = eager["issue"]["median_s"] / eager["host_launches"] * 1e6
    assert v["gm_launch_us"] == f"{launch_us:.1f}" == f"{graph_replay.launch_costs()[0]:.1f}"


def test_fusion_gpu_check_fit_is_negative_and_below_the_byte_model() -> None:
    row = _gpu_record()["gpu_swiglu"]["results"]["shapes"][0]
    t = {p: row["paths"][p]["flushed"]["median_s"] * 1e6 for p in ("torch_eager", "triton_fused")}
    v = fusion.gpu_check()
    # t = n c + D/B with (n, D) = (2, 120 MiB) and (1, 72 MiB), eliminated by hand
    per_mib = (t["torch_eager"] - 2 * t["triton_fused"]) / (120 - 2 * 72)
    c = t["triton_fused"] - 72 * per_mib
    assert c < 0 and v["c2g_fit_c"] == f"{c:.1f}".replace("-", "−")
    assert t["torch_eager"] / t["triton_fused"] < 120 / 72


def test_attention_gpu_prose_matches_the_record() -> None:
    rows = _gpu_record()["gpu_flash"]["results"]["per_seq_len"]
    v = attention.gpu_values()
    assert {r["sdpa_backend"] for r in rows} == {v["c3g_backend"]}  # "every length"
    best = max(r["flop"] / r["sdpa"]["median_s"] / 1e12 for r in rows)
    bound = float(v["c3g_intensity"]) * float(v["c3g_dram"])
    assert best > float(v["c3g_bound"]) and abs(float(v["c3g_bound"]) - bound) < 1
    at = next(r for r in rows if r["seq_len"] == 8192)
    assert at["sdpa"]["median_s"] / at["flash"]["median_s"] < 0.9  # the target is missed


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


def test_the_ladder_page_shows_every_rung_in_order() -> None:
    from infrabook.kernels.attention_ladder import RUNGS

    page = (Path(__file__).parents[1] / "docs/chapters/03-flashattention.md").read_text()
    headed = [(int(n), name) for n, name in re.findall(r"\*\*第 (\d+) 阶 `(\w+)`", page)]
    shown = [int(n) for n in re.findall(r"ladder\.source_markdown\((\d+)\)", page)]
    assert headed == [(r.number, r.name) for r in RUNGS]
    assert shown == [r.number for r in RUNGS]


def test_ladder_prose_matches_the_record() -> None:
    at = next(
        r for r in _gpu_record()["gpu_flash"]["results"]["per_seq_len"] if r["seq_len"] == 8192
    )
    v = ladder.speeds()
    assert v["c3l_rung0_tflops"] == f"{at['flop'] / at['flash']['median_s'] / 1e12:.0f}"
    assert v["c3l_sdpa_tflops"] == f"{at['flop'] / at['sdpa']['median_s'] / 1e12:.0f}"
    assert v["c3l_sdpa_backend"] == at["sdpa_backend"]
    # only rung 0 is measured: the other rungs are words on the figure, never bars
    fig = ladder.figures()["fig_ladder"]
    bars = [p for p in fig.axes[0].patches if p.get_height() > 0]
    assert len(bars) == int(v["c3l_measured"]) == 1
    words = [t.get_text() for t in fig.axes[0].texts]
    assert words.count(text("prose.ladder.not_measured")) == int(v["c3l_rungs"]) - 1


def test_ladder_source_is_the_kernels_own() -> None:
    from infrabook.kernels import _attention, attention_ladder

    kernel = "".join(Path(m.__file__).read_text() for m in (_attention, attention_ladder))
    for rung in range(1, 5):
        code = [line.strip() for line in ladder.rung_source(rung).splitlines()]
        assert code, rung
        assert all(line in kernel for line in code if line and not line.startswith("# ")), rung
