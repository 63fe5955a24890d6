"""The memory hierarchy of one device, drawn from ``conf/hardware.toml``: registers, shared
memory, L2 and device DRAM, with the sizes and bandwidths the sources give and a plain
"not published" where they give none."""

from __future__ import annotations

from dataclasses import dataclass

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Rectangle

from infrabook.config import Device
from infrabook.labels import text
from infrabook.plots import style


@dataclass(frozen=True)
class Level:
    """One level of the hierarchy as the figure shows it: a name, a size and a bandwidth."""

    name: str
    size: str
    bandwidth: str


def levels(device: Device) -> list[Level]:
    """The four levels, fastest first, with reader-facing size and bandwidth lines.

    Only DRAM bandwidth has a vendor figure; on-chip bandwidths are marked unpublished.

    >>> from infrabook.config import device
    >>> [lv.size for lv in levels(device("h100_sxm"))]
    ['每 SM 256 KiB，共 33 MiB', '每 SM 228 KiB，共 29.4 MiB', '50 MiB，全芯片共享', '80 GB']
    >>> levels(device("h100_sxm"))[3].bandwidth
    '带宽 3.35 TB/s'
    """
    sms = device.sm_count.value

    def per_sm(fig) -> str:
        if fig.value is None or sms is None:
            return text("hierarchy.size_unknown")
        return text(
            "hierarchy.per_sm", value=f"{fig.value:g}", total=f"{fig.value * sms / 1024:.3g}"
        )

    def bandwidth(fig, on_chip: bool) -> str:
        if fig.value is not None:
            return text("hierarchy.bw", value=f"{fig.value:g}")
        return text("hierarchy.bw_onchip" if on_chip else "hierarchy.bw_unknown")

    l2 = device.l2_mib.value
    dram = device.dram_gb.value
    return [
        Level(
            text("hierarchy.registers"), per_sm(device.regs_per_sm_kib), text("hierarchy.bw_onchip")
        ),
        Level(text("hierarchy.smem"), per_sm(device.smem_per_sm_kib), text("hierarchy.bw_onchip")),
        Level(
            text("hierarchy.l2"),
            text("hierarchy.size_unknown")
            if l2 is None
            else text("hierarchy.l2_size", value=f"{l2:g}"),
            bandwidth(device.l2_tb_s, on_chip=True),
        ),
        Level(
            text("hierarchy.dram"),
            text("hierarchy.size_unknown")
            if dram is None
            else text("hierarchy.dram_size", value=f"{dram:g}"),
            bandwidth(device.dram_tb_s, on_chip=False),
        ),
    ]


def hierarchy_diagram(device: Device) -> Figure:
    """A pyramid of four boxes (registers on top, DRAM at the bottom), each with its size and
    bandwidth, and where the intermediate T of the activation chain lives, fused or not.

    >>> from infrabook.config import device
    >>> fig = hierarchy_diagram(device("h100_sxm"))
    >>> sum(isinstance(p, Rectangle) for p in fig.axes[0].patches)
    4
    """
    fig, ax = style.figure(7.0, 4.8)
    ax.set_axis_off()
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 4.6)
    centre = 3.4
    for i, lv in enumerate(levels(device)):
        y = 3.45 - i * 1.12
        half = 2.1 + 0.55 * i
        ax.add_patch(
            Rectangle(
                (centre - half, y),
                2 * half,
                1.0,
                facecolor=style.PALETTE[i],
                alpha=0.25,
                edgecolor="#222222",
            )
        )
        ax.text(centre, y + 0.75, lv.name, ha="center", va="center", fontsize=11, fontweight="bold")
        ax.text(centre, y + 0.45, lv.size, ha="center", va="center", fontsize=10)
        ax.text(centre, y + 0.17, lv.bandwidth, ha="center", va="center", fontsize=10)
        if i in (0, 3):
            key = "hierarchy.fused" if i == 0 else "hierarchy.separate"
            ax.add_patch(
                FancyArrowPatch(
                    (7.6, y + 0.5),
                    (centre + half + 0.05, y + 0.5),
                    arrowstyle="->",
                    mutation_scale=14,
                    color="#222222",
                )
            )
            ax.text(7.65, y + 0.5, text(key), ha="left", va="center", fontsize=10)
    ax.set_title(text("hierarchy.title", device=device.name), fontsize=11)
    return fig
