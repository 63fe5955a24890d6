"""The English edition: the i18n extension handles MyST-NB's pitfalls, and the checks on the
catalogues and on the two built editions catch what they exist to catch."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from docs.checks import editions, translations

DOCS = Path(__file__).resolve().parents[1] / "docs"


PAGE = """\
# 1. 标题

```{code-cell} ipython3
:tags: [remove-cell]
from myst_nb import glue
glue("n", 42, display=False)
```

数值是 {glue:text}`n`。

```{code-cell} ipython3
print("输出 7")
```

```{code-cell} ipython3
w = 6  # 单元格里的注释
```

没有翻译的一段。

$$
\\text{时间} = 1
$$

```python
x = 1  # 写给读者的注释
```

```python
y = 2
```

```{literalinclude} included.py
```
"""

CONF = f"""\
import sys
sys.path.insert(0, {str(DOCS / "_ext")!r})
extensions = ["myst_nb", "infrabook_i18n"]
myst_enable_extensions = ["dollarmath"]
language = "zh_CN"
locale_dirs = ["locale"]
gettext_compact = False
nb_execution_mode = "force"
html_theme = "basic"
"""


def _sphinx(src: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", *args, str(src), str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
    )


@pytest.mark.timeout(300)
def test_translated_page_keeps_glue_numbered_heading_and_flags_the_untranslated(
    tmp_path, mystnb_page
):
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(CONF, encoding="utf-8")
    (src / "index.md").write_text(mystnb_page(PAGE), encoding="utf-8")
    (src / "included.py").write_text("z = 3  # 包含的文件自己的注释\n", encoding="utf-8")

    got = _sphinx(src, tmp_path / "gettext", "-b", "gettext")
    assert got.returncode == 0, got.stderr
    pot = (tmp_path / "gettext" / "index.pot").read_text(encoding="utf-8")
    assert "数值是 {glue:text}`n`。" in pot  # prose, with its glue role as written
    assert "输出 7" not in pot  # a cell's output is not a message
    # a code block the page writes is a message when it holds Chinese (its comments); one
    # without is the same in both editions, and a file included from elsewhere is that file
    assert 'msgid "x = 1  # 写给读者的注释\\n"' in pot
    assert "y = 2" not in pot and "包含" not in pot
    # a cell's source is a message when a comment holds Chinese, not for a string it prints
    assert 'msgid "w = 6  # 单元格里的注释"' in pot and 'print(\\"' not in pot

    catalog = Catalog(locale="en")
    catalog.add("1. 标题", "1. Title")
    catalog.add("数值是 {glue:text}`n`。", "The value is {glue:text}`n`.")
    catalog.add("\\text{时间} = 1", "\\text{time} = 1")
    catalog.add("x = 1  # 写给读者的注释\n", "x = 1  # a comment for the reader\n")
    catalog.add("w = 6  # 单元格里的注释", "w = 6  # a comment in a cell")
    po = src / "locale" / "en" / "LC_MESSAGES" / "index.po"
    po.parent.mkdir(parents=True)
    with po.open("wb") as f:
        write_po(f, catalog)

    got = _sphinx(src, tmp_path / "en", "-b", "html", "-D", "language=en")
    assert got.returncode == 0, got.stderr
    html = (tmp_path / "en" / "index.html").read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", "", html)
    assert "The value is 42." in text  # the glued value inside the translated sentence
    heading = re.sub(r"<[^>]+>", "", html.split("<h1")[1].split("</h1>")[0])
    assert heading.startswith(">1. Title") and "<ol" not in html  # a heading, not a list
    assert "untranslated or fuzzy message: '没有翻译的一段。'" in got.stderr
    assert "\\text{time} = 1" in html and "<p>::</p>" not in html  # a formula, translated
    assert got.stderr.count("untranslated") == 1
    code = [re.sub(r"<[^>]+>", "", b) for b in re.findall(r"page-code.*?</pre>", html, re.S)]
    assert len(code) == 4 and "x = 1  # a comment for the reader" in code[2]
    assert "w = 6  # a comment in a cell" in code[1]  # shown translated, run as written


BADGE_PAGE = """\
# 标题

```{code-cell} ipython3
from IPython.display import Markdown, display
display(Markdown("| 判定 |\\n|:--|\\n| {bdg-success}`一致` |"))
```
"""


@pytest.mark.timeout(300)
def test_a_badge_in_a_cell_output_stays_a_badge_and_is_no_message(tmp_path, mystnb_page):
    # ProseOnly marks what cells show as no message; an inline node so marked would be
    # unwrapped by Sphinx, and the audit's verdict badges shown as plain words
    src = tmp_path / "src"
    src.mkdir()
    conf = CONF.replace('"infrabook_i18n"]', '"infrabook_i18n", "sphinx_design"]')
    (src / "conf.py").write_text(conf + 'nb_render_markdown_format = "myst"\n', encoding="utf-8")
    (src / "index.md").write_text(mystnb_page(BADGE_PAGE), encoding="utf-8")
    got = _sphinx(src, tmp_path / "zh", "-b", "html")
    assert got.returncode == 0, got.stderr
    html = (tmp_path / "zh" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<span class="[^"]*sd-badge[^"]*sd-bg-success[^"]*">一致</span>', html)
    got = _sphinx(src, tmp_path / "gettext", "-b", "gettext")
    assert got.returncode == 0, got.stderr
    assert "一致" not in (tmp_path / "gettext" / "index.pot").read_text(encoding="utf-8")


def test_translation_check_catches_missing_fuzzy_lost_anchor_and_stray_chinese(tmp_path):
    catalog = Catalog(locale="en")
    catalog.add("好的 {glue:text}`a`", "fine {glue:text}`a`")
    catalog.add("空的", "")
    catalog.add("模糊的", "fuzzy", flags=["fuzzy"])
    catalog.add("丢了 {glue:text}`b` 与 $T$", "lost one $T$")
    catalog.add("中文残留", "left 中文 here")
    catalog.add("可以的", "quoted {zh}`原文` and {term}`fusion <融合>`")
    catalog.add("for x in y:  # 注释\n    f(x)", "for x in y:  # a comment\n    f(x)")
    catalog.add("a = 1  # 注释\nb = 2", "a = 1  # a comment\nb = 3")
    catalog.add("c = f(1)  # 一行的单元格", "c = f(2)  # a one-line cell")
    catalog.add("见 #42 与 #43", "see #42 and #43")  # prose that mentions issues is no code
    po = tmp_path / "en" / "LC_MESSAGES" / "page.po"
    po.parent.mkdir(parents=True)
    with po.open("wb") as f:
        write_po(f, catalog)
    found = "\n".join(translations.problems(tmp_path))
    assert "untranslated '空的'" in found
    assert "fuzzy '模糊的'" in found
    assert "lost ['glue:text:b']" in found
    assert "Chinese outside {zh}: ['中文']" in found
    assert "code changed, not only its comments 'a = 1  # 注释" in found
    assert "code changed, not only its comments 'c = f(1)" in found
    assert "好的" not in found and "可以的" not in found and "for x in y" not in found
    assert len(translations.problems(tmp_path)) == 6


def _site(root: Path, zh_body: str, en_body: str, switch_en: str = "../page.html") -> None:
    (root / "en").mkdir(parents=True)
    (root / "page.html").write_text(
        f'<a class="lang-switch" href="en/page.html">English</a>{zh_body}', encoding="utf-8"
    )
    (root / "en" / "page.html").write_text(
        f'<html lang="en"><a class="lang-switch" href="{switch_en}" lang="zh-CN">中文</a>'
        f"{en_body}</html>",
        encoding="utf-8",
    )


def test_edition_check_passes_a_faithful_translation(tmp_path):
    _site(
        tmp_path,
        '<p>从 <span class="pasted-text">120</span> 到 <span class="pasted-text">72</span></p>',
        '<p>down to <span class="pasted-text">72</span> from <span class="pasted-text">120</span>'
        ' ({zh} <span class="zh-quote" lang="zh-CN">融合</span>)</p>'
        '<dl class="glossary"><dt>融合</dt><dd>fusion</dd></dl>'
        '<div class="cell tag_article-quote"><pre>融合: 120 MiB</pre></div>',
    )
    assert editions.problems(tmp_path) == []


def test_edition_check_catches_numbers_chinese_and_switcher(tmp_path):
    _site(
        tmp_path,
        '<p><span class="pasted-text">120</span></p>',
        '<p><span class="pasted-text">121</span> 融合 <img src="x.png" alt="图"></p>',
        switch_en="../other.html",
    )
    found = "\n".join(editions.problems(tmp_path))
    assert "glued numbers differ: zh only ['120'], en only ['121']" in found
    assert "Chinese outside quotations: ['融合', '图']" in found
    assert "en/page.html: switcher leads to '../other.html'" in found


def test_edition_check_catches_residue_in_prose(tmp_path):
    _site(
        tmp_path,
        "<p>原因是**流量与容量是两笔账**。需要 8.9 TB/s：needs 8.9 TB/s, above every listed"
        " device's DRAM bandwidth (large enough on: rtx_pro_6000)</p>"
        "<pre>x ** 2  # code may say rtx_pro_6000 and whole English sentences</pre>",
        "<p>Traffic and capacity are two **ledgers** on rtx_pro_6000.</p>"
        "<table><tr><td>`[R, C] -> { }`</td></tr></table>",
    )
    found = "\n".join(editions.problems(tmp_path))
    assert "page.html: literal ** (Markdown left unparsed)" in found
    assert "en/page.html: literal **" in found
    assert "en/page.html: literal ` (inline code left unparsed)" in found
    assert "page.html: literal ` (" not in found.replace("en/page.html: literal ` (", "")
    assert "page.html: conf keys instead of device names: ['rtx_pro_6000']" in found
    assert "en/page.html: conf keys instead of device names: ['rtx_pro_6000']" in found
    assert 'English sentences in the Chinese edition: ["needs 8.9 TB/s, above every' in found
    # code, names and a title are not residue; English sentences are fine in English
    clean = tmp_path / "clean"
    _site(
        clean,
        "<p>原文所用的 NVIDIA RTX PRO 6000 Blackwell，见 <em>How to Scale Your Model</em>。</p>"
        "<pre>print(x ** 2)</pre><p><code>`</code></p>"
        "<footer><p>记录 <span>gpu-h200-13ac61.json</span>、rtx_pro_6000-x.json</p></footer>",
        "<p>The article's device is the <strong>NVIDIA RTX PRO 6000 Blackwell</strong>.</p>",
    )
    assert editions.problems(clean) == []


def test_edition_check_catches_english_comments_in_the_chinese_editions_page_code(tmp_path):
    # the comments of code a page writes for its reader are in the page's language; a cell's
    # source and a file included from the package keep theirs
    def block(comment: str, page_code: bool = True) -> str:
        marked = ' class="page-code"' if page_code else ""
        return f'<div{marked}><pre>fn()  <span class="c1"># {comment}</span></pre></div>'

    _site(
        tmp_path,
        block("预热：编译") + block("warm-up: compile") + block("included", page_code=False),
        block("warm-up: compile"),
    )
    found = "\n".join(editions.problems(tmp_path))
    assert "page.html: comments in English in the Chinese edition's code: ['# warm-up" in found
    assert "en/page.html: comments" not in found and "included" not in found
