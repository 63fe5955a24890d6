"""The measure-yourself appendix: the values its prose glues from the build's own runs
(the profiled chain, the cache-flush timing) and from the article's claims, and its tables.

The runs themselves are :func:`infrabook.own_tools.look` and
:func:`infrabook.bench.measure.caches.cache_effect`, made once per build by the page; this
module only formats what they return.
"""

from __future__ import annotations

from typing import Any

from infrabook import config, measuring
from infrabook.dataflow import account, fully_fused, unfused
from infrabook.ffn_chain import article_chain
from infrabook.labels import text
from infrabook.prose import claims_stated, figure
from infrabook.tables import Table, code
from infrabook.units import mib

# The MFU/HFU example: useful rows of one FFN projection, padded to a bucket.
USEFUL_ROWS, PADDED_ROWS = 300, 512
# The exercise's hardware FLOPs utilisation.
EXERCISE_HFU = 0.5


def seen_values(seen: Any) -> dict[str, str]:
    """What the profiler and Inductor showed for the chain (``seen``, an
    :class:`infrabook.own_tools.Seen`).

    >>> from types import SimpleNamespace as S
    >>> seen = S(runs=3, rows=64, cols=256, compile_s=4.2, call="empty_strided(", module="",
    ...          eager={"aten::mul": 3, "aten::silu": 3}, compiled={"aten::mul": 0})
    >>> v = seen_values(seen)
    >>> v["mt_eager_aten"], v["mt_shape"], v["mt_buffers"]
    ('6', '64 × 256', '1')
    """
    from infrabook import own_tools

    return {
        "mt_runs": str(seen.runs),
        "mt_eager_aten": str(own_tools.aten_count(seen.eager)),
        "mt_compiled_aten": str(own_tools.aten_count(seen.compiled)),
        "mt_shape": f"{seen.rows} × {seen.cols}",
        "mt_compile_s": f"{seen.compile_s:.0f}",
        "mt_buffers": str(seen.call.count("empty_strided")),
    }


def events_table(seen: Any) -> Table:
    """Each profiler event's count, eager and compiled, ATen operators first.

    >>> from types import SimpleNamespace as S
    >>> t = events_table(S(eager={"x": 1, "aten::mul": 3}, compiled={"aten::mul": 0}))
    >>> [row[1:] for row in t.rows]
    [('3', '0'), ('1', '0')]
    """
    names = sorted(
        set(seen.eager) | set(seen.compiled), key=lambda n: (not n.startswith("aten::"), n)
    )
    return Table(
        "",
        (text("prose.measure.col.event"), text("prose.measure.col.eager"), "torch.compile"),
        tuple((code(n), str(seen.eager.get(n, 0)), str(seen.compiled.get(n, 0))) for n in names),
    )


def article_values() -> dict[str, str]:
    """The article's measured times of the chain as bandwidths, against the RTX PRO 6000's
    memory and L2, and the MFU/HFU example's and the exercise's numbers.

    >>> v = article_values()
    >>> v["mt_t_sep"], v["mt_useful"], v["mt_ratio"]
    ('14.2', '300', '0.59')
    """
    chain = article_chain()
    sep, fused = (account(chain, plan(chain)) for plan in (unfused, fully_fused))
    stated = claims_stated()
    t_sep = float(stated["fusion.measured_separate_us"])
    t_fused = float(stated["fusion.measured_fused_us"])
    rtx = config.device("rtx_pro_6000")
    l2_bytes = figure(rtx, "l2_mib") * 2**20
    fits = "fits" if fused.footprint_bytes <= l2_bytes else "does_not_fit"
    return {
        "mt_t_sep": f"{t_sep:g}",
        "mt_t_fused": f"{t_fused:g}",
        "mt_fused_mib": f"{mib(fused.traffic):.0f}",
        "mt_bw_sep": f"{measuring.gb_s(sep.traffic, t_sep * 1e-6) / 1e3:.1f}",
        "mt_bw_fused": f"{measuring.gb_s(fused.traffic, t_fused * 1e-6) / 1e3:.1f}",
        "mt_rtx": rtx.name,
        "mt_rtx_bw": f"{figure(rtx, 'dram_tb_s'):g}",
        "mt_rtx_l2": f"{figure(rtx, 'l2_mib'):g}",
        "mt_ws_fused": f"{mib(fused.footprint_bytes):.0f}",
        "mt_useful": str(USEFUL_ROWS),
        "mt_padded": str(PADDED_ROWS),
        "mt_ratio": f"{USEFUL_ROWS / PADDED_ROWS:.2f}",
        "mtx_min_us": f"{fused.traffic / (figure(rtx, 'dram_tb_s') * 1e12) * 1e6:.1f}",
        "mtx_hfu": f"{100 * EXERCISE_HFU:g}",
        "mtx_mfu": f"{100 * EXERCISE_HFU * USEFUL_ROWS / PADDED_ROWS:.1f}",
        "mtx_fits": text(f"prose.measure.{fits}"),
    }


def cache_values(effect: Any) -> dict[str, str]:
    """The cache-flush run (``effect``, a
    :class:`infrabook.bench.measure.caches.CacheEffect`): its sizes, both timings, and
    whether their p20–p80 ranges tell them apart.

    >>> from infrabook.bench.measure import caches
    >>> e = caches.cache_effect(rows=16, cols=64, reps=3, warmup=1)
    >>> v = cache_values(e)
    >>> v["mt_ce_shape"], v["mt_ce_ws"]
    ('16 × 64', '0.015625')
    """
    ratio = f"{effect.flushed.median_s / effect.warm.median_s:.2f}"
    overlap = (
        effect.flushed.p20_s <= effect.warm.p80_s and effect.warm.p20_s <= effect.flushed.p80_s
    )
    return {
        "mt_ce_shape": f"{effect.rows} × {effect.cols}",
        "mt_ce_ws": f"{mib(effect.working_set):g}",
        "mt_ce_llc": "?" if effect.llc is None else f"{mib(effect.llc):g}",
        "mt_ce_flush": f"{mib(effect.flush_bytes):g}",
        "mt_ce_flushed_us": f"{effect.flushed.us:.0f}",
        "mt_ce_warm_us": f"{effect.warm.us:.0f}",
        "mt_ce_flushed_gb": f"{measuring.gb_s(effect.traffic, effect.flushed.median_s):.1f}",
        "mt_ce_warm_gb": f"{measuring.gb_s(effect.traffic, effect.warm.median_s):.1f}",
        "mt_ce_verdict": text(f"prose.measure.{'overlap' if overlap else 'apart'}", ratio=ratio),
        "mt_ce_first_us": f"{effect.first_s * 1e6:.0f}",
        "mt_ce_first_ratio": f"{effect.first_s / effect.warm.median_s:.1f}",
    }


def timing_table(effect: Any) -> Table:
    """The cache-flush run's two timings: median, p20–p80, and the byte model's GB/s.

    >>> from infrabook.bench.measure import caches
    >>> e = caches.cache_effect(rows=16, cols=64, reps=3, warmup=1)
    >>> [row[0] for row in timing_table(e).rows]
    ['每次之前清空缓存', '不清空']
    """
    rows = tuple(
        (
            text(f"prose.measure.{key}"),
            f"{t.us:.0f}",
            f"{t.p20_s * 1e6:.0f}–{t.p80_s * 1e6:.0f}",
            f"{measuring.gb_s(effect.traffic, t.median_s):.1f}",
        )
        for key, t in (("flushed", effect.flushed), ("warm", effect.warm))
    )
    columns = (
        text("prose.measure.col.timing"),
        text("prose.measure.col.median"),
        "p20–p80 μs",
        text("prose.measure.col.gb_s"),
    )
    return Table("", columns, rows)
