"""Fusion-plan search: every contiguous grouping, ranked by traffic then peak."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from infrabook.dataflow import Graph, Op, Tensor, fully_fused
from infrabook.ffn_chain import article_chain
from infrabook.fusion_search import enumerate_plans, rank_plans
from infrabook.units import MiB


def _chain(n: int) -> Graph:
    tensors = tuple(Tensor(f"t{i}", (8, 8), "fp32") for i in range(n + 1))
    ops = tuple(Op(f"op{i}", (f"t{i}",), (f"t{i + 1}",)) for i in range(n))
    return Graph(tensors, ops, (f"t{n}",))


@given(st.integers(1, 8))
def test_a_chain_of_n_ops_has_2_to_the_n_minus_1_plans(n):
    plans = enumerate_plans(_chain(n))
    assert len(plans) == 2 ** (n - 1)
    assert len(set(plans)) == len(plans)


@given(st.integers(1, 8))
def test_full_fusion_is_best_for_a_chain(n):
    g = _chain(n)
    best = rank_plans(g)[0]
    assert best.plan == fully_fused(g)
    # fused: read the input, write the output; unfused: each of the n ops reads and writes
    # one tensor
    assert best.accounting.traffic == 2 * 8 * 8 * 4
    assert rank_plans(g)[-1].accounting.traffic == 2 * n * 8 * 8 * 4


def test_article_ranking():
    ranked = rank_plans(article_chain(with_quant=True))
    assert [r.accounting.traffic // MiB for r in ranked] == [60, 108, 108, 156]
    assert ranked[0].label == "[silu+mul+quant]"
    traffic = [r.accounting.traffic for r in ranked]
    assert traffic == sorted(traffic)


def test_non_fusible_ops_prune_plans():
    g = _chain(3)
    ops = (g.ops[0], Op("op1", ("t1",), ("t2",), fusible=False), g.ops[2])
    pinned = Graph(g.tensors, ops, g.outputs)
    assert enumerate_plans(pinned) == [(("op0",), ("op1",), ("op2",))]
