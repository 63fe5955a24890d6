"""Chapter 1 (the conclusion first): the values its prose glues and its two tables.

Text is formatted the way the page prints it, in the build's language; the numbers come from
:mod:`infrabook.dataflow`, :mod:`infrabook.launches` and :mod:`infrabook.bucketing`.
"""

from __future__ import annotations

from infrabook.bucketing import StrategyCost, article_bucketing
from infrabook.dataflow import Accounting, account, fully_fused, unfused
from infrabook.ffn_chain import activation_chain, article_chain
from infrabook.labels import text
from infrabook.launches import LaunchCount, article_launch_counts, launch_counts
from infrabook.prose import reference_entry
from infrabook.tables import Table
from infrabook.units import mib

# Exercise 2's model: runs, kernels per run, kernels left after fusion (launch_counts' order).
EXERCISE_LAUNCHES = (100, 6, 5)


def pct(x: float) -> str:
    """A fraction as a percentage with one decimal, without a trailing ``.0``.

    >>> pct(0.139), pct(0.25)
    ('13.9', '25')
    """
    return f"{100 * x:.1f}".removesuffix(".0")


def _chain() -> tuple[Accounting, Accounting]:
    chain = article_chain()
    return account(chain, unfused(chain)), account(chain, fully_fused(chain))


def _counts() -> dict[str, LaunchCount]:
    return {c.name: c for c in article_launch_counts()}


def _costs() -> tuple[dict[str, StrategyCost], float]:
    costs = {c.strategy.name: c for c in article_bucketing().costs()}
    gen = costs["generic"]
    # The article's rates are its MFUs times a rounded peak; that peak is the denominator of
    # its MFU, so both utilisations are taken against it.
    return costs, gen.rate_tflops / gen.strategy.mfu


def values() -> dict[str, str]:
    """The chapter's numbers: traffic, launches, padding and utilisations, and the
    exercises' answers.

    >>> v = values()
    >>> v["c1_traffic_sep"], v["c1_traffic_fused"], v["c1_ex1_ratio"]
    ('120', '72', '1.67')
    """
    sep, fused = _chain()
    counts = _counts()
    eager, graph = counts["eager"], counts["graph"]
    costs, nominal_peak = _costs()
    gen, buck, spec = costs["generic"], costs["bucketed"], costs["specialised"]
    g = article_chain().tensor("G")
    big = activation_chain(4 * g.shape[0], g.shape[1], "bf16")
    big_sep, big_fused = account(big, unfused(big)), account(big, fully_fused(big))
    ex2 = {c.name: c for c in launch_counts(*EXERCISE_LAUNCHES)}
    measured = reference_entry("gpu_graphs").results.configs
    return {
        "c1_traffic_sep": f"{mib(sep.traffic):.0f}",
        "c1_traffic_fused": f"{mib(fused.traffic):.0f}",
        "c1_launch_eager": f"{eager.host_submissions}",
        "c1_launch_graph": f"{graph.host_submissions}",
        "c1_kernels_eager": f"{eager.kernels}",
        "c1_kernels_graph": f"{graph.kernels}",
        "c1_kernels_fused": f"{counts['fused'].kernels}",
        "c1_gpu_kernels_eager": str(measured["eager"].kernels),
        "c1_gpu_kernels_fused": str(measured["fused"].kernels),
        "c1_padding_pct": pct(buck.padding_fraction),
        "c1_exec_generic": pct(gen.executed_utilisation(nominal_peak)),
        "c1_exec_bucketed": pct(buck.executed_utilisation(nominal_peak)),
        "c1_mfu_generic": pct(gen.useful_mfu(nominal_peak)),
        "c1_mfu_bucketed": pct(buck.useful_mfu(nominal_peak)),
        "c1_bucket_speedup": f"{gen.time_ms / buck.time_ms:.3f}",
        "c1_spec_mfu": pct(spec.useful_mfu(nominal_peak)),
        "c1_ex1_rows": f"{big.tensor('G').shape[0]}",
        "c1_ex1_sep": f"{mib(big_sep.traffic):.0f}",
        "c1_ex1_fused": f"{mib(big_fused.traffic):.0f}",
        "c1_ex1_ratio": f"{big_sep.traffic / big_fused.traffic:.2f}",
        "c1_ex2_eager": f"{ex2['eager'].host_submissions}",
        "c1_ex2_graph": f"{ex2['graph'].host_submissions}",
        "c1_ex2_kernels": f"{ex2['graph'].kernels}",
        "c1_ex2_fused_kernels": f"{ex2['fused'].kernels}",
        "c1_ex3_rate": f"{buck.rate_tflops:g}",
        "c1_ex3_useful_rate": f"{buck.useful_rate_tflops:.1f}",
        "c1_ex3_nominal": f"{nominal_peak:g}",
    }


def _words(*keys: str) -> tuple[str, ...]:
    return tuple(text(f"prose.conclusion.{k}") for k in keys)


def planes_table() -> Table:
    """The two planes: what each counts, plain and optimised, and the technique.

    >>> planes_table().rows[0][2:4]
    ('120', '72')
    """
    sep, fused = _chain()
    counts = _counts()
    return Table(
        "",
        _words("col.plane", "col.counted", "col.plain", "col.optimised", "col.technique"),
        (
            (
                *_words("data_plane", "traffic"),
                f"{mib(sep.traffic):.0f}",
                f"{mib(fused.traffic):.0f}",
                text("prose.conclusion.fusion"),
            ),
            (
                *_words("control_plane", "submissions"),
                str(counts["eager"].host_submissions),
                str(counts["graph"].host_submissions),
                text("prose.conclusion.replay"),
            ),
        ),
    )


def mechanisms_table() -> Table:
    """Each mechanism's plane, what it reduces, what it does not, and the book's example.

    >>> [row[0] for row in mechanisms_table().rows]
    ['融合', '图重放', '分桶', '逐形状特化']
    """
    sep, fused = _chain()
    counts = _counts()
    costs, _ = _costs()
    eager, graph = counts["eager"], counts["graph"]
    utilisation_plane, useful_time = _words("utilisation_plane", "useful_time")
    return Table(
        "",
        _words("col.mechanism", "col.plane", "col.reduces", "col.keeps", "col.example"),
        (
            (
                *_words("fusion", "data_plane", "fusion_reduces", "fusion_keeps"),
                text(
                    "prose.conclusion.fusion_example",
                    a=f"{mib(sep.traffic):.0f}",
                    b=f"{mib(fused.traffic):.0f}",
                ),
            ),
            (
                *_words("replay", "control_plane", "replay_reduces", "replay_keeps"),
                f"launch {eager.host_submissions} → {graph.host_submissions}",
            ),
            (
                text("prose.conclusion.bucketing"),
                utilisation_plane,
                useful_time,
                text("prose.conclusion.bucketing_keeps"),
                text(
                    "prose.conclusion.bucketing_example",
                    p=pct(costs["bucketed"].padding_fraction),
                ),
            ),
            (
                text("prose.conclusion.specialised"),
                utilisation_plane,
                useful_time,
                text("prose.conclusion.specialised_keeps"),
                text(
                    "prose.conclusion.specialised_example",
                    t=f"{costs['specialised'].strategy.prep_ms:.0f}",
                ),
            ),
        ),
    )
