"""Files a contributor sends (conf files, benchmark records, their names) run no code, hang
nothing and print nothing raw: each hostile file is refused with one line naming it, at once.

Each test reproduces a finding of the security review of 2026-12-04 (shared/reviews); the
timeouts make a hang a failure rather than a stuck test session.
"""

from __future__ import annotations

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

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (Path.write_text, (str(self.marker), "ran"))  # type: ignore[return-value]


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
