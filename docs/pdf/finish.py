"""What is done to the PDF Chromium prints, before it is published (``docs/pdf/build.py``).

* Searchable Chinese. Noto CJK maps a Kangxi radical (U+2F00-U+2FDF) or a CJK radical
  supplement character (U+2E80-U+2EFF) to the very glyph of the ideograph it looks like
  (⼀ U+2F00 and 一 U+4E00 are one glyph). Skia, which writes Chromium's PDFs, gives each
  glyph the lowest code point that maps to it in its ``ToUnicode`` table, so the text
  layer says ⼀ where the page shows 一 and a search for 原文 finds nothing. The glyphs are
  right; only that table is wrong. :func:`fix_to_unicode` maps those entries back to the
  ideograph, using the font's own cmap (:func:`radical_map`).
* Links. Chromium prints a page loaded from ``file://`` with its links to the site's other
  files made absolute (``file:///…/chapters/02-fusion.html``); :func:`site_uri` turns them
  into the published site's address, or a path relative to the PDF, which sits at the root
  of its edition.
* Running heads: :func:`running_heads` says which chapter each page belongs to, from the
  PDF outline's first level.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping

#: Code points that Chromium's PDFs can carry instead of an ideograph.
RADICALS = ((0x2E80, 0x2EFF), (0x2F00, 0x2FDF))


def is_radical(char: str) -> bool:
    """Whether ``char`` is a radical look-alike (a character a text layer must not carry).

    >>> is_radical("⼀"), is_radical("⻅"), is_radical("一")
    (True, True, False)
    """
    return any(lo <= ord(char) <= hi for lo, hi in RADICALS)


def _ideograph(code: int) -> bool:
    return 0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0x20000 <= code <= 0x3134F


def radical_map(cmap: Mapping[int, str]) -> dict[int, int]:
    """For each radical look-alike in a font's ``cmap`` (code point to glyph name), the
    ideograph drawn with the same glyph; NFKC where the font has no such ideograph.

    >>> radical_map({0x2F00: "g1", 0x4E00: "g1", 0x2EC5: "g9", 0x89C1: "g9", 0x2F08: "g2"})
    {11973: 35265, 12032: 19968, 12040: 20154}
    """
    by_glyph: dict[str, int] = {}
    for code, glyph in cmap.items():
        if _ideograph(code):
            by_glyph.setdefault(glyph, code)
    found: dict[int, int] = {}
    for code, glyph in sorted(cmap.items()):
        if is_radical(chr(code)):
            if glyph in by_glyph:
                found[code] = by_glyph[glyph]
            else:
                nfkc = unicodedata.normalize("NFKC", chr(code))
                if nfkc != chr(code) and len(nfkc) == 1:
                    found[code] = ord(nfkc)
    return found


_HEX = re.compile(r"<([0-9A-Fa-f]+)>")


def _utf16(text: str) -> str:
    return text.encode("utf-16-be").hex().upper()


def _decode(hexed: str) -> str:
    return bytes.fromhex(hexed).decode("utf-16-be")


def fix_to_unicode(cmap_text: str, radicals: Mapping[int, int]) -> tuple[str, int]:
    """A ``ToUnicode`` CMap with every destination that is a radical look-alike replaced by
    its ideograph (``bfchar`` entries, and ``bfrange`` entries, which are split into
    ``bfchar`` where one of their code points is replaced). Returns the text and how many
    code points were replaced.

    >>> fixed, n = fix_to_unicode("1 beginbfchar\\n<0003> <2F00>\\nendbfchar", {0x2F00: 0x4E00})
    >>> n, "<0003> <4E00>" in fixed
    (1, True)
    >>> text, n = fix_to_unicode("1 beginbfrange\\n<0005> <0007> <2F00>\\nendbfrange",
    ...                          {0x2F01: 0x4E28})
    >>> n, "<0006> <4E28>" in text, "<0005> <2F00>" in text, "bfrange" in text
    (1, True, True, False)
    """
    count = 0

    def fixed(dest: str) -> str:
        nonlocal count
        out = "".join(chr(radicals.get(ord(c), ord(c))) for c in dest)
        count += out != dest
        return out

    def chars(match: re.Match[str]) -> str:
        lines = []
        for src, dest in re.findall(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", match.group(1)):
            lines.append(f"<{src}> <{_utf16(fixed(_decode(dest)))}>")
        return _bfchar(lines)

    def ranges(match: re.Match[str]) -> str:
        plain, split = [], []
        for line in match.group(1).strip().splitlines():
            values = _HEX.findall(line)
            if len(values) != 3:  # a range onto an array of strings: left as it is
                plain.append(line.strip())
                continue
            lo, hi, start = int(values[0], 16), int(values[1], 16), _decode(values[2])
            width = len(values[0])
            dests = [start[:-1] + chr(ord(start[-1]) + i) for i in range(hi - lo + 1)]
            new = [fixed(d) for d in dests]
            if new != dests:
                split += [f"<{lo + i:0{width}X}> <{_utf16(d)}>" for i, d in enumerate(new)]
            else:
                plain.append(line.strip())
        out = _bfrange(plain)
        return out + ("\n" if out and split else "") + _bfchar(split)

    text = re.sub(r"\d+\s+beginbfchar(.*?)endbfchar", chars, cmap_text, flags=re.S)
    text = re.sub(r"\d+\s+beginbfrange(.*?)endbfrange", ranges, text, flags=re.S)
    return text, count


def _blocks(kind: str, lines: list[str]) -> str:
    # a CMap section holds at most 100 entries
    return "\n".join(
        f"{len(chunk)} begin{kind}\n" + "\n".join(chunk) + f"\nend{kind}"
        for chunk in (lines[i : i + 100] for i in range(0, len(lines), 100))
    )


def _bfchar(lines: list[str]) -> str:
    return _blocks("bfchar", lines)


def _bfrange(lines: list[str]) -> str:
    return _blocks("bfrange", lines)


def site_uri(uri: str, local_root: str, site: str) -> str:
    """A link of the printed page, as the published PDF must carry it: a file of the
    edition printed from ``local_root`` becomes the same file under ``site`` (the edition's
    published address, or ``""`` for a path relative to the PDF); anything else is kept.

    >>> site_uri("file:///b/zh/html/chapters/02.html#x", "file:///b/zh/html/", "https://s/")
    'https://s/chapters/02.html#x'
    >>> site_uri("file:///b/zh/html/chapters/02.html", "file:///b/zh/html/", "")
    'chapters/02.html'
    >>> site_uri("https://arxiv.org/abs/2205.14135", "file:///b/zh/html/", "")
    'https://arxiv.org/abs/2205.14135'
    """
    if uri.startswith(local_root):
        return site + uri[len(local_root) :]
    return uri


def running_heads(starts: Iterable[tuple[int, str]], pages: int) -> list[str | None]:
    """The chapter title to print atop each page, given where each chapter starts (page
    index, title; the outline's first level): none before the first chapter, nor on the
    page a chapter opens with its own title.

    >>> running_heads([(2, "1. A"), (4, "2. B")], 6)
    [None, None, None, '1. A', None, '2. B']
    """
    heads: list[str | None] = [None] * pages
    ordered = sorted(starts)
    for i, (start, title) in enumerate(ordered):
        end = ordered[i + 1][0] if i + 1 < len(ordered) else pages
        for page in range(start + 1, end):
            heads[page] = title
    return heads
