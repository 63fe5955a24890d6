"""Dataflow accounting against the article's numbers and against closed-form byte counts.

The closed forms are derived by hand from the rules (each materialised tensor is written once
by its producer and read once by every other kernel that uses it), not from the code.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from infrabook.dataflow import Graph, Op, Tensor, account, check_plan, fully_fused, unfused
from infrabook.ffn_chain import activation_chain, article_chain, shared_intermediate_chain
from infrabook.units import MiB, dtype_bytes


def test_article_tensors_are_24_mib():
    g = article_chain()
    assert {g.tensor(n).nbytes for n in ("G", "U", "T", "Z")} == {24 * MiB}


def test_article_two_step_chain():
    g = article_chain()
    sep, fus = account(g, unfused(g)), account(g, fully_fused(g))
    assert [k.bytes_moved for k in sep.kernels] == [48 * MiB, 72 * MiB]
    assert sep.traffic == 120 * MiB and fus.traffic == 72 * MiB
    assert fus.traffic / sep.traffic == pytest.approx(0.6, abs=0)
    assert round(sep.traffic / fus.traffic, 2) == 1.67
    assert sep.kernel_count == 2 and fus.kernel_count == 1


def test_article_three_step_boundary():
    g = article_chain(with_quant=True)
    sep = account(g, unfused(g))
    two = account(g, (("silu", "mul"), ("quant",)))
    fus = account(g, fully_fused(g))
    assert (sep.traffic, two.traffic, fus.traffic) == (156 * MiB, 108 * MiB, 60 * MiB)
    assert (sep.peak_live_bytes, fus.peak_live_bytes) == (72 * MiB, 60 * MiB)
    assert sep.traffic - fus.traffic == 96 * MiB
    assert sep.peak_live_bytes - fus.peak_live_bytes == 12 * MiB
    # each intermediate kept in memory costs one write and one read of 24 MiB
    assert sep.traffic - two.traffic == two.traffic - fus.traffic == 48 * MiB


def test_fused_kernel_never_touches_intermediates():
    k = account(article_chain(True), fully_fused(article_chain(True))).kernels[0]
    assert k.reads == ("G", "U") and k.writes == ("Zq",)
    assert "T" not in k.live and "Z" not in k.live


def test_two_consumers_keep_the_write_even_when_fused():
    g = shared_intermediate_chain(1024, 12288, "bf16")
    acc = account(g, (("silu", "mul"), ("keep",)))
    assert acc.kernels[0].writes == ("T", "Z")
    assert acc.kernels[1].reads == ("T",)
    # fusing all three ops keeps T on chip again
    assert "T" not in account(g, fully_fused(g)).kernels[0].writes


@given(
    rows=st.integers(1, 5000),
    cols=st.integers(1, 5000),
    dtype=st.sampled_from(["fp32", "fp16", "bf16"]),
    qdtype=st.sampled_from(["int8", "fp8"]),
)
def test_closed_forms(rows, cols, dtype, qdtype):
    n = rows * cols
    b, q = dtype_bytes(dtype), dtype_bytes(qdtype)
    two = activation_chain(rows, cols, dtype)
    three = activation_chain(rows, cols, dtype, qdtype)
    assert account(two, unfused(two)).traffic == 5 * n * b
    assert account(two, fully_fused(two)).traffic == 3 * n * b
    assert account(three, unfused(three)).traffic == 6 * n * b + n * q
    assert account(three, fully_fused(three)).traffic == 2 * n * b + n * q
    assert account(three, unfused(three)).peak_live_bytes == max(3 * n * b, n * b + n * q)
    assert account(three, fully_fused(three)).peak_live_bytes == 2 * n * b + n * q


def test_input_read_by_two_kernels_is_counted_twice():
    t = (Tensor("A", (4,), "fp32"), Tensor("B", (4,), "fp32"), Tensor("C", (4,), "fp32"))
    g = Graph(t, (Op("f", ("A",), ("B",)), Op("g", ("A", "B"), ("C",))), ("C",))
    acc = account(g, unfused(g))
    assert [k.bytes_read for k in acc.kernels] == [16, 32]
    assert acc.traffic == 16 + 16 + 32 + 16


@pytest.mark.parametrize(
    ("plan", "message"),
    [
        ((("mul",), ("silu",)), "execution order"),
        ((("silu",),), "execution order"),
        ((("silu",), (), ("mul",)), "no ops"),
    ],
)
def test_bad_plans(plan, message):
    with pytest.raises(ValueError, match=message):
        check_plan(article_chain(), plan)


def test_non_fusible_op_must_run_alone():
    t = (Tensor("A", (4,), "fp32"), Tensor("B", (4,), "fp32"), Tensor("C", (4,), "fp32"))
    g = Graph(t, (Op("f", ("A",), ("B",), fusible=False), Op("g", ("B",), ("C",))), ("C",))
    with pytest.raises(ValueError, match="'f' cannot be fused"):
        account(g, fully_fused(g))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"shape": (0, 3)}, "dimension 0 must be a positive integer, got 0"),
        ({"shape": (2, -1)}, "dimension 1 must be a positive integer, got -1"),
        ({"shape": ()}, "non-empty shape"),
        ({"dtype": "fp64x"}, "unknown dtype 'fp64x'"),
    ],
)
def test_bad_tensors(kwargs, message):
    args = {"name": "X", "shape": (2, 3), "dtype": "bf16"} | kwargs
    with pytest.raises(ValueError, match=message):
        Tensor(**args)


def test_bad_graphs():
    a, b = Tensor("A", (2,), "fp32"), Tensor("B", (2,), "fp32")
    with pytest.raises(ValueError, match="unknown tensor 'Z'"):
        Graph((a, b), (Op("f", ("Z",), ("B",)),), ("B",))
    with pytest.raises(ValueError, match="before it is produced"):
        Graph((a, b), (Op("f", ("B",), ("A",)), Op("g", ("A",), ("B",))), ("B",))
    with pytest.raises(ValueError, match="produced twice"):
        Graph((a, b), (Op("f", ("A",), ("B",)), Op("g", ("A",), ("B",))), ("B",))
    with pytest.raises(ValueError, match="unique"):
        Graph((a, a), (Op("f", ("A",), ("A",)),), ("A",))
