"""Fusion: the activation chain ``z = silu(g) * u`` unfused against fused, as the dataflow
model counts its bytes. On the CPU (``fusion``): eager PyTorch, ``torch.compile``, numexpr
and a copy; on a GPU (``gpu_swiglu``): the fused Triton kernel, the unfused Triton pair,
torch eager and ``torch.compile``, L2 flushed and not, beside a device copy of the same
bytes."""

from __future__ import annotations

import importlib
import time
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any

import torch

from infrabook import config
from infrabook.bench.experiments.base import Measured, experiment, first_line, log
from infrabook.bench.measure import host
from infrabook.bench.measure.cuda import Rig, bf16
from infrabook.bench.measure.timers import cache_flush, time_interleaved
from infrabook.bench.records.entry import Target
from infrabook.bench.records.results.fusion import (
    FusionPath,
    FusionResults,
    SwigluPath,
    SwigluResults,
    SwigluShape,
)
from infrabook.dataflow import account, fully_fused, unfused
from infrabook.ffn_chain import activation_chain
from infrabook.units import MiB

#: The fused expression numexpr evaluates: silu(g) * u written out.
NUMEXPR_EXPR = "g / (1 + exp(-g)) * u"

_CHAIN = config.scenarios().ffn_chain


def _swiglu_into(g: torch.Tensor, u: torch.Tensor, z: torch.Tensor) -> None:
    z.copy_(torch.nn.functional.silu(g) * u)


def _compiled(
    expression: Callable[..., Any], args: tuple[torch.Tensor, ...], info: dict[str, Any]
) -> Callable[[], Any] | None:
    """``torch.compile`` of ``expression`` on ``args``, specialised to their shapes, its
    compile time (the first call's) put in ``info``; None and the reason there if it cannot
    compile (no C++ compiler on a CPU, say)."""
    log.info("compiling %s with torch.compile (inductor) ...", expression.__name__)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn = torch.compile(expression, fullgraph=True, dynamic=False)
            t0 = time.perf_counter()
            fn(*args)
            info["compile_s"] = time.perf_counter() - t0
    except Exception as err:  # record why, do not crash
        info["reason"] = f"failed: {first_line(err)}"
        return None
    return partial(fn, *args)


@experiment(
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
    elif fn := _compiled(_swiglu_into, (g, u, out["compile"]), info["compile"]):
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


_SWIGLU_SHAPES = [
    (_CHAIN.rows, _CHAIN.cols),
    (_CHAIN.rows // 4, _CHAIN.cols),
    (_CHAIN.rows * 8, _CHAIN.cols),
]


@experiment(SwigluResults, full={"shapes": _SWIGLU_SHAPES}, limit_s=90)
def gpu_swiglu(rig: Rig, shapes: list[tuple[int, int]], compiled: bool = True) -> Measured:
    """Fused Triton SwiGLU vs the unfused Triton pair vs torch eager vs ``torch.compile`` of
    the eager expression (``compiled``; its compile time at each shape recorded), bf16.

    At the article's shape ([1024, 12288], 72 MiB fused working set), at a quarter of its
    rows (18 MiB: fits any recent GPU's L2) and at eight times its rows (576 MiB: far beyond
    any GPU's L2, so that no L2 effect passes for a bandwidth), each timed with the L2
    flushed and in an unflushed CUDA-graph loop; beside them, timed the same two ways, a
    device copy that reads and writes the fused path's bytes: after a flush the dirty lines
    written back during a short kernel weigh as much in the copy, so the ratio compares like
    with like.
    """
    from infrabook.kernels import swiglu, swiglu_unfused

    if not shapes:
        raise ValueError("shapes must name at least one (rows, cols), got none")
    measured = []
    compile_reason = None if compiled else "skipped: not requested (compiling takes seconds)"
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
        info: dict[str, Any] = {}  # the compile time, or why it did not compile
        if compiled and (compiled_fn := _compiled(_silu_mul, (g, u), info)):
            # inductor fuses silu and mul into one kernel: the fused plan's bytes
            paths["torch_compile"] = (compiled_fn, fused_b)
        compile_reason = compile_reason or info.get("reason")
        timed: dict[str, SwigluPath] = {}
        for name, (fn, model_bytes) in paths.items():
            log.info("gpu_swiglu: [%d, %d] %s: flushed, then unflushed ...", rows, cols, name)
            err = (fn().float() - ref).abs().max().item()
            compile_s = info.get("compile_s") if name == "torch_compile" else None
            timings = rig.flushed(fn), rig.unflushed(fn)
            timed[name] = SwigluPath(model_bytes, err, *timings, compile_s)
        copy = partial(dst.copy_, src)
        copy_err = (copy().float() - src.float()).abs().max().item()
        timed["copy"] = SwigluPath(2 * src.nbytes, copy_err, rig.flushed(copy), rig.unflushed(copy))
        l2 = rig.info.l2_bytes
        measured.append(SwigluShape(rows, cols, l2 is not None and fused_b <= l2, timed))
    results = SwigluResults(tuple(measured), compile_reason)
    fused_pct = measured[0].pct_copy(measured[0].paths["triton_fused"], "flushed")
    return Measured(
        results,
        (Target("gpu_fused_swiglu_bandwidth", fused_pct),),
        {"dtype": "bf16"},
    )
