"""The roofline figure: the devices' roofs and the book's kernels placed on them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from infrabook.config import Device
from infrabook.labels import text
from infrabook.plots import style
from infrabook.roofline import Workload, peak_tflops, ridge_point

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def _intensity_text(value: float) -> str:
    # two significant digits below 10 FLOP/byte, whole numbers with separators above
    return f"{value:.2g}" if value < 10 else f"{value:,.0f}"


def roof_curve(device: Device, unit: str, intensities: np.ndarray) -> np.ndarray:
    """Attainable TFLOP/s on ``unit`` at each intensity: min(peak, intensity x bandwidth).

    >>> from infrabook.config import device
    >>> roof_curve(device("h100_sxm"), "fp32", np.array([1.0, 100.0])).tolist()
    [3.35, 67.0]
    """
    bw = device.dram_tb_s.value
    if bw is None:
        raise ValueError(f"device {device.key!r} has no DRAM bandwidth figure")
    return np.minimum(peak_tflops(device, unit), intensities * bw)


def roofline_plot(devices: Sequence[Device], workloads: Sequence[Workload]) -> Figure:
    """Log-log roofline: per device a bf16 tensor-core roof (solid) and an FP32 roof (dashed);
    each workload a marker at its intensity on the first device's roof for its unit.

    >>> from infrabook.config import device
    >>> from infrabook.roofline import article_workloads
    >>> fig = roofline_plot([device("rtx_pro_6000")], article_workloads())
    >>> len(fig.axes[0].lines)
    12
    """
    if not devices:
        raise ValueError("roofline_plot needs at least one device, got none")
    lo = min(0.1, *(w.intensity / 2 for w in workloads))
    hi = max(1e4, *(w.intensity * 2 for w in workloads))
    x = np.geomspace(lo, hi, 200)
    fig, ax = style.figure(7.0, 6.0)
    for i, dev in enumerate(devices):
        colour = style.PALETTE[i % len(style.PALETTE)]
        ax.plot(
            x,
            roof_curve(dev, "bf16", x),
            color=colour,
            lw=2,
            label=text("roofline.roof_bf16", device=dev.name),
        )
        ax.plot(
            x,
            roof_curve(dev, "fp32", x),
            color=colour,
            lw=1.5,
            ls="--",
            label=text("roofline.roof_fp32", device=dev.name),
        )
    ref = devices[0]
    for j, w in enumerate(workloads):
        ax.plot(
            [w.intensity],
            [w.attainable_tflops(ref)],
            ls="none",
            marker=_MARKERS[j % len(_MARKERS)],
            ms=8,
            color="#222222",
            markerfacecolor="white" if w.unit == "fp32" else "#222222",
            label=text("word.named", name=w.name, value=_intensity_text(w.intensity)),
        )
    for unit in ("bf16", "fp32"):
        ax.axvline(ridge_point(ref, unit), color="#888888", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(text("roofline.x"))
    ax.set_ylabel(text("roofline.y"))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, fontsize=10, frameon=False)
    return fig
