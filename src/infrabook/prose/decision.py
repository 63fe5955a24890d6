"""Section 5.3 (choosing a strategy): the crossovers on each basis, the tables and the
values the prose glues.

The three bases: A, the article's per-group times as printed (rounded); B, the article's
rates, unrounded; C, utilisation × the device's peak. Lines come from
:func:`infrabook.bucketing.cost_lines`, crossings from :mod:`infrabook.crossover`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from infrabook.bucketing import article_bucketing, cost_lines
from infrabook.crossover import Line, Regime, best_at, crossover, pairwise, regimes
from infrabook.labels import text
from infrabook.prose import claims_stated
from infrabook.tables import Table

# Each crossing of the article, by the pair of strategies, and its short glue name.
CLAIMS = {
    ("generic", "bucketed"): ("crossover.generic_bucketed", "gb"),
    ("bucketed", "specialised"): ("crossover.bucketed_specialised", "bs"),
    ("generic", "specialised"): ("crossover.generic_specialised", "gs"),
}
# Exercise 2's slowdown of the specialised kernel and exercise 3's number of runs.
SLOWDOWN = 0.01
MANY_RUNS = 10_000


def strategy_labels() -> dict[str, str]:
    """Each strategy's name -> its label in the build's language.

    >>> sorted(strategy_labels())
    ['bucketed', 'generic', 'specialised']
    """
    return {s.name: s.label for s in article_bucketing().strategies}


def article_lines() -> list[Line]:
    """The article's cost lines, with its per-group times as printed (17.0 / 12.4 / 6.8 ms).

    >>> [line.run_ms for line in article_lines()]
    [17.0, 12.4, 6.8]
    """
    return cost_lines(article_bucketing().costs("article"), True)


def span(regime: Regime) -> str:
    """A regime's run-count interval, with ∞ for the open end.

    >>> span(Regime(65.2, float("inf"), "specialised"))
    '[65.2, ∞)'
    """
    end = "∞" if regime.end == float("inf") else f"{regime.end:.1f}"
    return f"[{regime.start:.1f}, {end})"


def _versions() -> dict[str, list[Line]]:
    sc = article_bucketing()
    return {
        text("prose.decision.version.a"): article_lines(),
        text("prose.decision.version.b"): cost_lines(sc.costs("article"), False),
        text("prose.decision.version.c"): cost_lines(sc.costs("peak"), False),
    }


def version_tables() -> tuple[Table, Table]:
    """The three crossings on each basis next to the article's, and each basis' lower
    envelope.

    >>> crossings, envelopes = version_tables()
    >>> crossings.rows[0][1], len(envelopes.rows)
    ('65', 3)
    """
    label = strategy_labels()
    stated = claims_stated()
    versions = _versions()
    crossings = {v: {(c.a, c.b): c.runs for c in pairwise(ls)} for v, ls in versions.items()}
    table = Table(
        "",
        (text("prose.decision.col.crossover"), text("prose.decision.col.article"), *versions),
        tuple(
            (
                f"{label[a]} ↔ {label[b]}",
                stated[cid],
                *(f"{crossings[v][a, b]:.1f}" for v in versions),
            )
            for (a, b), (cid, _) in CLAIMS.items()
        ),
    )
    envelopes = Table(
        "",
        (text("prose.decision.col.version"), text("prose.decision.col.envelope")),
        tuple(
            (v, " → ".join(f"{label[g.best]} {span(g)}" for g in regimes(ls)))
            for v, ls in versions.items()
        ),
    )
    return table, envelopes


def values() -> dict[str, Any]:
    """Every crossing on each basis (``dc_a_*``, ``dc_b_*``, ``dc_c_*``), the article's,
    the exercises' answers and the section's figures.

    >>> v = values()
    >>> v["dc_a_gb"], v["dc_stated_gb"], v["dc_ex3_n"]
    ('65.2', '65', '10,000')
    """
    from infrabook.plots.guides import decision_guide
    from infrabook.plots.runtime import crossover_figure

    sc = article_bucketing()
    label = strategy_labels()
    stated = claims_stated()
    article = article_lines()
    envelope = regimes(article)
    out: dict[str, Any] = {
        "dc_fig": crossover_figure(article, 150),
        "fig_decision_guide": decision_guide(envelope, label),
        "dc_env_gb": f"{envelope[1].start:.1f}",
        "dc_env_bs": f"{envelope[2].start:.1f}",
        "dc_peak": f"{sc.peak_tflops:g}",
        "dc_implied_peak": f"{sc.implied_peak_tflops('article'):g}",
    }
    for tag, ls in zip("abc", _versions().values(), strict=True):
        crossings = {(c.a, c.b): c.runs for c in pairwise(ls)}
        for pair, (cid, short) in CLAIMS.items():
            out[f"dc_{tag}_{short}"] = f"{crossings[pair]:.1f}"
            out[f"dc_{tag}_{short}_int"] = f"{crossings[pair]:.0f}"
            if tag == "a":
                out[f"dc_stated_{short}"] = stated[cid]
        first = next(n for n in range(1, 1000) if best_at(ls, n).name == "specialised")
        out[f"dc_{tag}_first_spec"] = str(first)
    g_line, b_line, s_line = article
    # 1: the bucketed preparation at which bucketing vanishes from the envelope: its
    # crossing with generic moves right onto the generic/specialised crossing.
    n_gs = crossover(g_line, s_line)
    slower = replace(s_line, run_ms=s_line.run_ms * (1 + SLOWDOWN))
    return out | {
        "dc_ex1_prep": f"{b_line.prep_ms:g}",
        "dc_ex1_vanish": f"{g_line.prep_ms + n_gs * (g_line.run_ms - b_line.run_ms):.0f}",
        "dc_ex1_n": f"{n_gs:.1f}",
        "dc_ex2_pct": f"{SLOWDOWN:.0%}",
        "dc_ex2_run": f"{slower.run_ms:.3f}",
        "dc_ex2_n": f"{crossover(b_line, slower):.1f}",
        "dc_ex2_n0": f"{crossover(b_line, s_line):.1f}",
        "dc_ex3_n": f"{MANY_RUNS:,}",
        "dc_ex3_best": label[best_at(article, MANY_RUNS).name],
        "dc_ex3_share": f"{s_line.prep_ms / s_line.total_ms(MANY_RUNS):.2%}",
    }


def tie_table() -> tuple[Table, dict[str, str]]:
    """Every strategy's total time where generic and specialised tie (basis A): bucketing
    is cheaper than both there.

    >>> table, v = tie_table()
    >>> v["dc_gs_cheapest"], table.rows[1][0]
    ('分桶', '分桶（最省）')
    """
    label = strategy_labels()
    article = article_lines()
    n_gs = {(c.a, c.b): c.runs for c in pairwise(article)}["generic", "specialised"]
    if n_gs is None:
        raise ValueError("generic and specialised have the same run time: they never tie")
    cheapest = best_at(article, n_gs)
    tied = min(ln.total_ms(n_gs) for ln in article if ln.name in ("generic", "specialised"))
    table = Table(
        "",
        (text("prose.decision.col.strategy"), text("prose.decision.col.total", n=f"{n_gs:.1f}")),
        tuple(
            (
                label[ln.name] + (text("prose.decision.cheapest") if ln is cheapest else ""),
                f"{ln.total_ms(n_gs):.1f}",
            )
            for ln in article
        ),
    )
    return table, {
        "dc_gs_cheapest": label[cheapest.name],
        "dc_gs_saving": f"{tied - cheapest.total_ms(n_gs):.0f}",
    }


def own_values(lines: Sequence[Line]) -> dict[str, str]:
    """The reader's own lines (the article's with a cheaper specialised preparation):
    where the envelope switches, which must skip bucketing.

    >>> spec = article_lines()[2]
    >>> own_values([*article_lines()[:2], replace(spec, prep_ms=spec.prep_ms / 2)])["dc_own_prep"]
    '450'
    """
    own = regimes(lines)
    if "bucketed" in {g.best for g in own}:
        raise ValueError("expected bucketing to be cheapest nowhere with these lines")
    return {"dc_own_prep": f"{lines[2].prep_ms:g}", "dc_own_switch": f"{own[1].start:.1f}"}
