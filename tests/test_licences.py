"""Licences: pyproject.toml names the licence files, each file is the licence it is named for,
and the third-party notices cover every component vendored under docs/_static."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "docs" / "_static"
# the first line of each licence's text, as its steward publishes it
FIRST_LINE = {
    "MIT": "MIT License",
    "CC-BY-SA-4.0": "Creative Commons Attribution-ShareAlike 4.0 International",
}


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_each_licence_in_the_expression_has_its_file():
    project = _project()
    ids = project["license"].split(" AND ")
    files = [ROOT / f for f in project["license-files"]]
    assert all(f.is_file() for f in files), project["license-files"]
    first_lines = {f.read_text(encoding="utf-8").splitlines()[0] for f in files}
    assert first_lines == {FIRST_LINE[i] for i in ids}


def vendored(static: Path = STATIC) -> dict[str, str]:
    """Each folder under ``static`` that carries a LICENSE, with the version its README
    states as ``package@version`` (the npm spelling the READMEs use)."""
    found = {}
    for licence in sorted(static.glob("*/LICENSE")):
        readme = (licence.parent / "README.txt").read_text(encoding="utf-8")
        match = re.search(r"\b[\w.-]+@(\d[\w.]*\d)", readme)
        assert match, f"{licence.parent / 'README.txt'} states no package@version"
        found[licence.parent.name] = match.group(1)
    return found


def test_the_notices_name_every_vendored_component_and_its_version():
    notices = (ROOT / "THIRD-PARTY-NOTICES.md").read_text(encoding="utf-8")
    found = vendored()
    assert set(found) >= {"pyodide", "mathjax"}
    for folder, version in found.items():
        rows = [line for line in notices.splitlines() if f"`_static/{folder}/`" in line]
        assert len(rows) == 1, f"THIRD-PARTY-NOTICES.md has no one row for _static/{folder}/"
        assert f"| {version} |" in rows[0], (folder, version, rows[0])
        assert f"`docs/_static/{folder}/LICENSE`" in rows[0]


def test_a_new_vendored_folder_needs_its_readme(tmp_path):
    (tmp_path / "thing").mkdir()
    (tmp_path / "thing" / "LICENSE").write_text("x", encoding="utf-8")
    (tmp_path / "thing" / "README.txt").write_text("Thing 2.0, from npm thing@2.0.1.\n")
    assert vendored(tmp_path) == {"thing": "2.0.1"}
