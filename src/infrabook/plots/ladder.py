"""The attention ladder's figure: each rung's measured TFLOP/s beside reference lines."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from infrabook.labels import text
from infrabook.plots.style import INK, PALETTE, styled
from infrabook.plots.style import figure as new_figure


@styled
def ladder_bars(
    rungs: Sequence[str],
    measured: Mapping[str, float],
    lines: Mapping[str, float],
    title: str,
) -> Figure:
    """Bars of the rungs' TFLOP/s (``measured``, by rung name; a rung missing from it is
    written "not yet measured" instead of drawn), with each of ``lines`` (a label and its
    TFLOP/s) as a dashed horizontal line.

    >>> fig = ladder_bars(["baseline", "tma"], {"baseline": 477.0}, {"SDPA": 616.0}, "L")
    >>> words = [t.get_text() for t in fig.axes[0].texts]
    >>> words == ["477", text("prose.ladder.not_measured"), "SDPA: 616"]
    True
    """
    fig, ax = new_figure(6.4, 3.6)
    xs = list(range(len(rungs)))
    top = max([*measured.values(), *lines.values(), 1.0])
    for x, name in zip(xs, rungs, strict=True):
        if name in measured:
            ax.bar(x, measured[name], color=PALETTE[0], width=0.6)
            ax.text(x, measured[name], f"{measured[name]:.0f}", ha="center", va="bottom")
        else:
            ax.text(
                x,
                0.04 * top,
                text("prose.ladder.not_measured"),
                ha="center",
                va="bottom",
                rotation=90,
                color=INK,
            )
    for i, (label, value) in enumerate(lines.items()):
        # labelled on the line itself: a legend would cover the unmeasured rungs' words
        ax.axhline(value, ls="--", color=PALETTE[1 + i])
        ax.text(
            xs[-1] + 0.4,
            value,
            f"{label}: {value:.0f}",
            ha="right",
            va="bottom",
            color=PALETTE[1 + i],
        )
    ax.set_xticks(xs, [f"{x}\n{name}" for x, name in zip(xs, rungs, strict=True)])
    ax.set_xlim(-0.6, xs[-1] + 0.6)
    ax.set_ylim(0, 1.15 * top)
    ax.set_ylabel("TFLOP/s")
    ax.set_title(title)
    return fig
