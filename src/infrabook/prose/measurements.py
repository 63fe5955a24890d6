"""The measurements appendix: the values its prose glues and the machines' figures.

The records themselves, their list and their tables come from :mod:`infrabook.bench.records.report`.
"""

from __future__ import annotations

from typing import Any

from infrabook import config
from infrabook.bench.records import report
from infrabook.bench.records.results import CPU_EXPERIMENTS
from infrabook.labels import text

#: The experiments the appendix draws one figure of each, by glue name.
FIGURES = {
    "ms_fig_fusion": "fusion",
    "ms_fig_attention": "attention_memory",
    "ms_fig_launches": "launches",
    "ms_fig_shapes": "shapes",
}


def values(*, folder: report.Folder = None) -> dict[str, Any]:
    """The CPU reference record, how many experiments it ran, in what time and at what
    size; the GPU targets' thresholds; a figure per CPU experiment.

    >>> v = values()
    >>> v["ms_ref"] == report.reference("cpu"), v["ms_sw_pct"], v["ms_fa_L"]
    (True, '90', '8192')
    """
    ref = report.reference("cpu", folder=folder)
    found = report.load(ref, folder=folder) if ref else None
    runs = [e for n, e in (found.experiments if found else {}).items() if n in CPU_EXPERIMENTS]
    goals = config.bench_targets()
    sw, fa = goals["gpu_fused_swiglu_bandwidth"], goals["gpu_flash_vs_sdpa_8192"]
    if sw.device is None or sw.device != fa.device:  # the prose names one GPU for both
        raise ValueError(f"the GPU targets must name one device, got {sw.device!r}, {fa.device!r}")
    size = "reduced" if any(e.provenance.quick for e in runs) else "full"
    return (
        {
            "ms_ref": ref or text("word.unknown"),
            "ms_cpu_n": str(len(runs)),
            "ms_cpu_s": f"{sum(e.duration_s for e in runs):.0f}",
            "ms_cpu_quick": text(f"prose.records.{size}"),
            "ms_sw_device": config.device(sw.device).name,
            "ms_sw_pct": f"{sw.threshold:g}",
            "ms_fa_ratio": f"{fa.threshold:g}",
            "ms_fa_L": str(fa.seq_len),
            "ms_fa_d": str(fa.head_dim),
            "ms_fa_dtype": fa.dtype,
        }
        | gpu_verdicts(folder=folder)
        | {name: report.machines_figure(exp, folder=folder) for name, exp in FIGURES.items()}
    )


def gpu_verdicts(*, folder: report.Folder = None) -> dict[str, str]:
    """The reference GPU record, what it measured of each GPU target and the verdict.

    >>> v = gpu_verdicts()
    >>> v["ms_gpu_ref"], v["ms_sw_measured"], v["ms_fa_measured"], v["ms_fa_verdict"]
    ('gpu-h200-13ac61', '98', '0.80', '未达到')
    """
    ref = report.reference("gpu", folder=folder)
    found = report.load(ref, folder=folder) if ref else None
    judged = {t.id: t for e in (found.experiments.values() if found else ()) for t in e.targets}
    out = {"ms_gpu_ref": ref or text("word.unknown")}
    goals = (("sw", "gpu_fused_swiglu_bandwidth", ".0f"), ("fa", "gpu_flash_vs_sdpa_8192", ".2f"))
    for key, goal, spec in goals:
        t = judged.get(goal)
        if t is None or t.measured is None:
            out[f"ms_{key}_measured"], verdict = "—", "bench.unmeasured"
        else:
            out[f"ms_{key}_measured"] = format(t.measured, spec)
            verdict = "bench.met" if t.met else "bench.missed"
        out[f"ms_{key}_verdict"] = text(verdict)
    return out
