"""Section 5.4 (persistent kernels): the values its prose glues and its schedule table.

Schedules come from :func:`infrabook.launches.persistent_schedule` on the article's tensor
(``conf/scenarios.toml``) in the SwiGLU kernels' blocks.
"""

from __future__ import annotations

from typing import Any

from infrabook import config
from infrabook.labels import text
from infrabook.launches import persistent_schedule
from infrabook.prose import figure
from infrabook.tables import Table

# Exercise 1: programs per SM on the H100; exercise 2: blocks this many times larger.
EXERCISE_PER_SM = 4
EXERCISE_BLOCK_FACTOR = 4


def _elements() -> int:
    chain = config.scenarios().ffn_chain
    return chain.rows * chain.cols


def _block() -> int:
    from infrabook.kernels import BLOCK

    return BLOCK


def schedule_table() -> Table:
    """Each device's programs with one program per tile and with persistent programs.

    >>> schedule_table().columns[1]
    'SM 数'
    """
    rows = []
    for dev in config.devices().values():
        sms = int(figure(dev, "sm_count"))
        s = persistent_schedule(_elements(), _block(), sms)
        low, high = s.tiles_per_program
        rows.append(
            (
                dev.name,
                str(sms),
                f"{s.per_tile_programs:,}",
                f"{s.persistent_programs:,}",
                f"{low}–{high}",
            )
        )
    keys = ("device", "sms", "per_tile", "persistent", "tiles")
    return Table("", tuple(text(f"prose.persistent.col.{k}") for k in keys), tuple(rows))


def values() -> dict[str, Any]:
    """The section's numbers, its figure and the exercises' answers.

    >>> v = values()
    >>> v["ex54_per_sm"], v["pk_shape"]
    ('4', '[1024, 12288]')
    """
    from infrabook.kernels import CPU_PROGRAMS
    from infrabook.plots.runtime import tile_schedule_figure

    chain = config.scenarios().ffn_chain
    block = _block()
    rtx = config.device(config.scenarios().bucketing.peak_device)
    tiles = persistent_schedule(_elements(), block, int(figure(rtx, "sm_count"))).tiles
    fig_tiles = 4 * CPU_PROGRAMS
    h100 = config.device("h100_sxm")
    h_sms = int(figure(h100, "sm_count"))
    ex = persistent_schedule(_elements(), block, h_sms, programs_per_sm=EXERCISE_PER_SM)
    big_block = EXERCISE_BLOCK_FACTOR * block
    ex2 = persistent_schedule(_elements(), big_block, int(figure(rtx, "sm_count")))
    imbalance = ex2.tiles_per_program[1] / (ex2.tiles / ex2.persistent_programs) - 1
    return {
        "pk_shape": f"[{chain.rows}, {chain.cols}]",
        "pk_block": f"{block:,}",
        "pk_tiles": f"{tiles:,}",
        "pk_dev": rtx.name,
        "pk_sms": f"{int(figure(rtx, 'sm_count'))}",
        "pk_ratio": f"{tiles / figure(rtx, 'sm_count'):.0f}",
        "pk_fig": tile_schedule_figure(fig_tiles, CPU_PROGRAMS),
        "pk_cpu_programs": str(CPU_PROGRAMS),
        "pk_fig_tiles": str(fig_tiles),
        "pk_fig_loops": str(fig_tiles // CPU_PROGRAMS),
        "ex54_per_sm": str(EXERCISE_PER_SM),
        "ex54_dev": h100.name,
        "ex54_sms": str(h_sms),
        "ex54_programs": f"{ex.persistent_programs:,}",
        "ex54_low": str(ex.tiles_per_program[0]),
        "ex54_high": str(ex.tiles_per_program[1]),
        "ex54_big_block": f"{big_block:,}",
        "ex54_big_tiles": f"{ex2.tiles:,}",
        "ex54_big_low": str(ex2.tiles_per_program[0]),
        "ex54_big_high": str(ex2.tiles_per_program[1]),
        "ex54_big_imbalance": f"{imbalance:.1%}",
    }
