"""One style for every figure of the book."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

#: Colours that stay distinct for common colour-vision deficiencies (Okabe-Ito).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442")

_RC = {
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "axes.edgecolor": "#333333",
    "axes.labelcolor": "#111111",
    "text.color": "#111111",
    "xtick.color": "#333333",
    "ytick.color": "#333333",
    "axes.grid": True,
    "grid.color": "#dddddd",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
    "font.size": 10,
}

# Applied on import: text drawn after the axes exist (labels, legends) reads the global
# settings, so a context manager around figure creation alone would not be enough.
# Labels are English: build machines have no CJK font, and a missing glyph draws a box.
matplotlib.rcParams.update(_RC)


def figure(width: float = 6.4, height: float = 3.6, ncols: int = 1) -> tuple[Figure, object]:
    """A new figure and its axes in the book's style.

    >>> fig, ax = figure()
    >>> fig.get_facecolor()[:3]
    (1.0, 1.0, 1.0)
    """
    fig, axes = plt.subplots(1, ncols, figsize=(width, height), layout="constrained")
    plt.close(fig)
    return fig, axes
