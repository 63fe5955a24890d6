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
