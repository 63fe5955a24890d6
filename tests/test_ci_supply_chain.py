"""What CI installs and runs is pinned and reviewed (#41 M6): actions by commit, write
permissions for the deploy job alone, every nox session under the constraints files, PyTorch's
index for torch alone, and the files that define CI under CODEOWNERS."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"


def _workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def test_every_action_is_pinned_to_a_commit():
    uses = re.findall(r"uses:\s*(\S+)(.*)", WORKFLOW.read_text(encoding="utf-8"))
    assert uses
    for action, comment in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", action), action
        assert re.fullmatch(r"\s*# v\d+(\.\d+)*", comment), f"{action}: no tag comment"


def test_only_the_deploy_job_may_write():
    flow = _workflow()
    assert flow["permissions"] == {"contents": "read"}
    assert flow["jobs"]["build"]["permissions"] == {"contents": "read"}
    assert flow["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}


def test_no_extra_index_for_every_package():
    for path in (WORKFLOW, ROOT / ".readthedocs.yaml", ROOT / "README.md", ROOT / "noxfile.py"):
        text = path.read_text(encoding="utf-8")
        assert "PIP_EXTRA_INDEX_URL" not in text and "--extra-index-url" not in text, path
    runs = [step.get("run", "") for step in _workflow()["jobs"]["build"]["steps"]]
    (torch,) = [run for run in runs if "download.pytorch.org" in run]
    assert "--no-deps" in torch and '"torch==' in torch and "--index-url" in torch


def test_every_nox_install_uses_the_constraints():
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "install"
    ]
    assert len(calls) >= 8
    for call in calls:
        starred = [a.value.id for a in call.args if isinstance(a, ast.Starred)]
        assert "CONSTRAINTS" in starred, f"noxfile.py:{call.lineno} installs without them"
    constraints = ast.literal_eval(
        next(
            n.value
            for n in tree.body
            if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "CONSTRAINTS"
        )
    )
    assert constraints == ("-c", "constraints/cpu.txt", "-c", "constraints/lock.txt")


def test_the_lock_pins_each_package_once_and_nox_too():
    names = []
    for line in (ROOT / "constraints" / "lock.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            match = re.fullmatch(r"([a-z0-9-]+)==([\w.+!-]+)", line)
            assert match, line
            names.append(match.group(1))
    assert len(names) == len(set(names)) and names == sorted(names)
    assert {"nox", "ruff", "sphinx", "pytest", "playwright"} <= set(names)
    assert not {"torch", "triton"} & set(names)  # cpu.txt's, so a GPU bench keeps CUDA torch


def test_ci_and_its_inputs_have_owners():
    owned = {
        line.split()[0]
        for line in (ROOT / ".github" / "CODEOWNERS").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    }
    assert {"/README.md", "/.ci/", "/noxfile.py", "/constraints/"} <= owned
