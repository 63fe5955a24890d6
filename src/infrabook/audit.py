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

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from infrabook import config
from infrabook.attention_sizes import attention_sizes
from infrabook.bucketing import (
    BucketingScenario,
    StrategyCost,
    bucketing_scenario,
    cost_lines,
    shown_ms,
)
from infrabook.crossover import Crossing, pairwise
from infrabook.dataflow import Accounting, Graph, account, fully_fused, unfused
from infrabook.ffn_chain import FUSE_FIRST_TWO, activation_chain
from infrabook.i18n import language, translate
from infrabook.labels import text
from infrabook.launches import launch_counts
from infrabook.online_softmax import Ln, trace
from infrabook.quoting import printable
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


@dataclass(frozen=True)
class _Case:
    """One scenario's accountings (``conf/scenarios.toml``'s shape), each computed once."""

    scenario: config.Scenarios

    def chain(self, quant: bool) -> Graph:
        c = self.scenario.ffn_chain
        return activation_chain(c.rows, c.cols, c.dtype, c.quant_dtype if quant else None)

    def account(self, quant: bool, fused: bool) -> Accounting:
        g = self.chain(quant)
        return account(g, fully_fused(g) if fused else unfused(g))

    def bucketing(self) -> BucketingScenario:
        return bucketing_scenario(self.scenario.bucketing)

    def softmax_steps(self) -> tuple:
        s = self.scenario.online_softmax
        return tuple(
            trace([Ln(Fraction(w)) for w in s.score_exps], [Fraction(v) for v in s.values], s.block)
        )


def _crossing(sc: BucketingScenario, i: int, j: int) -> Recomputed:
    """The crossover of strategies i and j from the per-run times as shown (the article's
    basis, :func:`~infrabook.bucketing.cost_lines`), with the two other bases as notes."""

    def crossing(costs: tuple[StrategyCost, ...], shown: bool) -> Crossing:
        lines = cost_lines(costs, shown)
        return pairwise([lines[i], lines[j]])[0]

    article, at_peak = sc.costs("article"), sc.costs("peak")
    value = crossing(article, True).runs
    return Recomputed(
        math.nan if value is None else value,
        text(
            "audit.note.crossing",
            a=number_text(shown_ms(article[i].time_ms)),
            b=number_text(shown_ms(article[j].time_ms)),
            unrounded=crossing(article, False).runs_text,
            peak=number_text(sc.peak_tflops, "g"),
            at_peak=crossing(at_peak, False).runs_text,
        ),
    )


def _measured(claim: config.Claim, acc: Accounting) -> Recomputed:
    seconds = float(claim.stated) * 1e-6
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
            us=claim.stated,
            summary=v.summary,
            working=f"{mib(acc.footprint_bytes):.0f}",
            device=fastest.name,
        ),
        implausible=None if v.plausible_from_dram else v.summary,
        unit=text("audit.unit.lower_bound"),
    )


def _measured_speedup(
    claims: Mapping[str, config.Claim], sep: Accounting, fus: Accounting
) -> Recomputed:
    before, after = claims["fusion.measured_separate_us"], claims["fusion.measured_fused_us"]
    ratio = float(before.stated) / float(after.stated)
    model = sep.traffic / fus.traffic
    doubtful = [
        c.stated for c, acc in ((before, sep), (after, fus)) if _measured(c, acc).implausible
    ]
    note = f"{before.stated} / {after.stated} = {ratio:.2f}"
    if ratio > model:
        note += text("audit.note.above_model", model=f"{model:.2f}")
    return Recomputed(
        ratio,
        note,
        implausible=(text("audit.note.doubtful", us=", ".join(doubtful)) if doubtful else None),
    )


def _useful_mfu(claim: config.Claim, sc: BucketingScenario) -> Recomputed:
    """The bucketed strategy's useful MFU (real rows only) against the article's "MFU"."""
    bucketed = sc.costs("article")[1]
    useful = bucketed.useful_mfu(sc.implied_peak_tflops("article"))
    return Recomputed(
        useful * 100,
        text(
            "audit.note.bucketing_mfu",
            stated=claim.stated,
            useful=useful,
            peak=sc.peak_tflops,
            useful_peak=bucketed.useful_mfu(sc.peak_tflops),
        ),
    )


def _mfu_ratio(sc: BucketingScenario) -> Recomputed:
    """What "MFU doubles" becomes once padding is not counted as work: executed utilisation
    doubles, useful MFU rises by the speed-up only."""
    generic, bucketed = sc.costs("article")[:2]
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


def recompute(scenario: config.Scenarios | None = None) -> dict[str, Recomputed]:
    """Every number of the article that can be recomputed, by claim id (``conf/claims.toml``),
    for ``scenario`` (a :class:`~infrabook.config.Scenarios`; the article's by default).

    The one recomputation of the article: :func:`audit` judges it, :func:`section6_lines`
    formats it for ``infrabook calc`` and the chapter 6 calculator.

    >>> r = recompute()
    >>> r["fusion.separate_mib"].value, r["fusion.fused_mib"].value, r["softmax.result"].value
    (120.0, 72.0, Fraction(7, 3))
    >>> [round(r[f"crossover.{k}"].value, 1) for k in ("generic_bucketed",
    ...     "bucketed_specialised", "generic_specialised")]
    [65.2, 89.3, 78.4]
    """
    return _article(language()) if scenario is None else _recompute(_Case(scenario))


@cache
def _article(lang: str) -> dict[str, Recomputed]:
    # Keyed by language: the notes are words (text() in the build's language, which is
    # ``lang`` when recompute() calls this), and INFRABOOK_LANG may change within a process.
    return _recompute(_Case(config.scenarios()))


def _recompute(case: _Case) -> dict[str, Recomputed]:
    claims: dict[str, config.Claim] = {c.id: c for c in config.claims()}
    sep, fus = case.account(False, False), case.account(False, True)
    sep3, fus3 = case.account(True, False), case.account(True, True)
    two3 = account(case.chain(True), FUSE_FIRST_TWO)
    a = case.scenario.attention
    att = attention_sizes(a.seq_len, a.head_dim, a.dtype, a.score_dtype)
    steps = case.softmax_steps()
    first, second, last = steps[0], steps[1], steps[-1]
    sc = case.bucketing()
    costs, peak_costs = sc.costs("article"), sc.costs("peak")
    out = {
        "fusion.tensor_mib": Recomputed(mib(case.chain(False).tensor("G").nbytes)),
        "fusion.silu_kernel_mib": Recomputed(mib(sep.kernels[0].bytes_moved)),
        "fusion.mul_kernel_mib": Recomputed(mib(sep.kernels[1].bytes_moved)),
        "fusion.separate_mib": Recomputed(mib(sep.traffic)),
        "fusion.fused_mib": Recomputed(mib(fus.traffic)),
        "fusion.ratio": Recomputed(fus.traffic / sep.traffic),
        "fusion.model_speedup": Recomputed(sep.traffic / fus.traffic),
        "fusion.measured_separate_us": _measured(claims["fusion.measured_separate_us"], sep),
        "fusion.measured_fused_us": _measured(claims["fusion.measured_fused_us"], fus),
        "fusion.measured_speedup": _measured_speedup(claims, sep, fus),
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
        "bucketing.mfu_ratio": _mfu_ratio(sc),
        "crossover.generic_bucketed": _crossing(sc, 0, 1),
        "crossover.bucketed_specialised": _crossing(sc, 1, 2),
        "crossover.generic_specialised": _crossing(sc, 0, 2),
        "bucketing.bucketed_mfu": _useful_mfu(claims["bucketing.bucketed_mfu"], sc),
    }
    g = case.scenario.graph_replay
    counts = launch_counts(g.runs, g.kernels_per_run, g.fused_kernels_per_run)
    for name, count in zip(("eager", "graph", "fused", "fused_graph"), counts, strict=True):
        out[f"launches.{name}_host"] = Recomputed(count.host_submissions)
        out[f"launches.{name}_kernels"] = Recomputed(count.kernels)
    for i, name in enumerate(("generic", "bucketed", "specialised")):
        out[f"bucketing.{name}_rate"] = Recomputed(
            peak_costs[i].rate_tflops,
            text(
                "audit.note.rate",
                peak=sc.peak_tflops,
                useful=f"{costs[i].useful_rate_tflops:.1f}",
            ),
        )
        out[f"bucketing.{name}_ms"] = Recomputed(
            costs[i].time_ms,
            text("audit.note.time", peak=sc.peak_tflops, ms=f"{peak_costs[i].time_ms:.2f}"),
        )
    return out


def section6_lines(scenario: config.Scenarios | None = None, lang: str | None = None) -> list[str]:
    """The article's section 6 output, line by line, formatted from :func:`recompute` of
    ``scenario`` (the article's by default), in ``lang`` (the build's language by default; the
    Chinese keeps the article's format). ``infrabook calc`` prints these lines and the chapter 6
    calculator shows them for the reader's inputs.

    >>> print(section6_lines(lang="zh")[0])
    融合: 分开 120 MiB → 融合 72 MiB(比 0.60,理论 1.67×);三步 156/108/60 MiB
    >>> print(section6_lines(lang="zh")[-1])
    交叉点: 通用↔分桶 65 组;分桶↔逐形状特化 89 组;通用↔逐形状特化 78 组
    """
    s = config.scenarios() if scenario is None else scenario
    r = {key: rec.value for key, rec in recompute(scenario).items()}
    att, sm = s.attention, s.online_softmax
    g, b, p = (
        text(f"strategy.{st.name}", lang) for st in bucketing_scenario(s.bucketing).strategies
    )

    def runs(key: str) -> str:
        n = float(r[key])
        return text("live.cell.never", lang) if math.isnan(n) else f"{n:.0f}"

    return [
        text(
            "calc.fusion",
            lang,
            sep=r["fusion.separate_mib"],
            fused=r["fusion.fused_mib"],
            ratio=r["fusion.ratio"],
            speedup=r["fusion.model_speedup"],
            s3=r["boundary.separate_mib"],
            s2=r["boundary.two_fused_mib"],
            s1=r["boundary.all_fused_mib"],
        ),
        text(
            "calc.peak",
            lang,
            sep=r["boundary.peak_separate_mib"],
            fused=r["boundary.peak_fused_mib"],
            traffic=r["boundary.traffic_saved_mib"],
            peak=r["boundary.peak_saved_mib"],
        ),
        text(
            "calc.attention",
            lang,
            L=att.seq_len,
            d=att.head_dim,
            dtype=att.dtype.upper(),
            io=r["attention.qkvo_mib"],
            s=r["attention.s_mib"],
            gib=r["attention.intermediate_gib"],
        ),
        text(
            "calc.softmax",
            lang,
            scores=",".join(str(Ln(Fraction(w))) for w in sm.score_exps).replace("ln(2)", "ln2"),
            values=",".join(str(v) for v in sm.values),
            r=float(r["softmax.r"]),
            l=float(r["softmax.l"]),
            u=float(r["softmax.u"]),
            result=float(r["softmax.result"]),
            exact=r["softmax.result"],
        ),
        text(
            "calc.crossover",
            lang,
            g=g,
            b=b,
            p=p,
            gb=runs("crossover.generic_bucketed"),
            bp=runs("crossover.bucketed_specialised"),
            gp=runs("crossover.generic_specialised"),
        ),
    ]


def audit() -> list[AuditRow]:
    """Every claim of ``conf/claims.toml`` with its recomputed value and verdict.

    >>> rows = {r.id: r for r in audit()}
    >>> rows["fusion.separate_mib"].verdict, rows["fusion.measured_fused_us"].verdict
    ('matches', 'implausible')
    >>> rows["bucketing.generic_rate"].verdict, rows["crossover.bucketed_specialised"].verdict
    ('rounded', 'matches')
    """
    rows = []
    recomputed = recompute()
    for i, claim in enumerate(config.claims()):
        if claim.id not in recomputed:
            raise config.ConfError(
                f"{printable(str(config.conf_dir() / 'claims.toml'))}: claim[{i}].id: expected "
                f"the id of a claim infrabook.audit recomputes, got {claim.id!r}"
            )
        r = recomputed[claim.id]
        # a unit that is a word (次, 行, 组) is a message; MiB, μs, × are the same in English
        unit = translate(claim.unit)
        rows.append(
            AuditRow(
                id=claim.id,
                section=claim.section,
                text=translate(claim.text),
                stated=claim.stated,
                unit=unit,
                recomputed=r.value,
                recomputed_unit=r.unit or unit,
                verdict="implausible" if r.implausible else verdict(claim.stated, r.value),
                note=text("word.list_sep").join(
                    part
                    for part in (r.note, r.implausible)
                    if part and not (part is r.implausible and part in r.note)
                ),
            )
        )
    return rows
