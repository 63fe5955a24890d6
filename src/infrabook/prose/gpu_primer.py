"""Chapter 1.5 (a GPU primer): the values its prose glues and its tables of devices.

Every device figure comes from ``conf/hardware.toml`` (:mod:`infrabook.config`), with its
source; the article's tensor is spread over a GPU by :class:`infrabook.gpu_model.TileMap`.
"""

from __future__ import annotations

from typing import Any

from infrabook import config
from infrabook.ffn_chain import article_chain
from infrabook.gpu_model import WARP, TileMap
from infrabook.labels import text
from infrabook.prose import figure
from infrabook.tables import Table, cited

# The fields of the sources table, with the word a reader sees for each (None: the label
# is the same in both languages).
SOURCE_FIELDS = {
    "sm_count": "SM",
    "regs_per_sm_kib": None,
    "smem_per_sm_kib": None,
    "l2_mib": "L2",
    "dram_gb": None,
    "dram_tb_s": None,
    "bf16_dense_tflops": "bf16",
    "fp32_tflops": "FP32",
}
# Exercise 1's kernel on the H100: a bigger block and more warps.
EXERCISE_BLOCK = 4096
EXERCISE_WARPS = 8


def show(value: float | None, fmt: str = "g") -> str:
    """A device figure, or "unknown" in the build's language where none is published.

    >>> show(96.0), show(None)
    ('96', '未知')
    """
    return text("word.unknown") if value is None else format(value, fmt)


def tiles() -> TileMap:
    """The article's tensor G in SwiGLU kernel blocks (4 warps each) on the RTX PRO 6000.

    >>> tiles().num_warps
    4
    """
    from infrabook.kernels.swiglu import BLOCK

    g = article_chain().tensor("G")
    rtx = config.device("rtx_pro_6000")
    return TileMap(
        elements=g.shape[0] * g.shape[1], block=BLOCK, num_warps=4, sms=int(figure(rtx, "sm_count"))
    )


def _ratios() -> list[float]:
    return [
        figure(d, "bf16_dense_tflops") / figure(d, "fp32_tflops") for d in config.devices().values()
    ]


def values() -> dict[str, Any]:
    """The chapter's numbers, the exercise's answers and the tile figure.

    >>> v = values()
    >>> v["gp_warp"], v["gp_warps"], v["gpx_warps"]
    ('32', '4', '8')
    """
    from infrabook.plots.gpu_model import tile_on_gpu

    rtx, h100 = config.device("rtx_pro_6000"), config.device("h100_sxm")
    t = tiles()
    g = article_chain().tensor("G")
    ratios = _ratios()
    ex = TileMap(
        elements=t.elements,
        block=EXERCISE_BLOCK,
        num_warps=EXERCISE_WARPS,
        sms=int(figure(h100, "sm_count")),
    )
    t_mib = article_chain().tensor("T").nbytes / 2**20
    fits = "fits" if t_mib <= figure(h100, "l2_mib") else "does_not_fit"
    return {
        "gp_warp": str(WARP),
        "gp_block": str(t.block),
        "gp_warps": str(t.num_warps),
        "gp_threads": str(t.threads_per_program),
        "gp_per_thread": str(t.elements_per_thread),
        "gp_programs": f"{t.programs:,}",
        "gp_rtx": rtx.name,
        "gp_rtx_sms": f"{t.sms}",
        "gp_waves": f"{t.waves:.1f}",
        "gp_rows": f"{g.shape[0]:,}",
        "gp_cols": f"{g.shape[1]:,}",
        "gp_tc_min": f"{min(ratios):.0f}",
        "gp_tc_max": f"{max(ratios):.0f}",
        "gp_rtx_regs_mib": f"{figure(rtx, 'regs_per_sm_kib') * figure(rtx, 'sm_count') / 1024:.0f}",
        "gp_rtx_l2": f"{rtx.l2_mib.value:g}",
        "fig_tile_on_gpu": tile_on_gpu(t, rtx),
        "gpx_block": str(ex.block),
        "gpx_warps": str(ex.num_warps),
        "gpx_per_thread": str(ex.elements_per_thread),
        "gpx_programs": f"{ex.programs:,}",
        "gpx_h100": h100.name,
        "gpx_sms": f"{ex.sms}",
        "gpx_waves": f"{ex.waves:.1f}",
        "gpx_l2": f"{h100.l2_mib.value:g}",
        "gpx_t_mib": f"{t_mib:g}",
        "gpx_fits": text(f"prose.gpu_primer.{fits}"),
    }


def _col(key: str) -> str:
    return text(f"prose.gpu_primer.col.{key}")


def memory_table() -> Table:
    """Each device's SMs and memory at every level.

    >>> memory_table().columns[1]
    'SM'
    """
    return Table(
        "",
        (
            _col("device"),
            "SM",
            _col("regs"),
            _col("smem"),
            "L2 MiB",
            _col("dram_gb"),
            _col("dram_tbs"),
        ),
        tuple(
            (
                d.name,
                *(
                    show(getattr(d, f).value)
                    for f in (
                        "sm_count",
                        "regs_per_sm_kib",
                        "smem_per_sm_kib",
                        "l2_mib",
                        "dram_gb",
                        "dram_tb_s",
                    )
                ),
            )
            for d in config.devices().values()
        ),
    )


def compute_table() -> Table:
    """Each device's bf16 tensor-core and FP32 peaks, and their ratio.

    >>> len(compute_table().columns)
    4
    """
    return Table(
        "",
        (_col("device"), _col("bf16"), _col("fp32"), _col("ratio")),
        tuple(
            (d.name, show(d.bf16_dense_tflops.value), show(d.fp32_tflops.value), f"{r:.1f}")
            for d, r in zip(config.devices().values(), _ratios(), strict=True)
        ),
    )


def sources_table() -> Table:
    """Where every device figure comes from, cited.

    >>> len(sources_table().rows) == 8 * len(config.devices())
    True
    """
    names = {f: label or text(f"prose.gpu_primer.field.{f}") for f, label in SOURCE_FIELDS.items()}
    return Table(
        "",
        (_col("device"), _col("figure"), _col("source")),
        tuple(
            (d.name, label, cited(getattr(d, f).source))
            for d in config.devices().values()
            for f, label in names.items()
        ),
    )
