"""Chapter 8 (misconceptions): the values its prose glues and its table of corrections.

Text is formatted the way the page prints it, in the build's language; every number comes
from the calculators (:mod:`infrabook.dataflow`, :mod:`infrabook.launches`,
:mod:`infrabook.bucketing`, :mod:`infrabook.crossover`, :mod:`infrabook.attention_sizes`).
"""

from __future__ import annotations

from infrabook import config
from infrabook.attention_sizes import article_attention, attention_flop
from infrabook.bucketing import article_bucketing, cost_lines
from infrabook.crossover import best_at, regimes
from infrabook.dataflow import account, element_ops, fully_fused, unfused
from infrabook.ffn_chain import article_chain
from infrabook.labels import text
from infrabook.launches import article_launch_counts
from infrabook.prose import claims_stated, figure
from infrabook.tables import Table
from infrabook.units import mib

# The misconceptions in the order the table lists them.
TOPICS = ("flops", "peak", "replay", "bucketing", "specialised")


def values() -> dict[str, str]:
    """Every number the chapter's corrections use, keyed by its glue name.

    >>> v = values()
    >>> v["mc_traffic_sep"], v["mc_traffic_fused"], v["mc_kernels"] == v["mc_kernels_fused"]
    ('120', '72', False)
    """
    stated = claims_stated()
    g = article_chain()
    plans = {"unfused": unfused(g), "fused": fully_fused(g)}
    if element_ops(g, plans["unfused"]) != element_ops(g, plans["fused"]):
        raise ArithmeticError("fusing the chain changed its element-wise operation count")
    g3 = article_chain(with_quant=True)
    sep, fus = account(g3, unfused(g3)), account(g3, fully_fused(g3))
    counts = {c.name: c for c in article_launch_counts()}
    if counts["graph"].kernels != counts["eager"].kernels:
        raise ArithmeticError("graph replay changed the number of kernels")
    sc = article_bucketing()
    peak = sc.implied_peak_tflops("article")
    generic, bucketed, specialised = sc.costs("article")
    if not (bucketed.executed_rows > generic.executed_rows and bucketed.time_ms < generic.time_ms):
        raise ValueError("expected bucketing to execute more rows in less time than generic")
    lines = cost_lines((generic, bucketed, specialised))
    envelope = regimes(lines)
    first_spec = next(n for n in range(1, 1000) if best_at(lines, n).name == "specialised")
    return {
        "mc_elem_ops": f"{element_ops(g, plans['fused']):,}",
        "mc_traffic_sep": f"{mib(account(g, plans['unfused']).traffic):g}",
        "mc_traffic_fused": f"{mib(account(g, plans['fused']).traffic):g}",
        "mc_traffic_saved": f"{mib(sep.traffic - fus.traffic):g}",
        "mc_traffic_pct": f"{1 - fus.traffic / sep.traffic:.0%}",
        "mc_peak_saved": f"{mib(sep.peak_live_bytes - fus.peak_live_bytes):g}",
        "mc_peak_pct": f"{1 - fus.peak_live_bytes / sep.peak_live_bytes:.0%}",
        "mc_peak_sep": f"{mib(sep.peak_live_bytes):g}",
        "mc_peak_fused": f"{mib(fus.peak_live_bytes):g}",
        "mc_kernels": str(counts["eager"].kernels),
        "mc_kernels_graph": str(counts["graph"].kernels),
        "mc_launch_eager": str(counts["eager"].host_submissions),
        "mc_launch_graph": str(counts["graph"].host_submissions),
        "mc_kernels_fused": str(counts["fused"].kernels),
        "mc_pad": f"{bucketed.padding_fraction:.1%}",
        "mc_mfu_g": f"{generic.executed_utilisation(peak):.0%}",
        "mc_mfu_b": f"{bucketed.executed_utilisation(peak):.0%}",
        "mc_useful_g": f"{generic.useful_mfu(peak):.0%}",
        "mc_useful_b": f"{100 * bucketed.useful_mfu(peak):.3g}%",
        "mc_speedup": f"{generic.time_ms / bucketed.time_ms:.3f}",
        "mc_ms_g": f"{generic.time_ms:.1f}",
        "mc_ms_b": f"{bucketed.time_ms:.1f}",
        "mc_gen_end": f"{envelope[0].end:.0f}",
        "mc_spec_start": f"{envelope[-1].start:.1f}",
        "mc_first_spec": str(first_spec),
        "mc_stated_gb": stated["crossover.generic_bucketed"],
        "mc_ex2_host": str(counts["fused+graph"].host_submissions),
        "mc_ex2_kernels": str(counts["fused+graph"].kernels),
    }


def corrections_table() -> Table:
    """Each misconception and its correction, with the calculators' numbers filled in.

    >>> t = corrections_table()
    >>> len(t.rows), "120 → 72 MiB" in t.rows[0][1]
    (5, True)
    """
    v = values()
    return Table(
        "",
        (text("prose.misconceptions.col.myth"), text("prose.misconceptions.col.fix")),
        tuple(
            (
                text(f"prose.misconceptions.myth.{t}"),
                text(f"prose.misconceptions.fix.{t}", **v),
            )
            for t in TOPICS
        ),
    )


def exercises() -> dict[str, str]:
    """The answer of exercise 1: recomputing S = QK^T against re-reading it, on the
    device whose peak the article uses.

    >>> float(exercises()["mc_ex1_ratio"]) > 1
    True
    """
    att = article_attention()
    dev = config.device(config.scenarios().bucketing.peak_device)
    recompute_flop = attention_flop(att.seq_len, att.head_dim) // 2  # S = Q K^T only
    recompute_us = recompute_flop / (figure(dev, "bf16_dense_tflops") * 1e12) * 1e6
    saved_bytes = att.intermediate_traffic
    saved_us = saved_bytes / (figure(dev, "dram_tb_s") * 1e12) * 1e6
    return {
        "mc_ex1_L": str(att.seq_len),
        "mc_ex1_d": str(att.head_dim),
        "mc_ex1_gflop": f"{recompute_flop / 1e9:.1f}",
        "mc_ex1_device": dev.name,
        "mc_ex1_tflops": f"{dev.bf16_dense_tflops.value:g}",
        "mc_ex1_tbs": f"{dev.dram_tb_s.value:g}",
        "mc_ex1_recompute_us": f"{recompute_us:.0f}",
        "mc_ex1_saved_mib": f"{mib(saved_bytes):g}",
        "mc_ex1_saved_us": f"{saved_us:.0f}",
        "mc_ex1_ratio": f"{saved_us / recompute_us:.1f}",
    }
