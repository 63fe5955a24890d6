"""What every page's footer says about the build: version, commit, date, measurements.

The footer (``_templates/copyright.html``) shows the package's version (``pyproject.toml``),
the commit the site was built from (and whether the tree had uncommitted changes), the
build date, and the dates of the benchmark records the pages read (``docs/_data/bench``, or
``$INFRABOOK_BENCH_DIR``), so a reader can tell which book a number came from. Both editions
compute the same values from the same tree. It also gives the templates the project's
addresses (``[project.urls]`` in ``pyproject.toml``) for the licence and report links.

The build date is ``$SOURCE_DATE_EPOCH`` when set (reproducible builds), else today in UTC.
Without git (a source archive), the commit comes from CI's variables, or is unknown.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config

from infrabook.bench.records import report
from infrabook.bench.records.store import RecordError
from infrabook.labels import text

ROOT = Path(__file__).resolve().parents[2]
# CI's name for the commit being built, where there is no .git to ask
COMMIT_VARIABLES = ("GITHUB_SHA", "READTHEDOCS_GIT_COMMIT_HASH")


@dataclass(frozen=True)
class Commit:
    """The commit a build comes from; ``dirty`` when tracked files differ from it."""

    sha: str
    dirty: bool

    @property
    def short(self) -> str:
        """The first seven hex digits, as ``git log --oneline`` shows them.

        >>> Commit("b8970c0d0a1b2c3", dirty=False).short
        'b8970c0'
        """
        return self.sha[:7]


def commit(root: Path = ROOT, environ: dict[str, str] | None = None) -> Commit | None:
    """The commit checked out at ``root``, else the one CI names, else None.

    >>> commit(Path("/"), environ={"GITHUB_SHA": "0123456789abcdef"})
    Commit(sha='0123456789abcdef', dirty=False)
    >>> commit(Path("/"), environ={}) is None
    True
    """
    environ = os.environ if environ is None else environ

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(root), *args], capture_output=True, text=True, check=False
            )
        except FileNotFoundError:  # no git on this machine
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    # only a repository whose top is this folder: a source archive unpacked inside some
    # other repository must not report that repository's commit
    top = git("rev-parse", "--show-toplevel")
    sha = git("rev-parse", "HEAD") if top and Path(top).resolve() == root.resolve() else None
    if sha:
        return Commit(sha, dirty=bool(git("status", "--porcelain", "--untracked-files=no")))
    found = next((environ[name] for name in COMMIT_VARIABLES if environ.get(name)), None)
    return Commit(found, dirty=False) if found else None


def build_date(environ: dict[str, str] | None = None) -> str:
    """The build's date (UTC, ISO 8601): ``$SOURCE_DATE_EPOCH`` if set, else today.

    >>> build_date({"SOURCE_DATE_EPOCH": "1764547200"})
    '2025-12-01'
    >>> build_date({"SOURCE_DATE_EPOCH": "yesterday"})
    Traceback (most recent call last):
    ...
    ValueError: SOURCE_DATE_EPOCH='yesterday': expected whole seconds since 1970-01-01 UTC
    """
    environ = os.environ if environ is None else environ
    epoch = environ.get("SOURCE_DATE_EPOCH")
    if epoch is None:
        return dt.datetime.now(dt.UTC).date().isoformat()
    if not epoch.isdigit():
        raise ValueError(
            f"SOURCE_DATE_EPOCH={epoch!r}: expected whole seconds since 1970-01-01 UTC"
        )
    return dt.datetime.fromtimestamp(int(epoch), dt.UTC).date().isoformat()


def record_dates(folder: Path, lang: str) -> list[str]:
    """Each benchmark record in ``folder`` with the days its measurements were taken, as the
    footer shows them (``cpu-amd-epyc-2c-c8153f.json 2026-11-29``); or the words, in
    ``lang``, for none, or for records that cannot be read."""
    try:
        found = report.records(folder=folder)
    except RecordError:
        return [text("ui.records_unreadable", lang)]
    spans = [
        f"{device}.json {report.date_span(dates)}"
        for device, rec in found.items()
        if (dates := [e.provenance.date for e in rec.experiments.values() if e.status == "ok"])
    ]
    return spans or [text("ui.records_none", lang)]


def _records_folder() -> Path:
    # the folder conf.py hashes for the execution cache, and the pages read
    if os.environ.get("INFRABOOK_BENCH_DIR"):
        return Path(os.environ["INFRABOOK_BENCH_DIR"])
    return ROOT / "docs" / "_data" / "bench"


def _configure(app: Sphinx, config: Config) -> None:
    lang = config.html_context["infrabook_lang"]  # set by infrabook_i18n, which runs first
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found = commit()
    config.html_context = {
        **config.html_context,
        "infrabook_urls": project["urls"],
        "infrabook_build": {
            "version": project["version"],
            "commit": found.short if found else text("word.unknown", lang),
            "commit_sha": found.sha if found else "",
            "dirty": bool(found and found.dirty),
            "date": build_date(),
            "records": record_dates(_records_folder(), lang),
            "records_sep": text("word.list_sep", lang),
        },
    }


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _configure, priority=500)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
