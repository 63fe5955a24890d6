"""The chapter-5 figures draw what the calculators give, and reject empty or bad input."""

from __future__ import annotations

import pytest
from matplotlib.figure import Figure

from infrabook.bucketing import article_bucketing
from infrabook.crossover import Line, regimes
from infrabook.launches import article_launch_counts
from infrabook.plots import runtime


def _lines() -> list[Line]:
    return [
        Line(c.strategy.name, c.strategy.prep_ms, c.time_ms)
        for c in article_bucketing().costs("article")
    ]


def _crossings(ax):
    """The crossing points: single dots, with no line between points."""
    return [ln for ln in ax.get_lines() if len(ln.get_xdata()) == 1]


def test_launch_counts_figure_bars_carry_the_counts() -> None:
    counts = article_launch_counts()
    fig = runtime.launch_counts_figure(counts)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    heights = [int(p.get_height()) for p in ax.patches]
    assert heights == [c.host_submissions for c in counts] + [c.kernels for c in counts]
    assert fig.legends, "the figure needs a legend"


def test_bucketing_figure_stacks_padding_on_real_rows() -> None:
    costs = article_bucketing().costs("article")
    fig = runtime.bucketing_figure(costs)
    ax_rows, ax_time = fig.axes
    n = len(costs)
    real = [p.get_height() for p in ax_rows.patches[:n]]
    pad = [p.get_height() for p in ax_rows.patches[n : 2 * n]]
    assert [r + p for r, p in zip(real, pad, strict=True)] == [c.executed_rows for c in costs]
    assert [p.get_height() for p in ax_time.patches] == pytest.approx([c.time_ms for c in costs])
    assert ax_time.get_ylabel() == "每组时间（ms）"
    assert [t.get_text() for t in ax_time.get_xticklabels()] == ["通用", "分桶", "逐形状特化"]


def test_crossover_figure_marks_every_crossing_in_range() -> None:
    lines = _lines()
    fig = runtime.crossover_figure(lines, 150)
    ax = fig.axes[0]
    assert len(_crossings(ax)) == 3
    assert len(ax.get_lines()) == len(lines) + 3
    shaded = [p for p in ax.patches if p.get_alpha() == pytest.approx(0.12)]
    assert len(shaded) == len(regimes(lines))
    cheapest = [t.get_text() for t in ax.texts if t.get_text().startswith("最省")]
    assert cheapest == ["最省：通用", "最省：分桶", "最省：逐形状特化"]


def test_crossover_figure_leaves_out_crossings_beyond_range() -> None:
    fig = runtime.crossover_figure(_lines(), 70)
    assert len(_crossings(fig.axes[0])) == 1


def test_padding_sweep_is_above_one_just_past_a_bucket() -> None:
    sc = article_bucketing()
    first = sc.buckets[0]
    fig = runtime.padding_sweep_figure(sc, [first, first + 1])
    y = fig.axes[0].get_lines()[0].get_ydata()
    assert y[0] < 1 < y[1]


def test_tile_schedule_assigns_tiles_round_robin() -> None:
    fig = runtime.tile_schedule_figure(10, 4)
    texts = [t.get_text() for t in fig.axes[0].texts]
    persistent = texts[1::2]
    assert persistent == [str(t % 4) for t in range(10)]


@pytest.mark.parametrize(
    ("func", "args", "message"),
    [
        (runtime.launch_counts_figure, ([],), "counts must not be empty"),
        (runtime.bucketing_figure, ([],), "costs must not be empty"),
        (runtime.crossover_figure, (_lines(), 0), "r_max must be finite and > 0, got 0"),
        (runtime.crossover_figure, (_lines(), float("inf")), "got inf"),
        (runtime.crossover_figure, ([],), "lines must not be empty"),
        (runtime.padding_sweep_figure, (article_bucketing(), []), "rows must not be empty"),
        (runtime.tile_schedule_figure, (0, 4), "got 0 and 4"),
    ],
)
def test_bad_input_raises_value_error(func, args, message) -> None:
    with pytest.raises(ValueError, match=message):
        func(*args)
