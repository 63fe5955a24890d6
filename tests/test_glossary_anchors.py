"""Glossary anchors (docs/_ext/infrabook_glossary.py): a Chinese term's anchor is named after
its English equivalent, so it survives a reordering of the glossary, and {term} links to it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
DOCS = Path(__file__).resolve().parents[1] / "docs"

GLOSSARY = """\
术语
====

.. glossary::

   屋顶线
   roofline
      性能上界。

   融合
   operator fusion
      把算子放进一个 kernel。

见 :term:`屋顶线` 与 :term:`融合`。
"""


# The English edition translates the Chinese term and links it by its source text.
EN_PO = r"""msgid ""
msgstr "Content-Type: text/plain; charset=utf-8\n"

msgid "屋顶线"
msgstr "Roofline"

msgid "见 :term:`屋顶线` 与 :term:`融合`。"
msgstr "See :term:`the roofline <屋顶线>` and :term:`fusion <融合>`."
"""


def _build(tmp_path: Path, source: str, language: str = "zh_CN") -> str:
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(DOCS / '_ext')!r})\n"
        f'extensions = ["infrabook_glossary"]\nlanguage = "{language}"\n'
        'locale_dirs = ["locale"]\n',
        encoding="utf-8",
    )
    if language == "en":
        (src / "locale" / "en" / "LC_MESSAGES").mkdir(parents=True)
        (src / "locale" / "en" / "LC_MESSAGES" / "index.po").write_text(EN_PO, encoding="utf-8")
    (src / "index.rst").write_text(source, encoding="utf-8")
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-W", "-b", "html", str(src), str(out)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    # the general index links the terms by the same anchors
    general = (out / "genindex.html").read_text(encoding="utf-8")
    assert "#term-roofline-zh" in general and not re.search(r"#term-\d", general)
    return (out / "index.html").read_text(encoding="utf-8")


def test_chinese_terms_are_named_after_their_english_term(tmp_path):
    html = _build(tmp_path, GLOSSARY)
    assert 'id="term-roofline-zh"' in html and 'id="term-operator-fusion-zh"' in html
    assert 'href="#term-roofline-zh"' in html and 'href="#term-operator-fusion-zh"' in html
    assert 'id="term-0"' not in html


def test_the_anchor_survives_reordering(tmp_path):
    first, second = GLOSSARY.split("   融合\n")
    entry, rest = second.split("\n\n", 1)
    reordered = first.replace("   屋顶线\n", "   融合\n" + entry + "\n\n   屋顶线\n", 1) + rest
    assert reordered.index("融合") < reordered.index("屋顶线")
    html = _build(tmp_path, reordered)
    assert 'href="#term-roofline-zh"' in html


def test_the_english_edition_links_the_translated_term_by_its_name(tmp_path):
    html = _build(tmp_path, GLOSSARY, language="en")
    assert "Roofline" in html and 'id="term-roofline-zh"' in html
    assert 'href="#term-roofline-zh"' in html and not re.search(r'href="#term-\d', html)
