"""Fusion-plan search: enumerate every legal plan of a graph and rank them.

Section 4 of the article: a compiler's value is not that it is faster but that it can
compare many implementations and choose. Here the implementations are the ways to cut a
graph's ops (in execution order) into kernels: 2**(n-1) plans for n ops, minus those that
would fuse a non-fusible op.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from infrabook.dataflow import Accounting, Graph, Plan, account, check_plan


@dataclass(frozen=True)
class RankedPlan:
    """A plan with its accounting."""

    plan: Plan
    accounting: Accounting

    @property
    def label(self) -> str:
        """The plan written as kernels in brackets, e.g. ``[silu+mul] [quant]``."""
        return " ".join(f"[{'+'.join(group)}]" for group in self.plan)


def enumerate_plans(graph: Graph) -> list[Plan]:
    """Every legal plan: each way to cut the op sequence into consecutive kernels.

    >>> from infrabook.ffn_chain import article_chain
    >>> len(enumerate_plans(article_chain(with_quant=True)))
    4
    """
    names = [op.name for op in graph.ops]
    plans: list[Plan] = []
    for cuts in itertools.product((False, True), repeat=len(names) - 1):
        groups: list[list[str]] = [[names[0]]]
        for name, cut in zip(names[1:], cuts, strict=True):
            if cut:
                groups.append([name])
            else:
                groups[-1].append(name)
        plan = tuple(tuple(g) for g in groups)
        try:
            check_plan(graph, plan)
        except ValueError:
            continue
        plans.append(plan)
    return plans


def rank_plans(graph: Graph) -> list[RankedPlan]:
    """All legal plans, best first: by traffic, then peak live bytes, then kernel count.

    >>> from infrabook.ffn_chain import article_chain
    >>> [(p.label, p.accounting.traffic // 2**20) for p in rank_plans(article_chain(True))]
    [('[silu+mul+quant]', 60), ('[silu+mul] [quant]', 108),
     ('[silu] [mul+quant]', 108), ('[silu] [mul] [quant]', 156)]
    """
    ranked = [RankedPlan(p, account(graph, p)) for p in enumerate_plans(graph)]
    return sorted(
        ranked,
        key=lambda r: (
            r.accounting.traffic,
            r.accounting.peak_live_bytes,
            r.accounting.kernel_count,
        ),
    )
