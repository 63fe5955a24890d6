"""Every benchmark test writes its records under a temporary folder, never docs/_data."""

from __future__ import annotations

import pytest

from infrabook.bench import host


@pytest.fixture(autouse=True)
def bench_dir(tmp_path, monkeypatch):
    """Records go to a fresh folder; the CPU-load sampling (a sleep) is skipped."""
    folder = tmp_path / "bench"
    monkeypatch.setenv("INFRABOOK_BENCH_DIR", str(folder))
    monkeypatch.setattr(host.psutil, "cpu_percent", lambda interval: 0.0)
    return folder
