"""The CPU experiments: fusion, attention memory, dispatch counts and shapes.

Each is declared with :func:`~infrabook.bench.experiment.experiment`: the full sizes are
the article's, the quick ones run in seconds (what a page runs live on two cores). Next to
each, ``derive`` gives the numbers the prose quotes and ``tabulate`` the table a page
shows, both computed from the stored results when the record is read.

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
from functools import partial
from typing import Any

import numpy as np
import torch

from infrabook import config
from infrabook.attention_sizes import attention_sizes
from infrabook.bench import host
from infrabook.bench.dispatch import EAGER_OPS, FFN, count_runs
from infrabook.bench.experiment import Measured, columns, experiment, log
from infrabook.bench.record import Entry, Target
from infrabook.bench.timing import CacheFlush, time_interleaved
from infrabook.bucketing import (
    actual_rows,
    bucket_for,
    check_buckets,
    check_calls,
    executed_rows,
    padding_fraction,
)
from infrabook.checks import check_positive_int
from infrabook.crossover import Line, crossover, regimes
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


def _method(warmup: int, reps: int, flush: str, **extra: Any) -> dict[str, Any]:
    summary = (
        f"median of {reps} reps after {warmup} warm-ups, spread p20–p80, "
        f"candidates interleaved; {flush}"
    )
    if extra.get("notes"):
        summary += f"; {extra['notes']}"
    return {
        "timer": "time.perf_counter",
        "warmup": warmup,
        "reps": reps,
        "statistic": "median",
        "spread": "p20-p80",
        "interleaved": True,
        "cache_flush": flush,
        **extra,
        "summary": summary,
    }


def _first_line(err: BaseException) -> str:
    lines = str(err).strip().splitlines()
    return f"{type(err).__name__}: {lines[0] if lines else ''}"[:300]


def _spread_ms(t: dict[str, Any]) -> str:
    return f"{t['p20_s'] * 1e3:.2f}–{t['p80_s'] * 1e3:.2f}"


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


def _swiglu_into(g: torch.Tensor, u: torch.Tensor, z: torch.Tensor) -> None:
    z.copy_(torch.nn.functional.silu(g) * u)


@experiment(
    "fusion",
    "cpu",
    full={
        "rows": _CHAIN["rows"],
        "cols": _CHAIN["cols"],
        "reps": 15,
        "warmup": 2,
        "compiled": True,
    },
    quick={
        "rows": _CHAIN["rows"] // 4,
        "cols": _CHAIN["cols"] // 3,
        "reps": 5,
        "warmup": 1,
        "compiled": True,
    },
)
def fusion(
    rows: int,
    cols: int,
    reps: int,
    *,
    warmup: int,
    compiled: bool,
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
    ref = torch.nn.functional.silu(g) * u
    graph = activation_chain(rows, cols, "fp32")
    bytes_unfused = account(graph, unfused(graph)).traffic
    bytes_fused = account(graph, fully_fused(graph)).traffic
    tensor_bytes = g.numel() * g.element_size()

    paths: dict[str, dict[str, Any]] = {
        "eager": {"model_bytes": bytes_unfused, "fused": False},
        "compile": {"model_bytes": bytes_fused, "fused": True},
        "numexpr": {"model_bytes": bytes_fused, "fused": True},
        "copy": {"model_bytes": 2 * tensor_bytes, "fused": None},
    }
    candidates: dict[str, Callable[[], object]] = {}
    t_buf, z_eager = torch.empty_like(g), torch.empty_like(g)

    def eager() -> None:
        torch.ops.aten.silu.out(g, out=t_buf)
        torch.mul(t_buf, u, out=z_eager)

    candidates["eager"] = eager
    if compiled:
        z_c = torch.empty_like(g)
        log.info("fusion: compiling with torch.compile (inductor) ...")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn = torch.compile(_swiglu_into, fullgraph=True, dynamic=False)
                t0 = time.perf_counter()
                fn(g, u, z_c)
                paths["compile"]["compile_s"] = time.perf_counter() - t0
            paths["compile"]["allclose"] = bool(torch.allclose(z_c, ref, rtol=1e-5, atol=1e-6))
            candidates["compile"] = lambda: fn(g, u, z_c)
        except Exception as err:  # record why, do not crash: e.g. no C++ compiler
            paths["compile"].update(status="failed", reason=_first_line(err))
    else:
        paths["compile"].update(
            status="skipped", reason="not requested (compiled=False: compiling takes seconds)"
        )

    ne: Any = None
    if use_numexpr:
        try:
            ne = importlib.import_module("numexpr")
        except ImportError:
            paths["numexpr"].update(status="skipped", reason="numexpr is not installed")
    else:
        paths["numexpr"].update(status="skipped", reason="not requested")
    ne_threads_before = None
    if ne is not None:
        ne_threads_before = ne.set_num_threads(cores)
        g_np, u_np = g.numpy(), u.numpy()
        z_ne = np.empty_like(g_np)

        def numexpr_path() -> None:
            ne.evaluate(NUMEXPR_EXPR, local_dict={"g": g_np, "u": u_np}, out=z_ne)

        numexpr_path()
        paths["numexpr"].update(
            threads=cores, allclose=bool(np.allclose(z_ne, ref.numpy(), rtol=1e-5, atol=1e-6))
        )
        candidates["numexpr"] = numexpr_path

    dst = torch.empty_like(g)
    candidates["copy"] = lambda: dst.copy_(g)
    flusher = CacheFlush(flush_bytes()) if flush else None
    log.info(
        "fusion: timing %s at [%d, %d] fp32, %d reps interleaved ...",
        ", ".join(candidates),
        rows,
        cols,
        reps,
    )
    try:
        timings = time_interleaved(candidates, warmup=warmup, reps=reps, before=flusher)
    finally:
        if ne is not None and ne_threads_before is not None:
            ne.set_num_threads(ne_threads_before)
    paths["eager"]["allclose"] = bool(torch.allclose(z_eager, ref, rtol=1e-5, atol=1e-6))

    copy_gb_s = paths["copy"]["model_bytes"] / timings["copy"].median / 1e9
    for name, info in paths.items():
        info.setdefault("status", "ok")
        if name in timings:
            t = timings[name]
            info["timing"] = t.as_dict()
            info["gb_s"] = info["model_bytes"] / t.median / 1e9
            info["pct_copy"] = 100 * info["gb_s"] / copy_gb_s
            info["speedup_vs_eager"] = (
                timings["eager"].median / t.median if name != "copy" else None
            )
    fused_ok = [n for n, p in paths.items() if p["fused"] and "timing" in p]
    best = min(fused_ok, key=lambda n: paths[n]["timing"]["median_s"]) if fused_ok else None
    note = "best fused path: " + (best or "none measured")
    speedup = paths[best]["speedup_vs_eager"] if best else None
    pct = paths[best]["pct_copy"] if best else None
    flush_text = (
        f"caches flushed before every timed call by reading and writing "
        f"{flush_bytes() // MiB} MiB (2x LLC, at least 64 MiB)"
        if flush
        else "no cache flush"
    )
    return Measured(
        params={
            "rows": rows,
            "cols": cols,
            "dtype": "fp32",
            "threads": cores,
            "torch_threads": torch.get_num_threads(),
            "compiled": compiled,
            "tensor_mib": tensor_bytes / MiB,
        },
        method=_method(
            warmup,
            reps,
            flush_text,
            notes="outputs preallocated (no page faults timed); GB/s = model bytes "
            "/ median time; copy GB/s = (read + written) / time",
        ),
        results={"paths": paths, "best_fused": best},
        targets=(
            Target.configured("cpu_fused_speedup", speedup, note),
            Target.configured("cpu_fused_bandwidth", pct, note),
        ),
    )


@fusion.derive
def _fusion_values(e: Entry) -> dict[str, Any]:
    paths, best = e.results["paths"], e.results["best_fused"]
    fused_bytes = next(p["model_bytes"] for p in paths.values() if p["fused"])
    values: dict[str, Any] = {
        "model_speedup": paths["eager"]["model_bytes"] / fused_bytes,
        "model_unfused_mib": paths["eager"]["model_bytes"] / MiB,
        "model_fused_mib": fused_bytes / MiB,
        "copy_gb_s": paths["copy"]["gb_s"],
        "best_path": best,
        "best_speedup": paths[best]["speedup_vs_eager"] if best else None,
        "best_gb_s": paths[best]["gb_s"] if best else None,
        "best_pct_copy": paths[best]["pct_copy"] if best else None,
        "compile_s": paths["compile"].get("compile_s"),
    }
    for name, info in paths.items():
        if "timing" in info:
            values[f"{name}_ms"] = info["timing"]["median_s"] * 1e3
            values[f"{name}_gb_s"] = info["gb_s"]
            if name not in ("eager", "copy"):
                values[f"{name}_speedup"] = info["speedup_vs_eager"]
                values[f"{name}_pct_copy"] = info["pct_copy"]
    return values


@fusion.tabulate
def _fusion_tables(e: Entry) -> list[Table]:
    model = _fusion_values(e)["model_speedup"]
    rows: list[tuple[Any, ...]] = []
    for name, info in e.results["paths"].items():
        what = text(f"bench.fusion.path.{name}")
        model_cell = model if info["fused"] else (1.0 if info["fused"] is False else None)
        if "timing" in info:
            t = info["timing"]
            rows.append(
                (
                    name,
                    what,
                    t["median_s"] * 1e3,
                    _spread_ms(t),
                    info["model_bytes"] / MiB,
                    info["gb_s"],
                    info["pct_copy"],
                    info["speedup_vs_eager"],
                    model_cell,
                )
            )
        else:
            rows.append(
                (
                    name,
                    f"{what}({info['status']}: {info['reason']})",
                    None,
                    None,
                    info["model_bytes"] / MiB,
                    None,
                    None,
                    None,
                    model_cell,
                )
            )
    p = e.params
    title = text("bench.fusion.table", rows=p["rows"], cols=p["cols"], cores=p["threads"])
    keys = "path what median_ms spread_ms model_mib gb_s pct_copy speedup_eager model_speedup"
    return [Table(title, columns(keys), tuple(rows))]


# -------------------------------------------------------------------- attention memory


@experiment(
    "attention_memory",
    "cpu",
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
            {
                "seq_len": n,
                "predicted_naive_bytes": 2 * sizes.score_bytes + sizes.qkvo_bytes,
                "predicted_s_p_bytes": 2 * sizes.score_bytes,
                "predicted_blockwise_bytes": sizes.qkvo_bytes + (bq * bk + 2 * bq * head_dim) * 4,
                "naive_peak_bytes": naive_peak,
                "blockwise_peak_bytes": block_peak,
                "ratio": block_peak / naive_peak,
                "allclose": bool(np.allclose(o_block, o_naive, rtol=1e-4, atol=1e-5)),
                "max_abs_diff": float(np.max(np.abs(o_block - o_naive))),
                "naive_s": t1 - t0,
                "blockwise_s": t2 - t1,
            }
        )
    goal = config.bench_targets()["blockwise_peak_8192"]
    at_goal = next((r for r in per_len if r["seq_len"] == goal["seq_len"]), None)
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
        results={"per_seq_len": per_len},
        targets=(
            Target.configured(
                "blockwise_peak_8192",
                100 * at_goal["ratio"] if at_goal else None,
                "" if at_goal else f"L={goal['seq_len']} not measured in this run",
            ),
        ),
    )


@attention_memory.derive
def _attention_values(e: Entry) -> dict[str, Any]:
    per = e.results["per_seq_len"]
    values: dict[str, Any] = {"all_close": all(r["allclose"] for r in per)}
    for r in per:
        n = r["seq_len"]
        values[f"naive_peak_mib_{n}"] = r["naive_peak_bytes"] / MiB
        values[f"blockwise_peak_mib_{n}"] = r["blockwise_peak_bytes"] / MiB
        values[f"predicted_naive_mib_{n}"] = r["predicted_naive_bytes"] / MiB
        values[f"ratio_{n}"] = r["ratio"]
    values["largest_seq_len"] = per[-1]["seq_len"] if per else None
    values["ratio_largest"] = per[-1]["ratio"] if per else None
    return values


@attention_memory.tabulate
def _attention_tables(e: Entry) -> list[Table]:
    rows = tuple(
        (
            r["seq_len"],
            r["predicted_naive_bytes"] / MiB,
            r["naive_peak_bytes"] / MiB,
            r["predicted_blockwise_bytes"] / MiB,
            r["blockwise_peak_bytes"] / MiB,
            100 * r["ratio"],
            r["allclose"],
            r["max_abs_diff"],
        )
        for r in e.results["per_seq_len"]
    )
    p = e.params
    return [
        Table(
            text("bench.attention.table", d=p["head_dim"], bq=p["block_q"], bk=p["block_k"]),
            columns(
                "seq_len model_naive_mib naive_peak_mib model_block_mib "
                "block_peak_mib block_pct allclose max_diff"
            ),
            rows,
        )
    ]


# ----------------------------------------------------------------------------- launches


@experiment("launches", "cpu", full={}, quick={})
def launches(
    runs: int | None = None, rows: int = 8, d_model: int = 64, d_ff: int = 256
) -> Measured:
    """Operator dispatches of ``runs`` FFN runs, eager against fused, as counted.

    ``runs`` defaults to the article's (``conf/scenarios.toml`` [graph_replay]). The numbers
    come from :class:`infrabook.bench.dispatch.DispatchCounter`; the article's are shown
    beside them from :func:`infrabook.launches.article_launch_counts`.
    """
    runs = (
        config.scenarios()["graph_replay"]["runs"]
        if runs is None
        else check_positive_int("runs", runs)
    )
    log.info("launches: counting dispatches of %d FFN runs, eager and fused ...", runs)
    ffn = FFN(rows, d_model, d_ff)
    counted = {
        "eager": count_runs(ffn, runs, fused=False),
        "fused": count_runs(ffn, runs, fused=True),
    }
    results: dict[str, Any] = {
        name: {
            "dispatches": c.count(),
            "ops_first_run": c.ops[: len(c.ops) // runs],
            "histogram": c.histogram(),
        }
        for name, c in counted.items()
    }
    results["article"] = {
        c.name: {"host_submissions": c.host_submissions, "kernels": c.kernels}
        for c in article_launch_counts()
    }
    results["ffn_ops"] = list(EAGER_OPS)
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
        results=results,
    )


@launches.derive
def _launches_values(e: Entry) -> dict[str, Any]:
    r, runs = e.results, e.params["runs"]
    eager, fused = r["eager"]["dispatches"], r["fused"]["dispatches"]
    art_eager, art_fused = r["article"]["eager"]["kernels"], r["article"]["fused"]["kernels"]
    return {
        "runs": runs,
        "eager_dispatches": eager,
        "fused_dispatches": fused,
        "eager_per_run": eager / runs,
        "fused_per_run": fused / runs,
        "article_eager": art_eager,
        "article_fused": art_fused,
        "matches_article": eager == art_eager and fused == art_fused,
    }


@launches.tabulate
def _launches_tables(e: Entry) -> list[Table]:
    r = e.results
    rows = tuple(
        (
            text(f"bench.launches.{name}"),
            " → ".join(r[name]["ops_first_run"]),
            r[name]["dispatches"],
            r["article"][name]["kernels"],
        )
        for name in ("eager", "fused")
    )
    return [
        Table(
            text("bench.launches.table", runs=e.params["runs"]),
            columns("configuration ops_one_run dispatches article_kernels"),
            rows,
        )
    ]


# ------------------------------------------------------------------------------- shapes


def _peak_estimate() -> dict[str, Any]:
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
        return {"gflop_s": None, "basis": "unknown (no AVX flags in /proc/cpuinfo)"}
    if not info["mhz"]:
        return {"gflop_s": None, "basis": "unknown (no clock in /proc/cpuinfo)"}
    cores = info["usable_cores"]
    return {
        "gflop_s": cores * info["mhz"] / 1e3 * per_cycle,
        "basis": (
            f"{cores} cores x {info['mhz']:.0f} MHz x {per_cycle} fp32 FLOP/cycle "
            f"({pipes}; an estimate, boost clocks differ)"
        ),
    }


@experiment(
    "shapes",
    "cpu",
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
    sweep_t = time_interleaved(
        {str(r): partial(torch.mm, xs[r], w, out=outs[r]) for r in rows}, warmup=warmup, reps=reps
    )
    peak = _peak_estimate()
    sweep: list[dict[str, Any]] = [
        {
            "rows": r,
            "flop": 2 * r * k * n,
            "timing": sweep_t[str(r)].as_dict(),
            "gflop_s": 2 * r * k * n / sweep_t[str(r)].median / 1e9,
        }
        for r in rows
    ]
    best_rate = max(s["gflop_s"] for s in sweep)
    for s in sweep:
        s["pct_of_best"] = 100 * s["gflop_s"] / best_rate
        s["pct_of_est_peak"] = 100 * s["gflop_s"] / peak["gflop_s"] if peak["gflop_s"] else None

    conf = config.scenarios()["bucketing"]
    calls = check_calls([[max(1, r // scale), c] for r, c in conf["calls"]])
    buckets = check_buckets([max(1, b // scale) for b in conf["buckets"]])
    sequence = [r for r, c in calls for _ in range(c)]
    inputs = {r: torch.randn(r, k, generator=gen) for r, _ in calls}
    padded = {b: torch.zeros(b, k) for b in buckets}

    def mm(x: torch.Tensor) -> torch.Tensor:
        return x @ w

    fns: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {"generic": mm, "bucketed": mm}
    prep_ms: dict[str, float | None] = {"generic": None, "bucketed": None}
    prep_detail: dict[str, Any] = {}
    compile_error = None
    if prep == "compile":
        log.info("shapes: measuring preparation (torch.compile per prepared shape, caches off)")
        try:
            prep_ms, prep_detail, fns = _compile_prep(mm, calls, buckets, inputs, padded)
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

    group_fns: dict[str, Callable[[], object]] = {
        "generic": over_calls(fns["generic"]),
        "bucketed": bucketed,
    }
    if "specialised" in fns:
        group_fns["specialised"] = over_calls(fns["specialised"])
    log.info("shapes: timing the %d-call group: %s ...", len(sequence), ", ".join(group_fns))
    group_t = time_interleaved(group_fns, warmup=warmup, reps=reps)

    real = actual_rows(calls)
    groups = {}
    for name, t in group_t.items():
        padded_to = buckets if name == "bucketed" else None
        executed = executed_rows(calls, padded_to)
        groups[name] = {
            "executed_rows": executed,
            "actual_rows": real,
            "padding_pct": 100 * padding_fraction(calls, padded_to) if padded_to else 0.0,
            "timing": t.as_dict(),
            "useful_gflop_s": 2 * real * k * n / t.median / 1e9,
            "executed_gflop_s": 2 * executed * k * n / t.median / 1e9,
            "prep_ms": prep_ms.get(name),
        }
    crossings, regime_list = _crossovers(groups)
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
            notes=prep_text,
            prep=prep,
            compile_error=compile_error,
            peak_estimate=peak["basis"],
        ),
        results={
            "sweep": sweep,
            "groups": groups,
            "prep_detail": prep_detail,
            "crossovers": crossings,
            "regimes": regime_list,
            "est_peak": peak,
        },
    )


@shapes.derive
def _shapes_values(e: Entry) -> dict[str, Any]:
    sweep, groups = e.results["sweep"], e.results["groups"]
    values: dict[str, Any] = {f"gflop_s_{s['rows']}": s["gflop_s"] for s in sweep}
    values.update(
        {
            "best_gflop_s": max(s["gflop_s"] for s in sweep),
            "smallest_pct_of_best": sweep[0]["pct_of_best"],
            "est_peak_gflop_s": e.results["est_peak"]["gflop_s"],
            "padding_pct": groups["bucketed"]["padding_pct"],
        }
    )
    for name, grp in groups.items():
        values[f"{name}_ms"] = grp["timing"]["median_s"] * 1e3
        values[f"{name}_prep_ms"] = grp["prep_ms"]
        values[f"{name}_executed_gflop_s"] = grp["executed_gflop_s"]
    for c in e.results["crossovers"]:
        values[f"crossover_{c['a']}_{c['b']}"] = c["runs"]
    values["bucketed_vs_generic"] = values["bucketed_ms"] / values["generic_ms"]
    return values


def _crossing_meaning(c: dict[str, Any], groups: dict[str, Any]) -> str:
    """What a crossing means, in words: which strategy is cheaper for which run counts."""
    if c["runs"] is None:
        return text("bench.shapes.same_run")
    a, b = groups[c["a"]], groups[c["b"]]
    cheap_prep = c["a"] if a["prep_ms"] <= b["prep_ms"] else c["b"]
    fast_run = c["a"] if a["timing"]["median_s"] < b["timing"]["median_s"] else c["b"]
    if cheap_prep == fast_run:
        words = text("bench.shapes.always", name=text(f"bench.strategy.{fast_run}"))
    else:
        words = text(
            "bench.shapes.below",
            cheap=text(f"bench.strategy.{cheap_prep}"),
            runs=f"{c['runs']:.1f}",
            fast=text(f"bench.strategy.{fast_run}"),
        )
    return words + (text("bench.shapes.noise") if c.get("run_times_within_noise") else "")


@shapes.tabulate
def _shapes_tables(e: Entry) -> list[Table]:
    p, r = e.params, e.results
    calls = ", ".join(f"{c}x{rows}" for rows, c in p["calls"])
    tables = [
        Table(
            text("bench.shapes.sweep", k=p["k"], n=p["n"]),
            columns("rows median_ms gflop_s pct_best pct_peak"),
            tuple(
                (
                    s["rows"],
                    s["timing"]["median_s"] * 1e3,
                    s["gflop_s"],
                    s["pct_of_best"],
                    s["pct_of_est_peak"],
                )
                for s in r["sweep"]
            ),
        ),
        Table(
            text(
                "bench.shapes.group",
                n=sum(c for _, c in p["calls"]),
                calls=calls,
                buckets=p["buckets"],
            ),
            columns(
                "strategy rows_executed padding_pct group_ms "
                "spread_ms executed_gflop_s useful_gflop_s prep_ms"
            ),
            tuple(
                (
                    text(f"bench.strategy.{name}"),
                    g["executed_rows"],
                    g["padding_pct"],
                    g["timing"]["median_s"] * 1e3,
                    _spread_ms(g["timing"]),
                    g["executed_gflop_s"],
                    g["useful_gflop_s"],
                    g["prep_ms"],
                )
                for name, g in r["groups"].items()
            ),
        ),
    ]
    if r["crossovers"]:
        tables.append(
            Table(
                text("bench.shapes.cross"),
                columns("pair runs_star meaning"),
                tuple(
                    (
                        " / ".join(text(f"bench.strategy.{c[side]}") for side in ("a", "b")),
                        c["runs"],
                        _crossing_meaning(c, r["groups"]),
                    )
                    for c in r["crossovers"]
                ),
            )
        )
    return tables


def _compile_prep(
    mm: Callable[[torch.Tensor], torch.Tensor],
    calls: tuple[tuple[int, int], ...],
    buckets: tuple[int, ...],
    inputs: dict[int, torch.Tensor],
    padded: dict[int, torch.Tensor],
) -> tuple[dict[str, float | None], dict[str, Any], dict[str, Callable]]:
    """Compile what each strategy needs, timing the first call of each graph."""
    import torch._dynamo
    import torch._inductor.config as inductor_config

    def timed(fn: Callable, x: torch.Tensor) -> float:
        t0 = time.perf_counter()
        fn(x)
        return (time.perf_counter() - t0) * 1e3

    detail: dict[str, Any] = {}
    with warnings.catch_warnings(), inductor_config.patch(force_disable_caches=True):
        warnings.simplefilter("ignore")
        # One throwaway compile first, so that one-time start-up (imports, the compiler's
        # own set-up) is charged to no strategy.
        torch._dynamo.reset()
        warm = torch.compile(lambda x: x @ x.T, dynamic=False, fullgraph=True)
        detail["startup_ms"] = timed(warm, torch.ones(4, 4))

        torch._dynamo.reset()
        generic = torch.compile(mm, dynamic=True, fullgraph=True)
        first = timed(generic, inputs[calls[0][0]])
        rest = [timed(generic, inputs[r]) for r, _ in calls[1:]]
        detail["generic"] = {"first_call_ms": first, "other_shapes_ms": rest}

        torch._dynamo.reset()
        bucket_fn = torch.compile(mm, dynamic=False, fullgraph=True)
        per_bucket = {b: timed(bucket_fn, padded[b]) for b in buckets}
        detail["bucketed"] = {"per_bucket_ms": per_bucket}

        torch._dynamo.reset()
        special_fn = torch.compile(mm, dynamic=False, fullgraph=True)
        per_shape = {r: timed(special_fn, inputs[r]) for r, _ in calls}
        detail["specialised"] = {"per_shape_ms": per_shape}
    prep_ms: dict[str, float | None] = {
        "generic": first,
        "bucketed": sum(per_bucket.values()),
        "specialised": sum(per_shape.values()),
    }
    return prep_ms, detail, {"generic": generic, "bucketed": bucket_fn, "specialised": special_fn}


def _within_noise(ta: dict[str, Any], tb: dict[str, Any]) -> bool:
    """Whether two timings are indistinguishable.

    Interleaved samples are paired (repetition i of each ran back to back), so the test is
    on the ratios a_i / b_i: within noise when their p20–p80 range contains 1. Without
    paired samples: when the two p20–p80 ranges overlap.

    >>> _within_noise({"samples_s": [1.0, 2.0, 3.0]}, {"samples_s": [1.5, 3.0, 4.5]})
    False
    >>> _within_noise({"p20_s": 1.0, "p80_s": 2.0}, {"p20_s": 1.5, "p80_s": 3.0})
    True
    """
    sa, sb = ta.get("samples_s"), tb.get("samples_s")
    if sa and sb and len(sa) == len(sb):
        ratios = np.asarray(sa) / np.asarray(sb)
        return bool(np.percentile(ratios, 20) <= 1.0 <= np.percentile(ratios, 80))
    if all(k in t for t in (ta, tb) for k in ("p20_s", "p80_s")):
        return bool(ta["p20_s"] <= tb["p80_s"] and tb["p20_s"] <= ta["p80_s"])
    return False


def _crossovers(groups: dict[str, dict[str, Any]]) -> tuple[list[dict], list[dict]]:
    """Where the measured lines T_total = P + n·T_run of each pair of strategies cross."""
    names = [n for n in groups if groups[n]["prep_ms"] is not None]
    if len(names) < 2:
        return [], []
    lines = [Line(n, groups[n]["prep_ms"], groups[n]["timing"]["median_s"] * 1e3) for n in names]
    out = []
    for i, a in enumerate(lines):
        for b in lines[i + 1 :]:
            out.append(
                {
                    "a": a.name,
                    "b": b.name,
                    "runs": None if a.run_ms == b.run_ms else crossover(a, b),
                    "run_times_within_noise": _within_noise(
                        groups[a.name]["timing"], groups[b.name]["timing"]
                    ),
                }
            )
    regime_list = [
        {"start": g.start, "end": g.end if math.isfinite(g.end) else None, "best": g.best}
        for g in regimes(lines)
    ]
    return out, regime_list
