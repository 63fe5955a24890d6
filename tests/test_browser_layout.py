"""The site's layout check (docs/checks/browser_layout.js) on small pages in Chromium: it
fails a table cut without a scroll cue and punctuation starting a line after a formula, and
passes the same content once the site's script and style (docs/_static/infrabook-site.*)
have handled it.

Needs Playwright (the ``browser`` extra) and Debian's Chromium; skipped where either is
missing, as in test_a11y_checks.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("playwright")
CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip("no Chromium at /usr/bin/chromium", allow_module_level=True)

STATIC = Path(__file__).resolve().parents[1] / "docs" / "_static"
LAYOUT_JS = (STATIC.parent / "checks" / "browser_layout.js").read_text(encoding="utf-8")

# A calculator's output box holding a table wider than the column (as on 5.2 at 1280 px).
_WIDE_TABLE = "<div class='live-output' style='overflow-x:auto'><table><thead><tr>{}</tr>\
</thead><tbody><tr>{}</tr></tbody></table></div>".format(
    "".join(f"<th>column {i}</th>" for i in range(12)),
    "".join("<td>2.98e-07</td>" for _ in range(12)),
)
# A formula followed by the comma that closes its clause, at the end of a narrow line.
_FORMULA = (
    "<p style='width:{w}px'>都乘以<span class='math'><mjx-container "
    "style='display:inline-block;width:40px'>r</mjx-container></span>，再加上新块自己的项</p>"
)
_PAGE = """<!doctype html><html lang="zh-CN"><head><meta charset="utf-8">{head}</head>
<body><main><article class="bd-article" style="width:{width}px">{body}</article></main>
</body></html>"""


def _problems(tmp_path, body: str, with_site: bool, width: int = 600) -> list[str]:
    from playwright.sync_api import sync_playwright

    head = ""
    if with_site:
        head = (
            f'<link rel="stylesheet" href="{(STATIC / "infrabook-site.css").as_uri()}">'
            f'<script src="{(STATIC / "infrabook-site.js").as_uri()}"></script>'
        )
    page_file = tmp_path / "page.html"
    page_file.write_text(_PAGE.format(head=head, width=width, body=body), encoding="utf-8")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(page_file.as_uri(), wait_until="load")
        problems = page.evaluate(LAYOUT_JS, {"english": [], "desktop": True, "dark": False})
        browser.close()
    return problems


@pytest.mark.parametrize("with_site", [False, True])
def test_a_table_cut_without_a_cue_fails(tmp_path, with_site):
    problems = _problems(tmp_path, _WIDE_TABLE, with_site)
    cut = [p for p in problems if p.startswith("content cut without a scroll cue")]
    assert bool(cut) != with_site, problems


def test_the_cue_of_a_long_table_is_at_its_top(tmp_path):
    rows = "".join("<tr>" + "<td>2.98e-07</td>" * 12 + "</tr>" for _ in range(80))
    body = _WIDE_TABLE.replace("</tbody>", rows + "</tbody>")
    assert not [p for p in _problems(tmp_path, body, True) if "scroll cue" in p]


def _breaking_width(tmp_path) -> int:
    """A paragraph width at which Chromium starts a line with the "，" after the formula."""
    for width in range(90, 200, 2):
        body = _FORMULA.format(w=width)
        if [p for p in _problems(tmp_path, body, False) if "line starts" in p]:
            return width
    pytest.fail("no width breaks the line between the formula and its comma")


def test_punctuation_kept_with_its_formula_passes(tmp_path):
    """At the width that breaks the bare page, the formula wrapped with its comma in a
    span.ib-nowrap (what docs/_ext/infrabook_kinsoku.py writes) keeps them together."""
    body = (
        _FORMULA.format(w=_breaking_width(tmp_path))
        .replace("<span class='math'>", "<span class='ib-nowrap'><span class='math'>")
        .replace("，再加上", "，</span>再加上")
    )
    assert not [p for p in _problems(tmp_path, body, True) if "line starts" in p]


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("显存峰值", ["显存", "峰值"]),  # known whole, and known end to end: the parts
        ("屋顶线", ["屋顶线"]),  # 线 alone is never indexed: kept whole
        ("融合", ["融合"]),
        ("在线softmax", ["在线", "softmax"]),
        ("峰值显存占用", ["峰值", "显存", "占用"]),
    ],
)
def test_chinese_queries_are_cut_into_the_index_words(tmp_path, query, words):
    """Search (docs/_ext/infrabook_site.py's splitter) with a made-up index of jieba words."""
    import sys

    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(STATIC.parent / "_ext"))
    from infrabook_site import SPLIT_QUERY_JS

    terms = {w: 1 for w in ("显存峰值", "显存", "峰值", "屋顶线", "屋顶", "融合", "在线", "占用")}
    page_file = tmp_path / "search.html"
    index = json.dumps({"terms": terms, "titleterms": {}}, ensure_ascii=False)
    page_file.write_text(
        f"<!doctype html><script>var Search = {{_index: {index}}};{SPLIT_QUERY_JS}</script>",
        encoding="utf-8",
    )
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(page_file.as_uri())
        found = page.evaluate("(q) => splitQuery(q)", query)
        browser.close()
    assert found == words
