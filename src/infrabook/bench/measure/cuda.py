"""The CUDA rig: the device, its description, its timers and the CUDA-only steps the GPU
experiments take (capture into a graph, profile, synchronise).

Each GPU experiment takes a :class:`Rig`, so that a test can dry-run the same code on CPU
tensors in Triton's interpreter by passing another. Times come from
:func:`triton.testing.do_bench`, which zeroes 256 MB before every call so that L2 holds none
of the inputs, or, "unflushed", :func:`triton.testing.do_bench_cudagraph` (back-to-back
calls in a CUDA graph: what fits in L2 stays there, so a loop can beat DRAM bandwidth).
Without CUDA each GPU experiment records a *skipped* entry with the reason.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import subprocess
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

import torch

from infrabook.bench.measure import host
from infrabook.bench.records.entry import CudaDevice
from infrabook.bench.records.timing import Timing

log = logging.getLogger("infrabook.bench")

#: Host-side API calls that submit one kernel (runtime and driver API), or a whole graph.
RUNTIME_LAUNCH_APIS = frozenset(
    {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel"}
)
LAUNCH_APIS = RUNTIME_LAUNCH_APIS | {"cuLaunchKernel", "cuLaunchKernelEx"}
GRAPH_APIS = frozenset({"cudaGraphLaunch", "cuGraphLaunch"})

Timer = Callable[[Callable[[], object]], Timing]


@dataclass(frozen=True)
class Rig:
    """Where the GPU experiments run and how they time: :func:`rig` on a real GPU."""

    device: str
    info: CudaDevice
    flushed: Timer
    unflushed: Timer
    capture: Callable[[Callable[[], Any]], Callable[[], Any]]
    profile: Callable[[Callable[[], object], int], dict[str, Any]]
    sync: Callable[[], None]


class RigError(RuntimeError):
    """The GPU rig cannot start (the kernels would not run natively)."""


def unavailable_reason() -> str | None:
    """None when a CUDA device is usable, else why not (``torch.cuda.is_available`` never
    raises: a missing or broken driver counts as no device)."""
    return None if torch.cuda.is_available() else "no CUDA device"


def _driver_version() -> str | None:
    try:
        import pynvml

        pynvml.nvmlInit()
        return str(pynvml.nvmlSystemGetDriverVersion())
    except Exception:  # no NVML package or library: ask the CUDA runtime instead
        version = getattr(torch._C, "_cuda_getDriverVersion", lambda: 0)()  # e.g. 12080
        return f"CUDA driver API {version // 1000}.{version % 1000 // 10}" if version else None


#: The clocks recorded: the static maxima (see :class:`~infrabook.bench.records.entry.CudaDevice`).
CLOCKS = ("max_sm_clock_mhz", "max_mem_clock_mhz")


def _clocks(pci_bus_id: str) -> dict[str, int | None]:
    """The GPU's highest SM and memory clocks in MHz, from NVML, else from ``nvidia-smi``;
    None where neither answers. Maxima, not the clocks now: provenance is made before the
    timed loops, when an idle GPU clocks down."""
    try:
        import pynvml

        pynvml.nvmlInit()
        h = pynvml.nvmlDeviceGetHandleByPciBusId(pci_bus_id)
        got = [
            pynvml.nvmlDeviceGetMaxClockInfo(h, pynvml.NVML_CLOCK_SM),
            pynvml.nvmlDeviceGetMaxClockInfo(h, pynvml.NVML_CLOCK_MEM),
        ]
    except Exception:  # no NVML package or library: ask nvidia-smi
        query = ["nvidia-smi", f"--id={pci_bus_id}", "--format=csv,noheader,nounits"]
        query.append("--query-gpu=clocks.max.sm,clocks.max.mem")
        try:
            answer = subprocess.run(query, capture_output=True, text=True, timeout=30, check=True)
            got = [int(v) for v in answer.stdout.split(",")]
        except (OSError, subprocess.SubprocessError, ValueError):
            got = [None] * len(CLOCKS)
    return dict(zip(CLOCKS, got, strict=True))


def gpu_info(index: int = 0) -> CudaDevice:
    """Name, driver, SM count, memory, L2 and highest clocks of the current GPU."""
    props = torch.cuda.get_device_properties(index)
    try:  # NVML's index order need not be CUDA's: name the device by its PCI address
        ids = [getattr(props, f"pci_{part}_id") for part in ("domain", "bus", "device")]
        pci: str | None = "{:08x}:{:02x}:{:02x}.0".format(*ids)
    except AttributeError:  # torch too old to say
        pci = None
    return CudaDevice(
        kind="cuda",
        name=props.name,
        driver=_driver_version(),
        sm_count=props.multi_processor_count,
        capability=f"{props.major}.{props.minor}",
        memory_bytes=props.total_memory,
        l2_bytes=getattr(props, "L2_cache_size", None),
        host_cpu=host.cpu_info().name,
        **(_clocks(pci) if pci else dict.fromkeys(CLOCKS)),
    )


@contextlib.contextmanager
def _gc_off() -> Iterator[None]:
    """The garbage collector off for the block: a Triton kernel collected while a CUDA graph
    is captured would unload its module and invalidate the graph."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def do_bench(flushed: bool, fn: Callable[[], object]) -> Timing:
    """Triton's ``do_bench`` (L2 flushed) or ``do_bench_cudagraph`` (no flush), as a
    :class:`Timing`. ``do_bench_cudagraph`` captures a graph; Triton 3.9 turns the collector
    off while it does, 3.6 does not, so it runs with the collector off here."""
    import triton.testing as tt

    q = [0.5, 0.2, 0.8]
    if flushed:
        return Timing(*(ms / 1e3 for ms in tt.do_bench(fn, warmup=25, rep=100, quantiles=q)))
    with _gc_off():
        return Timing(*(ms / 1e3 for ms in tt.do_bench_cudagraph(fn, rep=20, quantiles=q)))


def _span(e: Any) -> tuple[int, float, float]:
    return e.thread, float(e.time_range.start), float(e.time_range.end)


def _is_kernel(e: Any) -> bool:
    """Whether a profiler event is a kernel that ran on the GPU. torch 2.13's events carry
    Kineto's ``activity_type`` ("kernel", "gpu_memcpy", ...; None for events Kineto did not
    make); torch 2.11's have no such field: there a kernel is an event on the CUDA device
    that is neither a copy, a memset nor a user annotation."""
    kind = getattr(e, "activity_type", None)
    if kind is not None:
        return bool(kind == "kernel")
    on_gpu = getattr(e, "device_type", None) == torch.autograd.DeviceType.CUDA
    annotation = getattr(e, "is_user_annotation", False)
    return on_gpu and not annotation and not e.name.startswith(("Memcpy", "Memset"))


def _classify(events: Any) -> dict[str, Any]:
    """Host launches, graph launches and device kernels among profiler events. A driver-API
    launch inside a runtime-API launch on the same thread is the runtime's own call, not a
    second launch."""
    events = list(events)
    runtime = [_span(e) for e in events if e.name in RUNTIME_LAUNCH_APIS]

    def nested(e: Any) -> bool:
        thread, start, end = _span(e)
        return any(t == thread and a <= start and end <= b for t, a, b in runtime)

    apis: Counter[str] = Counter()
    kernels: Counter[str] = Counter()
    for e in events:
        if e.name in LAUNCH_APIS - RUNTIME_LAUNCH_APIS and nested(e):
            apis[f"{e.name} (inside a runtime launch, not counted)"] += 1
        elif e.name in LAUNCH_APIS | GRAPH_APIS:
            apis[e.name] += 1
        elif _is_kernel(e):
            kernels[e.name] += 1
    return {
        "host_launches": sum(n for a, n in apis.items() if a in LAUNCH_APIS),
        "graph_launches": sum(n for a, n in apis.items() if a in GRAPH_APIS),
        "kernels": kernels.total(),
        "by_api": dict(apis),
        "kernel_names": dict(kernels),
    }


def _profile_counts(fn: Callable[[], object], runs: int) -> dict[str, Any]:
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            fn()
        torch.cuda.synchronize()
    return _classify(prof.events())


def _capture(fn: Callable[[], torch.Tensor]) -> Callable[[], None]:
    """Capture ``fn`` (one FFN run on static inputs) into a CUDA graph; return its replay."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    # torch.cuda.graph collects before capturing but leaves the collector on
    with _gc_off(), torch.cuda.graph(graph):
        fn()
    return graph.replay


def check_native() -> None:
    """:class:`RigError` (one line) when a CUDA device is present but the kernels were
    decorated in Triton's interpreter (``TRITON_INTERPRET`` set before they were imported):
    they would run one program at a time on the CPU, for hours, and time nothing."""
    if unavailable_reason() is None:
        from infrabook.kernels import INTERPRETED

        if INTERPRETED:
            raise RigError(
                "a CUDA device is present but TRITON_INTERPRET is set, so the kernels would "
                "run in Triton's interpreter: unset TRITON_INTERPRET and start again"
            )


def rig() -> Rig:
    """The current CUDA device with Triton's timers (after :func:`check_native`)."""
    check_native()
    try:  # the profiler must be initialised before a capture for captured kernels to show
        from torch.profiler._utils import _init_for_cuda_graphs

        _init_for_cuda_graphs()
    except Exception:  # pragma: no cover - private helper moved
        log.warning("torch.profiler._utils._init_for_cuda_graphs is gone: see gpu_graphs counts")
    timers = partial(do_bench, True), partial(do_bench, False)
    return Rig("cuda", gpu_info(), *timers, _capture, _profile_counts, torch.cuda.synchronize)


def bf16(rig: Rig, *shape: int, n: int = 2) -> tuple[torch.Tensor, ...]:
    """``n`` seeded bf16 inputs of one shape."""
    gen = torch.Generator(device=rig.device).manual_seed(0)
    kw: dict[str, Any] = {"device": rig.device, "dtype": torch.bfloat16, "generator": gen}
    return tuple(torch.randn(*shape, **kw) for _ in range(n))
