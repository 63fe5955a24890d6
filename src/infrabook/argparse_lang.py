"""argparse in the build's language, for the ``infrabook`` command and the benchmark suite's.

argparse's own words (``usage:``, ``options``, its errors) come from the Chinese catalogue of
its messages (:func:`infrabook.i18n.argparse_catalogue`) while :func:`argparse_words` is
active; :class:`Parser` prints an error as the language writes it and lays the help out by
display width, where one Chinese character takes two columns.
"""

from __future__ import annotations

import argparse
import contextlib
import re
from collections.abc import Iterator
from typing import Any, NoReturn

from infrabook import i18n, labels
from infrabook.tables import display_width

#: Punctuation that ends a Chinese phrase: a line never starts with it.
_NO_BREAK_BEFORE = frozenset("，。、：；！？）」』")


class Formatter(argparse.HelpFormatter):
    """argparse's help laid out by display width: a section heading ends in the language's
    colon (argparse appends an ASCII one), and the usage's continued lines line up under
    its first option even when ``usage:`` is wider on screen than its character count."""

    def __init__(self, prog: str, **kwargs: Any) -> None:
        super().__init__(prog, **kwargs)
        self._headings: list[str] = []

    def start_section(self, heading: str | None) -> None:
        if heading:
            self._headings.append(heading)
        super().start_section(heading)

    def _split_lines(self, text: str, width: int) -> list[str]:
        # argparse wraps at spaces, and Chinese writes none: break between any two characters
        # of it too (never before its closing punctuation), measuring width on screen
        lines, line = [], ""
        for token in re.findall(r"[!-~]+|\s+|.", " ".join(text.split())):
            full = display_width(line + token.rstrip()) > width
            if full and line.strip() and token not in _NO_BREAK_BEFORE:
                lines.append(line.rstrip())
                line = token.lstrip()
            else:
                line += token
        return [*lines, line.rstrip()] if line.strip() else lines

    def _format_usage(self, *args: Any) -> str:
        prefix = argparse._("usage: ")  # type: ignore[attr-defined]
        extra = display_width(prefix) - len(prefix)
        self._width -= extra
        try:
            usage = super()._format_usage(*args)
        finally:
            self._width += extra
        return usage.replace("\n ", "\n" + " " * extra + " ")

    def format_help(self) -> str:
        help_ = super().format_help()
        for heading in self._headings:
            ended = labels.text("cli.section", heading=heading)
            help_ = help_.replace(f"\n{heading}:\n", f"\n{ended}\n")
        return help_


class Parser(argparse.ArgumentParser):
    """An argument parser whose help is laid out by :class:`Formatter` and whose error is one
    line in the build's language, ending the program with status 2."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(formatter_class=Formatter, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, labels.text("cli.error", prog=self.prog, message=message) + "\n")


@contextlib.contextmanager
def argparse_words() -> Iterator[None]:
    """argparse's own words (``usage:``, its errors) in the build's language for the block.
    argparse translates them with the gettext functions it imported, which follow the
    process's locale rather than ``INFRABOOK_LANG``, so they are swapped for the ones of
    :func:`infrabook.i18n.argparse_catalogue` and put back after."""
    catalogue = i18n.argparse_catalogue(i18n.language())
    saved = argparse._, argparse.ngettext  # type: ignore[attr-defined]
    argparse._, argparse.ngettext = catalogue.gettext, catalogue.ngettext  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved  # type: ignore[attr-defined]
