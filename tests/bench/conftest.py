"""Every benchmark test writes its records under a temporary folder, never docs/_data."""

from __future__ import annotations

import sys
import types

import pytest
import torch

from infrabook.bench.measure import cuda, host
from infrabook.bench.records.entry import CudaDevice
from infrabook.bench.records.timing import Timing


@pytest.fixture(autouse=True)
def bench_dir(tmp_path, monkeypatch):
    """Records go to a fresh folder; the CPU-load sampling (a sleep) is skipped."""
    folder = tmp_path / "bench"
    monkeypatch.setenv("INFRABOOK_BENCH_DIR", str(folder))
    monkeypatch.setattr(host.psutil, "cpu_percent", lambda interval: 0.0)
    return folder


def gpu_properties(name: str = "NVIDIA H200", sms: int = 2) -> types.SimpleNamespace:
    """What ``torch.cuda.get_device_properties`` says of a GPU (an H200's, SMs cut down)."""
    return types.SimpleNamespace(
        name=name,
        multi_processor_count=sms,
        major=9,
        minor=0,
        total_memory=150109880320,
        L2_cache_size=4096,
        pci_domain_id=0,
        pci_bus_id=0x1B,
        pci_device_id=0,
    )


def fake_nvml(driver: str = "580.159.04") -> types.SimpleNamespace:
    """An NVML module that answers like an H200's driver."""
    return types.SimpleNamespace(
        nvmlInit=lambda: None,
        nvmlSystemGetDriverVersion=lambda: driver,
        nvmlDeviceGetHandleByPciBusId=lambda bus_id: "handle",
        NVML_CLOCK_SM=1,
        NVML_CLOCK_MEM=2,
        nvmlDeviceGetClockInfo=lambda h, kind: {1: 345, 2: 3201}[kind],
        nvmlDeviceGetMaxClockInfo=lambda h, kind: {1: 1980, 2: 3201}[kind],
    )


@pytest.fixture
def fake_gpu(monkeypatch):
    """The GPU's hardware faked (torch's device properties and NVML), never its producer:
    :func:`infrabook.bench.measure.cuda.gpu_info` describes it."""
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: gpu_properties())
    monkeypatch.setitem(sys.modules, "pynvml", fake_nvml())
    return cuda.gpu_info()


@pytest.fixture
def gpu_named(fake_gpu, monkeypatch):
    """The faked GPU under another name, as :func:`infrabook.bench.measure.cuda.gpu_info` says."""

    def describe(name: str) -> CudaDevice:
        props = gpu_properties(name)
        monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: props)
        return cuda.gpu_info()

    return describe


@pytest.fixture
def dry(fake_gpu):
    """A rig that runs the GPU experiments' own code on CPU tensors through Triton's
    interpreter, with the CUDA-only steps (timers, capture, profiler, sync) replaced; its
    device is what :func:`infrabook.bench.measure.cuda.gpu_info` says of a faked H200."""
    from infrabook.kernels import INTERPRETED

    if not INTERPRETED:
        pytest.skip("a real GPU is present: the dry run is for CPU-only machines")

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

    return cuda.Rig("cpu", fake_gpu, timing, timing, lambda fn: fn, profile, lambda: None)


@pytest.fixture
def no_git(tmp_path, monkeypatch):
    """A copied tree: the package in a folder that no git checkout encloses."""
    package = tmp_path / "src" / "infrabook"
    package.mkdir(parents=True)
    monkeypatch.setattr(host, "PACKAGE_DIR", package)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    monkeypatch.delenv("INFRABOOK_COMMIT", raising=False)
    host.git_info.cache_clear()
    yield tmp_path
    host.git_info.cache_clear()
