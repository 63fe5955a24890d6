"""Figures for the fusion pages (chapters 2 and 4); their tables come
from :mod:`infrabook.calculators`.

Everything here draws what :mod:`infrabook.dataflow` and
:mod:`infrabook.roofline` compute; no number is decided here.
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from infrabook.dataflow import Graph, Plan, account
from infrabook.labels import text
from infrabook.plots.style import HATCHES, INK, PALETTE, SMALL_PT, figure, figure_row, styled
from infrabook.tables import number_text
from infrabook.units import mib

READ_COLOUR, WRITE_COLOUR = PALETTE[0], PALETTE[1]


def _segment_label(ax: Axes, x: float, y: float, label: str, colour: str) -> None:
    """White bold text on a plate of the segment's colour, centred on the segment."""
    ax.text(
        x,
        y,
        label,
        ha="center",
        va="center",
        color="white",
        fontsize=SMALL_PT,
        fontweight="bold",
        bbox=dict(boxstyle="round,pad=0.15", fc=colour, ec="none"),
    )


def _mib_text(nbytes: float) -> str:
    return number_text(mib(nbytes), ".1f")


# Reads are plain, writes ruled across, intermediates (what fusion removes) also striped, so the
# kinds differ by pattern as well as by colour.
_SEGMENTS = {
    ("read", False): ("fig.fusion.read", READ_COLOUR, ""),
    ("read", True): ("fig.fusion.read_mid", READ_COLOUR, "//"),
    ("written", False): ("fig.fusion.written", WRITE_COLOUR, "--"),
    ("written", True): ("fig.fusion.written_mid", WRITE_COLOUR, "--//"),
}


@styled
def traffic_bars(graph: Graph, plans: Sequence[tuple[str, Plan]]) -> Figure:
    """Bytes each kernel reads and writes, one segment per tensor, grouped by plan, with
    the plan's total above. Tensors that are neither graph inputs nor graph outputs (the
    intermediates fusion removes) are hatched.

    >>> from infrabook.dataflow import fully_fused, unfused
    >>> from infrabook.ffn_chain import activation_chain
    >>> g = activation_chain(1024, 12288, "bf16")
    >>> fig = traffic_bars(g, [("分开", unfused(g)), ("融合", fully_fused(g))])
    >>> len(fig.axes[0].patches)
    8
    """
    if not plans:
        raise ValueError("traffic_bars needs at least one plan, got none")
    ends = set(graph.inputs) | set(graph.outputs)
    accounts = [(title, account(graph, plan)) for title, plan in plans]
    fig, ax = figure(6.4, 4.0)
    ax.set_axisbelow(True)
    top = max(mib(k.bytes_moved) for _, acc in accounts for k in acc.kernels)
    x = 0.0
    ticks, ticklabels = [], []
    handles = {}
    for p, (title, acc) in enumerate(accounts):
        start = x
        for k in acc.kernels:
            bottom = 0.0
            for kind, names in (("read", k.reads), ("written", k.writes)):
                for name in names:
                    h = mib(graph.tensor(name).nbytes)
                    key = (kind, name not in ends)
                    _, colour, hatch = _SEGMENTS[key]
                    handles[key] = ax.bar(
                        x,
                        h,
                        bottom=bottom,
                        width=0.7,
                        color=colour,
                        edgecolor="white",
                        hatch=hatch or None,
                    )
                    _segment_label(ax, x, bottom + h / 2, f"{name} {h:.0f}", colour)
                    bottom += h
            ticks.append(x)
            ticklabels.append(k.name)
            x += 1.0
        centre = (start + x - 1.0) / 2
        ax.text(
            centre,
            top * 1.08,
            text("fig.fusion.plan_total", plan=title, mib=_mib_text(acc.traffic)),
            ha="center",
            va="bottom",
            fontweight="bold",
        )
        if p < len(accounts) - 1:
            ax.axvline(x - 0.25, color="#999999", lw=0.8, ls=":")
            x += 0.5
    ax.set_xticks(ticks, ticklabels)
    ax.set_ylim(0, top * 1.25)
    ax.set_xlabel(text("fig.fusion.kernel"))
    ax.set_ylabel(text("fig.fusion.moved_mib"))
    keys = [k for k in _SEGMENTS if k in handles]
    fig.legend(
        handles=[handles[k] for k in keys],
        labels=[text(_SEGMENTS[k][0]) for k in keys],
        loc="outside lower center",
        ncols=len(keys),
    )
    return fig


@styled
def liveness_timeline(graph: Graph, plans: Sequence[tuple[str, Plan]]) -> Figure:
    """Bytes live in memory at each kernel step, stacked by tensor, one panel per plan; the
    peak as a dashed rule, and beside the steps one grey bar for the plan's total traffic.

    Traffic counts every pass over a tensor, the peak counts what is resident at once: the
    picture shows the first fall much further than the second when kernels are fused.

    >>> from infrabook.dataflow import fully_fused, unfused
    >>> from infrabook.ffn_chain import activation_chain
    >>> g = activation_chain(1024, 12288, "bf16", "int8")
    >>> fig = liveness_timeline(g, [("分开", unfused(g)), ("融合", fully_fused(g))])
    >>> len(fig.axes)
    2
    """
    if not plans:
        raise ValueError("liveness_timeline needs at least one plan, got none")
    accounts = [(title, account(graph, plan)) for title, plan in plans]
    widths = [len(acc.kernels) + 1.4 for _, acc in accounts]
    fig, axes = figure_row(len(plans), 6.8, 4.2, width_ratios=widths)
    style = {
        t.name: (PALETTE[i % len(PALETTE)], HATCHES[i % len(HATCHES)])
        for i, t in enumerate(graph.tensors)
    }
    ymax = max(max(mib(acc.traffic), mib(acc.peak_live_bytes)) for _, acc in accounts) * 1.15
    seen: set[str] = set()
    for ax, w, (title, acc) in zip(axes, widths, accounts, strict=True):
        ax.set_axisbelow(True)
        n = len(acc.kernels)
        for step, k in enumerate(acc.kernels):
            bottom = 0.0
            for name in k.live:
                h = mib(graph.tensor(name).nbytes)
                colour, hatch = style[name]
                ax.bar(
                    step,
                    h,
                    bottom=bottom,
                    width=0.6,
                    color=colour,
                    hatch=hatch or None,
                    edgecolor="white",
                    label=None if name in seen else text("fig.fusion.live", name=name),
                )
                _segment_label(ax, step, bottom + h / 2, name, colour)
                seen.add(name)
                bottom += h
        traffic = mib(acc.traffic)
        ax.bar(
            n + 0.2,
            traffic,
            width=0.6,
            color="#dddddd",
            edgecolor="#555555",
            hatch="xx",
            label=text("fig.fusion.total_traffic") if ax is axes[0] else None,
        )
        ax.text(
            n + 0.2,
            traffic,
            f"{_mib_text(acc.traffic)}",
            ha="center",
            va="bottom",
            fontsize=SMALL_PT,
        )
        peak = mib(acc.peak_live_bytes)
        ax.axhline(
            peak,
            color=INK,
            ls="--",
            lw=0.8,
            label=text("fig.fusion.peak_live") if ax is axes[0] else None,
        )
        ax.text(
            -0.7,
            peak,
            f"{_mib_text(acc.peak_live_bytes)}",
            ha="left",
            va="bottom",
            fontsize=SMALL_PT,
        )
        ax.set_xticks(
            [*range(n), n + 0.2], [*(k.name for k in acc.kernels), text("fig.fusion.traffic_tick")]
        )
        ax.set_xlim(-0.8, w - 0.8)
        ax.set_title(
            text(
                "fig.fusion.panel_title",
                plan=title,
                traffic=_mib_text(acc.traffic),
                peak=_mib_text(acc.peak_live_bytes),
            )
        )
        ax.set_ylim(0, ymax)
        ax.set_xlabel(text("fig.fusion.step"))
    axes[0].set_ylabel("MiB")
    fig.legend(loc="outside lower center", ncols=4)
    return fig
