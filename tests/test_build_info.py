"""The footer's build line: the commit comes from git (or CI's variables), the records' dates
from the records themselves, and both editions of a built page show the same values."""

from __future__ import annotations

import doctest
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RECORDS = DOCS / "_data" / "bench"


def _module():
    spec = importlib.util.spec_from_file_location(
        "infrabook_build", DOCS / "_ext" / "infrabook_build.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


build = _module()


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
    }
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, env=env
    )
    return done.stdout.strip()


def test_doctests():
    assert doctest.testmod(build).failed == 0


def test_commit_and_uncommitted_changes(tmp_path):
    _git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("one\n", encoding="utf-8")
    _git(tmp_path, "add", "a.txt")
    _git(tmp_path, "commit", "-q", "-m", "one")
    sha = _git(tmp_path, "rev-parse", "HEAD")
    assert build.commit(tmp_path, environ={}) == build.Commit(sha, dirty=False)
    # an untracked file (a build output, say) is not a change to the commit
    (tmp_path / "new.txt").write_text("x\n", encoding="utf-8")
    assert not build.commit(tmp_path, environ={}).dirty
    (tmp_path / "a.txt").write_text("two\n", encoding="utf-8")
    assert build.commit(tmp_path, environ={}).dirty
    # a folder inside some other repository does not take that repository's commit
    (tmp_path / "unpacked").mkdir()
    assert build.commit(tmp_path / "unpacked", environ={"GITHUB_SHA": "abc1234def"}) == (
        build.Commit("abc1234def", dirty=False)
    )


def test_record_dates_reads_each_records_dates(tmp_path):
    book = "cpu-amd-epyc-2c-c8153f.json"
    shutil.copy(RECORDS / book, tmp_path / book)
    data = json.loads((RECORDS / book).read_text(encoding="utf-8"))
    days = sorted(
        {e["provenance"]["date"][:10] for e in data["experiments"].values() if e["status"] == "ok"}
    )
    expected = days[0] if len(days) == 1 else f"{days[0]}–{days[-1]}"
    assert build.record_dates(tmp_path, "en") == [f"{book} {expected}"]
    # a second machine's record (a record names its machine, which is its file name)
    other = json.dumps({**data, "device": "cpu-aaa-1c-000000"}, ensure_ascii=False)
    (tmp_path / "cpu-aaa-1c-000000.json").write_text(other, encoding="utf-8")
    # every record, the reference first, each whole (the footer keeps one from breaking)
    assert build.record_dates(tmp_path, "en") == [
        f"{book} {expected}",
        f"cpu-aaa-1c-000000.json {expected}",
    ]
    assert build.record_dates(tmp_path / "nothing", "zh") == ["无"]
    (tmp_path / "cpu-aaa-1c-000000.json").unlink()
    (tmp_path / book).write_text("{", encoding="utf-8")
    assert build.record_dates(tmp_path, "en") == ["unreadable"]


CONF = f"""\
import sys
sys.path.insert(0, {str(DOCS / "_ext")!r})
extensions = ["myst_nb", "infrabook_i18n", "infrabook_build"]
language = "zh_CN"
html_theme = "sphinx_book_theme"
templates_path = [{str(DOCS / "_templates")!r}]
html_context = {{"default_mode": "auto"}}
copyright = "2026"
"""


def _footer(html: str) -> dict[str, str]:
    """The footer's paragraphs by class, as text."""
    found = re.findall(r'<p class="(infrabook-\w+|copyright)">(.*?)</p>', html, re.S)
    return {cls: re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", body)).strip() for cls, body in found}


@pytest.mark.timeout(300)
def test_every_page_of_both_editions_shows_the_build(tmp_path):
    src = tmp_path / "src"
    (src / "part").mkdir(parents=True)
    (src / "conf.py").write_text(CONF, encoding="utf-8")
    (src / "index.md").write_text("# 首页\n\n```{toctree}\npart/page\n```\n", encoding="utf-8")
    (src / "part" / "page.md").write_text("# 一页\n\n正文。\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "SOURCE_DATE_EPOCH": "0"}
    for lang in ("zh_CN", "en"):
        got = subprocess.run(
            [sys.executable, "-m", "sphinx", "-q", "-b", "html", "-D", f"language={lang}",
             str(src), str(tmp_path / lang)],
            capture_output=True, text=True, env=env, timeout=240,
        )  # fmt: skip
        assert got.returncode == 0, got.stderr

    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    version = version["project"]["version"]
    found = build.commit(ROOT)  # None only in a copy without git and outside CI
    commit = {"zh": found.short if found else "未知", "en": found.short if found else "unknown"}
    dates = build.record_dates(RECORDS, "en")
    for page in ("index.html", "part/page.html"):
        zh = _footer((tmp_path / "zh_CN" / page).read_text(encoding="utf-8"))
        en = _footer((tmp_path / "en" / page).read_text(encoding="utf-8"))
        assert zh["infrabook-build"].startswith(f"版本 {version} · 提交 ")
        assert en["infrabook-build"].startswith(f"Version {version} · commit ")
        for lang, line in (("zh", zh["infrabook-build"]), ("en", en["infrabook-build"])):
            assert f" {commit[lang]}" in line
            assert "1970-01-01" in line  # SOURCE_DATE_EPOCH
            assert all(d in line for d in dates), (dates, line)
        assert "MIT" in zh["infrabook-licence"] and "CC BY-SA 4.0" in en["infrabook-licence"]
        assert zh["infrabook-report"] == "报告本页的错误"
    report = re.search(
        r'href="([^"]+)">Report an error',
        (tmp_path / "en" / "part" / "page.html").read_text(encoding="utf-8"),
    )
    assert report and report.group(1).endswith(
        "/issues/new?template=errata.yml&amp;where=part/page&amp;edition=en"
    )
