"""Chinese prose uses full-width punctuation: check the pages, or fix them with ``--fix``.

An ASCII comma, colon, semicolon, question or exclamation mark next to a Chinese character
becomes its full-width form; a pair of ASCII parentheses or double quotes becomes full-width
when what it encloses, or the character before it, is Chinese. Only prose is touched: front
matter, code cells, fenced blocks, directive options, inline code, roles, math, HTML tags,
link targets and URLs are left exactly as they are.

    python -m docs.checks.punctuation docs          # list offending lines, exit 1 if any
    python -m docs.checks.punctuation --fix docs    # rewrite the pages in place
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef"
_CJK_CHAR = re.compile(f"[{CJK}]")

# Spans that are not prose, in the order they are tried: inline code, roles with their
# argument, display and inline math, HTML tags, Markdown link targets, bare URLs.
_PROTECTED = re.compile(
    r"`[^`]*`"
    r"|\{[\w:.-]+\}`[^`]*`"
    r"|\$\$.*?\$\$"
    r"|(?<![\\\w])\$[^$\n]+?\$"
    r"|<[^<>\n]+>"
    r"|\]\([^)\s]*\)"
    r"|https?://\S+"
)

_SIMPLE = {",": "，", ":": "：", ";": "；", "?": "？", "!": "！"}


def _is_cjk(ch: str) -> bool:
    return bool(ch) and bool(_CJK_CHAR.match(ch))


# Characters that say nothing about the language around them: spaces, emphasis marks,
# percent and times signs, and the placeholder that stands for a protected span.
_NEUTRAL = " *_%×\ue000\u2060"


def _chinese_context(text: str, i: int) -> bool:
    """Whether the nearest meaningful character on either side of ``text[i]`` is Chinese."""
    left = text[:i].rstrip(_NEUTRAL)[-1:]
    right = text[i + 1 :].lstrip(_NEUTRAL)[:1]
    return _is_cjk(left) or _is_cjk(right) or left in ("）", "”")


def _fix_prose(text: str) -> str:
    """Full-width punctuation in one stretch of prose (no protected spans inside)."""
    text = re.sub(
        r'"([^"\n]*)"',
        lambda m: f"“{m[1]}”" if _CJK_CHAR.search(m[1]) else m[0],
        text,
    )

    def paren(m: re.Match[str]) -> str:
        before = text[: m.start()].rstrip(_NEUTRAL)[-1:]
        after = text[m.end() :].lstrip(_NEUTRAL)[:1]
        if _CJK_CHAR.search(m[1]) or _is_cjk(before) or _is_cjk(after):
            return f"（{m[1]}）"
        return m[0]

    text = re.sub(r"\(([^()\n]*)\)", paren, text)
    out = []
    for i, ch in enumerate(text):
        if ch in _SIMPLE:
            prev = text[i - 1] if i > 0 else ""
            nxt = text[i + 1 : i + 2]
            between_digits = prev.isdigit() and nxt.isdigit()
            if not between_digits and _chinese_context(text, i):
                out.append(_SIMPLE[ch])
                continue
        out.append(ch)
    text = "".join(out)
    # No spaces around full-width punctuation: its glyph already carries the space.
    text = re.sub(r" +([，：；？！）”（])", r"\1", text)
    text = re.sub(r"([，：；？！（“）]) +", r"\1", text)
    # A Chinese sentence that introduces what follows ends in a full-width colon.
    if text.rstrip().endswith(":") and _CJK_CHAR.search(text):
        text = text.rstrip()[:-1] + "："
    return text


# Between inline math and the full-width punctuation after it: a word joiner (U+2060), which
# marks the pair in the source. Chromium breaks a line there all the same, so the HTML keeps
# the two together with a span instead and drops the joiner (docs/_ext/infrabook_kinsoku.py).
WORD_JOINER = "\u2060"
_CLOSING = "。，、；：）！？”"


def _is_inline_math(span: str) -> bool:
    return span.startswith("{math}`") or (span.startswith("$") and not span.startswith("$$"))


def fix_line(line: str) -> str:
    """The line with its prose punctuation made full-width, and a word joiner between an
    inline formula and the punctuation that closes it.

    >>> fix_line('融合不减少运算,只减少"中间结果写回再读回"。')
    '融合不减少运算，只减少“中间结果写回再读回”。'
    >>> fix_line("共 1,024 行(见 {ref}`sec-a`):`f(x, y)` 与 $f(a,b)$")
    '共 1,024 行（见 {ref}`sec-a`）：`f(x, y)` 与 $f(a,b)$'
    >>> fix_line("plain English, (with parens): untouched")
    'plain English, (with parens): untouched'
    >>> fix_line("时间正比于 $n$。") == "时间正比于 $n$" + WORD_JOINER + "。"
    True
    """
    pieces = []
    last = 0
    for m in _PROTECTED.finditer(line):
        pieces.append(("prose", line[last : m.start()]))
        pieces.append(("keep", m[0]))
        last = m.end()
    pieces.append(("prose", line[last:]))
    # Protected spans are replaced by a placeholder character that is not CJK, so that
    # punctuation next to them is judged by the prose around them.
    marker = "\ue000"
    joined = "".join(p if kind == "prose" else marker for kind, p in pieces)
    fixed = _fix_prose(joined)
    return _restore(fixed, marker, [p for kind, p in pieces if kind == "keep"])


def _restore(text: str, marker: str, kept: list[str]) -> str:
    parts = text.split(marker)
    out = [parts[0]]
    for span, rest in zip(kept, parts[1:], strict=True):
        out.append(span)
        if _is_inline_math(span) and rest[:1] in tuple(_CLOSING):
            rest = WORD_JOINER + rest
        out.append(rest)
    return "".join(out)


def fix_page(source: str) -> str:
    """The page with full-width punctuation in its prose lines and nowhere else."""
    lines = source.split("\n")
    out = []
    fence: str | None = None
    in_front_matter = bool(lines) and lines[0] == "---"
    in_math = False
    for number, line in enumerate(lines):
        stripped = line.lstrip()
        if in_front_matter:
            out.append(line)
            if number > 0 and line == "---":
                in_front_matter = False
            continue
        if fence is None and (in_math or line.count("$$") % 2 == 1):
            # A display formula spread over several lines is math, not prose.
            if line.count("$$") % 2 == 1:
                in_math = not in_math
            out.append(line)
            continue
        opener = re.match(r"(`{3,}|:{3,})\s*(\{[^}]*\})?", stripped)
        # A bare fence outside any skipped block closes a prose directive; it opens nothing.
        if fence is None and opener and not opener.group(2) and not stripped.strip("`:"):
            out.append(line)
            continue
        if fence is None and opener:
            marker, directive = opener.group(1), opener.group(2) or ""
            # Directives whose body is prose stay open to fixing; code, math and
            # cells are skipped whole.
            prose_body = marker.startswith(":") or directive in (
                "{note}",
                "{tip}",
                "{admonition}",
                "{warning}",
                "{important}",
                "{dropdown}",
                "{glue:figure}",
                "{figure}",
                "{seealso}",
                "{grid-item-card}",
                "{epigraph}",
                "{attention}",
                "{caution}",
                "{glossary}",
            )
            fence = marker if not prose_body else None
            out.append(line)
            continue
        if fence is not None:
            if stripped.startswith(fence[0] * len(fence)) and stripped.strip(fence[0]) == "":
                fence = None
            out.append(line)
            continue
        if (
            re.match(r"^\s*:[\w-]+:", line)
            or re.match(r"^\s*\(.*\)=\s*$", line)
            or re.match(r"^\s*(`{3,}|:{3,})\s*$", line)
            or stripped.startswith("<")
        ):
            out.append(line)
            continue
        out.append(fix_line(line))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fix", action="store_true", help="rewrite the pages in place")
    parser.add_argument("docs", type=Path)
    args = parser.parse_args(argv)
    pages = sorted(
        p for p in args.docs.rglob("*.md") if "_build" not in p.parts and p.name != "README.md"
    )
    bad = 0
    for page in pages:
        source = page.read_text(encoding="utf-8")
        fixed = fix_page(source)
        if fixed == source:
            continue
        if args.fix:
            page.write_text(fixed, encoding="utf-8")
            print(f"fixed {page}")
            continue
        for n, (old, new) in enumerate(
            zip(source.split("\n"), fixed.split("\n"), strict=True), start=1
        ):
            if old != new:
                bad += 1
                print(f"{page}:{n}: half-width punctuation in Chinese prose: {old.strip()[:80]}")
    if bad:
        print(f"{bad} line(s) to fix; run: python -m docs.checks.punctuation --fix {args.docs}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
