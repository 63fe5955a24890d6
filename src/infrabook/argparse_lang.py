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
from infrabook.quoting import line
from infrabook.tables import display_width

#: Punctuation that closes a phrase (a line never starts with it) and that opens one (a line
#: never ends with it).
_CLOSING = frozenset("，。、：；！？）」』”’》〉】…)")
_OPENING = frozenset("（「『“‘《〈【")
#: A colour code that Python 3.14's argparse may put before a heading.
_COLOUR = r"(?:\x1b\[[0-9;]*m)?"


def _words(text: str) -> list[str]:
    """``text`` as what a line may break between: spaces, a run of characters one column
    wide each (an English word, ``n·T_run``), and each two-column (Chinese) character alone.

    >>> _words("每块 n·T_run（ms）")
    ['每', '块', ' ', 'n·T_run', '（', 'ms', '）']
    """
    out: list[str] = []
    for char in " ".join(text.split()):
        narrow = char != " " and display_width(char) == 1
        if narrow and out and out[-1] != " " and display_width(out[-1][-1]) == 1:
            out[-1] += char
        else:
            out.append(char)
    return out


def wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` columns on screen (one longer word stays whole),
    breaking at spaces and between Chinese characters, never before closing punctuation or
    after opening punctuation: argparse's own wrapping counts characters and breaks only at
    spaces, so Chinese help ran on unbroken.

    >>> wrap("每种策略假设的执行利用率（含补齐行），默认为原文的", 26)
    ['每种策略假设的执行利用率', '（含补齐行），默认为原文的']
    >>> wrap("执行利用率，默认", 10)
    ['执行利用', '率，默认']
    >>> wrap("where the T_prep + n·T_run lines cross", 20)
    ['where the T_prep +', 'n·T_run lines cross']
    """
    lines: list[str] = []
    line: list[str] = []
    for word in _words(text):
        if word == " ":
            line += [word] if line else []
            continue
        if line and display_width("".join(line) + word) > width:
            moved: list[str] = []
            if word in _CLOSING:  # the closing mark goes down with the character before it
                while len(line) > 1 and line[-1] in _CLOSING:
                    moved.insert(0, line.pop())
                if len(line) > 1 and line[-1] != " ":
                    moved.insert(0, line.pop())
            while len(line) > 1 and line[-1] in _OPENING:
                moved.insert(0, line.pop())
            lines.append("".join(line).rstrip())
            line = moved
        line.append(word)
    return [*lines, "".join(line).rstrip()] if line else lines


class Formatter(argparse.HelpFormatter):
    """argparse's help laid out by display width (:func:`wrap`): a section heading ends in
    the language's colon (argparse appends an ASCII one), and the usage's continued lines
    line up under its first option even when ``usage:`` is wider on screen than its
    character count."""

    def __init__(self, prog: str, **kwargs: Any) -> None:
        super().__init__(prog, **kwargs)
        self._headings: list[str] = []

    def start_section(self, heading: str | None) -> None:
        if heading:
            self._headings.append(heading)
        super().start_section(heading)

    def _split_lines(self, text: str, width: int) -> list[str]:
        return wrap(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in wrap(text, width - len(indent)))

    def _format_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None) -> str:
        shown = argparse._("usage: ") if prefix is None else prefix  # type: ignore[attr-defined]
        extra = display_width(shown) - len(shown)
        self._width -= extra
        try:
            text = super()._format_usage(usage, actions, groups, prefix)
        finally:
            self._width += extra
        return text.replace("\n ", "\n" + " " * extra + " ")

    def format_help(self) -> str:
        help_ = super().format_help()

        def ended(found: re.Match[str]) -> str:
            return found.group(1) + labels.text("cli.section", heading=found.group(2))

        for heading in self._headings:
            help_ = re.sub(rf"(?m)^({_COLOUR})({re.escape(heading)}):", ended, help_)
        return help_


class Parser(argparse.ArgumentParser):
    """An argument parser whose help is laid out by :class:`Formatter` and whose error is one
    line in the build's language, ending the program with status 2."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(formatter_class=Formatter, **kwargs)

    def error(self, message: str) -> NoReturn:
        # argparse quotes what it was given (unrecognized arguments) raw and whole
        self.exit(2, labels.text("cli.error", prog=self.prog, message=line(message)) + "\n")


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
