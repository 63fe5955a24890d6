"""The post-build checks of the site: they must catch what they exist to catch."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docs.checks import executed, links

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_link_check_finds_missing_files_and_anchors(tmp_path):
    (tmp_path / "a.html").write_text(
        '<h1 id="top">A</h1><a href="b.html#here">ok</a><a href="b.html#gone">x</a>'
        '<a href="c.html">x</a><img src="img.png"><a href="https://example.org/">ext</a>'
        '<a href="#top">self</a>',
        encoding="utf-8",
    )
    (tmp_path / "b.html").write_text('<p id="here">B</p>', encoding="utf-8")
    broken, external = links.check(tmp_path)
    assert sorted(broken) == [
        "a.html: b.html#gone (no such anchor)",
        "a.html: c.html (no such file)",
        "a.html: img.png (no such file)",
    ]
    assert external == {"https://example.org/"}


def test_link_check_of_one_edition_leaves_the_other_unbuilt_edition_alone(tmp_path):
    """A one-edition build (nox -s docs -- zh) writes no en/: the Chinese pages' links into it
    are not followed, but a broken link inside the edition still is; and the other way round."""
    (tmp_path / "index.html").write_text(
        '<a href="en/index.html">English</a><a href="gone.html">x</a>', encoding="utf-8"
    )
    assert links.check(tmp_path)[0] == [
        "index.html: en/index.html (no such file)",
        "index.html: gone.html (no such file)",
    ]
    assert links.check(tmp_path, edition="zh")[0] == ["index.html: gone.html (no such file)"]
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "index.html").write_text(
        '<a href="../index.html">中文</a><a href="../only-zh.html">zh</a><a href="x.html">x</a>',
        encoding="utf-8",
    )
    assert links.check(tmp_path, edition="en")[0] == ["en/index.html: x.html (no such file)"]
    with pytest.raises(ValueError, match="edition 'fr' unknown: expected one of zh, en"):
        links.check(tmp_path, edition="fr")


def _notebook(cells):
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_execution_check_flags_unrun_cells_and_errors(tmp_path):
    docs, build = tmp_path / "docs", tmp_path / "build"
    (docs).mkdir()
    (build / "jupyter_execute").mkdir(parents=True)
    for name in ("ok", "unrun", "failed", "missing"):
        (docs / f"{name}.md").write_text("```{code-cell} ipython3\n1\n```\n", encoding="utf-8")
    cell = {"cell_type": "code", "source": "1", "metadata": {}}
    notebooks = {
        "ok": [
            cell | {"execution_count": 1, "outputs": []},
            {"cell_type": "code", "source": "  ", "execution_count": None, "outputs": []},
        ],
        "unrun": [cell | {"execution_count": None, "outputs": []}],
        "failed": [
            cell
            | {"execution_count": 1, "outputs": [{"output_type": "error", "ename": "ValueError"}]}
        ],
    }
    for name, cells in notebooks.items():
        (build / "jupyter_execute" / f"{name}.ipynb").write_text(
            json.dumps(_notebook(cells)), encoding="utf-8"
        )
    found = executed.problems(docs, build)
    assert len(found) == 3
    assert any("unrun.md: code cell 0 was not executed" in p for p in found)
    assert any("failed.md: code cell 0 raised ValueError" in p for p in found)
    assert any("missing.md: no executed notebook" in p for p in found)


CACHED_SITE_CONF = """\
import sys
sys.path.insert(0, {ext!r})
extensions = ["myst_nb", "infrabook_site"]
nb_execution_mode = "cache"
nb_execution_cache_path = {cache!r}
html_theme = "basic"
"""

CACHED_SITE_PAGE = """\
# Page

```{code-cell} ipython3
print(6 * 7)
```
"""


@pytest.mark.timeout(300)
def test_a_page_served_from_the_execution_cache_is_written_as_executed(mystnb_page, tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    conf = CACHED_SITE_CONF.format(ext=str(DOCS / "_ext"), cache=str(tmp_path / "cache"))
    (src / "conf.py").write_text(conf, encoding="utf-8")
    (src / "index.md").write_text(mystnb_page(CACHED_SITE_PAGE), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for _ in range(2):  # executed, then (doctrees gone, cache kept) served from the cache
        shutil.rmtree(out / "doctrees", ignore_errors=True)
        cmd = [sys.executable, "-m", "sphinx", "-q", "-b", "html", "-d", str(out / "doctrees")]
        got = subprocess.run(
            [*cmd, str(src), str(out / "html")],
            capture_output=True,
            text=True,
            env=env,
            timeout=240,
        )
        assert got.returncode == 0, got.stderr
        nb = json.loads((out / "jupyter_execute" / "index.ipynb").read_text())
        (cell,) = [c for c in nb["cells"] if c["cell_type"] == "code"]
        assert cell["execution_count"] == 1 and "".join(cell["outputs"][0]["text"]) == "42\n"
    assert executed.problems(src, out) == []
