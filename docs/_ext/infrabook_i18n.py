"""Two editions from one source: Chinese (the source language) and English (gettext).

The English edition is the same pages built with ``-D language=en``; its prose comes from
``docs/locale/en/LC_MESSAGES/**/*.po``, its code runs again with ``INFRABOOK_LANG=en`` so
that everything the package prints, tabulates or draws is in English. This extension makes
that work with MyST-NB:

* Per-language settings. ``-D language=en`` is applied after conf.py has run, so the
  settings that depend on the language (title, search language, 404 text, prompts, the
  execution cache, the language code executed cells see) are set here, at ``config-inited``.
* Only prose is a message. Cell outputs change on every run (numbers, timings), so nothing
  inside a cell is offered for translation; the English text of an output comes from the
  package's labels instead. (Extraction still executes the pages: a glued figure's caption
  and alt text exist only once its cell has run.) Code that a page shows its reader, a
  fenced block or a cell's source, is prose in this sense: its comments are translated
  with the page.
* Glued values in translated prose. Sphinx parses each translation as a new document,
  which lacks the notebook that myst-nb reads glue data from, so ``{glue:text}`` rendered
  empty. While a page is translated, a glue lookup in such a document falls back to the
  glue data myst-nb saved for the page.
* Numbered headings. A translated "1. Title" would be parsed on its own as a one-item list
  (MyST-Parser #852). A message is never a whole list (each list item is its own message),
  so a leading "N." in a translation is escaped before it is parsed. A translated display
  formula, which Sphinx wraps as a reST literal block, is given back as its text.
* No silent Chinese. In a translated edition every message must have a translation:
  a missing or fuzzy one (fuzzy entries are left out of the compiled catalogue) is a
  warning, and the docs build runs with ``-W``.
* ``{zh}`原文``: Chinese kept in the English edition on purpose (the article's terms and
  words), marked ``lang="zh-CN"`` so fonts, screen readers and the CJK check know it.
* The language switcher: ``infrabook_other_edition`` in every page's context is the same
  page in the other edition (``_templates/lang-switch.html``).
"""

from __future__ import annotations

import os
import re
import textwrap
from pathlib import Path
from typing import Any

import sphinx.transforms.i18n as sphinx_i18n
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.nodes import extract_messages

from infrabook.catalogue import compiled
from infrabook.labels import group

logger = logging.getLogger(__name__)

# The folder, under the Chinese site's root, that holds the English edition.
EDITION_DIR = {"zh": "", "en": "en/"}


def edition(language: str | None) -> str:
    """The edition a Sphinx ``language`` builds: ``zh`` or ``en``.

    >>> edition("zh_CN"), edition("en"), edition(None)
    ('zh', 'en', 'zh')
    >>> edition("fr")
    Traceback (most recent call last):
    ...
    ValueError: language='fr': expected zh_CN or en
    """
    if language in (None, "", "zh", "zh_CN"):
        return "zh"
    if language == "en":
        return "en"
    raise ValueError(f"language={language!r}: expected zh_CN or en")


def _configure(app: Sphinx, config: Config) -> None:
    lang = edition(config.language)
    # Executed cells and the package (labels, plots, live calculators) read the language
    # from the environment; kernels started by myst-nb inherit it.
    os.environ["INFRABOOK_LANG"] = lang
    # the words of the settings that differ per edition are the package's labels (site.*)
    s = group("site", lang)
    config.html_title = s["title"]
    config.author = s["author"]
    config.copyright = s["copyright"].format(author=s["author"])
    config.html_search_language = lang  # the editions' codes are Sphinx's search languages
    if lang != "zh":
        # the jieba dictionary is for Chinese word splitting only
        config.html_search_options = {}
    config.nb_code_prompt_show = s["code_show"]
    config.nb_code_prompt_hide = s["code_hide"]
    config.html_theme_options = {
        **config.html_theme_options,
        "search_bar_text": s["search"],
    }
    # Outputs differ per language, so each edition keeps its own execution cache.
    config.nb_execution_cache_path = str(Path(config.nb_execution_cache_path) / lang)
    prefix = os.environ.get("INFRABOOK_URL_PREFIX", "/") + EDITION_DIR[lang]
    config.notfound_urls_prefix = prefix
    config.notfound_context = {
        "title": s["notfound_title"],
        "body": s["notfound_body"].format(prefix=prefix),
    }
    if lang != "zh":
        for folder in config.locale_dirs:
            for catalogue in (Path(app.confdir) / folder / lang).rglob("*.po"):
                _compile(catalogue)
    config.html_context = {
        **config.html_context,
        "infrabook_lang": lang,
        "ui": group("ui", lang),  # the templates' words
    }


def _compile(catalogue: Path) -> None:
    """Brings ``catalogue``'s .mo up to date by content, not by date.

    Sphinx recompiles a .mo only when its .po is newer, so a checkout or a merge can leave
    an older .po beside a newer, stale .mo. Rewriting every .mo instead would make every
    page of the edition be read again on every build (a page depends on its .mo's date).
    So a .mo is rewritten only when its bytes would change; an unchanged one only gets
    the .po's date, so that Sphinx neither recompiles it nor re-reads its page.
    """
    mo = compiled(catalogue)
    target = catalogue.with_suffix(".mo")
    if not target.exists() or target.read_bytes() != mo:
        target.write_bytes(mo)
    elif target.stat().st_mtime < catalogue.stat().st_mtime:
        stamp = catalogue.stat().st_mtime
        os.utime(target, (stamp, stamp))


def _notebooks_beside_doctrees(app: Sphinx) -> None:
    # myst-nb writes executed notebooks and glue data next to the HTML folder, which for the
    # English edition (html/en) is inside the published Chinese site. Each edition keeps
    # them beside its own doctrees instead (docs/_build and docs/_build/en).
    folder = Path(app.doctreedir).parent / "jupyter_execute"
    app.env.mystnb_config = app.env.mystnb_config.copy(output_folder=str(folder.resolve()))


class ProseOnly(SphinxTransform):
    """Takes what cells print or display out of the messages (before Sphinx translates or
    extracts them): outputs are computed, in the edition's own language."""

    default_priority = 15

    def apply(self, **kwargs: Any) -> None:
        for container in self.document.findall(nodes.container):
            if container.get("nb_element") not in ("cell_code", "cell_code_output"):
                continue
            for node in container.findall(nodes.TextElement):
                if _cell_part(node) == "cell_code_source":
                    continue  # the code a cell shows: PageCode decides
                # An inline node is never a message unless marked, and Sphinx unwraps every
                # inline that carries the mark (RemoveTranslatableInline), which would strip
                # an output's badges (sphinx-design's bdg-* roles) down to their text.
                if not isinstance(node, nodes.Inline):
                    node["translatable"] = False


_CJK = re.compile(r"[\u3400-\u9fff]")


class PageCode(SphinxTransform):
    """Code that a page shows for its reader (a fenced block, or a cell's source; not a file
    included from the package, not what a cell printed) has its comments in the page's
    language. Such a block carries the class ``page-code``, so that the editions check can
    find its comments, and it is a message (which Sphinx leaves out by default: a literal
    block is translated only when marked) when it holds Chinese; a cell's source only when
    a comment does, since its strings are what the code prints and the page translates that
    output elsewhere. Translating a cell's source changes what is shown, not what runs: both
    editions execute the page as written."""

    default_priority = 15

    def apply(self, **kwargs: Any) -> None:
        for block in self.document.findall(nodes.literal_block):
            part = _cell_part(block)
            # literalinclude names the file it shows in the block's "source" attribute
            if block.get("source") or part not in (None, "cell_code_source"):
                continue
            block["classes"].append("page-code")
            chinese = _CJK_COMMENT if part else _CJK
            if chinese.search(block.rawsource):
                block["translatable"] = True


_CJK_COMMENT = re.compile(r"#[^\n]*[\u3400-\u9fff]")


def _cell_part(node: nodes.Node) -> str | None:
    """Which part of a notebook cell ``node`` is in (its source, what it printed), if any."""
    parent = node.parent
    while parent is not None:
        if isinstance(parent, nodes.container) and parent.get("nb_element"):
            return str(parent["nb_element"])
        parent = parent.parent
    return None


def _mark_chinese_terms(app: Sphinx, doctree: nodes.document) -> None:
    """In a translated edition the glossary keeps its Chinese term lines (the terms the
    Chinese edition uses); they are marked ``lang="zh-CN"`` like every other quotation."""
    if edition(app.config.language) == "zh":
        return
    for term in doctree.findall(nodes.term):
        if _CJK.search(term.astext()):
            children = list(term.children)
            for child in children:
                term.remove(child)
            term += zh_quote("", "", *children)


def _check_translated(app: Sphinx, doctree: nodes.document) -> None:
    """Warns about every message of a translated edition that has no translation (run on
    the finished doctree, the one the gettext builder extracts from)."""
    if edition(app.config.language) == "zh":
        return
    for node, msg in extract_messages(doctree):
        # Sphinx marks paragraphs and titles. A toctree's caption it translates later, when
        # the sidebar is drawn (docs/checks/editions.py finds Chinese left there); an image's alt
        # text it marks untranslated even when it translated it, so there a message still
        # in Chinese is the sign.
        if isinstance(node, addnodes.toctree):
            continue
        marked = node.get("translated")
        if isinstance(node, nodes.image) or marked is None:
            untranslated = bool(_CJK.search(msg))
        else:
            untranslated = marked is False
        if untranslated:
            logger.warning(
                "untranslated or fuzzy message: %r",
                msg[:80],
                location=node,
                type="infrabook",
                subtype="i18n",
            )


# The page being translated, while Sphinx's Locale transform runs on it.
_translating: list[nodes.document] = []

_LEADING_NUMBER = re.compile(r"^(\s*\d+)\.(\s)")


def _patch_sphinx_i18n() -> None:
    """Installs the two repairs described in the module docstring."""
    try:
        locale_apply = sphinx_i18n.Locale.apply
        publish = sphinx_i18n._publish_msgstr
        import myst_nb.ext.glue.directives as glue_directives
        import myst_nb.ext.glue.roles as glue_roles
        from myst_nb.core.variables import VariableOutput
        from myst_nb.ext.glue.crossref import read_glue_cache
        from myst_nb.ext.glue.utils import RetrievalError

        retrieve = glue_roles.retrieve_glue_data
    except (AttributeError, ImportError) as err:
        raise ExtensionError(
            f"infrabook_i18n: Sphinx or myst-nb changed ({err}); the glue and numbered-heading "
            "repairs for translated pages need updating"
        ) from err
    if getattr(locale_apply, "_infrabook", False):
        return

    def apply(self: sphinx_i18n.Locale, **kwargs: Any) -> None:
        _translating.append(self.document)
        try:
            locale_apply(self, **kwargs)
        finally:
            _translating.pop()

    def publish_msgstr(source: str, *args: Any, **kwargs: Any) -> nodes.Element:
        if source.startswith("::\n\n"):
            # Sphinx hands a literal or math block over as a reST literal block ("::"),
            # which MyST would read as a paragraph saying "::": give back the text itself.
            text = textwrap.dedent(source.removeprefix("::\n\n"))
            return nodes.literal_block(text, text)
        return publish(_LEADING_NUMBER.sub(r"\1\\.\2", source, count=1), *args, **kwargs)

    def retrieve_glue_data(document: nodes.document, key: str) -> Any:
        # A translated message is parsed as a notebook of its own, without the page's glue
        # data; myst-nb has by then written the page's glue data to its output folder.
        try:
            return retrieve(document, key)
        except RetrievalError:
            if not _translating:
                raise
            env = document.settings.env
            data = read_glue_cache(env.mystnb_config.output_folder, env.docname)
            if key not in data:
                raise
            return VariableOutput(
                data=data[key]["data"],
                metadata=data[key].get("metadata", {}),
                # only {glue:text} appears in prose, and it reads the data alone
                nb_renderer=document.get("nb_renderer"),
                vtype="glue",
            )

    apply._infrabook = True  # type: ignore[attr-defined]
    sphinx_i18n.Locale.apply = apply  # type: ignore[method-assign]
    sphinx_i18n._publish_msgstr = publish_msgstr
    glue_roles.retrieve_glue_data = retrieve_glue_data
    glue_directives.retrieve_glue_data = retrieve_glue_data


class zh_quote(nodes.inline):
    """Chinese quoted in the English edition (a term of the article, its original words)."""


def _zh_role(
    name: str,
    rawtext: str,
    text: str,
    lineno: int,
    inliner: Any,
    options: Any = None,
    content: Any = None,
) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    return [zh_quote(rawtext, text)], []


def _visit_zh(self: Any, node: zh_quote) -> None:
    self.body.append('<span class="zh-quote" lang="zh-CN">')


def _depart_zh(self: Any, node: zh_quote) -> None:
    self.body.append("</span>")


def _visit_zh_text(self: Any, node: zh_quote) -> None:
    pass


def _other_edition(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: nodes.document | None
) -> None:
    lang = edition(app.config.language)
    if "notfound.extension" in app.extensions and pagename == app.config.notfound_pagename:
        # served at any address: an absolute link to the other edition's front page
        prefix = app.config.notfound_urls_prefix
        root = prefix.removesuffix(EDITION_DIR[lang])
        other = root + ("en/" if lang == "zh" else "")
        context["infrabook_other_edition"] = f"{other}index.html"
    else:
        up = "../" * pagename.count("/")
        # From a Chinese page, down into en/; from an English page, up out of it.
        target = "en/" if lang == "zh" else "../"
        context["infrabook_other_edition"] = f"{up}{target}{pagename}.html"
    context["infrabook_other_lang"] = "en" if lang == "zh" else "zh-CN"


def setup(app: Sphinx) -> dict:
    _patch_sphinx_i18n()
    app.connect("config-inited", _configure, priority=400)
    app.connect("builder-inited", _notebooks_beside_doctrees, priority=600)
    app.add_transform(ProseOnly)
    app.add_transform(PageCode)
    app.connect("doctree-read", _check_translated)
    app.connect("doctree-read", _mark_chinese_terms)
    app.connect("html-page-context", _other_edition)
    app.add_node(
        zh_quote,
        html=(_visit_zh, _depart_zh),
        latex=(_visit_zh_text, _visit_zh_text),
        text=(_visit_zh_text, _visit_zh_text),
    )
    app.add_role("zh", _zh_role)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
