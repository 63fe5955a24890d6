"""Check the book's PDFs (``nox -s pdf`` builds them; CI runs this after it).

Usage: python -m docs.checks.pdf PDF [PDF ...]   (each named infrabook-zh.pdf or infrabook-en.pdf)

For each PDF: its size (at most MAX_MIB), its page count (a cover, the contents and at least
a page per chapter), a first-level bookmark for every chapter and appendix of the book's
table of contents (``docs/index.md``) in that order, each with its sections under it where
the page has sections; every font embedded; the text extractable, with the article's
claims and the audit's recomputed numbers in it (``infrabook.audit``, computed here in the
edition's language, never typed); no raw TeX; and no radical look-alikes (⼀ for 一:
Chromium's text layer of Noto CJK, see ``docs/pdf/finish.py``) nor ligatures (ﬂ for fl),
with 原文 found as text in the Chinese edition; and at most MAX_TYPE3 of the text drawn
with Type 3 fonts (glyphs as drawing procedures: unhinted, large, poorly rendered by some
viewers), which is what Chromium prints for a face it cannot embed (``docs/pdf/fonts.py``).
"""

from __future__ import annotations

import os
import re
import sys
from collections import Counter
from pathlib import Path

from pypdf import PageObject, PdfReader
from pypdf.generic import DictionaryObject

DOCS = Path(__file__).resolve().parents[1]
MAX_MIB = 25
# The book's text, figures and formulas are set in TrueType copies of their faces
# (docs/pdf/fonts.py): no character is left to Type 3 on 2026-12-05 (before those copies,
# 96 % were). The margin (14 characters of the Chinese PDF) is for a rare symbol that only a
# CFF face of the system has; one formula with Chinese in it exceeds it.
MAX_TYPE3 = 0.0001
ICONS = re.compile("[\ue000-\uf8ff]")
RADICALS = re.compile("[\u2e80-\u2eff\u2f00-\u2fdf]")
# "ﬂ" for "fl": a search for FlashAttention would miss it (print.css turns ligatures off).
LIGATURES = re.compile("[\ufb00-\ufb06]")
# What MathJax leaves behind when it did not typeset a formula, and TeX commands.
RAW_TEX = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\\(?:frac|mathrm|text|sum|left|right|cdot)\b")


def chapters() -> list[str]:
    """The pages of the book's table of contents, in order (``docs/index.md``'s toctrees)."""
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    pages: list[str] = []
    for block in re.findall(r"```\{toctree\}\n(.*?)```", index, flags=re.S):
        pages += [
            line.strip()
            for line in block.splitlines()
            if line.strip() and not line.lstrip().startswith(":")
        ]
    return pages


def chapter_title(page: str) -> str:
    """The Chinese title of a page: its first ``# `` heading.

    >>> chapter_title("chapters/02-fusion").startswith("2.")
    True
    """
    source = (DOCS / f"{page}.md").read_text(encoding="utf-8")
    match = re.search(r"^# (.+)$", source, flags=re.M)
    if match is None:
        raise ValueError(f"{page}.md has no '# ' title")
    return match.group(1).strip()


def outline(reader: PdfReader) -> list[tuple[str, int, int]]:
    """First-level bookmarks as (title, page index, number of bookmarks under it)."""
    found: list[tuple[str, int, int]] = []
    items = list(reader.outline)
    for i, item in enumerate(items):
        if isinstance(item, list):
            continue
        under = items[i + 1] if i + 1 < len(items) and isinstance(items[i + 1], list) else []
        found.append((item.title, reader.get_destination_page_number(item), len(under)))
    return found


def unembedded_fonts(reader: PdfReader) -> set[str]:
    """Names of the fonts the PDF uses without carrying them."""
    missing: set[str] = set()
    seen: set[int] = set()
    for page in reader.pages:
        fonts = page.get("/Resources", {}).get("/Font", {})
        for ref in fonts.values():
            if getattr(ref, "idnum", None) in seen:
                continue
            seen.add(getattr(ref, "idnum", id(ref)))
            font = ref.get_object()
            if font.get("/Subtype") == "/Type3":
                continue  # glyphs drawn by the PDF itself
            if "/DescendantFonts" in font:  # a composite font: the glyphs are its descendant's
                font = font["/DescendantFonts"][0].get_object()
            descriptor = font.get("/FontDescriptor")
            descriptor = descriptor.get_object() if descriptor is not None else {}
            if not any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3")):
                missing.add(str(font.get("/BaseFont")))
    return missing


def page_text(page: PageObject, drawn: Counter[bool]) -> str:
    """A page's text, counting its characters in ``drawn`` by whether a Type 3 font drew them
    (the theme's icons, in the Private Use Area, are not text and are not counted)."""

    def visit(text: str, cm: object, tm: object, font: DictionaryObject | None, size: float):
        if font is not None:
            drawn[font.get("/Subtype") == "/Type3"] += len(ICONS.sub("", "".join(text.split())))

    return page.extract_text(visitor_text=visit) or ""


def key_numbers(edition: str) -> list[str]:
    """What the audit appendix prints: each claim as the article states it, and the
    recomputed value, in the edition's language (from ``infrabook.audit``)."""
    os.environ["INFRABOOK_LANG"] = edition
    from infrabook.audit import audit

    found = []
    for row in audit():
        found += [row.text, row.stated, row.recomputed_text]
    return found


# Sphinx's smart quotes print the English edition's ' and " curled.
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def _squash(text: str) -> str:
    """Text as compared: without white space (lines wrap anywhere), quotes straight.

    >>> _squash("u’ = 1/2 + 3")
    "u'=1/2+3"
    """
    return re.sub(r"\s+", "", text.translate(_QUOTES))


def check(path: Path) -> list[str]:
    """Everything wrong with one edition's PDF (empty when it passes)."""
    match = re.fullmatch(r"infrabook-(zh|en)\.pdf", path.name)
    if match is None:
        return [f"{path}: expected a file named infrabook-zh.pdf or infrabook-en.pdf"]
    edition = match.group(1)
    problems: list[str] = []
    mib = path.stat().st_size / 2**20
    if mib > MAX_MIB:
        problems.append(f"{path}: {mib:.1f} MiB, more than {MAX_MIB} MiB")
    reader = PdfReader(path)
    pages = chapters()
    if len(reader.pages) < len(pages) + 2:
        problems.append(f"{path}: {len(reader.pages)} pages for {len(pages)} chapters")

    marks = outline(reader)
    # The contents and the introduction (the front page) come before the chapters.
    book = marks[2:]
    if len(book) != len(pages):
        problems.append(
            f"{path}: {len(book)} chapter bookmarks, the table of contents has {len(pages)}: "
            f"{[t for t, _, _ in book]}"
        )
    for (title, _, sections), page in zip(book, pages, strict=False):
        if edition == "zh" and title != chapter_title(page):
            problems.append(f"{path}: bookmark {title!r} where {page} is expected")
        has_sections = re.search(
            r"^## ", (DOCS / f"{page}.md").read_text(encoding="utf-8"), flags=re.M
        )
        if has_sections and sections == 0:
            problems.append(f"{path}: no section bookmarks under {title!r}")
    starts = [s for _, s, _ in marks]
    if starts != sorted(starts):
        problems.append(f"{path}: bookmarks out of page order: {starts}")

    missing = unembedded_fonts(reader)
    if missing:
        problems.append(f"{path}: fonts not embedded: {sorted(missing)}")

    drawn: Counter[bool] = Counter()
    text = "\n".join(page_text(page, drawn) for page in reader.pages)
    type3 = drawn[True] / max(1, drawn[True] + drawn[False])
    if type3 > MAX_TYPE3:
        problems.append(
            f"{path}: {type3:.2%} of the text is drawn with Type 3 fonts, at most "
            f"{MAX_TYPE3:.2%} expected (a face without a TrueType copy, docs/pdf/fonts.py)"
        )
    squashed = _squash(text)
    absent = sorted({n for n in key_numbers(edition) if _squash(n) not in squashed})
    if absent:
        problems.append(f"{path}: not found as text: {absent[:10]} ({len(absent)} in all)")
    radicals = sorted(set(RADICALS.findall(text)))
    if radicals:
        problems.append(
            f"{path}: radical look-alikes in the text layer (a search misses them): "
            f"{''.join(radicals)}"
        )
    ligatures = sorted(set(LIGATURES.findall(text)))
    if ligatures:
        problems.append(f"{path}: ligatures in the text layer: {''.join(ligatures)}")
    if edition == "zh" and "原文" not in text:
        problems.append(f"{path}: 原文 is not found as text")
    tex = sorted(set(RAW_TEX.findall(text)))
    if tex:
        problems.append(f"{path}: raw TeX in the text: {tex}")
    return problems


def main() -> None:
    paths = [Path(p) for p in sys.argv[1:]]
    if not paths:
        sys.exit(__doc__)
    problems = [p for path in paths for p in check(path)]
    for problem in problems:
        print(problem)
    if problems:
        sys.exit(1)
    for path in paths:
        reader = PdfReader(path)
        print(
            f"{path}: {len(reader.pages)} pages, {path.stat().st_size / 2**20:.1f} MiB, "
            f"{len(outline(reader))} chapter bookmarks: ok"
        )


if __name__ == "__main__":
    main()
