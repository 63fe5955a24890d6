"""Two explanatory diagrams: FlashAttention's tiling (one query block against the K/V
blocks, what stays on chip) and a decision guide (which of the book's optimisations when)."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

from infrabook.checks import check_positive_int
from infrabook.crossover import Regime
from infrabook.labels import text
from infrabook.plots import style

_SHOWN = 8  # blocks drawn along each side of the score matrix


@style.styled
def flash_tiling(seq_len: int, block_q: int, block_k: int, q_block: int = 2) -> Figure:
    """The L x L score matrix in blocks of ``block_q`` x ``block_k`` (a corner drawn): one
    query block's row of score blocks, the K/V block being visited, and which data stay on
    chip (the Q block, the statistics m, l, u) and which stream from HBM (K, V blocks).

    >>> fig = flash_tiling(8192, 128, 64)
    >>> texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    >>> "64" in texts and "128" in texts
    True
    >>> flash_tiling(8192, 0, 64)
    Traceback (most recent call last):
    ...
    ValueError: block_q must be a positive integer, got 0
    """
    check_positive_int("seq_len", seq_len)
    check_positive_int("block_q", block_q)
    check_positive_int("block_k", block_k)
    q_blocks, k_blocks = -(-seq_len // block_q), -(-seq_len // block_k)
    fig, ax = style.figure(7.0, 4.4)
    ax.set_axis_off()
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 6.6)
    cell, left, top = 0.5, 2.4, 5.6
    visiting = 3
    for r in range(_SHOWN):
        for c in range(_SHOWN):
            row = r == q_block
            colour = style.PALETTE[1] if row and c == visiting else style.PALETTE[5]
            alpha = 0.75 if row and c == visiting else (0.35 if row else 0.08)
            x, y = left + c * cell, top - (r + 1) * cell
            ax.add_patch(
                Rectangle((x, y), cell, cell, facecolor=colour, alpha=alpha, edgecolor=style.INK)
            )
    matrix = text("flash_tiles.matrix", q=f"{q_blocks:,}", k=f"{k_blocks:,}", L=f"{seq_len:,}")
    ax.text(left + _SHOWN * cell / 2, top + 0.15, matrix, ha="center", va="bottom", fontsize=10)
    # Q block on the left, K/V blocks on top of the matrix's columns
    y_row = top - (q_block + 1) * cell
    ax.add_patch(
        Rectangle((0.3, y_row), 1.6, cell, facecolor=style.PALETTE[2], alpha=0.5, ec=style.INK)
    )
    ax.text(
        1.1,
        y_row + cell / 2,
        text("flash_tiles.q", rows=block_q),
        ha="center",
        va="center",
        fontsize=10,
    )
    ax.text(1.1, y_row - 0.35, text("flash_tiles.q_note"), ha="center", va="top", fontsize=10)
    x_kv = left + visiting * cell
    ax.add_patch(
        FancyArrowPatch(
            (x_kv + cell / 2, 0.9),
            (x_kv + cell / 2, top - _SHOWN * cell),
            arrowstyle="->",
            mutation_scale=13,
            color=style.INK,
        )
    )
    ax.text(
        x_kv + cell / 2,
        0.75,
        text("flash_tiles.kv", cols=block_k),
        ha="center",
        va="top",
        fontsize=10,
    )
    ax.add_patch(
        FancyArrowPatch(
            (left + _SHOWN * cell + 0.1, y_row + cell / 2),
            (7.0, y_row + cell / 2),
            arrowstyle="->",
            mutation_scale=13,
            color=style.INK,
        )
    )
    ax.text(7.1, y_row + cell / 2, text("flash_tiles.stats"), ha="left", va="center", fontsize=10)
    ax.text(
        7.1,
        1.5,
        text("flash_tiles.reread", times=f"{q_blocks:,}"),
        ha="left",
        va="center",
        fontsize=10,
    )
    return fig


def _node(ax, x, y, label, colour, width=2.9, height=0.95):
    ax.add_patch(
        FancyBboxPatch(
            (x - width / 2, y - height / 2),
            width,
            height,
            boxstyle="round,pad=0.05",
            facecolor=colour,
            alpha=0.25,
            edgecolor=style.INK,
        )
    )
    ax.text(x, y, label, ha="center", va="center", fontsize=10)


def _link(ax, start, end, label=""):
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="->", mutation_scale=12, color=style.INK))
    if label:
        mid = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
        ax.text(mid[0], mid[1] + 0.1, label, ha="center", va="bottom", fontsize=10)


@style.styled
def decision_guide(envelope: Sequence[Regime], names: dict[str, str]) -> Figure:
    """Which optimisation when: is the time in the kernels' memory traffic, in host
    submission, or in shapes that keep changing; for the last, the regimes of run counts
    ``envelope`` (from :func:`infrabook.crossover.regimes`, strategies named by ``names``).

    >>> from infrabook.crossover import Line, regimes
    >>> env = regimes([Line("generic", 100, 17.0), Line("bucketed", 400, 12.4),
    ...                Line("specialised", 900, 6.8)])
    >>> fig = decision_guide(env, {"generic": "G", "bucketed": "B", "specialised": "S"})
    >>> any("65.2" in t.get_text() for t in fig.axes[0].texts)
    True
    """
    if not envelope:
        raise ValueError("envelope needs at least one regime")
    fig, ax = style.figure(7.0, 5.6)
    ax.set_axis_off()
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 8)
    questions = [
        (text("guide.q_memory"), text("guide.a_memory")),
        (text("guide.q_launch"), text("guide.a_launch")),
        (text("guide.q_tiles"), text("guide.a_tiles")),
        (text("guide.q_shapes"), None),
    ]
    ys = [7.2, 5.5, 3.8, 2.1]
    for i, ((question, answer), y) in enumerate(zip(questions, ys, strict=True)):
        _node(ax, 2.2, y, question, style.PALETTE[0], width=3.9)
        if answer is not None:
            _node(ax, 7.6, y, answer, style.PALETTE[2], width=4.2)
            _link(ax, (4.2, y), (5.45, y), text("guide.yes"))
        if i + 1 < len(ys):
            _link(ax, (2.2, y - 0.5), (2.2, ys[i + 1] + 0.5), text("guide.no"))
    parts = []
    for g in envelope:
        end = "∞" if g.end == float("inf") else f"{g.end:.1f}"
        parts.append(text("guide.regime", start=f"{g.start:.1f}", end=end, name=names[g.best]))
    _node(ax, 7.6, 1.2, "\n".join(parts), style.PALETTE[4], width=4.2, height=1.5)
    _link(ax, (4.2, 2.0), (5.45, 1.5), text("guide.yes"))
    ax.text(7.6, 0.2, text("guide.regime_note"), ha="center", va="center", fontsize=10)
    return fig
