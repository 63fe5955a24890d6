"""Every reader: the site's accessibility fixes, kept apart from the rest of the site.

* A template override of ``sections/header.html`` (in ``docs/_templates``) empties the
  theme's top bar, whose hidden duplicate ☰ swallowed the drawer's click handlers; see the
  template for why.
* ``_static/a11y.js`` names the controls the themes leave nameless or name in English (the
  sidebar's expand arrows, the drawer toggles), and gives the sidebar's site title a
  landmark; ``_static/a11y.css`` hides the emptied bar and draws one visible focus ring.
* ``_static/scripts/fontawesome.js`` replaces the theme's 1.6 MB icon script: the theme's
  stylesheet already draws the same icons from the icon font.

The words a reader (or a screen reader) gets are below, in the build's language.
"""

from __future__ import annotations

import json
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config

from infrabook.labels import group, language

TEMPLATES = Path(__file__).resolve().parent.parent / "_templates"


def words(lang: str) -> dict[str, str]:
    """The reader-facing words of the accessibility script (``a11y.*`` in
    :mod:`infrabook.labels`), in ``lang``.

    >>> words("zh")["sections"].format(title="5. 运行时")
    '展开或收起“5. 运行时”的小节'
    >>> words("fr")
    Traceback (most recent call last):
    ...
    ValueError: lang='fr': expected one of zh, en
    """
    return group("a11y", lang)


def _add_templates(app: Sphinx, config: Config) -> None:
    # conf.py may name the same folder already; a second entry would be harmless but noisy.
    if not any(Path(app.confdir, p).resolve() == TEMPLATES for p in config.templates_path):
        config.templates_path.append(str(TEMPLATES))


def _add_script(app: Sphinx, config: Config) -> None:
    # At config-inited, after infrabook_i18n has set the edition's language (``-D language``
    # is applied only after every extension's setup has run).
    app.add_js_file(
        "a11y.js",
        defer="defer",
        **{"data-words": json.dumps(words(language()), ensure_ascii=False)},
    )


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _add_templates)
    app.connect("config-inited", _add_script, priority=600)
    app.add_css_file("a11y.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
