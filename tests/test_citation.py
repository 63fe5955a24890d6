"""How to cite the book: CITATION.cff is valid Citation File Format 1.2.0, and it agrees with
pyproject.toml and with the BibTeX block on the front page of both editions.

The schema is the one cffconvert 2.0.0 ships (``cffconvert/schemas/1.2.0/schema.json``),
found through the installed distribution's file list and read with jsonschema, so nothing is
fetched at test time. nox's ``tests`` session installs cffconvert without its dependencies:
only its schema file is used (cffconvert itself pins ``jsonschema<4``, which the docs
stack cannot use).
"""

from __future__ import annotations

import copy
import datetime as dt
import importlib.metadata
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
CFF_SCHEMA = "cffconvert/schemas/1.2.0/schema.json"


def _strings(value: Any) -> Any:
    """YAML dates as the strings the schema expects (its own comment asks for this cast)."""
    if isinstance(value, dict):
        return {k: _strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strings(v) for v in value]
    return value.isoformat() if isinstance(value, dt.date) else value


def load_cff(text: str) -> dict[str, Any]:
    """A CITATION.cff's contents, dates as strings."""
    return _strings(yaml.safe_load(text))


def cff_schema() -> dict[str, Any]:
    """The CFF 1.2.0 JSON schema shipped in the installed cffconvert distribution."""
    try:
        files = importlib.metadata.files("cffconvert") or []
    except importlib.metadata.PackageNotFoundError:
        pytest.fail("cffconvert is not installed: nox -s tests installs it (--no-deps)")
    path = next((f for f in files if str(f) == CFF_SCHEMA), None)
    assert path is not None, f"cffconvert ships no {CFF_SCHEMA}"
    return json.loads(path.read_text(encoding="utf-8"))


def problems(cff: dict[str, Any]) -> list[str]:
    """Every way ``cff`` breaks the CFF 1.2.0 schema, as ``where: message`` lines."""
    validator = jsonschema.Draft7Validator(cff_schema(), format_checker=jsonschema.FormatChecker())
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
        for e in sorted(validator.iter_errors(cff), key=lambda e: list(map(str, e.path)))
    ]


def bibtex(cff: dict[str, Any]) -> str:
    """The BibTeX entry for the book that ``cff``'s preferred citation describes."""
    book = cff["preferred-citation"]
    authors = " and ".join("{" + a["name"] + "}" for a in book["authors"])
    fields = [
        ("title", book["title"]),
        ("author", authors),
        ("year", str(book["year"])),
        ("version", book["version"]),
        ("url", book["url"]),
    ]
    lines = [f"  {name:<7} = {{{value}}}," for name, value in fields]
    return "\n".join(["@misc{infrabook,", *lines, "}"])


@pytest.fixture(scope="module")
def cff() -> dict[str, Any]:
    return load_cff((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def project() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_citation_cff_is_valid(cff):
    assert problems(cff) == []


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda c: c.pop("authors"), "(top): 'authors' is a required property"),
        (lambda c: c.update({"date-released": "2026-13-01"}), "date-released: "),
        (lambda c: c.update({"license": "MIT AND CC-BY-SA-4.0"}), "license: "),
        (
            lambda c: c["preferred-citation"].update({"type": "blog post"}),
            "preferred-citation/type: ",
        ),
        (lambda c: c.update({"cff-version": "1.3"}), "cff-version: "),
    ],
)
def test_the_schema_catches_a_broken_file(cff, change, expected):
    broken = copy.deepcopy(cff)
    change(broken)
    assert any(p.startswith(expected) for p in problems(broken)), problems(broken)


def test_yaml_dates_are_validated_as_strings():
    parsed = load_cff("date-released: 2026-12-01\n")
    assert parsed == {"date-released": "2026-12-01"}


def test_citation_agrees_with_pyproject(cff, project):
    book = cff["preferred-citation"]
    assert cff["version"] == book["version"] == project["version"]
    # the code's licence and the book's, which pyproject states together
    assert project["license"] == f"{cff['license']} AND {book['license']}"
    assert cff["repository-code"] == project["urls"]["Repository"]
    assert cff["url"] == book["url"] == project["urls"]["Homepage"]
    assert cff["title"] == book["title"]


def test_front_page_bibtex_is_the_citation_file(cff):
    page = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```bibtex\n(.*?)\n```$", page, re.S | re.M)
    # one block; a code block is not a message, so the English edition shows the same one
    assert blocks == [bibtex(cff)]


def test_bibtex_follows_the_file():
    cff = {
        "preferred-citation": {
            "title": "T",
            "authors": [{"name": "A"}, {"name": "B"}],
            "year": 2027,
            "version": "1.2.3",
            "url": "https://example.org/",
        }
    }
    assert bibtex(cff) == (
        "@misc{infrabook,\n  title   = {T},\n  author  = {{A} and {B}},\n  year    = {2027},\n"
        "  version = {1.2.3},\n  url     = {https://example.org/},\n}"
    )


def test_the_source_article_is_named_and_in_the_repository(cff):
    (article,) = cff["references"]
    assert article["number"] == "S23-J17" and article["section"] == "§5.3–§5.6"
    assert "article/S23-J17.txt" in article["notes"]
    assert (ROOT / "article" / "S23-J17.txt").is_file()


def _own_urls() -> list[tuple[str, str]]:
    """Every address of this project's repository or site written in the repository's
    prose, pages and templates, with the file it is in."""
    files = [ROOT / n for n in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md", "CITATION.cff")]
    files += sorted((ROOT / "docs").glob("**/*.md")) + sorted((ROOT / "docs").glob("**/*.po"))
    files += sorted((ROOT / "docs" / "_templates").glob("*.html"))
    own = re.compile(r"https://(?:github\.com/[\w.-]+/infrabook|[\w-]+\.github\.io/infrabook)\S*")
    return [
        (str(f.relative_to(ROOT)), url)
        for f in files
        if "_build" not in f.parts
        for url in own.findall(f.read_text(encoding="utf-8"))
    ]


def test_addresses_are_the_ones_in_pyproject(project):
    urls = project["urls"]
    found = _own_urls()
    assert any("issues/new?template=" in url for _, url in found)
    wrong = [
        (where, url)
        for where, url in found
        if not url.startswith((urls["Repository"], urls["Homepage"]))
    ]
    assert wrong == []


def test_report_links_open_a_form_that_exists():
    forms = ROOT / ".github" / "ISSUE_TEMPLATE"
    named = {
        m.group(1)
        for f in [*(ROOT / "docs").glob("**/*.md"), *(ROOT / "docs" / "_templates").glob("*.html")]
        for m in re.finditer(r"issues/new\?template=([\w.-]+)", f.read_text(encoding="utf-8"))
    }
    assert named >= {"errata.yml", "translation.yml", "benchmark-record.yml"}
    assert all((forms / name).is_file() for name in named), named
    # the footer fills the errata form's fields by their ids
    errata = yaml.safe_load((forms / "errata.yml").read_text(encoding="utf-8"))
    ids = {field.get("id") for field in errata["body"]}
    footer = (ROOT / "docs" / "_templates" / "copyright.html").read_text(encoding="utf-8")
    prefilled = set(re.findall(r"&amp;(\w+)=", footer))
    assert prefilled and prefilled <= ids
