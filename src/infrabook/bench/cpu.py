"""The CPU experiments: fusion, attention memory, dispatch counts and shapes.

Each is declared with :func:`~infrabook.bench.experiment.experiment` beside the frozen
dataclass of results it stores: the full sizes are the article's, the quick ones run in
seconds (what a page runs live on two cores). The results' ``values`` and ``tables`` (what
pages quote and show) are computed from the stored measurements when the record is read.

Times on a CPU are noisy, more so on a shared machine: every entry records the load
average beside the times, and the targets are reported, never assumed.
"""

from __future__ import annotations

import importlib
import math
import time
import tracemalloc
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import torch

from infrabook import config
from infrabook.attention_sizes import attention_sizes
from infrabook.bench import host
from infrabook.bench.dispatch import FFN, count_runs
from infrabook.bench.experiment import Measured, columns, experiment, log
from infrabook.bench.record import Results, Target
from infrabook.bench.timing import CacheFlush, Timing, time_interleaved
from infrabook.bucketing import (
    actual_rows,
    bucket_for,
    check_buckets,
    check_calls,
    executed_rows,
    padding_fraction,
)
from infrabook.checks import check_positive_int
from infrabook.crossover import Line, crossover
from infrabook.dataflow import account, fully_fused, unfused
from infrabook.ffn_chain import activation_chain
from infrabook.labels import text
from infrabook.launches import article_launch_counts
from infrabook.reference_attention import blockwise_attention, naive_attention
from infrabook.tables import Table
from infrabook.units import MiB

#: The fused expression numexpr evaluates: silu(g) * u written out.
NUMEXPR_EXPR = "g / (1 + exp(-g)) * u"

#: Bytes written to evict the caches between repetitions: at least this, or twice the LLC.
MIN_FLUSH_BYTES = 64 * MiB

_CHAIN = config.scenarios()["ffn_chain"]


def flush_bytes() -> int:
    """Twice the last-level cache, at least :data:`MIN_FLUSH_BYTES`."""
    return max(2 * (host.llc_bytes() or 0), MIN_FLUSH_BYTES)


def _method(warmup: int, reps: int, flush: str, notes: str, **extra: Any) -> dict[str, Any]:
    summary = (
        f"median of {reps} reps after {warmup} warm-ups, spread p20–p80, "
        f"candidates interleaved; {flush}; {notes}"
    )
    return {
        "timer": "time.perf_counter",
        "warmup": warmup,
        "reps": reps,
        "statistic": "median",
        "spread": "p20-p80",
        "interleaved": True,
        "cache_flush": flush,
        "notes": notes,
        **extra,
        "summary": summary,
    }


def _first_line(err: BaseException) -> str:
    lines = str(err).strip().splitlines()
    return f"{type(err).__name__}: {lines[0] if lines else ''}"[:300]


def peak_bytes(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, int]:
    """Run ``fn`` and return its result and the peak bytes it allocated on top of what was
    already allocated when it started, as :mod:`tracemalloc` sees them (numpy reports every
    array buffer to it; BLAS's own scratch space is not included).

    >>> _, peak = peak_bytes(np.zeros, (1024, 1024))
    >>> peak >= 8 * 1024 * 1024
    True
    """
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        result = fn(*args, **kwargs)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        if started:
            tracemalloc.stop()
    return result, peak - base


# ------------------------------------------------------------------------------ fusion


@dataclass(frozen=True)
class FusionPath:
    """One way to get ``z`` (or the copy beside them): modelled bytes, and the timing or why
    there is none (``reason``: ``skipped: ...`` or ``failed: ...``)."""

    model_bytes: int
    fused: bool | None  # None: the copy, the bandwidth reference
    timing: Timing | None = None
    allclose: bool | None = None
    reason: str | None = None
    compile_s: float | None = None
    threads: int | None = None

    @property
    def gb_s(self) -> float:
        """Model bytes over the median time."""
        assert self.timing is not None, "a path that did not run has no bandwidth"
        return self.model_bytes / self.timing.median_s / 1e9


@dataclass(frozen=True)
class FusionResults(Results):
    """The paths ``eager``, ``compile``, ``numexpr`` and ``copy``, in that order."""

    paths: dict[str, FusionPath]

    def pct_copy(self, name: str) -> float:
        """A path's GB/s as a percentage of the copy's."""
        return 100 * self.paths[name].gb_s / self.paths["copy"].gb_s

    def speedup(self, name: str) -> float | None:
        """Eager's time over the path's (None for the copy, which computes nothing)."""
        timing, eager = self.paths[name].timing, self.paths["eager"].timing
        return (
            None
            if name == "copy" or timing is None or eager is None
            else eager.median_s / timing.median_s
        )

    @property
    def best(self) -> str | None:
        """The fastest fused path that ran."""
        ran = {n: p.timing.median_s for n, p in self.paths.items() if p.fused and p.timing}
        return min(ran, key=ran.__getitem__) if ran else None

    def values(self, params: dict[str, Any]) -> dict[str, Any]:
        """Model and measured numbers; ``<path>_ms``, ``_gb_s``, ``_speedup``, ``_pct_copy``."""
        paths, best = self.paths, self.best
        fused_bytes = next(p.model_bytes for p in paths.values() if p.fused)
        values: dict[str, Any] = {
            "model_speedup": paths["eager"].model_bytes / fused_bytes,
            "model_unfused_mib": paths["eager"].model_bytes / MiB,
            "model_fused_mib": fused_bytes / MiB,
            "copy_gb_s": paths["copy"].gb_s,
            "best_path": best,
            "best_speedup": self.speedup(best) if best else None,
            "best_gb_s": paths[best].gb_s if best else None,
            "best_pct_copy": self.pct_copy(best) if best else None,
            "compile_s": paths["compile"].compile_s,
        }
        for name, path in paths.items():
            if path.timing is not None:
                values[f"{name}_ms"] = path.timing.ms
                values[f"{name}_gb_s"] = path.gb_s
                if name not in ("eager", "copy"):
                    values[f"{name}_speedup"] = self.speedup(name)
                    values[f"{name}_pct_copy"] = self.pct_copy(name)
        return values

    def tables(self, params: dict[str, Any]) -> list[Table]:
        """One row per path, beside the model's speed-up."""
        model = self.values(params)["model_speedup"]
        rows = []
        for name, p in self.paths.items():
            what, t = text(f"bench.fusion.path.{name}"), p.timing
            model_cell = {True: model, False: 1.0, None: None}[p.fused]
            measured = (
                (t.ms, t.spread_ms, p.model_bytes / MiB, p.gb_s, self.pct_copy(name))
                if t is not None
                else (None, None, p.model_bytes / MiB, None, None)
            )
            what = what if t is not None else f"{what}({p.reason})"
            rows.append((name, what, *measured, self.speedup(name), model_cell))
        title = text(
            "bench.fusion.table", rows=params["rows"], cols=params["cols"], cores=params["threads"]
        )
        keys = "path what median_ms spread_ms model_mib gb_s pct_copy speedup_eager model_speedup"
        return [Table(title, columns(keys), tuple(rows))]


def _swiglu_into(g: torch.Tensor, u: torch.Tensor, z: torch.Tensor) -> None:
    z.copy_(torch.nn.functional.silu(g) * u)


def _compiled(
    g: torch.Tensor, u: torch.Tensor, z: torch.Tensor, info: dict[str, Any]
) -> Callable[[], object] | None:
    """``torch.compile``'s fused loop, timing its compilation into ``info``; None and the
    reason there if it cannot compile (no C++ compiler, say)."""
    log.info("fusion: compiling with torch.compile (inductor) ...")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn = torch.compile(_swiglu_into, fullgraph=True, dynamic=False)
            t0 = time.perf_counter()
            fn(g, u, z)
            info["compile_s"] = time.perf_counter() - t0
    except Exception as err:  # record why, do not crash
        info["reason"] = f"failed: {_first_line(err)}"
        return None
    return lambda: fn(g, u, z)


@experiment(
    "fusion",
    "cpu",
    FusionResults,
    full={"rows": _CHAIN["rows"], "cols": _CHAIN["cols"], "reps": 15, "warmup": 2},
    quick={"rows": _CHAIN["rows"] // 4, "cols": _CHAIN["cols"] // 3, "reps": 5, "warmup": 1},
)
def fusion(
    rows: int,
    cols: int,
    reps: int,
    *,
    warmup: int,
    compiled: bool = True,
    use_numexpr: bool = True,
    flush: bool = True,
) -> Measured:
    """The activation chain ``z = silu(g) * u`` in fp32, unfused against fused, on the CPU.

    Paths: ``eager`` (``aten.silu`` writes T, ``mul`` reads it back: the unfused plan),
    ``compile`` (``torch.compile``: inductor's one C++ loop; only with ``compiled=True``,
    as compiling takes seconds), ``numexpr`` (one pass, ``threads = usable cores``) and
    ``copy`` (``dst.copy_(g)``, the measured copy bandwidth). Outputs, and eager's T, are
    allocated once beforehand, as a GPU's caching allocator would; a fresh large CPU
    allocation costs page faults that are no part of either plan's traffic.

    GB/s is bytes from the dataflow model (:func:`infrabook.dataflow.account`) over time.
    """
    check_positive_int("rows", rows)
    check_positive_int("cols", cols)
    cores = host.usable_cores()
    gen = torch.Generator().manual_seed(0)
    g = torch.randn(rows, cols, generator=gen)
    u = torch.randn(rows, cols, generator=gen)
    graph = activation_chain(rows, cols, "fp32")
    unfused_b, fused_b = (account(graph, plan(graph)).traffic for plan in (unfused, fully_fused))
    model: dict[str, tuple[int, bool | None]] = {
        "eager": (unfused_b, False),
        "compile": (fused_b, True),
        "numexpr": (fused_b, True),
        "copy": (2 * g.numel() * g.element_size(), None),  # the bandwidth reference
    }
    info: dict[str, dict[str, Any]] = {name: {} for name in model}
    out = {name: torch.empty_like(g) for name in model}
    t_buf = torch.empty_like(g)

    def eager() -> None:
        torch.ops.aten.silu.out(g, out=t_buf)
        torch.mul(t_buf, u, out=out["eager"])

    candidates: dict[str, Callable[[], object] | None] = {"eager": eager}
    candidates["compile"] = _compiled(g, u, out["compile"], info["compile"]) if compiled else None
    if not compiled:
        info["compile"]["reason"] = "skipped: not requested (compiling takes seconds)"
    ne = None
    try:
        ne = importlib.import_module("numexpr") if use_numexpr else None
    except ImportError:
        info["numexpr"]["reason"] = "skipped: numexpr is not installed"
    if not use_numexpr:
        info["numexpr"]["reason"] = "skipped: not requested"
    if ne is not None:
        arrays = {"g": g.numpy(), "u": u.numpy()}
        z_ne = out["numexpr"].numpy()  # numexpr writes into the tensor's memory
        candidates["numexpr"] = partial(ne.evaluate, NUMEXPR_EXPR, local_dict=arrays, out=z_ne)
        info["numexpr"]["threads"] = cores
    candidates["copy"] = partial(out["copy"].copy_, g)
    timed = {name: fn for name, fn in candidates.items() if fn is not None}
    log.info("fusion: timing %s at [%d, %d] fp32, %d reps ...", ", ".join(timed), rows, cols, reps)
    threads_before = ne.set_num_threads(cores) if ne is not None else None
    try:
        flusher = CacheFlush(flush_bytes()) if flush else None
        timings = time_interleaved(timed, warmup=warmup, reps=reps, before=flusher)
    finally:
        if ne is not None:
            ne.set_num_threads(threads_before)
    ref = torch.nn.functional.silu(g) * u
    for name in set(timings) - {"copy"}:
        info[name]["allclose"] = bool(torch.allclose(out[name], ref, rtol=1e-5, atol=1e-6))
    results = FusionResults(
        {n: FusionPath(*model[n], timing=timings.get(n), **info[n]) for n in model}
    )
    best = results.best
    note = "best fused path: " + (best or "none measured")
    flush_text = (
        f"caches flushed before every timed call by reading and writing "
        f"{flush_bytes() // MiB} MiB (2x LLC, at least 64 MiB)"
        if flush
        else "no cache flush"
    )
    notes = "outputs preallocated (no page faults timed); GB/s = model bytes / median time"
    return Measured(
        params={
            "rows": rows,
            "cols": cols,
            "dtype": "fp32",
            "threads": cores,
            "torch_threads": torch.get_num_threads(),
            "compiled": compiled,
            "tensor_mib": g.numel() * g.element_size() / MiB,
        },
        method=_method(warmup, reps, flush_text, notes + "; copy GB/s = (read + written) / time"),
        results=results,
        targets=(
            Target.configured("cpu_fused_speedup", results.speedup(best) if best else None, note),
            Target.configured(
                "cpu_fused_bandwidth", results.pct_copy(best) if best else None, note
            ),
        ),
    )


# -------------------------------------------------------------------- attention memory


@dataclass(frozen=True)
class AttentionRow:
    """Peak bytes of naive and blockwise attention at one L, beside the model's."""

    seq_len: int
    predicted_naive_bytes: int
    predicted_blockwise_bytes: int
    naive_peak_bytes: int
    blockwise_peak_bytes: int
    allclose: bool
    max_abs_diff: float
    naive_s: float
    blockwise_s: float

    @property
    def ratio(self) -> float:
        """Blockwise peak over naive peak."""
        return self.blockwise_peak_bytes / self.naive_peak_bytes


@dataclass(frozen=True)
class AttentionResults(Results):
    """One row per sequence length."""

    per_seq_len: tuple[AttentionRow, ...]

    def values(self, params: dict[str, Any]) -> dict[str, Any]:
        """Peaks in MiB and ratios by L (``naive_peak_mib_<L>``, ...), and the largest L's."""
        per = self.per_seq_len
        values: dict[str, Any] = {"all_close": all(r.allclose for r in per)}
        for r in per:
            values[f"naive_peak_mib_{r.seq_len}"] = r.naive_peak_bytes / MiB
            values[f"blockwise_peak_mib_{r.seq_len}"] = r.blockwise_peak_bytes / MiB
            values[f"predicted_naive_mib_{r.seq_len}"] = r.predicted_naive_bytes / MiB
            values[f"ratio_{r.seq_len}"] = r.ratio
        values["largest_seq_len"] = per[-1].seq_len if per else None
        values["ratio_largest"] = per[-1].ratio if per else None
        return values

    def tables(self, params: dict[str, Any]) -> list[Table]:
        """Model and measured peaks by L."""
        rows = tuple(
            (
                r.seq_len,
                r.predicted_naive_bytes / MiB,
                r.naive_peak_bytes / MiB,
                r.predicted_blockwise_bytes / MiB,
                r.blockwise_peak_bytes / MiB,
                100 * r.ratio,
                r.allclose,
                r.max_abs_diff,
            )
            for r in self.per_seq_len
        )
        p = params
        title = text("bench.attention.table", d=p["head_dim"], bq=p["block_q"], bk=p["block_k"])
        keys = "seq_len model_naive_mib naive_peak_mib model_block_mib block_peak_mib"
        return [Table(title, columns(keys + " block_pct allclose max_diff"), rows)]


@experiment(
    "attention_memory",
    "cpu",
    AttentionResults,
    full={"seq_lens": (1024, 2048, 4096, 8192), "head_dim": 128},
    quick={"seq_lens": (256, 512, 1024), "head_dim": 128},
)
def attention_memory(
    seq_lens: Sequence[int],
    head_dim: int,
    *,
    block_q: int | None = None,
    block_k: int | None = None,
) -> Measured:
    """Peak memory of naive (S, P materialised) and blockwise (online softmax) attention.

    One head, fp32 (numpy has no bf16), tiles from ``conf/scenarios.toml`` [attention]
    unless given. The prediction beside each measurement is the calculator's
    (:func:`infrabook.attention_sizes.attention_sizes`): S + P + O for naive; for blockwise
    O plus one tile's scores and two query-tile-sized buffers.
    """
    conf = config.scenarios()["attention"]
    bq = conf["block_q"] if block_q is None else check_positive_int("block_q", block_q)
    bk = conf["block_k"] if block_k is None else check_positive_int("block_k", block_k)
    rng = np.random.default_rng(0)
    per_len = []
    for n in seq_lens:
        log.info("attention_memory: L=%d, d=%d: naive, then blockwise ...", n, head_dim)
        q, k, v = rng.standard_normal((3, n, head_dim), dtype=np.float32)
        sizes = attention_sizes(n, head_dim, "fp32", "fp32")
        t0 = time.perf_counter()
        o_naive, naive_peak = peak_bytes(naive_attention, q, k, v)
        t1 = time.perf_counter()
        o_block, block_peak = peak_bytes(blockwise_attention, q, k, v, bq, bk)
        t2 = time.perf_counter()
        per_len.append(
            AttentionRow(
                n,
                predicted_naive_bytes=2 * sizes.score_bytes + sizes.qkvo_bytes,
                predicted_blockwise_bytes=sizes.qkvo_bytes + (bq * bk + 2 * bq * head_dim) * 4,
                naive_peak_bytes=naive_peak,
                blockwise_peak_bytes=block_peak,
                allclose=bool(np.allclose(o_block, o_naive, rtol=1e-4, atol=1e-5)),
                max_abs_diff=float(np.max(np.abs(o_block - o_naive))),
                naive_s=t1 - t0,
                blockwise_s=t2 - t1,
            )
        )
    goal = config.bench_targets()["blockwise_peak_8192"]
    at_goal = next((r for r in per_len if r.seq_len == goal["seq_len"]), None)
    missing = "" if at_goal else f"L={goal['seq_len']} not measured in this run"
    return Measured(
        params={
            "seq_lens": list(seq_lens),
            "head_dim": head_dim,
            "dtype": "fp32",
            "block_q": bq,
            "block_k": bk,
        },
        method={
            "measure": "tracemalloc peak over numpy array buffers, above what was "
            "allocated before the call (inputs excluded, output included)",
            "summary": (
                f"peak of one call measured with tracemalloc (numpy's array "
                f"buffers; BLAS scratch not included); fp32, one head, d="
                f"{head_dim}, tiles {bq} x {bk}; allclose rtol 1e-4 atol 1e-5"
            ),
        },
        results=AttentionResults(tuple(per_len)),
        targets=(
            Target.configured(
                "blockwise_peak_8192", 100 * at_goal.ratio if at_goal else None, missing
            ),
        ),
    )


# ----------------------------------------------------------------------------- launches


@dataclass(frozen=True)
class Dispatches:
    """The operators one configuration dispatched over all runs."""

    dispatches: int
    ops_first_run: tuple[str, ...]
    histogram: dict[str, int]


@dataclass(frozen=True)
class LaunchResults(Results):
    """Eager and fused, as counted; the article's counts are beside them when read."""

    eager: Dispatches
    fused: Dispatches

    def values(self, params: dict[str, Any]) -> dict[str, Any]:
        """Dispatches counted, per run, and the article's kernels."""
        runs, article = params["runs"], {c.name: c.kernels for c in article_launch_counts()}
        eager, fused = self.eager.dispatches, self.fused.dispatches
        return {
            "runs": runs,
            "eager_dispatches": eager,
            "fused_dispatches": fused,
            "eager_per_run": eager / runs,
            "fused_per_run": fused / runs,
            "article_eager": article["eager"],
            "article_fused": article["fused"],
            "matches_article": eager == article["eager"] and fused == article["fused"],
        }

    def tables(self, params: dict[str, Any]) -> list[Table]:
        """The operators of one run and the counts, beside the article's."""
        article = {c.name: c.kernels for c in article_launch_counts()}
        rows = tuple(
            (
                text(f"bench.launches.{name}"),
                " → ".join(c.ops_first_run),
                c.dispatches,
                article[name],
            )
            for name, c in (("eager", self.eager), ("fused", self.fused))
        )
        keys = columns("configuration ops_one_run dispatches article_kernels")
        return [Table(text("bench.launches.table", runs=params["runs"]), keys, rows)]


@experiment("launches", "cpu", LaunchResults, full={}, quick={})
def launches(
    runs: int | None = None, rows: int = 8, d_model: int = 64, d_ff: int = 256
) -> Measured:
    """Operator dispatches of ``runs`` FFN runs, eager against fused, as counted.

    ``runs`` defaults to the article's (``conf/scenarios.toml`` [graph_replay]). The numbers
    come from :class:`infrabook.bench.dispatch.DispatchCounter`; the article's are shown
    beside them from :func:`infrabook.launches.article_launch_counts`.
    """
    if runs is None:
        runs = config.scenarios()["graph_replay"]["runs"]
    runs = check_positive_int("runs", runs)
    log.info("launches: counting dispatches of %d FFN runs, eager and fused ...", runs)
    ffn = FFN(rows, d_model, d_ff)
    counted = {fused: count_runs(ffn, runs, fused=fused) for fused in (False, True)}
    eager, fused = (
        Dispatches(c.count(), tuple(c.ops[: len(c.ops) // runs]), c.histogram())
        for c in counted.values()
    )
    return Measured(
        params={
            "runs": runs,
            **ffn.shape,
            "fused_op": "infrabook_bench::swiglu (torch.library.custom_op)",
        },
        method={
            "counter": "torch.utils._python_dispatch.TorchDispatchMode",
            "summary": (
                "operators counted with a TorchDispatchMode under torch.no_grad "
                "(each is one kernel on a GPU); not timed. Graph replay needs "
                "CUDA: see gpu_graphs"
            ),
        },
        results=LaunchResults(eager, fused),
    )


# ------------------------------------------------------------------------------- shapes


@dataclass(frozen=True)
class Peak:
    """An estimated fp32 peak of the usable cores, and how it was estimated."""

    gflop_s: float | None
    basis: str


def _peak_estimate() -> Peak:
    """fp32 peak of the usable cores from /proc/cpuinfo: cores x MHz x FLOP per cycle.

    FLOP per cycle and core, from the widest vector unit the flags show: AVX-512 64
    (2 FMA pipes x 16 lanes x 2 FLOP per FMA), AVX2 with FMA 32 (2 x 8 x 2), AVX alone 16
    (an add and a multiply pipe x 8 lanes). Some AVX-512 parts have one FMA pipe, and boost
    clocks differ from the MHz listed: an estimate, which the record says.
    """
    info = host.cpu_info()
    flags = set(info["vector"])
    if "avx512f" in flags:
        per_cycle, pipes = 64, "2 FMA pipes x 16 lanes (AVX-512) x 2"
    elif {"avx2", "fma"} <= flags:
        per_cycle, pipes = 32, "2 FMA pipes x 8 lanes (AVX2) x 2"
    elif "avx" in flags:
        per_cycle, pipes = 16, "an add and a multiply pipe x 8 lanes (AVX, no FMA)"
    else:
        return Peak(None, "unknown (no AVX flags in /proc/cpuinfo)")
    if not info["mhz"]:
        return Peak(None, "unknown (no clock in /proc/cpuinfo)")
    cores, mhz = info["usable_cores"], info["mhz"]
    return Peak(
        cores * mhz / 1e3 * per_cycle,
        f"{cores} cores x {mhz:.0f} MHz x {per_cycle} fp32 FLOP/cycle "
        f"({pipes}; an estimate, boost clocks differ)",
    )


@dataclass(frozen=True)
class Prep:
    """Milliseconds of ``torch.compile`` first calls: start-up, the generic graph (first
    shape, then the others), one graph per bucket and one per distinct shape."""

    startup_ms: float
    generic_ms: tuple[float, ...]
    per_bucket_ms: dict[str, float]
    per_shape_ms: dict[str, float]

    def total_ms(self, strategy: str) -> float:
        """What a strategy pays before its first run."""
        return {
            "generic": self.generic_ms[0],
            "bucketed": sum(self.per_bucket_ms.values()),
            "specialised": sum(self.per_shape_ms.values()),
        }[strategy]


@dataclass(frozen=True)
class ShapesResults(Results):
    """The matmul sweep (a timing per row count) and the call group per strategy."""

    sweep: dict[str, Timing]
    groups: dict[str, Timing]
    est_peak: Peak
    prep: Prep | None = None

    def rates(self, params: dict[str, Any]) -> dict[int, float]:
        """GFLOP/s of the sweep by row count."""
        k, n = params["k"], params["n"]
        return {int(r): 2 * int(r) * k * n / t.median_s / 1e9 for r, t in self.sweep.items()}

    def group_rows(self, params: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """Per strategy: rows executed, padding, useful and executed GFLOP/s, preparation."""
        calls, flop_per_row = params["calls"], 2 * params["k"] * params["n"]
        real = actual_rows(calls)
        out = {}
        for name, t in self.groups.items():
            buckets = params["buckets"] if name == "bucketed" else None
            executed = executed_rows(calls, buckets)
            out[name] = {
                "executed_rows": executed,
                "padding_pct": 100 * padding_fraction(calls, buckets) if buckets else 0.0,
                "useful_gflop_s": real * flop_per_row / t.median_s / 1e9,
                "executed_gflop_s": executed * flop_per_row / t.median_s / 1e9,
                "prep_ms": self.prep.total_ms(name) if self.prep else None,
            }
        return out

    def crossovers(self) -> list[tuple[str, str, float | None, bool]]:
        """Each pair's crossing of T = P + n·T_run (None for parallel lines), and whether
        their run times are within noise."""
        if self.prep is None:
            return []
        lines = [Line(n, self.prep.total_ms(n), t.ms) for n, t in self.groups.items()]
        return [
            (a.name, b.name, None if a.run_ms == b.run_ms else crossover(a, b), tie)
            for i, a in enumerate(lines)
            for b in lines[i + 1 :]
            for tie in [self.groups[a.name].ties(self.groups[b.name])]
        ]

    def values(self, params: dict[str, Any]) -> dict[str, Any]:
        """Rates by rows (``gflop_s_<rows>``), group times, preparations and crossovers."""
        rates, groups = self.rates(params), self.group_rows(params)
        best = max(rates.values())
        values: dict[str, Any] = {f"gflop_s_{r}": rate for r, rate in rates.items()}
        values["best_gflop_s"] = best
        values["smallest_pct_of_best"] = 100 * next(iter(rates.values())) / best
        values["est_peak_gflop_s"] = self.est_peak.gflop_s
        values["padding_pct"] = groups["bucketed"]["padding_pct"]
        for name, group in groups.items():
            values[f"{name}_ms"] = self.groups[name].ms
            values[f"{name}_prep_ms"] = group["prep_ms"]
            values[f"{name}_executed_gflop_s"] = group["executed_gflop_s"]
        for a, b, runs, _ in self.crossovers():
            values[f"crossover_{a}_{b}"] = runs
        values["bucketed_vs_generic"] = values["bucketed_ms"] / values["generic_ms"]
        return values

    def tables(self, params: dict[str, Any]) -> list[Table]:
        """The sweep, the group by strategy and, with preparation, the crossovers."""
        rates, groups, peak = self.rates(params), self.group_rows(params), self.est_peak.gflop_s
        best = max(rates.values())
        sweep = tuple(
            (r, self.sweep[str(r)].ms, rate, 100 * rate / best, 100 * rate / peak if peak else None)
            for r, rate in rates.items()
        )
        group = tuple(
            (
                text(f"bench.strategy.{name}"),
                g["executed_rows"],
                g["padding_pct"],
                self.groups[name].ms,
                self.groups[name].spread_ms,
                g["executed_gflop_s"],
                g["useful_gflop_s"],
                g["prep_ms"],
            )
            for name, g in groups.items()
        )
        calls = ", ".join(f"{c}x{rows}" for rows, c in params["calls"])
        n_calls = sum(c for _, c in params["calls"])
        tables = [
            Table(
                text("bench.shapes.sweep", k=params["k"], n=params["n"]),
                columns("rows median_ms gflop_s pct_best pct_peak"),
                sweep,
            ),
            Table(
                text("bench.shapes.group", n=n_calls, calls=calls, buckets=params["buckets"]),
                columns(
                    "strategy rows_executed padding_pct group_ms spread_ms "
                    "executed_gflop_s useful_gflop_s prep_ms"
                ),
                group,
            ),
        ]
        crossings = tuple(
            (
                f"{text(f'bench.strategy.{a}')} / {text(f'bench.strategy.{b}')}",
                runs,
                self._meaning(a, b, runs, tie),
            )
            for a, b, runs, tie in self.crossovers()
        )
        if crossings:
            keys = columns("pair runs_star meaning")
            tables.append(Table(text("bench.shapes.cross"), keys, crossings))
        return tables

    def _meaning(self, a: str, b: str, runs: float | None, tie: bool) -> str:
        """What a crossing means, in words: which strategy is cheaper for which run counts."""
        if runs is None or self.prep is None:
            return text("bench.shapes.same_run")
        cheap = a if self.prep.total_ms(a) <= self.prep.total_ms(b) else b
        fast = a if self.groups[a].median_s < self.groups[b].median_s else b
        name = {s: text(f"bench.strategy.{s}") for s in (cheap, fast)}
        if cheap == fast:
            words = text("bench.shapes.always", name=name[fast])
        else:
            words = text(
                "bench.shapes.below", cheap=name[cheap], runs=f"{runs:.1f}", fast=name[fast]
            )
        return words + (text("bench.shapes.noise") if tie else "")


@experiment(
    "shapes",
    "cpu",
    ShapesResults,
    full={
        "rows": (16, 32, 64, 128, 256, 512, 1024, 2048),
        "k": 1024,
        "n": 1024,
        "reps": 10,
        "warmup": 2,
        "scale": 1,
        "prep": "compile",
    },
    quick={
        "rows": (16, 64, 256, 1024),
        "k": 256,
        "n": 256,
        "reps": 3,
        "warmup": 1,
        "scale": 4,
        "prep": "compile",
    },
)
def shapes(
    rows: Sequence[int], k: int, n: int, reps: int, *, warmup: int, scale: int, prep: str
) -> Measured:
    """Matmul rate against rows, and the article's ten calls run generic vs bucketed.

    Part 1: ``x @ w`` for x [rows, k], w [k, n], fp32: GFLOP/s for each row count.
    Part 2: the ten calls of ``conf/scenarios.toml`` [bucketing] (rows and buckets divided by
    ``scale``), run *generic* (each call at its own size) and *bucketed* (each call copied
    into the first rows of its bucket's buffer, allocated once, and the whole buffer
    multiplied; the copy is timed); with ``prep="compile"`` also *specialised* (a static
    graph per distinct shape). A bucket's padding rows start as zeros and then hold
    whatever a longer call left there: they are never re-zeroed, as their output rows are
    discarded and a dense fp32 matmul takes the same time over any finite normal values
    (only subnormals slow x86 floating point, and neither zeros nor these rows are).

    ``prep="compile"``: the preparation each strategy needs is measured as what it is on a
    compiler stack: ``torch.compile`` with caches disabled, one dynamic-shape graph for
    generic, one static graph per bucket, one per distinct shape for specialised; run
    times are then of those compiled graphs (on the CPU inductor calls the same BLAS
    matmul for every shape). The crossovers follow from :mod:`infrabook.crossover`.
    ``prep="none"``: eager runs, no preparation measured, no crossovers (seconds faster).
    """
    if prep not in ("none", "compile"):
        raise ValueError(f"prep must be 'none' or 'compile', got {prep!r}")
    for name, size in (("k", k), ("n", n), ("scale", scale)):
        check_positive_int(name, size)
    if not rows:
        raise ValueError("rows must name at least one row count for the sweep, got none")
    for r in rows:
        check_positive_int("rows", r)
    gen = torch.Generator().manual_seed(0)
    w = torch.randn(k, n, generator=gen) / math.sqrt(k)

    log.info("shapes: matmul sweep over rows %s at k=%d, n=%d ...", list(rows), k, n)
    xs = {r: torch.randn(r, k, generator=gen) for r in rows}
    outs = {r: torch.empty(r, n) for r in rows}
    sweep = {str(r): partial(torch.mm, xs[r], w, out=outs[r]) for r in rows}
    sweep_t = time_interleaved(sweep, warmup=warmup, reps=reps)

    conf = config.scenarios()["bucketing"]
    calls = check_calls([[max(1, r // scale), c] for r, c in conf["calls"]])
    buckets = check_buckets([max(1, b // scale) for b in conf["buckets"]])
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
            compile_error = _first_line(err)

    # Everything but the work itself is looked up here, before timing: the input of each
    # call and, for bucketed, its bucket's buffer and the rows it is copied into. The timed
    # loops then differ only in the copy and the padding rows.
    call_inputs = [inputs[r] for r in sequence]
    bucket_plan = [
        (inputs[r], padded[bucket_for(r, buckets)][:r], padded[bucket_for(r, buckets)])
        for r in sequence
    ]

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
    peak = _peak_estimate()
    prep_text = {
        "none": "no preparation measured (prep='none')",
        "compile": (
            "prep = first-call time of torch.compile with caches disabled: 1 "
            "dynamic graph (generic), 1 static graph per bucket (bucketed), "
            "1 per distinct shape (specialised); runs use those graphs"
        ),
    }[prep]
    if compile_error:
        prep_text = f"torch.compile failed ({compile_error}): eager runs, no prep measured"
    return Measured(
        params={
            "rows": list(rows),
            "k": k,
            "n": n,
            "dtype": "fp32",
            "scale": scale,
            "calls": [list(c) for c in calls],
            "buckets": list(buckets),
            "prep": prep,
            "threads": torch.get_num_threads(),
        },
        method=_method(
            warmup,
            reps,
            "no cache flush (weights stay cached, as in a serving loop)",
            prep_text,
            prep=prep,
            compile_error=compile_error,
            peak_estimate=peak.basis,
        ),
        results=ShapesResults(sweep_t, group_t, peak, measured_prep),
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
