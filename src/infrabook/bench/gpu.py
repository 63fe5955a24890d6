"""The GPU experiments: fused SwiGLU, FlashAttention, CUDA graph replay, persistent kernel.

Without CUDA each records a *skipped* entry with the reason. Each takes a :class:`Rig` (the
device, its description, the timers, the CUDA-only steps), so that a test can dry-run the
same code on CPU tensors in Triton's interpreter by passing another. Times come from
:func:`triton.testing.do_bench`, which zeroes 256 MB before every call so that L2 holds none
of the inputs, or, "unflushed", :func:`triton.testing.do_bench_cudagraph` (back-to-back
calls in a CUDA graph: what fits in L2 stays there, so a loop can beat DRAM bandwidth).
"""

from __future__ import annotations

import contextlib
import gc
import re
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import torch

from infrabook import config
from infrabook.attention_sizes import attention_flop
from infrabook.bench import host
from infrabook.bench.dispatch import FFN
from infrabook.bench.experiment import Measured, experiment, log, table
from infrabook.bench.record import Results, Target
from infrabook.bench.timing import Timing
from infrabook.checks import check_sizes
from infrabook.dataflow import account, fully_fused, unfused
from infrabook.ffn_chain import activation_chain
from infrabook.labels import text
from infrabook.launches import article_launch_counts
from infrabook.tables import Table
from infrabook.units import MiB

#: Host-side API calls that submit one kernel (runtime and driver API), or a whole graph.
RUNTIME_LAUNCH_APIS = frozenset(
    {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel"}
)
LAUNCH_APIS = RUNTIME_LAUNCH_APIS | {"cuLaunchKernel", "cuLaunchKernelEx"}
GRAPH_APIS = frozenset({"cudaGraphLaunch", "cuGraphLaunch"})

_CHAIN = config.scenarios().ffn_chain

Timer = Callable[[Callable[[], object]], Timing]


@dataclass(frozen=True)
class Rig:
    """Where the GPU experiments run and how they time: :func:`rig` on a real GPU."""

    device: str
    info: dict[str, Any]
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


CLOCKS = ("sm_clock_mhz", "max_sm_clock_mhz", "mem_clock_mhz")


def _clocks(pci_bus_id: str) -> dict[str, int | None]:
    """The GPU's SM clock now and at most, and its memory clock, in MHz, from NVML, else
    from ``nvidia-smi``; None where neither answers. A clock below the maximum while idle is
    normal; one far below it in a record taken under load means the GPU was throttled."""
    try:
        import pynvml

        pynvml.nvmlInit()
        h = pynvml.nvmlDeviceGetHandleByPciBusId(pci_bus_id)
        sm, mem = pynvml.NVML_CLOCK_SM, pynvml.NVML_CLOCK_MEM
        got = [
            pynvml.nvmlDeviceGetClockInfo(h, sm),
            pynvml.nvmlDeviceGetMaxClockInfo(h, sm),
            pynvml.nvmlDeviceGetClockInfo(h, mem),
        ]
    except Exception:  # no NVML package or library: ask nvidia-smi
        query = ["nvidia-smi", f"--id={pci_bus_id}", "--format=csv,noheader,nounits"]
        query.append("--query-gpu=clocks.sm,clocks.max.sm,clocks.mem")
        try:
            answer = subprocess.run(query, capture_output=True, text=True, timeout=30, check=True)
            got = [int(v) for v in answer.stdout.split(",")]
        except (OSError, subprocess.SubprocessError, ValueError):
            got = [None] * len(CLOCKS)
    return dict(zip(CLOCKS, got, strict=True))


def gpu_info(index: int = 0) -> dict[str, Any]:
    """Name, driver, SM count, memory, L2 and clocks of the current GPU."""
    props = torch.cuda.get_device_properties(index)
    try:  # NVML's index order need not be CUDA's: name the device by its PCI address
        ids = [getattr(props, f"pci_{part}_id") for part in ("domain", "bus", "device")]
        pci: str | None = "{:08x}:{:02x}:{:02x}.0".format(*ids)
    except AttributeError:  # torch too old to say
        pci = None
    return {
        "kind": "cuda",
        "name": props.name,
        "driver": _driver_version(),
        "sm_count": props.multi_processor_count,
        "capability": f"{props.major}.{props.minor}",
        "memory_bytes": props.total_memory,
        "l2_bytes": getattr(props, "L2_cache_size", None),
        "host_cpu": host.cpu_info()["name"],
    } | (_clocks(pci) if pci else dict.fromkeys(CLOCKS))


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


def profile_for(name: str) -> config.Device | None:
    """The ``conf/hardware.toml`` profile whose ``cuda_names`` match the GPU called ``name``.

    >>> profile_for("NVIDIA H100 80GB HBM3").key, profile_for("NVIDIA H100 PCIe")
    ('h100_sxm', None)
    """
    short = name.strip().removeprefix("NVIDIA ").strip()
    profiles = config.devices().values()
    return next((d for d in profiles if any(re.fullmatch(p, short) for p in d.cuda_names)), None)


def _bf16(rig: Rig, *shape: int, n: int = 2) -> tuple[torch.Tensor, ...]:
    """``n`` seeded bf16 inputs of one shape."""
    gen = torch.Generator(device=rig.device).manual_seed(0)
    kw: dict[str, Any] = {"device": rig.device, "dtype": torch.bfloat16, "generator": gen}
    return tuple(torch.randn(*shape, **kw) for _ in range(n))


# --------------------------------------------------------------------------- SwiGLU


def _silu_mul(g: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.silu(g) * u


MODES = ("flushed", "unflushed")


@dataclass(frozen=True)
class SwigluPath:
    """One implementation at one shape: modelled bytes, error, and both timings."""

    model_bytes: int
    max_abs_err_vs_fp32: float
    flushed: Timing
    unflushed: Timing

    def gb_s(self, mode: str) -> float:
        """Model bytes over the median time, L2 ``flushed`` or ``unflushed``."""
        return getattr(self, mode).gb_s(self.model_bytes)


@dataclass(frozen=True)
class SwigluShape:
    """The three implementations and the ``copy`` of the fused path's bytes at one shape,
    and whether the fused working set fits L2."""

    rows: int
    cols: int
    fits_l2: bool
    paths: dict[str, SwigluPath]

    def pct_copy(self, path: SwigluPath, mode: str) -> float:
        """A path's GB/s as a percentage of the copy's at this shape, both L2 ``flushed``
        or both ``unflushed``: the same bytes, the same timer, the same L2 state."""
        return 100 * path.gb_s(mode) / self.paths["copy"].gb_s(mode)


@dataclass(frozen=True)
class SwigluResults(Results):
    """Each shape."""

    shapes: tuple[SwigluShape, ...]

    def compared(
        self, params: dict[str, Any], device: dict[str, Any]
    ) -> dict[str, tuple[float | None, float | None]]:
        """Each path's bandwidth as a share of the copy's at each shape, L2 flushed and not
        (model: 100 %, every path moving its modelled bytes at copy bandwidth)."""
        rows: dict[str, tuple[float | None, float | None]] = {}
        for s in self.shapes:
            for name, p in s.paths.items():
                for mode in MODES if name != "copy" else ():
                    what = f"[{s.rows}, {s.cols}] {name} · {text(f'bench.l2.{mode}')}"
                    rows[text("bench.cmp.pct_copy", what=what)] = (100.0, s.pct_copy(p, mode))
        return rows

    def tables(self, params: dict[str, Any], device: dict[str, Any]) -> list[Table]:
        """One row per shape, path and L2 mode."""
        rows = (
            (f"[{s.rows}, {s.cols}]", name, text(f"bench.l2.{mode}"), p.model_bytes / MiB)
            + (getattr(p, mode).us, p.gb_s(mode), s.pct_copy(p, mode))
            + (s.fits_l2,)
            for s in self.shapes
            for name, p in s.paths.items()
            for mode in MODES
        )
        keys = "shape path l2 model_mib median_us gb_s pct_copy fits_l2"
        return [table(text("bench.swiglu.table"), keys, rows)]


_SWIGLU_SHAPES = [(_CHAIN.rows, _CHAIN.cols), (_CHAIN.rows // 4, _CHAIN.cols)]


@experiment(
    "gpu_swiglu",
    "cuda",
    SwigluResults,
    full={"shapes": _SWIGLU_SHAPES},
    quick={"shapes": _SWIGLU_SHAPES},
    limit_s=90,
)
def gpu_swiglu(rig: Rig, shapes: list[tuple[int, int]]) -> Measured:
    """Fused Triton SwiGLU vs the unfused Triton pair vs torch eager, bf16.

    At the article's shape ([1024, 12288], 72 MiB fused working set) and at a quarter of
    its rows (18 MiB: fits any recent GPU's L2), each timed with the L2 flushed and in an
    unflushed CUDA-graph loop; beside them, timed the same two ways, a device copy that
    reads and writes the fused path's bytes: after a flush the dirty lines written back
    during a short kernel weigh as much in the copy, so the ratio compares like with like.
    """
    from infrabook.kernels import swiglu, swiglu_unfused

    if not shapes:
        raise ValueError("shapes must name at least one (rows, cols), got none")
    measured = []
    for rows, cols in shapes:
        g, u = _bf16(rig, rows, cols)
        graph = activation_chain(rows, cols, "bf16")
        fused_b, unfused_b = (account(graph, p(graph)).traffic for p in (fully_fused, unfused))
        (src,) = _bf16(rig, fused_b // 4, n=1)  # bf16: half the bytes read, half written
        dst = torch.empty_like(src)
        ref = _silu_mul(g.float(), u.float())
        paths: dict[str, tuple[Callable[[], torch.Tensor], int]] = {
            "triton_fused": (partial(swiglu, g, u), fused_b),
            "triton_unfused": (partial(swiglu_unfused, g, u), unfused_b),
            "torch_eager": (partial(_silu_mul, g, u), unfused_b),
        }
        timed = {}
        for name, (fn, model_bytes) in paths.items():
            log.info("gpu_swiglu: [%d, %d] %s: flushed, then unflushed ...", rows, cols, name)
            err = (fn().float() - ref).abs().max().item()
            timed[name] = SwigluPath(model_bytes, err, rig.flushed(fn), rig.unflushed(fn))
        copy = partial(dst.copy_, src)
        copy_err = (copy().float() - src.float()).abs().max().item()
        timed["copy"] = SwigluPath(2 * src.nbytes, copy_err, rig.flushed(copy), rig.unflushed(copy))
        l2 = rig.info["l2_bytes"]
        measured.append(SwigluShape(rows, cols, l2 is not None and fused_b <= l2, timed))
    results = SwigluResults(tuple(measured))
    fused_pct = measured[0].pct_copy(measured[0].paths["triton_fused"], "flushed")
    return Measured(
        results,
        (Target("gpu_fused_swiglu_bandwidth", fused_pct),),
        {"dtype": "bf16"},
    )


# ---------------------------------------------------------------------- FlashAttention


@dataclass(frozen=True)
class FlashRow:
    """The Triton kernel and SDPA at one sequence length."""

    seq_len: int
    batch: int
    flop: int
    max_abs_diff_vs_sdpa: float
    flash: Timing
    sdpa: Timing
    sdpa_backend: str

    def tflop_s(self, kernel: str) -> float:
        """TFLOP/s of ``flash`` or ``sdpa``."""
        return self.flop / getattr(self, kernel).median_s / 1e12

    @property
    def ratio(self) -> float:
        """Triton's throughput over SDPA's."""
        return self.tflop_s("flash") / self.tflop_s("sdpa")


@dataclass(frozen=True)
class FlashResults(Results):
    """One row per sequence length."""

    per_seq_len: tuple[FlashRow, ...]

    def compared(
        self, params: dict[str, Any], device: dict[str, Any]
    ) -> dict[str, tuple[float | None, float | None]]:
        """By L: Triton's TFLOP/s as a share of the GPU's bf16 datasheet peak (model: 100 %,
        the roofline's ceiling for a compute-bound kernel; only for a GPU ``conf/`` has a
        profile of) and Triton's throughput over SDPA's, without a model."""
        spec = profile_for(device["name"])
        peak = spec.bf16_dense_tflops.value if spec else None
        rows: dict[str, tuple[float | None, float | None]] = {}
        for r in self.per_seq_len:
            if peak:
                rows[text("bench.cmp.pct_peak_at", L=r.seq_len)] = (
                    100.0,
                    100 * r.tflop_s("flash") / peak,
                )
            rows[text("bench.cmp.vs_sdpa", L=r.seq_len)] = (None, r.ratio)
        return rows

    def tables(self, params: dict[str, Any], device: dict[str, Any]) -> list[Table]:
        """Times, rates and their ratio by L, with the share of the bf16 peak that
        ``conf/hardware.toml`` gives for this GPU (none for a GPU it has no profile of)."""
        spec = profile_for(device["name"])
        peak = spec.bf16_dense_tflops.value if spec else None
        rows = (
            (r.seq_len, r.batch, r.flash.ms, r.tflop_s("flash"), r.sdpa.ms, r.tflop_s("sdpa"))
            + (r.sdpa_backend, r.ratio, 100 * r.tflop_s("flash") / peak if peak else None)
            + (r.max_abs_diff_vs_sdpa,)
            for r in self.per_seq_len
        )
        keys = "seq_len batch triton_ms triton_tflops sdpa_ms sdpa_tflops sdpa_backend"
        title = text("bench.flash.table", d=params["head_dim"], heads=params["heads"])
        return [table(title, keys + " triton_vs_sdpa pct_datasheet max_diff_sdpa", rows)]


def sdpa_backend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> str:
    """The backend ``scaled_dot_product_attention`` picks for these inputs, as
    :class:`torch.nn.attention.SDPBackend` names it: on sm_90 recent torch tries cuDNN
    attention (``CUDNN_ATTENTION``, a FlashAttention-3-class kernel) before
    ``FLASH_ATTENTION`` (FlashAttention-2), so the baseline depends on the machine.

    >>> q = torch.ones(1, 1, 4, 8)
    >>> sdpa_backend(q, q, q) in torch.nn.attention.SDPBackend.__members__
    True
    """
    from torch.nn.attention import SDPBackend

    return SDPBackend(torch._fused_sdp_choice(q, k, v)).name


_FLASH = {"heads": 16, "tokens": 16384, "head_dim": 128}


@experiment(
    "gpu_flash",
    "cuda",
    FlashResults,
    full={"seq_lens": (1024, 2048, 4096, 8192, 16384), **_FLASH},
    quick={"seq_lens": (1024, 8192), **_FLASH},  # 8192: the target's length
    limit_s=150,
)
def gpu_flash(
    rig: Rig, seq_lens: Sequence[int], heads: int, tokens: int, head_dim: int
) -> Measured:
    """Forward TFLOP/s of the Triton FlashAttention against ``scaled_dot_product_attention``.

    bf16, not causal, batch = tokens / L (at least 1), so each size processes about the same
    number of tokens. FLOP = 4 * batch * heads * L^2 * d.
    """
    from infrabook.kernels import flash_attention

    sdpa: Callable[..., torch.Tensor] = torch.nn.functional.scaled_dot_product_attention
    flash: Callable[..., Any] = flash_attention
    if profile_for(rig.info["name"]) is None:
        log.warning(
            "gpu_flash: conf/hardware.toml has no profile of %s: no %% of peak", rig.info["name"]
        )
    per_len = []
    for n in check_sizes("seq_lens", seq_lens):
        batch = max(1, tokens // n)
        log.info("gpu_flash: L=%d, batch=%d, heads=%d, d=%d ...", n, batch, heads, head_dim)
        q, k, v = _bf16(rig, batch, heads, n, head_dim, n=3)
        diff = (flash(q, k, v).float() - sdpa(q, k, v).float()).abs().max().item()
        flop = batch * heads * attention_flop(n, head_dim)
        flash_t, sdpa_t = (rig.flushed(partial(f, q, k, v)) for f in (flash, sdpa))
        per_len.append(FlashRow(n, batch, flop, diff, flash_t, sdpa_t, sdpa_backend(q, k, v)))
    return Measured(
        FlashResults(tuple(per_len)),
        (Target.at_seq_len("gpu_flash_vs_sdpa_8192", per_len, lambda r: r.ratio),),
        {"dtype": "bf16", "causal": False},
    )


# ------------------------------------------------------------------------ CUDA graphs


@dataclass(frozen=True)
class Submissions:
    """What the profiler saw of one configuration's runs, and the host's time for them."""

    host_launches: int
    graph_launches: int
    kernels: int
    by_api: dict[str, int]
    kernel_names: dict[str, int]
    issue: Timing
    total: Timing

    @property
    def undercounted(self) -> bool:
        """Without a graph every kernel is one host launch: fewer launches than kernels
        means the profiler missed a launch API (Triton 3.6 launches through
        ``cuLaunchKernelEx``, which some profiler versions do not report); ``by_api``
        shows which calls it did see."""
        return self.graph_launches == 0 and self.host_launches != self.kernels


@dataclass(frozen=True)
class GraphResults(Results):
    """``eager``, ``graph``, ``fused`` and ``fused+graph``, in that order."""

    configs: dict[str, Submissions]

    def compared(
        self, params: dict[str, Any], device: dict[str, Any]
    ) -> dict[str, tuple[float | None, float | None]]:
        """Host submissions and kernels run per configuration, beside the article's counts."""
        a = {c.name: c for c in article_launch_counts()}
        rows: dict[str, tuple[float | None, float | None]] = {}
        for n, c in self.configs.items():
            host = c.host_launches + c.graph_launches
            rows[text("bench.cmp.host", what=n)] = (a[n].host_submissions, host)
            rows[text("bench.cmp.kernels", what=n)] = (a[n].kernels, c.kernels)
        return rows

    def tables(self, params: dict[str, Any], device: dict[str, Any]) -> list[Table]:
        """Counts and host times beside the article's counts."""
        a = {c.name: c for c in article_launch_counts()}
        rows = (
            (n, c.host_launches, c.graph_launches, c.kernels, a[n].host_submissions)
            + (a[n].kernels, c.issue.us, c.total.us)
            for n, c in self.configs.items()
        )
        keys = "configuration host_launches graph_launches device_kernels article_host"
        title = text("bench.graphs.table", runs=params["runs"])
        return [table(title, keys + " article_kernels issue_us total_us", rows)]


def _host_time(
    fn: Callable[[], object], runs: int, reps: int, sync: Callable[[], None]
) -> tuple[Timing, Timing]:
    """Seconds to *issue* ``runs`` calls (host side) and to finish them (with a sync)."""
    issue, total = [], []
    for rep in range(-5, reps):  # five untimed warm-ups first
        t0 = time.perf_counter()
        for _ in range(runs):
            fn()
        t1 = time.perf_counter()
        sync()
        if rep >= 0:
            issue.append(t1 - t0)
            total.append(time.perf_counter() - t0)
    return Timing.of(issue), Timing.of(total)


_FFN = {"rows": 64, "d_model": 1024, "d_ff": 4096}


@experiment(
    "gpu_graphs",
    "cuda",
    GraphResults,
    full=_FFN | {"reps": 100},
    quick=_FFN | {"reps": 20},
    limit_s=60,
)
def gpu_graphs(rig: Rig, rows: int, d_model: int, d_ff: int, reps: int) -> Measured:
    """Three FFN runs eager, replayed from a CUDA graph, fused, fused and replayed.

    Counts come from ``torch.profiler``: host events ``cudaLaunchKernel`` (and the other
    launch calls, driver API included, which Triton uses) against ``cudaGraphLaunch``, and
    device kernel events. A small FFN (64 rows, d_model 1024, d_ff 4096, bf16) keeps the
    kernels short, so host submission is visible in the times.
    """
    from infrabook.kernels import swiglu

    runs = config.scenarios().graph_replay.runs
    ffn = FFN(rows, d_model, d_ff, dtype=torch.bfloat16, device=rig.device)
    eager, fused = partial(ffn, ffn.x, fused=False), partial(ffn, ffn.x, fused=True, swiglu=swiglu)
    log.info("gpu_graphs: capturing graphs ...")
    configs: dict[str, Callable[[], object]] = {"eager": eager, "graph": rig.capture(eager)}
    configs["fused"] = fused
    configs["fused+graph"] = rig.capture(fused)
    results = {}
    for name, fn in configs.items():
        log.info("gpu_graphs: %s: profiling %d runs, then timing the host ...", name, runs)
        for _ in range(3):
            fn()
        rig.sync()
        counts = rig.profile(fn, runs)
        issue, total = _host_time(fn, runs, reps, rig.sync)
        results[name] = Submissions(**counts, issue=issue, total=total)
        if results[name].undercounted:
            log.warning(
                "gpu_graphs: %s: %d host launches for %d kernels without a graph; by API: %s",
                *(name, counts["host_launches"], counts["kernels"], counts["by_api"]),
            )
    return Measured(
        GraphResults(results),
        params={"runs": runs, "dtype": "bf16", "fused_kernel": "infrabook.kernels.swiglu"},
    )


# ------------------------------------------------------------------------- persistent


@dataclass(frozen=True)
class Variant:
    """One way to launch the same tile body."""

    programs: int
    tiles: int
    timing: Timing
    equal_to_per_tile: bool


@dataclass(frozen=True)
class PersistentResults(Results):
    """Each launch variant, and the fused model's bytes they move."""

    model_bytes: int
    variants: dict[str, Variant]

    def compared(
        self, params: dict[str, Any], device: dict[str, Any]
    ) -> dict[str, tuple[float | None, float | None]]:
        """Each variant's bandwidth as a share of the GPU's datasheet DRAM bandwidth (model:
        100 %, a memory-bound kernel at DRAM speed; only for a GPU ``conf/`` has a profile
        of, else its GB/s without a model)."""
        spec = profile_for(device["name"])
        dram = spec.dram_tb_s.value if spec else None
        rows: dict[str, tuple[float | None, float | None]] = {}
        for n, v in self.variants.items():
            gb_s = v.timing.gb_s(self.model_bytes)
            if dram:
                rows[text("bench.cmp.pct_dram", what=n)] = (100.0, 100 * gb_s / (dram * 1e3))
            else:
                rows[text("bench.cmp.gb_s", what=n)] = (None, gb_s)
        return rows

    def tables(self, params: dict[str, Any], device: dict[str, Any]) -> list[Table]:
        """One row per variant."""
        rows = (
            (n, v.programs, v.tiles, v.timing.us, v.timing.gb_s(self.model_bytes))
            + (v.equal_to_per_tile,)
            for n, v in self.variants.items()
        )
        rows_, cols = params["shape"]
        title = text("bench.persistent.table", rows=rows_, cols=cols)
        return [table(title, "variant programs tiles median_us gb_s bitwise_equal", rows)]


_SHAPE = {"shape": (_CHAIN.rows, _CHAIN.cols)}


@experiment("gpu_persistent", "cuda", PersistentResults, full=_SHAPE, quick=_SHAPE, limit_s=45)
def gpu_persistent(rig: Rig, shape: tuple[int, int]) -> Measured:
    """One program per tile against a persistent grid (one program per SM, and 4 per SM).

    Same tile body, bf16, L2 flushed; GB/s from the fused model (72 MiB at the article's shape).
    """
    from infrabook.kernels import Launch, swiglu_per_tile, swiglu_persistent

    g, u = _bf16(rig, *shape)
    graph = activation_chain(*shape, "bf16")
    sms = rig.info["sm_count"]
    launchers: dict[str, Callable[[], Launch]] = {
        "per_tile": partial(swiglu_per_tile, g, u),
        "persistent_1x_sm": partial(swiglu_persistent, g, u, num_programs=sms),
        "persistent_4x_sm": partial(swiglu_persistent, g, u, num_programs=4 * sms),
    }
    z_ref = launchers["per_tile"]().z
    variants = {}
    for name, fn in launchers.items():
        log.info("gpu_persistent: %s ...", name)
        launch = fn()
        equal = bool(torch.equal(launch.z, z_ref))
        variants[name] = Variant(launch.programs, launch.tiles, rig.flushed(fn), equal)
    return Measured(
        PersistentResults(account(graph, fully_fused(graph)).traffic, variants),
        params={"dtype": "bf16", "sm_count": sms},
    )
