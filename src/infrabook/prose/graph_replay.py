"""Section 5.1 (graph replay): the values its prose glues and its table of launch counts.

Counts and timelines come from :mod:`infrabook.launches` on ``conf/scenarios.toml``'s
graph-replay and timeline scenarios; text is formatted the way the page prints it.
"""

from __future__ import annotations

from typing import Any

from infrabook import config
from infrabook.dataflow import account, unfused
from infrabook.ffn_chain import article_chain
from infrabook.labels import text
from infrabook.launches import (
    Timeline,
    article_launch_counts,
    eager_timeline,
    graph_timeline,
    launch_counts,
)
from infrabook.prose import figure, reference_entry
from infrabook.roofline import gemm_workload, lower_bound_s
from infrabook.tables import Table

# Exercise 1: kernels ten times longer; exercise 2: runs, kernels per run, fused kernels.
EXERCISE_STRETCH = 10
EXERCISE_LAUNCHES = (100, 12, 9)
# Configurations by launch_counts' name, and their short glue names.
_KEYS = {"eager": "eager", "graph": "graph", "fused": "fused", "fused+graph": "both"}


def launch_costs(folder: Any = None) -> tuple[float, float]:
    """Host μs per kernel launch (eager: the host's issue time of the measured runs over
    their kernel launches) and per graph launch (the same for the replayed runs).

    >>> eager_us, graph_us = launch_costs()
    >>> round(eager_us, 1), round(graph_us, 1)
    (11.7, 6.5)
    """
    configs = reference_entry("gpu_graphs", folder).results.configs
    eager, graph = configs["eager"], configs["graph"]
    return eager.issue.us / eager.host_launches, graph.issue.us / graph.graph_launches


def timelines(folder: Any = None) -> tuple[Timeline, Timeline]:
    """Section 5.1's eager and graph timelines: ``conf/scenarios.toml``'s kernels and device
    gap, with the host's launch costs measured on the reference GPU (:func:`launch_costs`).

    >>> eager, graph = timelines()
    >>> len(eager.lane("host")), len(graph.lane("host"))
    (18, 3)
    """
    gr, tl = config.scenarios().graph_replay, config.scenarios().timeline
    eager_us, graph_us = launch_costs(folder)
    return (
        eager_timeline(tl.kernel_us, gr.runs, eager_us, tl.device_gap_us),
        graph_timeline(tl.kernel_us, gr.runs, graph_us, tl.device_gap_us),
    )


def measured(folder: Any = None) -> dict[str, str]:
    """What the GPU measured: kernels and launches of each configuration, the kernels
    cuBLAS adds, host and end-to-end times, and the model beside them.

    >>> v = measured()
    >>> v["gm_eager_kernels"], v["gm_graph_host"], v["gm_extra_per_run"], v["gm_speedup"]
    ('21', '3', '1', '3.5')
    """
    found = reference_entry("gpu_graphs", folder)
    configs = found.results.configs
    eager, graph, fused, both = (configs[k] for k in _KEYS)
    runs = found.params["runs"]
    model = {c.name: c for c in article_launch_counts()}
    split = {n: c for n, c in eager.kernel_names.items() if "splitKreduce" in n}
    e_model, g_model = timelines(folder)
    eager_us, graph_us = launch_costs(folder)
    return {
        "gm_dev": found.provenance.device.name,
        "gm_runs": str(runs),
        "gm_rows": str(found.params["rows"]),
        "gm_d_model": str(found.params["d_model"]),
        "gm_d_ff": str(found.params["d_ff"]),
        "gm_eager_host": str(eager.host_launches),
        "gm_eager_kernels": str(eager.kernels),
        "gm_graph_host": str(graph.graph_launches),
        "gm_graph_kernels": str(graph.kernels),
        "gm_fused_host": str(fused.host_launches),
        "gm_fused_kernels": str(fused.kernels),
        "gm_both_host": str(both.graph_launches),
        "gm_both_kernels": str(both.kernels),
        "gm_per_run": f"{eager.kernels / runs:g}",
        "gm_extra_per_run": f"{(eager.kernels - model['eager'].kernels) / runs:g}",
        "gm_splitk_kernels": str(sum(split.values())),
        "gm_splitk_name": next(iter(split), "—").split("<")[0].removeprefix("void "),
        "gm_eager_issue_us": f"{eager.issue.us:.0f}",
        "gm_eager_total_us": f"{eager.total.us:.0f}",
        "gm_graph_issue_us": f"{graph.issue.us:.1f}",
        "gm_graph_total_us": f"{graph.total.us:.0f}",
        "gm_fused_issue_us": f"{fused.issue.us:.0f}",
        "gm_fused_total_us": f"{fused.total.us:.0f}",
        "gm_fewer_kernels": str(eager.kernels - fused.kernels),
        "gm_both_total_us": f"{both.total.us:.0f}",
        "gm_speedup": f"{eager.total.median_s / graph.total.median_s:.1f}",
        "gm_saving": f"{1 - graph.total.median_s / eager.total.median_s:.0%}",
        "gm_launch_us": f"{eager_us:.1f}",
        "gm_fused_launch_us": f"{fused.issue.us / fused.host_launches:.1f}",
        "gm_graph_launch_us": f"{graph_us:.1f}",
        "gm_model_eager_us": f"{e_model.makespan_us:.0f}",
        "gm_model_graph_us": f"{g_model.makespan_us:.0f}",
        "gm_model_speedup": f"{e_model.makespan_us / g_model.makespan_us:.1f}",
    }


def counts_table() -> Table:
    """Host submissions and device kernels of each configuration.

    >>> [row[1:] for row in counts_table().rows][:2]
    [('18', '18'), ('3', '18')]
    """
    return Table(
        "",
        tuple(text(f"prose.graph_replay.col.{k}") for k in ("config", "host", "kernels")),
        tuple((c.label, str(c.host_submissions), str(c.kernels)) for c in article_launch_counts()),
    )


def values() -> dict[str, Any]:
    """Launch counts, the host/device timelines, the FFN's own kernel times, the figures
    and the exercises' answers.

    >>> v = values()
    >>> v["gr_eager_host"], v["gr_graph_host"], v["gr_host_ratio"]
    ('18', '3', '6')
    """
    from infrabook.plots.runtime import launch_counts_figure
    from infrabook.plots.timeline import timeline_figure

    gr = config.scenarios().graph_replay
    tl = config.scenarios().timeline
    counts = article_launch_counts()
    by_name = {c.name: c for c in counts}
    eager, graph = timelines()
    out: dict[str, Any] = {
        "gr_runs": str(gr.runs),
        "gr_k": str(gr.kernels_per_run),
        "gr_kf": str(gr.fused_kernels_per_run),
        "gr_host_ratio": (
            f"{by_name['eager'].host_submissions / by_name['graph'].host_submissions:.0f}"
        ),
        "gr_fig": launch_counts_figure(counts),
        "tl_launch_us": f"{launch_costs()[0]:.1f}",
        "tl_graph_launch_us": f"{launch_costs()[1]:.1f}",
        "tl_gap_us": f"{tl.device_gap_us:g}",
        "tl_kernel_min": f"{min(tl.kernel_us):g}",
        "tl_kernel_max": f"{max(tl.kernel_us):g}",
        "tl_host_total_us": f"{eager.busy_us('host'):.0f}",
        "tl_graph_host_total_us": f"{graph.busy_us('host'):.1f}",
        "tl_busy_us": f"{eager.busy_us('device'):g}",
        "tl_eager_us": f"{eager.makespan_us:.0f}",
        "tl_graph_us": f"{graph.makespan_us:.0f}",
        "tl_eager_idle": f"{sum(eager.gaps_us('device')):.0f}",
        "tl_graph_idle": f"{sum(graph.gaps_us('device')):.0f}",
        "tl_eager_busy_pct": f"{eager.busy_us('device') / eager.makespan_us:.0%}",
        "tl_graph_busy_pct": f"{graph.busy_us('device') / graph.makespan_us:.0%}",
        "tl_speedup": f"{eager.makespan_us / graph.makespan_us:.2f}",
        "tl_fig": timeline_figure((eager, graph)),
    }
    for name, key in _KEYS.items():
        out[f"gr_{key}_host"] = str(by_name[name].host_submissions)
        out[f"gr_{key}_kernels"] = str(by_name[name].kernels)
    return out | ffn_kernels() | exercises()


def ffn_kernels() -> dict[str, str]:
    """How long the article's FFN GEMM and activation kernels take at least on the device
    whose peak the article uses, against one launch.

    >>> int(ffn_kernels()["tl_ffn_over_launch"]) > 1
    True
    """
    bk = config.scenarios().bucketing
    dev = config.device(bk.peak_device)
    chain = article_chain()
    g = chain.tensor("G")
    rows = g.shape[0]
    gemm = gemm_workload(rows, bk.d_model, bk.d_ff, g.dtype)
    gemm_us = lower_bound_s(gemm.nbytes, gemm.flop, dev) * 1e6
    chain_us = [
        lower_bound_s(k.bytes_moved, 0, dev) * 1e6 for k in account(chain, unfused(chain)).kernels
    ]
    # The largest square bf16 weight whose one read from device memory fits in one launch
    # time: below it a GEMM can be as short as a host submission.
    launch_us = launch_costs()[0]
    weight_elems = launch_us * 1e-6 * figure(dev, "dram_tb_s") * 1e12 / 2
    return {
        "tl_ffn_dev": dev.name,
        "tl_ffn_rows": f"{rows}",
        "tl_ffn_d": f"{bk.d_model} × {bk.d_ff}",
        "tl_ffn_gemm_us": f"{gemm_us:.0f}",
        "tl_ffn_chain_us": " / ".join(f"{t:.0f}" for t in chain_us),
        "tl_ffn_over_launch": f"{gemm_us / launch_us:.0f}",
        "tl_small_d": f"{weight_elems**0.5:,.0f}",
    }


def exercises() -> dict[str, str]:
    """The exercises' answers: kernels ten times longer, and a bigger model's launches.

    >>> v = exercises()
    >>> v["ex51_eager_host"], v["ex51_graph_host"]
    ('1200', '100')
    """
    gr = config.scenarios().graph_replay
    tl = config.scenarios().timeline
    eager, graph = timelines()
    eager_us, graph_us = launch_costs()
    long_us = [EXERCISE_STRETCH * k for k in tl.kernel_us]
    e_long = eager_timeline(long_us, gr.runs, eager_us, tl.device_gap_us)
    g_long = graph_timeline(long_us, gr.runs, graph_us, tl.device_gap_us)
    big = {c.name: c for c in launch_counts(*EXERCISE_LAUNCHES)}
    out = {
        "ex51_long_min": f"{min(long_us):g}",
        "ex51_long_max": f"{max(long_us):g}",
        "ex51_long_eager": f"{e_long.makespan_us:.0f}",
        "ex51_long_graph": f"{g_long.makespan_us:.0f}",
        "ex51_long_saving": f"{1 - g_long.makespan_us / e_long.makespan_us:.1%}",
        "ex51_short_saving": f"{1 - graph.makespan_us / eager.makespan_us:.1%}",
        "ex51_long_gap": f"{max(e_long.gaps_us('device')):g}",
        "ex51_big_host_us": f"{big['eager'].host_submissions * eager_us:,.0f}",
        "ex51_big_graph_us": f"{big['graph'].host_submissions * graph_us:,.0f}",
    }
    for name in _KEYS:
        out[f"ex51_{name.replace('+', '_')}_host"] = str(big[name].host_submissions)
        out[f"ex51_{name.replace('+', '_')}_kernels"] = str(big[name].kernels)
    return out
