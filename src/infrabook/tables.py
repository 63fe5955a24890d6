"""Tables and numbers as text: one formatter, one table type, rendered for a page (Markdown), a
terminal (aligned text) or a live calculator (HTML).

Text reaches a page through :func:`markdown_text`, which makes it literal: a string from a
benchmark record, from ``conf/`` or from a calculator can hold ``<script>``, a Markdown link
or a MyST role and still shows as those characters, never as markup. Markup the book itself
writes is wrapped in :class:`Markup` to pass through.
"""

from __future__ import annotations

import html
import math
import numbers
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from infrabook.labels import text


def _flat(items: object) -> list[object]:
    if isinstance(items, list):
        return [x for item in items for x in _flat(item)]
    return [items]


def number_text(value: Any, spec: str | None = None) -> str:
    """One number (or cell) as text, the same everywhere in the book.

    With ``spec``: a whole number without decimals, anything else with that format. Without:
    a precision that suits the size (thousands separated, three significant figures for
    small values); a percentage ``spec`` (``".1%"``) keeps its decimals. None and non-finite
    numbers are a dash, booleans yes/no in the build's language, arrays, lists and tuples
    comma-separated, exact fractions, text and other objects as ``str``.

    >>> number_text(24.0, ".1f"), number_text(0.25, ".1f"), number_text(2.3333333, ".4g")
    ('24', '0.2', '2.333')
    >>> number_text(0.0, "+.1%"), number_text([0.5, 2.0], ".4g")
    ('+0.0%', '0.5, 2')
    >>> [number_text(v) for v in (None, 18, 1234567, 0.5, 3.14159, 47.96, 1536.2, 1e-7, "a")]
    ['—', '18', '1,234,567', '0.500', '3.14', '48.0', '1,536', '1e-07', 'a']
    >>> number_text(Fraction(7, 3)), number_text(float("nan"))
    ('7/3', '—')
    >>> type(number_text(Markup("`x`"))).__name__
    'Markup'
    """
    if value is None:
        return "—"
    if isinstance(value, Markup):  # markup the book writes stays markup in a Table
        return value
    if isinstance(value, bool):
        return text("word.yes" if value else "word.no")
    tolist = getattr(value, "tolist", None)  # numpy arrays, without importing numpy here
    if callable(tolist) and int(getattr(value, "ndim", 0)) > 0:
        return ", ".join(number_text(v, spec) for v in _flat(tolist()))
    if isinstance(value, list | tuple):
        return ", ".join(number_text(v, spec) for v in value)
    if isinstance(value, str | Fraction) or not isinstance(value, numbers.Real):
        return str(value)
    if isinstance(value, int) and spec is None:
        return f"{value:,}"
    x = float(value)
    if not math.isfinite(x):
        return "—"
    if spec is not None:
        return f"{x:.0f}" if x.is_integer() and not spec.endswith("%") else f"{x:{spec}}"
    a = abs(x)
    for bound, fmt in ((1000, ",.0f"), (100, ".0f"), (10, ".1f"), (1, ".2f"), (0.01, ".3f")):
        if a >= bound:
            return f"{x:{fmt}}"
    return "0" if a == 0 else f"{x:.3g}"


class Markup(str):
    """Markdown the book writes itself (a badge role, say), which :func:`markdown_text`
    passes through; never wrap text that comes from a record, ``conf/`` or a reader."""

    __slots__ = ()


#: CommonMark lets a backslash make any ASCII punctuation character literal.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def markdown_text(value: object) -> str:
    r"""``value`` as Markdown (MyST) that shows exactly its text, on one line: every ASCII
    punctuation character is backslash-escaped, so no HTML tag, link, emphasis, role,
    directive, math or table cell border can start in it; line breaks become spaces. A
    :class:`Markup` value is returned as it is.

    >>> markdown_text("<script>alert(1)</script>")
    '\\<script\\>alert\\(1\\)\\<\\/script\\>'
    >>> markdown_text("{raw}`html`\n[x](javascript:1)")
    '\\{raw\\}\\`html\\` \\[x\\]\\(javascript\\:1\\)'
    >>> markdown_text(Markup("**bold**")), markdown_text("温度 25℃")
    ('**bold**', '温度 25℃')
    """
    if isinstance(value, Markup):
        return str(value)
    return _PUNCTUATION.sub(r"\\\1", " ".join(str(value).splitlines()))


def cited(value: object) -> Markup:
    r"""The title of a work (a datasheet, a paper) as a page cites it: in italics, its own text
    literal (:func:`markdown_text`), so a source from ``conf/`` cannot bring markup with it.

    >>> cited("NVIDIA H200 datasheet (HBM3e)")
    '*NVIDIA H200 datasheet \\(HBM3e\\)*'
    >>> cited("a *b*")
    '*a \\*b\\**'
    """
    return Markup(f"*{markdown_text(value)}*")


def code(value: object) -> Markup:
    r"""``value`` as inline code, shown exactly: fenced by more backticks than any run inside
    it, its ``|`` escaped so it cannot split a table cell, line breaks as spaces.

    >>> code("[R, C] -> { S[i, j] -> [0, i, j] }")
    '`[R, C] -> { S[i, j] -> [0, i, j] }`'
    >>> code("a`b|c")
    '``a`b\\|c``'
    """
    text = " ".join(str(value).splitlines()).replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return Markup(f"{fence}{pad}{text}{pad}{fence}")


def markdown_table(
    header: Sequence[object], rows: Sequence[Sequence[object]], align: str | None = None
) -> str:
    """A GitHub/MyST pipe table: one header row, then ``rows``; every cell is ``str()``-ed
    and shown literally (:func:`markdown_text`: a ``|`` cannot split a cell, a tag or a
    link in it is text), unless it is :class:`Markup`.

    ``align`` gives one letter per column: ``l``, ``r`` or ``c`` (default: all left).

    >>> print(markdown_table(["plan", "MiB"], [["[a] [b]", 120], ["a|b", 72]], align="lr"))
    | plan | MiB |
    |:---|---:|
    | \\[a\\] \\[b\\] | 120 |
    | a\\|b | 72 |
    >>> markdown_table(["a", "b"], [[1]])
    Traceback (most recent call last):
    ...
    ValueError: row 0 has 1 cells, the header has 2
    """
    width = len(header)
    if width == 0:
        raise ValueError("the header needs at least one column")
    for i, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(f"row {i} has {len(row)} cells, the header has {width}")
    align = align or "l" * width
    if len(align) != width or set(align) - set("lrc"):
        raise ValueError(f"align must be {width} letters from 'l', 'r', 'c', got {align!r}")
    rule = {"l": ":---", "r": "---:", "c": ":---:"}
    lines = [
        "| " + " | ".join(markdown_text(h) for h in header) + " |",
        "|" + "|".join(rule[a] for a in align) + "|",
    ]
    lines += ["| " + " | ".join(markdown_text(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def display_width(cell: str) -> int:
    """Terminal columns ``cell`` takes: two for a wide (CJK) character, one otherwise.

    >>> display_width("plan"), display_width("融合方案"), display_width("峰值 MiB")
    (4, 8, 8)
    """
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in cell)


def text_table(rows: Sequence[Sequence[object]]) -> str:
    """Rows as aligned plain text for a terminal, the first row being the header; columns are
    padded by display width, so Chinese cells line up in a terminal with a CJK font.

    >>> print(text_table([("plan", "MiB"), ("[a] [b]", 120), ("[a+b]", 72)]))
    plan     MiB
    [a] [b]  120
    [a+b]    72
    >>> print(text_table([("方案", "MiB"), ("分开执行", 120), ("fused", 72)]))
    方案      MiB
    分开执行  120
    fused     72
    """
    cells = [[str(c) for c in row] for row in rows]
    widths = [max(display_width(r[i]) for r in cells) for i in range(len(cells[0]))]
    return "\n".join(
        "  ".join(c + " " * (w - display_width(c)) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in cells
    )


#: A cell :meth:`Table.html` aligns right: a number as :func:`number_text` writes it.
_NUMBER = re.compile(r"[+\-−]?[\d.,]+(e[+-]?\d+)?%?|∞")


@dataclass(frozen=True)
class Table:
    """A table of raw cells (numbers, words, None), formatted only when rendered: as a page's
    Markdown, a terminal's aligned text or a live calculator's HTML, every cell through
    :func:`number_text` with its column's format (``formats``, one spec or ``""`` a column;
    none given: the default precision). ``title`` goes above, ``note`` below.

    >>> t = Table("3 runs", ("configuration", "dispatches"), (("eager", 18), ("fused", 15)))
    >>> print(t.markdown())
    3 runs
    <BLANKLINE>
    | configuration | dispatches |
    |:---|:---|
    | eager | 18 |
    | fused | 15 |
    >>> t = Table("", ("plan", "MiB"), (("[a] [b]", 120.0), ("[a+b]", 72.5)), "note", (".4g",) * 2)
    >>> print(t.text())
    plan     MiB
    [a] [b]  120
    [a+b]    72.5
    note
    >>> t.html()  # doctest: +ELLIPSIS
    '...<tr><td>[a+b]</td><td class="num">72.5</td></tr></tbody></table></div><p ...>note</p>'
    """

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...] = field(default_factory=tuple)
    note: str = ""
    formats: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(
                    f"a row of table {self.title!r} has {len(row)} cells, "
                    f"expected {len(self.columns)}"
                )
        if self.formats and len(self.formats) != len(self.columns):
            raise ValueError(
                f"table {self.title!r} has {len(self.formats)} formats for "
                f"{len(self.columns)} columns"
            )

    def cells(self) -> list[list[str]]:
        """The rows as text, each cell through :func:`number_text` with its column's format."""
        specs = self.formats or ("",) * len(self.columns)
        return [
            [number_text(c, spec or None) for c, spec in zip(row, specs, strict=True)]
            for row in self.rows
        ]

    def markdown(self, align: str | None = None) -> str:
        """The title, a pipe table (MyST renders it like every table of the book; ``align`` as
        :func:`markdown_table` takes it), then the note, all of it literal text
        (:func:`markdown_text`)."""
        parts = [markdown_text(self.title)] if self.title else []
        parts.append(markdown_table(self.columns, self.cells(), align))
        return "\n\n".join(parts + ([markdown_text(self.note)] if self.note else []))

    def text(self) -> str:
        """The title, aligned plain text (by display width), then the note."""
        body = text_table([list(self.columns), *self.cells()])
        return "\n".join(p for p in (self.title, body, self.note) if p)

    def html(self) -> str:
        """The table as HTML (a live calculator's output), every cell escaped; numeric cells
        are marked to align right, the note is a paragraph under the table."""
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.columns)
        body = "".join(
            "<tr>"
            + "".join(
                f'<td class="num">{html.escape(c)}</td>'
                if _NUMBER.fullmatch(c)
                else f"<td>{html.escape(c)}</td>"
                for c in row
            )
            + "</tr>"
            for row in self.cells()
        )
        title = f'<p class="live-note">{html.escape(self.title)}</p>' if self.title else ""
        note = f'<p class="live-note">{html.escape(self.note)}</p>' if self.note else ""
        # The theme's scrolling container: a wide table scrolls inside it on a phone.
        return (
            f'{title}<div class="pst-scrollable-table-container">'
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{note}"
        )
