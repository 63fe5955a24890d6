"""The vendored third-party files are the ones their READMEs state: every hash re-computed.

Pyodide's README lists the sha256 of each of its five files; MathJax's folder has SHA256SUMS
(``sha256sum`` format) for every file. Both lists must cover every file there, so a file added
or changed without its hash fails here. What cannot be checked offline: the npm tarballs'
sha512 integrity the READMEs quote (the tarballs are not vendored; ``npm view NAME@VERSION
dist.integrity`` and ``npm pack`` check them, as the READMEs say).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[1] / "docs" / "_static"
_LINE = re.compile(r"^\s*([0-9a-f]{64})  (\S+)$", re.MULTILINE)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _listed(text: str) -> dict[str, str]:
    return {name: digest for digest, name in _LINE.findall(text)}


def _files(folder: Path, *unlisted: str) -> set[str]:
    return {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and p.relative_to(folder).as_posix() not in unlisted
    }


@pytest.mark.parametrize(
    ("folder", "listing", "unlisted"),
    [
        ("pyodide", "README.txt", ("README.txt", "LICENSE")),
        ("mathjax", "SHA256SUMS", ("README.txt", "SHA256SUMS")),
    ],
)
def test_every_vendored_file_has_its_stated_hash(folder, listing, unlisted):
    root = STATIC / folder
    stated = _listed((root / listing).read_text(encoding="utf-8"))
    assert set(stated) == _files(root, *unlisted), "a file without a stated hash, or one missing"
    wrong = [name for name, digest in stated.items() if _sha256(root / name) != digest]
    assert not wrong, f"{folder}: files differ from their stated sha256: {wrong}"


def test_the_readmes_quote_well_formed_integrity():
    """The tarball integrity values have npm's shape (their truth needs the registry)."""
    for folder, count in (("pyodide", 1), ("mathjax", 2)):
        text = (STATIC / folder / "README.txt").read_text(encoding="utf-8")
        assert len(re.findall(r"sha512-[A-Za-z0-9+/]{86}==", text)) == count
