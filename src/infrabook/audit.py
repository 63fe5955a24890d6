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

from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from infrabook import config
from infrabook.attention_sizes import article_attention
from infrabook.bucketing import StrategyCost, article_bucketing, cost_lines
from infrabook.crossover import crossover
from infrabook.dataflow import Accounting, account, fully_fused, unfused
from infrabook.ffn_chain import FUSE_FIRST_TWO, article_chain
from infrabook.labels import language, pick, text
from infrabook.launches import article_launch_counts
from infrabook.online_softmax import Ln, trace
from infrabook.roofline import check_bandwidth_claim
from infrabook.tables import number_text
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
    #: The value worked out the article's way, from its rounded intermediate figures.
    as_article: float | None = None


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
        """The recomputed value at a sensible precision (exact fractions as they are)."""
        return number_text(self.recomputed, ".4g")

    @property
    def verdict_text(self) -> str:
        """The verdict in the build's language."""
        return text(f"verdict.{self.verdict}")


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
        text(
            "audit.note.crossing",
            a=f"{exact[i].time_ms:.1f}",
            b=f"{exact[j].time_ms:.1f}",
            rounded=f"{runs(exact, 1):.1f}",
            unrounded=f"{unrounded:.1f}",
            peak=article_bucketing().peak_tflops,
            at_peak=f"{runs(peak, None):.1f}",
        ),
        as_article=runs(exact, 1),
    )


def _measured(claim: dict, fused: bool) -> Recomputed:
    acc = _chain(False, fused)
    seconds = float(claim["stated"]) * 1e-6
    v = check_bandwidth_claim(acc.traffic, seconds, acc.footprint_bytes)
    fastest = v.fastest_dram
    if fastest.dram_tb_s.value is None:
        raise ValueError(f"{fastest.name} has no DRAM bandwidth in conf/hardware.toml")
    bound = acc.traffic / (fastest.dram_tb_s.value * 1e12) * 1e6
    return Recomputed(
        bound,
        text(
            "audit.note.measured",
            mib=f"{mib(acc.traffic):.0f}",
            us=claim["stated"],
            summary=v.summary,
            working=f"{mib(acc.footprint_bytes):.0f}",
            device=fastest.name,
        ),
        implausible=None if v.plausible_from_dram else v.summary,
        unit=text("audit.unit.lower_bound"),
    )


def _measured_speedup() -> Recomputed:
    stated = {c["id"]: c for c in config.claims()}
    before, after = (stated[k] for k in ("fusion.measured_separate_us", "fusion.measured_fused_us"))
    ratio = float(before["stated"]) / float(after["stated"])
    model = _chain(False, False).traffic / _chain(False, True).traffic
    doubtful = [c["stated"] for c in (before, after) if _measured(c, fused=c is after).implausible]
    note = f"{before['stated']} / {after['stated']} = {ratio:.2f}"
    if ratio > model:
        note += text("audit.note.above_model", model=f"{model:.2f}")
    return Recomputed(
        ratio,
        note,
        implausible=(text("audit.note.doubtful", us=", ".join(doubtful)) if doubtful else None),
    )


def _useful_mfu(claim: dict) -> Recomputed:
    """The bucketed strategy's useful MFU (real rows only) against the article's "MFU"."""
    sc = article_bucketing()
    bucketed = _costs()[1]
    useful = bucketed.useful_mfu(sc.implied_peak_tflops("article"))
    return Recomputed(
        useful * 100,
        text(
            "audit.note.bucketing_mfu",
            stated=claim["stated"],
            useful=useful,
            peak=sc.peak_tflops,
            useful_peak=bucketed.useful_mfu(sc.peak_tflops),
        ),
    )


def _mfu_ratio() -> Recomputed:
    """What "MFU doubles" becomes once padding is not counted as work: executed utilisation
    doubles, useful MFU rises by the speed-up only."""
    sc = article_bucketing()
    generic, bucketed = _costs()[0], _costs()[1]
    peak = sc.implied_peak_tflops("article")
    useful = bucketed.useful_mfu(peak) / generic.useful_mfu(peak)
    executed = bucketed.executed_utilisation(peak) / generic.executed_utilisation(peak)
    return Recomputed(
        useful,
        text(
            "audit.note.mfu_ratio",
            executed=f"{executed:g}",
            generic=f"{generic.useful_mfu(peak):.1%}",
            bucketed=f"{bucketed.useful_mfu(peak):.1%}",
            ratio=f"{useful:.3f}",
            speedup=f"{generic.time_ms / bucketed.time_ms:.3f}",
        ),
    )


@cache
def recompute() -> dict[str, Recomputed]:
    """Every number of the article that can be recomputed, by claim id (``conf/claims.toml``).

    The one recomputation of the article: :func:`audit` judges it, ``infrabook calc`` prints it.

    >>> r = recompute()
    >>> r["fusion.separate_mib"].value, r["fusion.fused_mib"].value, r["softmax.result"].value
    (120.0, 72.0, Fraction(7, 3))
    """
    claims = {c["id"]: c for c in config.claims()}
    sep, fus = _chain(False, False), _chain(False, True)
    sep3, two3, fus3 = _chain(True, False), _two_fused(), _chain(True, True)
    att = article_attention()
    first, second, last = _softmax_steps()[0], _softmax_steps()[1], _softmax_steps()[-1]
    costs, peak_costs = _costs(), article_bucketing().costs("peak")
    out = {
        "fusion.tensor_mib": Recomputed(mib(article_chain().tensor("G").nbytes)),
        "fusion.silu_kernel_mib": Recomputed(mib(sep.kernels[0].bytes_moved)),
        "fusion.mul_kernel_mib": Recomputed(mib(sep.kernels[1].bytes_moved)),
        "fusion.separate_mib": Recomputed(mib(sep.traffic)),
        "fusion.fused_mib": Recomputed(mib(fus.traffic)),
        "fusion.ratio": Recomputed(fus.traffic / sep.traffic),
        "fusion.model_speedup": Recomputed(sep.traffic / fus.traffic),
        "fusion.measured_separate_us": _measured(claims["fusion.measured_separate_us"], False),
        "fusion.measured_fused_us": _measured(claims["fusion.measured_fused_us"], True),
        "fusion.measured_speedup": _measured_speedup(),
        "boundary.per_intermediate_mib": Recomputed(
            mib(two3.traffic - fus3.traffic),
            text("audit.note.per_intermediate", mib=f"{mib(sep3.traffic - two3.traffic):.0f}"),
        ),
        "boundary.separate_mib": Recomputed(mib(sep3.traffic)),
        "boundary.two_fused_mib": Recomputed(mib(two3.traffic)),
        "boundary.all_fused_mib": Recomputed(mib(fus3.traffic)),
        "boundary.traffic_saved_mib": Recomputed(mib(sep3.traffic - fus3.traffic)),
        "boundary.peak_separate_mib": Recomputed(mib(sep3.peak_live_bytes)),
        "boundary.peak_fused_mib": Recomputed(mib(fus3.peak_live_bytes)),
        "boundary.peak_saved_mib": Recomputed(mib(sep3.peak_live_bytes - fus3.peak_live_bytes)),
        "attention.qkvo_mib": Recomputed(mib(att.qkvo_bytes)),
        "attention.s_mib": Recomputed(mib(att.score_bytes)),
        "attention.p_mib": Recomputed(mib(att.score_bytes)),
        "attention.io_mib": Recomputed(mib(att.io_traffic)),
        "attention.intermediate_gib": Recomputed(att.intermediate_traffic / GiB),
        "softmax.first_l": Recomputed(first.state.l),
        "softmax.first_u": Recomputed(first.state.u),
        "softmax.r": Recomputed(second.r),
        "softmax.l": Recomputed(second.state.l),
        "softmax.u": Recomputed(second.state.u),
        "softmax.result": Recomputed(last.state.result),
        "bucketing.actual_rows": Recomputed(costs[0].actual_rows),
        "bucketing.executed_rows": Recomputed(costs[1].executed_rows),
        "bucketing.padding_pct": Recomputed(
            costs[1].padding_fraction * 100,
            text("audit.note.exactly", value=f"{costs[1].padding_fraction:.2%}"),
        ),
        "bucketing.mfu_ratio": _mfu_ratio(),
        "crossover.generic_bucketed": _crossing(0, 1),
        "crossover.bucketed_specialised": _crossing(1, 2),
        "crossover.generic_specialised": _crossing(0, 2),
        "bucketing.bucketed_mfu": _useful_mfu(claims["bucketing.bucketed_mfu"]),
    }
    for i, counts in enumerate(article_launch_counts()):
        name = ("eager", "graph", "fused", "fused_graph")[i]
        out[f"launches.{name}_host"] = Recomputed(counts.host_submissions)
        out[f"launches.{name}_kernels"] = Recomputed(counts.kernels)
    for i, name in enumerate(("generic", "bucketed", "specialised")):
        out[f"bucketing.{name}_rate"] = Recomputed(
            peak_costs[i].rate_tflops,
            text(
                "audit.note.rate",
                peak=article_bucketing().peak_tflops,
                useful=f"{costs[i].useful_rate_tflops:.1f}",
            ),
        )
        out[f"bucketing.{name}_ms"] = Recomputed(
            costs[i].time_ms,
            text(
                "audit.note.time",
                peak=article_bucketing().peak_tflops,
                ms=f"{peak_costs[i].time_ms:.2f}",
            ),
        )
    return out


def audit() -> list[AuditRow]:
    """Every claim of ``conf/claims.toml`` with its recomputed value and verdict.

    >>> rows = {r.id: r for r in audit()}
    >>> rows["fusion.separate_mib"].verdict, rows["fusion.measured_fused_us"].verdict
    ('matches', 'implausible')
    >>> rows["crossover.bucketed_specialised"].verdict
    'rounded'
    """
    rows = []
    recomputed = recompute()
    for claim in config.claims():
        if claim["id"] not in recomputed:
            raise ValueError(f"claim {claim['id']!r} has no recomputation in infrabook.audit")
        r = recomputed[claim["id"]]
        # a unit that is a word (次, 行, 组) has an English one; MiB, μs, × are the same
        unit = claim.get("unit_en", claim["unit"]) if language() == "en" else claim["unit"]
        rows.append(
            AuditRow(
                id=claim["id"],
                section=claim["section"],
                text=pick(claim["text"], claim["text_en"]),
                stated=claim["stated"],
                unit=unit,
                recomputed=r.value,
                recomputed_unit=r.unit or unit,
                verdict="implausible" if r.implausible else verdict(claim["stated"], r.value),
                note="; ".join(
                    part
                    for part in (r.note, r.implausible)
                    if part and not (part is r.implausible and part in r.note)
                ),
            )
        )
    return rows
