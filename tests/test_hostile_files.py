"""Files a contributor sends (conf files, benchmark records, their names) run no code, hang
nothing and print nothing raw: each hostile file is refused with one line naming it, at once.

Each test reproduces a finding of the security review of 2026-12-04 (shared/reviews); the
timeouts make a hang a failure rather than a stuck test session.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from infrabook import config

ROOT = Path(__file__).resolve().parents[1]


def _conf_copy(tmp_path: Path) -> Path:
    conf = tmp_path / "conf"
    shutil.copytree(ROOT / "conf", conf)
    return conf


def _cli(conf: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"INFRABOOK_CONF": str(conf)}
    return subprocess.run(
        [sys.executable, "-m", "infrabook", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=50,
    )


class _Payload:
    """Unpickling this writes a marker file: proof that a pickle's code ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (exec, (f"open({str(self.marker)!r}, 'w').write('ran')",))


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", [config.PICKLE_SUFFIXES[0], ".pkl"])
def test_a_pickle_in_the_conf_folder_is_refused_not_loaded(tmp_path, monkeypatch, name):
    """H1: a pickle beside the TOML files once ran its code in every call; now it is refused
    by name, in one line, and never opened."""
    conf = _conf_copy(tmp_path)
    marker = tmp_path / "pwned.txt"
    stray = conf / f"typed{name}"
    stray.write_bytes(pickle.dumps(_Payload(marker)))
    monkeypatch.setenv("INFRABOOK_CONF", str(conf))
    with pytest.raises(config.ConfError) as err:
        config.check_all()
    assert str(err.value).startswith(f"{stray}: a pickle in the conf folder: ")
    assert "\n" not in str(err.value)
    proc = _cli(conf, "fusion")
    assert proc.returncode == 2 and not proc.stdout
    assert proc.stderr.count("\n") == 1 and str(stray) in proc.stderr
    assert not marker.exists()


def test_git_ignores_a_conf_pickle():
    found = subprocess.run(
        ["git", "check-ignore", "--no-index", "conf/typed.pickle"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert found.stdout.strip() == "conf/typed.pickle"


def _hostile(kind: str, path: Path, tmp_path: Path) -> None:
    """Make ``path`` the hostile file of ``kind``."""
    if kind == "link to /dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "link to a file":
        real = tmp_path / f"real-{path.name}"
        real.write_bytes(b"")
        path.symlink_to(real)
    else:  # oversized: a sparse file of 64 MiB, more than any limit here
        with path.open("wb") as f:
            f.truncate(64 << 20)


HOSTILE = ["link to /dev/zero", "fifo", "link to a file", "oversized"]
WHY = {
    "link to /dev/zero": "is a symbolic link: expected ",
    "fifo": "is not a file: expected ",
    "link to a file": "is a symbolic link: expected ",
    "oversized": "bytes, more than the ",
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_conf_file_is_refused_at_once(tmp_path, kind):
    """M2: a conf file linked to /dev/zero read until memory ran out, a FIFO hung every
    command; each is refused in one line naming the file, in well under the timeout."""
    conf = _conf_copy(tmp_path)
    target = conf / "claims.toml"
    target.unlink()
    _hostile(kind, target, tmp_path)
    proc = _cli(conf, "fusion")
    assert proc.returncode == 2 and not proc.stdout, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert f"{target}: " in proc.stderr and WHY[kind] in proc.stderr


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_record_is_refused_at_once(tmp_path, kind):
    """M2: a record linked to /proc/kmsg hung compare, --merge and the build (as root); each
    hostile record file is refused with one RecordError line, in a child with a timeout."""
    path = tmp_path / "cpu-x-000000.json"
    _hostile(kind, path, tmp_path)
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from infrabook.bench.records.store import RecordError, read\n"
        "try:\n"
        "    read(Path(sys.argv[1]))\n"
        "except RecordError as err:\n"
        "    print(err)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=50
    )
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    assert proc.stdout.count("\n") == 1
    assert proc.stdout.startswith(f"benchmark record {path}: ") and WHY[kind] in proc.stdout


BOOK_RECORD = ROOT / "docs" / "_data" / "bench" / "cpu-amd-epyc-2c-c8153f.json"
# a window title, a cleared screen, a reversed line: what a raw message would do to a terminal
ESCAPES = ["\x1b]0;pwned\x07\x1b[2J", "\x1b[31mred\x1b[0m", "abc\u202edcba"]


def _unprintable(text: str) -> list[str]:
    return [c for c in text if not c.isprintable()]


@pytest.mark.parametrize("hostile", ESCAPES)
def test_a_record_key_is_quoted_escaped(tmp_path, hostile):
    """M3: the validator's refusal quoted a hostile key raw (ESC, U+202E)."""
    from infrabook.bench.records.store import RecordError, read

    data = json.loads(BOOK_RECORD.read_text(encoding="utf-8"))
    paths = data["experiments"]["fusion"]["results"]["paths"]
    paths[hostile] = paths.pop(next(iter(paths)))
    path = tmp_path / BOOK_RECORD.name
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RecordError) as err:
        read(path)
    assert not _unprintable(str(err.value))
    assert repr(hostile)[1:-1] in str(err.value)


@pytest.mark.parametrize("hostile", ESCAPES)
def test_a_record_file_name_is_quoted_escaped(tmp_path, hostile):
    """M3: a file name in the records folder set the window title and cleared the screen."""
    from infrabook.bench.records.store import RecordError, read

    path = tmp_path / f"{hostile}x.json"
    shutil.copyfile(BOOK_RECORD, path)
    with pytest.raises(RecordError) as err:
        read(path)
    assert not _unprintable(str(err.value))
    assert f"{repr(hostile)[1:-1]}x.json" in str(err.value)


@pytest.mark.timeout(120)
def test_compare_prints_a_hostile_file_name_escaped(tmp_path):
    """The review's reproduction: compare, with a hostile file name among the book's records."""
    book = tmp_path / "book"
    book.mkdir()
    shutil.copyfile(BOOK_RECORD, book / f"{ESCAPES[0]}x.json")
    proc = subprocess.run(
        [sys.executable, "-m", "infrabook.bench", "compare", "--book", str(book), str(BOOK_RECORD)],
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert not _unprintable(proc.stderr.rstrip("\n")) and "\\x1b]0;pwned\\x07" in proc.stderr


def test_nothing_is_committed_under_the_build_folder():
    """measured_once reads back pickles from the build's cache under docs/_build, which only
    the build writes; a pull request could still force-add a file there (git add -f), which a
    clean clone would then unpickle. Nothing under docs/_build is ever tracked."""
    tracked = subprocess.run(
        ["git", "ls-files", "docs/_build"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert tracked.stdout == ""
