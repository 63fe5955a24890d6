"""Fixtures shared by the test modules."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.fixture
def docs_script() -> Callable[[str], ModuleType]:
    """Loads one of the site's check scripts in docs/ (``check_links`` ...) as a module:
    they are scripts beside the pages, not part of the package."""

    def load(name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, DOCS / f"{name}.py")
        assert spec is not None and spec.loader is not None, name
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load


@pytest.fixture
def mystnb_page() -> Callable[[str], str]:
    """A MyST-NB page made of ``body``: the front matter that has its cells executed."""
    return lambda body: "---\nfile_format: mystnb\nkernelspec:\n  name: python3\n---\n\n" + body
