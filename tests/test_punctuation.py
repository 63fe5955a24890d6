"""Chinese prose on the pages uses full-width punctuation (docs/checks/punctuation.py).

The check itself is tested on made-up lines where the right answer is known, so that it can
fail; then every page is required to pass it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from docs.checks import punctuation as punct

DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.mark.parametrize(
    ("line", "fixed"),
    [
        ("融合不减少运算,只减少中间量:见下。", "融合不减少运算，只减少中间量：见下。"),
        ('原文说"只减少主机提交"', "原文说“只减少主机提交”"),
        ("见 {ref}`sec-a` (第 2 章)", "见 {ref}`sec-a`（第 2 章）"),
        ("共 1,024 行", "共 1,024 行"),
        ("`f(a, b)`:调用", "`f(a, b)`：调用"),
        ("English only: (kept), as is", "English only: (kept), as is"),
        ("数学 $f(a,b)$ 不动", "数学 $f(a,b)$ 不动"),
    ],
)
def test_fix_line(line, fixed):
    assert punct.fix_line(line) == fixed


def test_code_cells_and_options_are_left_alone():
    page = (
        '---\ntitle: "a:b"\n---\n```{code-cell} ipython3\nprint("中,文")\n```\n'
        ":::{note}\n中,文\n:::\n"
    )
    fixed = punct.fix_page(page)
    assert 'print("中,文")' in fixed
    assert 'title: "a:b"' in fixed
    assert "中，文\n:::" in fixed


def test_every_page_passes():
    assert punct.main([str(DOCS)]) == 0, "run: python -m docs.checks.punctuation --fix docs"


def _kinsoku():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "infrabook_kinsoku", DOCS / "_ext" / "infrabook_kinsoku.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_formula_is_kept_with_the_punctuation_touching_it():
    """The HTML wraps "（" + formula + "，" in one span.ib-nowrap, drops the word joiner
    the source carries, and leaves a formula with no punctuation beside it alone."""
    from docutils import nodes

    kinsoku = _kinsoku()
    para = nodes.paragraph()
    para += [
        nodes.Text("块（"),
        nodes.math("N_prog", "N_prog"),
        nodes.Text("\u2060），再乘以 "),
        nodes.math("r", "r"),
        nodes.Text(" 即可"),
    ]
    assert kinsoku.keep_together(para) == 1
    assert [type(n).__name__ for n in para.children] == ["Text", "inline", "Text", "math", "Text"]
    span = para[1]
    assert span["classes"] == ["ib-nowrap"]
    assert span.astext() == "（N_prog），"
    assert para.astext() == "块（N_prog），再乘以 r 即可"
    assert "\u2060" not in para.astext()


@pytest.mark.parametrize("text", ["，然后", ", then", ")."])
def test_closing_punctuation_is_split_off_for_the_formula(text):
    head, rest = _kinsoku().split_head(text)
    assert head and head + rest == text
