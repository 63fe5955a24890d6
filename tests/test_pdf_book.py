"""The PDF build's own logic (docs/pdf/finish.py) and the PDF check (docs/checks/pdf.py):
the text-layer repair, links, running heads, and what the check reads from the sources."""

from __future__ import annotations

import doctest
import importlib.util
import re
import sys
import unicodedata
from pathlib import Path
from types import ModuleType

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def finish() -> ModuleType:
    return _load(DOCS / "pdf" / "finish.py")


def test_finish_doctests(finish):
    assert doctest.testmod(finish).failed == 0


def test_every_kangxi_radical_maps_to_its_ideograph_without_a_font(finish):
    # With no font at all, Unicode's own compatibility mapping covers the Kangxi block.
    mapping = finish.radical_map({code: f"g{code}" for code in range(0x2F00, 0x2FD6)})
    assert len(mapping) == 0x2FD6 - 0x2F00
    for radical, ideograph in mapping.items():
        assert unicodedata.normalize("NFKC", chr(radical)) == chr(ideograph)
        assert not finish.is_radical(chr(ideograph))


def test_font_glyph_wins_over_nfkc(finish):
    # ⻅ (U+2EC5) has no NFKC form; the font's shared glyph says it is 见 (U+89C1).
    cmap = {0x2EC5: "cid1", 0x89C1: "cid1", 0x2F92: "cid2", 0x898B: "cid2"}
    assert finish.radical_map(cmap) == {0x2EC5: 0x89C1, 0x2F92: 0x898B}


def _entries(cmap_text: str) -> dict[int, str]:
    """An independent reading of a ToUnicode CMap: source code to destination text."""
    found = {}
    for body in re.findall(r"beginbfchar(.*?)endbfchar", cmap_text, flags=re.S):
        for src, dest in re.findall(r"<(\w+)>\s*<(\w+)>", body):
            found[int(src, 16)] = bytes.fromhex(dest).decode("utf-16-be")
    for body in re.findall(r"beginbfrange(.*?)endbfrange", cmap_text, flags=re.S):
        for lo, hi, dest in re.findall(r"<(\w+)>\s*<(\w+)>\s*<(\w+)>", body):
            start = bytes.fromhex(dest).decode("utf-16-be")
            for i in range(int(lo, 16), int(hi, 16) + 1):
                found[i] = chr(ord(start) + i - int(lo, 16))
    return found


def test_to_unicode_repair_changes_only_the_radicals(finish):
    original = (
        "/CIDInit /ProcSet findresource begin\n"
        "2 beginbfchar\n<0003> <2F00>\n<0004> <0041>\nendbfchar\n"
        "2 beginbfrange\n<0010> <0013> <2F08>\n<0020> <0022> <4E09>\nendbfrange\n"
        "endcmap"
    )
    radicals = {0x2F00: 0x4E00, 0x2F08: 0x4EBA, 0x2F0A: 0x5165}
    fixed, count = finish.fix_to_unicode(original, radicals)
    before, after = _entries(original), _entries(fixed)
    assert set(before) == set(after)
    expected = {k: "".join(chr(radicals.get(ord(c), ord(c))) for c in v) for k, v in before.items()}
    assert after == expected
    assert count == 3  # 0x2F00, and 0x2F08 and 0x2F0A inside the first range
    assert not any(finish.is_radical(c) for v in after.values() for c in v if ord(c) in radicals)
    assert "endcmap" in fixed and "/CIDInit" in fixed


def test_to_unicode_sections_hold_at_most_100_entries(finish):
    lines = "\n".join(f"<{i:04X}> <2F00>" for i in range(250))
    fixed, count = finish.fix_to_unicode(f"250 beginbfchar\n{lines}\nendbfchar", {0x2F00: 0x4E00})
    sizes = [int(n) for n in re.findall(r"(\d+) beginbfchar", fixed)]
    assert count == 250 and sizes == [100, 100, 50]


def test_running_heads_leave_chapter_openings_bare(finish):
    heads = finish.running_heads([(5, "B"), (1, "A")], 8)
    assert heads == [None, None, "A", "A", "A", None, "B", "B"]


@pytest.fixture(scope="module")
def check_pdf() -> ModuleType:
    from docs.checks import pdf

    return pdf


def test_check_reads_the_chapters_from_the_table_of_contents(check_pdf):
    pages = check_pdf.chapters()
    assert pages[0] == "chapters/01-conclusion"
    assert "appendix/audit" in pages
    assert all((DOCS / f"{p}.md").exists() for p in pages)
    assert "chapters/05-1-graph-replay" not in pages  # a section of chapter 5, not a chapter


def test_check_looks_for_radicals_ligatures_and_raw_tex(check_pdf):
    assert check_pdf.RADICALS.findall("原⽂ ⼀ 一 ⻅") == ["⽂", "⼀", "⻅"]
    assert check_pdf.LIGATURES.findall("ﬂashattention flashattention") == ["ﬂ"]
    assert check_pdf.RAW_TEX.findall(r"T = \frac{a}{b} and \(x\)") == ["\\frac", "\\(", "\\)"]
    assert check_pdf.RAW_TEX.findall("72/120 = 0.6, 1 GiB") == []


def test_check_refuses_a_wrong_name_and_a_missing_file(check_pdf, tmp_path):
    assert check_pdf.check(tmp_path / "book.pdf")[0].endswith(
        "expected a file named infrabook-zh.pdf or infrabook-en.pdf"
    )
    with pytest.raises(FileNotFoundError):
        check_pdf.check(tmp_path / "infrabook-zh.pdf")


def test_key_numbers_come_from_the_audit(check_pdf, monkeypatch):
    monkeypatch.setenv("INFRABOOK_LANG", "zh")
    numbers = check_pdf.key_numbers("en")
    assert "120" in numbers and "72" in numbers
    assert any("120 MiB" in n for n in numbers)
    assert not any(re.search(r"[\u4e00-\u9fff]", n) for n in numbers if "MiB" in n)


def test_check_pdf_doctests(check_pdf):
    assert doctest.testmod(check_pdf).failed == 0


# A page as the English PDF prints it: lang="en", code in prose and a printed table.
_EN_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><style>{css}</style>
</head><body><p>Check it with <code class="literal">--mfu bucketed=0.3</code>.</p>
<pre>Strategy   Rows executed   Padding
generic    4096            0 %</pre>{extra}</body></html>"""


@pytest.mark.parametrize(
    ("extra", "fails"),
    [
        ("", False),
        # the English edition's proportional widths reaching the code again
        (
            "<style>pre, code, pre *, code * "
            "{ font-variant-east-asian: proportional-width !important }</style>",
            True,
        ),
    ],
)
def test_print_css_sets_english_code_in_a_fixed_width_font(tmp_path, extra, fails):
    pytest.importorskip("playwright")
    chromium = Path("/usr/bin/chromium")
    if not chromium.exists():
        pytest.skip("no Chromium at /usr/bin/chromium")
    from playwright.sync_api import sync_playwright

    css = (DOCS / "pdf" / "print.css").read_text(encoding="utf-8")
    page_file = tmp_path / "en.html"
    page_file.write_text(_EN_PAGE.format(css=css, extra=extra), encoding="utf-8")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium), args=["--no-sandbox"])
        page = browser.new_page()
        page.emulate_media(media="print")
        page.goto(page_file.as_uri())
        page.evaluate("() => document.fonts.ready")
        problems = page.evaluate((DOCS / "pdf" / "print_checks.js").read_text(encoding="utf-8"))
        browser.close()
    assert bool(problems) == fails, problems


# What the site leaves in a page that the book must not print, or must keep together.
_PRINT_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><style>{css}</style>
</head><body><p>Check your answer with <code class="literal">--mfu</code>.</p>
<div class="pst-scrollable-table-container"><table><tr><td>1</td></tr></table></div>
<p class="ib-scroll-hint ib-shown">wide table: scroll sideways</p>
<details class="sd-dropdown" open><summary>Answer</summary><p>It is.</p></details>
<dl class="simple glossary"><dt>roofline</dt><dd>The bound.</dd></dl></body></html>"""


def _print_problems(tmp_path, css: str) -> list[str]:
    pytest.importorskip("playwright")
    chromium = Path("/usr/bin/chromium")
    if not chromium.exists():
        pytest.skip("no Chromium at /usr/bin/chromium")
    from playwright.sync_api import sync_playwright

    page_file = tmp_path / "print.html"
    page_file.write_text(_PRINT_PAGE.format(css=css), encoding="utf-8")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium), args=["--no-sandbox"])
        page = browser.new_page()
        page.emulate_media(media="print")
        page.goto(page_file.as_uri())
        problems = page.evaluate((DOCS / "pdf" / "print_checks.js").read_text(encoding="utf-8"))
        browser.close()
    return problems


def test_print_css_hides_screen_cues_and_keeps_things_whole(tmp_path):
    css = (DOCS / "pdf" / "print.css").read_text(encoding="utf-8")
    assert _print_problems(tmp_path, css) == []


def test_print_checks_catch_what_the_book_printed_before(tmp_path):
    """The stylesheet as it was (cues shown, code broken anywhere, answers and terms free to
    split): every one of the four is reported."""
    css = (DOCS / "pdf" / "print.css").read_text(encoding="utf-8")
    css += (
        ".ib-scroll-hint { display: block !important }"
        "p code { word-break: break-all }"
        "details.sd-dropdown { break-inside: auto !important }"
        "dl.glossary dt { break-after: auto !important }"
    )
    problems = _print_problems(tmp_path, css)
    for what in ("scroll cue", "inline code", "answer box", "glossary term"):
        assert any(what in p for p in problems), (what, problems)


@pytest.fixture(scope="module")
def fonts() -> ModuleType:
    return _load(DOCS / "pdf" / "fonts.py")


def _noto(fonts: ModuleType) -> None:
    if not all(face.collection.exists() for face in fonts.FACES):
        pytest.skip("no Noto Sans CJK collections (apt-get install fonts-noto-cjk)")


def test_fonts_doctests(fonts):
    assert doctest.testmod(fonts).failed == 0


def test_truetype_copy_draws_what_the_installed_face_draws(fonts, tmp_path):
    """The copy has quadratic outlines and no CFF, maps the text's characters and no radical
    look-alike, and each glyph keeps the installed face's bounds within a unit."""
    _noto(fonts)
    from fontTools.pens.boundsPen import BoundsPen
    from fontTools.ttLib import TTFont

    face = fonts.FACES[0]
    copy = TTFont(fonts.truetype_subset(face, "原文一见 Fa", tmp_path))
    assert "glyf" in copy and "CFF " not in copy
    cmap = copy.getBestCmap()
    assert {ord(c) for c in "原文一见F"} <= set(cmap)
    assert not [c for c in cmap if 0x2E80 <= c <= 0x2FDF]  # ⽂ ⼀ ⻅ left out
    original = fonts._face(face.collection, face.family)
    original_cmap = original.getBestCmap()
    for char in "原文一F":
        bounds = []
        for font, names in ((original, original_cmap), (copy, cmap)):
            pen = BoundsPen(font.getGlyphSet())
            font.getGlyphSet()[names[ord(char)]].draw(pen)
            bounds.append(pen.bounds)
        assert bounds[1] == pytest.approx(bounds[0], abs=1), char


def test_mathjax_faces_become_truetype_under_their_names(fonts, tmp_path):
    """The print copy's MathJax faces: same file names, TrueType (what Skia embeds), the same
    characters mapped, and every glyph within a unit of the WOFF2 original."""
    pytest.importorskip("brotli")
    from fontTools.pens.boundsPen import BoundsPen
    from fontTools.ttLib import TTFont

    source = DOCS / "_static" / "mathjax" / "fonts" / "mathjax-newcm-font" / "chtml" / "woff2"
    names = ["mjx-ncm-n.woff2", "mjx-ncm-v.woff2"]
    for name in names:
        (tmp_path / name).write_bytes((source / name).read_bytes())
    assert [p.name for p in fonts.truetype_in_place(tmp_path)] == names
    for name in names:
        copy, original = TTFont(tmp_path / name), TTFont(source / name)
        assert (tmp_path / name).read_bytes()[:4] == b"\x00\x01\x00\x00"  # not "wOF2"
        assert "glyf" in copy and "CFF " not in copy
        cmap = copy.getBestCmap()
        assert cmap == original.getBestCmap()
        for glyph in sorted(set(cmap.values()))[:200]:
            bounds = []
            for font in (original, copy):
                pen = BoundsPen(font.getGlyphSet())
                font.getGlyphSet()[glyph].draw(pen)
                bounds.append(pen.bounds)
            if bounds[0] is None:
                assert bounds[1] is None, glyph
            else:
                assert bounds[1] == pytest.approx(bounds[0], abs=1), (name, glyph)


_FONT_PAGE = """<!doctype html><html lang="zh-CN"><head><meta charset="utf-8">
<style>{faces} p {{ font-family: "Noto Sans CJK SC"; }}</style></head>
<body><p>原文说：融合不减少运算。一二三</p></body></html>"""


@pytest.mark.parametrize("copied", [False, True])
def test_check_counts_the_text_drawn_in_type3(fonts, check_pdf, tmp_path, copied):
    """Chromium prints the installed Noto CJK as Type 3 and the TrueType copy as a real
    font; the check's count says which. The installed face's text layer says 原⽂ (a radical,
    which finish.py repairs); the copy's says 原文 without any repair."""
    pytest.importorskip("playwright")
    _noto(fonts)
    chromium = Path("/usr/bin/chromium")
    if not chromium.exists():
        pytest.skip("no Chromium at /usr/bin/chromium")
    from collections import Counter

    from playwright.sync_api import sync_playwright
    from pypdf import PdfReader

    text = "原文说：融合不减少运算。一二三"
    made = {fonts.FACES[0]: fonts.truetype_subset(fonts.FACES[0], text, tmp_path)}
    page_file = tmp_path / "page.html"
    faces = fonts.font_face_css(made) if copied else ""
    page_file.write_text(_FONT_PAGE.format(faces=faces), encoding="utf-8")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium), args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(page_file.as_uri())
        page.evaluate("() => document.fonts.ready")
        page.pdf(path=str(tmp_path / "page.pdf"))
        browser.close()
    drawn: Counter[bool] = Counter()
    shown = check_pdf.page_text(PdfReader(tmp_path / "page.pdf").pages[0], drawn)
    assert ("原文" in shown) == copied
    assert drawn[True] + drawn[False] == len(text)
    assert drawn[True] == (0 if copied else len(text))
