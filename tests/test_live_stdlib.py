"""The precompiled standard library the live calculators load
(``docs/_static/pyodide/python_stdlib_precompiled.zip``, written by
``docs/_ext/precompile_stdlib.mjs``) is Pyodide's vendored ``python_stdlib.zip`` with some
modules compiled and nothing else changed: every other entry byte for byte the same, each
compiled one an unchecked hash-based pyc (PEP 552) in place of its source, all for one
interpreter.

Reference: the vendored source zip itself, read with the standard library's zipfile.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

PYODIDE = Path(__file__).resolve().parents[1] / "docs" / "_static" / "pyodide"


def test_the_precompiled_stdlib_is_the_vendored_one_with_some_modules_compiled():
    source = zipfile.ZipFile(PYODIDE / "python_stdlib.zip")
    made = zipfile.ZipFile(PYODIDE / "python_stdlib_precompiled.zip")
    original = {i.filename: source.read(i) for i in source.infolist()}
    compiled, magics = 0, set()
    for info in made.infolist():
        data = made.read(info)
        if info.filename in original:
            assert data == original[info.filename], info.filename
            continue
        assert info.filename.endswith(".pyc"), f"not in the vendored zip: {info.filename}"
        assert info.filename[:-1] in original, f"no source for {info.filename}"
        magics.add(data[:4])
        # flags 1: hash-based and unchecked, so no timestamp of the source is needed
        assert int.from_bytes(data[4:8], "little") == 1, info.filename
        compiled += 1
    names = {i.filename.removesuffix("c") for i in made.infolist()}
    assert names == set(original), "the precompiled zip must hold every module, once"
    # the live calculators import dataclasses, tomllib and json from the standard library
    for module in ("dataclasses.py", "tomllib/_parser.py", "json/__init__.py"):
        assert module + "c" in {i.filename for i in made.infolist()}, module
    assert compiled > 100 and len(magics) == 1
