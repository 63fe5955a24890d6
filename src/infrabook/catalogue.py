"""The package's translation catalogue, kept with Babel (a build-time tool: never imported by
the package at run time, so Pyodide and the CLI never load Babel).

The messages are the package's Chinese words: every label of :mod:`infrabook.labels` (its key
is the message's context where one Chinese wording needs different English in different
places, :data:`infrabook.labels.IN_CONTEXT`) and the reader-facing text of ``conf/`` (the
claims' wording and word units). :func:`update` merges them into
``locale/en/LC_MESSAGES/infrabook.po`` as ``msgmerge`` would (new messages come in empty,
changed ones fuzzy, gone ones dropped) and writes the ``.mo`` beside it; ``nox -s catalogues``
runs it with :func:`convert_labels` first.

The ``.mo`` is committed rather than compiled when the wheel is built: the package then
translates the same way from a source checkout, an editable install, the wheel and the wheel
Pyodide unpacks, with no build hook and no Babel at build time. :func:`problems` (run by
``docs/checks/translations.py`` and the tests) fails when it no longer matches the ``.po``.

One more catalogue goes the other way: argparse's own words (``usage:``, its errors) in
Chinese, ``locale/zh/LC_MESSAGES/argparse.po``, for the ``infrabook`` command and the
benchmark suite's (:mod:`infrabook.argparse_lang`); its message ids are argparse's, and
:func:`argparse_problems` fails when the running Python no longer writes one of them, or the
``.mo`` is stale.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import io
import re
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from infrabook import config, labels
from infrabook.i18n import DOMAIN, LOCALE_DIR
from infrabook.tables import display_width

PO = LOCALE_DIR / "en" / "LC_MESSAGES" / f"{DOMAIN}.po"
ARGPARSE_PO = LOCALE_DIR / "zh" / "LC_MESSAGES" / "argparse.po"
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
_FIELD = re.compile(r"\{[^{}]*\}")
_PERCENT = re.compile(r"%(?:\(\w+\))?[rs]")
LINE_LENGTH = 100  # ruff's, in pyproject.toml; it counts a CJK character as two columns


class Message(NamedTuple):
    """One message: its context (``None`` for most), its Chinese id, and where it is used."""

    context: str | None
    id: str
    where: str


def messages() -> list[Message]:
    """Every message the package shows a reader, in the order the catalogue lists them.

    >>> found = messages()
    >>> Message(None, "一致", "verdict.matches") in found
    True
    >>> Message("cli.col.reads", "读", "cli.col.reads") in found
    True
    """
    found = [
        Message(key if key in labels.IN_CONTEXT else None, zh, key)
        for key, zh in labels.LABELS.items()
    ]
    for claim in config.claims():
        found.append(Message(None, claim.text, f"conf/claims.toml: {claim.id}"))
        if _CJK.search(claim.unit):
            found.append(Message(None, claim.unit, f"conf/claims.toml: {claim.id} (unit)"))
    return found


def template() -> Catalog:
    """The catalogue's template (what a ``.pot`` holds): the messages, untranslated."""
    catalog = Catalog(domain=DOMAIN, project="infrabook", fuzzy=False)
    for message in messages():
        catalog.add(message.id, context=message.context, auto_comments=[message.where])
    return catalog


def read(po: Path = PO) -> Catalog:
    """The catalogue at ``po``, in the language of its ``<lang>/LC_MESSAGES`` folder (English
    elsewhere; an empty one if there is none yet)."""
    lang = po.parts[-3] if po.parent.name == "LC_MESSAGES" else "en"
    domain = po.stem
    if not po.exists():
        return Catalog(locale=lang, domain=domain, project="infrabook", fuzzy=False)
    with po.open("rb") as f:
        return read_po(f, locale=lang, domain=domain)


def write(catalog: Catalog, po: Path = PO) -> None:
    """Writes ``catalog`` to ``po`` and its compiled ``.mo`` beside it."""
    po.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    # no line numbers: a label added above would otherwise touch every entry below it; no
    # obsolete entries: a label that is gone has nothing left to translate
    write_po(buffer, catalog, width=100, include_lineno=False, ignore_obsolete=True)
    po.write_bytes(buffer.getvalue())
    po.with_suffix(".mo").write_bytes(compiled(po))


def compiled(po: Path = PO) -> bytes:
    """The ``.mo`` that ``po`` compiles to (fuzzy entries left out, as gettext expects)."""
    buffer = io.BytesIO()
    write_mo(buffer, read(po), use_fuzzy=False)
    return buffer.getvalue()


def add_translations(entries: Iterable[Message], english: Iterable[str], po: Path = PO) -> int:
    """Puts each message into ``po`` with its English as a finished translation; returns how
    many. The English of a wording that other places use too (other keys, other conf text)
    is not changed: that is refused, with what to do (give the label its key as context,
    :data:`infrabook.labels.IN_CONTEXT`). A wording only this place uses takes the new English.
    """
    catalog = read(po)
    count = 0
    for message, en in zip(entries, english, strict=True):
        known = catalog.get(message.id, message.context)
        users = set(known.auto_comments) if known is not None else set()
        if known is not None and known.string not in ("", en) and users - {message.where}:
            raise ValueError(
                f"{message.where}: {message.id!r} is already translated as {known.string!r} "
                f"(for {', '.join(sorted(users))}), not {en!r}: add {message.where!r} to "
                "IN_CONTEXT in infrabook/labels/__init__.py and run again"
            )
        if known is None:
            known = catalog.add(message.id, context=message.context)
        # set on the entry itself: Catalog.add keeps an existing entry's string and flags
        known.string = en
        known.flags.discard("fuzzy")
        known.auto_comments = sorted(users | {message.where})
        count += 1
    write(catalog, po)
    return count


def convert_labels(source: Path, po: Path = PO) -> list[str]:
    """Converts labels written the old way, ``"key": ("中文", "English")``, in ``source``:
    the English goes into ``po`` (keyed by the Chinese, and by the key where
    ``IN_CONTEXT`` names it), and ``source`` keeps only ``"key": "中文"``. Returns the
    converted keys; a file with none is left untouched, so running it again is harmless.
    """
    text = source.read_text(encoding="utf-8")
    tree = ast.parse(text)
    in_context = set(labels.IN_CONTEXT)
    table: ast.Dict | None = None
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            if "LABELS" in names and isinstance(node.value, ast.Dict):
                table = node.value
            if "IN_CONTEXT" in names and isinstance(node.value, ast.Call):
                in_context |= set(ast.literal_eval(node.value.args[0]))
    if table is None:
        raise ValueError(f"{source}: no LABELS = {{...}} found")
    raw = text.encode("utf-8")
    starts = [0]
    for line in raw.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(line: int, col: int) -> int:
        return starts[line - 1] + col  # ast columns count UTF-8 bytes

    converted: list[str] = []
    found: list[Message] = []
    english: list[str] = []
    edits: list[tuple[int, int, bytes]] = []
    for key_node, value in zip(table.keys, table.values, strict=True):
        if not isinstance(value, ast.Tuple) or key_node is None:
            continue
        key = ast.literal_eval(key_node)
        zh, en = ast.literal_eval(value)
        converted.append(key)
        found.append(Message(key if key in in_context else None, zh, key))
        english.append(en)
        first = value.elts[0]
        start = offset(value.lineno, value.col_offset)
        end = offset(value.end_lineno or value.lineno, value.end_col_offset or 0)
        first_end = offset(first.end_lineno or first.lineno, first.end_col_offset or 0)
        wording = raw[offset(first.lineno, first.col_offset) : first_end]
        line_start = starts[key_node.lineno - 1]
        one_line = raw[line_start:start] + wording + b","
        if first.lineno == first.end_lineno and display_width(one_line.decode()) <= LINE_LENGTH:
            replacement = wording
        else:  # as ruff format writes it: the wording on lines of its own, in parentheses
            indent = b" " * key_node.col_offset
            replacement = b"(\n" + indent + b"    " + wording + b"\n" + indent + b")"
            if first.lineno != first.end_lineno:  # already over several lines: keep them
                replacement = raw[start:first_end] + b"\n" + indent + b")"
        edits.append((start, end, replacement))
    if not converted:
        return []
    add_translations(found, english, po)
    for start, end, replacement in reversed(edits):
        raw = raw[:start] + replacement + raw[end:]
    source.write_bytes(raw)
    return converted


def update(po: Path = PO) -> Catalog:
    """Merges the package's messages into ``po`` (new ones empty, changed ones fuzzy, gone
    ones dropped) and writes it with its ``.mo``; returns the merged catalogue."""
    catalog = read(po)
    catalog.update(template(), update_creation_date=False)
    write(catalog, po)
    return catalog


def problems(po: Path = PO) -> list[str]:
    """What keeps the package's catalogue from being complete and in force: a message of the
    package missing from it, an untranslated, fuzzy or obsolete entry, a translation that
    loses or adds a ``{field}``, or a ``.mo`` that is not the ``.po`` compiled.

    >>> problems()
    []
    """
    if not po.exists():
        return [f"{po}: missing (run nox -s catalogues)"]
    catalog = read(po)
    found = [f"{po.name}: obsolete entry {m!r} (delete its #~ lines)" for m in catalog.obsolete]
    for message in messages():
        entry = catalog.get(message.id, message.context)
        where = f"{po.name}: {message.where}"
        if entry is None:
            found.append(f"{where}: {message.id[:60]!r} missing (run nox -s catalogues)")
        elif not entry.string:
            found.append(f"{where}: untranslated {message.id[:60]!r}")
        elif entry.fuzzy:
            found.append(f"{where}: fuzzy {message.id[:60]!r}")
        elif sorted(_FIELD.findall(message.id)) != sorted(_FIELD.findall(str(entry.string))):
            found.append(f"{where}: the translation's {{fields}} differ from {message.id!r}")
    return found + _stale_mo(po)


def _stale_mo(po: Path) -> list[str]:
    """The problem of a ``.mo`` beside ``po`` that is missing or not ``po`` compiled."""
    mo = po.with_suffix(".mo")
    if not mo.exists() or mo.read_bytes() != compiled(po):
        return [f"{mo.name}: not the .po compiled (run nox -s catalogues)"]
    return []


#: What argparse says only to a programmer who declared a parser wrongly, or what this
#: package never lets it say (its own error line, ``FileType``, which it does not use): the
#: messages argparse writes that its catalogue need not translate.
_ARGPARSE_UNSHOWN = frozenset(
    {
        "%(prog)s: error: %(message)s\n",
        "%r is not callable",
        "'required' is an invalid argument for positionals",
        ".__call__() not defined",
        'argument "-" with mode %r',
        "can't open '%(filename)s': %(error)s",
        "cannot have multiple subparser arguments",
        "cannot merge actions - two groups are named %r",
        "conflicting option string: %s",
        "conflicting option strings: %s",
        "conflicting subparser alias: %s",
        "conflicting subparser: %s",
        "dest= is required for options like %r",
        "invalid conflict_resolution value: %r",
        "invalid option string %(option)r: must start with a character %(prefix_chars)r",
        "mutually exclusive arguments must be optional",
        "unexpected option string: %s",
        "unknown parser %(parser_name)r (choices: %(choices)s)",
    }
)


def _argparse_writes() -> set[str]:
    """The message ids of the running Python's argparse: the argument of each of its
    ``_()`` calls and both forms of each ``ngettext()``."""
    ids: set[str] = set()
    for call in ast.walk(ast.parse(inspect.getsource(argparse))):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
            forms = {"_": 1, "ngettext": 2}.get(call.func.id, 0)
            ids |= {
                arg.value
                for arg in call.args[:forms]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
            }
    return ids


def argparse_problems(po: Path = ARGPARSE_PO) -> list[str]:
    """What keeps argparse's Chinese catalogue from being in force: a message id argparse
    no longer writes (a newer Python reworded it), one it writes that the catalogue lacks
    (a newer Python added it; :data:`_ARGPARSE_UNSHOWN` lists those a reader never sees), an
    untranslated or fuzzy entry, a translation that loses or adds a ``%`` placeholder, or a
    stale ``.mo``.

    >>> argparse_problems()
    []
    """
    writes = _argparse_writes()
    entries = [entry for entry in read(po) if entry.id]
    known = {str(i) for e in entries for i in (e.id if isinstance(e.id, tuple) else (e.id,))}
    found = [
        f"{po.name}: argparse writes {msgid!r}, which the catalogue lacks"
        for msgid in sorted(writes - known - _ARGPARSE_UNSHOWN)
    ]
    for entry in entries:
        ids = [str(i) for i in (entry.id if isinstance(entry.id, tuple) else (entry.id,))]
        raw = entry.string if isinstance(entry.string, tuple | list) else (entry.string,)
        strings = [str(t or "") for t in raw]
        if any(i not in writes for i in ids):
            found.append(f"{po.name}: argparse no longer writes {ids[0]!r}")
        elif not all(strings) or entry.fuzzy:
            found.append(f"{po.name}: untranslated or fuzzy {ids[0]!r}")
        elif any(sorted(_PERCENT.findall(ids[0])) != sorted(_PERCENT.findall(t)) for t in strings):
            found.append(f"{po.name}: the translation's placeholders differ from {ids[0]!r}")
    return found + _stale_mo(po)


def main() -> int:
    """``python -m infrabook.catalogue``: converts old-way labels, then updates the catalogue
    and its ``.mo``; says what is left to translate (``problems``)."""
    converted = [key for source in labels.SOURCES for key in convert_labels(source)]
    if converted:
        shown = ", ".join(converted[:10]) + (", ..." if len(converted) > 10 else "")
        print(f"catalogue: {len(converted)} label(s) converted: {shown}")
        # the labels as they are now written, Chinese only
        for module in labels.MODULES:
            importlib.reload(module)
        importlib.reload(labels)
    update()
    ARGPARSE_PO.with_suffix(".mo").write_bytes(compiled(ARGPARSE_PO))
    left = problems() + argparse_problems()
    for line in left:
        print(line)
    print(f"catalogue: {PO} updated; {len(left)} message(s) to translate or fix")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
