"""Figures of the benchmark records: one function per experiment that has a curve.

Each takes an entry (:class:`infrabook.bench.records.entry.Entry`) and where it was measured;
pages call them through :func:`infrabook.bench.records.report.figure`, which reads the record.
Names from the record (paths, kernels, a reason) are drawn as plain text: no ``$`` in them
starts mathtext, and SVG output escapes ``<`` and ``&`` as XML does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import matplotlib as mpl
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.transforms import offset_copy

from infrabook.bench.records.timing import MODES
from infrabook.labels import text
from infrabook.plots.style import book_style, figure_row
from infrabook.plots.style import figure as new_figure
from infrabook.units import MiB

if TYPE_CHECKING:  # the entry's module imports torch, which a figure does not need
    from infrabook.bench.records.entry import Entry

GREY = "#888888"


def _log2_ticks(ax: Axes, xs: Sequence[int]) -> None:
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(xs), [str(x) for x in xs])
    ax.minorticks_off()


def _single(width: float = 6.4, height: float = 3.6) -> tuple[Figure, Axes]:
    return new_figure(min(width, 7.0), height)


def _seq_len_axes(ax: Axes, seq_lens: Sequence[int], ylabel: str, title: str) -> None:
    _log2_ticks(ax, seq_lens)
    ax.set_xlabel(text("bench.fig.seq_len"))
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend()


def _categories(names: Sequence[str]) -> list[str]:
    r"""Names from a record as tick labels: drawn later, when mathtext is on again, so a
    ``$`` is escaped to show as itself.

    >>> _categories(["eager", "a$b$"])
    ['eager', 'a\\$b\\$']
    """
    return [name.replace("$", r"\$") for name in names]


def _message(words: str) -> Figure:
    fig, ax = _single(6.4, 1.6)
    ax.axis("off")
    ax.text(0.5, 0.5, words, ha="center", va="center", transform=ax.transAxes)
    return fig


def shapes(e: Entry, where: str) -> Figure:
    """Matmul GFLOP/s against rows, with the estimated peak of the cores."""
    fig, ax = _single()
    rates = e.results.rates(e.params)
    rows = list(rates)
    ax.plot(rows, list(rates.values()), marker="o", label=text("bench.fig.measured"))
    peak = e.results.est_peak_gflop_s(e.params)
    if peak:
        ax.axhline(peak, ls="--", color=GREY, label=text("bench.fig.est_peak"))
    _log2_ticks(ax, rows)
    ax.set_xlabel(text("bench.fig.rows"))
    ax.set_ylabel("GFLOP/s")
    ax.set_title(text("bench.fig.shapes", k=e.params["k"], n=e.params["n"], where=where))
    ax.legend()
    return fig


def attention_memory(e: Entry, where: str) -> Figure:
    """Peak memory of naive and blockwise attention against L, beside the model."""
    fig, ax = _single()
    per = e.results.per_seq_len
    ls = [r.seq_len for r in per]
    naive, model = (
        [r.naive_peak_bytes / MiB for r in per],
        [r.predicted_naive_bytes / MiB for r in per],
    )
    ax.plot(ls, naive, marker="o", label=text("bench.fig.naive_measured"))
    ax.plot(ls, model, ls="--", label=text("bench.fig.naive_model"))
    block = [r.blockwise_peak_bytes / MiB for r in per]
    ax.plot(ls, block, marker="s", label=text("bench.fig.block_measured"))
    ax.set_yscale("log")
    title = text("bench.fig.attention", d=e.params["head_dim"], where=where)
    _seq_len_axes(ax, ls, text("bench.fig.peak_mib"), title)
    return fig


def fusion(e: Entry, where: str) -> Figure:
    """Median time and effective bandwidth of the eager and fused paths."""
    fig, (left, right) = figure_row(2, 7.0, 3.4)
    paths = {n: p for n, p in e.results.paths.items() if p.timing and n != "copy"}
    left.bar(_categories(list(paths)), [p.timing.ms for p in paths.values()])
    if "eager" in paths:
        left.axhline(
            paths["eager"].timing.ms / e.results.model_speedup,
            ls="--",
            color=GREY,
            label=text("bench.fig.if_bytes"),
        )
        left.legend(loc="upper left")
    left.set_ylabel(text("bench.fig.median_ms"))
    left.set_title(text("bench.fig.time"))
    right.bar(_categories(list(paths)), [p.gb_s for p in paths.values()])
    right.axhline(e.results.paths["copy"].gb_s, ls="--", color=GREY, label=text("bench.fig.copy"))
    right.set_ylabel(text("bench.fig.gb_s"))
    right.set_title(text("bench.fig.bandwidth"))
    right.legend(loc="upper right")
    fig.suptitle(
        text("bench.fig.fusion", rows=e.params["rows"], cols=e.params["cols"], where=where)
    )
    return fig


def gpu_flash(e: Entry, where: str) -> Figure:
    """TFLOP/s of the Triton kernel and of SDPA against L."""
    fig, ax = _single()
    per = e.results.per_seq_len
    ls = [r.seq_len for r in per]
    ax.plot(ls, [r.tflop_s("flash") for r in per], marker="o", label="Triton flash")
    ax.plot(ls, [r.tflop_s("sdpa") for r in per], marker="s", label="PyTorch SDPA")
    _seq_len_axes(ax, ls, "TFLOP/s", text("bench.fig.flash", d=e.params["head_dim"], where=where))
    return fig


def gpu_swiglu(e: Entry, where: str) -> Figure:
    """Model GB/s of each path at the article's shape, L2 flushed and not."""
    fig, ax = _single()
    shape = e.results.shapes[0]
    names = list(shape.paths)
    xs = range(len(names))
    for i, mode in enumerate(MODES):
        ax.bar(
            [x + (i - 0.5) * 0.4 for x in xs],
            [shape.paths[n].gb_s(mode) for n in names],
            width=0.4,
            label=text(f"bench.l2.{mode}"),
        )
    ax.set_xticks(list(xs), _categories(names))
    ax.set_ylabel(text("bench.fig.gb_s"))
    ax.set_title(text("bench.fig.swiglu", rows=shape.rows, cols=shape.cols, where=where))
    ax.legend()
    return fig


def machines(rows: dict[str, tuple[float, dict[str, float | None]]]) -> Figure:
    """One mark per machine on each row, at its measured value over the book's model, so
    that 1 is the model: ``rows`` maps a row's label to the model's value and each record's
    (None where a record lacks the row). A figure that says so when no record has a row."""
    with mpl.rc_context({"text.parse_math": False}):
        if not rows:
            return _message(text("bench.not_measured"))
        with book_style():
            fig, ax = _single(
                6.4, 1.8 + 0.42 * len(rows) + 0.25 * len(next(iter(rows.values()))[1])
            )
            labels = list(rows)
            names = list(next(iter(rows.values()))[1])
            markers = "osD^vP*X"
            for i, name in enumerate(names):
                offset = (i - (len(names) - 1) / 2) * 0.12
                points = [(rows[row][1].get(name), rows[row][0], y) for y, row in enumerate(labels)]
                xy = [(v / model, y + offset) for v, model, y in points if v is not None]
                xs, ys = [x for x, _ in xy], [y for _, y in xy]
                ax.plot(xs, ys, markers[i % len(markers)], ls="", label=name)
            ax.axvline(1.0, ls="--", color=GREY, label=text("bench.fig.model"))
            ax.set_yticks(range(len(labels)), _categories(labels))
            ax.invert_yaxis()
            ax.set_xlabel(text("bench.fig.ratio"))
            ax.set_title(text("bench.fig.machines"))
            # below the axes, clear of the x label, whatever the figure's height: marks may
            # sit anywhere on the ratio axis
            below = offset_copy(ax.transAxes, fig=fig, y=-36, units="points")
            ax.legend(
                loc="upper center", bbox_to_anchor=(0.5, 0), bbox_transform=below, fontsize="small"
            )
            return fig


FIGURES: dict[str, Callable[[Entry, str], Figure]] = {
    "fusion": fusion,
    "attention_memory": attention_memory,
    "shapes": shapes,
    "gpu_swiglu": gpu_swiglu,
    "gpu_flash": gpu_flash,
}


def figure(experiment: str, entry: Entry | None, where: str | None) -> Figure:
    """The figure of ``experiment`` from ``entry``, or one that says why there is none."""
    if experiment not in FIGURES:
        raise ValueError(f"no figure for {experiment!r}: figures exist for {', '.join(FIGURES)}")
    with mpl.rc_context({"text.parse_math": False}):  # text made now is never mathtext
        if entry is None:
            return _message(text("bench.not_measured"))
        if entry.status != "ok":
            return _message(text("bench.not_run", reason=entry.reason or entry.status))
        with book_style():
            return FIGURES[experiment](entry, where or "")
