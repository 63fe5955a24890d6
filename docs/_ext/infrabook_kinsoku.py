"""Inline math and the punctuation touching it stay on one line.

Chromium may break a line right after an inline formula (MathJax draws it as one box), even
before a word joiner, so a line could start with the "，" or "。" that closes the formula's
clause, or end with the "（" that opens it; in English, ", then" or ")." could start a line.
Here, once a page is read (and translated), each inline formula is wrapped together with the
closing punctuation right after it and the opening bracket right before it in a
``span.ib-nowrap`` (``white-space: nowrap`` in ``infrabook-site.css``). The word joiners
(U+2060) the sources carry for the same purpose are dropped: they did not hold the line,
and they came along into copied text.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.application import Sphinx

WORD_JOINER = "\u2060"
# Punctuation that must not start a line, and brackets that must not end one.
CLOSING = "。，、；：）！？”’》」』,.;:)!?"
OPENING = "（“‘《「『("
_HEAD = re.compile(f"^{WORD_JOINER}?([{re.escape(CLOSING)}]+)")
_TAIL = re.compile(f"([{re.escape(OPENING)}]+){WORD_JOINER}?$")


def split_head(text: str) -> tuple[str, str]:
    """The closing punctuation at the start of ``text`` (a joiner before it dropped), and
    the rest.

    >>> split_head("\u2060，再加上")
    ('，', '再加上')
    >>> split_head("), then add")
    ('),', ' then add')
    >>> split_head(" and")
    ('', ' and')
    """
    match = _HEAD.match(text)
    if match is None:
        return "", text
    return match.group(1), text[match.end() :]


def split_tail(text: str) -> tuple[str, str]:
    """``text`` without the opening brackets at its end, and those brackets.

    >>> split_tail("块（")
    ('块', '（')
    >>> split_tail("块 ")
    ('块 ', '')
    """
    match = _TAIL.search(text)
    if match is None:
        return text, ""
    return text[: match.start()], match.group(1)


def keep_together(doctree: nodes.Node) -> int:
    """Wrap every inline formula with the punctuation touching it in an ``ib-nowrap``
    span; returns how many were wrapped."""
    wrapped = 0
    for math in list(doctree.findall(nodes.math)):
        parent = math.parent
        if parent is None:
            continue
        index = parent.index(math)
        after = parent[index + 1] if index + 1 < len(parent) else None
        before = parent[index - 1] if index > 0 else None
        head, rest = split_head(after.astext()) if isinstance(after, nodes.Text) else ("", "")
        keep, tail = split_tail(before.astext()) if isinstance(before, nodes.Text) else ("", "")
        if not head and not tail:
            continue
        span = nodes.inline(classes=["ib-nowrap"])
        if tail:
            parent.replace(before, nodes.Text(keep))
            span += nodes.Text(tail)
        parent.replace(math, span)
        span += math
        if head:
            parent.replace(after, nodes.Text(rest))
            span += nodes.Text(head)
        wrapped += 1
    for text in list(doctree.findall(nodes.Text)):
        if WORD_JOINER in text and text.parent is not None:
            text.parent.replace(text, nodes.Text(text.astext().replace(WORD_JOINER, "")))
    return wrapped


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    keep_together(doctree)


def setup(app: Sphinx) -> dict:
    app.connect("doctree-read", _doctree_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
