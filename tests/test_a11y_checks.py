"""The accessibility check must catch what it exists to catch, on pages made to fail it.

Needs Playwright, axe-playwright-python and Debian's Chromium (the ``browser`` extra); where
they are missing the test is skipped, as the browser checks themselves cannot run there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")

pytest.importorskip("playwright")
pytest.importorskip("axe_playwright_python")
if not CHROMIUM.is_file():
    pytest.skip("no Chromium at /usr/bin/chromium", allow_module_level=True)


PAGE = """<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>t</title>
<style>summary.bare:focus-visible {{ outline: none; }}</style></head>
<body><main><article class="bd-article">
<h1>页</h1>
<details class="sd-dropdown"><summary>答案</summary><p>一</p></details>
<details class="sd-dropdown"><summary class="bare">{name}</summary><p>二</p></details>
<input aria-label="n" value="3">
<img src="a.png" alt="每个 kernel 读写的字节数"><img src="b.png" alt="../_images/b.png">
</article></main></body></html>"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The check module, and one Chromium on a served folder holding a page whose second
    answer toggle has a name (named.html) and one where it has none (nameless.html)."""
    from playwright.sync_api import sync_playwright

    from docs.checks import a11y as check

    root = tmp_path_factory.mktemp("site")
    (root / "named.html").write_text(PAGE.format(name="另一个答案"), encoding="utf-8")
    (root / "nameless.html").write_text(PAGE.format(name=""), encoding="utf-8")
    server, _, base = check.serve_edition(root)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=check.CHROMIUM_FLAGS)
        yield check, browser, base
        browser.close()
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(("name", "fails"), [("nameless.html", True), ("named.html", False)])
def test_axe_scan_fails_a_nameless_answer_toggle(site, name, fails):
    check, browser, base = site
    problems, notes = [], []
    context = check._context(browser, 1280, "light")
    page = context.new_page()
    check._load(page, base + name)
    check._scan(check.Axe(), page, name, problems, notes)
    context.close()
    assert any("summary-name (serious" in p for p in problems) == fails, problems


def test_tab_order_check_wants_a_focus_ring_on_every_control(site):
    check, browser, base = site
    problems: list[str] = []
    context = check._context(browser, 1280, "light")
    page = context.new_page()
    check._load(page, base + "named.html")
    check.check_tab_order(page, "named.html", problems)
    context.close()
    assert problems == ["named.html: no visible focus ring on summary.bare"]


def test_alt_check_wants_words_not_file_names(site):
    check, browser, base = site
    problems: list[str] = []
    context = check._context(browser, 1280, "light")
    page = context.new_page()
    check._load(page, base + "named.html")
    check.check_alt(page, "named.html", problems)
    context.close()
    assert problems == [
        "named.html: figure without alt text saying what it shows "
        "(alt is empty or a file name): b.png"
    ]
