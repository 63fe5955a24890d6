"""Site features Sphinx does not give us out of the box.

* Chinese search: Sphinx 9.0's Chinese search language ships the English stemmer but names
  it ``ChineseStemmer`` in ``language_data.js``, which throws in the browser and breaks the
  search page. We register a subclass whose stemmer name matches the code it ships, and
  load a user dictionary so jieba keeps the book's terms (分桶, 图重放, ...) whole.
* Notebook downloads: each executed page is offered as ``.ipynb`` beside its MyST source,
  using the notebooks myst-nb wrote while executing the pages.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.search import languages
from sphinx.search.zh import SearchChinese


class SearchChineseFixed(SearchChinese):
    """Chinese search whose JS stemmer name matches the English stemmer it ships."""

    language_name = "English"


def _executed(app: Sphinx) -> Path:
    return Path(app.outdir).parent / "jupyter_execute"


def _offer_notebook(app: Sphinx, pagename: str, templatename: str, context: dict,
                    doctree: object) -> None:
    if (_executed(app) / f"{pagename}.ipynb").is_file():
        context["ipynb_source"] = f"{pagename}.ipynb"


def _copy_notebooks(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    root = _executed(app)
    for nb in root.rglob("*.ipynb"):
        target = Path(app.outdir) / "_sources" / nb.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(nb, target)


def setup(app: Sphinx) -> dict:
    languages["zh"] = f"{__name__}.SearchChineseFixed"
    # before sphinx-book-theme builds its header buttons (priority 500)
    app.connect("html-page-context", _offer_notebook, priority=400)
    app.connect("build-finished", _copy_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
