"""Fusion: the activation chain ``z = silu(g) * u`` unfused against fused, as the dataflow
model counts its bytes. On the CPU (``fusion``): eager PyTorch, ``torch.compile``, numexpr
and a copy; on a GPU (``gpu_swiglu``): the fused Triton kernel, the unfused Triton pair and
torch eager, L2 flushed and not, beside a device copy of the same bytes."""

from __future__ import annotations

import importlib
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any, ClassVar

import torch

from infrabook import config
from infrabook.bench import host
from infrabook.bench.cuda import Rig, bf16
from infrabook.bench.entry import Compared, Device, Params, Results, Target
from infrabook.bench.experiment import Measured, experiment, first_line, log, table, timed_method
from infrabook.bench.schema import (
    AbsDiff,
    Checked,
    Count,
    ModelBytes,
    Pattern,
    Positive,
    Seconds,
    Text,
)
from infrabook.bench.timing import MODES, Timing, cache_flush, time_interleaved
from infrabook.dataflow import account, fully_fused, unfused
from infrabook.ffn_chain import activation_chain
from infrabook.labels import text
from infrabook.tables import Table
from infrabook.units import MiB

#: The fused expression numexpr evaluates: silu(g) * u written out.
NUMEXPR_EXPR = "g / (1 + exp(-g)) * u"

_CHAIN = config.scenarios().ffn_chain
#: The CPU paths: those with a label ``bench.fusion.path.<name>``.
FusionName = Annotated[
    str, Pattern("eager|compile|numexpr|copy", "eager, compile, numexpr or copy")
]
#: The GPU paths: the fused Triton kernel, the unfused pair, torch eager and the copy.
SwigluName = Annotated[
    str,
    Pattern(
        "triton_fused|triton_unfused|torch_eager|copy",
        "triton_fused, triton_unfused, torch_eager or copy",
    ),
]


@dataclass(frozen=True)
class FusionPath(Checked):
    """One way to get ``z`` (or the copy beside them): modelled bytes, and the timing or why
    there is none (``reason``: ``skipped: ...`` or ``failed: ...``)."""

    model_bytes: ModelBytes
    fused: bool | None  # None: the copy, the bandwidth reference
    timing: Timing | None = None
    allclose: bool | None = None
    reason: Text | None = None
    compile_s: Seconds | None = None

    @property
    def gb_s(self) -> float:
        """Model bytes over the median time."""
        assert self.timing is not None, "a path that did not run has no bandwidth"
        return self.timing.gb_s(self.model_bytes)


@dataclass(frozen=True)
class FusionResults(Results):
    """The paths ``eager``, ``compile``, ``numexpr`` and ``copy``, in that order: ``eager``
    and ``copy`` always (what the others are compared with) and at least one fused path."""

    PARAMS: ClassVar[dict[str, Any]] = {
        "rows": Positive, "cols": Positive, "threads": Positive, "reps": Positive,
        "warmup": Count, "flush_mib": Count | None,
    }  # fmt: skip
    paths: dict[FusionName, FusionPath]

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("eager", "copy"):
            if self.paths.get(name) is None or self.paths[name].timing is None:
                raise ValueError(f"FusionResults.paths.{name} is missing or was not timed")
        if not any(p.fused for p in self.paths.values()):
            raise ValueError("FusionResults.paths has no fused path (fused: true)")

    def pct_copy(self, name: str) -> float:
        """A path's GB/s as a percentage of the copy's."""
        return 100 * self.paths[name].gb_s / self.paths["copy"].gb_s

    def speedup(self, name: str) -> float | None:
        """Eager's time over the path's (None for the copy, which computes nothing)."""
        timing, eager = self.paths[name].timing, self.paths["eager"].timing
        if name == "copy" or timing is None or eager is None:
            return None
        return eager.median_s / timing.median_s

    @property
    def model_speedup(self) -> float:
        """Unfused model bytes over fused."""
        fused = next(p.model_bytes for p in self.paths.values() if p.fused)
        return self.paths["eager"].model_bytes / fused

    @property
    def best(self) -> str | None:
        """The fastest fused path that ran."""
        ran = {n: p.timing.median_s for n, p in self.paths.items() if p.fused and p.timing}
        return min(ran, key=ran.__getitem__) if ran else None

    def method(self, params: Params) -> str:
        """Repetitions, the cache flush, and how GB/s is counted."""
        mib = params["flush_mib"]
        flush = text("bench.method.flush", mib=mib) if mib else text("bench.method.no_flush")
        return timed_method(params, flush, text("bench.method.fusion"))

    def compared(self, params: Params, device: Device) -> Compared:
        """Each fused path's speed-up over eager (model: the bytes' ratio) and each path's
        bandwidth as a share of the copy's (model: 100 %, every path moving its modelled
        bytes at copy bandwidth); the copy's GB/s beside them, without a model."""
        rows: Compared = {}
        size = f"[{params['rows']}, {params['cols']}]"  # a quick run's rows are not a full one's
        ran = [n for n, p in self.paths.items() if p.timing is not None]
        for name in ran:
            if self.paths[name].fused:
                row = text("bench.cmp.speedup", what=f"{size} {name}")
                rows[row] = (self.model_speedup, self.speedup(name))
        for name in ran:
            if name != "copy" and "copy" in ran:
                row = text("bench.cmp.pct_copy", what=f"{size} {name}")
                rows[row] = (100.0, self.pct_copy(name))
        if "copy" in ran:
            rows[f"{size} {text('bench.cmp.copy_gb_s')}"] = (None, self.paths["copy"].gb_s)
        return rows

    def tables(self, params: Params, device: Device) -> list[Table]:
        """One row per path, beside the model's speed-up."""
        rows = []
        for name, p in self.paths.items():
            what, t = text(f"bench.fusion.path.{name}"), p.timing
            measured = (t.ms, t.spread_ms) if t else (None, None)
            rates = (p.gb_s, self.pct_copy(name)) if t else (None, None)
            model = {True: self.model_speedup, False: 1.0, None: None}[p.fused]
            what = what if t else f"{what}({p.reason})"
            rows.append(
                (name, what, *measured, p.model_bytes / MiB, *rates, self.speedup(name), model)
            )
        size = {"rows": params["rows"], "cols": params["cols"], "cores": params["threads"]}
        title = text("bench.fusion.table", **size)
        keys = "path what median_ms spread_ms model_mib gb_s pct_copy speedup_eager model_speedup"
        return [table(title, keys, rows)]


def _swiglu_into(g: torch.Tensor, u: torch.Tensor, z: torch.Tensor) -> None:
    z.copy_(torch.nn.functional.silu(g) * u)


def _compiled(
    g: torch.Tensor, u: torch.Tensor, z: torch.Tensor, info: dict[str, Any]
) -> Callable[[], object] | None:
    """``torch.compile``'s fused loop, its compile time put in ``info``; None and the reason
    there if it cannot compile (no C++ compiler, say)."""
    log.info("fusion: compiling with torch.compile (inductor) ...")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn = torch.compile(_swiglu_into, fullgraph=True, dynamic=False)
            t0 = time.perf_counter()
            fn(g, u, z)
            info["compile_s"] = time.perf_counter() - t0
    except Exception as err:  # record why, do not crash
        info["reason"] = f"failed: {first_line(err)}"
        return None
    return partial(fn, g, u, z)


@experiment(
    "cpu",
    FusionResults,
    full={"rows": _CHAIN.rows, "cols": _CHAIN.cols, "reps": 15, "warmup": 2},
    quick={"rows": _CHAIN.rows // 4, "cols": _CHAIN.cols // 3, "reps": 5, "warmup": 1},
)
def fusion(
    rows: int, cols: int, reps: int, *, warmup: int, compiled: bool = True, flush: bool = True
) -> Measured:
    """The activation chain ``z = silu(g) * u`` in fp32, unfused against fused, on the CPU.

    Paths: ``eager`` (``aten.silu`` writes T, ``mul`` reads it back: the unfused plan),
    ``compile`` (``torch.compile``: inductor's one C++ loop; compiling takes seconds),
    ``numexpr`` (one pass, ``threads = usable cores``) and ``copy`` (``dst.copy_(g)``, the
    measured copy bandwidth). Outputs, and eager's T, are allocated once beforehand, as a
    GPU's caching allocator would: a fresh large CPU allocation costs page faults that are
    no part of either plan's traffic. GB/s is bytes from the dataflow model over time.
    """
    graph = activation_chain(rows, cols, "fp32")  # checks the sizes
    cores, gen = host.usable_cores(), torch.Generator().manual_seed(0)
    g, u = (torch.randn(rows, cols, generator=gen) for _ in range(2))
    unfused_b, fused_b = (account(graph, plan(graph)).traffic for plan in (unfused, fully_fused))
    copy_b = 2 * g.numel() * g.element_size()  # read and written: the bandwidth reference
    model: dict[str, tuple[int, bool | None]] = {"eager": (unfused_b, False)}
    model |= {"compile": (fused_b, True), "numexpr": (fused_b, True)}
    model["copy"] = (copy_b, None)
    info: dict[str, dict[str, Any]] = {name: {} for name in model}  # the paths' other fields
    out = {name: torch.empty_like(g) for name in model}
    t_buf = torch.empty_like(g)

    def eager() -> None:
        torch.ops.aten.silu.out(g, out=t_buf)
        torch.mul(t_buf, u, out=out["eager"])

    timed: dict[str, Callable[[], object]] = {"eager": eager}
    if not compiled:
        info["compile"]["reason"] = "skipped: not requested (compiling takes seconds)"
    elif fn := _compiled(g, u, out["compile"], info["compile"]):
        timed["compile"] = fn
    ne: Any = None
    try:
        ne = importlib.import_module("numexpr")
        arrays = {"g": g.numpy(), "u": u.numpy()}  # numexpr writes into the tensor's memory
        timed["numexpr"] = partial(ne.evaluate, NUMEXPR_EXPR, arrays, out=out["numexpr"].numpy())
    except ImportError:
        info["numexpr"]["reason"] = "skipped: numexpr is not installed"
    timed["copy"] = partial(out["copy"].copy_, g)
    log.info("fusion: timing %s at [%d, %d] fp32, %d reps ...", ", ".join(timed), rows, cols, reps)
    threads_before = ne.set_num_threads(cores) if ne else None
    flush_nbytes = max(2 * (host.llc_bytes() or 0), 64 * MiB)  # what evicts the caches
    try:
        flusher = cache_flush(flush_nbytes) if flush else None
        timings = time_interleaved(timed, warmup=warmup, reps=reps, before=flusher)
    finally:
        if ne:
            ne.set_num_threads(threads_before)
    ref = torch.nn.functional.silu(g) * u
    for name in set(timings) - {"copy"}:
        info[name]["allclose"] = bool(torch.allclose(out[name], ref, rtol=1e-5, atol=1e-6))
    results = FusionResults({n: FusionPath(*model[n], timings.get(n), **info[n]) for n in model})
    best = results.best
    measured = (results.speedup(best), results.pct_copy(best)) if best else (None, None)
    ids = ("cpu_fused_speedup", "cpu_fused_bandwidth")
    return Measured(
        results,
        tuple(Target(i, m) for i, m in zip(ids, measured, strict=True)),
        {"dtype": "fp32", "threads": cores, "torch_threads": torch.get_num_threads()}
        | {"flush_mib": flush_nbytes // MiB if flush else None},
    )


def _silu_mul(g: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.silu(g) * u


@dataclass(frozen=True)
class SwigluPath(Checked):
    """One implementation at one shape: modelled bytes, error, and both timings."""

    model_bytes: ModelBytes
    max_abs_err_vs_fp32: AbsDiff
    flushed: Timing
    unflushed: Timing

    def gb_s(self, mode: str) -> float:
        """Model bytes over the median time, L2 ``flushed`` or ``unflushed``."""
        return getattr(self, mode).gb_s(self.model_bytes)


@dataclass(frozen=True)
class SwigluShape(Checked):
    """The three implementations and the ``copy`` of the fused path's bytes at one shape,
    and whether the fused working set fits L2."""

    rows: Positive
    cols: Positive
    fits_l2: bool
    paths: dict[SwigluName, SwigluPath]

    def __post_init__(self) -> None:
        super().__post_init__()
        if "copy" not in self.paths or "triton_fused" not in self.paths:
            raise ValueError("SwigluShape.paths needs the paths 'copy' and 'triton_fused'")

    def pct_copy(self, path: SwigluPath, mode: str) -> float:
        """A path's GB/s as a percentage of the copy's at this shape, both L2 ``flushed``
        or both ``unflushed``: the same bytes, the same timer, the same L2 state."""
        return 100 * path.gb_s(mode) / self.paths["copy"].gb_s(mode)


@dataclass(frozen=True)
class SwigluResults(Results):
    """Each shape."""

    shapes: tuple[SwigluShape, ...]

    def compared(self, params: Params, device: Device) -> Compared:
        """Each path's bandwidth as a share of the copy's at each shape, L2 flushed and not
        (model: 100 %, every path moving its modelled bytes at copy bandwidth)."""
        rows: Compared = {}
        for s in self.shapes:
            for name, p in s.paths.items():
                for mode in MODES if name != "copy" else ():
                    what = f"[{s.rows}, {s.cols}] {name} · {text(f'bench.l2.{mode}')}"
                    rows[text("bench.cmp.pct_copy", what=what)] = (100.0, s.pct_copy(p, mode))
        return rows

    def tables(self, params: Params, device: Device) -> list[Table]:
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


@experiment("cuda", SwigluResults, full={"shapes": _SWIGLU_SHAPES}, limit_s=90)
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
        g, u = bf16(rig, rows, cols)
        graph = activation_chain(rows, cols, "bf16")
        fused_b, unfused_b = (account(graph, p(graph)).traffic for p in (fully_fused, unfused))
        (src,) = bf16(rig, fused_b // 4, n=1)  # bf16: half the bytes read, half written
        dst = torch.empty_like(src)
        ref = _silu_mul(g.float(), u.float())
        paths: dict[str, tuple[Callable[[], torch.Tensor], int]] = {
            "triton_fused": (partial(swiglu, g, u), fused_b),
            "triton_unfused": (partial(swiglu_unfused, g, u), unfused_b),
            "torch_eager": (partial(_silu_mul, g, u), unfused_b),
        }
        timed: dict[str, SwigluPath] = {}
        for name, (fn, model_bytes) in paths.items():
            log.info("gpu_swiglu: [%d, %d] %s: flushed, then unflushed ...", rows, cols, name)
            err = (fn().float() - ref).abs().max().item()
            timed[name] = SwigluPath(model_bytes, err, rig.flushed(fn), rig.unflushed(fn))
        copy = partial(dst.copy_, src)
        copy_err = (copy().float() - src.float()).abs().max().item()
        timed["copy"] = SwigluPath(2 * src.nbytes, copy_err, rig.flushed(copy), rig.unflushed(copy))
        l2 = rig.info.l2_bytes
        measured.append(SwigluShape(rows, cols, l2 is not None and fused_b <= l2, timed))
    results = SwigluResults(tuple(measured))
    fused_pct = measured[0].pct_copy(measured[0].paths["triton_fused"], "flushed")
    return Measured(
        results,
        (Target("gpu_fused_swiglu_bandwidth", fused_pct),),
        {"dtype": "bf16"},
    )
