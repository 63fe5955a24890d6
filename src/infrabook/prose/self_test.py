"""Chapter 9 (self-test): the answers its questions glue, each computed by the calculators
(:mod:`infrabook.dataflow`, :mod:`infrabook.attention_sizes`, :mod:`infrabook.bucketing`,
:mod:`infrabook.launches`, :mod:`infrabook.crossover`, :mod:`infrabook.online_softmax`).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from infrabook import config
from infrabook.attention_sizes import article_attention
from infrabook.bucketing import article_bucketing, cost_lines
from infrabook.crossover import crossover
from infrabook.dataflow import Accounting, account, fully_fused, unfused
from infrabook.ffn_chain import article_chain
from infrabook.labels import text
from infrabook.launches import launch_counts
from infrabook.online_softmax import Ln, trace
from infrabook.prose import claims_stated
from infrabook.units import GiB, mib

# The graph-replay question's number of runs; the softmax question's weights (e^score) and
# values.
MORE_RUNS = 100
SOFTMAX_WEIGHTS = (1, 4, 2)
SOFTMAX_VALUES = (2, 1, 5)


def live_sets(acc: Accounting) -> str:
    """The tensors alive while each kernel of ``acc`` runs, and their size.

    >>> g = article_chain()
    >>> live_sets(account(g, fully_fused(g)))
    'silu+mul：(G、U、Z) = 72 MiB'
    """
    sep = text("prose.list_sep")
    return text("word.list_sep").join(
        text("word.named", name=k.name, value=f"({sep.join(k.live)}) = {mib(k.live_bytes):g} MiB")
        for k in acc.kernels
    )


def fusion() -> dict[str, str]:
    """The fusion questions: traffic, the article's measured speedup, peak memory.

    >>> v = fusion()
    >>> v["st_sep"], v["st_fus"], v["st_speedup"]
    ('120', '72', '1.67')
    """
    stated = claims_stated()
    g = article_chain()
    sep, fus = account(g, unfused(g)), account(g, fully_fused(g))
    before = float(stated["fusion.measured_separate_us"])
    after = float(stated["fusion.measured_fused_us"])
    g3 = article_chain(with_quant=True)
    sep3, fus3 = account(g3, unfused(g3)), account(g3, fully_fused(g3))
    return {
        "st_sep": f"{mib(sep.traffic):g}",
        "st_fus": f"{mib(fus.traffic):g}",
        "st_speedup": f"{sep.traffic / fus.traffic:.2f}",
        "st_us_before": stated["fusion.measured_separate_us"],
        "st_us_after": stated["fusion.measured_fused_us"],
        "st_measured": f"{before / after:.2f}",
        "st_measured_stated": stated["fusion.measured_speedup"],
        "st_peak_sep": f"{mib(sep3.peak_live_bytes):g}",
        "st_peak_fus": f"{mib(fus3.peak_live_bytes):g}",
        "st_traffic_saved": f"{mib(sep3.traffic - fus3.traffic):g}",
        "st_peak_saved": f"{mib(sep3.peak_live_bytes - fus3.peak_live_bytes):g}",
        "st_traffic_sep3": f"{mib(sep3.traffic):g}",
        "st_traffic_fus3": f"{mib(fus3.traffic):g}",
        "st_live_sep": live_sets(sep3),
        "st_live_fus": live_sets(fus3),
    }


def attention() -> dict[str, str]:
    """The attention question: sizes of S and P and the standard path's extra traffic.

    >>> attention()["st_L"]
    '8192'
    """
    a = article_attention()
    return {
        "st_L": str(a.seq_len),
        "st_d": str(a.head_dim),
        "st_dtype": a.dtype.upper(),
        "st_score_dtype": a.score_dtype.upper(),
        "st_sp_mib": f"{mib(a.score_bytes):g}",
        "st_inter_gib": f"{a.intermediate_traffic / GiB:g}",
        "st_io_mib": f"{mib(a.io_traffic):g}",
    }


def runtime() -> dict[str, str]:
    """The runtime questions: bucketing's padding and utilisation, graph replay over more
    runs, a cheaper bucketed preparation's crossover.

    >>> v = runtime()
    >>> v["st_gr_runs"], v["st_gr_graph_host"], int(v["st_gr_eager_host"]) // 100
    ('100', '100', 6)
    """
    sc = article_bucketing()
    peak = sc.implied_peak_tflops("article")
    generic, bucketed, _ = sc.costs("article")
    gr = config.scenarios().graph_replay
    counts = {
        c.name: c for c in launch_counts(MORE_RUNS, gr.kernels_per_run, gr.fused_kernels_per_run)
    }
    g_line, b_line, _ = cost_lines(sc.costs("article"))
    cheaper = replace(b_line, prep_ms=b_line.prep_ms / 2)
    out = {
        "st_exec": f"{bucketed.executed_rows:,}",
        "st_actual": f"{bucketed.actual_rows:,}",
        "st_pad": f"{bucketed.padding_fraction:.1%}",
        "st_mfu_g": f"{generic.executed_utilisation(peak):.0%}",
        "st_mfu_b": f"{bucketed.executed_utilisation(peak):.0%}",
        "st_useful_b": f"{100 * bucketed.useful_mfu(peak):.3g}%",
        "st_mfu_ratio": f"{bucketed.strategy.mfu / generic.strategy.mfu:g}",
        "st_useful_ratio": f"{bucketed.useful_mfu(peak) / generic.useful_mfu(peak):.3f}",
        "st_ms_g": f"{generic.time_ms:.1f}",
        "st_ms_b": f"{bucketed.time_ms:.1f}",
        "st_time_ratio": f"{bucketed.time_ms / generic.time_ms:.3f}",
        "st_row_ratio": f"{bucketed.executed_rows / bucketed.actual_rows:.3f}",
        "st_gr_runs": str(MORE_RUNS),
        "st_gr_k": str(gr.kernels_per_run),
        "st_gr_fk": str(gr.fused_kernels_per_run),
        "st_cx_prep": f"{b_line.prep_ms:g}",
        "st_cx_prep_new": f"{cheaper.prep_ms:g}",
        "st_cx_g": f"{g_line.prep_ms:g} + {g_line.run_ms:.1f} n",
        "st_cx_b": f"{cheaper.prep_ms:g} + {cheaper.run_ms:.1f} n",
        "st_cx_b_old": f"{b_line.prep_ms:g} + {b_line.run_ms:.1f} n",
        "st_cx_old": f"{crossover(g_line, b_line):.1f}",
        "st_cx_new": f"{crossover(g_line, cheaper):.1f}",
    }
    for name, key in (("eager", "eager"), ("graph", "graph"), ("fused+graph", "fg")):
        out[f"st_gr_{key}_host"] = str(counts[name].host_submissions)
        out[f"st_gr_{key}_kernels"] = str(counts[name].kernels)
    return out


def softmax() -> dict[str, str]:
    """The online softmax question, traced one score at a time, exactly.

    >>> v = softmax()
    >>> v["st_sm_result"], v["st_sm_scores"]
    ('16/7', '0、ln(4)、ln(2)')
    """
    steps = trace([Ln(Fraction(w)) for w in SOFTMAX_WEIGHTS], list(SOFTMAX_VALUES), 1)
    sep = text("prose.list_sep")
    return {
        "st_sm_scores": sep.join(str(Ln(Fraction(w))) for w in SOFTMAX_WEIGHTS),
        "st_sm_values": sep.join(str(v) for v in SOFTMAX_VALUES),
        "st_sm_steps": text("word.list_sep").join(
            text(
                "prose.self_test.step",
                n=s.index + 1,
                r=s.r,
                m=s.state.m,
                l=s.state.l,
                u=s.state.u,
            )
            for s in steps
        ),
        "st_sm_result": str(steps[-1].state.result),
        "st_sm_float": f"{float(steps[-1].state.result):.4f}",
    }


def values() -> dict[str, str]:
    """Every answer the chapter glues.

    >>> v = values()
    >>> v["st_sep"], v["st_L"], v["st_sm_result"]
    ('120', '8192', '16/7')
    """
    return fusion() | attention() | runtime() | softmax()
