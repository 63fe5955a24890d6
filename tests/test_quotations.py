"""Quotations of the article on the pages must occur verbatim in the article.

A quotation is text in quotation marks right after 原文 in the same clause (原文说“…”,
原文的“…”, 原文第 6 节写作“…”), or a blockquote whose introducing sentence names 原文.
Both sides are compared after normalising character width (NFKC: ，→ , and so on), removing
whitespace and quotation marks (a quotation inside a quotation changes its marks); a glued
value ({glue:text}`key`) or inline math inside a quotation matches any short run of text,
since its digits come from the build.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The article the book is built from; the repository carries it (article/README.md).
ARTICLE = ROOT / "article" / "S23-J17.txt"

# Code fences only: a ``:::`` directive (note, dropdown, admonition) holds prose.
_FENCE = re.compile(r"^(`{3,})[^\n]*\n.*?^\1\s*$", re.S | re.M)
_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$", re.S)
_INLINE_MATH = re.compile(r"\$[^$\n]+\$")
# 原文, then up to 12 characters of the same clause (no quote, bracket, comma or sentence
# end), then a quotation in Chinese (“…”) or straight ("…") marks.
_AFTER_ARTICLE = re.compile(r"原文[^“”\"（(，,；;。！？!?\n]{0,12}?[“\"]([^“”\"\n]+)[”\"]")
# Glued values and inline math: their text is not in the page source.
_WILDCARD = re.compile(r"\{glue(?::\w+)?\}`[^`]+`|\{math\}`[^`]+`")
_QUOTE_MARKS = "“”\"「」『』‘’'"
_ATTRIBUTION = re.compile(r"[(（]原文[)）]$")
_SENTENCE_END = "。！？!?"
# An admonition whose title attributes its body to the article: 判据（原文）.
_ADMONITION = re.compile(
    r"^:{3,}\{admonition\}[^\n]*[(（]原文[)）][^\n]*\n(?::[\w-]+:[^\n]*\n)*(.*?)^:{3,}\s*$",
    re.S | re.M,
)


def normalise(text: str) -> str:
    """Width-normalised text without whitespace.

    >>> normalise("原文说：“融合 ， 不减少“运算””")
    '原文说:融合,不减少运算'
    """
    text = "".join(unicodedata.normalize("NFKC", text).split())
    return text.translate({ord(c): None for c in _QUOTE_MARKS + "\u2060"})


def _table_columns(text: str) -> list[str]:
    """The cells of every Markdown table column whose header says （原文）.

    >>> _table_columns("| 机制（原文）| 本书 |\\n|:---|:---|\\n| 循环变换 | `plan` |\\n")
    ['循环变换']
    """
    found = []
    for table in re.findall(r"(?:^\|.*\|[ \t]*\n)+", text, re.M):
        lines = table.splitlines()
        rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines]
        quoted = [i for i, head in enumerate(rows[0]) if _ATTRIBUTION.search(head)]
        found += [row[i] for row in rows[2:] for i in quoted if i < len(row)]
    return found


def quotations(page: str) -> list[str]:
    """The article quotations on a page of MyST source (code blocks and math left out).

    >>> quotations('原文说“分桶多算”。本书说“另一句”。\\n\\n原文写道:\\n\\n> 第一行\\n> 第二行')
    ['分桶多算', '第一行第二行']
    """
    text = _DISPLAY_MATH.sub("", _FENCE.sub("", page))
    text = _INLINE_MATH.sub(lambda m: "{math}`" + m.group(0).strip("$") + "`", text)
    found = [m.group(1) for m in _AFTER_ARTICLE.finditer(text)]
    found += [
        _ATTRIBUTION.sub("", m.group(1).strip()).strip(_QUOTE_MARKS)
        for m in _ADMONITION.finditer(text)
    ]
    found += _table_columns(text)
    blocks = re.split(r"\n\s*\n", text)
    for before, block in itertools.pairwise(blocks):
        lines = block.strip().splitlines()
        if lines and all(line.startswith(">") for line in lines):
            intro = before.strip().rstrip(":：")
            last_sentence = re.split(f"[{_SENTENCE_END}]", intro)[-1]
            if "原文" in last_sentence:
                quote = "".join(line.lstrip(">").strip() for line in lines)
                found.append(_ATTRIBUTION.sub("", quote).strip(_QUOTE_MARKS))
    return found


def occurs_in(quote: str, article: str) -> bool:
    """Whether ``quote`` occurs in ``article`` (both normalised); glued values are wildcards.

    >>> occurs_in("MFU 20%→40%", "分桶多算 45% 却更快:MFU 20%→40%)")
    True
    >>> occurs_in("MFU 从 20% 升到 40%", "分桶多算 45% 却更快:MFU 20%→40%)")
    False
    >>> occurs_in("多算 {glue:text}`pad` 却更快", "分桶多算 45% 却更快")
    True
    """
    parts = [re.escape(normalise(p)) for p in _WILDCARD.split(quote)]
    return re.search(".{1,40}?".join(parts), normalise(article)) is not None


def _article() -> str:
    # A missing article fails the test: skipping would let every misquotation through.
    assert ARTICLE.is_file(), f"{ARTICLE} is missing: the quotations cannot be checked"
    return ARTICLE.read_text(encoding="utf-8")


def _pages() -> list[Path]:
    docs = ROOT / "docs"
    return sorted(p for p in docs.rglob("*.md") if "_build" not in p.parts)


def test_a_misquote_is_caught():
    article = "融合不减少运算,只减少中间结果写回再读回。"
    page = "原文说“融合不减少运算，只减少中间结果写回再读回”。原文的“融合减少了运算”是误读。"
    found = quotations(page)
    assert found == ["融合不减少运算，只减少中间结果写回再读回", "融合减少了运算"]
    assert [occurs_in(q, article) for q in found] == [True, False]


def test_quotations_outside_code_only():
    page = "```python\n原文说“不在这里”\n```\n\n$$原文“x”$$ 原文写作“在这里”。"
    assert quotations(page) == ["在这里"]


def test_blockquote_attribution_and_math_wildcards():
    page = "原文的判据是：\n\n> 「融合不减少运算。」（原文）\n\n原文说“读 $QKV$ 写 $O$”。"
    assert quotations(page) == ["读 {math}`QKV` 写 {math}`O`", "融合不减少运算。"]
    assert occurs_in("读 {math}`QKV` 写 {math}`O`", "标准实现读 QKV 写 O 共 8 MiB")


def test_every_quotation_on_the_pages_is_verbatim():
    article = _article()
    bad = [
        f"{p.relative_to(ROOT)}: “{q}”"
        for p in _pages()
        for q in quotations(p.read_text(encoding="utf-8"))
        if not occurs_in(q, article)
    ]
    assert not bad, "not in the article:\n" + "\n".join(bad)


def test_admonitions_and_table_columns_labelled_as_the_article_are_quotations():
    page = (
        ":::{admonition} 判据（原文）\n:class: tip\n「手写只能试几种。」\n:::\n\n"
        "| 机制（原文）| 作用（原文）| 本书 |\n|:---|:---|:---|\n"
        "| AKG | 华为开源，原文作者曾参与 | 无 |\n"
    )
    found = quotations(page)
    assert found == ["手写只能试几种。", "AKG", "华为开源，原文作者曾参与"]
    article = "| AKG | 面向昇腾的算子自动生成(华为开源,作者曾参与) |\n手写只能试几种。"
    assert [occurs_in(q, article) for q in found] == [True, True, False]


_ZH_ROLE = re.compile(r"\{zh\}`([^`]+)`")
_CJK = re.compile(r"[\u3400-\u9fff]")


def test_english_quotations_show_the_chinese_original():
    """Each passage the Chinese page gives as the article's words appears, in the English
    edition, as the Chinese original (the ``{zh}`` role) beside its translation."""
    from babel.messages.pofile import read_po

    article = _article()
    missing = []
    for page in _pages():
        rel = page.relative_to(ROOT / "docs").with_suffix(".po")
        po = ROOT / "docs" / "locale" / "en" / "LC_MESSAGES" / rel
        quotes = quotations(page.read_text(encoding="utf-8"))
        if not quotes:
            continue
        with po.open("rb") as f:
            messages = [m for m in read_po(f) if m.id and m.string]
        for q in quotes:
            holding = [m for m in messages if occurs_in(q, m.id)]
            shown = [z for m in holding for z in _ZH_ROLE.findall(m.string)]
            # words with no Chinese in them (a name: AKG) are their own original
            latin = not _CJK.search(q) and any(q in m.string for m in holding)
            if not latin and not any(occurs_in(q, z) and occurs_in(z, article) for z in shown):
                missing.append(f"{rel}: “{q}”")
    assert not missing, "English quotations without the Chinese original:\n" + "\n".join(missing)


def test_no_original_is_shown_beside_itself():
    """A {zh} original followed by the same words ("AKG AKG") says nothing twice."""
    from babel.messages.pofile import read_po

    twice = []
    for po in sorted((ROOT / "docs" / "locale" / "en" / "LC_MESSAGES").rglob("*.po")):
        with po.open("rb") as f:
            for m in read_po(f):
                if m.string and re.search(r"\{zh\}`([^`]+)`\s+\1(?![\w-])", m.string):
                    twice.append(f"{po.name}: {m.string[:60]}")
    assert not twice, twice


def test_the_audit_calls_its_claims_summaries_unless_they_are_verbatim():
    """The audit's claim column quotes the article only if every claim is verbatim; it is
    a summary (the English edition says so too) otherwise."""
    from infrabook import config

    article = _article()
    page = (ROOT / "docs" / "appendix" / "audit.md").read_text(encoding="utf-8")
    po = (ROOT / "docs" / "locale" / "en" / "LC_MESSAGES" / "appendix" / "audit.po").read_text(
        encoding="utf-8"
    )
    verbatim = all(occurs_in(c.text, article) for c in config.claims())
    labelled_as_words = "原文的说法" in page or "own words" in po
    assert verbatim or not labelled_as_words
    assert "概述" in page and "summary" in po
