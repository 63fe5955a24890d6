"""The claim audit: every number the article states, recomputed, with a verdict.

Verdicts:

* ``matches``: the recomputation, rounded to the digits the article gives, is the stated value;
* ``rounded``: within :data:`ROUNDED_TOLERANCE` (2 %) but not equal at the stated digits
  (the article rounded an input);
* ``differs``: further off than that;
* ``implausible``: the arithmetic may hold, but the claim needs more than any listed
  device can deliver (see :mod:`infrabook.roofline`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from infrabook import config, labels
from infrabook.attention_sizes import article_attention
from infrabook.bucketing import StrategyCost, article_bucketing, cost_lines
from infrabook.crossover import crossover
from infrabook.dataflow import Accounting, account, fully_fused, unfused
from infrabook.ffn_chain import FUSE_FIRST_TWO, article_chain
from infrabook.launches import article_launch_counts
from infrabook.online_softmax import Ln, trace
from infrabook.roofline import check_bandwidth_claim
from infrabook.units import GiB, mib

VERDICTS = ("matches", "rounded", "differs", "implausible")

#: Largest relative difference still called "rounded" rather than "differs".
ROUNDED_TOLERANCE = 0.02


@dataclass(frozen=True)
class Recomputed:
    """A recomputed value, how to read it, and why a verdict was forced if it was."""

    value: float | Fraction
    note: str = ""
    implausible: str | None = None
    unit: str | None = None


@dataclass(frozen=True)
class AuditRow:
    """One claim: as stated, as recomputed, and the verdict."""

    id: str
    section: str
    text: str
    stated: str
    unit: str
    recomputed: float | Fraction
    recomputed_unit: str
    verdict: str
    note: str

    @property
    def recomputed_text(self) -> str:
        """The recomputed value at a sensible precision."""
        v = self.recomputed
        if isinstance(v, Fraction):
            return str(v)
        if float(v).is_integer():
            return f"{int(v)}"
        return f"{v:.4g}"


def verdict(stated: str, value: float | Fraction) -> str:
    """Compare a recomputed value with the article's digits.

    >>> verdict("1.67", 120 / 72), verdict("89", 89.8), verdict("7/3", Fraction(7, 3))
    ('matches', 'rounded', 'matches')
    """
    if "/" in stated:
        target: float | Fraction = Fraction(stated)
        if Fraction(value) == target:
            return "matches"
    else:
        decimals = len(stated.partition(".")[2])
        target = float(stated)
        if round(float(value), decimals) == target:
            return "matches"
    if float(target) == 0:
        return "differs"  # not equal at the stated digits, and no scale to be "close" on
    rel = abs(float(value) - float(target)) / abs(float(target))
    return "rounded" if rel <= ROUNDED_TOLERANCE else "differs"


@cache
def _chain(quant: bool, fused: bool) -> Accounting:
    g = article_chain(with_quant=quant)
    return account(g, fully_fused(g) if fused else unfused(g))


@cache
def _two_fused() -> Accounting:
    g = article_chain(with_quant=True)
    return account(g, FUSE_FIRST_TWO)


@cache
def _softmax_steps() -> tuple:
    s = config.scenarios()["online_softmax"]
    return tuple(
        trace([Ln(w) for w in s["score_exps"]], [Fraction(v) for v in s["values"]], s["block"])
    )


def _costs() -> tuple[StrategyCost, ...]:
    return article_bucketing().costs("article")


def _crossing(i: int, j: int) -> Recomputed:
    exact = _costs()
    peak = article_bucketing().costs("peak")

    def runs(costs: tuple[StrategyCost, ...], digits: int | None) -> float:
        lines = cost_lines(costs, digits)
        return crossover(lines[i], lines[j])

    unrounded = runs(exact, None)
    return Recomputed(
        unrounded,
        f"from the article's rounded times ({exact[i].time_ms:.1f} / {exact[j].time_ms:.1f} ms)"
        f" {runs(exact, 1):.1f}; from unrounded times at the stated rates "
        f"{unrounded:.1f}; at MFU × {article_bucketing().peak_tflops} TFLOP/s "
        f"{runs(peak, None):.1f}",
    )


def _measured(claim: dict, fused: bool) -> Recomputed:
    acc = _chain(False, fused)
    seconds = float(claim["stated"]) * 1e-6
    v = check_bandwidth_claim(acc.traffic, seconds, acc.footprint_bytes)
    fastest = v.fastest_dram
    bound = acc.traffic / (fastest.dram_tb_s.value * 1e12) * 1e6
    return Recomputed(
        bound,
        f"{mib(acc.traffic):.0f} MiB in {claim['stated']} μs {v.summary} "
        f"(working set {mib(acc.footprint_bytes):.0f} MiB); shown: the lower bound on "
        f"{fastest.name}",
        implausible=None if v.plausible_from_dram else v.summary,
        unit="μs (lower bound)",
    )


def _measured_speedup(claim: dict) -> Recomputed:
    stated = {c["id"]: c for c in config.claims()}
    before, after = (stated[k] for k in ("fusion.measured_separate_us", "fusion.measured_fused_us"))
    ratio = float(before["stated"]) / float(after["stated"])
    model = _chain(False, False).traffic / _chain(False, True).traffic
    doubtful = [c["stated"] for c in (before, after)
                if _measured(c, fused=c is after).implausible]
    note = f"{before['stated']} / {after['stated']} = {ratio:.2f}"
    if ratio > model:
        note += (f", above the traffic model's {model:.2f}×: part of the time does not scale "
                 "with bytes (a fixed cost per kernel, or the two runs at different "
                 "bandwidths)")
    return Recomputed(
        ratio,
        note,
        implausible=(f"rests on timings that exceed every listed DRAM bandwidth "
                     f"({', '.join(doubtful)} μs)" if doubtful else None),
    )


_CHECKS: dict[str, Callable[[dict], Recomputed]] = {
    "fusion.tensor_mib": lambda c: Recomputed(mib(article_chain().tensor("G").nbytes)),
    "fusion.silu_kernel_mib": lambda c: Recomputed(
        mib(_chain(False, False).kernels[0].bytes_moved)
    ),
    "fusion.mul_kernel_mib": lambda c: Recomputed(
        mib(_chain(False, False).kernels[1].bytes_moved)
    ),
    "fusion.separate_mib": lambda c: Recomputed(mib(_chain(False, False).traffic)),
    "fusion.fused_mib": lambda c: Recomputed(mib(_chain(False, True).traffic)),
    "fusion.ratio": lambda c: Recomputed(
        _chain(False, True).traffic / _chain(False, False).traffic
    ),
    "fusion.model_speedup": lambda c: Recomputed(
        _chain(False, False).traffic / _chain(False, True).traffic
    ),
    "fusion.measured_separate_us": lambda c: _measured(c, fused=False),
    "fusion.measured_fused_us": lambda c: _measured(c, fused=True),
    "fusion.measured_speedup": _measured_speedup,
    "boundary.per_intermediate_mib": lambda c: Recomputed(
        mib(_two_fused().traffic - _chain(True, True).traffic),
        f"156 − 108 = {mib(_chain(True, False).traffic - _two_fused().traffic):.0f} MiB too",
    ),
    "boundary.separate_mib": lambda c: Recomputed(mib(_chain(True, False).traffic)),
    "boundary.two_fused_mib": lambda c: Recomputed(mib(_two_fused().traffic)),
    "boundary.all_fused_mib": lambda c: Recomputed(mib(_chain(True, True).traffic)),
    "boundary.traffic_saved_mib": lambda c: Recomputed(
        mib(_chain(True, False).traffic - _chain(True, True).traffic)
    ),
    "boundary.peak_separate_mib": lambda c: Recomputed(mib(_chain(True, False).peak_live_bytes)),
    "boundary.peak_fused_mib": lambda c: Recomputed(mib(_chain(True, True).peak_live_bytes)),
    "boundary.peak_saved_mib": lambda c: Recomputed(
        mib(_chain(True, False).peak_live_bytes - _chain(True, True).peak_live_bytes)
    ),
    "attention.qkvo_mib": lambda c: Recomputed(mib(article_attention().qkvo_bytes)),
    "attention.s_mib": lambda c: Recomputed(mib(article_attention().score_bytes)),
    "attention.p_mib": lambda c: Recomputed(mib(article_attention().score_bytes)),
    "attention.io_mib": lambda c: Recomputed(mib(article_attention().io_traffic)),
    "attention.intermediate_gib": lambda c: Recomputed(
        article_attention().intermediate_traffic / GiB
    ),
    "softmax.first_l": lambda c: Recomputed(_softmax_steps()[0].state.l),
    "softmax.first_u": lambda c: Recomputed(_softmax_steps()[0].state.u),
    "softmax.r": lambda c: Recomputed(_softmax_steps()[1].r),
    "softmax.l": lambda c: Recomputed(_softmax_steps()[1].state.l),
    "softmax.u": lambda c: Recomputed(_softmax_steps()[1].state.u),
    "softmax.result": lambda c: Recomputed(_softmax_steps()[-1].state.result),
    **{
        f"launches.{name}_{field}": (
            lambda c, i=i, f=f: Recomputed(getattr(article_launch_counts()[i], f))
        )
        for i, name in enumerate(("eager", "graph", "fused", "fused_graph"))
        for field, f in (("host", "host_submissions"), ("kernels", "kernels"))
    },
    "bucketing.actual_rows": lambda c: Recomputed(_costs()[0].actual_rows),
    "bucketing.executed_rows": lambda c: Recomputed(_costs()[1].executed_rows),
    "bucketing.padding_pct": lambda c: Recomputed(
        _costs()[1].padding_fraction * 100, f"exactly {_costs()[1].padding_fraction:.2%}"
    ),
    **{
        f"bucketing.{name}_rate": (
            lambda c, i=i: Recomputed(
                article_bucketing().costs("peak")[i].rate_tflops,
                "MFU × the stated peak 503.8 TFLOP/s; the article's rates are MFU × 500",
            )
        )
        for i, name in enumerate(("generic", "bucketed", "specialised"))
    },
    **{
        f"bucketing.{name}_ms": (
            lambda c, i=i: Recomputed(
                _costs()[i].time_ms,
                f"at the stated rate; at MFU × 503.8 TFLOP/s "
                f"{article_bucketing().costs('peak')[i].time_ms:.2f} ms",
            )
        )
        for i, name in enumerate(("generic", "bucketed", "specialised"))
    },
    "bucketing.bucketed_mfu": lambda c: _useful_mfu(c),
    "bucketing.mfu_ratio": lambda c: Recomputed(
        article_bucketing().strategies[1].mfu / article_bucketing().strategies[0].mfu
    ),
    "crossover.generic_bucketed": lambda c: _crossing(0, 1),
    "crossover.bucketed_specialised": lambda c: _crossing(1, 2),
    "crossover.generic_specialised": lambda c: _crossing(0, 2),
}


def _useful_mfu(claim: dict) -> Recomputed:
    """The bucketed strategy's useful MFU (real rows only) against the article's "MFU"."""
    sc = article_bucketing()
    bucketed = _costs()[1]
    useful = bucketed.useful_mfu(sc.implied_peak_tflops("article"))
    return Recomputed(useful * 100, labels.text(
        "audit.note.bucketing_mfu", stated=claim["stated"], useful=useful,
        peak=sc.peak_tflops, useful_peak=bucketed.useful_mfu(sc.peak_tflops)))


def audit() -> list[AuditRow]:
    """Every claim of ``conf/claims.toml`` with its recomputed value and verdict.

    >>> rows = {r.id: r for r in audit()}
    >>> rows["fusion.separate_mib"].verdict, rows["fusion.measured_fused_us"].verdict
    ('matches', 'implausible')
    >>> rows["crossover.bucketed_specialised"].verdict
    'rounded'
    """
    rows = []
    for claim in config.claims():
        if claim["id"] not in _CHECKS:
            raise ValueError(f"claim {claim['id']!r} has no recomputation in infrabook.audit")
        r = _CHECKS[claim["id"]](claim)
        rows.append(
            AuditRow(
                id=claim["id"],
                section=claim["section"],
                text=claim["text"],
                stated=claim["stated"],
                unit=claim["unit"],
                recomputed=r.value,
                recomputed_unit=r.unit or claim["unit"],
                verdict="implausible" if r.implausible else verdict(claim["stated"], r.value),
                note="; ".join(
                    part for part in (r.note, r.implausible)
                    if part and not (part is r.implausible and part in r.note)
                ),
            )
        )
    return rows
