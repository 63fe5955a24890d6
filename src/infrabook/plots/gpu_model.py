"""The primer's picture: one Triton program's tile of the activation chain, where it runs (an
SM, its warps and their registers) and what it reads and writes (HBM, through L2)."""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Rectangle

from infrabook.config import Device
from infrabook.gpu_model import WARP, TileMap
from infrabook.labels import text
from infrabook.plots import style

_COLS, _ROWS = 8, 5  # tiles drawn of the tensor (a sketch: the real grid has more)
_PICKED = (2, 3)  # (row, column) of the program the figure follows


def _box(ax, x, y, w, h, colour, label="", *, alpha=0.2, size=10.0, bold=False):
    ax.add_patch(Rectangle((x, y), w, h, facecolor=colour, alpha=alpha, edgecolor=style.INK))
    if label:
        weight = "bold" if bold else "normal"
        ax.text(
            x + w / 2, y + h / 2, label, ha="center", va="center", fontsize=size, fontweight=weight
        )


def _arrow(ax, start, end, label="", *, where=(0.0, 0.0)):
    ax.add_patch(
        FancyArrowPatch(start, end, arrowstyle="->", mutation_scale=13, color=style.INK, lw=1.2)
    )
    if label:
        ax.text(*where, label, ha="center", va="center", fontsize=style.SMALL_PT)


@style.styled
def tile_on_gpu(tiles: TileMap, device: Device) -> Figure:
    """The tensor as a grid of tiles, one program's tile handed to one SM, split over its
    warps' registers, and the HBM traffic of that tile (G and U read, Z written).

    >>> from infrabook.config import device
    >>> fig = tile_on_gpu(TileMap(1024 * 12288, 1024, 4, 188), device("rtx_pro_6000"))
    >>> texts = [t.get_text() for t in fig.axes[0].texts]
    >>> any("4 个 warp" in t for t in texts), any("8" in t and "个元素" in t for t in texts)
    (True, True)
    """
    fig, ax = style.figure(7.0, 4.8)
    ax.set_axis_off()
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 6.9)
    ax.set_title(text("gpu.title", device=device.name), fontsize=11)
    # the tensor, tile by tile
    size, left, top = 0.42, 0.2, 5.9
    for r in range(_ROWS):
        for c in range(_COLS):
            picked = (r, c) == _PICKED
            colour = style.PALETTE[1] if picked else style.PALETTE[5]
            x, y = left + c * size, top - (r + 1) * size
            _box(ax, x, y, size, size, colour, alpha=0.7 if picked else 0.15)
    tensor = text("gpu.tensor", programs=f"{tiles.programs:,}", block=tiles.block)
    ax.text(left + _COLS * size / 2, top + 0.15, tensor, ha="center", va="bottom", fontsize=10)
    tile = (left + (_PICKED[1] + 1) * size, top - (_PICKED[0] + 0.5) * size)
    # one SM, the program's warps inside it
    sm_x, sm_y, sm_w, sm_h = 4.2, 2.55, 5.6, 3.9
    _box(ax, sm_x, sm_y, sm_w, sm_h, style.PALETTE[0], alpha=0.08)
    head = text("gpu.sm", sms=f"{tiles.sms}")
    ax.text(sm_x + 0.12, sm_y + sm_h - 0.25, head, ha="left", va="center", fontweight="bold")
    program = text("gpu.program", warps=tiles.num_warps, threads=tiles.threads_per_program)
    ax.text(sm_x + 0.12, sm_y + sm_h - 0.62, program, ha="left", va="center", fontsize=10)
    shown = min(tiles.num_warps, 4)
    warp_w = (sm_w - 0.4 - 0.12 * (shown - 1)) / shown
    for w in range(shown):
        x = sm_x + 0.2 + w * (warp_w + 0.12)
        label = text("gpu.warp", index=w, threads=WARP, per_thread=tiles.elements_per_thread)
        _box(ax, x, sm_y + 1.3, warp_w, 1.75, style.PALETTE[2], label, size=10)
    half = sm_w / 2 - 0.3
    smem = text("gpu.smem", kib=f"{device.smem_per_sm_kib.value:g}")
    _box(ax, sm_x + 0.2, sm_y + 0.2, half, 0.9, style.PALETTE[4], smem, size=10)
    cores = text("gpu.tensor_cores")
    _box(ax, sm_x + sm_w / 2 + 0.1, sm_y + 0.2, half, 0.9, style.PALETTE[3], cores, size=10)
    _arrow(ax, tile, (sm_x, sm_y + sm_h - 0.9), text("gpu.assign"), where=(2.9, 3.35))
    # L2 and HBM below
    l2 = device.l2_mib.value
    l2_label = text("gpu.l2", mib="?" if l2 is None else f"{l2:g}")
    _box(ax, 0.2, 1.35, 9.6, 0.7, style.PALETTE[5], l2_label, size=10)
    dram = text("gpu.hbm", tb_s=f"{device.dram_tb_s.value:g}", gb=f"{device.dram_gb.value:g}")
    _box(ax, 0.2, 0.2, 9.6, 0.8, style.PALETTE[6], dram, size=10)
    _arrow(ax, (5.2, 1.0), (5.2, sm_y), text("gpu.reads"), where=(3.8, 2.3))
    _arrow(ax, (8.8, sm_y), (8.8, 1.0), text("gpu.writes"), where=(7.9, 2.3))
    ax.text(1.9, 2.75, text("gpu.no_t"), ha="center", va="center", fontsize=10)
    return fig
