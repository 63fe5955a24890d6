"""The package's words in the reader's language, through the standard library's gettext.

Chinese is the source language: a message's id is its Chinese words, and the English comes
from the package's catalogue, ``locale/en/LC_MESSAGES/infrabook.po`` beside this module,
compiled to the ``.mo`` that gettext reads (committed beside it; ``nox -s catalogues``
updates both, see :mod:`infrabook.catalogue`). Only the standard library is imported here,
so the live calculators (Pyodide) translate as the CLI does, without Babel.

>>> translate("一致", lang="zh"), translate("一致", lang="en")
('一致', 'matches')
>>> translate("读", context="cli.col.reads", lang="en")
'Reads'
"""

from __future__ import annotations

import gettext
import os
from functools import cache
from pathlib import Path

#: The editions: the source language first.
LANGUAGES = ("zh", "en")
DOMAIN = "infrabook"
LOCALE_DIR = Path(__file__).parent / "locale"


def language() -> str:
    """The build's language: ``INFRABOOK_LANG`` (``zh`` or ``en``), Chinese when unset.

    >>> language() in LANGUAGES
    True
    """
    lang = os.environ.get("INFRABOOK_LANG", "zh") or "zh"
    if lang not in LANGUAGES:
        raise ValueError(f"INFRABOOK_LANG={lang!r}: expected one of {', '.join(LANGUAGES)}")
    return lang


def _compiled(lang: str, domain: str) -> gettext.GNUTranslations:
    # the file itself, not gettext.translation(): its search by locale imports the locale
    # module, which the live calculators' first answer would wait for
    with (LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.mo").open("rb") as mo:
        return gettext.GNUTranslations(mo)


@cache
def _catalogue(lang: str) -> gettext.NullTranslations:
    if lang == LANGUAGES[0]:
        # the source language: every message is its own translation
        return gettext.NullTranslations()
    return _compiled(lang, DOMAIN)


@cache
def argparse_catalogue(lang: str) -> gettext.NullTranslations:
    """argparse's own words (``usage:``, its errors) in ``lang``: English is argparse's; the
    Chinese is ``locale/zh/LC_MESSAGES/argparse.mo`` (see :mod:`infrabook.catalogue`).

    >>> argparse_catalogue("zh").gettext("usage: "), argparse_catalogue("en").gettext("usage: ")
    ('用法：', 'usage: ')
    """
    return gettext.NullTranslations() if lang == "en" else _compiled(lang, "argparse")


def translate(message: str, *, context: str | None = None, lang: str | None = None) -> str:
    """``message`` (Chinese, the source) in ``lang`` (the build's language by default);
    ``context`` is the message's msgctxt, for Chinese words that need different English in
    different places. A message the catalogue lacks comes back as it is (gettext's rule);
    the catalogue check and the tests make sure none is missing.

    >>> translate("", lang="en")
    ''
    >>> translate("一致", lang="fr")
    Traceback (most recent call last):
    ...
    ValueError: lang='fr': expected one of zh, en
    """
    lang = lang or language()
    if lang not in LANGUAGES:
        raise ValueError(f"lang={lang!r}: expected one of {', '.join(LANGUAGES)}")
    if not message:
        # gettext("") is the catalogue's header, not an empty word
        return message
    catalogue = _catalogue(lang)
    if context is None:
        return catalogue.gettext(message)
    return catalogue.pgettext(context, message)
