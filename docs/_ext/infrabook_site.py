"""Site features Sphinx does not give us out of the box.

* Chinese search: Sphinx 9.0's Chinese search language ships the English stemmer but names
  it ``ChineseStemmer`` in ``language_data.js``, which throws in the browser and breaks the
  search page. We register a subclass whose stemmer name matches the code it ships, and
  load a user dictionary so jieba keeps the book's terms (分桶, 图重放, ...) whole. The
  query is cut the way the index was: Sphinx's query splitter keeps 屋顶线 or 在线softmax as
  one word, which no index entry equals; a word the index knows that is also known words end
  to end (显存峰值) is searched as those words, which find it and its paraphrases.
* Downloads: only the page's MyST source (``.md``), as the theme offers it. The executed
  ``.ipynb`` would show ``{glue:text}`` placeholders where the values belong and carry none
  of the glued figures, so it is not offered.
* One viewport tag per page (Sphinx's layout, docutils and the theme each write one).
* Published output: source maps of the themes' bundles (several MB, never fetched by a
  reader's browser) are removed from the HTML output once the build has finished.
* Executed notebooks: when a page's outputs come from the execution cache, myst-nb merges
  them into a copy of the notebook and then writes the original, unexecuted one to
  ``jupyter_execute``, so ``docs/checks/executed.py`` would see a page that never ran. The cached
  cells are put into the notebook myst-nb writes.
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.search import languages
from sphinx.search.zh import SearchChinese

# The index holds jieba's words (with the book's terms, from jieba_dict.txt, kept whole);
# a query must be cut into the same words, or 屋顶线 and 在线softmax match nothing. Each run
# of Han characters is cut by longest match against the index's own words (one character
# alone is never indexed: Sphinx's Chinese word filter drops it); Latin runs stay whole.
SPLIT_QUERY_JS = r"""
var cover = (run, known) => {
  // the run as two or more known words of two characters or more, longest first; else null
  const from = (i) => {
    if (i === run.length) return [];
    for (let j = run.length; j >= i + 2; j -= 1) {
      if (i === 0 && j === run.length) continue;
      if (!known(run.slice(i, j))) continue;
      const rest = from(j);
      if (rest) return [run.slice(i, j), ...rest];
    }
    return null;
  };
  return from(0);
};
var splitQuery = (query) => {
  const index = typeof Search !== "undefined" ? Search._index : null;
  const known = (word) =>
    index !== null &&
    (Object.hasOwn(index.terms, word) || Object.hasOwn(index.titleterms, word));
  const out = [];
  for (const token of query.split(/[^\p{Letter}\p{Number}_\p{Emoji_Presentation}]+/gu)) {
    for (const run of token.match(/\p{Script=Han}+|[^\p{Script=Han}]+/gu) || []) {
      if (!/\p{Script=Han}/u.test(run) || index === null) {
        out.push(run);
        continue;
      }
      // A known word that is also known words end to end (显存峰值: 显存 + 峰值) is searched
      // as those words: the index holds them wherever the whole word is, and also where the
      // text says it otherwise (显存的峰值, 峰值与显存), which the whole word would miss.
      const parts = cover(run, known);
      if (parts) {
        out.push(...parts);
        continue;
      }
      if (known(run)) {
        out.push(run);
        continue;
      }
      const words = [];
      for (let i = 0; i < run.length; ) {
        let j = run.length;
        while (j > i + 1 && !known(run.slice(i, j))) j -= 1;
        if (j > i + 1) words.push(run.slice(i, j));
        i = j;
      }
      // nothing of it is indexed: kept whole, so the search says so instead of ignoring it
      out.push(...(words.length ? words : [run]));
    }
  }
  return out;
};
"""


class SearchChineseFixed(SearchChinese):
    """Chinese search whose JS stemmer name matches the English stemmer it ships, and whose
    query is cut into the index's words (:data:`SPLIT_QUERY_JS`)."""

    language_name = "English"
    js_splitter_code = SPLIT_QUERY_JS


_VIEWPORT = re.compile(r'<meta name="viewport"[^>]*>\s*')


def _one_viewport(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object
) -> None:
    """docutils writes a viewport tag into ``metatags``; the layout already has one."""
    if "metatags" in context:
        context["metatags"] = _VIEWPORT.sub("", context["metatags"])


def _drop_source_maps(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    for path in Path(app.outdir).rglob("*.map"):
        path.unlink()


def _write_cached_outputs() -> None:
    from myst_nb.core.execute.cache import NotebookClientCache

    start = NotebookClientCache.start_client

    def start_client(self: NotebookClientCache) -> None:
        written = self.notebook  # the object myst-nb writes to jupyter_execute afterwards
        start(self)
        if self.notebook is not written:  # served from the cache: merged into a copy
            written.cells, written.metadata = self.notebook.cells, self.notebook.metadata

    NotebookClientCache.start_client = start_client  # type: ignore[method-assign]


def setup(app: Sphinx) -> dict:
    languages["zh"] = f"{__name__}.SearchChineseFixed"
    _write_cached_outputs()
    app.connect("build-finished", _drop_source_maps)
    app.connect("html-page-context", _one_viewport)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
