"""Figures and table rows for the fusion pages (chapters 2 and 4).

Everything here draws or formats what :mod:`infrabook.dataflow` and
:mod:`infrabook.roofline` compute; no number is decided here.
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from infrabook.config import Device
from infrabook.dataflow import Accounting, Graph, Plan, account
from infrabook.fusion_search import RankedPlan
from infrabook.plots.style import PALETTE, figure
from infrabook.roofline import lower_bound_s
from infrabook.tables import number_text
from infrabook.units import mib

READ_COLOUR, WRITE_COLOUR = PALETTE[0], PALETTE[1]


def kernel_rows(acc: Accounting) -> list[list[str]]:
    """One row per kernel: name, tensors read, tensors written, MiB read, written, moved.

    >>> from infrabook.dataflow import unfused
    >>> from infrabook.ffn_chain import activation_chain
    >>> g = activation_chain(1024, 12288, "bf16")
    >>> kernel_rows(account(g, unfused(g)))
    [['silu', 'G', 'T', '24', '24', '48'], ['mul', 'T, U', 'Z', '48', '24', '72']]
    """
    return [
        [
            k.name,
            ", ".join(k.reads) or "-",
            ", ".join(k.writes) or "-",
            number_text(mib(k.bytes_read), ".1f"),
            number_text(mib(k.bytes_written), ".1f"),
            number_text(mib(k.bytes_moved), ".1f"),
        ]
        for k in acc.kernels
    ]


def plan_rows(ranked: Sequence[RankedPlan]) -> list[list[str]]:
    """One row per plan: label, kernels, traffic MiB, peak live MiB, footprint MiB.

    >>> from infrabook.ffn_chain import activation_chain
    >>> from infrabook.fusion_search import rank_plans
    >>> plan_rows(rank_plans(activation_chain(1024, 12288, "bf16", "int8")))[0]
    ['[silu+mul+quant]', '1', '60', '60', '60']
    """
    return [
        [
            r.label,
            str(r.accounting.kernel_count),
            number_text(mib(r.accounting.traffic), ".1f"),
            number_text(mib(r.accounting.peak_live_bytes), ".1f"),
            number_text(mib(r.accounting.footprint_bytes), ".1f"),
        ]
        for r in ranked
    ]


def bandwidth_rows(
    devices: Sequence[Device], traffic: Sequence[float], working_set_bytes: float
) -> list[list[str]]:
    """Per device: name, DRAM TB/s, L2 MiB, the DRAM-bound time of each traffic in us, and
    whether ``working_set_bytes`` fits in L2 ("?" where L2 is unknown).

    >>> from infrabook.config import device
    >>> bandwidth_rows([device("h200")], [72 * 2**20], 72 * 2**20)
    [['NVIDIA H200 SXM', '4.8', '60', '15.7', 'no']]
    """
    rows = []
    for d in devices:
        l2 = d.l2_bytes
        fits = "?" if l2 is None else ("yes" if l2 >= working_set_bytes else "no")
        rows.append(
            [
                d.name,
                f"{d.dram_tb_s.value:g}",
                "?" if d.l2_mib.value is None else f"{d.l2_mib.value:g}",
                *(f"{lower_bound_s(t, 0, d) * 1e6:.1f}" for t in traffic),
                fits,
            ]
        )
    return rows


def traffic_bars(graph: Graph, plans: Sequence[tuple[str, Plan]]) -> Figure:
    """Bytes each kernel reads and writes, one segment per tensor, grouped by plan, with
    the plan's total above. Tensors that are neither graph inputs nor graph outputs (the
    intermediates fusion removes) are hatched.

    >>> from infrabook.dataflow import fully_fused, unfused
    >>> from infrabook.ffn_chain import activation_chain
    >>> g = activation_chain(1024, 12288, "bf16")
    >>> fig = traffic_bars(g, [("separate", unfused(g)), ("fused", fully_fused(g))])
    >>> len(fig.axes[0].patches)
    8
    """
    if not plans:
        raise ValueError("traffic_bars needs at least one plan")
    ends = set(graph.inputs) | set(graph.outputs)
    accounts = [(title, account(graph, plan)) for title, plan in plans]
    fig, ax = figure(6.4, 3.8)
    ax.set_axisbelow(True)
    top = max(mib(k.bytes_moved) for _, acc in accounts for k in acc.kernels)
    x = 0.0
    ticks, ticklabels = [], []
    labelled: set[str] = set()
    for p, (title, acc) in enumerate(accounts):
        start = x
        for k in acc.kernels:
            bottom = 0.0
            for kind, colour, names in (("read", READ_COLOUR, k.reads),
                                        ("written", WRITE_COLOUR, k.writes)):
                for name in names:
                    h = mib(graph.tensor(name).nbytes)
                    middle = name not in ends
                    key = f"{kind} (intermediate)" if middle else kind
                    ax.bar(x, h, bottom=bottom, width=0.7, color=colour, edgecolor="white",
                           hatch="//" if middle else None,
                           label=None if key in labelled else key)
                    labelled.add(key)
                    ax.text(x, bottom + h / 2, f"{name} {h:.0f}", ha="center", va="center",
                            color="white", fontsize=8, fontweight="bold")
                    bottom += h
            ticks.append(x)
            ticklabels.append(k.name)
            x += 1.0
        centre = (start + x - 1.0) / 2
        ax.text(centre, top * 1.08, f"{title}: {number_text(mib(acc.traffic), '.1f')} MiB",
                ha="center", va="bottom", fontsize=9, fontweight="bold")
        if p < len(accounts) - 1:
            ax.axvline(x - 0.25, color="#999999", lw=0.8, ls=":")
            x += 0.5
    ax.set_xticks(ticks, ticklabels)
    ax.set_ylim(0, top * 1.25)
    ax.set_xlabel("kernel")
    ax.set_ylabel("bytes moved (MiB)")
    order = ("read", "read (intermediate)", "written", "written (intermediate)")
    handles = dict(zip(*reversed(ax.get_legend_handles_labels()), strict=True))
    keys = [k for k in order if k in handles]
    fig.legend([handles[k] for k in keys], keys, loc="outside right center", fontsize=8)
    return fig


def liveness_timeline(graph: Graph, plans: Sequence[tuple[str, Plan]]) -> Figure:
    """Bytes live in memory at each kernel step, stacked by tensor, one panel per plan; the
    peak as a dashed rule, and beside the steps one grey bar for the plan's total traffic.

    Traffic counts every pass over a tensor, the peak counts what is resident at once: the
    picture shows the first fall much further than the second when kernels are fused.

    >>> from infrabook.dataflow import fully_fused, unfused
    >>> from infrabook.ffn_chain import activation_chain
    >>> g = activation_chain(1024, 12288, "bf16", "int8")
    >>> fig = liveness_timeline(g, [("separate", unfused(g)), ("fused", fully_fused(g))])
    >>> len(fig.axes)
    2
    """
    if not plans:
        raise ValueError("liveness_timeline needs at least one plan")
    accounts = [(title, account(graph, plan)) for title, plan in plans]
    widths = [len(acc.kernels) + 1.4 for _, acc in accounts]
    fig, axes = figure(6.8, 3.8, ncols=len(plans))
    axes = list(axes) if len(plans) > 1 else [axes]
    if len(axes) > 1:
        axes[0].get_gridspec().set_width_ratios(widths)
    colour = {t.name: PALETTE[i % len(PALETTE)] for i, t in enumerate(graph.tensors)}
    ymax = max(max(mib(acc.traffic), mib(acc.peak_live_bytes)) for _, acc in accounts) * 1.15
    seen: set[str] = set()
    for ax, w, (title, acc) in zip(axes, widths, accounts, strict=True):
        ax.set_axisbelow(True)
        n = len(acc.kernels)
        for step, k in enumerate(acc.kernels):
            bottom = 0.0
            for name in k.live:
                h = mib(graph.tensor(name).nbytes)
                ax.bar(step, h, bottom=bottom, width=0.6, color=colour[name],
                       edgecolor="white", label=None if name in seen else f"live: {name}")
                ax.text(step, bottom + h / 2, name, ha="center", va="center",
                        color="white", fontsize=8)
                seen.add(name)
                bottom += h
        traffic = mib(acc.traffic)
        ax.bar(n + 0.2, traffic, width=0.6, color="#dddddd", edgecolor="#555555",
               hatch="//", label="total traffic" if ax is axes[0] else None)
        ax.text(n + 0.2, traffic, number_text(mib(acc.traffic), ".1f"), ha="center",
                va="bottom", fontsize=8)
        peak = mib(acc.peak_live_bytes)
        ax.axhline(peak, color="#111111", ls="--", lw=0.8,
                   label="peak live" if ax is axes[0] else None)
        ax.text(-0.7, peak, number_text(mib(acc.peak_live_bytes), ".1f"), ha="left",
                va="bottom", fontsize=8)
        ax.set_xticks([*range(n), n + 0.2], [*(k.name for k in acc.kernels), "traffic"],
                      fontsize=8)
        ax.set_xlim(-0.8, w - 0.8)
        ax.set_title(f"{title}\ntraffic {number_text(mib(acc.traffic), '.1f')} MiB, "
                     f"peak {number_text(mib(acc.peak_live_bytes), '.1f')} MiB", fontsize=9)
        ax.set_ylim(0, ymax)
        ax.set_xlabel("kernel step")
    axes[0].set_ylabel("MiB")
    fig.legend(loc="outside right center", fontsize=8)
    return fig
