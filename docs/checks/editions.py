"""Fail unless the English edition is the Chinese one in English: same pages, same numbers,
no stray Chinese, and a language switcher that leads to the same page both ways.

Usage: python -m docs.checks.editions HTML_DIR   (the Chinese site; the English one is HTML_DIR/en)

* Pages: every page of one edition exists in the other.
* Numbers: on each page, the numbers inside glued values (``{glue:text}``) are the same
  multiset in both editions. A translated sentence may order them differently; it may not
  lose, add or change one.
* Chinese: an English page (its text, and its ``alt``, ``title`` and ``aria-label``
  attributes) and every figure it shows hold no Chinese, except inside ``lang="zh-CN"``
  (the ``{zh}`` role, the switcher), the glossary's Chinese term lines, and cells tagged
  ``article-quote`` (the article's own printed lines).
* Switcher: each page's switcher points at the same page of the other edition, which exists.
* Residue, in both editions' prose (code, preformatted output, math, the bibliography and
  the glossary's term lines left out): no literal ``**`` (emphasis Markdown did not parse,
  as CommonMark's flanking rule leaves it next to CJK punctuation) and no internal device
  key of ``conf/hardware.toml`` (``rtx_pro_6000``) where a reader should see the device's
  name. In the Chinese edition, no English sentence: a run of English words holding a
  function word ("needs 8.9 TB/s, above every listed device's ..."); names and terms in
  English are fine, and no comment in English in the code a page shows its reader.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

from infrabook import config

CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]+")
# 2,048 and 45.5 are one number each; the comma of an English list is not part of one
NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
SKIP_TEXT = {"script", "style", "template"}
# pages Sphinx writes itself, with no source page behind them
GENERATED = {"genindex.html", "search.html", "404.html"}


class Page(HTMLParser):
    """One HTML page: its glued values, its Chinese outside quotations, its switcher link,
    and the images it shows."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        # per open element: tag, and whether it is quoted Chinese, unshown text, a glued
        # value, or inside the glossary's term list
        self.stack: list[tuple[str, dict[str, bool]]] = []
        self.glued: list[str] = []
        self.chinese: list[str] = []
        self.switch: str | None = None
        self.images: list[str] = []
        self._glue_text: list[str] = []

    def _flags(self) -> dict[str, bool]:
        return dict(self.stack[-1][1]) if self.stack else {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        classes = a.get("class", "").split()
        flags = self._flags()
        flags["glossary"] = flags.get("glossary", False) or (tag == "dl" and "glossary" in classes)
        flags["quoted"] = (
            flags.get("quoted", False)
            or a.get("lang", "").startswith("zh")
            or "tag_article-quote" in classes
            or (tag == "dt" and flags["glossary"])
        )
        flags["skipped"] = flags.get("skipped", False) or tag in SKIP_TEXT
        if "pasted-text" in classes and not flags.get("glue"):
            flags["glue"] = True
            self._glue_text = []
        if "lang-switch" in classes:
            self.switch = a.get("href")
        if tag == "img" and a.get("src"):
            self.images.append(a["src"])
        if not flags["quoted"] and not flags["skipped"]:
            for name in ("alt", "title", "aria-label"):
                self.chinese += CJK.findall(a.get(name, ""))
        if tag not in VOID:
            self.stack.append((tag, flags))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            top, flags = self.stack.pop()
            if flags.get("glue") and not self._flags().get("glue"):
                self.glued.append("".join(self._glue_text))
            if top == tag:
                break

    def handle_data(self, data: str) -> None:
        flags = self._flags()
        if flags.get("glue"):
            self._glue_text.append(data)
        if not flags.get("quoted") and not flags.get("skipped"):
            self.chinese += CJK.findall(data)


# Prose only: no code, output, math, bibliography, glossary term line or title of a work
# (titles are set in italics: <em>How to Scale Your Model</em>).
PROSE_SKIP_TAGS = SKIP_TEXT | {"code", "pre", "kbd", "samp", "em", "cite"}
PROSE_SKIP_CLASSES = {"math", "citation", "bibliography", "highlight"}
ENGLISH_WORD = r"[A-Za-z][A-Za-z'’-]*"
# Five or more English words in a row within one element (numbers and punctuation between
# them allowed)...
ENGLISH_RUN = re.compile(rf"{ENGLISH_WORD}(?:[ ,;:()/.%×0-9-]+{ENGLISH_WORD}){{4,}}")
# ...that hold a word only a sentence has: a name or a term does not.
FUNCTION_WORDS = {
    "the", "a", "an", "is", "are", "was", "be", "of", "to", "in", "on", "for", "with",
    "from", "than", "and", "or", "if", "only", "needs", "above", "below", "every", "each",
}  # fmt: skip


class Prose(HTMLParser):
    """The text a reader reads as prose on one page; element boundaries become line breaks,
    so that a run of words never spans two table cells."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        # per open element: tag, whether its text is skipped, whether it is in a glossary
        self.stack: list[tuple[str, bool, bool]] = []
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        classes = set(a.get("class", "").split())
        skipped, glossary = self.stack[-1][1:] if self.stack else (False, False)
        glossary = glossary or (tag == "dl" and "glossary" in classes)
        skipped = skipped or tag in PROSE_SKIP_TAGS or bool(PROSE_SKIP_CLASSES & classes)
        skipped = skipped or (tag == "dt" and glossary)
        self.parts.append("\n")
        if tag not in VOID:
            self.stack.append((tag, skipped, glossary))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            top = self.stack.pop()[0]
            if top == tag:
                break
        self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not (self.stack and self.stack[-1][1]):
            self.parts.append(data.replace("\n", " "))

    @property
    def text(self) -> str:
        return "".join(self.parts)


# Pygments' classes for comments
COMMENT_CLASSES = {"c", "c1", "ch", "cm", "cs"}


class PageCodeComments(HTMLParser):
    """The comments of the code that a page shows its reader (``page-code``, marked by
    ``infrabook_i18n``: fenced blocks and cells' sources, not files included from the
    package, not what cells printed)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        # per open element: tag, whether it is inside page code, whether it is a comment
        self.stack: list[tuple[str, bool, bool]] = []
        self.comments: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = set((dict(attrs).get("class") or "").split())
        code, comment = self.stack[-1][1:] if self.stack else (False, False)
        code = code or "page-code" in classes
        if code and COMMENT_CLASSES & classes and not comment:
            self.comments.append("")
            comment = True
        if tag not in VOID:
            self.stack.append((tag, code, comment))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[-1][2]:
            self.comments[-1] += data


def english_comments(html: str) -> list[str]:
    """Comments without Chinese in the code a page shows its reader: in the Chinese
    edition a reader reads them in Chinese (code identifiers stay as they are).

    >>> english_comments('<div class="page-code"><pre><span class="c1"># 预热</span>'
    ...                  '<span class="c1"># warm-up</span></pre></div><span class="c1"># x</span>')
    ['# warm-up']
    """
    parser = PageCodeComments()
    parser.feed(html)
    return [c for c in parser.comments if not CJK.search(c)]


def conf_keys() -> set[str]:
    """The device keys of ``conf/hardware.toml``: internal names, never shown to readers."""
    return set(config.devices())


def conf_key_used(key: str, text: str) -> bool:
    """Whether ``key`` stands in ``text`` as a word of its own, where a device's name belongs.

    A key inside a longer name (a record file ``gpu-h200-13ac61.json``, an identifier) is part
    of that name: a reader sees the file's name, not the key.

    >>> conf_key_used("h200", "测于h200：")
    True
    >>> conf_key_used("h200", "记录 gpu-h200-13ac61.json（2026-12-04）")
    False
    """
    name = r"[A-Za-z0-9_-]"  # ASCII: a Chinese character beside the key does not hide it
    return re.search(rf"(?<!{name}|\.){re.escape(key)}(?!{name}|\.[A-Za-z0-9])", text) is not None


def english_sentences(text: str) -> list[str]:
    """Runs of English words that read as a sentence, not as a name or a term.

    >>> english_sentences("需要 8.9 TB/s，needs 8.9 TB/s, above every listed device's DRAM")
    ["needs 8.9 TB/s, above every listed device's DRAM"]
    >>> english_sentences("NVIDIA RTX PRO 6000 Blackwell 与 model FLOPs utilisation")
    []
    """
    found = []
    for m in ENGLISH_RUN.finditer(text):
        words = {w.lower() for w in re.findall(ENGLISH_WORD, m[0])}
        if words & FUNCTION_WORDS:
            found.append(m[0].strip())
    return found


def residue(path: Path, chinese: bool, keys: set[str]) -> list[str]:
    """Literal ``**``, conf keys and (in the Chinese edition) English sentences in a page."""
    prose = Prose()
    prose.feed(path.read_text(encoding="utf-8"))
    text = prose.text
    found = []
    if "**" in text:
        at = text.index("**")
        found.append(f"literal ** (Markdown left unparsed): {text[max(0, at - 20) : at + 20]!r}")
    if "`" in text:
        at = text.index("`")
        found.append(f"literal ` (inline code left unparsed): {text[max(0, at - 20) : at + 20]!r}")
    used = sorted(k for k in keys if conf_key_used(k, text))
    if used:
        found.append(f"conf keys instead of device names: {used}")
    if chinese and (english := english_sentences(text)):
        found.append(f"English sentences in the Chinese edition: {english[:3]}")
    if chinese and (english := english_comments(path.read_text(encoding="utf-8"))):
        found.append(f"comments in English in the Chinese edition's code: {english[:3]}")
    return found


def read(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def numbers(glued: list[str]) -> Counter[str]:
    """The numbers inside a page's glued values.

    >>> sorted(numbers(["4 次 2,048 行", "45.5%"]).elements())
    ['2,048', '4', '45.5']
    """
    return Counter(n for text in glued for n in NUMBER.findall(text))


def pages(root: Path) -> set[str]:
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob("*.html")
        if not p.relative_to(root).parts[0].startswith(("_", "en"))
    }


def problems(zh_root: Path) -> list[str]:
    en_root = zh_root / "en"
    if not en_root.is_dir():
        return [f"{en_root}: no English edition (build it with -D language=en)"]
    found = []
    zh_pages, en_pages = pages(zh_root), pages(en_root)
    found += [f"en/{p}: missing (the Chinese edition has it)" for p in sorted(zh_pages - en_pages)]
    found += [f"{p}: missing (the English edition has it)" for p in sorted(en_pages - zh_pages)]
    svg_seen: set[Path] = set()
    keys = conf_keys()
    for rel in sorted(zh_pages - GENERATED):
        found += [f"{rel}: {p}" for p in residue(zh_root / rel, True, keys)]
    for rel in sorted(en_pages - GENERATED):
        found += [f"en/{rel}: {p}" for p in residue(en_root / rel, False, keys)]
    for rel in sorted(zh_pages & en_pages):
        zh, en = read(zh_root / rel), read(en_root / rel)
        if rel not in GENERATED:
            if numbers(zh.glued) != numbers(en.glued):
                only_zh = sorted((numbers(zh.glued) - numbers(en.glued)).elements())
                only_en = sorted((numbers(en.glued) - numbers(zh.glued)).elements())
                found.append(
                    f"en/{rel}: glued numbers differ: zh only {only_zh}, en only {only_en}"
                )
            for page, here, there, name in (
                (zh, zh_root / rel, en_root / rel, "zh"),
                (en, en_root / rel, zh_root / rel, "en"),
            ):
                target = (here.parent / page.switch).resolve() if page.switch else None
                if target != there.resolve():
                    found.append(f"{name}/{rel}: switcher leads to {page.switch!r}, not here")
        # the index lists the glossary's Chinese terms beside the English ones
        if en.chinese and rel != "genindex.html":
            found.append(f"en/{rel}: Chinese outside quotations: {en.chinese[:5]}")
        for src in en.images:
            svg = (en_root / rel).parent / src.split("#")[0]
            if svg.suffix == ".svg" and svg.is_file() and svg not in svg_seen:
                svg_seen.add(svg)
                text = " ".join(
                    re.findall(r"<text[^>]*>(.*?)</text>", svg.read_text("utf-8"), re.S)
                )
                if chinese := CJK.findall(text):
                    found.append(f"en/{rel}: figure {src} has Chinese labels: {chinese[:5]}")
    return found


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/_build/html")
    found = problems(root)
    for line in found:
        print(line)
    if found:
        print(f"check_editions: {len(found)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_editions: {len(pages(root))} pages in both editions agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
