"""Figures for chapter 5 (runtime) and the pages that lean on it (7, 8).

Each function takes what the calculators return (launch counts, strategy costs, cost
lines) and draws it in the book's style (:mod:`infrabook.plots.style`); it computes
nothing the calculators do not already give, apart from sampling lines for drawing. Words
come from :mod:`infrabook.labels`, strategies by the names the tables use.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from matplotlib.figure import Figure

from infrabook.bucketing import BucketingScenario, StrategyCost
from infrabook.crossover import Line, pairwise, regimes
from infrabook.labels import text
from infrabook.launches import LaunchCount
from infrabook.plots.style import (
    HATCHES,
    INK,
    MARKERS,
    PALETTE,
    SMALL_PT,
    figure,
    figure_row,
    strategy_name,
    styled,
)


def _colours(names: Sequence[str]) -> dict[str, str]:
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(names)}


@styled
def launch_counts_figure(counts: Sequence[LaunchCount]) -> Figure:
    """Host submissions beside kernels executed, one pair of bars per configuration.

    >>> from infrabook.launches import launch_counts
    >>> fig = launch_counts_figure(launch_counts(3, 6, 5))
    >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
    ['普通提交', '图重放(CUDA Graph)', '融合激活链', '融合 + 图重放']
    """
    if len(counts) == 0:
        raise ValueError("counts must not be empty: give at least one LaunchCount")
    fig, ax = figure(6.4, 3.8)
    x = np.arange(len(counts))
    width = 0.38
    host = [c.host_submissions for c in counts]
    kernels = [c.kernels for c in counts]
    bars_h = ax.bar(
        x - width / 2,
        host,
        width,
        color=PALETTE[0],
        edgecolor="white",
        label=text("fig.launch.host"),
    )
    bars_k = ax.bar(
        x + width / 2,
        kernels,
        width,
        color=PALETTE[4],
        edgecolor="white",
        hatch=HATCHES[1],
        label=text("fig.launch.kernels"),
    )
    ax.bar_label(bars_h, padding=2, fontsize=SMALL_PT)
    ax.bar_label(bars_k, padding=2, fontsize=SMALL_PT)
    ax.set_xticks(x, [c.label for c in counts])
    ax.set_ylabel(text("fig.launch.count"))
    ax.set_ylim(0, max(max(host), max(kernels)) * 1.15)
    fig.legend(loc="outside lower center", ncols=2)
    return fig


@styled
def bucketing_figure(costs: Sequence[StrategyCost]) -> Figure:
    """Rows executed (real + padding) and time per group of calls, per strategy.

    >>> from infrabook.bucketing import article_bucketing
    >>> fig = bucketing_figure(article_bucketing().costs("article"))
    >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
    ['通用', '分桶', '逐形状特化']
    """
    if len(costs) == 0:
        raise ValueError("costs must not be empty: give at least one StrategyCost")
    fig, (ax_rows, ax_time) = figure_row(2, 6.8, 4.0)
    # long English names (per-shape specialised) break at a space rather than overlap
    names = [textwrap.fill(strategy_name(c.strategy.name), 10) for c in costs]
    x = np.arange(len(costs))
    real = [c.actual_rows for c in costs]
    pad = [c.executed_rows - c.actual_rows for c in costs]
    ax_rows.bar(x, real, color=PALETTE[0], edgecolor="white", label=text("fig.bucket.real"))
    bars = ax_rows.bar(
        x,
        pad,
        bottom=real,
        color=PALETTE[4],
        edgecolor="white",
        hatch=HATCHES[1],
        label=text("fig.bucket.padding"),
    )
    ax_rows.bar_label(
        bars,
        labels=[
            f"{c.executed_rows}"
            + (f"\n(+{c.padding_fraction:.1%})" if c.executed_rows != c.actual_rows else "")
            for c in costs
        ],
        padding=2,
        fontsize=SMALL_PT,
    )
    ax_rows.set_xticks(x, names)
    ax_rows.set_ylabel(text("fig.bucket.rows"))
    ax_rows.set_ylim(0, max(c.executed_rows for c in costs) * 1.3)
    ax_rows.set_title(text("fig.bucket.rows_title"))

    colours = _colours(names)
    tbars = ax_time.bar(
        x,
        [c.time_ms for c in costs],
        color=[colours[n] for n in names],
        edgecolor="white",
        hatch=[HATCHES[i % len(HATCHES)] for i in x],
    )
    ax_time.bar_label(
        tbars,
        labels=[f"{c.time_ms:.1f} ms\nMFU {c.strategy.mfu:.0%}" for c in costs],
        padding=2,
        fontsize=SMALL_PT,
    )
    ax_time.set_xticks(x, names)
    ax_time.set_ylabel(text("fig.bucket.time"))
    ax_time.set_ylim(0, max(c.time_ms for c in costs) * 1.35)
    ax_time.set_title(text("fig.bucket.time_title"))
    for ax in (ax_rows, ax_time):
        ax.tick_params(axis="x", labelsize=SMALL_PT)
    fig.legend(loc="outside lower center", ncols=2)
    return fig


@styled
def crossover_figure(
    lines: Sequence[Line], r_max: float = 150.0, *, title: str | None = None
) -> Figure:
    """Total time ``P + n·T_run`` of each strategy against the number of runs ``n``.

    Every pairwise crossover inside ``[0, r_max]`` is marked; the background is shaded
    by the cheapest strategy of each regime (:func:`infrabook.crossover.regimes`), whose
    name is written at the top of its band.

    >>> fig = crossover_figure([Line("generic", 100, 17.0), Line("bucketed", 400, 12.4),
    ...                         Line("specialised", 900, 6.8)])
    >>> fig.axes[0].get_xlabel()
    '运行次数 n（调用组数）'
    """
    if not math.isfinite(r_max) or r_max <= 0:
        raise ValueError(f"r_max must be finite and > 0, got {r_max!r}")
    if len(lines) == 0:
        raise ValueError("lines must not be empty: give at least one Line")
    order = [line.name for line in lines]
    colours = _colours(order)
    fig, ax = figure(6.8, 4.6)
    top = max(line.total_ms(r_max) for line in lines) * 1.12
    for regime in regimes(lines):
        lo, hi = regime.start, min(regime.end, r_max)
        if lo < r_max:
            i = order.index(regime.best)
            ax.axvspan(
                lo,
                hi,
                facecolor=colours[regime.best],
                alpha=0.12,
                lw=0,
                hatch=HATCHES[i % len(HATCHES)],
                edgecolor=(0, 0, 0, 0.08),
            )
            ax.text(
                (lo + hi) / 2,
                top * 0.985,
                textwrap.fill(text("fig.crossover.cheapest", name=strategy_name(regime.best)), 14),
                ha="center",
                va="top",
                fontsize=SMALL_PT,
            )
    r = np.linspace(0.0, r_max, 301)
    for i, line in enumerate(lines):
        ax.plot(
            r,
            line.prep_ms + r * line.run_ms,
            color=colours[line.name],
            lw=2,
            marker=MARKERS[i % len(MARKERS)],
            markevery=(i * 10, 50),
            ms=6,
            label=text(
                "fig.crossover.line",
                name=strategy_name(line.name),
                prep=f"{line.prep_ms:g}",
                run=f"{line.run_ms:g}",
            ),
        )
    for c in pairwise(lines):
        if c.runs is not None and 0 < c.runs <= r_max:
            a = next(line for line in lines if line.name == c.a)
            y = a.total_ms(c.runs)
            ax.plot([c.runs], [y], "o", color=INK, ms=5, zorder=5)
            ax.vlines(c.runs, 0, y, color="#555555", lw=0.8, ls=":")
            ax.annotate(
                f"n = {c.runs:.1f}",
                (c.runs, 0),
                textcoords="offset points",
                xytext=(2, 4),
                rotation=90,
                ha="left",
                va="bottom",
                fontsize=SMALL_PT,
            )
    fig.legend(loc="outside lower center", ncols=min(len(lines), 2))
    ax.set_xlim(0, r_max)
    ax.set_ylim(0, top)
    ax.set_xlabel(text("fig.crossover.runs"))
    ax.set_ylabel(text("fig.crossover.total"))
    if title:
        ax.set_title(title)
    return fig


@styled
def padding_sweep_figure(scenario: BucketingScenario, rows: Sequence[int]) -> Figure:
    """Bucketed time over generic time for a group of calls all of one size.

    For each size in ``rows`` the scenario's calls are replaced by one call of that size;
    above 1 bucketing loses. The strategies are the scenario's first two (generic and
    bucketed in the article) at their stated rates.

    >>> from infrabook.bucketing import article_bucketing
    >>> fig = padding_sweep_figure(article_bucketing(), range(1, 2049, 8))
    >>> fig.axes[0].get_ylabel()
    '时间比 分桶 / 通用'
    """
    sizes = [int(r) for r in rows]
    if not sizes:
        raise ValueError("rows must not be empty: give at least one call size")
    ratios = []
    for size in sizes:
        generic, bucketed = replace(scenario, calls=((size, 1),)).costs("article")[:2]
        ratios.append(bucketed.time_ms / generic.time_ms)
    g, b = (strategy_name(s.name) for s in scenario.strategies[:2])
    fig, ax = figure(6.4, 3.8)
    ratio = np.array(ratios)
    ax.plot(sizes, ratio, color=PALETTE[0], lw=1.8, label=text("fig.sweep.ratio", b=b, g=g))
    ax.axhline(1.0, color=INK, lw=1, ls="--", label=text("fig.sweep.even"))
    ax.fill_between(
        sizes,
        1.0,
        ratio,
        where=ratio > 1.0,
        facecolor=PALETTE[1],
        alpha=0.25,
        hatch=HATCHES[1],
        edgecolor=(0, 0, 0, 0.15),
        label=text("fig.sweep.loses", b=b),
    )
    for bucket in scenario.buckets:
        ax.axvline(bucket, color="#999999", lw=0.8, ls=":")
    ax.set_xlabel(text("fig.sweep.rows"))
    ax.set_ylabel(text("fig.sweep.ylabel", b=b, g=g))
    ax.set_ylim(0, max(ratios) * 1.1)
    fig.legend(loc="outside lower center", ncols=3)
    return fig


@styled
def tile_schedule_figure(tiles: int, programs: int) -> Figure:
    """Which program handles which tile: one program per tile against a persistent grid
    of ``programs`` programs that stride over the tiles (tile t goes to program t mod P).

    >>> fig = tile_schedule_figure(16, 4)
    >>> fig.axes[0].get_yticklabels()[0].get_text()
    '常驻 kernel（4 个程序）'
    """
    if tiles < 1 or programs < 1:
        raise ValueError(f"tiles and programs must be >= 1, got {tiles} and {programs}")
    fig, ax = figure(6.8, 2.4)
    for t in range(tiles):
        ax.barh(1, 1, left=t, color=PALETTE[t % len(PALETTE)], alpha=0.55, edgecolor="white")
        ax.text(t + 0.5, 1, str(t), ha="center", va="center", fontsize=SMALL_PT, color=INK)
        p = t % programs
        ax.barh(0, 1, left=t, color=PALETTE[p % len(PALETTE)], alpha=0.55, edgecolor="white")
        ax.text(t + 0.5, 0, str(p), ha="center", va="center", fontsize=SMALL_PT, color=INK)
    ax.set_yticks(
        [0, 1],
        [text("fig.tiles.persistent", programs=programs), text("fig.tiles.per_tile", tiles=tiles)],
    )
    ax.set_xlabel(text("fig.tiles.xlabel"))
    ax.set_xlim(0, tiles)
    ax.grid(False)
    return fig
