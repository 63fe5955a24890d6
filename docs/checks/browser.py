"""Drive headless Chromium through every page of the built site.

Usage: python -m docs.checks.browser BUILD_HTML_DIR [--chromium PATH]

Serves the site on 127.0.0.1, then for every page checks: HTTP 200, no console error or
uncaught exception, every image loaded, math typeset by the local MathJax. It also checks
that search finds the right chapter for 融合 and FlashAttention, that an answer toggle opens,
that the site works from the file system, and that the 404 page's links work when it is
served for a nested address. Every request that leaves 127.0.0.1 (or the file system) is
blocked and reported: the site must not need a CDN.

Then every page again at 390 px and 1280 px, in light and in dark mode (the reader's system
setting, which the site follows; ``--modes`` picks some): the page never pans sideways; no
link runs off the screen; no preformatted block (code, printed output) wraps its lines, and
one wider than its box scrolls in it with the scroll cue; no typeset formula (answers
opened) reaches outside its box or the column; no table is wider than its column unless
it scrolls inside its own container with the scroll cue; on desktop no figure is shrunk
below its natural size (its text stays at 10 pt or more), on a phone no figure label is
under 11 CSS px as shown; every ``<img>`` has real alt text (not a
file name) and every figure is an SVG whose labels are ``<text>``; no reader-facing English
UI string from :data:`ENGLISH_UI`; in dark mode no figure or cell output sits on a light
plate; and search for 融合 shows a prose snippet (not menu text, LaTeX source or ``glue(``
code).

The English edition (BUILD_HTML_DIR/en, checked when given as the root) gets the same walk
with English searches ("fusion", "bucketing"), and no English-UI check (editions.py
checks its words); from either edition the language switcher must open the same page in the
other.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import sys
import threading
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import Page, sync_playwright

# "en" is the English edition inside the Chinese site's folder: checked on its own run.
SKIP_DIRS = {"_sources", "_static", "_images", "_downloads", "en"}
# What each edition's search must find, and the term whose first snippet must be prose.
# The Chinese queries are what readers typed in the 2026-12-01 review, terms of three or
# more characters among them, with and without a space before a Latin word.
SEARCHES = {
    "zh": {
        "融合": "chapters/02-fusion.html",
        "FlashAttention": "chapters/03-flashattention.html",
        "分桶": "chapters/05-2-bucketing.html",
        "屋顶线": "chapters/02-fusion.html",
        "回缩因子": "chapters/03-flashattention.html",
        "执行利用率": "chapters/05-2-bucketing.html",
        "工作集": "chapters/02-fusion.html",
        "显存峰值": "chapters/03-flashattention.html",
        "在线softmax": "chapters/03-flashattention.html",
        "在线 softmax": "chapters/03-flashattention.html",
        "逐形状特化": "chapters/05-2-bucketing.html",
        "图重放": "chapters/05-1-graph-replay.html",
    },
    "en": {
        "fusion": "chapters/02-fusion.html",
        "FlashAttention": "chapters/03-flashattention.html",
        "bucketing": "chapters/05-2-bucketing.html",
        "roofline": "chapters/02-fusion.html",
        "rescale factor": "chapters/03-flashattention.html",
        "executed utilisation": "chapters/05-2-bucketing.html",
        "working set": "chapters/02-fusion.html",
        "online softmax": "chapters/03-flashattention.html",
        "graph replay": "chapters/05-1-graph-replay.html",
    },
}
# A glossary term found by search shows its definition, not only the term.
# queries whose page must be the first hit, ahead of the glossary's entry for the same word
FIRST_HIT = {
    "zh": {"融合": "chapters/02-fusion.html", "分桶": "chapters/05-2-bucketing.html"},
    "en": {"fusion": "chapters/02-fusion.html", "bucketing": "chapters/05-2-bucketing.html"},
}
GLOSSARY_SEARCH = {"zh": "屋顶线", "en": "roofline"}
SNIPPET = {"zh": "融合", "en": "fusion"}
# Theme and extension strings a reader could meet in English: shown text, tooltips, labels
# and placeholders. Each must have been translated or overridden (conf.py, _templates/).
ENGLISH_UI = (
    "Show code cell source",
    "Hide code cell source",
    "Show code cell outputs",
    "Hide code cell outputs",
    "Show code cell content",
    "Hide code cell content",
    "Toggle primary sidebar",
    "Toggle secondary sidebar",
    "Color mode",
    "System Settings",
    "Light",
    "Dark",
    "Search...",
    "Search…",
    "Search the docs",
    "Copyright",
    "By ",
    "Back to top",
    "Skip to main content",
    "Download source file",
    "Download notebook",
    "Print to PDF",
    "Fullscreen mode",
    "Exit fullscreen",
    "On this page",
    "Contents",
    "Previous",
    "Next",
    "Last updated",
    "Copy to clipboard",
    "Copied!",
    "Download this page",
    "Home",
    "Index",
    "Open an issue",
    "Edit this page",
    "Launch",
)
MODES = {
    "390 light": dict(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, color_scheme="light"
    ),
    "390 dark": dict(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, color_scheme="dark"
    ),
    "1280 light": dict(viewport={"width": 1280, "height": 900}, color_scheme="light"),
    "1280 dark": dict(viewport={"width": 1280, "height": 900}, color_scheme="dark"),
}
LAYOUT_JS = (Path(__file__).with_name("browser_layout.js")).read_text(encoding="utf-8")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # the browser closing a page mid-download is not a failure of the site


def has_chromium(path: str) -> bool:
    """Whether Debian's Chromium is at ``path``; if not, say how to get it."""
    if Path(path).is_file():
        return True
    print(
        f"no Chromium at {path}: install Debian's chromium package (apt-get install chromium)",
        file=sys.stderr,
    )
    return False


def edition_of(root: Path) -> str:
    """Which edition a built site is, from its front page's ``<html lang>``."""
    index = root / "index.html"
    head = index.read_text(encoding="utf-8")[:400] if index.is_file() else ""
    return "en" if 'lang="en"' in head else "zh"


def serve_edition(root: Path) -> tuple[http.server.ThreadingHTTPServer, str, str]:
    """Serve a built edition as it is published: the English one (``html/en``) inside the
    Chinese site, so that its absolute 404 links and its switcher's links up out of en/
    resolve. Returns the server, the site's address and the edition's address."""
    if edition_of(root) == "en":
        server, site = _serve(root.parent)
        return server, site, site + "en/"
    server, site = _serve(root)
    return server, site, site


def _serve(root: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = _QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


# From file://, Chromium blocks the fetch that search uses to show a snippet of each hit
# (CORS); the hits themselves are listed. Those errors, and only those, are expected there.
FILE_SEARCH_SNIPPET_ERRORS = (
    "has been blocked by CORS policy",
    "net::ERR_FAILED",
    "Failed to fetch",
)


class Checker:
    def __init__(self, page: Page, allowed_prefix: str, tolerated: tuple[str, ...] = ()) -> None:
        self.page = page
        self.tolerated = tolerated
        self.problems: list[str] = []
        self.errors: list[str] = []
        page.on("console", lambda m: m.type == "error" and self._error(m.text))
        page.on("pageerror", lambda e: self._error(str(e)))
        page.route("**/*", functools.partial(self._route, allowed_prefix))

    def _error(self, text: str) -> None:
        if not any(t in text for t in self.tolerated):
            self.errors.append(text)

    def _route(self, allowed: str, route, request) -> None:
        if request.url.startswith(allowed) or request.url.startswith("data:"):
            route.continue_()
        else:
            self.problems.append(f"blocked a request outside the site: {request.url}")
            route.abort()

    def visit(self, url: str, name: str) -> None:
        self.errors.clear()
        response = self.page.goto(url, wait_until="load")
        if response is not None and response.status != 200:
            self.problems.append(f"{name}: HTTP {response.status}")
        self.page.wait_for_load_state("networkidle")
        broken = self.page.evaluate(
            "Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0)"
            ".map(i => i.getAttribute('src'))"
        )
        for src in broken:
            self.problems.append(f"{name}: image did not load: {src}")
        has_math = self.page.evaluate("document.querySelectorAll('.math').length")
        if has_math:
            self.page.wait_for_function(
                "document.querySelectorAll('mjx-container').length > 0", timeout=15000
            )
        for err in self.errors:
            self.problems.append(f"{name}: console error: {err}")

    def search(self, base: str, term: str, expected: str, first: bool = False) -> None:
        self.errors.clear()
        self.page.goto(f"{base}search.html?q={quote(term)}", wait_until="load")
        try:
            self.page.wait_for_selector("#search-results ul.search li", timeout=20000)
        except Exception:
            self.problems.append(f"search {term!r}: no results")
            return
        links = self.page.eval_on_selector_all(
            "#search-results ul.search li a", "as => as.map(a => a.getAttribute('href'))"
        )
        if not any(expected in (href or "") for href in links):
            self.problems.append(f"search {term!r}: {expected} not among {links[:8]}")
        elif first and expected not in (links[0] or "").split("#")[0]:
            self.problems.append(f"search {term!r}: {expected} is not the first hit: {links[:4]}")
        for err in self.errors:
            self.problems.append(f"search {term!r}: console error: {err}")

    def snippet(self, base: str, term: str) -> None:
        """The first hit's snippet is prose: it has the term and no menu, math or code."""
        self.page.goto(f"{base}search.html?q={quote(term)}", wait_until="load")
        try:
            self.page.wait_for_selector("#search-results ul.search li p.context", timeout=20000)
        except Exception:
            self.problems.append(f"search {term!r}: no snippet under the first hit")
            return
        text = self.page.locator("#search-results ul.search li p.context").first.inner_text()
        bad = [
            s
            for s in ("跟随系统", "System Settings", "亮色", "glue(", "\\(", "\\[", "\\frac")
            if s in text
        ]
        if term not in text or bad:
            self.problems.append(f"search {term!r}: the snippet is not prose: {text[:120]!r}")

    def definition(self, base: str, term: str) -> None:
        """A glossary term among the hits shows its definition under it."""
        self.page.goto(f"{base}search.html?q={quote(term)}", wait_until="load")
        hit = "#search-results li:has(a[href*='#term-']) p.context"
        try:
            self.page.wait_for_selector(hit, timeout=20000)
        except Exception:
            self.problems.append(f"search {term!r}: no glossary term among the hits")
            return
        text = self.page.locator(hit).first.inner_text()
        if " — " not in text or len(text.split(" — ", 1)[1].strip()) < 2 * len(term):
            self.problems.append(f"search {term!r}: the glossary hit shows no definition: {text!r}")

    def not_found(self, base: str, root: Path) -> None:
        """The 404 page, served for a nested address, links only to pages that exist, and
        its body offers search."""
        url = f"{base}chapters/typo/oops.html"
        body = (root / "404.html").read_text(encoding="utf-8")
        self.page.route(
            url, lambda route: route.fulfill(status=404, body=body, content_type="text/html")
        )
        self.page.goto(url, wait_until="load")
        targets = self.page.eval_on_selector_all(
            "a[href]:not([href^='#']), form[action]",
            "els => els.map(e => e.href || new URL(e.getAttribute('action'), location).href)",
        )
        # the site's own pages; other hosts (the footer's licence and report links) are
        # never fetched here, as in links.py
        for target in sorted(t for t in set(targets) if t.startswith(base)):
            status = self.page.request.get(target).status
            if status != 200:
                self.problems.append(f"404 page at a nested address: {target} gives {status}")
        if not self.page.locator("article a[href$='search.html']").count():
            self.problems.append("404 page: no link to search in its body")

    def toggle(self, url: str) -> None:
        self.page.goto(url, wait_until="load")
        summary = self.page.locator("details.sd-dropdown > summary").first
        if summary.count() == 0:
            self.problems.append(f"{url}: no answer toggle found")
            return
        details = self.page.locator("details.sd-dropdown").first
        if details.get_attribute("open") is not None:
            self.problems.append(f"{url}: the answer is open before it is clicked")
        summary.click()
        if details.get_attribute("open") is None:
            self.problems.append(f"{url}: the answer toggle did not open")


def _svg_figures(root: Path) -> list[str]:
    """Every figure file is an SVG whose labels are text (not outlines or pixels)."""
    problems = []
    for path in sorted((root / "_images").glob("*")):
        if path.suffix != ".svg":
            problems.append(f"figure is not SVG: _images/{path.name}")
        elif "<text" not in path.read_text(encoding="utf-8"):
            problems.append(f"figure has no <text> (labels drawn as outlines): {path.name}")
    return problems


def layout(
    browser, base: str, pages: list[str], modes: list[str], english: tuple[str, ...]
) -> list[str]:
    """Each page at 390 px and 1280 px, light and dark: see the module docstring."""
    problems = []
    for mode in modes:
        context = browser.new_context(**MODES[mode])
        page = context.new_page()
        args = {
            "english": list(english),
            "desktop": mode.startswith("1280"),
            "dark": mode.endswith("dark"),
        }
        for name in pages:
            page.goto(base + name, wait_until="load")
            # Widths are measured after the web fonts, as the reader sees them.
            page.evaluate("document.fonts.ready.then(() => true)")
            if page.evaluate("document.querySelectorAll('.math').length"):
                page.wait_for_function(
                    "document.querySelectorAll('mjx-container').length > 0", timeout=15000
                )
                page.evaluate("MathJax.startup.promise.then(() => true)")
            # site.js sizes the figures for the screen once it has read their SVG
            page.wait_for_function("document.documentElement.dataset.ibFigures", timeout=15000)
            problems += [f"{mode} {name}: {p}" for p in page.evaluate(LAYOUT_JS, args)]
        context.close()
    return problems


def switcher(page: Page, here: str, there: str) -> list[str]:
    """Clicking the language switcher at ``here`` opens ``there``, the same page in the
    other edition."""
    page.goto(here, wait_until="load")
    link = page.locator("a.lang-switch").first
    if not link.count():
        return [f"{here}: no language switcher"]
    link.click()
    page.wait_for_load_state("load")
    if page.url != there:
        return [f"{here}: the language switcher opened {page.url}, not {there}"]
    # From further down, it opens the same section there (the n-th section in both).
    sections = "[...document.querySelectorAll('article.bd-article section[id]')]"
    page.goto(here, wait_until="load")
    wanted = page.evaluate(
        f"(() => {{ const s = {sections}; const i = Math.min(3, s.length - 1);"
        " s[i].scrollIntoView({ behavior: 'instant' }); return i; })()"
    )
    page.wait_for_timeout(300)
    # clicked where it is (sticky at the top), as a reader taps it: Playwright's own click
    # would first scroll the page to the button's place in the flow
    with page.expect_navigation():
        page.evaluate("document.querySelector('a.lang-switch').click()")
    page.wait_for_load_state("load")
    page.wait_for_timeout(300)
    got = page.evaluate(
        f"{sections}.findIndex(e => e.id === decodeURIComponent(location.hash.slice(1)))"
    )
    if got != wanted:
        return [f"{here}: from section {wanted}, the switcher opened {page.url} (section {got})"]
    return []


def run(root: Path, chromium: str, modes: list[str]) -> list[str]:
    edition = edition_of(root)
    pages = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*.html")
        if not SKIP_DIRS & set(p.relative_to(root).parts)
    )
    searches = SEARCHES[edition]
    server, site, base = serve_edition(root)
    problems: list[str] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
            over_http = Checker(browser.new_page(), site)
            for i, name in enumerate(pages, 1):
                print(f"[{i}/{len(pages)}] {name}", file=sys.stderr)
                over_http.visit(base + name, name)
            for term, expected in searches.items():
                over_http.search(base, term, expected)
            for term, expected in FIRST_HIT[edition].items():
                over_http.search(base, term, expected, first=True)
            over_http.snippet(base, SNIPPET[edition])
            over_http.definition(base, GLOSSARY_SEARCH[edition])
            over_http.not_found(base, root)
            over_http.toggle(base + "chapters/09-self-test.html")
            problems += over_http.problems
            chapter = "chapters/02-fusion.html"
            if edition == "en":
                problems += switcher(over_http.page, base + chapter, site + chapter)
            elif (root / "en" / "index.html").is_file():
                problems += switcher(over_http.page, base + chapter, base + "en/" + chapter)
            problems += _svg_figures(root)
            english = ENGLISH_UI if edition == "zh" else ()
            problems += layout(browser, base, pages, modes, english)
            from_disk = Checker(
                browser.new_page(), root.resolve().as_uri(), FILE_SEARCH_SNIPPET_ERRORS
            )
            disk = root.resolve().as_uri() + "/"
            from_disk.visit(disk + "chapters/03-flashattention.html", "file:// chapter 3")
            term, expected = next(iter(searches.items()))
            from_disk.search(disk, term, expected)
            problems += [f"(file://) {p}" for p in from_disk.problems]
            browser.close()
    finally:
        server.shutdown()
    print(
        f"checked {len(pages)} pages ({edition}), {len(searches)} searches, one toggle, "
        f"file:// access, layout in {len(modes)} modes",
        file=sys.stderr,
    )
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument(
        "--modes",
        default=",".join(MODES),
        help=f"comma-separated layout modes (default: all of {', '.join(MODES)})",
    )
    args = parser.parse_args()
    if not has_chromium(args.chromium):
        return 2
    modes = [m.strip() for m in args.modes.split(",")]
    if unknown := [m for m in modes if m not in MODES]:
        parser.error(f"--modes {','.join(unknown)!r}: expected among {', '.join(MODES)}")
    problems = run(args.root, args.chromium, modes)
    for p in problems:
        print(f"problem: {p}", file=sys.stderr)
    print("browser check: " + ("passed" if not problems else f"{len(problems)} problems"))
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
