"""Shapes: the matmul rate against rows, and the article's calls run generic, bucketed and
specialised, with what each strategy pays to prepare (CPU only)."""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import torch

from infrabook import bucketing, config
from infrabook.bench.experiments.base import Measured, experiment, first_line, log
from infrabook.bench.measure import host
from infrabook.bench.measure.timers import time_interleaved
from infrabook.bench.records.results.shapes import Prep, ShapesResults
from infrabook.checks import check_positive_int, check_sizes

#: fp32 FLOP per cycle and core of the widest vector unit the flags show, widest first.
#: Some AVX-512 parts have one FMA pipe, and boost clocks differ from the MHz listed.
_VECTOR_UNITS = (({"avx512f"}, 64, "avx512f"), ({"avx2", "fma"}, 32, "avx2"), ({"avx"}, 16, "avx"))


def _peak_basis() -> dict[str, Any] | None:
    """What an fp32 peak of the usable cores is estimated from (cores x MHz x FLOP per
    cycle, from /proc/cpuinfo); None without AVX flags or a clock."""
    info = host.cpu_info()
    unit = next((u for u in _VECTOR_UNITS if u[0] <= set(info.vector)), None)
    if unit is None or not info.mhz:
        return None
    _, per_cycle, name = unit
    return {"cores": info.usable_cores, "mhz": info.mhz, "per_cycle": per_cycle, "unit": name}


_SHAPES_FULL = {"rows": (16, 32, 64, 128, 256, 512, 1024, 2048), "k": 1024, "n": 1024, "reps": 10}
# The quick sweep holds the quick buckets (128, 512), which the bucketing page quotes.
_SHAPES_QUICK = {"rows": (16, 64, 128, 256, 512, 1024), "k": 256, "n": 256, "reps": 3}


@experiment(
    ShapesResults,
    full=_SHAPES_FULL | {"warmup": 2, "scale": 1, "prep": "compile"},
    quick=_SHAPES_QUICK | {"warmup": 1, "scale": 4, "prep": "compile"},
)
def shapes(
    rows: Sequence[int], k: int, n: int, reps: int, *, warmup: int, scale: int, prep: str
) -> Measured:
    """Matmul rate against rows, and the article's ten calls run generic vs bucketed.

    1. ``x @ w``, x [rows, k], w [k, n], fp32: GFLOP/s for each row count.
    2. The calls of ``conf/scenarios.toml`` [bucketing] (rows and buckets divided by
       ``scale``) run *generic* (each at its own size), *bucketed* (each copied into the
       first rows of its bucket's buffer and the whole buffer multiplied, the copy timed)
       and, with ``prep="compile"``, *specialised*. Padding rows are never re-zeroed: their
       outputs are discarded, and only subnormals would change a dense fp32 matmul's time.

    ``prep="compile"`` measures each strategy's preparation as a compiler stack pays it:
    ``torch.compile`` first calls, caches off, of one dynamic graph (generic), a static one
    per bucket or per shape; the runs then use those graphs (inductor calls the same BLAS
    matmul for every shape). ``prep="none"``: eager, no preparation, no crossovers.
    """
    if prep not in ("none", "compile"):
        raise ValueError(f"prep must be 'none' or 'compile', got {prep!r}")
    rows = check_sizes("rows", rows)
    for name, size in (("k", k), ("n", n), ("scale", scale)):
        check_positive_int(name, size)
    gen = torch.Generator().manual_seed(0)
    w = torch.randn(k, n, generator=gen) / math.sqrt(k)

    log.info("shapes: matmul sweep over rows %s at k=%d, n=%d ...", list(rows), k, n)
    xs = {r: torch.randn(r, k, generator=gen) for r in rows}
    sweep = {str(r): partial(torch.mm, xs[r], w, out=torch.empty(r, n)) for r in rows}
    sweep_t = time_interleaved(sweep, warmup=warmup, reps=reps)

    conf = config.scenarios().bucketing
    calls = bucketing.check_calls([[max(1, r // scale), c] for r, c in conf.calls])
    buckets = bucketing.check_buckets([max(1, b // scale) for b in conf.buckets])
    sequence = [r for r, c in calls for _ in range(c)]
    inputs = {r: torch.randn(r, k, generator=gen) for r, _ in calls}
    padded = {b: torch.zeros(b, k) for b in buckets}

    def mm(x: torch.Tensor) -> torch.Tensor:
        return x @ w

    fns: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {"generic": mm, "bucketed": mm}
    measured_prep, compile_error = None, None
    if prep == "compile":
        log.info("shapes: measuring preparation (torch.compile per prepared shape, caches off)")
        try:
            measured_prep, fns = _compile_prep(mm, calls, buckets, inputs, padded)
        except Exception as err:  # e.g. no C++ compiler: say so, run eager
            compile_error = first_line(err)

    # Everything but the work itself is looked up before timing: each call's input and, for
    # bucketed, its bucket's buffer and the rows it is copied into. The timed loops then
    # differ only in the copy and the padding rows.
    call_inputs = [inputs[r] for r in sequence]
    buffers = [padded[bucketing.bucket_for(r, buckets)] for r in sequence]
    bucket_plan = [(x, buf[: len(x)], buf) for x, buf in zip(call_inputs, buffers, strict=True)]

    def over_calls(fn: Callable[[torch.Tensor], torch.Tensor]) -> Callable[[], None]:
        def group() -> None:
            for x in call_inputs:
                fn(x)

        return group

    def bucketed() -> None:
        for x, head, buf in bucket_plan:
            head.copy_(x)
            fns["bucketed"](buf)

    group_fns = {"generic": over_calls(fns["generic"]), "bucketed": bucketed}
    if "specialised" in fns:
        group_fns["specialised"] = over_calls(fns["specialised"])
    log.info("shapes: timing the %d-call group: %s ...", len(sequence), ", ".join(group_fns))
    group_t = time_interleaved(group_fns, warmup=warmup, reps=reps)
    params = {"dtype": "fp32", "calls": calls, "buckets": buckets, "compile_error": compile_error}
    return Measured(
        ShapesResults(sweep_t, group_t, measured_prep),
        params=params | {"threads": torch.get_num_threads(), "peak_basis": _peak_basis()},
    )


def _compile_prep(
    mm: Callable[[torch.Tensor], torch.Tensor],
    calls: tuple[tuple[int, int], ...],
    buckets: tuple[int, ...],
    inputs: dict[int, torch.Tensor],
    padded: dict[int, torch.Tensor],
) -> tuple[Prep, dict[str, Callable]]:
    """Compile what each strategy needs, timing the first call of each graph."""
    import torch._dynamo
    import torch._inductor.config as inductor_config

    def timed(fn: Callable, x: torch.Tensor) -> float:
        t0 = time.perf_counter()
        fn(x)
        return (time.perf_counter() - t0) * 1e3

    def fresh(dynamic: bool) -> Callable:
        torch._dynamo.reset()
        return torch.compile(mm, dynamic=dynamic, fullgraph=True)

    with warnings.catch_warnings(), inductor_config.patch(force_disable_caches=True):
        warnings.simplefilter("ignore")
        # One throwaway compile first, so that one-time start-up (imports, the compiler's
        # own set-up) is charged to no strategy.
        torch._dynamo.reset()
        warm = torch.compile(torch.mm, dynamic=False, fullgraph=True)
        startup = timed(partial(warm, torch.ones(4, 4)), torch.ones(4, 4))
        generic = fresh(dynamic=True)
        generic_ms = tuple(timed(generic, inputs[r]) for r, _ in calls)
        bucket_fn = fresh(dynamic=False)
        per_bucket = {str(b): timed(bucket_fn, padded[b]) for b in buckets}
        special_fn = fresh(dynamic=False)
        per_shape = {str(r): timed(special_fn, inputs[r]) for r, _ in calls}
    fns = {"generic": generic, "bucketed": bucket_fn, "specialised": special_fn}
    return Prep(startup, generic_ms, per_bucket, per_shape), fns
