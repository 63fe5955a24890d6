"""Section 5.4 (persistent kernels): the values its prose glues and its schedule table.

Schedules come from :func:`infrabook.launches.persistent_schedule` on the article's tensor
(``conf/scenarios.toml``) in the SwiGLU kernels' blocks.
"""

from __future__ import annotations

from typing import Any

from infrabook import config
from infrabook.labels import text
from infrabook.launches import persistent_schedule
from infrabook.little import InFlight, latency_implied, resident_programs
from infrabook.prose import figure, reference_entry
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


def _warps() -> int:
    from infrabook.kernels import NUM_WARPS

    return NUM_WARPS


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


def _gpu_runs(folder: Any = None) -> tuple[Any, Any, Any]:
    """The reference GPU record's persistent and SwiGLU results, and its device."""
    found = reference_entry("gpu_persistent", folder)
    swiglu = reference_entry("gpu_swiglu", folder).results
    return found.results, swiglu, found.provenance.device


def _little(folder: Any = None) -> tuple[Any, dict[str, InFlight], float]:
    """Little's law on the measured variants: the copy's bandwidth at the same shape, the
    latency one resident program per SM waits per tile, each variant's bytes in flight."""
    runs, swiglu, device = _gpu_runs(folder)
    shape = next(s for s in swiglu.shapes if (s.rows, s.cols) == _rows_cols())
    copy = shape.paths["copy"]
    bandwidth = copy.model_bytes / copy.flushed.median_s
    one = runs.variants["persistent_1x_sm"]
    per_tile_bytes = runs.model_bytes // one.tiles
    # a resident program waits for one tile's loads before it asks for the next, so its
    # tiles run one after another: the time per tile is the round trip it waits
    latency = one.timing.median_s / (one.tiles / one.programs)
    resident = resident_programs(device.capability, _warps()) * device.sm_count
    kept = {
        # a pipelined loop keeps v.stages tiles of each program in flight
        name: InFlight(bandwidth, latency, per_tile_bytes * v.stages, min(v.programs, resident))
        for name, v in runs.variants.items()
    }
    return runs, kept, bandwidth


def _rows_cols() -> tuple[int, int]:
    chain = config.scenarios().ffn_chain
    return chain.rows, chain.cols


def little_table(folder: Any = None) -> Table:
    """Each measured variant: programs, bytes in flight, measured bandwidth and the round
    trip Little's law implies from them.

    >>> little_table().rows[1][0]
    'persistent_1x_sm'
    """
    runs, kept, _ = _little(folder)
    rows = []
    for name, v in runs.variants.items():
        k = kept[name]
        measured = runs.model_bytes / v.timing.median_s
        rows.append(
            (
                name,
                f"{v.programs:,}",
                f"{k.programs:,}",
                f"{k.kept / 2**20:.2f}",
                f"{measured / 1e12:.2f}",
                f"{latency_implied(k.kept, measured) * 1e6:.2f}",
            )
        )
    keys = ("variant", "programs", "in_flight_programs", "in_flight_mib", "tb_s", "latency_us")
    return Table(
        text("prose.persistent.little.title"),
        tuple(text(f"prose.persistent.little.col.{k}") for k in keys),
        tuple(rows),
    )


def _loaded_latency(runs: Any, kept: dict[str, InFlight]) -> float:
    """The round trip read backwards from four programs per SM (Little's law, L = N / X):
    the queue in front of memory is longer there than at one program per SM."""
    four = runs.variants["persistent_4x_sm"]
    return latency_implied(kept["persistent_4x_sm"].kept, runs.model_bytes / four.timing.median_s)


def _pipelined(
    runs: Any, kept: dict[str, InFlight], bandwidth: float, sm_count: int
) -> list[tuple[str, InFlight, float, float, Any]]:
    """Little's law for the pipelined variants, each program keeping ``PIPELINE_STAGES``
    tiles in flight: (name, what it keeps in flight, predicted seconds at the light-load
    round trip, at the loaded one, its measured variant or None).

    The light-load round trip (one program per SM) gives the fastest time Little's law
    allows; the loaded one (:func:`_loaded_latency`) is under a longer queue.
    """
    from infrabook.bench.experiments.persistent import PIPELINE_STAGES

    one = kept["persistent_1x_sm"]
    per_program = one.bytes_per_program * PIPELINE_STAGES
    found = []
    for name, per_sm in (("pipelined_1x_sm", 1), ("pipelined_4x_sm", 4)):
        light, heavy = (
            InFlight(bandwidth, latency, per_program, per_sm * sm_count)
            for latency in (one.latency_s, _loaded_latency(runs, kept))
        )
        found.append(
            (
                name,
                light,
                runs.model_bytes / light.reached,
                runs.model_bytes / heavy.reached,
                runs.variants.get(name),
            )
        )
    return found


def pipelined_table(folder: Any = None) -> Table:
    """The pipelined variants: Little's law's prediction from the reference record's own
    bandwidth and round trips, beside their measured time (or "not measured yet").

    >>> t = pipelined_table()
    >>> [row[0] for row in t.rows], t.rows[0][2], t.rows[1][3]
    (['pipelined_1x_sm', 'pipelined_4x_sm'], '2.3', '22.9')
    """
    from infrabook.bench.experiments.persistent import PIPELINE_STAGES

    runs, kept, bandwidth = _little(folder)
    _, _, device = _gpu_runs(folder)
    rows = [
        (
            name,
            f"{k.programs:,}",
            f"{k.kept / 2**20:.1f}",
            f"{light * 1e6:.1f}",
            f"{loaded * 1e6:.1f}",
            f"{variant.timing.us:.1f}" if variant else text("prose.ladder.not_measured"),
        )
        for name, k, light, loaded, variant in _pipelined(runs, kept, bandwidth, device.sm_count)
    ]
    keys = ("variant", "programs", "in_flight_mib", "light_us", "loaded_us", "measured_us")
    return Table(
        text("prose.persistent.pipelined.title", stages=PIPELINE_STAGES),
        tuple(text(f"prose.persistent.pipelined.col.{k}") for k in keys),
        tuple(rows),
    )


def measured(folder: Any = None) -> dict[str, str]:
    """The measured times of the reference GPU record and Little's law on them.

    >>> v = measured()
    >>> v["pkm_slow_1x"], v["pkm_slow_4x"], v["pkm_per_tile_vs_copy"]
    ('4.5', '1.7', '100')
    >>> v["pkm_tile_kib"], v["pkm_need_per_sm"], v["pkm_resident_per_sm"]
    ('6', '4.5', '16')
    >>> v["pkm_pipe_1x_light_us"], v["pkm_pipe_1x_loaded_us"], v["pkm_pipe_4x_us"]
    ('34.4', '51.5', '22.9')
    """
    from infrabook.bench.experiments.persistent import PIPELINE_STAGES

    runs, kept, bandwidth = _little(folder)
    _, swiglu, device = _gpu_runs(folder)
    per_tile, one, four = (
        runs.variants[n] for n in ("per_tile", "persistent_1x_sm", "persistent_4x_sm")
    )
    shape = next(s for s in swiglu.shapes if (s.rows, s.cols) == _rows_cols())
    copy_s = shape.paths["copy"].flushed.median_s
    k1, k4 = kept["persistent_1x_sm"], kept["persistent_4x_sm"]
    sms = device.sm_count
    pipelined = _pipelined(runs, kept, bandwidth, sms)
    (_, p1, p1_light, p1_loaded, _), (_, p4, p4_light, _, _) = pipelined
    return {
        "pkm_stages": str(PIPELINE_STAGES),
        "pkm_pipe_1x_mib": f"{p1.kept / 2**20:.1f}",
        "pkm_pipe_1x_share": f"{100 * p1.share:.0f}",
        "pkm_pipe_1x_light_us": f"{p1_light * 1e6:.1f}",
        "pkm_pipe_1x_loaded_us": f"{p1_loaded * 1e6:.1f}",
        "pkm_pipe_4x_mib": f"{p4.kept / 2**20:.1f}",
        "pkm_pipe_4x_us": f"{p4_light * 1e6:.1f}",
        "pkm_dev": device.name,
        "pkm_sms": str(sms),
        "pkm_tiles": f"{per_tile.tiles:,}",
        "pkm_per_tile_us": f"{per_tile.timing.us:.1f}",
        "pkm_copy_us": f"{copy_s * 1e6:.1f}",
        "pkm_per_tile_vs_copy": f"{100 * copy_s / per_tile.timing.median_s:.0f}",
        "pkm_1x_us": f"{one.timing.us:.0f}",
        "pkm_4x_us": f"{four.timing.us:.1f}",
        "pkm_4x_programs": f"{four.programs:,}",
        "pkm_4x_per_sm": f"{four.programs / sms:g}",
        "pkm_slow_1x": f"{one.timing.median_s / per_tile.timing.median_s:.1f}",
        "pkm_slow_4x": f"{four.timing.median_s / per_tile.timing.median_s:.1f}",
        "pkm_tile_kib": f"{k1.bytes_per_program / 2**10:.0f}",
        "pkm_block": f"{_block():,}",
        "pkm_bw_tb_s": f"{bandwidth / 1e12:.2f}",
        "pkm_latency_us": f"{k1.latency_s * 1e6:.2f}",
        "pkm_needed_mib": f"{k1.needed / 2**20:.1f}",
        "pkm_kept_1x_kib": f"{k1.kept / 2**10:,.0f}",
        "pkm_share_1x": f"{100 * k1.share:.0f}",
        "pkm_need_programs": f"{k1.programs_needed:,}",
        "pkm_need_per_sm": f"{k1.programs_needed / sms:.1f}",
        "pkm_kept_4x_mib": f"{k4.kept / 2**20:.1f}",
        "pkm_share_4x": f"{100 * k4.share:.0f}",
        "pkm_latency_4x_us": f"{_loaded_latency(runs, kept) * 1e6:.2f}",
        "pkm_prefetch_per_sm": f"{k1.programs_needed / 2 / sms:.1f}",
        "pkm_resident_per_sm": str(resident_programs(device.capability, _warps())),
        "pkm_warps": str(_warps()),
        "pkm_resident": f"{resident_programs(device.capability, _warps()) * sms:,}",
    }
