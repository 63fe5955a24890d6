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
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent


def _source_hash() -> str:
    digest = hashlib.sha256()
    for folder in (ROOT / "src", ROOT / "conf", DOCS / "_data"):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(ROOT)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


project = "infrabook"
author = "the infrabook authors"
copyright = "2026, the infrabook authors"
language = "zh_CN"

extensions = [
    "myst_nb",
    "sphinx_design",
    "sphinx_copybutton",
]
exclude_patterns = ["_build", "jupyter_execute", "**.ipynb_checkpoints", "README.md"]

myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath", "deflist", "substitution"]
myst_heading_anchors = 3

infrabook_source_hash = _source_hash()
nb_execution_mode = "cache"
nb_execution_cache_path = str(DOCS / "_build" / ".jupyter_cache" / infrabook_source_hash)
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True

html_theme = "sphinx_book_theme"
html_title = "infrabook · 为什么 kernel 会变快"
html_static_path = ["_static"]
html_theme_options = {
    "use_download_button": True,
    "show_toc_level": 2,
}


def setup(app):
    app.add_config_value("infrabook_source_hash", "", "env")
