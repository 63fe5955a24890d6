"""TrueType copies of the book's CJK faces and of MathJax's, so that Chromium embeds real
fonts in the PDF.

Skia, which writes Chromium's PDFs, embeds a TrueType face (``glyf`` outlines) as a
composite font (Type 0, CID TrueType), subset to the glyphs used. A face with CFF outlines,
as every Noto Sans CJK face is, it cannot embed: it draws each glyph as a Type 3 procedure
instead, 256 glyphs to a font (572 such fonts in the Chinese PDF of 2026-12-04), unhinted
and large. So before printing, each face the print style names is copied out of its
collection, subset to the characters the book shows, and its cubic outlines converted to
quadratic ones (fontTools' ``cu2qu``, within a tenth of a unit of the 1,000-unit em); the
copies are declared with ``@font-face`` under the installed faces' own names, which they then
hide. The conversion follows the steps of fontTools' ``Snippets/otf2ttf.py`` (MIT).

The subset also keeps the Kangxi radicals out of the text layer: Noto CJK maps a radical
and its ideograph (⼀ U+2F00, 一 U+4E00) to one glyph, and Skia names the glyph by the
lowest code point mapped to it; a subset made from the book's text maps no radical the book
does not print. ``finish.fix_to_unicode`` stays as the repair for any glyph that still comes
from an installed face.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from fontTools import subset
from fontTools.pens.cu2quPen import Cu2QuPen
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTCollection, TTFont, newTable

NOTO = Path("/usr/share/fonts/opentype/noto")
# how far a quadratic outline may stray from the cubic one, in font units (1,000 to the em)
MAX_ERROR = 0.1


@dataclass(frozen=True)
class Face:
    """One face of an installed collection, and the weight it is declared with."""

    family: str
    weight: int
    collection: Path

    @property
    def file_name(self) -> str:
        """The copy's file name: ``noto-sans-mono-cjk-sc-700.ttf``."""
        return f"{self.family.lower().replace(' ', '-')}-{self.weight}.ttf"


# The faces print.css names: the text's and the code's, regular and bold.
FACES = tuple(
    Face(family, weight, NOTO / f"NotoSansCJK-{'Bold' if weight == 700 else 'Regular'}.ttc")
    for family in ("Noto Sans CJK SC", "Noto Sans Mono CJK SC")
    for weight in (400, 700)
)


def _face(collection: Path, family: str) -> TTFont:
    for font in TTCollection(str(collection)).fonts:
        if font["name"].getDebugName(1) == family:
            return font
    raise SystemExit(f"fonts.py: no face {family!r} in {collection}")


def to_truetype(font: TTFont) -> None:
    """Replace a font's CFF outlines by quadratic ``glyf`` ones, in place."""
    order = font.getGlyphOrder()
    glyphs = font.getGlyphSet()
    glyf = newTable("glyf")
    glyf.glyphOrder = order
    glyf.glyphs = {}
    for name in order:
        pen = TTGlyphPen(glyphs)
        glyphs[name].draw(Cu2QuPen(pen, MAX_ERROR, reverse_direction=True))
        glyf[name] = pen.glyph()
    font["loca"] = newTable("loca")
    font["glyf"] = glyf
    # TrueType places an outline by its left side bearing (the origin is xMin - lsb); CFF
    # ignores it, and MathJax's faces leave it 0, which would shift every glyph left.
    hmtx = font["hmtx"]
    for name in order:
        glyf[name].recalcBounds(glyf)
        hmtx[name] = (hmtx[name][0], getattr(glyf[name], "xMin", 0))
    maxp = newTable("maxp")
    maxp.tableVersion = 0x00010000
    for field in (
        "maxZones", "maxTwilightPoints", "maxStorage", "maxFunctionDefs",
        "maxInstructionDefs", "maxStackElements", "maxSizeOfInstructions",
        "maxComponentElements",
    ):  # fmt: skip
        setattr(maxp, field, 0)
    maxp.maxZones = 1
    font["maxp"] = maxp
    post = font["post"]
    post.formatType = 2.0
    post.extraNames = []
    post.mapping = {}
    post.glyphOrder = order
    for table in ("CFF ", "VORG"):
        if table in font:
            del font[table]
    font.sfntVersion = "\0\1\0\0"


def truetype_subset(face: Face, characters: str, folder: Path) -> Path:
    """The face, subset to ``characters`` (with every layout feature), as TrueType in
    ``folder``; returns the file."""
    font = _face(face.collection, face.family)
    options = subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = True
    options.hinting = False
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=characters)
    subsetter.subset(font)
    to_truetype(font)
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / face.file_name
    font.save(str(out))
    return out


def truetype_in_place(folder: Path) -> list[Path]:
    """Rewrites every WOFF2 font in ``folder`` as a TrueType font, keeping its name.

    MathJax draws formulas with its own faces, served as WOFF2 with CFF outlines, which Skia
    would draw as Type 3 like the CJK faces above. The print build's private copy of the site
    (never the published one) gets TrueType files under the same names, so MathJax's style
    sheet, which names them with ``format("woff2")``, still finds them: Chromium tells a
    font's format by its first bytes, not by the hint. Reading WOFF2 needs ``brotli``.
    """
    done = []
    for path in sorted(folder.glob("*.woff2")):
        font = TTFont(str(path))
        font.flavor = None
        if "CFF " in font:
            to_truetype(font)
        font.save(str(path))
        done.append(path)
    return done


def characters(texts: Iterable[str]) -> str:
    """Every character of ``texts`` and of printable ASCII, once, in code point order.

    >>> characters(["原文 ab", "文b"])[:3], "原" in characters(["原文"])
    (' !"', True)
    """
    found = {chr(c) for c in range(0x20, 0x7F)}
    for text in texts:
        found.update(text)
    found -= {"\n", "\r", "\t"}
    return "".join(sorted(found))


def font_face_css(files: dict[Face, Path], inline: bool = False) -> str:
    """``@font-face`` rules that declare each copy under its face's family and weight:
    by file address, or ``inline`` as data (an SVG drawn as an image loads nothing else).

    >>> face = Face("Noto Sans CJK SC", 700, Path("x.ttc"))
    >>> css = font_face_css({face: Path("/b/f.ttf")})
    >>> css.startswith('@font-face { font-family: "Noto Sans CJK SC"; font-weight: 700; ')
    True
    >>> css.endswith('src: url("file:///b/f.ttf") format("truetype"); }')
    True
    """
    rules = []
    for face, path in files.items():
        if inline:
            data = base64.b64encode(path.read_bytes()).decode("ascii")
            src = f"data:font/ttf;base64,{data}"
        else:
            src = path.resolve().as_uri()
        rules.append(
            f'@font-face {{ font-family: "{face.family}"; font-weight: {face.weight}; '
            f'src: url("{src}") format("truetype"); }}'
        )
    return "\n".join(rules)
