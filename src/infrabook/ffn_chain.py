"""The article's FFN activation chain as a dataflow graph.

G and U are the two projections X W_g and X W_u; T = SiLU(G), Z = T * U, and in section 2.1
a third step quantises Z to one byte per element.
"""

from __future__ import annotations

from infrabook import config
from infrabook.checks import check_positive_int
from infrabook.dataflow import Graph, Op, Tensor


def activation_chain(rows: int, cols: int, dtype: str, quant_dtype: str | None = None) -> Graph:
    """G, U -> T = SiLU(G) -> Z = T * U, and with ``quant_dtype`` a last step Z -> Zq (Z quantised).

    >>> g = activation_chain(1024, 12288, "bf16", "int8")
    >>> [op.name for op in g.ops], g.tensor("Zq").nbytes // 2**20
    (['silu', 'mul', 'quant'], 12)
    """
    shape = (check_positive_int("rows", rows), check_positive_int("cols", cols))
    tensors = [Tensor(n, shape, dtype) for n in ("G", "U", "T", "Z")]
    ops = [Op("silu", ("G",), ("T",)), Op("mul", ("T", "U"), ("Z",))]
    out = "Z"
    if quant_dtype is not None:
        tensors.append(Tensor("Zq", shape, quant_dtype))
        ops.append(Op("quant", ("Z",), ("Zq",)))
        out = "Zq"
    return Graph(tuple(tensors), tuple(ops), (out,))


#: Section 2.1's middle plan: SiLU and the multiply fused, the quantisation on its own.
FUSE_FIRST_TWO = (("silu", "mul"), ("quant",))


def shared_intermediate_chain(rows: int, cols: int, dtype: str) -> Graph:
    """Section 7's boundary: T = SiLU(G) is also needed by a later op (here a backward
    pass that keeps T), so fusing SiLU with the multiply cannot keep T on chip.

    >>> from infrabook.dataflow import account
    >>> g = shared_intermediate_chain(1024, 12288, "bf16")
    >>> k = account(g, (("silu", "mul"), ("keep",))).kernels[0]
    >>> k.writes
    ('T', 'Z')
    """
    shape = (check_positive_int("rows", rows), check_positive_int("cols", cols))
    tensors = tuple(Tensor(n, shape, dtype) for n in ("G", "U", "T", "Z", "R"))
    ops = (
        Op("silu", ("G",), ("T",)),
        Op("mul", ("T", "U"), ("Z",)),
        Op("keep", ("T",), ("R",)),
    )
    return Graph(tensors, ops, ("Z", "R"))


def article_chain(with_quant: bool = False) -> Graph:
    """The chain at the article's shape and dtype, read from ``conf/scenarios.toml``.

    >>> article_chain().tensor("G").shape
    (1024, 12288)
    """
    s = config.scenarios().ffn_chain
    return activation_chain(s.rows, s.cols, s.dtype, s.quant_dtype if with_quant else None)
