"""How a message quotes what it was given: a file name, a key, a reader's value.

Input reaches terminals and pages through error messages, so a message never carries a
character that is not printable (an escape sequence can retitle or clear a terminal, U+202E
reverses the rest of the line) nor a whole 100 KB value. :func:`printable` escapes such
characters in a text that is otherwise shown as it is (a path, a message); :func:`quoted`
shows a value, whole when it is short and printable.
"""

from __future__ import annotations

__all__ = ["LIMIT", "LINE_LIMIT", "line", "printable", "quoted"]

#: How many characters of a value a message shows at most (a long file name or a tag soup
#: stays readable; a pasted 100 KB value does not come back).
LIMIT = 80
#: How many characters a whole message line shows at most (a value quoted by a library, such
#: as argparse's "unrecognized arguments", is not cut by :func:`quoted`).
LINE_LIMIT = 1000


def printable(text: str) -> str:
    """``text`` with each character that is not printable written as ``repr`` writes it.

    >>> printable("a\\x1b]0;t\\x07b \\u202eok 中文")
    'a\\\\x1b]0;t\\\\x07b \\\\u202eok 中文'
    """
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def quoted(raw: str, limit: int = LIMIT) -> str:
    """``raw`` as a message shows it: as it is when printable, else its ``repr``; cut to
    ``limit`` characters, the last being "…".

    >>> quoted("4096"), quoted("5\\x00")
    ('4096', "'5\\\\x00'")
    >>> quoted("a" * 100, limit=10)
    'aaaaaaaaa…'
    """
    shown = raw if raw.isprintable() else repr(raw)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def line(message: object, limit: int = LINE_LIMIT) -> str:
    """An error message as a program prints it: :func:`printable`, cut to ``limit``.

    >>> line("bad: " + "x" * 20, limit=10)
    'bad: xxxx…'
    """
    text = printable(str(message))
    return text if len(text) <= limit else text[: limit - 1] + "…"
