"""Section 5.2 (shape bucketing): the values its prose glues and the tables it shows.

Text is formatted the way the page prints it, in the build's language; the arithmetic is
:mod:`infrabook.bucketing`'s, on the article's scenario from ``conf/scenarios.toml``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from infrabook import config
from infrabook.bucketing import (
    BucketingScenario,
    actual_rows,
    article_bucketing,
    bucket_for,
    padding_fraction,
    parse_calls,
)
from infrabook.labels import text
from infrabook.plots.style import strategy_name
from infrabook.prose import claims_stated, reference_entry
from infrabook.tables import Table

# Exercise 1's calls and buckets, exercise 2's lower utilisation of the bucketed strategy.
EXERCISE_CALLS = "300x20,700x4,1900"
EXERCISE_BUCKETS = (512, 1024, 2048)
EXERCISE_LOW_MFU = 0.3


def call_list(calls: Sequence[tuple[int, int]]) -> str:
    """Calls as the prose lists them: ``n`` calls of ``rows`` rows each.

    >>> call_list(((1000, 2), (300, 1)))
    '2 次 1,000 行、1 次 300 行'
    """
    return text("prose.list_sep").join(
        text(f"prose.bucketing.calls_{'one' if n == 1 else 'many'}", n=n, rows=f"{r:,}")
        for r, n in calls
    )


def _buckets(buckets: Sequence[int]) -> str:
    return " / ".join(f"{b:,}" for b in buckets)


def values() -> dict[str, str]:
    """The article's calls, buckets, padding and each strategy's rate, time and MFU.

    >>> v = values()
    >>> v["bk_padding"], v["bk_g_ms"] > v["bk_b_ms"]
    ('45.5%', True)
    """
    bk = config.scenarios().bucketing
    sc = article_bucketing()
    stated, at_peak = sc.costs("article"), sc.costs("peak")
    generic, bucketed, _ = stated
    implied_peak = sc.implied_peak_tflops("article")
    claim = claims_stated()
    flop_per_row = bk.flop_per_row_factor * bk.d_model * bk.d_ff
    if flop_per_row != sc.flop_per_row:
        raise ValueError(
            f"flop per row {flop_per_row} differs from the scenario's {sc.flop_per_row}"
        )
    dev = config.device(bk.peak_device)
    if dev.bf16_dense_tflops.value != sc.peak_tflops:
        raise ValueError(f"{dev.name}'s bf16 peak differs from the scenario's {sc.peak_tflops}")
    out = {
        "bk_calls": str(sum(n for _, n in sc.calls)),
        "bk_call_list": call_list(sc.calls),
        "bk_buckets": _buckets(sc.buckets),
        "bk_actual": f"{actual_rows(sc.calls):,}",
        "bk_executed": f"{bucketed.executed_rows:,}",
        "bk_padding": f"{bucketed.padding_fraction:.1%}",
        "bk_padding_stated": claim["bucketing.padding_pct"],
        "bk_implied_peak": f"{implied_peak:g}",
        "bk_peak": f"{sc.peak_tflops:g}",
    }
    for key, a, p in zip(("g", "b", "s"), stated, at_peak, strict=True):
        out |= {
            f"bk_{key}_rate": f"{a.rate_tflops:g}",
            f"bk_{key}_ms": f"{a.time_ms:.1f}",
            f"bk_{key}_peak_ms": f"{p.time_ms:.2f}",
            f"bk_{key}_mfu": f"{a.strategy.mfu:.0%}",
            f"bk_{key}_useful_mfu": f"{100 * a.useful_mfu(implied_peak):.3g}%",
        }
    useful_ratio = bucketed.useful_mfu(implied_peak) / generic.useful_mfu(implied_peak)
    return out | {
        "bk_b_useful_rate": f"{bucketed.useful_rate_tflops:.1f}",
        "bk_b_useful_mfu_peak": f"{bucketed.useful_mfu(sc.peak_tflops):.1%}",
        "bk_speedup": f"{generic.time_ms / bucketed.time_ms:.3f}",
        "bk_useful_ratio": f"{useful_ratio:.3f}",
        "bk_dmodel": str(bk.d_model),
        "bk_dff": str(bk.d_ff),
        "bk_flop_row": f"{flop_per_row:,}",
        "bk_dd_product": f"{bk.d_model * bk.d_ff:,}",
        "bk_tflop_groups": " / ".join(
            f"{c.executed_rows * flop_per_row / 1e12:.3f}" for c in stated
        ),
        "bk_peak_diff": f"{sc.peak_tflops / implied_peak - 1:.2%}",
        "bk_device": dev.name,
    }


def figures() -> dict[str, Any]:
    """The section's figure (matplotlib), keyed by the name the page glues.

    >>> sorted(figures())
    ['bk_fig']
    """
    from infrabook.plots.runtime import bucketing_figure

    return {"bk_fig": bucketing_figure(article_bucketing().costs("article"))}


def _columns(*keys: str) -> tuple[str, ...]:
    return tuple(text(f"prose.bucketing.col.{k}") for k in keys)


def calls_table() -> Table:
    """Each call size of the article: how many calls, its bucket, the rows executed.

    >>> calls_table().rows[0][1]
    8
    """
    sc = article_bucketing()
    return Table(
        "",
        _columns("rows", "calls", "bucket", "executed"),
        tuple(
            (
                f"{r:,}",
                n,
                f"{bucket_for(r, sc.buckets):,}",
                f"{bucket_for(r, sc.buckets) * n:,}",
            )
            for r, n in sc.calls
        ),
    )


def strategy_table() -> Table:
    """The three strategies at the article's stated rates: rows, utilisation, rate, times.

    >>> [len(r) for r in strategy_table().rows]
    [6, 6, 6]
    """
    return Table(
        "",
        _columns("strategy", "executed_pad", "mfu", "rate", "time", "prep"),
        tuple(
            (
                strategy_name(c.strategy.name),
                text(
                    "prose.bucketing.rows_padding",
                    rows=f"{c.executed_rows:,}",
                    pad=f"{c.padding_fraction:+.1%}",
                ),
                f"{c.strategy.mfu:.0%}",
                f"{c.rate_tflops:g}",
                f"{c.time_ms:.1f}",
                f"{c.strategy.prep_ms:g}",
            )
            for c in article_bucketing().costs("article")
        ),
    )


def peak_table() -> Table:
    """Each strategy's rate derived two ways: the article's rate ÷ utilisation, and
    utilisation × the device's peak, with the time per group at the latter.

    >>> len(peak_table().rows)
    3
    """
    sc = article_bucketing()
    return Table(
        "",
        _columns("strategy", "rate_over_mfu", "mfu_peak", "time_peak"),
        tuple(
            (
                strategy_name(a.strategy.name),
                f"{a.rate_tflops / a.strategy.mfu:g}",
                f"{p.rate_tflops:.2f}",
                f"{p.time_ms:.2f}",
            )
            for a, p in zip(sc.costs("article"), sc.costs("peak"), strict=True)
        ),
    )


def useful_table() -> Table:
    """Each strategy's executed utilisation, useful rate and useful MFU.

    >>> useful_table().rows[0][0]
    '通用'
    """
    sc = article_bucketing()
    implied_peak = sc.implied_peak_tflops("article")
    return Table(
        "",
        _columns("strategy", "mfu", "useful_rate", "useful_mfu"),
        tuple(
            (
                strategy_name(c.strategy.name),
                f"{c.executed_utilisation(implied_peak):.1%}",
                f"{c.useful_rate_tflops:.1f}",
                f"{c.useful_mfu(implied_peak):.1%}",
            )
            for c in sc.costs("article")
        ),
    )


def ratio_text(cost_factor: float, gain_factor: float, time_ratio: float) -> str:
    """The two printed lines of the padding-cost versus utilisation-gain comparison.

    >>> print(ratio_text(1.1, 1.5, 1.1 / 1.5).splitlines()[0])
    补齐的代价 ×1.1000，利用率的收益 ÷1.5
    """
    generic, bucketed, _ = article_bucketing().costs("article")
    return "\n".join(
        (
            text("prose.bucketing.cost_gain", cost=f"{cost_factor:.4f}", gain=f"{gain_factor:g}"),
            text(
                "prose.bucketing.time_ratio",
                ratio=f"{time_ratio:.4f}",
                bucketed=f"{bucketed.time_ms:.2f}",
                generic=f"{generic.time_ms:.2f}",
            ),
        )
    )


def ratio_values(cost_factor: float, gain_factor: float, time_ratio: float) -> dict[str, str]:
    """The same comparison glued into the prose, with the padding it would take to lose.

    >>> ratio_values(1.1, 1.5, 1.1 / 1.5)["bk_pad_limit"]
    '50%'
    """
    return {
        "bk_cost_factor": f"{cost_factor:.3f}",
        "bk_gain_factor": f"{gain_factor:g}",
        "bk_time_ratio": f"{time_ratio:.3f}",
        "bk_pad_limit": f"{gain_factor - 1:.0%}",
    }


def measured_crossing(results: Any) -> dict[str, str]:
    """The generic ↔ bucketed crossing of a CPU shapes record (``results``, the record's
    ``ShapesResults``) as the section's prose states it: the crossing the record's crossover
    table shows (``ShapesResults.shown_crossing``: at n > 0, between run times apart by more
    than their noise) with what it means, or, where the table shows none, that it does not.

    >>> from types import SimpleNamespace
    >>> def record(runs, tie, prep):
    ...     return SimpleNamespace(
    ...         crossovers=lambda: {("generic", "bucketed"): (runs, tie)},
    ...         shown_crossing=lambda runs, tie: runs is not None and runs > 0 and not tie,
    ...         prep=SimpleNamespace(total_ms=prep.get))
    >>> measured_crossing(record(0.996, False, {"generic": 445.5, "bucketed": 402.7}))[
    ...     "bk_cpu_gb"].startswith("通用 ↔ 分桶的交叉点是 1.0 组：分桶的准备时间比通用还短")
    True
    >>> print(measured_crossing(record(-1121.3, True, {"generic": 445.5, "bucketed": 1.0}))[
    ...     "bk_cpu_gb"].split("：")[0])
    上面的交叉点表里没有通用 ↔ 分桶这一对
    """
    runs, tie = results.crossovers()["generic", "bucketed"]
    if not results.shown_crossing(runs, tie):
        return {"bk_cpu_gb": text("prose.records.no_crossing")}
    gb = f"{runs:.1f}"
    cheap = results.prep.total_ms("bucketed") < results.prep.total_ms("generic")
    reason = (
        text("prose.records.bucketing_cheap_prep", gb=gb)
        if cheap and runs <= 1
        else text("prose.records.both_lines_here")
    )
    return {"bk_cpu_gb": text("prose.records.crossing", runs=gb, reason=reason)}


def _order(prep: dict[str, float]) -> str:
    """Strategies from the cheapest preparation to the dearest, by their labels.

    >>> _order({"generic": 445.5, "bucketed": 1.0})
    '分桶 < 通用'
    """
    return " < ".join(strategy_name(n) for n in sorted(prep, key=prep.__getitem__))


def measured_values() -> dict[str, Any]:
    """What the section's prose says of the CPU shapes record (the reference CPU record's
    ``shapes`` entry): the weights and calls measured, the rate of the most padded call,
    of its bucket and of the smallest size against the best, bucketed over generic time,
    the padding, the measured preparation beside the article's, the crossing and the figure.

    >>> v = measured_values()
    >>> v["bk_cpu_dtype"], v["bk_cpu_verdict"] in (
    ...     text("prose.records.bucketing_slower"), text("prose.records.bucketing_faster"))
    ('fp32', True)
    """
    from infrabook.bench.records import report

    shapes = reference_entry("shapes")
    params, measured = shapes.params, shapes.results
    rates = measured.rates(params)
    small_rows, small_n = params["calls"][0]  # the calls that get padded most
    small_bucket = bucket_for(small_rows, params["buckets"])
    best = max(rates.values())
    ratio = measured.groups["bucketed"].median_s / measured.groups["generic"].median_s
    article_prep = {st.name: st.prep_ms for st in article_bucketing().strategies}
    measured_prep = {name: measured.prep.total_ms(name) for name in article_prep}
    verdict = "slower" if ratio > 1 else "faster"
    return {
        "bk_cpu_w": f"{params['k']} × {params['n']}",
        "bk_cpu_dtype": params["dtype"],
        "bk_cpu_calls": str(sum(n for _, n in params["calls"])),
        "bk_cpu_small_n": str(small_n),
        "bk_cpu_small_rows": f"{small_rows:,}",
        "bk_cpu_small_bucket": f"{small_bucket:,}",
        "bk_cpu_call_pct": f"{100 * rates[small_rows] / best:.0f}",
        "bk_cpu_bucket_pct": f"{100 * rates[small_bucket] / best:.0f}",
        "bk_cpu_small_pct": f"{100 * rates[params['rows'][0]] / best:.0f}",
        "bk_cpu_smallest_rows": f"{params['rows'][0]:,}",
        "bk_cpu_ratio": f"{ratio:.2f}",
        "bk_cpu_pad": f"{100 * padding_fraction(params['calls'], params['buckets']):.1f}",
        "bk_cpu_verdict": text(f"prose.records.bucketing_{verdict}"),
        "bk_cpu_prep": text("prose.list_sep").join(
            f"{strategy_name(n)} {p:.0f} ms" for n, p in measured_prep.items()
        ),
        "bk_cpu_prep_order": _order(measured_prep),
        "bk_art_prep_order": _order(article_prep),
        **measured_crossing(measured),
        "bk_cpu_fig": report.figure("shapes"),
    }


def exercises() -> dict[str, str]:
    """The answers of the section's exercises: other calls and buckets, a lower bucketed
    utilisation, and the break-even utilisation.

    >>> v = exercises()
    >>> v["bk_ex2_u"], v["bk_ex1_buckets"]
    ('30%', '512 / 1,024 / 2,048')
    """
    sc = article_bucketing()
    generic, bucketed, _ = sc.costs("article")
    ex = BucketingScenario(
        parse_calls(EXERCISE_CALLS),
        EXERCISE_BUCKETS,
        sc.peak_tflops,
        sc.flop_per_row,
        sc.strategies,
    )
    ex_g, ex_b, _ = ex.costs("article")
    low = EXERCISE_LOW_MFU
    lo_g, lo_b, _ = sc.with_mfus({"bucketed": low}).costs("article")
    lo_b_useful, lo_g_useful = lo_b.useful_mfu(sc.peak_tflops), lo_g.useful_mfu(sc.peak_tflops)
    break_even = bucketed.executed_rows / bucketed.actual_rows * generic.strategy.mfu
    verdict = "prose.bucketing.verdict"
    return {
        "bk_ex1_calls": call_list(ex.calls),
        "bk_ex1_buckets": _buckets(EXERCISE_BUCKETS),
        "bk_ex1_pad": f"{padding_fraction(ex.calls, EXERCISE_BUCKETS):.1%}",
        "bk_ex1_actual": f"{ex_b.actual_rows:,}",
        "bk_ex1_exec": f"{ex_b.executed_rows:,}",
        "bk_ex1_g_ms": f"{ex_g.time_ms:.2f}",
        "bk_ex1_b_ms": f"{ex_b.time_ms:.2f}",
        "bk_ex1_verdict": text(
            f"{verdict}.{'still_faster' if ex_b.time_ms < ex_g.time_ms else 'now_slower'}"
        ),
        "bk_ex2_u": f"{low:.0%}",
        "bk_ex2_useful": f"{lo_b_useful:.1%}",
        "bk_ex2_g_useful": f"{lo_g_useful:.1%}",
        "bk_ex2_vs_generic": text(
            f"{verdict}.{'above' if lo_b_useful > lo_g_useful else 'not_above'}"
        ),
        "bk_ex2_g_ms": f"{lo_g.time_ms:.2f}",
        "bk_ex2_b_ms": f"{lo_b.time_ms:.2f}",
        "bk_ex2_limit": f"{low / generic.strategy.mfu - 1:.0%}",
        "bk_ex2_verdict": text(
            f"{verdict}.{'still_faster' if lo_b.time_ms < lo_g.time_ms else 'already_slower'}"
        ),
        "bk_ex3_u": f"{break_even:.1%}",
    }
