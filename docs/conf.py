"""Sphinx configuration for the infrabook site.

Every page is a MyST-NB notebook executed at build time. Execution results are cached by
jupyter-cache, which keys only on a page's own cells; so the cache folder is named after a
hash of everything the pages import or read (src/, conf/, the benchmark records). Any
change there starts a fresh cache and, through ``infrabook_source_hash`` below (a config
value that invalidates Sphinx's environment), re-executes every page. With nothing changed,
Sphinx re-reads nothing and the rebuild is quick.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))


def _stop(err: Exception | str) -> None:
    # Sphinx answers any exception raised here with a report that includes a traceback;
    # the message alone says everything, so leave with it and status 2.
    print(f"infrabook: error: {err}", file=sys.stderr, flush=True)
    os._exit(2)


def _check_conf() -> None:
    """Stop the build at startup with the loader's one-line message when a conf/*.toml file
    or a benchmark record is wrong, rather than with a traceback inside whichever page
    reads it first. Records are contributed, so untrusted: one that
    :mod:`infrabook.bench.records.validate` refuses never reaches a page."""
    from infrabook.config import ConfError, check_all

    try:
        check_all()
    except ConfError as err:
        _stop(err)
    # imported once conf/ is known good: the experiments read it when they are imported
    from infrabook.bench.records.report import records
    from infrabook.bench.records.store import RecordError

    try:
        records()
    except RecordError as err:  # one of the book's own records: the reader can mend it
        _stop(f"{err} (rerun `nox -s bench` on that machine, or restore the file with git)")


_check_conf()


def _source_hash() -> str:
    digest = hashlib.sha256()
    # the pages read benchmark records from $INFRABOOK_BENCH_DIR when it is set
    records = (
        [Path(os.environ["INFRABOOK_BENCH_DIR"])] if os.environ.get("INFRABOOK_BENCH_DIR") else []
    )
    for folder in (ROOT / "src", ROOT / "conf", DOCS / "_data", *records):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(folder.parent)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


project = "infrabook"
# The source language. ``-D language=en`` builds the English edition from docs/locale;
# infrabook_i18n sets what differs per edition (title, author, search, 404, prompts, cache).
language = "zh_CN"
locale_dirs = ["locale"]
# One catalogue per page, so a page's translation is reviewed and updated on its own.
gettext_compact = False
gettext_uuid = False
gettext_last_translator = "infrabook"
gettext_language_team = "infrabook"

extensions = [
    "myst_nb",
    "sphinx_design",
    "sphinx_copybutton",
    "sphinxext.opengraph",
    "notfound.extension",
    "infrabook_site",
    "infrabook_i18n",
    # the footer's version, commit, build date and records' dates (after infrabook_i18n)
    "infrabook_build",
    "infrabook_a11y",
    "infrabook_live",
    # inline math kept on one line with its punctuation (after infrabook_i18n's translation)
    "infrabook_kinsoku",
    # glossary anchors named after the English term, not numbered
    "infrabook_glossary",
    "sphinxcontrib.bibtex",
]
exclude_patterns = ["_build", "jupyter_execute", "**.ipynb_checkpoints", "README.md"]

myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath", "deflist", "substitution"]
myst_heading_anchors = 3

# Works cited on the pages ({cite:p}`key`), listed on appendix/references.
bibtex_bibfiles = ["references.bib"]
bibtex_default_style = "plain"
bibtex_reference_style = "author_year"

infrabook_source_hash = _source_hash()
nb_execution_mode = "cache"
nb_execution_cache_path = str(DOCS / "_build" / ".jupyter_cache" / infrabook_source_hash)
# What the pages measure live is measured once per build and shown by both editions
# (infrabook.measured_once); kept beside the execution caches, so it lasts as long as they do.
os.environ["INFRABOOK_MEASURED_DIR"] = str(Path(nb_execution_cache_path) / "measured")
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True
# Tables that cells emit as Markdown are rendered as MyST (pipe tables included).
nb_render_markdown_format = "myst"
# Figures are glued as SVG with real text (infrabook.plots.style); prefer it to PNG.
# The gettext builder has no priorities of its own: without these a glued figure renders as
# nothing there, and its caption and alt text would never reach the catalogues.
nb_mime_priority_overrides = [
    (builder, mime, priority)
    for builder in ("html", "gettext")
    for mime, priority in (("image/svg+xml", 5), ("image/png", 15))
]

# The copy button leaves out shell prompts and copies only the command lines.
copybutton_prompt_text = r"\$ |>>> |\.\.\. "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True

# Math renders offline: MathJax 4 is served from _static (see _static/mathjax/README.txt),
# only the components the book uses, loaded by MathJax's own loader from beside startup.js;
# its font from _static/mathjax/fonts (MathJax would fetch it from a CDN otherwise).
# assistive-mml gives screen readers each formula as MathML. A formula wider than its line
# breaks across lines, inline and display alike, instead of being cut off on a phone.
# (The name is mathjax3_config because myst-parser adds its classes to that one.)
mathjax_path = "mathjax/startup.js"
mathjax3_config = {
    "loader": {
        "load": ["input/tex", "output/chtml", "a11y/assistive-mml"],
        "paths": {"fonts": "[mathjax]/fonts"},
    },
    "output": {"displayOverflow": "linebreak", "linebreaks": {"inline": True}},
}

# Chinese search by words (jieba), with the book's terms kept whole.
html_search_language = "zh"
html_search_options = {"dict": str(DOCS / "_ext" / "jieba_dict.txt")}
# the chapter named for a query ranks before its glossary entry
html_search_scorer = str(DOCS / "_ext" / "search_scorer.js")

# Shared links: a title and a description (the page's first paragraph) on every page.
# Set INFRABOOK_SITE_URL to the published address so og:url is absolute.
ogp_site_url = os.environ.get("INFRABOOK_SITE_URL", "")
ogp_site_name = "infrabook"
ogp_enable_meta_description = True
ogp_social_cards = {"enable": False}  # drawn with a font that has no CJK glyphs

# The 404 page is served at any address, so its links are absolute: the prefix is where the
# site is served from (infrabook_i18n adds en/ for the English edition, and its text).
notfound_urls_prefix = os.environ.get("INFRABOOK_URL_PREFIX", "/")

html_theme = "sphinx_book_theme"
html_static_path = ["_static"]
templates_path = ["_templates"]
html_favicon = "_static/favicon.svg"  # without one, every page's request for /favicon.ico 404s
html_css_files = ["infrabook-site.css"]
html_js_files = [("infrabook-site.js", {"defer": "defer"})]
# Without it the theme starts pages with an empty colour mode and logs a console error.
html_context = {"default_mode": "auto"}
html_theme_options = {
    "use_download_button": True,
    "show_toc_level": 2,
    # the language switcher (中文 ⇄ English) and this edition's PDF before the theme's buttons
    "article_header_end": ["lang-switch.html", "pdf-download.html", "article-header-buttons.html"],
    # a reference's URL is printed whole: the theme would cut a GitHub address down to
    # "owner/repo" and lose the file the reference names
    "shorten_urls": False,
}


def setup(app):
    app.add_config_value("infrabook_source_hash", "", "env")
