"""Fixtures shared by the test modules."""

from __future__ import annotations

from collections.abc import Callable

import pytest


@pytest.fixture
def mystnb_page() -> Callable[[str], str]:
    """A MyST-NB page made of ``body``: the front matter that has its cells executed."""
    return lambda body: "---\nfile_format: mystnb\nkernelspec:\n  name: python3\n---\n\n" + body
