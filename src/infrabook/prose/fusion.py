"""Chapter 2 (fusion): the values its prose glues and the tables it shows.

Every function returns text already formatted the way the page prints it, in the build's
language; the arithmetic is the calculators' (:mod:`infrabook.dataflow`,
:mod:`infrabook.roofline`, :mod:`infrabook.fusion_search`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib.metadata import version
from typing import Any

from infrabook import config
from infrabook.dataflow import Accounting, Graph, account, fully_fused, unfused
from infrabook.ffn_chain import activation_chain, article_chain, shared_intermediate_chain
from infrabook.fusion_search import rank_plans
from infrabook.labels import text
from infrabook.prose import claims_stated, figure, reference_entry
from infrabook.roofline import (
    article_workloads,
    check_bandwidth_claim,
    gemm_workload,
    lower_bound_s,
    ridge_point,
    silu_chain_workloads,
)
from infrabook.tables import Table
from infrabook.units import dtype_bytes, mib

# The four plans of the three-step chain, in the order the page lists them.
PLAN_ORDER = (
    "[silu] [mul] [quant]",
    "[silu+mul] [quant]",
    "[silu] [mul+quant]",
    "[silu+mul+quant]",
)
_PLAN_KEYS = dict(
    zip(PLAN_ORDER, ("all_separate", "first_two", "last_two", "all_fused"), strict=True)
)
# torch dtypes by the short names the book writes
_DTYPE_NAMES = {"torch.float32": "fp32", "torch.bfloat16": "bf16"}


def _dtype_name(dtype: object) -> str:
    return _DTYPE_NAMES.get(str(dtype), str(dtype))


def article() -> tuple[Graph, Accounting, Accounting]:
    """The article's activation chain and its separate and fully fused accountings.

    >>> chain, sep, fused = article()
    >>> sep.kernel_count, fused.kernel_count, sep.traffic > fused.traffic
    (2, 1, True)
    """
    chain = article_chain()
    return chain, account(chain, unfused(chain)), account(chain, fully_fused(chain))


def _devices() -> tuple[config.Device, config.Device]:
    return config.device("rtx_pro_6000"), config.device("h100_sxm")


def _join(names: Sequence[str]) -> str:
    return text("prose.list_sep").join(names)


def basics() -> dict[str, str]:
    """The chain's sizes, traffic and intensities, and the two devices' ridge points.

    >>> v = basics()
    >>> v["c2_sep_mib"], v["c2_fused_mib"], v["c2_saved_mib"], v["c2_model_speedup"]
    ('120', '72', '48', '1.67')
    """
    chain, sep, fused = article()
    g = chain.tensor("G")
    rows, cols = g.shape
    w_sep, w_fused = silu_chain_workloads(rows, cols, g.dtype)
    rtx, h100 = _devices()
    min_ridge = min(ridge_point(d, "fp32") for d in config.devices().values())
    return {
        "c2_rows": f"{rows}",
        "c2_cols": f"{cols}",
        "c2_dtype": g.dtype,
        "c2_tensor_mib": f"{mib(g.nbytes):.0f}",
        "c2_sep_mib": f"{mib(sep.traffic):.0f}",
        "c2_fused_mib": f"{mib(fused.traffic):.0f}",
        "c2_saved_mib": f"{mib(sep.traffic - fused.traffic):.0f}",
        "c2_ratio": f"{fused.traffic / sep.traffic:.2f}",
        "c2_model_speedup": f"{sep.traffic / fused.traffic:.2f}",
        "c2_bytes_per_elem": f"{3 * dtype_bytes(g.dtype)}",
        "c2_flop_per_elem": f"{w_fused.flop / rows / cols:.0f}",
        "c2_ai_sep": f"{w_sep.intensity:.2f}",
        "c2_ai_fused": f"{w_fused.intensity:.2f}",
        "c2_rtx_name": rtx.name,
        "c2_h100_name": h100.name,
        "c2_rtx_ridge_bf16": f"{ridge_point(rtx, 'bf16'):.0f}",
        "c2_h100_ridge_bf16": f"{ridge_point(h100, 'bf16'):.0f}",
        "c2_min_fp32_ridge": f"{min_ridge:.1f}",
        "c2_ridge_margin": f"{min_ridge / w_fused.intensity:.0f}",
    }


def intensities() -> dict[str, str]:
    """The arithmetic intensities of the roofline figure's GEMM and attention workloads.

    >>> int(intensities()["c2_gemm512_ai"]) > int(intensities()["c2_gemm256_ai"])
    True
    """
    work = article_workloads()
    gemm = {w.name: w for w in work}
    std_att, fa_att, fa_l2 = work[2], work[3], work[4]
    return {
        "c2_gemm256_ai": f"{gemm[text('roofline.gemm', rows=256)].intensity:.0f}",
        "c2_gemm512_ai": f"{gemm[text('roofline.gemm', rows=512)].intensity:.0f}",
        "c2_att_std_ai": f"{std_att.intensity:.0f}",
        "c2_att_fa_ai": f"{fa_att.intensity:.0f}",
        "c2_att_fa_l2_ai": f"{fa_l2.intensity:,.0f}",
    }


def measured_us() -> tuple[float, float]:
    """The article's measured separate and fused times of the chain, in μs.

    >>> t_sep, t_fused = measured_us()
    >>> t_sep > t_fused > 0
    True
    """
    stated = claims_stated()
    return float(stated["fusion.measured_separate_us"]), float(stated["fusion.measured_fused_us"])


def bandwidth() -> dict[str, str]:
    """What the article's measured times imply about bandwidth, and which caches could
    hold the chain.

    >>> v = bandwidth()
    >>> float(v["c2_bw_fused"]) > float(v["c2_fastest_bw"])
    True
    """
    _, sep, fused = article()
    rtx, _ = _devices()
    t_sep, t_fused = measured_us()
    stated = claims_stated()
    v_sep = check_bandwidth_claim(sep.traffic, t_sep * 1e-6, sep.footprint_bytes)
    v_fused = check_bandwidth_claim(fused.traffic, t_fused * 1e-6, fused.footprint_bytes)
    unknown = [d.name for d in config.devices().values() if d.l2_mib.value is None]
    return {
        "c2_t_sep": f"{t_sep:g}",
        "c2_t_fused": f"{t_fused:g}",
        "c2_measured_speedup": f"{t_sep / t_fused:.2f}",
        "c2_stated_speedup": stated["fusion.measured_speedup"],
        "c2_bw_sep": f"{v_sep.implied_tb_s:.1f}",
        "c2_bw_fused": f"{v_fused.implied_tb_s:.1f}",
        "c2_fastest_name": v_fused.fastest_dram.name,
        "c2_fastest_bw": f"{v_fused.fastest_dram.dram_tb_s.value:g}",
        "c2_l2_devices": _join([config.device(k).name for k in v_sep.fits_l2_on]),
        "c2_l2_unknown": _join(unknown) if unknown else text("prose.fusion.none"),
        "c2_footprint_sep": f"{mib(sep.footprint_bytes):.0f}",
        "c2_footprint_fused": f"{mib(fused.footprint_bytes):.0f}",
        "c2_rtx_l2": f"{rtx.l2_mib.value:g}",
        "c2_rtx_peak": f"{rtx.bf16_dense_tflops.value:g}",
        "c2_rtx_tmin_sep": f"{lower_bound_s(sep.traffic, 0, rtx) * 1e6:.0f}",
        "c2_article_peak": f"{config.scenarios().bucketing.peak_tflops:g}",
        "c2_triton_version": version("triton"),  # read without importing triton
    }


def fit(c_us: float, bw_tb_s: float) -> dict[str, str]:
    """The page's two-point fit (a fixed cost per kernel and a bandwidth) as glued text.

    >>> fit(2.04, 21.3)["c2_fit_c"]
    '2.0'
    """
    rtx, _ = _devices()
    return {
        "c2_fit_c": f"{c_us:.1f}",
        "c2_fit_bw": f"{bw_tb_s:.0f}",
        "c2_fit_over_dram": f"{bw_tb_s / figure(rtx, 'dram_tb_s'):.0f}",
    }


def gpu_chain_times(folder: Any = None) -> tuple[Any, Any, dict[str, float]]:
    """The reference GPU record's ``gpu_swiglu`` entry, its row at the article's shape, and
    each path's median μs there with L2 flushed (``torch_eager``, ``triton_fused``, ``copy``).

    >>> _, _, t = gpu_chain_times()
    >>> round(t["torch_eager"], 1), round(t["triton_fused"], 1)
    (37.8, 23.4)
    """
    entry = reference_entry("gpu_swiglu", folder)
    rows, cols = article_chain().tensor("G").shape
    shape = next(s for s in entry.results.shapes if (s.rows, s.cols) == (rows, cols))
    paths = ("torch_eager", "triton_fused", "copy")
    return entry, shape, {p: shape.paths[p].flushed.median_s * 1e6 for p in paths}


def gpu_check(folder: Any = None) -> dict[str, str]:
    """The article's chain measured on the reference GPU (L2 flushed): eager, fused and a
    copy of the fused bytes, against the byte model, the page's two-point fit and the
    minimum time at the datasheet bandwidth.

    >>> v = gpu_check()
    >>> v["c2g_pct_copy"], v["c2g_speedup"], v["c2g_fit_c"]
    ('98', '1.62', '−3.6')
    """
    import numpy as np

    from infrabook.bench.records.results.described import profile_for

    entry, shape, t = gpu_chain_times(folder)
    chain, sep, fused = article()
    rows, cols = chain.tensor("G").shape
    # the page's fit, t = n_kernel c + D / B, on the measured eager and fused times
    a = np.array([[sep.kernel_count, mib(sep.traffic)], [fused.kernel_count, mib(fused.traffic)]])
    c_us, _ = np.linalg.solve(a, [t["torch_eager"], t["triton_fused"]])
    name = entry.provenance.device.name
    spec = profile_for(name)
    if spec is None:
        raise LookupError(f"gpu_swiglu: {name!r} has no profile in conf/hardware.toml")
    nominal_us = lower_bound_s(fused.traffic, 0, spec) * 1e6
    copy_tb_s = shape.paths["copy"].model_bytes / t["copy"] / 1e6
    return {
        "c2g_dev": name,
        "c2g_shape": f"[{rows}, {cols}]",
        "c2g_eager_us": f"{t['torch_eager']:.1f}",
        "c2g_fused_us": f"{t['triton_fused']:.1f}",
        "c2g_copy_us": f"{t['copy']:.1f}",
        "c2g_pct_copy": f"{100 * t['copy'] / t['triton_fused']:.0f}",
        "c2g_speedup": f"{t['torch_eager'] / t['triton_fused']:.2f}",
        "c2g_fit_c": f"{c_us:.1f}".replace("-", "−"),
        "c2g_nominal_us": f"{nominal_us:.1f}",
        "c2g_dram": f"{figure(spec, 'dram_tb_s'):g}",
        "c2g_copy_tb_s": f"{copy_tb_s:.2f}",
        "c2g_copy_pct_nominal": f"{100 * copy_tb_s / figure(spec, 'dram_tb_s'):.0f}",
        "c2g_copy_over_nominal": f"{t['copy'] / nominal_us:.2f}",
    }


def _path_name(path: str | None) -> str:
    """A fusion path as the prose names it: torch.compile's in words, the others by name
    (a dash where none ran)."""
    return text("prose.records.compile_path") if path == "compile" else path or "—"


def live_values(entry: Any) -> dict[str, str]:
    """The build's own scaled-down run of the CPU fusion experiment (``entry``, measured once
    per build): its tensors' size, and its fastest fused path against eager."""
    p, results = entry.params, entry.results
    g = activation_chain(p["rows"], p["cols"], p["dtype"]).tensor("G")
    return {
        "c2_live_mib": f"{mib(g.nbytes):g}",
        "c2_live_best_path": _path_name(results.best),
        "c2_live_best_speedup": f"{results.speedup(results.best):.2f}",
    }


def cpu_values() -> dict[str, Any]:
    """What the section on the book's own CPU measurement says of the reference CPU record's
    ``fusion`` entry: cores and repetitions, the fastest fused path against eager and against
    the byte model, each path's share of the copy's bandwidth, per-element times of the two
    fused paths, and the figure.

    >>> v = cpu_values()
    >>> v["c2_cpu_model_speedup"], v["c2_cpu_best_path"] in ("numexpr", _path_name("compile"))
    ('1.67', True)
    """
    from infrabook.bench.records import report

    entry = reference_entry("fusion")
    results, params = entry.results, entry.params
    ms = {name: path.timing.ms for name, path in results.paths.items() if path.timing}
    rows, cols = article()[0].tensor("G").shape
    elements = rows * cols
    best = results.best
    return {
        "c2_cpu_cores": str(params["threads"]),
        "c2_cpu_reps": str(params["reps"]),
        "c2_cpu_best_path": _path_name(best),
        "c2_cpu_best_speedup": f"{results.speedup(best):.2f}",
        "c2_cpu_model_speedup": f"{results.model_speedup:.2f}",
        "c2_cpu_best_pct": f"{results.pct_copy(best):.0f}",
        "c2_cpu_eager_pct": f"{results.pct_copy('eager'):.0f}",
        "c2_cpu_copy": f"{results.paths['copy'].gb_s:.1f}",
        "c2_cpu_numexpr_speedup": f"{results.speedup('numexpr'):.2f}",
        "c2_cpu_numexpr_ns": f"{ms['numexpr'] * 1e6 / elements:.1f}",
        "c2_cpu_compile_ns": f"{ms['compile'] * 1e6 / elements:.1f}",
        "c2_cpu_copy_ms": f"{ms['copy']:.1f}",
        "c2_cpu_numexpr_ms": f"{ms['numexpr']:.1f}",
        "fig_fusion_cpu_bench": report.figure("fusion"),
    }


def device_table() -> Table:
    """Each device's memory bandwidth, FP32 peak and ridge points.

    >>> device_table().columns[2]
    'FP32 TFLOP/s'
    """
    rows = tuple(
        (
            d.name,
            f"{d.dram_tb_s.value:g}",
            f"{d.fp32_tflops.value:g}",
            f"{ridge_point(d, 'fp32'):.1f}",
            f"{ridge_point(d, 'bf16'):.0f}",
        )
        for d in config.devices().values()
    )
    return Table(
        "",
        (
            text("prose.fusion.col.device"),
            text("prose.fusion.col.dram"),
            "FP32 TFLOP/s",
            text("prose.fusion.col.fp32_ridge"),
            text("prose.fusion.col.bf16_ridge"),
        ),
        rows,
    )


def _fits_l2(device: config.Device, footprint: int) -> str:
    if device.l2_bytes is None:
        return text("word.unknown")
    return text("word.yes" if device.l2_bytes >= footprint else "word.no")


def l2_table() -> Table:
    """Each device's shortest time for the separate and fused chain, and whether its L2
    holds the separate chain's footprint.

    >>> l2_table().rows[0][-1] in {"是", "否", "未知", "yes", "no", "unknown"}
    True
    """
    _, sep, fused = article()
    rows = tuple(
        (
            d.name,
            f"{d.dram_tb_s.value:g}",
            "?" if d.l2_mib.value is None else f"{d.l2_mib.value:g}",
            *(f"{lower_bound_s(t, 0, d) * 1e6:.1f}" for t in (sep.traffic, fused.traffic)),
            _fits_l2(d, sep.footprint_bytes),
        )
        for d in config.devices().values()
    )
    columns = (
        text("prose.fusion.col.device"),
        text("prose.fusion.col.dram"),
        "L2 MiB",
        text("prose.fusion.col.sep_min_us", mib=f"{mib(sep.traffic):.0f}"),
        text("prose.fusion.col.fused_min_us", mib=f"{mib(fused.traffic):.0f}"),
        text("prose.fusion.col.fits_l2", mib=f"{mib(sep.footprint_bytes):.0f}"),
    )
    return Table("", columns, rows)


def kernel_blocks(block: int) -> dict[str, str]:
    """The SwiGLU kernel's block of ``block`` elements over the article's tensor: programs
    launched and bytes each reads and writes.

    >>> kernel_blocks(1024)["c2_k_read_kib"], kernel_blocks(1024)["c2_k_write_kib"]
    ('4', '2')
    """
    if block <= 0:
        raise ValueError(f"block={block}: expected a positive number of elements")
    g = article_chain().tensor("G")
    n_elem = g.shape[0] * g.shape[1]
    size = dtype_bytes(g.dtype)
    return {
        "c2_k_block": f"{block}",
        "c2_k_programs": f"{-(-n_elem // block)}",
        "c2_k_read_kib": f"{2 * block * size / 1024:g}",
        "c2_k_write_kib": f"{block * size / 1024:g}",
    }


def numerics_table(runs: Mapping[tuple[object, str], tuple[float, int, int]]) -> Table:
    """The kernels' errors against the reference: ``runs`` maps (dtype, path) to (max abs
    error, elements that differ, elements); dtype a torch dtype or its short name, path
    ``"fused"`` or ``"separate"``.

    >>> import torch
    >>> numerics_table({(torch.bfloat16, "fused"): (0.0078, 3, 100)}).rows[0][0]
    'bf16'
    >>> numerics_table({("bf16", "separate"): (0.0078, 3, 100)}).rows[0][2:]
    ('0.0078', '3 / 100')
    """
    return Table(
        "",
        (
            "dtype",
            text("prose.fusion.col.path"),
            text("prose.fusion.col.max_err"),
            text("prose.fusion.col.differing"),
        ),
        tuple(
            (
                _dtype_name(dtype),
                text(f"prose.fusion.path.{path}"),
                f"{err:.3g}",
                f"{diff} / {numel}",
            )
            for (dtype, path), (err, diff, numel) in runs.items()
        ),
    )


def bf16_rounding(g: Any, u: Any, ref: Any, block: int, interpreted: bool) -> dict[str, str]:
    """How far the fused and separate bf16 kernels land from the reference ``ref`` of inputs
    ``g``, ``u`` (torch tensors), in bf16 ulps, and how the kernels ran this build.

    >>> import torch
    >>> from infrabook.kernels import swiglu_reference
    >>> g = u = torch.linspace(-2, 2, 37).reshape(1, 37).to(torch.bfloat16)
    >>> v = bf16_rounding(g, u, swiglu_reference(g, u), 16, True)
    >>> v["c2_small_n"], v["c2_small_rem"], int(v["c2_bf16_fused_max"]) <= 1
    ('37', '5', True)
    """
    import torch

    from infrabook.kernels import swiglu, swiglu_unfused

    def ordered(x: torch.Tensor) -> torch.Tensor:
        # bf16 bit patterns as integers that grow with the value: adjacent bf16 numbers
        # differ by 1, so the difference of two is their distance in bf16 ulps.
        bits = x.view(torch.int16).to(torch.int32)
        return torch.where(bits < 0, -(bits & 0x7FFF), bits)

    def ulps(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return (ordered(a) - ordered(b)).abs()

    z = swiglu(g, u)
    d_fused = ulps(z, ref)
    toward_zero = (z.float().abs() < ref.float().abs()) & (d_fused > 0)
    d_unfused = ulps(swiglu_unfused(g, u), ref)
    # the unfused pair's extra rounding alone: T rounded to bf16 to nearest, in PyTorch
    t_bf16 = torch.nn.functional.silu(g.float()).to(g.dtype)
    d_two_step = ulps((t_bf16.float() * u.float()).to(g.dtype), ref)
    return {
        "c2_small_n": f"{g.numel():,}",
        "c2_small_rem": f"{g.numel() % block:,}",
        "c2_bf16_numel": f"{z.numel()}",
        "c2_bf16_fused_1ulp": f"{(d_fused == 1).sum().item()}",
        "c2_bf16_fused_differ": f"{(d_fused > 0).sum().item()}",
        "c2_bf16_fused_max": f"{d_fused.max().item()}",
        "c2_bf16_toward_zero": f"{toward_zero.sum().item()}",
        "c2_bf16_unfused_differ": f"{(d_unfused > 0).sum().item()}",
        "c2_bf16_unfused_max": f"{d_unfused.max().item()}",
        "c2_bf16_two_step_differ": f"{(d_two_step > 0).sum().item()}",
        "c2_bf16_two_step_max": f"{d_two_step.max().item()}",
        "c2_kernel_mode": text(f"prose.fusion.mode.{'interpreted' if interpreted else 'gpu'}"),
    }


def quant_chain() -> tuple[Graph, dict[str, Accounting]]:
    """The three-step chain (quantised output) and each plan's accounting by plan label.

    >>> chain, plans = quant_chain()
    >>> sorted(plans) == sorted(PLAN_ORDER)
    True
    """
    chain = article_chain(with_quant=True)
    return chain, {r.label: r.accounting for r in rank_plans(chain)}


def quant_plan_table() -> Table:
    """The three-step chain's four plans: kernels, traffic and peak memory.

    >>> [row[1] for row in quant_plan_table().rows]
    [3, 2, 2, 1]
    """
    _, plans = quant_chain()
    return Table(
        "",
        tuple(text(f"prose.fusion.col.{k}") for k in ("plan", "kernels", "traffic", "peak")),
        tuple(
            (
                text(f"prose.fusion.plan.{_PLAN_KEYS[p]}"),
                plans[p].kernel_count,
                f"{mib(plans[p].traffic):.0f}",
                f"{mib(plans[p].peak_live_bytes):.0f}",
            )
            for p in PLAN_ORDER
        ),
    )


def quant_values() -> dict[str, str]:
    """Traffic and peak memory of the three-step chain, separate, half and fully fused.

    >>> v = quant_values()
    >>> int(v["c21_sep"]) > int(v["c21_two"]) > int(v["c21_all"])
    True
    """
    chain, plans = quant_chain()
    s3, m3, f3 = (plans[p] for p in (PLAN_ORDER[0], PLAN_ORDER[1], PLAN_ORDER[3]))
    return {
        "c21_sep": f"{mib(s3.traffic):.0f}",
        "c21_two": f"{mib(m3.traffic):.0f}",
        "c21_all": f"{mib(f3.traffic):.0f}",
        "c21_step": f"{mib(s3.traffic - m3.traffic):.0f}",
        "c21_z_mib": f"{mib(chain.tensor('Z').nbytes):.0f}",
        "c21_traffic_saved": f"{mib(s3.traffic - f3.traffic):.0f}",
        "c21_peak_sep": f"{mib(s3.peak_live_bytes):.0f}",
        "c21_peak_all": f"{mib(f3.peak_live_bytes):.0f}",
        "c21_peak_saved": f"{mib(s3.peak_live_bytes - f3.peak_live_bytes):.0f}",
        "c21_q_mib": f"{mib(chain.tensor('Zq').nbytes):.0f}",
        "c21_q_bytes": f"{dtype_bytes(chain.tensor('Zq').dtype)}",
        "c21_z_dtype": chain.tensor("Z").dtype,
    }


def _shared() -> dict[str, Accounting]:
    g = article_chain().tensor("G")
    shared = shared_intermediate_chain(g.shape[0], g.shape[1], g.dtype)
    plans = {"separate": unfused(shared), "fused": (("silu", "mul"), ("keep",))}
    return {k: account(shared, p) for k, p in plans.items()}


def shared_values() -> dict[str, str]:
    """Traffic when a later op also needs T, separate and with SiLU and multiply fused.

    >>> v = shared_values()
    >>> int(v["c21_shared_sep"]) - int(v["c21_shared_fused"]) == int(v["c21_shared_saved"])
    True
    """
    acc = _shared()
    sep, fused = acc["separate"].traffic, acc["fused"].traffic
    return {
        "c21_shared_sep": f"{mib(sep):.0f}",
        "c21_shared_fused": f"{mib(fused):.0f}",
        "c21_shared_saved": f"{mib(sep - fused):.0f}",
    }


def shared_table() -> Table:
    """The shared-intermediate chain's two plans: traffic and what the first kernel writes.

    >>> len(shared_table().rows)
    2
    """
    return Table(
        "",
        tuple(text(f"prose.fusion.col.{k}") for k in ("plan", "traffic", "first_writes")),
        tuple(
            (
                text(f"prose.fusion.shared.{k}"),
                f"{mib(a.traffic):.0f}",
                _join(list(a.kernels[0].writes)),
            )
            for k, a in _shared().items()
        ),
    )


def quant_demo(
    q: Any, scale: Any, q_ref: Any, scale_ref: Any, steps: Any, dtype: object
) -> dict[str, str]:
    """The quantising kernel's run on the page's small ``dtype`` input: its codes ``q`` and
    row scales against the reference's, and the rounding ``steps`` (in quantisation steps).

    >>> import torch
    >>> q = torch.tensor([[1, -2]], dtype=torch.int8)
    >>> s = torch.tensor([0.5])
    >>> v = quant_demo(q, s, q, s, torch.tensor([[0.25, 0.5]]), "bf16")
    >>> v["c21_demo_rows"], v["c21_q_dtype"], v["c21_step_near_half"], v["c21_over_bound"]
    ('1', 'int8', '1', '0')
    """
    from infrabook.kernels.swiglu_quant import MAX_BLOCK_COLS

    chain, plans = quant_chain()
    # one fp32 scale per row of the article's chain
    scale_bytes = chain.tensor("Zq").shape[0] * scale.element_size()
    return {
        "c21_scale_kib": f"{scale_bytes / 1024:g}",
        "c21_scale_pct": f"{100 * scale_bytes / plans[PLAN_ORDER[3]].traffic:.2g}",
        "c21_max_block": f"{MAX_BLOCK_COLS}",
        "c21_demo_rows": f"{q.shape[0]}",
        "c21_demo_cols": f"{q.shape[1]}",
        "c21_demo_dtype": _dtype_name(dtype),
        "c21_q_dtype": str(q.dtype).removeprefix("torch."),
        "c21_step_max": f"{steps.max().item():.4f}",
        "c21_step_near_half": f"{(steps > 0.499).sum().item()}",
        "c21_over_bound": f"{(steps > 0.5).sum().item()}",
        "c21_codes_equal": f"{(q == q_ref).sum().item()}",
        "c21_codes_total": f"{q.numel()}",
        "c21_scale_diff": f"{(scale - scale_ref).abs().max().item():.2g}",
    }


def first_compute_bound_rows(device: config.Device, d_model: int, d_ff: int, dtype: str) -> int:
    """The smallest FFN GEMM row count at or above ``device``'s ridge point.

    >>> first_compute_bound_rows(config.device("h100_sxm"), 4096, 14336, "bf16") > 1
    True
    """
    m = 1
    while gemm_workload(m, d_model, d_ff, dtype).bound(device) == "memory":
        m += 1
    return m


def exercises() -> dict[str, str]:
    """The answers of the chapter's exercises: the chain in fp32, the first compute-bound
    FFN row count per device, the three-step chain with fp32 activations.

    >>> v = exercises()
    >>> int(v["c2_ex3_sep"]) > int(v["c2_ex3_all"])
    True
    """
    g = article_chain().tensor("G")
    rows, cols = g.shape
    ch32 = activation_chain(rows, cols, "fp32")
    a32s, a32f = account(ch32, unfused(ch32)), account(ch32, fully_fused(ch32))
    w32 = silu_chain_workloads(rows, cols, "fp32")[1]
    bk = config.scenarios().bucketing
    rtx, h100 = _devices()
    r32 = {r.label: r.accounting for r in rank_plans(activation_chain(rows, cols, "fp32", "int8"))}
    sep32, all32 = r32[PLAN_ORDER[0]], r32[PLAN_ORDER[3]]
    return {
        "c2_ex1_sep": f"{mib(a32s.traffic):.0f}",
        "c2_ex1_fused": f"{mib(a32f.traffic):.0f}",
        "c2_ex1_speedup": f"{a32s.traffic / a32f.traffic:.2f}",
        "c2_ex1_ai": f"{w32.intensity:.2f}",
        "c2_ex2_h100": f"{first_compute_bound_rows(h100, bk.d_model, bk.d_ff, g.dtype)}",
        "c2_ex2_rtx": f"{first_compute_bound_rows(rtx, bk.d_model, bk.d_ff, g.dtype)}",
        "c2_ex2_d": f"{bk.d_model}",
        "c2_ex2_dff": f"{bk.d_ff}",
        "c2_ex3_sep": f"{mib(sep32.traffic):.0f}",
        "c2_ex3_all": f"{mib(all32.traffic):.0f}",
        "c2_ex3_peak_sep": f"{mib(sep32.peak_live_bytes):.0f}",
        "c2_ex3_peak_all": f"{mib(all32.peak_live_bytes):.0f}",
        "c2_ex3_traffic_saved": f"{mib(sep32.traffic - all32.traffic):.0f}",
        "c2_ex3_peak_saved": f"{mib(sep32.peak_live_bytes - all32.peak_live_bytes):.0f}",
    }


def figures() -> dict[str, Any]:
    """The chapter's model figures (matplotlib), keyed by the names the page glues.

    >>> sorted(figures())
    ['fig_fusion_liveness', 'fig_fusion_traffic', 'fig_hierarchy', 'fig_roofline']
    """
    from infrabook.plots.fusion import liveness_timeline, traffic_bars
    from infrabook.plots.hierarchy import hierarchy_diagram
    from infrabook.plots.roofline import roofline_plot

    chain, _, _ = article()
    chain3, _ = quant_chain()
    rtx, h100 = _devices()
    return {
        "fig_fusion_traffic": traffic_bars(
            chain,
            [
                (text("prose.fusion.fig.separate"), unfused(chain)),
                (text("prose.fusion.fig.fused"), fully_fused(chain)),
            ],
        ),
        "fig_roofline": roofline_plot([rtx, h100], article_workloads()),
        "fig_hierarchy": hierarchy_diagram(rtx),
        "fig_fusion_liveness": liveness_timeline(
            chain3,
            [
                (text("prose.fusion.fig.separate3"), unfused(chain3)),
                (text("prose.fusion.fig.all_fused"), fully_fused(chain3)),
            ],
        ),
    }
