"""The GPU experiments: fused SwiGLU, FlashAttention, CUDA graph replay, persistent kernel.

They run only where ``torch.cuda.is_available()``; elsewhere each returns a *skipped* entry
with the reason. Times come from :func:`triton.testing.do_bench` (it zeroes a 256 MB
buffer before every timed call, so L2 holds none of the inputs: DRAM-bound numbers) or,
for the "unflushed" numbers, :func:`triton.testing.do_bench_cudagraph` (a CUDA graph of
back-to-back calls with no flush in between: whatever fits in L2 stays there, which is how
a timing loop can report more than DRAM bandwidth). Both report the quantiles 0.5, 0.2 and
0.8 used throughout this suite. Bytes for GB/s come from the dataflow model
(:func:`infrabook.dataflow.account`), FLOP for attention from
:func:`infrabook.attention_sizes.attention_flop` times batch x heads.

Written to run on one GPU (an H200 was the target) in well under three minutes.
"""

from __future__ import annotations

import gc
import re
import shutil
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import torch

from infrabook import config
from infrabook.attention_sizes import attention_flop
from infrabook.bench import record
from infrabook.bench.dispatch import FFN
from infrabook.bench.timing import Log, Timing, quiet
from infrabook.dataflow import account, fully_fused, unfused
from infrabook.ffn_chain import activation_chain
from infrabook.launches import article_launch_counts
from infrabook.units import MiB, check_positive_int

TITLES = {
    "gpu_swiglu": "Fused vs unfused SwiGLU on the GPU, with and without an L2 flush",
    "gpu_flash": "FlashAttention forward (Triton) vs PyTorch SDPA",
    "gpu_graphs": "CUDA graph replay: host launches vs kernels for three FFN runs",
    "gpu_persistent": "Persistent kernel vs one program per tile",
}

#: Where the tensors live; a test sets "cpu" to dry-run the code in Triton's interpreter.
DEVICE = "cuda"

#: Host-side API calls that submit one kernel (runtime and driver API).
LAUNCH_APIS = frozenset({"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel",
                         "cuLaunchKernel", "cuLaunchKernelEx"})
#: Host-side API calls that submit a whole captured graph.
GRAPH_APIS = frozenset({"cudaGraphLaunch", "cuGraphLaunch"})

#: The conf/hardware.toml profile of each GPU name (as CUDA reports it, less "NVIDIA "),
#: for the datasheet figures. Whole names only: a variant with other clocks, power or
#: memory (H200 NVL, H100 PCIe and NVL, A100 40GB or PCIe, GB200, RTX PRO 6000 Max-Q)
#: has no profile, and its datasheet figures are recorded as unknown.
PROFILE_BY_NAME = (
    (re.compile(r"H200"), "h200"),
    (re.compile(r"H100 (80GB HBM3|SXM5?( 80GB)?)"), "h100_sxm"),
    (re.compile(r"A100-SXM4-80GB"), "a100_80gb"),
    (re.compile(r"B200"), "b200"),
    (re.compile(r"RTX PRO 6000 Blackwell( Workstation Edition| Server Edition)?"),
     "rtx_pro_6000"),
)


def unavailable_reason() -> str | None:
    """None when a CUDA device is usable, else why not (``"no CUDA device"``)."""
    try:
        if torch.cuda.is_available():
            return None
    except Exception as err:  # pragma: no cover - broken driver
        return f"no CUDA device ({type(err).__name__}: {err})"
    return "no CUDA device"


def _driver_version() -> str | None:
    exe = shutil.which("nvidia-smi")
    if exe:
        try:
            out = subprocess.run([exe, "--query-gpu=driver_version", "--format=csv,noheader"],
                                 capture_output=True, text=True, timeout=20, check=True)
            return out.stdout.strip().splitlines()[0]
        except (OSError, subprocess.SubprocessError, IndexError):
            pass
    try:
        v = torch._C._cuda_getDriverVersion()  # CUDA driver API version, e.g. 12080
        return f"CUDA driver API {v // 1000}.{v % 1000 // 10}"
    except Exception:
        return None


def gpu_info(index: int = 0) -> dict[str, Any]:
    """Name, slug, driver, SM count, memory and L2 of the current GPU."""
    props = torch.cuda.get_device_properties(index)
    return {
        "kind": "cuda",
        "name": props.name,
        "slug": record.slug(props.name),
        "driver": _driver_version(),
        "sm_count": props.multi_processor_count,
        "capability": f"{props.major}.{props.minor}",
        "memory_bytes": props.total_memory,
        "l2_bytes": getattr(props, "L2_cache_size", None),
        "cuda_runtime": torch.version.cuda,
        "host_cpu": record.cpu_info()["name"],
    }


def device_slug() -> str:
    """The record name of the current GPU, e.g. ``nvidia-h200``."""
    return record.slug(torch.cuda.get_device_name(0))


def profile_for(name: str) -> config.Device | None:
    """The datasheet profile of the GPU called ``name``, or None when none is this GPU.

    >>> profile_for("NVIDIA H100 80GB HBM3").key, profile_for("NVIDIA H100 PCIe")
    ('h100_sxm', None)
    """
    short = name.strip().removeprefix("NVIDIA ").strip()
    for pattern, key in PROFILE_BY_NAME:
        if pattern.fullmatch(short):
            return config.device(key)
    return None


def _datasheet(spec: config.Device | None, name: str) -> str:
    """Which profile the datasheet figures of a record come from, or that they are unknown."""
    if spec is None:
        return f"unknown: no conf/hardware.toml profile is this GPU ({name!r})"
    return f"conf/hardware.toml [devices.{spec.key}] ({spec.name})"


def _skipped(name: str, reason: str, quick: bool) -> dict[str, Any]:
    return record.skipped(name, TITLES[name], reason,
                          record.provenance(record.cpu_info(), quick=quick))


def _timing_from_quantiles(q: list[float]) -> dict[str, Any]:
    median, p20, p80 = (x / 1e3 for x in q)
    return {"median_s": median, "p20_s": p20, "p80_s": p80, "n": None}


def bench_flushed(fn: Callable[[], object]) -> dict[str, Any]:
    """``do_bench`` with an L2 flush before every call: median, p20, p80 in seconds."""
    import triton.testing

    return _timing_from_quantiles(
        triton.testing.do_bench(fn, warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8]))


def bench_unflushed(fn: Callable[[], object]) -> dict[str, Any]:
    """``do_bench_cudagraph``: calls back to back in a CUDA graph, no flush."""
    import triton.testing

    # do_bench_cudagraph keeps the garbage collector off while it captures (Triton >= 3.9),
    # so that no Triton kernel is unloaded mid-capture.
    return _timing_from_quantiles(
        triton.testing.do_bench_cudagraph(fn, rep=20, quantiles=[0.5, 0.2, 0.8]))


def _method(summary: str, **extra: Any) -> dict[str, Any]:
    return {"timer": "triton.testing.do_bench (CUDA events)", "statistic": "median",
            "spread": "p20-p80", **extra, "summary": summary}


def _entry(name: str, quick: bool, started: float, **kwargs: Any) -> dict[str, Any]:
    return record.entry(name, TITLES[name], device=gpu_info(), quick=quick,
                        duration_s=time.perf_counter() - started, **kwargs)


# --------------------------------------------------------------------------- SwiGLU


def copy_bandwidth(nbytes: int = 512 * MiB) -> dict[str, Any]:
    """Device-to-device copy of ``nbytes``: (read + written) / time, L2 flushed."""
    src = torch.empty(nbytes // 2, dtype=torch.bfloat16, device=DEVICE).normal_()
    dst = torch.empty_like(src)
    t = bench_flushed(lambda: dst.copy_(src))
    return {"bytes_moved": 2 * nbytes, "timing": t, "gb_s": 2 * nbytes / t["median_s"] / 1e9}


def gpu_swiglu(quick: bool = False, log: Log = quiet, *,
               shapes: list[tuple[int, int]] | None = None,
               copy_bytes: int | None = None) -> dict[str, Any]:
    """Fused Triton SwiGLU vs the unfused Triton pair vs torch eager, bf16.

    At the article's shape ([1024, 12288], 72 MiB fused working set) and at a quarter of
    its rows (18 MiB: fits any recent GPU's L2), each timed with the L2 flushed and in an
    unflushed CUDA-graph loop.
    """
    reason = unavailable_reason()
    if reason:
        return _skipped("gpu_swiglu", reason, quick)
    from infrabook.kernels import swiglu, swiglu_unfused

    started = time.perf_counter()
    info = gpu_info()
    conf = config.scenarios()["ffn_chain"]
    if shapes is None:
        shapes = [(conf["rows"], conf["cols"]), (conf["rows"] // 4, conf["cols"])]
    elif not shapes:
        raise ValueError("shapes must name at least one (rows, cols), got none")
    if copy_bytes is None:
        copy_bytes = 128 * MiB if quick else 512 * MiB
    log("gpu_swiglu: device copy bandwidth ...")
    copy = copy_bandwidth(check_positive_int("copy_bytes", copy_bytes))
    spec = profile_for(info["name"])
    results: dict[str, Any] = {"copy": copy, "shapes": [],
                               "spec_dram_tb_s": spec.dram_tb_s.value if spec else None,
                               "datasheet": _datasheet(spec, info["name"])}
    rows_out = []
    values: dict[str, Any] = {"copy_gb_s": copy["gb_s"]}
    for rows, cols in shapes:
        gen = torch.Generator(device=DEVICE).manual_seed(0)
        g = torch.randn(rows, cols, device=DEVICE, dtype=torch.bfloat16, generator=gen)
        u = torch.randn(rows, cols, device=DEVICE, dtype=torch.bfloat16, generator=gen)
        graph = activation_chain(rows, cols, "bf16")
        fused_b, unfused_b = (account(graph, fully_fused(graph)).traffic,
                              account(graph, unfused(graph)).traffic)
        ref = torch.nn.functional.silu(g.float()) * u.float()
        paths = {
            "triton_fused": (lambda g=g, u=u: swiglu(g, u), fused_b),
            "triton_unfused": (lambda g=g, u=u: swiglu_unfused(g, u), unfused_b),
            "torch_eager": (lambda g=g, u=u: torch.nn.functional.silu(g) * u, unfused_b),
        }
        working_set = fused_b  # G, U, Z
        fits_l2 = info["l2_bytes"] is not None and working_set <= info["l2_bytes"]
        shape_res: dict[str, Any] = {"rows": rows, "cols": cols, "working_set_bytes": working_set,
                                     "fits_l2": fits_l2, "paths": {}}
        for name, (fn, nbytes) in paths.items():
            log(f"gpu_swiglu: [{rows}, {cols}] {name}: flushed, then unflushed ...")
            err = (fn().float() - ref).abs().max().item()
            flushed = bench_flushed(fn)
            loop = bench_unflushed(fn)
            res = {"model_bytes": nbytes, "max_abs_err_vs_fp32": err}
            for mode, t in (("flushed", flushed), ("unflushed", loop)):
                gb_s = nbytes / t["median_s"] / 1e9
                res[mode] = {"timing": t, "gb_s": gb_s, "pct_copy": 100 * gb_s / copy["gb_s"],
                             "beats_copy_bandwidth": gb_s > copy["gb_s"]}
            shape_res["paths"][name] = res
            tag = "article" if (rows, cols) == shapes[0] else "small"
            for mode in ("flushed", "unflushed"):
                values[f"{tag}_{name}_{mode}_us"] = res[mode]["timing"]["median_s"] * 1e6
                values[f"{tag}_{name}_{mode}_gb_s"] = res[mode]["gb_s"]
                values[f"{tag}_{name}_{mode}_pct_copy"] = res[mode]["pct_copy"]
                rows_out.append([f"[{rows}, {cols}]", name, mode, nbytes / MiB,
                                 res[mode]["timing"]["median_s"] * 1e6, res[mode]["gb_s"],
                                 res[mode]["pct_copy"], fits_l2])
        article_like = shape_res["paths"]
        shape_res["speedup_fused_vs_eager_flushed"] = (
            article_like["torch_eager"]["flushed"]["timing"]["median_s"]
            / article_like["triton_fused"]["flushed"]["timing"]["median_s"])
        results["shapes"].append(shape_res)
        del g, u, ref
    values["article_speedup_fused_vs_eager"] = (
        results["shapes"][0]["speedup_fused_vs_eager_flushed"])
    fused_pct = values["article_triton_fused_flushed_pct_copy"]
    targets = [record.configured_target("gpu_fused_swiglu_bandwidth", fused_pct)]
    return _entry(
        "gpu_swiglu", quick, started,
        method=_method("do_bench median (p20–p80), L2 flushed by zeroing 256 MB before each "
                       "call; 'unflushed' = do_bench_cudagraph: a CUDA graph of back-to-back "
                       "calls, nothing flushed; copy bandwidth = (read + written) / time of "
                       f"a {copy['bytes_moved'] // 2 // MiB} MiB device copy, flushed",
                       l2_flushed="flushed rows: yes (256 MB zeroed); unflushed rows: no"),
        params={"dtype": "bf16", "shapes": [list(s) for s in shapes]},
        results=results, values=values,
        tables=[record.table("SwiGLU bf16: time, model GB/s, % of measured copy bandwidth",
                             ["shape", "path", "L2", "model MiB", "median µs", "GB/s",
                              "% of copy", "working set fits L2"], rows_out)],
        targets=targets,
    )


# ---------------------------------------------------------------------- FlashAttention


def gpu_flash(quick: bool = False, log: Log = quiet, *,
              seq_lens: tuple[int, ...] | None = None, heads: int = 16,
              tokens: int = 16384, head_dim: int = 128) -> dict[str, Any]:
    """Forward TFLOP/s of the Triton FlashAttention against ``scaled_dot_product_attention``.

    d = 128, bf16, not causal, 16 heads and batch = 16384 / L (at least 1), so each size
    processes about the same number of tokens. FLOP = 4 * batch * heads * L^2 * d.
    """
    reason = unavailable_reason()
    if reason:
        return _skipped("gpu_flash", reason, quick)
    from infrabook.kernels import flash_attention

    started = time.perf_counter()
    if seq_lens is None:
        seq_lens = (1024, 2048, 4096) if quick else (1024, 2048, 4096, 8192, 16384)
    elif not seq_lens:
        raise ValueError("seq_lens must name at least one sequence length, got none")
    per_len = []
    values: dict[str, Any] = {}
    for n in seq_lens:
        batch = max(1, tokens // n)
        log(f"gpu_flash: L={n}, batch={batch}, heads={heads}, d={head_dim} ...")
        gen = torch.Generator(device=DEVICE).manual_seed(0)
        q, k, v = (torch.randn(batch, heads, n, head_dim, device=DEVICE, dtype=torch.bfloat16,
                               generator=gen) for _ in range(3))
        flop = batch * heads * attention_flop(n, head_dim)
        o_flash = flash_attention(q, k, v)
        o_sdpa = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        diff = (o_flash.float() - o_sdpa.float()).abs().max().item()
        t_flash = bench_flushed(lambda q=q, k=k, v=v: flash_attention(q, k, v))
        t_sdpa = bench_flushed(
            lambda q=q, k=k, v=v: torch.nn.functional.scaled_dot_product_attention(q, k, v))
        res = {"seq_len": n, "batch": batch, "heads": heads, "flop": flop,
               "max_abs_diff_vs_sdpa": diff,
               "flash": {"timing": t_flash, "tflop_s": flop / t_flash["median_s"] / 1e12},
               "sdpa": {"timing": t_sdpa, "tflop_s": flop / t_sdpa["median_s"] / 1e12}}
        res["ratio"] = res["flash"]["tflop_s"] / res["sdpa"]["tflop_s"]
        per_len.append(res)
        values[f"flash_tflop_s_{n}"] = res["flash"]["tflop_s"]
        values[f"sdpa_tflop_s_{n}"] = res["sdpa"]["tflop_s"]
        values[f"ratio_{n}"] = res["ratio"]
        del q, k, v, o_flash, o_sdpa
    goal = config.bench_targets()["gpu_flash_vs_sdpa_8192"]
    at_goal = next((r for r in per_len if r["seq_len"] == goal["seq_len"]), None)
    name = gpu_info()["name"]
    spec = profile_for(name)
    peak = spec.bf16_dense_tflops.value if spec else None
    targets = [record.configured_target(
        "gpu_flash_vs_sdpa_8192", at_goal["ratio"] if at_goal else None,
        "" if at_goal else f"L={goal['seq_len']} not measured in this run")]
    rows_out = [[r["seq_len"], r["batch"], r["flash"]["timing"]["median_s"] * 1e3,
                 r["flash"]["tflop_s"], r["sdpa"]["timing"]["median_s"] * 1e3,
                 r["sdpa"]["tflop_s"], r["ratio"],
                 100 * r["flash"]["tflop_s"] / peak if peak else None,
                 r["max_abs_diff_vs_sdpa"]] for r in per_len]
    return _entry(
        "gpu_flash", quick, started,
        method=_method("do_bench median (p20–p80), L2 flushed before each call; FLOP = 4 b h "
                       "L² d; SDPA backend as PyTorch chooses it", l2_flushed=True),
        params={"head_dim": head_dim, "heads": heads, "tokens_per_batch": tokens,
                "dtype": "bf16", "causal": False, "seq_lens": list(seq_lens)},
        results={"per_seq_len": per_len, "spec_bf16_tflops": peak,
                 "datasheet": _datasheet(spec, name)},
        values=values,
        tables=[record.table(f"attention forward, d={head_dim}, {heads} heads, bf16",
                             ["L", "batch", "Triton ms", "Triton TFLOP/s", "SDPA ms",
                              "SDPA TFLOP/s", "Triton / SDPA", "Triton % of datasheet peak",
                              "max |Δ| vs SDPA"], rows_out)],
        targets=targets,
    )


# ------------------------------------------------------------------------ CUDA graphs


RUNTIME_LAUNCH_APIS = frozenset(a for a in LAUNCH_APIS if a.startswith("cuda"))


def _span(e: Any) -> tuple[int, float, float]:
    return e.thread, float(e.time_range.start), float(e.time_range.end)


def _classify(events: Any) -> dict[str, Any]:
    """Host launches, graph launches and device kernels among profiler events.

    A driver-API launch (``cuLaunchKernel*``) inside a runtime-API launch on the same
    thread is the runtime's own call, not a second launch, and is not counted twice.
    """
    events = list(events)
    runtime_spans = [_span(e) for e in events if e.name in RUNTIME_LAUNCH_APIS]

    def nested(e: Any) -> bool:
        thread, start, end = _span(e)
        return any(t == thread and a <= start and end <= b for t, a, b in runtime_spans)

    apis: Counter[str] = Counter()
    kernels: list[str] = []
    for e in events:
        name = e.name
        if name in LAUNCH_APIS or name in GRAPH_APIS:
            if name in LAUNCH_APIS and name not in RUNTIME_LAUNCH_APIS and nested(e):
                apis[f"{name} (inside a runtime launch, not counted)"] += 1
            else:
                apis[name] += 1
            continue
        # Kineto tags every device event: "kernel", "gpu_memcpy", "gpu_memset", ...
        if e.activity_type == "kernel":
            kernels.append(name)
    return {
        "host_launches": sum(n for a, n in apis.items() if a in LAUNCH_APIS),
        "graph_launches": sum(n for a, n in apis.items() if a in GRAPH_APIS),
        "kernels": len(kernels),
        "by_api": dict(apis),
        "kernel_names": dict(Counter(kernels)),
    }


def _capture(fn: Callable[[], torch.Tensor]) -> Callable[[], None]:
    """Capture ``fn`` (one FFN run on static inputs) into a CUDA graph; return its replay."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    # torch.cuda.graph collects before capturing but leaves the collector on: a Triton
    # kernel collected mid-capture would unload its module and invalidate the graph.
    gc_was = gc.isenabled()
    gc.disable()
    try:
        with torch.cuda.graph(graph):
            fn()
    finally:
        if gc_was:
            gc.enable()
    return graph.replay


def _host_time(fn: Callable[[], object], runs: int, reps: int) -> dict[str, Any]:
    """Seconds to *issue* ``runs`` calls (host side) and to finish them (with a sync)."""
    issue, total = [], []
    for _ in range(5):
        for _ in range(runs):
            fn()
    torch.cuda.synchronize()
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(runs):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        issue.append(t1 - t0)
        total.append(t2 - t0)
    return {"issue": Timing(tuple(issue)).as_dict(), "total": Timing(tuple(total)).as_dict()}


def _profile_counts(fn: Callable[[], object], runs: int) -> dict[str, Any]:
    """Profile ``runs`` calls of ``fn`` and classify the events."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            fn()
        torch.cuda.synchronize()
    return _classify(prof.events())


def gpu_graphs(quick: bool = False, log: Log = quiet, *, rows: int = 64, d_model: int = 1024,
               d_ff: int = 4096) -> dict[str, Any]:
    """Three FFN runs eager, replayed from a CUDA graph, fused, fused and replayed.

    Counts come from ``torch.profiler``: host events ``cudaLaunchKernel`` (and the other
    launch calls, driver API included, which Triton uses) against ``cudaGraphLaunch``, and
    device kernel events. A small FFN (64 rows, d_model 1024, d_ff 4096, bf16) keeps the
    kernels short, so host submission is visible in the times.
    """
    reason = unavailable_reason()
    if reason:
        return _skipped("gpu_graphs", reason, quick)
    from infrabook.kernels import swiglu

    started = time.perf_counter()
    runs = config.scenarios()["graph_replay"]["runs"]
    ffn = FFN(rows, d_model, d_ff, dtype=torch.bfloat16, device=DEVICE)
    try:  # the profiler must be initialised before a capture for its kernels to show
        from torch.profiler._utils import _init_for_cuda_graphs

        _init_for_cuda_graphs()
    except Exception:  # pragma: no cover - private helper moved
        pass

    def eager() -> torch.Tensor:
        return ffn(ffn.x, fused=False)

    def fused() -> torch.Tensor:
        return ffn(ffn.x, fused=True, swiglu=swiglu)

    log("gpu_graphs: capturing graphs ...")
    configs: dict[str, Callable[[], object]] = {
        "eager": eager, "graph": _capture(eager), "fused": fused, "fused+graph": _capture(fused),
    }
    reps = 20 if quick else 100
    results: dict[str, Any] = {}
    for name, fn in configs.items():
        log(f"gpu_graphs: {name}: profiling {runs} runs, then timing the host ...")
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        counts = _profile_counts(fn, runs)
        counts["host"] = _host_time(fn, runs, reps)
        results[name] = counts
    article = {c.name: c for c in article_launch_counts()}
    values: dict[str, Any] = {"runs": runs}
    rows_out = []
    for name, c in results.items():
        key = name.replace("+", "_")
        values[f"{key}_host_launches"] = c["host_launches"]
        values[f"{key}_graph_launches"] = c["graph_launches"]
        values[f"{key}_kernels"] = c["kernels"]
        values[f"{key}_issue_us"] = c["host"]["issue"]["median_s"] * 1e6
        values[f"{key}_total_us"] = c["host"]["total"]["median_s"] * 1e6
        a = article[name]
        rows_out.append([name, c["host_launches"], c["graph_launches"], c["kernels"],
                         a.host_submissions, a.kernels, c["host"]["issue"]["median_s"] * 1e6,
                         c["host"]["total"]["median_s"] * 1e6])
    values["host_saved_us_graph"] = values["eager_issue_us"] - values["graph_issue_us"]
    values["host_saved_us_fused_graph"] = values["eager_issue_us"] - values["fused_graph_issue_us"]
    return _entry(
        "gpu_graphs", quick, started,
        method=_method(f"counts from torch.profiler over {runs} runs (host launch calls, "
                       "graph launches, device kernel events); host time = perf_counter to "
                       f"issue {runs} runs (median of {reps}), total adds the synchronize",
                       timer="time.perf_counter", l2_flushed=False),
        params={"runs": runs, "rows": rows, "d_model": d_model, "d_ff": d_ff, "dtype": "bf16",
                "fused_kernel": "infrabook.kernels.swiglu"},
        results=results, values=values,
        tables=[record.table(f"{runs} FFN runs: what the host submits, what the GPU runs",
                             ["configuration", "host kernel launches", "graph launches",
                              "kernels on device", "article: host", "article: kernels",
                              "host issue µs", "end-to-end µs"], rows_out)],
        targets=[],
    )


# ------------------------------------------------------------------------- persistent


def gpu_persistent(quick: bool = False, log: Log = quiet, *,
                   shape: tuple[int, int] | None = None) -> dict[str, Any]:
    """One program per tile against a persistent grid (one program per SM, and 4 per SM).

    Same tile body, article's shape, bf16, L2 flushed; GB/s from the fused model (72 MiB).
    """
    reason = unavailable_reason()
    if reason:
        return _skipped("gpu_persistent", reason, quick)
    from infrabook.kernels import Launch, swiglu_per_tile, swiglu_persistent

    started = time.perf_counter()
    conf = config.scenarios()["ffn_chain"]
    rows, cols = (conf["rows"], conf["cols"]) if shape is None else shape
    gen = torch.Generator(device=DEVICE).manual_seed(0)
    g = torch.randn(rows, cols, device=DEVICE, dtype=torch.bfloat16, generator=gen)
    u = torch.randn(rows, cols, device=DEVICE, dtype=torch.bfloat16, generator=gen)
    graph = activation_chain(rows, cols, "bf16")
    nbytes = account(graph, fully_fused(graph)).traffic
    sms = gpu_info()["sm_count"]
    variants: dict[str, Callable[[], Launch]] = {
        "per_tile": lambda: swiglu_per_tile(g, u),
        "persistent_1x_sm": lambda: swiglu_persistent(g, u, num_programs=sms),
        "persistent_4x_sm": lambda: swiglu_persistent(g, u, num_programs=4 * sms),
    }
    z_ref = variants["per_tile"]().z
    results: dict[str, Any] = {}
    values: dict[str, Any] = {"sm_count": sms}
    rows_out = []
    for name, fn in variants.items():
        log(f"gpu_persistent: {name} ...")
        launch = fn()
        t = bench_flushed(fn)
        gb_s = nbytes / t["median_s"] / 1e9
        results[name] = {"programs": launch.programs, "tiles": launch.tiles, "timing": t,
                         "gb_s": gb_s, "equal_to_per_tile": bool(torch.equal(launch.z, z_ref))}
        values[f"{name}_us"] = t["median_s"] * 1e6
        values[f"{name}_gb_s"] = gb_s
        values[f"{name}_programs"] = launch.programs
        rows_out.append([name, launch.programs, launch.tiles, t["median_s"] * 1e6, gb_s,
                         results[name]["equal_to_per_tile"]])
    return _entry(
        "gpu_persistent", quick, started,
        method=_method("do_bench median (p20–p80), L2 flushed before each call",
                       l2_flushed=True),
        params={"rows": rows, "cols": cols, "dtype": "bf16", "sm_count": sms},
        results=results, values=values,
        tables=[record.table(f"SwiGLU [{rows}, {cols}] bf16: launch shape and time",
                             ["variant", "programs", "tiles", "median µs", "GB/s",
                              "bitwise equal to per-tile"], rows_out)],
        targets=[],
    )


EXPERIMENTS: dict[str, Callable[..., dict[str, Any]]] = {
    "gpu_swiglu": gpu_swiglu,
    "gpu_flash": gpu_flash,
    "gpu_graphs": gpu_graphs,
    "gpu_persistent": gpu_persistent,
}
