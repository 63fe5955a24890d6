"""Build one edition's PDF from the HTML build's executed pages.

Usage: python docs/pdf/build.py EDITION LANGUAGE HTML_DIR DOCTREES

1. Sphinx builds the edition again as one page (``singlehtml``) from the HTML build's
   doctrees and execution cache: the pages were executed and glued by ``nox -s docs``; if
   any page would be executed again, the build stops and says to run ``nox -s docs``
   first.
2. Debian's headless Chromium (through Playwright, which never downloads a browser) opens
   that page, MathJax typesets the formulas, ``prepare.js`` makes a book of it (cover,
   contents, chapters as the outline's first level, numbered figures and tables, answers
   open, calculators as their default tables with the site's address) and ``print.css``
   lays it out; Chromium prints it, tagged.
3. The outline (bookmarks: the chapters, and their sections under them) is written from
   the headings ``prepare.js`` lists, at the named destinations Chromium gave them (its own
   ``outline=True`` leaves out headings that were re-levelled). Chromium prints a second,
   small PDF with only the margins (the running head, the page number, and the page of each
   entry of the contents, placed beside its link), laid over the book's pages.
4. ``finish.py``: searchable Chinese (see ``finish.fix_to_unicode``), links to the site,
   metadata.

The PDF is written to ``HTML_DIR/infrabook-EDITION.pdf``, where the site links it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import html
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from finish import fix_to_unicode, radical_map, running_heads, site_uri
from fonts import FACES, Face, characters, font_face_css, truetype_in_place, truetype_subset
from playwright.sync_api import sync_playwright
from pypdf import PdfReader, PdfWriter
from pypdf.generic import BooleanObject, DictionaryObject, Fit, NameObject, TextStringObject

from infrabook import labels

HERE = Path(__file__).resolve().parent
DOCS = HERE.parent
ROOT = DOCS.parent
# Debian's chromium by default; another Chromium or Chrome, or "playwright" for its own.
CHROMIUM = os.environ.get("INFRABOOK_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--font-render-hinting=none"]
CJK_FONT = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"

# The page: 176 x 250 mm (B5, the common size of technical books in Chinese); the margins
# leave room for the running head and the page number drawn in afterwards.
PAGE = {"width": "176mm", "height": "250mm"}
MARGIN = {"top": "20mm", "bottom": "20mm", "left": "17mm", "right": "17mm"}


def version() -> str:
    """The package's version, and the commit it was built from when git knows it."""
    from infrabook import __version__

    try:
        commit = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short=10", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return __version__
    return f"{__version__} ({commit})"


def build_date() -> str:
    """Today (UTC), or the day SOURCE_DATE_EPOCH names, for a reproducible build."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = dt.datetime.fromtimestamp(int(epoch), dt.UTC) if epoch else dt.datetime.now(dt.UTC)
    return moment.date().isoformat()


def singlehtml(language: str, doctrees: Path, out: Path) -> Path:
    """The edition as one page, from the HTML build's doctrees; never reads a page again."""
    if not (doctrees / "environment.pickle").exists():
        sys.exit(f"build.py: no HTML build at {doctrees}: run `nox -s docs` first")
    result = subprocess.run(
        [
            sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-b", "singlehtml",
            "-D", f"language={language}", "-d", str(doctrees), str(DOCS), str(out),
        ],
        capture_output=True,
        text=True,
    )  # fmt: skip
    if result.returncode != 0:
        sys.exit(f"build.py: the singlehtml build failed:\n{result.stdout}\n{result.stderr}")
    # The Chinese edition reads nothing again. The English one re-reads its pages, because
    # infrabook_i18n compiles its catalogues afresh on every build; their outputs then come
    # from the execution cache the HTML build filled. A page that would run is an error.
    log = result.stdout + result.stderr
    if "Executing notebook" in log:
        sys.exit(
            "build.py: a page was executed again: the HTML build is older than the sources "
            "or its execution cache is gone; run `nox -s docs` first"
        )
    # MathJax's faces, as TrueType (fonts.py): its formulas then are text in real fonts
    mathjax = out / "_static" / "mathjax" / "fonts" / "mathjax-newcm-font" / "chtml" / "woff2"
    if not truetype_in_place(mathjax):
        sys.exit(f"build.py: no MathJax fonts in {mathjax}: the vendored MathJax has moved")
    # The figures are SVG drawn in <img>, where print.css and the page's fonts do not reach:
    # their text too must reach the text layer without ligatures ("ﬃ" for "ffi"), and their
    # Chinese be drawn with a TrueType copy of the CJK face (fonts.py), given inline.
    svgs = sorted((out / "_images").glob("*.svg"))
    texts = [svg.read_text(encoding="utf-8") for svg in svgs]
    words = [html.unescape(w) for t in texts for w in re.findall(r">([^<>]+)<", t)]
    faces = [f for f in FACES if f.family == "Noto Sans CJK SC"]
    made = {f: truetype_subset(f, characters(words), out / "_fonts" / "figures") for f in faces}
    rule = f"<style>text {{ font-variant-ligatures: none; }}\n{font_face_css(made, True)}</style>"
    for svg, text in zip(svgs, texts, strict=True):
        styled = re.sub(r"(<svg\b[^>]*>)", lambda m: m.group(1) + rule, text, count=1)
        svg.write_text(styled, encoding="utf-8")
    return out / "index.html"


def print_book(
    index: Path, edition: str, site: str, raw: Path, fonts: Path
) -> tuple[list[dict], dict[Face, Path]]:
    """Chromium prints the page as a book, with the faces' TrueType copies written to
    ``fonts``; returns the headings of the outline and those copies."""
    book = {
        "lang": edition,
        # the book's words for the PDF, in this edition's language (infrabook/labels/site.py: pdf.*)
        "words": labels.group("pdf", edition)
        | {"yes": labels.text("word.yes", edition), "no": labels.text("word.no", edition)},
        "version": version(),
        "date": build_date(),
        "site": site,
        "siteText": site,
    }
    css = (HERE / "print.css").read_text(encoding="utf-8")
    prepare = (HERE / "prepare.js").read_text(encoding="utf-8")
    with sync_playwright() as pw:
        browser = _launch(pw)
        page = browser.new_page()
        page.emulate_media(media="print")
        page.goto(index.as_uri(), wait_until="load")
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("() => MathJax.startup.promise")
        page.add_style_tag(content=css)
        headings = page.evaluate(prepare, book)
        # The book's text as laid out (with what prepare.js wrote, the print style's generated
        # words, and the margins' page numbers), for the faces' TrueType copies (fonts.py).
        shown = page.evaluate("() => document.body.innerText + document.body.textContent")
        made = {
            face: truetype_subset(face, characters([shown, css, json.dumps(book)]), fonts)
            for face in FACES
        }
        page.add_style_tag(content=font_face_css(made))
        page.evaluate("() => Promise.all([...document.fonts].map((face) => face.load()))")
        page.evaluate("() => document.fonts.ready")
        problems = page.evaluate((HERE / "print_checks.js").read_text(encoding="utf-8"))
        if problems:
            browser.close()
            sys.exit(f"{index}: " + "; ".join(problems))
        # Chromium's own outline (outline=True) leaves out headings it has re-parented; the
        # outline is written from the headings instead (see finish).
        page.pdf(path=str(raw), **PAGE, margin=MARGIN, print_background=True, tagged=True)
        browser.close()
    return headings, made


def _launch(pw: Any) -> Any:
    if CHROMIUM == "playwright":
        return pw.chromium.launch(args=CHROMIUM_FLAGS)
    return pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)


def _destinations(reader: PdfReader) -> dict[str, tuple[int, float]]:
    """Named destinations: element id to (page index, top)."""
    found = {}
    for name, dest in reader.named_destinations.items():
        found[name.lstrip("/")] = (reader.get_destination_page_number(dest), float(dest["/Top"]))
    return found


def _outline(headings: list[dict], dests: dict[str, tuple[int, float]]) -> list[dict]:
    """Each heading with its page and top; the contents open on the page after the cover."""
    placed = []
    for h in headings:
        if h["id"] in dests:
            page, top = dests[h["id"]]
        elif h["id"] == "book-contents":
            page, top = 1, float("nan")
        else:
            sys.exit(f"build.py: no destination for the heading {h['title']!r} (#{h['id']})")
        placed.append({**h, "page": page, "top": top})
    return placed


def _toc_numbers(reader: PdfReader, dests: dict[str, tuple[int, float]], last: int) -> dict:
    """For the contents' pages (up to ``last``): where each entry's link ends, and the
    number of the page it leads to (page index + 1, as viewers count)."""
    numbers: dict[int, list[tuple[float, int]]] = {}
    for i in range(1, last + 1):
        for ref in reader.pages[i].get("/Annots") or []:
            annot = ref.get_object()
            name = str(annot.get("/Dest", "")).lstrip("/")
            if name in dests:
                bottom = float(annot["/Rect"][1])
                numbers.setdefault(i, []).append((bottom, dests[name][0] + 1))
    return numbers


def _margins_html(heads: list[str | None], toc: dict, edition: str, faces: str) -> str:
    """One page per page of the book, with only its running head, its page number and, on
    the contents' pages, the entries' page numbers; ``faces`` declares the fonts."""
    pages = []
    for i, head in enumerate(heads):
        top = f'<div class="head">{html.escape(head)}</div>' if head else ""
        number = f'<div class="foot">{i + 1}</div>' if i > 0 else ""
        entries = "".join(
            f'<div class="toc" style="bottom: {bottom + 2.2:.2f}pt">{n}</div>'
            for bottom, n in toc.get(i, [])
        )
        pages.append(f'<section class="page">{top}{entries}{number}</section>')
    lang = "zh-CN" if edition == "zh" else "en"
    return f"""<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><style>
{faces}
@page {{ size: {PAGE["width"]} {PAGE["height"]}; margin: 0; }}
html, body {{ margin: 0; font-family: "Noto Sans CJK SC", sans-serif; color: #555;
  font-variant-ligatures: none; }}
.page {{ position: relative; width: {PAGE["width"]}; height: {PAGE["height"]};
  break-after: page; overflow: hidden; }}
.head {{ position: absolute; top: 10mm; left: {MARGIN["left"]}; right: {MARGIN["right"]};
  font-size: 7.5pt; border-bottom: 0.4pt solid #aaa; padding-bottom: 1mm;
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }}
.foot {{ position: absolute; bottom: 9mm; left: 0; right: 0; text-align: center;
  font-size: 8pt; }}
.toc {{ position: absolute; right: {MARGIN["right"]}; font-size: 8.5pt; color: #111;
  line-height: 1; }}
</style></head><body>{"".join(pages)}</body></html>"""


def finish(raw: Path, headings: list[dict], edition: str, local_root: str, site: str,
           target: Path, fonts: dict[Face, Path]) -> None:  # fmt: skip
    """Outline, running heads and page numbers, searchable Chinese, site links, metadata."""
    reader = PdfReader(raw)
    dests = _destinations(reader)
    placed = _outline(headings, dests)
    chapters = [(h["page"], h["title"]) for h in placed if h["level"] == 1]
    heads = running_heads(chapters[1:], len(reader.pages))  # none over the contents
    first_chapter = chapters[1][0] if len(chapters) > 1 else len(reader.pages)
    toc = _toc_numbers(reader, dests, first_chapter - 1)
    margins = raw.with_name("margins.pdf")
    margins_html = raw.with_name("margins.html")
    margins_html.write_text(
        _margins_html(heads, toc, edition, font_face_css(fonts)), encoding="utf-8"
    )
    with sync_playwright() as pw:
        browser = _launch(pw)
        page = browser.new_page()
        page.goto(margins_html.as_uri(), wait_until="load")
        page.evaluate("() => document.fonts.ready")
        page.pdf(path=str(margins), **PAGE, print_background=False)
        browser.close()
    writer = PdfWriter(clone_from=reader)
    overlay = PdfReader(margins)
    if len(overlay.pages) != len(writer.pages):
        sys.exit(f"build.py: {len(overlay.pages)} margin pages for {len(writer.pages)} pages")
    for page, extra in zip(writer.pages, overlay.pages, strict=True):
        page.merge_page(extra, over=True)

    parent = None
    for h in placed:
        fit = Fit.xyz(top=h["top"]) if h["top"] == h["top"] else Fit.fit()
        item = writer.add_outline_item(
            title=h["title"],
            page_number=h["page"],
            parent=None if h["level"] == 1 else parent,
            fit=fit,
        )
        if h["level"] == 1:
            parent = item

    radicals = radical_map(_font_cmap())
    fixed_streams: set[int] = set()
    for page in writer.pages:
        fonts = page.get("/Resources", {}).get("/Font", {})
        for ref in fonts.values():
            to_unicode = ref.get_object().get("/ToUnicode")
            if to_unicode is None or to_unicode.idnum in fixed_streams:
                continue
            fixed_streams.add(to_unicode.idnum)
            stream = to_unicode.get_object()
            text, count = fix_to_unicode(stream.get_data().decode("latin-1"), radicals)
            if count:
                stream.set_data(text.encode("latin-1"))
        for annot in page.get("/Annots", []) or []:
            action = annot.get_object().get("/A")
            if action is not None and "/URI" in action:
                uri = str(action["/URI"])
                action[NameObject("/URI")] = TextStringObject(site_uri(uri, local_root, site))
    words = labels.group("pdf", edition)
    writer.add_metadata(
        {
            "/Title": f"infrabook · {words['subtitle']}",
            "/Author": words["author"],
            "/Subject": f"{words['edition']} · {version()} · {build_date()}",
            "/Creator": "infrabook (Sphinx singlehtml, Chromium, docs/pdf/build.py)",
        }
    )
    root = writer._root_object
    root[NameObject("/Lang")] = TextStringObject("zh-CN" if edition == "zh" else "en")
    root[NameObject("/PageMode")] = NameObject("/UseOutlines")
    root[NameObject("/ViewerPreferences")] = DictionaryObject(
        {NameObject("/DisplayDocTitle"): BooleanObject(True)}
    )
    writer.compress_identical_objects()
    with target.open("wb") as fh:
        writer.write(fh)


def _font_cmap() -> dict[int, str]:
    """The cmap of the Simplified Chinese face of Noto Sans CJK (the same in every face
    for the radicals and their ideographs)."""
    from fontTools.ttLib import TTCollection

    collection = TTCollection(CJK_FONT, lazy=True)
    for font in collection.fonts:
        if "SC" in (font["name"].getDebugName(1) or ""):
            return dict(font.getBestCmap())
    raise SystemExit(f"build.py: no Simplified Chinese face in {CJK_FONT}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("edition", choices=labels.LANGUAGES)
    parser.add_argument("language")
    parser.add_argument("html", type=Path)
    parser.add_argument("doctrees", type=Path)
    args = parser.parse_args()
    if CHROMIUM != "playwright" and not Path(CHROMIUM).exists():
        sys.exit(f"build.py: no Chromium at {CHROMIUM}: apt-get install chromium fonts-noto-cjk")
    start = time.monotonic()
    work = DOCS / "_build" / "pdf" / args.edition
    shutil.rmtree(work, ignore_errors=True)
    index = singlehtml(args.language, args.doctrees, work / "html")
    site = os.environ.get("INFRABOOK_SITE_URL", "")
    if site:
        site = site.rstrip("/") + "/" + ("en/" if args.edition == "en" else "")
    raw = work / "printed.pdf"
    headings, fonts = print_book(index, args.edition, site, raw, work / "fonts")
    target = args.html / f"infrabook-{args.edition}.pdf"
    finish(raw, headings, args.edition, index.parent.as_uri() + "/", site, target, fonts)
    took = time.monotonic() - start
    size = target.stat().st_size / 2**20
    print(json.dumps({"pdf": str(target), "MiB": round(size, 1), "seconds": round(took)}))


if __name__ == "__main__":
    main()
