"""Figures for the FlashAttention page (chapter 3); its tables come
from :mod:`infrabook.calculators`.

They draw what :mod:`infrabook.attention_sizes` and
:mod:`infrabook.online_softmax` compute; no number is decided here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from infrabook.attention_sizes import (
    attention_sizes,
    flash_traffic,
    standard_tiled_traffic,
)
from infrabook.labels import text
from infrabook.plots.style import MARKERS, PALETTE, SMALL_PT, figure, styled


def traffic_curves(
    lengths: Sequence[int],
    head_dim: int,
    dtype: str,
    score_dtype: str,
    block_q: int,
    block_k: int,
    standard_tiles: tuple[int, int],
) -> dict[str, np.ndarray]:
    """Traffic in MiB at each sequence length, one array per curve of :func:`traffic_plot`.

    Standard attention and FlashAttention are both charged for their tiles' re-reads (the
    standard GEMMs in ``standard_tiles`` = (block_m, block_n) output tiles), so the two
    solid curves use one model; the ideal line is the floor neither reaches.

    >>> c = traffic_curves([8192], 128, "bf16", "fp32", 128, 64, (128, 128))
    >>> {k: float(v[0]) for k, v in c.items()}  # doctest: +NORMALIZE_WHITESPACE
    {'standard': 1410.0, 'standard, S and P only': 1024.0, 'flash, real tiles': 260.0,
     'flash, real tiles, causal': 134.0, 'ideal 4 L d': 8.0}
    """
    rows = []
    for n in lengths:
        a = attention_sizes(n, head_dim, dtype, score_dtype)
        std = standard_tiled_traffic(n, head_dim, dtype, score_dtype, *standard_tiles)
        full = flash_traffic(n, head_dim, dtype, block_q, block_k)
        causal = flash_traffic(n, head_dim, dtype, block_q, block_k, causal=True)
        rows.append((std.total, a.intermediate_traffic, full.total, causal.total, a.io_traffic))
    names = (
        "standard",
        "standard, S and P only",
        "flash, real tiles",
        "flash, real tiles, causal",
        "ideal 4 L d",
    )
    data = np.asarray(rows, dtype=np.float64) / 2**20
    return {name: data[:, i] for i, name in enumerate(names)}


@styled
def traffic_plot(
    lengths: Sequence[int],
    head_dim: int,
    dtype: str,
    score_dtype: str,
    block_q: int,
    block_k: int,
    standard_tiles: tuple[int, int],
    mark: int | None = None,
) -> Figure:
    """Memory traffic of one head against sequence length, log-log: standard attention at
    real tiles (S and P written and read back, Q, K, V re-read per tile), FlashAttention at
    real tiles (K and V re-read once per query tile), and the ideal of touching Q, K, V, O
    once. ``mark`` labels one length.

    >>> fig = traffic_plot([512, 1024, 2048], 128, "bf16", "fp32", 128, 64, (128, 128))
    >>> len(fig.axes[0].lines)
    5
    """
    curves = traffic_curves(lengths, head_dim, dtype, score_dtype, block_q, block_k, standard_tiles)
    # Colour, line style and marker each tell the curves apart on their own.
    styles: dict[str, dict[str, Any]] = {
        "standard": dict(color=PALETTE[1], lw=2, marker=MARKERS[1]),
        "standard, S and P only": dict(color=PALETTE[1], lw=1.2, ls=":", marker=MARKERS[4]),
        "flash, real tiles": dict(color=PALETTE[0], lw=2, marker=MARKERS[0]),
        "flash, real tiles, causal": dict(color=PALETTE[0], lw=1.2, ls="--", marker=MARKERS[3]),
        "ideal 4 L d": dict(color=PALETTE[2], lw=2, marker=MARKERS[2]),
    }
    labels = {
        "flash, real tiles": text("fig.attention.flash", block_q=block_q),
        "flash, real tiles, causal": text("fig.attention.flash_causal", block_k=block_k),
        "ideal 4 L d": text("fig.attention.ideal"),
        "standard": text("fig.attention.standard", m=standard_tiles[0], n=standard_tiles[1]),
        "standard, S and P only": text("fig.attention.standard_sp"),
    }
    fig, ax = figure(6.4, 4.6)
    xs = np.asarray(lengths, dtype=np.float64)
    for name, ys in curves.items():
        ax.plot(xs, ys, label=labels[name], ms=5, markevery=max(1, len(xs) // 6), **styles[name])
    if mark is not None:
        at = traffic_curves([mark], head_dim, dtype, score_dtype, block_q, block_k, standard_tiles)
        ax.axvline(mark, color="#999999", lw=0.8)
        for name in ("standard", "flash, real tiles", "ideal 4 L d"):
            y = float(at[name][0])
            ax.plot([mark], [y], "o", color=styles[name]["color"], ms=6)
            ax.annotate(
                f"{y:.0f} MiB",
                (mark, y),
                xytext=(6, -3),
                textcoords="offset points",
                fontsize=SMALL_PT,
            )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(text("fig.attention.length"))
    ax.set_ylabel(text("fig.attention.traffic", d=head_dim, dtype=dtype))
    fig.legend(loc="outside lower center", ncols=2)
    return fig
