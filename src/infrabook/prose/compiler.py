"""Chapter 4 (what a compiler may do): the values its prose glues and the tables it shows.

Text is formatted the way the page prints it, in the build's language; the arithmetic is
:mod:`infrabook.fusion_search`, :mod:`infrabook.float_order` and
:mod:`infrabook.polyhedral`'s. Chains of element-wise operators come from the page's own
``elementwise_chain`` (a visible cell the reader reads), passed in as ``chain_of``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from infrabook.dataflow import Graph
from infrabook.ffn_chain import article_chain
from infrabook.float_order import OrderComparison, compare_orders
from infrabook.fusion_search import RankedPlan, enumerate_plans, rank_plans
from infrabook.labels import group, text
from infrabook.tables import Table, code
from infrabook.units import mib

ChainOf = Callable[..., Graph]
# Chain lengths of the plan-count table; exercise 1's length and its barrier (0-based).
CHAIN_LENGTHS = (3, 6, 9, 12)
EXERCISE_OPS = 5
EXERCISE_BARRIER = 2
# Exercise 3's four terms: like the chapter's, ten times smaller.
EXERCISE_TERMS = (1e7, 1.0, -1e7, 1.0)


def _spacing(x: float) -> str:
    import numpy as np

    return f"{np.spacing(np.float32(x)):g}"


def order_names(lang: str | None = None) -> dict[str, str]:
    """The reader's words for each summation order of :func:`compare_orders`.

    >>> order_names(lang="en")["pairwise"]
    'pairwise (tree)'
    """
    return group("prose.compiler.order", lang)


def plan_values(chain: Graph, ranked: Sequence[RankedPlan]) -> dict[str, str]:
    """The three-step chain's plans, best and worst by traffic.

    >>> chain = article_chain(with_quant=True)
    >>> v = plan_values(chain, rank_plans(chain))
    >>> v["c4_n_plans"], v["c4_best"], v["c4_best_mib"]
    ('4', '[silu+mul+quant]', '60')
    """
    return {
        "c4_n_plans": f"{len(ranked)}",
        "c4_n_ops": f"{len(chain.ops)}",
        "c4_best": ranked[0].label,
        "c4_best_mib": f"{mib(ranked[0].accounting.traffic):.0f}",
        "c4_worst": ranked[-1].label,
        "c4_worst_mib": f"{mib(ranked[-1].accounting.traffic):.0f}",
    }


def plan_count_table(chain_of: ChainOf) -> Table:
    """How many legal plans a chain of n element-wise operators has, free and with one
    non-fusible operator in the middle.

    >>> from infrabook.dataflow import Op, Tensor
    >>> def chain_of(n, barrier=None):
    ...     ts = tuple(Tensor(f"X{i}", (2, 2), "fp32") for i in range(n + 1))
    ...     ops = tuple(Op(f"op{i}", (f"X{i}",), (f"X{i + 1}",), fusible=i != barrier)
    ...                 for i in range(n))
    ...     return Graph(ts, ops, (f"X{n}",))
    >>> plan_count_table(chain_of).rows[0]
    ('3', '4', '1')
    """
    return Table(
        "",
        tuple(text(f"prose.compiler.col.{k}") for k in ("ops", "plans", "barrier")),
        tuple(
            (
                str(n),
                str(len(enumerate_plans(chain_of(n)))),
                str(len(enumerate_plans(chain_of(n, barrier=n // 2)))),
            )
            for n in CHAIN_LENGTHS
        ),
    )


def four_terms(terms: Sequence[float], c: OrderComparison) -> tuple[Table, dict[str, str]]:
    """The four-term sum ``terms`` in each order (``c``): a table, and the float32 spacing
    at the first term that explains it.

    >>> table, v = four_terms([1e8, 1.0, -1e8, 1.0], compare_orders([1e8, 1.0, -1e8, 1.0]))
    >>> v["c4_spacing"], v["c4_exact"], table.rows[-1]
    ('8', '2', ('精确值', '2'))
    """
    names = order_names()
    rows = (
        *((names[k], f"{v:g}") for k, v in c.orders.items()),
        (text("prose.compiler.exact"), str(c.exact)),
    )
    table = Table("", (text("prose.compiler.col.order"), text("prose.compiler.col.result")), rows)
    return table, {
        "c4_spacing": _spacing(terms[0]),
        "c4_exact": str(c.exact),
        "c4_forward": f"{c.orders['forward']:g}",
        "c4_backward": f"{c.orders['backward']:g}",
    }


def random_terms(x: Sequence[float], c: OrderComparison) -> tuple[Table, dict[str, str]]:
    """Random terms ``x`` summed in each order (``c``): each result's difference from the
    exact sum.

    >>> table, v = random_terms([0.5, 0.25], compare_orders([0.5, 0.25]))
    >>> v["c4_distinct"], table.rows[0][2]
    ('1', '+0.00e+00')
    """
    names = order_names()
    exact = float(c.exact)
    rows = (
        *((names[k], f"{v:.9g}", f"{v - exact:+.2e}") for k, v in c.orders.items()),
        (text("prose.compiler.exact_fp64"), f"{exact:.9g}", "0"),
    )
    columns = tuple(text(f"prose.compiler.col.{k}") for k in ("order", "result", "difference"))
    return Table("", columns, rows), {
        "c4_distinct": f"{c.distinct_results}",
        "c4_n_orders": f"{len(c.orders)}",
        "c4_n_random": f"{len(x):,}",
    }


def schedules() -> tuple[Table, dict[str, str]]:
    """The article's three schedules of the two statements: map, legality and the broken
    dependences; glued, the loops isl generates and the traffic of each.

    >>> table, v = schedules()
    >>> [row[2] for row in table.rows], v["c4_isl_own_same"]
    (['是', '是', '否'], '相同')
    """
    from infrabook import polyhedral

    scheduled = polyhedral.article_schedules()
    rows = tuple(
        (
            text(f"prose.compiler.schedule.{s.name}"),
            code(s.schedule),
            text("word.yes" if s.legal else "word.no"),
            code(s.violated),
        )
        for s in scheduled
    )
    columns = tuple(text(f"prose.compiler.col.{k}") for k in ("schedule", "map", "legal", "broken"))
    by_name = {s.name: s for s in scheduled}
    traffic = sorted(mib(p.accounting.traffic) for p in rank_plans(article_chain()))
    same = polyhedral.computed().code == by_name["fused"].code
    return Table("", columns, rows), {
        "c4_isl_loops_unfused": str(by_name["unfused"].code.count("for (")),
        "c4_isl_loops_fused": str(by_name["fused"].code.count("for (")),
        "c4_isl_fused_mib": f"{traffic[0]:.0f}",
        "c4_isl_unfused_mib": f"{traffic[-1]:.0f}",
        "c4_isl_own_same": text(f"prose.compiler.{'same' if same else 'different'}"),
    }


def exercises(chain_of: ChainOf) -> dict[str, str]:
    """The answers of the chapter's exercises: plans of a five-operator chain, free and with
    a barrier; the two-step chain's plans; the smaller four-term sum.

    >>> from infrabook.dataflow import Op, Tensor
    >>> def chain_of(n, barrier=None):
    ...     ts = tuple(Tensor(f"X{i}", (2, 2), "fp32") for i in range(n + 1))
    ...     ops = tuple(Op(f"op{i}", (f"X{i}",), (f"X{i + 1}",), fusible=i != barrier)
    ...                 for i in range(n))
    ...     return Graph(ts, ops, (f"X{n}",))
    >>> v = exercises(chain_of)
    >>> v["ex4_free"], v["ex4_barrier"], v["ex4_small_exact"]
    ('16', '4', '2')
    """
    chain2 = rank_plans(article_chain(with_quant=False))
    cs = compare_orders(EXERCISE_TERMS, "fp32")
    return {
        "ex4_n": str(EXERCISE_OPS),
        "ex4_free": str(len(enumerate_plans(chain_of(EXERCISE_OPS)))),
        "ex4_barrier": str(len(enumerate_plans(chain_of(EXERCISE_OPS, barrier=EXERCISE_BARRIER)))),
        "ex4_barrier_pos": str(EXERCISE_BARRIER + 1),
        "ex4_two_best": chain2[0].label,
        "ex4_two_best_mib": f"{mib(chain2[0].accounting.traffic):.0f}",
        "ex4_two_worst_mib": f"{mib(chain2[-1].accounting.traffic):.0f}",
        "ex4_two_n": str(len(chain2)),
        "ex4_small_spacing": _spacing(EXERCISE_TERMS[0]),
        "ex4_small_results": text("prose.list_sep").join(f"{v:g}" for v in cs.orders.values()),
        "ex4_small_exact": str(cs.exact),
    }
