"""CI runs the README's two commands as written: what .ci/run extracts is exactly the
README's marked block, and those commands never call pip outside a virtual environment."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def _module():
    spec = importlib.util.spec_from_file_location(
        "readme_commands", ROOT / ".ci" / "readme_commands.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


readme_commands = _module().readme_commands


def _block_by_hand() -> list[str]:
    """The README's marked block, found independently of the extractor."""
    text = README.read_text(encoding="utf-8")
    match = re.search(r"<!-- ci: readme-commands -->\n```bash\n(.*?)\n```\n", text, re.S)
    assert match, "the README has no marked bash block"
    return match.group(1).splitlines()


def test_extraction_is_exactly_the_readme_block():
    assert readme_commands(README.read_text(encoding="utf-8")) == _block_by_hand()


def test_ci_runs_what_the_extractor_prints():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'commands="$(python3 .ci/readme_commands.py README.md)"' in ci
    assert 'bash -euo pipefail -c "$commands"' in ci
    out = subprocess.run(
        [sys.executable, ".ci/readme_commands.py", "README.md"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.splitlines() == _block_by_hand()


def test_the_commands_work_under_an_externally_managed_python():
    first, second = _block_by_hand()
    # PEP 668: a distribution's python3 refuses `python3 -m pip install`; only the venv's
    # pip and nox may be used.
    assert first.startswith(
        "python3 -m venv .venv && .venv/bin/pip install -c constraints/lock.txt nox && "
    )
    assert "python3 -m pip" not in first + second
    for line in (first, second):
        runners = re.findall(r"(\S*)nox -s", line.partition("#")[0])
        assert runners == [".venv/bin/"], line
    assert "-s docs" in first and "-s tests" in second


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no marker here\n", "found it 0 times"),
        (
            "<!-- ci: readme-commands -->\n```bash\na\n```\n<!-- ci: readme-commands -->\n",
            "found it 2 times",
        ),
        ("<!-- ci: readme-commands -->\nprose\n", "expected a ``` code block"),
        ("<!-- ci: readme-commands -->\n```bash\na\n", "never closed"),
        ("<!-- ci: readme-commands -->\n```bash\n\n```\n", "is empty"),
    ],
)
def test_a_broken_block_is_an_error(text, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        readme_commands(text)


def test_the_script_exits_2_with_one_line(tmp_path):
    bad = tmp_path / "README.md"
    bad.write_text("# nothing marked\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(ROOT / ".ci" / "readme_commands.py"), str(bad)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and not proc.stdout
