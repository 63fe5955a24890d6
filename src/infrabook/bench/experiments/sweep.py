"""The fusion size sweeps: the activation chain ``z = silu(g) * u`` fused and eager beside a
copy of the fused bytes, over sizes from inside the caches to far beyond them, caches
flushed and not. On the CPU (``fusion_sweep``, fp32: ``torch.compile``'s loop as the fused
path) and on a GPU (``gpu_fusion_sweep``, bf16: the book's Triton kernel)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import torch

from infrabook import config
from infrabook.bench.experiments.base import Measured, experiment, log
from infrabook.bench.experiments.fusion import _compiled, _silu_mul, _swiglu_into
from infrabook.bench.measure import host
from infrabook.bench.measure.cuda import Rig, bf16
from infrabook.bench.measure.timers import cache_flush, time_interleaved
from infrabook.bench.records.results.sweep import (
    FusionSweepResults,
    GpuSweepResults,
    SweepPath,
    SweepPoint,
)
from infrabook.bench.records.timing import Timing
from infrabook.checks import check_positive_int, check_sizes
from infrabook.dataflow import account, fully_fused, unfused
from infrabook.ffn_chain import activation_chain
from infrabook.units import MiB

_COLS = config.scenarios().ffn_chain.cols

#: The CPU sweep's rows of the article's 12,288 columns, fp32: 144 KiB to 576 MiB of fused
#: traffic, eightfold steps. The smallest sits in one core's L2, the largest passes any
#: last-level cache the book's machines report (its tensors alone take 576 MiB), and five
#: sizes at three repetitions keep the run to seconds, most of them the cache flushes
#: before each timed call.
CPU_ROWS = (1, 8, 64, 512, 4096)
#: The GPU sweep's rows, bf16: 1.125 MiB to 4.5 GiB of fused traffic, fourfold steps,
#: through the article's shape (1,024 rows, 72 MiB); the smallest fits any GPU's L2, the
#: largest is 75 times an H200's.
GPU_ROWS = (16, 64, 256, 1024, 4096, 16384, 65536)
#: Tensors of one size a GPU size holds at once: G, U, the fused output, eager's T and
#: output, and the copy's source and destination (one and a half tensors each).
GPU_TENSORS = 8


def _bytes(rows: int, cols: int, dtype: str) -> tuple[int, int]:
    """The fused and the eager plan's modelled traffic (also checks the sizes)."""
    graph = activation_chain(rows, cols, dtype)
    fused, eager = (account(graph, plan(graph)).traffic for plan in (fully_fused, unfused))
    return fused, eager


@experiment(
    FusionSweepResults,
    full={"rows": CPU_ROWS, "cols": _COLS, "reps": 3, "warmup": 1},
    quick={"rows": CPU_ROWS[:3], "cols": _COLS, "reps": 2, "warmup": 1},
    limit_s=300,
)
def fusion_sweep(
    rows: Sequence[int], cols: int, reps: int, *, warmup: int, compiled: bool = True
) -> Measured:
    """At each row count: eager (``aten.silu`` writes T, ``mul`` reads it back), fused
    (``torch.compile`` of the expression, compiled once for every size) and a copy of the
    fused path's bytes, fp32, each timed interleaved with the caches flushed before every
    call (2x the last-level cache, at least 64 MiB) and without. Outputs are allocated
    beforehand, as in ``fusion``."""
    sizes = check_sizes("rows", rows)
    check_positive_int("cols", cols)
    flush_nbytes = max(2 * (host.llc_bytes() or 0), 64 * MiB)
    flusher = cache_flush(flush_nbytes)
    gen = torch.Generator().manual_seed(0)
    info: dict[str, Any] = {}
    fused_fn: Callable[..., Any] | None = None
    if compiled:  # on flat tensors: one dynamic size, never the 1 torch.compile specialises
        sample = tuple(torch.zeros(2 * cols) for _ in range(3))
        made = _compiled(_swiglu_into, sample, info, dynamic=True)
        fused_fn = made.func if made else None
    else:
        info["reason"] = "skipped: not requested (compiling takes seconds)"
    points = []
    for n in sizes:
        fused_b, eager_b = _bytes(n, cols, "fp32")
        g, u = (torch.randn(n, cols, generator=gen) for _ in range(2))
        z, t_buf, z_eager = (torch.empty_like(g) for _ in range(3))
        src = torch.randn(fused_b // 8, generator=gen)  # fp32: half the bytes read, half written
        dst = torch.empty_like(src)

        def eager(g: Any = g, u: Any = u, t: Any = t_buf, out: Any = z_eager) -> None:
            torch.ops.aten.silu.out(g, out=t)
            torch.mul(t, u, out=out)

        timed: dict[str, tuple[Callable[[], object], int]] = {
            "eager": (eager, eager_b),
            "copy": (partial(dst.copy_, src), 2 * src.nbytes),
        }
        if fused_fn is not None:
            flat = (g.view(-1), u.view(-1), z.view(-1))
            timed = {"fused": (partial(fused_fn, *flat), fused_b)} | timed
        log.info("fusion_sweep: %d rows (%g MiB fused) ...", n, fused_b / MiB)
        fns = {name: fn for name, (fn, _) in timed.items()}
        warm = time_interleaved(fns, warmup=warmup, reps=reps)
        cold = time_interleaved(fns, warmup=0, reps=reps, before=flusher)
        paths = {name: SweepPath(b, cold[name], warm[name]) for name, (_, b) in timed.items()}
        points.append(SweepPoint(n, fused_b, paths))
    params = {"dtype": "fp32", "threads": host.usable_cores(), "flush_mib": flush_nbytes // MiB}
    params |= {"compile_s": info["compile_s"]} if "compile_s" in info else {}
    return Measured(FusionSweepResults(tuple(points), info.get("reason")), params=params)


def _gpu_point(rig: Rig, rows: int, cols: int) -> SweepPoint:
    """One size on the GPU: the Triton kernel, torch eager and the copy, each timed with
    the L2 flushed and in an unflushed CUDA-graph loop; the reason instead where the size's
    tensors would take more than half the GPU's memory."""
    from infrabook.kernels import swiglu

    fused_b, eager_b = _bytes(rows, cols, "bf16")
    need = GPU_TENSORS * rows * cols * 2
    memory = rig.info.memory_bytes
    if need > memory // 2:
        why = f"skipped: its tensors need {need / MiB:g} MiB, more than half"
        return SweepPoint(rows, fused_b, {}, f"{why} of the GPU's {memory / MiB:g} MiB")
    g, u = bf16(rig, rows, cols)
    (src,) = bf16(rig, fused_b // 4, n=1)  # bf16: half the bytes read, half written
    dst = torch.empty_like(src)
    timed: dict[str, tuple[Callable[[], object], int]] = {
        "fused": (partial(swiglu, g, u), fused_b),
        "eager": (partial(_silu_mul, g, u), eager_b),
        "copy": (partial(dst.copy_, src), 2 * src.nbytes),
    }
    paths = {}
    for name, (fn, nbytes) in timed.items():
        timings: tuple[Timing, Timing] = (rig.flushed(fn), rig.unflushed(fn))
        paths[name] = SweepPath(nbytes, *timings)
    return SweepPoint(rows, fused_b, paths)


@experiment(GpuSweepResults, full={"rows": GPU_ROWS, "cols": _COLS}, limit_s=30)
def gpu_fusion_sweep(rig: Rig, rows: Sequence[int], cols: int) -> Measured:
    """At each row count, bf16: the book's fused Triton kernel, torch eager and a device
    copy of the fused path's bytes, each timed with the L2 flushed (``do_bench``) and in an
    unflushed CUDA-graph loop (``do_bench_cudagraph``). About 15 s on an H200 (estimated
    from ``gpu_swiglu``'s 0.3 s a timing)."""
    sizes = check_sizes("rows", rows)
    check_positive_int("cols", cols)
    points = []
    for n in sizes:
        log.info("gpu_fusion_sweep: %d rows ...", n)
        points.append(_gpu_point(rig, n, cols))
        if rig.device == "cuda":
            torch.cuda.empty_cache()
    return Measured(GpuSweepResults(tuple(points)), params={"dtype": "bf16"})
