"""Every figure of the book: SVG with real text, readable sizes, legends clear of the data,
Chinese words, a transparent background, and no global matplotlib setting changed."""

from __future__ import annotations

import importlib
import re
import xml.etree.ElementTree as ET

import matplotlib as mpl
import pytest

from infrabook.bucketing import article_bucketing
from infrabook.crossover import Line
from infrabook.dataflow import fully_fused, unfused
from infrabook.ffn_chain import activation_chain
from infrabook.launches import article_launch_counts
from infrabook.plots import attention, fusion, runtime, style
from infrabook.plots.style import MAX_WIDTH_IN, SMALL_PT, BookFigure, figure, figure_row

SVG = "{http://www.w3.org/2000/svg}"
TWO = activation_chain(1024, 12288, "bf16")


def _lines() -> list[Line]:
    return [
        Line(c.strategy.name, c.strategy.prep_ms, c.time_ms)
        for c in article_bucketing().costs("article")
    ]


FIGURES = {
    "traffic_bars": lambda: fusion.traffic_bars(
        TWO, [("分开", unfused(TWO)), ("融合", fully_fused(TWO))]
    ),
    "liveness": lambda: fusion.liveness_timeline(
        TWO, [("分开", unfused(TWO)), ("融合", fully_fused(TWO))]
    ),
    "attention": lambda: attention.traffic_plot(
        [2**k for k in range(9, 17)], 128, "bf16", "fp32", 128, 64, (128, 128), mark=8192
    ),
    "launches": lambda: runtime.launch_counts_figure(article_launch_counts()),
    "bucketing": lambda: runtime.bucketing_figure(article_bucketing().costs("article")),
    "crossover": lambda: runtime.crossover_figure(_lines(), 150),
    "sweep": lambda: runtime.padding_sweep_figure(article_bucketing(), range(1, 2049, 8)),
    "tiles": lambda: runtime.tile_schedule_figure(16, 4),
}
# Words of the figures before they were translated: none may come back.
ENGLISH = re.compile(
    r"\b(generic|bucketed|specialised|read|written|intermediate|traffic|"
    r"peak|kernels executed|host submissions|rows|runs|cheapest|"
    r"sequence length|standard|ideal|persistent|tile index|time)\b"
)


@pytest.fixture(scope="module", params=sorted(FIGURES))
def drawn(request) -> tuple[str, BookFigure, str]:
    fig = FIGURES[request.param]()
    return request.param, fig, fig.svg()


def test_figures_are_svg_with_text_not_outlines(drawn) -> None:
    _, _, svg = drawn
    root = ET.fromstring(svg)
    texts = [t for t in root.iter(f"{SVG}text")]
    assert texts, "labels must stay <text> elements"
    # With text kept as text there are no glyph outlines to reuse.
    assert not root.findall(f".//{SVG}defs/{SVG}path[@id]") or "DejaVuSans-" not in svg
    assert "Noto Sans CJK SC" in svg


def test_figures_speak_chinese(drawn) -> None:
    name, fig, _ = drawn
    words = [t.get_text() for t in fig.findobj(mpl.text.Text) if t.get_visible()]
    assert any(re.search(r"[\u4e00-\u9fff]", w) for w in words), f"{name}: no Chinese label"
    leftovers = [w for w in words if ENGLISH.search(w)]
    assert leftovers == [], f"{name}: English words left: {leftovers}"


def test_text_is_at_least_the_smallest_size(drawn) -> None:
    name, fig, _ = drawn
    small = [
        (t.get_text(), t.get_fontsize())
        for t in fig.findobj(mpl.text.Text)
        if t.get_visible() and t.get_text() and t.get_fontsize() < SMALL_PT
    ]
    assert small == [], f"{name}: text below {SMALL_PT} pt"
    assert fig.get_figwidth() <= MAX_WIDTH_IN


def test_legends_stay_off_the_axes(drawn) -> None:
    name, fig, _ = drawn
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for ax in fig.axes:
            assert not box.overlaps(ax.get_window_extent(renderer)), f"{name}: legend on axes"


def test_background_is_transparent_and_files_are_reproducible(drawn) -> None:
    name, fig, svg = drawn
    assert fig.get_facecolor()[3] == 0.0
    assert all(ax.get_facecolor()[3] == 0.0 for ax in fig.axes)
    assert FIGURES[name]().svg() == svg


def test_no_global_setting_changes() -> None:
    before = dict(mpl.rcParams)
    importlib.reload(style)
    fig, _ = style.figure()
    fig.svg()
    runtime.crossover_figure(_lines(), 150).svg()
    assert dict(mpl.rcParams) == before


def test_notebooks_get_svg() -> None:
    fig, _ = figure(3, 2)
    assert fig._repr_svg_().lstrip().startswith("<?xml")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: figure(0), r"width must be in \(0, 7.0\] inches, got 0"),
        (lambda: figure(6, -1), r"height must be in .* got -1"),
        (lambda: figure_row(True), "n must be a whole number >= 1, got True"),
        (lambda: figure_row(2, width_ratios=[1]), "width_ratios needs 2 values, got 1"),
    ],
)
def test_bad_sizes_are_refused(call, message) -> None:
    with pytest.raises(ValueError, match=message):
        call()
