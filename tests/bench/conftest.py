"""Every benchmark test writes its records under a temporary folder, never docs/_data."""

from __future__ import annotations

import pytest

from infrabook.bench import cuda, host
from infrabook.bench.timing import Timing


@pytest.fixture(autouse=True)
def bench_dir(tmp_path, monkeypatch):
    """Records go to a fresh folder; the CPU-load sampling (a sleep) is skipped."""
    folder = tmp_path / "bench"
    monkeypatch.setenv("INFRABOOK_BENCH_DIR", str(folder))
    monkeypatch.setattr(host.psutil, "cpu_percent", lambda interval: 0.0)
    return folder


@pytest.fixture
def dry():
    """A rig that runs the GPU experiments' own code on CPU tensors through Triton's
    interpreter, with the CUDA-only steps (timers, capture, profiler, sync) replaced."""
    from infrabook.kernels import INTERPRETED

    if not INTERPRETED:
        pytest.skip("a real GPU is present: the dry run is for CPU-only machines")
    info = {
        "kind": "cuda",
        "name": "NVIDIA H200",
        "driver": "dry",
        "sm_count": 2,
        "capability": "9.0",
        "memory_bytes": 1,
        "l2_bytes": 4096,
        "host_cpu": "dry",
    }

    def timing(fn):
        fn()
        return Timing(1e-3, 9e-4, 1.1e-3)

    def profile(fn, runs):
        return {
            "host_launches": runs,
            "graph_launches": 0,
            "kernels": runs,
            "by_api": {},
            "kernel_names": {},
        }

    return cuda.Rig("cpu", info, timing, timing, lambda fn: fn, profile, lambda: None)
