"""Check the built site's accessibility in headless Chromium: axe-core and the keyboard.

Usage: python -m docs.checks.a11y BUILD_HTML_DIR [--chromium PATH] [--pages GLOB ...]

* axe-core (the copy bundled in axe-playwright-python; nothing is downloaded) scans every
  page in light and dark mode at 390 px and 1280 px, and the open chapter drawer at 390 px.
  A serious or critical violation fails the check; moderate and minor ones are listed.
  axe accepts any alt text, so a figure whose alt text is its file name (myst-nb's default
  for a figure without one) fails here too.
* Keyboard only, at both widths, on every page with answer toggles or form inputs: Tab
  reaches the chapter drawer toggle, the search, every answer toggle and every input in
  the article, in that order, and each shows a focus ring.
* At 390 px the drawer opens by tap and by Enter on ☰, shows the chapter links, and
  Escape closes it.
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import BrowserContext, Page, sync_playwright

from .browser import CHROMIUM_FLAGS, SKIP_DIRS, has_chromium, serve_edition

WIDTHS = (390, 1280)
SCHEMES = ("light", "dark")
FAILING_IMPACTS = {"serious", "critical"}
PHONE = 390
# More presses than any page has stops; a page that needs more has a focus trap.
MAX_TABS = 800
# generous: on a loaded CI machine a page with math can take a while to typeset
TIMEOUT_MS = 90_000

TOGGLE = ".bd-header-article .primary-toggle"
DRAWER = "#pst-primary-sidebar-modal"
# symbol on the button: (button, drawer, a link it must show, what that link list is)
DRAWERS = {
    "☰": (TOGGLE, DRAWER, f"{DRAWER} nav.bd-docs-nav a.reference", "the chapter list"),
    "☷": (
        ".bd-header-article .secondary-toggle",
        "#pst-secondary-sidebar-modal",
        "#pst-secondary-sidebar-modal nav.page-toc a",
        "this page's contents",
    ),
}
ANSWERS = "details.sd-dropdown > summary"
INPUTS = "input:not([type=hidden]), select, textarea"
ARTICLE = "article.bd-article"

# Marks the controls Tab must reach, in the order it must reach them: the drawer toggle
# and search first on a phone; at 1280 px the sidebar's search box comes before the
# toggle, as on the page. Returns how many there are.
MARK_TARGETS = """([toggle, answers, inputs, article]) => {
  const shown = (e) => e.getClientRects().length > 0
    && getComputedStyle(e).visibility !== "hidden";
  const search = [...document.querySelectorAll(".search-button__button")].filter(shown);
  const inArticle = (sel) => [...document.querySelectorAll(`${article} ${sel}`)];
  const head = [...document.querySelectorAll(toggle), ...search.slice(0, 1)].filter(shown);
  head.sort((a, b) => a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1);
  const body = [...inArticle(answers), ...inArticle(inputs).filter(shown)];
  body.sort((a, b) => a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1);
  const targets = [...head, ...body];
  targets.forEach((e, i) => { e.dataset.a11yTarget = String(i); });
  return targets.length;
}"""

# Images whose alt text is missing or only names a file, which axe lets through.
ALT_IS_FILE = """() => [...document.images]
  .filter((i) => { const alt = (i.getAttribute("alt") ?? "").trim();
                   return !alt || /\\.(png|jpe?g|svg|gif|webp)$/i.test(alt); })
  .map((i) => i.getAttribute("src"))"""

# What has focus now, and whether it draws a ring a sighted keyboard user can see.
FOCUSED = """() => {
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  const s = getComputedStyle(e);
  const ring = s.outlineStyle === "auto"  // the browser's own focus ring
    || (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2)
    || s.boxShadow !== "none";
  return {target: e.dataset.a11yTarget ?? null, ring,
          what: e.tagName.toLowerCase() + (e.className ? "." + e.className : "")};
}"""


def pages_of(root: Path, patterns: list[str]) -> list[str]:
    """The site's HTML pages, relative to ``root``, optionally only those matching a glob."""
    pages = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*.html")
        if not SKIP_DIRS & set(p.relative_to(root).parts)
    )
    if patterns:
        pages = [p for p in pages if any(fnmatch.fnmatch(p, g) for g in patterns)]
    return pages


def _load(page: Page, url: str) -> None:
    page.goto(url, wait_until="load")
    if page.evaluate("document.querySelectorAll('.math').length"):
        # resolves once every formula is typeset, after the site's own handlers on the same
        # promise (a11y.js: wide formulas)
        page.wait_for_function(
            "window.MathJax && window.MathJax.startup && window.MathJax.startup.promise"
        )
        page.evaluate("window.MathJax.startup.promise.then(() => true)")


def _scan(axe: Axe, page: Page, where: str, problems: list[str], notes: list[str]) -> None:
    for v in axe.run(page).response["violations"]:
        targets = ", ".join(" ".join(n["target"]) for n in v["nodes"][:3])
        line = f"{where}: {v['id']} ({v['impact']}, {len(v['nodes'])}×) {v['help']}: {targets}"
        if v["impact"] in FAILING_IMPACTS:
            print(f"problem: {line}", file=sys.stderr)  # now too: a full scan takes minutes
            problems.append(line)
        else:
            notes.append(line)


def check_alt(page: Page, name: str, problems: list[str]) -> None:
    """Every image has alt text, and more than its file name."""
    for src in page.evaluate(ALT_IS_FILE):
        problems.append(
            f"{name}: figure without alt text saying what it shows "
            f"(alt is empty or a file name): {src}"
        )


def _context(browser, width: int, scheme: str) -> BrowserContext:
    phone = width == PHONE
    context = browser.new_context(
        viewport={"width": width, "height": 844 if phone else 900},
        color_scheme=scheme,
        has_touch=phone,
        is_mobile=phone,
    )
    context.set_default_timeout(TIMEOUT_MS)
    return context


def check_axe(
    chromium: str, base: str, pages: list[str], scheme: str, problems: list[str], notes: list[str]
) -> None:
    """axe-core on every page in one colour scheme, at both widths, in a browser of its own."""
    axe = Axe()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        for width in WIDTHS:
            context = _context(browser, width, scheme)
            page = context.new_page()
            for name in pages:
                where = f"{name} ({scheme}, {width} px)"
                print(f"axe: {where}", file=sys.stderr)
                _load(page, base + name)
                shown = page.evaluate("document.documentElement.dataset.theme")
                if shown != scheme:
                    problems.append(f"{where}: page shows the {shown!r} theme, not {scheme!r}")
                _scan(axe, page, where, problems, notes)
                if (scheme, width) == (SCHEMES[0], WIDTHS[-1]):
                    check_alt(page, name, problems)
            if width == PHONE and pages:
                _load(page, base + pages[0])
                page.tap(TOGGLE)
                page.wait_for_selector(f"{DRAWER}[open]")
                _scan(
                    axe,
                    page,
                    f"{pages[0]} with the drawer open ({scheme}, {width} px)",
                    problems,
                    notes,
                )
            context.close()
        browser.close()


def check_tab_order(page: Page, where: str, problems: list[str]) -> None:
    """Tab from the top: every marked control is reached, in order, with a focus ring."""
    count = page.evaluate(MARK_TARGETS, [TOGGLE, ANSWERS, INPUTS, ARTICLE])
    page.evaluate("document.activeElement && document.activeElement.blur()")
    reached: list[int] = []
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if focused is None or focused["target"] is None:
            continue
        index = int(focused["target"])
        if index in reached:
            break  # focus came round again
        if not focused["ring"]:
            problems.append(f"{where}: no visible focus ring on {focused['what']}")
        reached.append(index)
    missing = sorted(set(range(count)) - set(reached))
    if missing:
        problems.append(
            f"{where}: Tab never reaches {len(missing)} of {count} controls "
            f"(numbers {missing[:10]} in page order)"
        )
    if reached != sorted(reached):
        problems.append(f"{where}: Tab reaches the controls out of order: {reached}")


def check_drawer(browser, base: str, name: str, problems: list[str]) -> None:
    """At 390 px: a tap on ☰ (☷) and Enter on it both open its drawer on the chapter list
    (the page's contents); Escape closes it and gives focus back to the button."""
    context = _context(browser, PHONE, "light")
    page = context.new_page()
    _load(page, base + name)
    for symbol, (button, drawer, link, what) in DRAWERS.items():
        for how in ("tap", "Enter"):
            where = f"{name} (390 px, {how} on {symbol})"
            if how == "tap":
                page.tap(button)
            else:
                page.focus(button)
                page.keyboard.press("Enter")
            try:
                page.wait_for_selector(f"{drawer}[open]", timeout=3000)
                page.locator(link).first.wait_for(state="visible", timeout=3000)
            except Exception:
                problems.append(f"{where}: the drawer did not open on {what}")
                continue
            page.keyboard.press("Escape")
            page.wait_for_timeout(100)  # a11y.js gives focus back after the close event
            if page.evaluate(f"document.querySelector('{drawer}').open"):
                problems.append(f"{where}: Escape did not close the drawer")
            elif not page.evaluate(
                f"document.activeElement === document.querySelector('{button}')"
            ):
                problems.append(f"{where}: after Escape, focus is not back on {symbol}")
    context.close()


def run(root: Path, chromium: str, patterns: list[str]) -> tuple[list[str], list[str]]:
    pages = pages_of(root, patterns)
    server, _, base = serve_edition(root)
    problems: list[str] = []
    notes: list[str] = []
    try:
        # The colour schemes side by side, a browser each: CI has two cores, and axe is most
        # of this check's time. A failure in either raises here.
        with ThreadPoolExecutor(len(SCHEMES)) as pool:
            args = (chromium, base, pages)
            runs = [pool.submit(check_axe, *args, s, problems, notes) for s in SCHEMES]
            for done in runs:
                done.result()
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
            for width in WIDTHS:
                context = _context(browser, width, "light")
                page = context.new_page()
                for name in pages:
                    _load(page, base + name)
                    if page.locator(f"{ARTICLE} :is({ANSWERS}, {INPUTS})").count():
                        print(f"keyboard: {name} ({width} px)", file=sys.stderr)
                        check_tab_order(page, f"{name} ({width} px, Tab)", problems)
                context.close()
            chapter = next((p for p in pages if p.startswith("chapters/")), None)
            if chapter:
                check_drawer(browser, base, chapter, problems)
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    print(
        f"checked {len(pages)} pages × {len(SCHEMES)} colour schemes × {len(WIDTHS)} widths",
        file=sys.stderr,
    )
    return problems, notes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument(
        "--pages",
        nargs="*",
        default=[],
        help="only pages matching these globs, e.g. 'chapters/02-*'",
    )
    args = parser.parse_args()
    if not has_chromium(args.chromium):
        return 2
    problems, notes = run(args.root, args.chromium, args.pages)
    for n in notes:
        print(f"note (moderate/minor): {n}", file=sys.stderr)
    for p in problems:
        print(f"problem: {p}", file=sys.stderr)
    print("accessibility check: " + ("passed" if not problems else f"{len(problems)} problems"))
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
