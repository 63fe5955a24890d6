"""Fail unless every message of the English catalogues is translated, and translated safely.

Usage: python -m docs.checks.translations [LOCALE_DIR]   (default: docs/locale)

For every ``.po`` file under LOCALE_DIR/en/LC_MESSAGES, each message must:

* have a translation that is not marked fuzzy (Sphinx leaves fuzzy ones out, so the page
  would show the Chinese), and no obsolete (``#~``) entries may linger;
* keep what code resolves: the same glued values (``{glue:text}`key```), the same
  cross-reference and citation targets, and the same inline math, so that every number on
  an English page is the one the Chinese page shows; code that a page shows its reader (a
  block or a cell's source with comments, :func:`is_code`) keeps its code, and only its
  comments change;
* hold no Chinese outside ``{zh}`...``` (the article's words, kept on purpose) and role
  targets (``{term}`fusion <融合>```). The glossary's Chinese term lines are the exception:
  they name the Chinese terms, and stay as they are.

Then the package's own catalogue (``src/infrabook/locale``): every label and conf text
translated, not fuzzy, its ``{fields}`` kept, and its ``.mo`` the ``.po`` compiled
(:func:`infrabook.catalogue.problems`).
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

from babel.messages.pofile import read_po

from infrabook import catalogue

CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]+")
ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")
MATH = re.compile(r"(?<![\\$])\$(?!\$)([^$]+)\$")
# a comment in the shell and Python code that pages show: "#" at a line's start or after a space
COMMENT = re.compile(r"(^|\s)#.*$")
# roles whose whole content (or its <target>) is resolved by code, not read as prose
RESOLVED = ("glue", "ref", "doc", "numref", "cite", "eq", "download")


def _target(content: str) -> str:
    m = re.search(r"<([^>]*)>\s*$", content)
    return m.group(1) if m else content


def anchors(message: str) -> Counter[str]:
    """What a message must keep: its glue keys, resolved role targets and inline math.

    >>> sorted(anchors("从 {glue:text}`c1_sep` MiB 见 {ref}`ch-fusion` 与 $T$").elements())
    ['$T$', 'glue:text:c1_sep', 'ref:ch-fusion']
    >>> sorted(anchors("see {ref}`the chapter <ch-fusion>`").elements())
    ['ref:ch-fusion']
    """
    found: Counter[str] = Counter()
    for role, content in ROLE.findall(message):
        if role.split(":")[0] in RESOLVED:
            found[f"{role}:{_target(content)}"] += 1
    found.update(f"${m}$" for m in MATH.findall(ROLE.sub("", message)))
    return found


def is_code(msgid: str) -> bool:
    """Whether a message is code with comments: a block of several lines (prose is joined
    into one line; display math has no comments), or one line whose code before its comment
    holds no Chinese (a one-line cell, not a sentence that mentions an issue's #42).

    >>> is_code("x = 1  # 注释"), is_code("修好了 #42 的问题"), is_code("a\\nb  # 注释")
    (True, False, True)
    """
    lines = msgid.splitlines()
    if not any(COMMENT.search(line) for line in lines):
        return False
    return len(lines) > 1 or not CJK.search(code(msgid)[0])


def code(block: str) -> list[str]:
    """A code block's lines without their comments: what a translation may not change.

    >>> code("for _ in range(10):  # 预热\\n    fn()")
    ['for _ in range(10):', '    fn()']
    >>> code("$ nox -s bench      # 缩小的尺寸") == code("$ nox -s bench  # reduced sizes")
    True
    """
    return [COMMENT.sub("", line).rstrip() for line in block.splitlines()]


def stray_chinese(msgstr: str) -> list[str]:
    """Chinese in a translation outside ``{zh}`...``` and role targets.

    >>> stray_chinese("{term}`fusion <融合>` keeps {zh}`逐形状特化` whole")
    []
    >>> stray_chinese("fusion 融合")
    ['融合']
    """
    prose = ROLE.sub(lambda m: "" if m.group(1) == "zh" else _prose_part(m.group(2)), msgstr)
    return CJK.findall(prose)


def _prose_part(content: str) -> str:
    return re.sub(r"<[^>]*>\s*$", "", content)


def problems(locale: Path) -> list[str]:
    root = locale / "en" / "LC_MESSAGES"
    files = sorted(root.rglob("*.po"))
    if not files:
        return [f"{root}: no .po files"]
    found = []
    for path in files:
        rel = path.relative_to(root)
        with path.open("rb") as f:
            catalog = read_po(f)
        for msgid in catalog.obsolete:
            found.append(
                f"{rel}: obsolete entry {msgid[:60]!r} (run sphinx-intl update; delete #~ lines)"
            )
        for message in catalog:
            if not message.id:
                continue
            where = f"{rel}:{message.lineno}"
            msgid, msgstr = str(message.id), str(message.string or "")
            if not msgstr.strip():
                found.append(f"{where}: untranslated {msgid[:60]!r}")
                continue
            if message.fuzzy:
                found.append(f"{where}: fuzzy {msgid[:60]!r}")
            if is_code(msgid):
                if code(msgid) != code(msgstr):
                    found.append(f"{where}: code changed, not only its comments {msgid[:60]!r}")
                want = got = Counter()
            else:
                want, got = anchors(msgid), anchors(msgstr)
            if want != got:
                missing = sorted((want - got).elements())
                extra = sorted((got - want).elements())
                found.append(f"{where}: translation lost {missing} / added {extra}")
            glossary_term = rel.as_posix() == "appendix/glossary.po" and msgstr == msgid
            if not glossary_term and (chinese := stray_chinese(msgstr)):
                found.append(f"{where}: Chinese outside {{zh}}: {chinese[:3]}")
    return found


def main() -> int:
    locale = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[1] / "locale"
    found = problems(locale) + catalogue.problems() + catalogue.argparse_problems()
    for line in found:
        print(line)
    if found:
        print(f"check_translations: {len(found)} problem(s)", file=sys.stderr)
        return 1
    print("check_translations: every message translated, anchors kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())
