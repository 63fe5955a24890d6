"""Figures for chapter 5 (runtime) and the pages that lean on it (7, 8).

Each function takes what the calculators return (launch counts, strategy costs, cost
lines) and draws it in the book's style (:func:`infrabook.plots.style.figure`); it computes
nothing the calculators do not already give, apart from sampling lines for drawing.
Labels are English: the build machines have no CJK font.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from infrabook.bucketing import BucketingScenario, StrategyCost
from infrabook.crossover import Line, pairwise, regimes
from infrabook.launches import LaunchCount
from infrabook.plots.style import PALETTE, figure


def _colours(names: Sequence[str]) -> dict[str, str]:
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(names)}


def launch_counts_figure(counts: Sequence[LaunchCount]) -> Figure:
    """Host submissions beside kernels executed, one pair of bars per configuration.

    >>> from infrabook.launches import launch_counts
    >>> fig = launch_counts_figure(launch_counts(3, 6, 5))
    >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
    ['eager', 'graph', 'fused', 'fused+graph']
    """
    if len(counts) == 0:
        raise ValueError("counts must not be empty")
    fig, ax = figure(6.4, 3.4)
    x = np.arange(len(counts))
    width = 0.38
    host = [c.host_submissions for c in counts]
    kernels = [c.kernels for c in counts]
    bars_h = ax.bar(x - width / 2, host, width, label="host submissions (control plane)")
    bars_k = ax.bar(x + width / 2, kernels, width, label="kernels executed (data plane)")
    ax.bar_label(bars_h, padding=2)
    ax.bar_label(bars_k, padding=2)
    ax.set_xticks(x, [c.name for c in counts])
    ax.set_ylabel("count per batch of runs")
    ax.set_ylim(0, max(max(host), max(kernels)) * 1.2)
    ax.legend(loc="upper right", frameon=False)
    return fig


def bucketing_figure(costs: Sequence[StrategyCost]) -> Figure:
    """Rows executed (real + padding) and time per group of calls, per strategy.

    >>> from infrabook.bucketing import article_bucketing
    >>> fig = bucketing_figure(article_bucketing().costs("article"))
    >>> len(fig.axes)
    2
    """
    if len(costs) == 0:
        raise ValueError("costs must not be empty")
    fig, (ax_rows, ax_time) = figure(7.6, 3.4, ncols=2)
    names = [c.strategy.name for c in costs]
    x = np.arange(len(costs))
    real = [c.actual_rows for c in costs]
    pad = [c.executed_rows - c.actual_rows for c in costs]
    ax_rows.bar(x, real, color=PALETTE[0], label="real rows")
    bars = ax_rows.bar(x, pad, bottom=real, color=PALETTE[1], label="padding rows")
    ax_rows.bar_label(
        bars,
        labels=[f"{c.executed_rows}" + (f"\n(+{c.padding_fraction:.1%})" if c.executed_rows
                                        != c.actual_rows else "") for c in costs],
        padding=2,
    )
    ax_rows.set_xticks(x, names)
    ax_rows.set_ylabel("rows executed per group")
    ax_rows.set_ylim(0, max(c.executed_rows for c in costs) * 1.5)
    ax_rows.legend(loc="upper center", ncols=2, frameon=False)
    ax_rows.set_title("work: rows executed")

    colours = _colours(names)
    tbars = ax_time.bar(x, [c.time_ms for c in costs], color=[colours[n] for n in names])
    ax_time.bar_label(
        tbars,
        labels=[f"{c.time_ms:.1f} ms\nMFU {c.strategy.mfu:.0%}" for c in costs],
        padding=2,
    )
    ax_time.set_xticks(x, names)
    ax_time.set_ylabel("time per group (ms)")
    ax_time.set_ylim(0, max(c.time_ms for c in costs) * 1.35)
    ax_time.set_title("time: rows / (MFU x peak)")
    return fig


def crossover_figure(
    lines: Sequence[Line], r_max: float = 150.0, *, title: str | None = None
) -> Figure:
    """Total time ``P + r*T`` of each strategy against the number of runs ``r``.

    Every pairwise crossover inside ``[0, r_max]`` is marked; the background is shaded
    by the cheapest strategy of each regime (:func:`infrabook.crossover.regimes`).

    >>> fig = crossover_figure([Line("generic", 100, 17.0), Line("bucketed", 400, 12.4),
    ...                         Line("specialised", 900, 6.8)])
    >>> fig.axes[0].get_xlabel()
    'runs r (groups of calls)'
    """
    if not math.isfinite(r_max) or r_max <= 0:
        raise ValueError(f"r_max must be finite and > 0, got {r_max!r}")
    colours = _colours([line.name for line in lines])
    fig, ax = figure(6.8, 4.0)
    for regime in regimes(lines):
        lo, hi = regime.start, min(regime.end, r_max)
        if lo < r_max:
            ax.axvspan(lo, hi, color=colours[regime.best], alpha=0.10, lw=0)
    r = np.linspace(0.0, r_max, 301)
    for line in lines:
        ax.plot(r, line.prep_ms + r * line.run_ms, color=colours[line.name], lw=2,
                label=f"{line.name}: {line.prep_ms:g} + {line.run_ms:g} r ms")
    for c in pairwise(lines):
        if 0 < c.runs <= r_max:
            a = next(line for line in lines if line.name == c.a)
            y = a.total_ms(c.runs)
            ax.plot([c.runs], [y], "o", color="#111111", ms=5, zorder=5)
            ax.vlines(c.runs, 0, y, color="#555555", lw=0.8, ls=":")
            ax.annotate(f"r = {c.runs:.1f}", (c.runs, 0), textcoords="offset points",
                        xytext=(2, 4), rotation=90, ha="left", va="bottom", fontsize=8)
    handles, _ = ax.get_legend_handles_labels()
    shaded = sorted({g.best for g in regimes(lines)}, key=[ln.name for ln in lines].index)
    handles += [Patch(color=colours[n], alpha=0.25, label=f"cheapest: {n}") for n in shaded]
    ax.legend(handles=handles, loc="upper left", frameon=False, fontsize=8)
    ax.set_xlim(0, r_max)
    ax.set_ylim(0, None)
    ax.set_xlabel("runs r (groups of calls)")
    ax.set_ylabel("total time P + r T (ms)")
    if title:
        ax.set_title(title)
    return fig


def padding_sweep_figure(scenario: BucketingScenario, rows: Sequence[int]) -> Figure:
    """Bucketed time over generic time for a group of calls all of one size.

    For each size in ``rows`` the scenario's calls are replaced by one call of that size;
    above 1 bucketing loses. The strategies are the scenario's first two (generic and
    bucketed in the article) at their stated rates.

    >>> from infrabook.bucketing import article_bucketing
    >>> fig = padding_sweep_figure(article_bucketing(), range(1, 2049, 8))
    >>> fig.axes[0].get_ylabel()
    'time ratio bucketed / generic'
    """
    sizes = [int(r) for r in rows]
    if not sizes:
        raise ValueError("rows must not be empty")
    ratios = []
    for size in sizes:
        generic, bucketed = replace(scenario, calls=((size, 1),)).costs("article")[:2]
        ratios.append(bucketed.time_ms / generic.time_ms)
    names = [s.name for s in scenario.strategies[:2]]
    fig, ax = figure(6.4, 3.4)
    ratio = np.array(ratios)
    ax.plot(sizes, ratio, color=PALETTE[1], lw=1.8, label=f"{names[1]} / {names[0]}")
    ax.axhline(1.0, color="#333333", lw=1, ls="--", label="break-even")
    ax.fill_between(sizes, 1.0, ratio, where=ratio > 1.0, color=PALETTE[3], alpha=0.2,
                    label=f"{names[1]} loses")
    for b in scenario.buckets:
        ax.axvline(b, color="#999999", lw=0.8, ls=":")
    ax.set_xlabel("rows per call (all calls the same size)")
    ax.set_ylabel(f"time ratio {names[1]} / {names[0]}")
    ax.set_ylim(0, max(ratios) * 1.1)
    ax.legend(loc="upper right", frameon=False, fontsize=8)
    return fig


def tile_schedule_figure(tiles: int, programs: int) -> Figure:
    """Which program handles which tile: one program per tile against a persistent grid
    of ``programs`` programs that stride over the tiles (tile t goes to program t mod P).

    >>> fig = tile_schedule_figure(16, 4)
    >>> fig.axes[0].get_yticklabels()[0].get_text()
    'persistent (4 programs)'
    """
    if tiles < 1 or programs < 1:
        raise ValueError(f"tiles and programs must be >= 1, got {tiles} and {programs}")
    fig, ax = figure(6.8, 2.2)
    cmap = [PALETTE[i % len(PALETTE)] for i in range(max(tiles, programs))]
    for t in range(tiles):
        ax.barh(1, 1, left=t, color=cmap[t % len(cmap)], edgecolor="white")
        ax.text(t + 0.5, 1, str(t), ha="center", va="center", fontsize=7, color="#111111")
        p = t % programs
        ax.barh(0, 1, left=t, color=PALETTE[p % len(PALETTE)], edgecolor="white")
        ax.text(t + 0.5, 0, str(p), ha="center", va="center", fontsize=7, color="#111111")
    ax.set_yticks([0, 1], [f"persistent ({programs} programs)", f"per tile ({tiles} programs)"])
    ax.set_xlabel("tile index (cell text: id of the program that computes it)")
    ax.set_xlim(0, tiles)
    ax.grid(False)
    return fig
