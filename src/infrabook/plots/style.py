"""One style for every figure of the book, applied per figure rather than globally.

Figures are made with :func:`figure` (one axes) or :func:`figure_row` (a row of axes) and
drawn inside :func:`book_style`; the plotting functions of this package are wrapped in
:func:`styled`, which does that. A figure made here carries its own canvas, which applies
the style again whenever it is drawn or saved, so settings read only at draw time (ticks
made lazily, the SVG writer's options) hold even when the figure is shown long after it was
built, as myst-nb does with glued figures. Importing this module changes no global setting.

SVG keeps text as ``<text>`` (``svg.fonttype = "none"``): the reader's browser draws the
Chinese labels with its own CJK font, so the build machine needs none, and they stay sharp
at any zoom. The background is transparent and the ink a neutral dark grey; the site's
stylesheet inverts the lightness of figures in dark mode, which keeps the hues.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import wraps
from io import StringIO
from typing import Any, ParamSpec, TypeVar

import matplotlib as mpl
from cycler import cycler
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.typing import RcKeyType

from infrabook.labels import language, text

#: Colours that stay distinct for common colour-vision deficiencies (Okabe-Ito), darkest
#: first so that the first few also read after the dark-mode inversion.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442")
#: Markers to pair with :data:`PALETTE` wherever colour alone would tell series apart.
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
#: Hatches to pair with :data:`PALETTE` for filled areas (bars, shaded regions).
HATCHES = ("", "//", "--", "xx", "\\\\", "++", "||")
#: Ink for text, axes and rules: dark grey, legible on white and, inverted, on the dark theme.
INK = "#222222"
#: The smallest text any figure uses, in points; 10 pt stays 10 pt when a figure no wider
#: than :data:`MAX_WIDTH_IN` is shown at its natural size in the page's column.
SMALL_PT = 10.0
#: The widest figure, in inches (at 96 px per inch it fits the 690 px text column).
MAX_WIDTH_IN = 7.0

#: Per edition. Latin family first so digits and identifiers keep their usual shapes; in the
#: Chinese edition the CJK families after it are used by the reader's browser for Chinese
#: glyphs. The English edition's figures have no Chinese, so they name no CJK font.
FONT_FAMILIES = {
    "zh": (
        "DejaVu Sans",
        "Noto Sans CJK SC",
        "Source Han Sans SC",
        "PingFang SC",
        "Microsoft YaHei",
        "sans-serif",
    ),
    "en": ("DejaVu Sans", "sans-serif"),
}

BOOK_RC: dict[RcKeyType, Any] = {
    "figure.facecolor": "none",
    "axes.facecolor": "none",
    "savefig.facecolor": "none",
    "savefig.transparent": True,
    "axes.edgecolor": INK,
    "axes.labelcolor": INK,
    "text.color": INK,
    "xtick.color": INK,
    "ytick.color": INK,
    "axes.grid": True,
    "grid.color": "#bbbbbb",
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": cycler(color=PALETTE),
    "font.family": "sans-serif",
    "font.sans-serif": list(FONT_FAMILIES[language()]),
    "font.size": 11.0,
    "axes.titlesize": 11.0,
    "axes.labelsize": 11.0,
    "xtick.labelsize": SMALL_PT,
    "ytick.labelsize": SMALL_PT,
    "legend.fontsize": SMALL_PT,
    "legend.frameon": False,
    "figure.titlesize": 11.0,
    "svg.fonttype": "none",
    "svg.hashsalt": "infrabook",
    "svg.id": "infrabook",
    "hatch.color": INK,
    "hatch.linewidth": 0.6,
}

# The build machine may lack CJK fonts: the text is measured with the Latin font and drawn
# by the browser, so matplotlib's complaint about the missing glyphs is expected and harmless.
_GLYPH_WARNING = r"Glyph \d+ .* missing from font"

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def book_style() -> Iterator[None]:
    """The book's matplotlib settings, for the duration of a ``with`` block only.

    >>> import matplotlib as mpl
    >>> before = mpl.rcParams["svg.fonttype"]
    >>> with book_style():
    ...     mpl.rcParams["svg.fonttype"]
    'none'
    >>> mpl.rcParams["svg.fonttype"] == before
    True
    """
    with mpl.rc_context(BOOK_RC), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_GLYPH_WARNING, category=UserWarning)
        yield


def styled(draw: Callable[P, R]) -> Callable[P, R]:
    """Run the plotting function ``draw`` inside :func:`book_style`.

    >>> @styled
    ... def size() -> float:
    ...     return mpl.rcParams["font.size"]
    >>> size()
    11.0
    """

    @wraps(draw)
    def inner(*args: P.args, **kwargs: P.kwargs) -> R:
        with book_style():
            return draw(*args, **kwargs)

    return inner


class _BookCanvas(FigureCanvasAgg):
    """A canvas that draws and saves in the book's style (and so as SVG with text)."""

    def draw(self) -> None:
        with book_style():
            super().draw()

    def print_figure(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("format") == "svg":
            # Without a date the same figure gives the same file (with ``svg.hashsalt``).
            kwargs.setdefault("metadata", {"Date": None})
        with book_style():
            return super().print_figure(*args, **kwargs)


class BookFigure(Figure):
    """A figure that notebooks display as SVG (IPython's ``_repr_svg_``)."""

    def svg(self) -> str:
        """The figure as an SVG document, text kept as ``<text>``.

        >>> fig, ax = figure(3, 2)
        >>> _ = ax.set_title("逐形状特化")
        >>> svg = fig.svg()
        >>> "<text" in svg and "逐形状特化" in svg and "Noto Sans CJK SC" in svg
        True
        """
        out = StringIO()
        self.savefig(out, format="svg")
        return out.getvalue()

    def _repr_svg_(self) -> str:
        return self.svg()


def _new(width: float, height: float) -> BookFigure:
    if not 0 < width <= MAX_WIDTH_IN:
        raise ValueError(f"width must be in (0, {MAX_WIDTH_IN}] inches, got {width!r}")
    if not 0 < height <= 2 * MAX_WIDTH_IN:
        raise ValueError(f"height must be in (0, {2 * MAX_WIDTH_IN}] inches, got {height!r}")
    with book_style():
        fig = BookFigure(figsize=(width, height), layout="constrained")
        _BookCanvas(fig)
    return fig


def figure(width: float = 6.4, height: float = 3.6) -> tuple[BookFigure, Axes]:
    """A new figure with one axes, in the book's style.

    >>> fig, ax = figure()
    >>> fig.get_facecolor()[3], ax.get_xlabel()
    (0.0, '')
    >>> figure(9.0)
    Traceback (most recent call last):
    ...
    ValueError: width must be in (0, 7.0] inches, got 9.0
    """
    fig = _new(width, height)
    with book_style():
        ax = fig.add_subplot()
    return fig, ax


def figure_row(
    n: int, width: float = 6.8, height: float = 3.6, width_ratios: Sequence[float] | None = None
) -> tuple[BookFigure, list[Axes]]:
    """A new figure with ``n`` axes side by side, in the book's style.

    >>> fig, axes = figure_row(2, width_ratios=[1, 2])
    >>> len(axes), axes[0].get_gridspec().get_width_ratios()
    (2, [1, 2])
    >>> figure_row(0)
    Traceback (most recent call last):
    ...
    ValueError: n must be a whole number >= 1, got 0
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a whole number >= 1, got {n!r}")
    if width_ratios is not None and len(width_ratios) != n:
        raise ValueError(f"width_ratios needs {n} values, got {len(width_ratios)}")
    fig = _new(width, height)
    with book_style():
        grid = fig.add_gridspec(1, n, width_ratios=width_ratios)
        axes = [fig.add_subplot(grid[0, i]) for i in range(n)]
    return fig, axes


def strategy_name(name: str) -> str:
    """The reader's word for a shape strategy (``generic``, ``bucketed``, ``specialised``);
    any other name is shown as given.

    >>> strategy_name("specialised"), strategy_name("my-own")
    ('逐形状特化', 'my-own')
    """
    try:
        return text(f"strategy.{name}")
    except KeyError:
        return name
