"""The CPU experiments: fusion, attention memory, dispatch counts and shapes.

Each is declared beside the frozen dataclass of results it stores: the full sizes are the
article's, the quick ones run in seconds (what a page runs live on two cores). Times on a
shared CPU are noisy: every entry records the load beside them.
"""

from __future__ import annotations

import importlib
import math
import time
import tracemalloc
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import torch

from infrabook import bucketing, config
from infrabook.attention_sizes import attention_sizes
from infrabook.bench import host, validate
from infrabook.bench.dispatch import FFN, count_runs
from infrabook.bench.experiment import Measured, experiment, log, table
from infrabook.bench.record import Results, Target
from infrabook.bench.timing import Timing, cache_flush, time_interleaved
from infrabook.checks import check_positive_int, check_sizes
from infrabook.crossover import Line, pairwise
from infrabook.dataflow import account, fully_fused, unfused
from infrabook.ffn_chain import activation_chain
from infrabook.labels import text
from infrabook.launches import article_launch_counts
from infrabook.reference_attention import blockwise_attention, naive_attention
from infrabook.tables import Table
from infrabook.units import MiB

#: The fused expression numexpr evaluates: silu(g) * u written out.
NUMEXPR_EXPR = "g / (1 + exp(-g)) * u"

_CHAIN = config.scenarios().ffn_chain


def _timed(params: dict[str, Any], *clauses: str) -> str:
    """How interleaved repetitions were timed, then ``clauses``, in the page's language."""
    timed = text("bench.method.interleaved", reps=params["reps"], warmup=params["warmup"])
    return text("word.list_sep").join((timed, *clauses))


def _first_line(err: BaseException) -> str:
    """An error's type and first line, for a record: folders in it (a compiler's cache path
    names the user) are cut to ``…/``, since a record holds no path.

    >>> _first_line(OSError("cannot open /tmp/torchinductor_ada/x.cpp\\nmore"))
    'OSError: cannot open …/x.cpp'
    """
    lines = str(err).strip().splitlines()
    first = validate.PATH.sub("…/", lines[0] if lines else "")
    return f"{type(err).__name__}: {first}"[:300]


def peak_bytes(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, int]:
    """``fn``'s result and the peak bytes it allocated above what was allocated before, as
    :mod:`tracemalloc` sees them (numpy reports every array buffer; BLAS scratch is not).

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

    @property
    def gb_s(self) -> float:
        """Model bytes over the median time."""
        assert self.timing is not None, "a path that did not run has no bandwidth"
        return self.timing.gb_s(self.model_bytes)


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

    def method(self, params: dict[str, Any]) -> str:
        """Repetitions, the cache flush, and how GB/s is counted."""
        mib = params["flush_mib"]
        flush = text("bench.method.flush", mib=mib) if mib else text("bench.method.no_flush")
        return _timed(params, flush, text("bench.method.fusion"))

    def compared(
        self, params: dict[str, Any], device: dict[str, Any]
    ) -> dict[str, tuple[float | None, float | None]]:
        """Each fused path's speed-up over eager (model: the bytes' ratio) and each path's
        bandwidth as a share of the copy's (model: 100 %, every path moving its modelled
        bytes at copy bandwidth); the copy's GB/s beside them, without a model."""
        rows: dict[str, tuple[float | None, float | None]] = {}
        ran = [n for n, p in self.paths.items() if p.timing is not None]
        for name in ran:
            if self.paths[name].fused:
                row = text("bench.cmp.speedup", what=name)
                rows[row] = (self.model_speedup, self.speedup(name))
        for name in ran:
            if name != "copy" and "copy" in ran:
                rows[text("bench.cmp.pct_copy", what=name)] = (100.0, self.pct_copy(name))
        if "copy" in ran:
            rows[text("bench.cmp.copy_gb_s")] = (None, self.paths["copy"].gb_s)
        return rows

    def tables(self, params: dict[str, Any], device: dict[str, Any]) -> list[Table]:
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
        info["reason"] = f"failed: {_first_line(err)}"
        return None
    return partial(fn, g, u, z)


@experiment(
    "fusion",
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

    @property
    def ratio(self) -> float:
        """Blockwise peak over naive peak."""
        return self.blockwise_peak_bytes / self.naive_peak_bytes


@dataclass(frozen=True)
class AttentionResults(Results):
    """One row per sequence length."""

    per_seq_len: tuple[AttentionRow, ...]

    def compared(
        self, params: dict[str, Any], device: dict[str, Any]
    ) -> dict[str, tuple[float | None, float | None]]:
        """Naive and blockwise peak MiB at each L, beside the model's."""
        rows: dict[str, tuple[float | None, float | None]] = {}
        for r in self.per_seq_len:
            naive, block = r.predicted_naive_bytes / MiB, r.predicted_blockwise_bytes / MiB
            rows[text("bench.cmp.naive_mib", L=r.seq_len)] = (naive, r.naive_peak_bytes / MiB)
            rows[text("bench.cmp.block_mib", L=r.seq_len)] = (block, r.blockwise_peak_bytes / MiB)
        return rows

    def tables(self, params: dict[str, Any], device: dict[str, Any]) -> list[Table]:
        """Model and measured peaks by L."""
        rows = (
            (r.seq_len, r.predicted_naive_bytes / MiB, r.naive_peak_bytes / MiB)
            + (r.predicted_blockwise_bytes / MiB, r.blockwise_peak_bytes / MiB, 100 * r.ratio)
            + (r.allclose, r.max_abs_diff)
            for r in self.per_seq_len
        )
        p = params
        title = text("bench.attention.table", d=p["head_dim"], bq=p["block_q"], bk=p["block_k"])
        keys = "seq_len model_naive_mib naive_peak_mib model_block_mib block_peak_mib"
        return [table(title, keys + " block_pct allclose max_diff", rows)]


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
    unless given. Beside each measurement, the calculator's prediction
    (:func:`infrabook.attention_sizes.attention_sizes`): S + P + O for naive; for blockwise
    O plus one tile's scores and two query-tile-sized buffers.
    """
    conf = config.scenarios().attention
    bq = conf.block_q if block_q is None else check_positive_int("block_q", block_q)
    bk = conf.block_k if block_k is None else check_positive_int("block_k", block_k)
    rng, per_len = np.random.default_rng(0), []
    for n in check_sizes("seq_lens", seq_lens):
        log.info("attention_memory: L=%d, d=%d: naive, then blockwise ...", n, head_dim)
        q, k, v = rng.standard_normal((3, n, head_dim), dtype=np.float32)
        sizes = attention_sizes(n, head_dim, "fp32", "fp32")
        tile_bytes = (bq * bk + 2 * bq * head_dim) * 4  # a tile's scores, two query-tile buffers
        model = (2 * sizes.score_bytes + sizes.qkvo_bytes, sizes.qkvo_bytes + tile_bytes)
        o_naive, naive_peak = peak_bytes(naive_attention, q, k, v)
        o_block, block_peak = peak_bytes(blockwise_attention, q, k, v, bq, bk)
        close = bool(np.allclose(o_block, o_naive, rtol=1e-4, atol=1e-5))
        diff = float(np.max(np.abs(o_block - o_naive)))
        per_len.append(AttentionRow(n, *model, naive_peak, block_peak, close, diff))
    return Measured(
        AttentionResults(tuple(per_len)),
        (Target.at_seq_len("blockwise_peak_8192", per_len, lambda r: 100 * r.ratio),),
        {"dtype": "fp32", "block_q": bq, "block_k": bk},
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

    def compared(
        self, params: dict[str, Any], device: dict[str, Any]
    ) -> dict[str, tuple[float | None, float | None]]:
        """Dispatches counted, beside the article's kernel counts."""
        article = {c.name: c.kernels for c in article_launch_counts()}
        counted = (("eager", self.eager), ("fused", self.fused))
        return {
            text("bench.cmp.dispatches", what=text(f"bench.launches.{n}")): (
                article[n],
                c.dispatches,
            )
            for n, c in counted
        }

    def tables(self, params: dict[str, Any], device: dict[str, Any]) -> list[Table]:
        """The operators of one run and the counts, beside the article's."""
        article = {c.name: c.kernels for c in article_launch_counts()}
        rows = (
            (text(f"bench.launches.{n}"), " → ".join(c.ops_first_run), c.dispatches, article[n])
            for n, c in (("eager", self.eager), ("fused", self.fused))
        )
        keys = "configuration ops_one_run dispatches article_kernels"
        return [table(text("bench.launches.table", runs=params["runs"]), keys, rows)]


@experiment("launches", "cpu", LaunchResults, full={}, quick={})
def launches(
    runs: int | None = None, rows: int = 8, d_model: int = 64, d_ff: int = 256
) -> Measured:
    """Operator dispatches of ``runs`` FFN runs (the article's, ``conf/scenarios.toml``
    [graph_replay], by default), eager against fused, as counted by
    :class:`infrabook.bench.dispatch.DispatchCounter`."""
    default = config.scenarios().graph_replay.runs
    runs = check_positive_int("runs", default if runs is None else runs)
    log.info("launches: counting dispatches of %d FFN runs, eager and fused ...", runs)
    ffn = FFN(rows, d_model, d_ff)
    eager, fused = (
        Dispatches(len(c.ops), tuple(c.ops[: len(c.ops) // runs]), dict(Counter(c.ops)))
        for c in (count_runs(ffn, runs, fused=fused) for fused in (False, True))
    )
    return Measured(
        LaunchResults(eager, fused),
        params={"runs": runs, "fused_op": "infrabook_bench::swiglu (torch.library.custom_op)"},
    )


# ------------------------------------------------------------------------------- shapes


#: fp32 FLOP per cycle and core of the widest vector unit the flags show, widest first.
#: Some AVX-512 parts have one FMA pipe, and boost clocks differ from the MHz listed.
_VECTOR_UNITS = (({"avx512f"}, 64, "avx512f"), ({"avx2", "fma"}, 32, "avx2"), ({"avx"}, 16, "avx"))


def _peak_basis() -> dict[str, Any] | None:
    """What an fp32 peak of the usable cores is estimated from (cores x MHz x FLOP per
    cycle, from /proc/cpuinfo); None without AVX flags or a clock."""
    info = host.cpu_info()
    unit = next((u for u in _VECTOR_UNITS if u[0] <= set(info["vector"])), None)
    if unit is None or not info["mhz"]:
        return None
    _, per_cycle, name = unit
    return {"cores": info["usable_cores"], "mhz": info["mhz"], "per_cycle": per_cycle, "unit": name}


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
        if strategy == "generic":
            return self.generic_ms[0]
        return sum((self.per_bucket_ms if strategy == "bucketed" else self.per_shape_ms).values())


@dataclass(frozen=True)
class ShapesResults(Results):
    """The matmul sweep (a timing per row count) and the call group per strategy."""

    sweep: dict[str, Timing]
    groups: dict[str, Timing]
    prep: Prep | None = None

    @staticmethod
    def est_peak_gflop_s(params: dict[str, Any]) -> float | None:
        """The estimated fp32 peak of the usable cores, if there is a basis for one."""
        b = params["peak_basis"]
        return None if b is None else b["cores"] * b["mhz"] / 1e3 * b["per_cycle"]

    def method(self, params: dict[str, Any]) -> str:
        """Repetitions, no flush, how preparation was measured and the peak's basis."""
        error, basis = params["compile_error"], params["peak_basis"]
        if error:
            prep = text("bench.method.prep_failed", error=error)
        else:
            prep = text(f"bench.method.prep_{params['prep']}")
        peak = text("bench.method.peak_unknown")
        if basis:
            unit = text(f"bench.method.unit.{basis['unit']}")
            peak = text("bench.method.peak", **(basis | {"unit": unit}))
        return _timed(params, text("bench.method.shapes"), prep, peak)

    def rates(self, params: dict[str, Any]) -> dict[int, float]:
        """GFLOP/s of the sweep by row count."""
        flop_per_row = 2 * params["k"] * params["n"]
        return {int(r): int(r) * flop_per_row / t.median_s / 1e9 for r, t in self.sweep.items()}

    def crossovers(self) -> dict[tuple[str, str], tuple[float | None, bool]]:
        """Each pair's crossing of T = P + n·T_run (None for parallel lines), and whether
        their run times are within noise; none without measured preparation."""
        if self.prep is None:
            return {}
        lines = [Line(n, self.prep.total_ms(n), t.ms) for n, t in self.groups.items()]
        ties = self.groups
        return {(c.a, c.b): (c.runs, ties[c.a].ties(ties[c.b])) for c in pairwise(lines)}

    def compared(
        self, params: dict[str, Any], device: dict[str, Any]
    ) -> dict[str, tuple[float | None, float | None]]:
        """Each strategy's group time over generic's, beside the book's model (time in
        proportion to rows executed), and the best matmul rate as a share of the estimated
        peak, without a model."""
        calls, generic = params["calls"], self.groups.get("generic")
        rows: dict[str, tuple[float | None, float | None]] = {}
        for name, t in self.groups.items():
            if name == "generic" or generic is None:
                continue
            buckets = params["buckets"] if name == "bucketed" else None
            model = bucketing.executed_rows(calls, buckets) / bucketing.actual_rows(calls)
            what = text(f"bench.strategy.{name}")
            rows[text("bench.cmp.group_ratio", what=what)] = (model, t.median_s / generic.median_s)
        peak = self.est_peak_gflop_s(params)
        if peak:
            rows[text("bench.cmp.pct_peak")] = (None, 100 * max(self.rates(params).values()) / peak)
        return rows

    def tables(self, params: dict[str, Any], device: dict[str, Any]) -> list[Table]:
        """The sweep, the group by strategy and, with preparation, the crossovers."""
        rates, peak, calls = self.rates(params), self.est_peak_gflop_s(params), params["calls"]
        best = max(rates.values())
        sweep = (
            (r, self.sweep[str(r)].ms, rate, 100 * rate / best, 100 * rate / peak if peak else None)
            for r, rate in rates.items()
        )
        flop_per_row, group = 2 * params["k"] * params["n"], []
        for name, t in self.groups.items():
            buckets = params["buckets"] if name == "bucketed" else None
            executed = bucketing.executed_rows(calls, buckets)
            padding = 100 * bucketing.padding_fraction(calls, buckets) if buckets else 0.0
            rates_ = (executed, bucketing.actual_rows(calls))  # executed and useful GFLOP/s
            gflop_s = (rows * flop_per_row / t.median_s / 1e9 for rows in rates_)
            prep = self.prep.total_ms(name) if self.prep else None
            row = (text(f"bench.strategy.{name}"), executed, padding, t.ms, t.spread_ms)
            group.append((*row, *gflop_s, prep))
        listed, n_calls = ", ".join(f"{c}x{r}" for r, c in calls), sum(c for _, c in calls)
        titles = [text("bench.shapes.sweep", k=params["k"], n=params["n"])]
        titles += [text("bench.shapes.group", n=n_calls, calls=listed, buckets=params["buckets"])]
        keys = (
            "strategy rows_executed padding_pct group_ms spread_ms executed_gflop_s useful_gflop_s"
        )
        tables = [table(titles[0], "rows median_ms gflop_s pct_best pct_peak", sweep)]
        tables.append(table(titles[1], f"{keys} prep_ms", group))
        crossings = [
            (f"{text(f'bench.strategy.{a}')} / {text(f'bench.strategy.{b}')}", runs)
            + (self._meaning(a, b, runs),)
            for (a, b), (runs, tie) in self.crossovers().items()
            if runs is not None and self.shown_crossing(runs, tie)
        ]
        if crossings:
            title = f"{text('bench.shapes.cross')}{text('bench.shapes.cross_note')}"
            tables.append(table(title, "pair runs_star meaning", crossings))
        return tables

    @staticmethod
    def shown_crossing(runs: float | None, tie: bool) -> bool:
        """Whether a crossing goes into the table: one at a positive number of runs, between
        lines whose run times differ by more than their noise. Parallel lines never cross; a
        negative crossing lies before the first run (one strategy is cheaper for every n);
        and where the run times are within noise the crossing's place is noise too (a
        hair's change of slope moves it by thousands of runs, or past zero).

        >>> ShapesResults.shown_crossing(65.2, False), ShapesResults.shown_crossing(-1121.0, True)
        (True, False)
        >>> ShapesResults.shown_crossing(None, False), ShapesResults.shown_crossing(40.0, True)
        (False, False)
        """
        return runs is not None and runs > 0 and not tie

    def _meaning(self, a: str, b: str, runs: float) -> str:
        """What a crossing at a positive number of runs means, in words: the strategy that is
        cheaper to prepare wins below it, the one that runs faster above it."""
        assert self.prep is not None, "crossings come from measured preparation"
        cheap, fast = (a, b) if self.prep.total_ms(a) <= self.prep.total_ms(b) else (b, a)
        name = {s: text(f"bench.strategy.{s}") for s in (cheap, fast)}
        return text("bench.shapes.below", cheap=name[cheap], runs=f"{runs:.1f}", fast=name[fast])


_SHAPES_FULL = {"rows": (16, 32, 64, 128, 256, 512, 1024, 2048), "k": 1024, "n": 1024, "reps": 10}
# The quick sweep holds the quick buckets (128, 512), which the bucketing page quotes.
_SHAPES_QUICK = {"rows": (16, 64, 128, 256, 512, 1024), "k": 256, "n": 256, "reps": 3}


@experiment(
    "shapes",
    "cpu",
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
            compile_error = _first_line(err)

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
