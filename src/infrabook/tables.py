"""Render rows as a Markdown table, for pages that display a table a cell computed."""

from __future__ import annotations

from collections.abc import Sequence


def _cell(value: object) -> str:
    text = str(value).replace("\n", " ")
    return text.replace("|", "\\|")


def number_text(value: float, spec: str) -> str:
    """A whole number without decimals, anything else with the format ``spec``.

    >>> number_text(24.0, ".1f"), number_text(0.25, ".1f"), number_text(2.3333333, ".4g")
    ('24', '0.2', '2.333')
    """
    return f"{value:.0f}" if float(value).is_integer() else f"{value:{spec}}"


def markdown_table(
    header: Sequence[object], rows: Sequence[Sequence[object]], align: str | None = None
) -> str:
    """A GitHub/MyST pipe table: one header row, then ``rows``; cells are ``str()``-ed.

    ``align`` gives one letter per column: ``l``, ``r`` or ``c`` (default: all left). A
    ``|`` inside a cell is escaped so it cannot split the cell.

    >>> print(markdown_table(["plan", "MiB"], [["[a] [b]", 120], ["[a+b]", 72]], align="lr"))
    | plan | MiB |
    |:---|---:|
    | [a] [b] | 120 |
    | [a+b] | 72 |
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
        "| " + " | ".join(_cell(h) for h in header) + " |",
        "|" + "|".join(rule[a] for a in align) + "|",
    ]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
