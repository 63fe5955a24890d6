"""Dataflow accounting: what each kernel of a fusion plan reads and writes, and what is live.

A graph is tensors plus ops in execution order. A *plan* partitions the ops into kernels
(groups of consecutive ops). The rules, from the article's section 2:

* a tensor produced and consumed only inside one kernel stays on chip: it is never written
  to memory and never read back;
* a graph input is read from memory by each kernel that consumes it;
* a tensor with a consumer in another kernel, or that is a graph output, is written by its
  producing kernel and read back by each other kernel that consumes it;
* a tensor in memory is live from the kernel that produces it (graph inputs: from the first
  kernel) to the last kernel that uses it (graph outputs: to the end).

Traffic and peak are two different accounts: traffic sums every read and write, peak is
the largest sum of live bytes at any kernel step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from infrabook.checks import check_positive_int
from infrabook.units import dtype_bytes

Plan = tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Tensor:
    """A named tensor with a shape and a dtype.

    >>> Tensor("G", (1024, 12288), "bf16").nbytes // 2**20
    24
    """

    name: str
    shape: tuple[int, ...]
    dtype: str

    def __post_init__(self) -> None:
        if not self.shape:
            raise ValueError(f"tensor {self.name!r} needs a non-empty shape, got {self.shape!r}")
        for i, extent in enumerate(self.shape):
            check_positive_int(f"tensor {self.name!r} dimension {i}", extent)
        dtype_bytes(self.dtype)

    @property
    def nbytes(self) -> int:
        """Size in bytes."""
        return math.prod(self.shape) * dtype_bytes(self.dtype)


@dataclass(frozen=True)
class Op:
    """An operator: reads ``inputs``, writes ``outputs``. A non-fusible op runs alone."""

    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    fusible: bool = True


@dataclass(frozen=True)
class Graph:
    """Tensors, ops in execution order, and which tensors leave the graph.

    Construction checks the graph is well formed: unique names, every op input produced
    earlier (or a graph input), every tensor produced at most once.
    """

    tensors: tuple[Tensor, ...]
    ops: tuple[Op, ...]
    outputs: tuple[str, ...]

    def __post_init__(self) -> None:
        names = [t.name for t in self.tensors]
        if len(set(names)) != len(names):
            raise ValueError(f"tensor names must be unique, got {names}")
        op_names = [op.name for op in self.ops]
        if not op_names or len(set(op_names)) != len(op_names):
            raise ValueError(f"op names must be unique and non-empty, got {op_names}")
        known = set(names)
        available = {n for n in names if n not in self._produced_names()}
        produced: set[str] = set()
        for op in self.ops:
            for t in op.inputs:
                if t not in known:
                    raise ValueError(f"op {op.name!r} reads unknown tensor {t!r}")
                if t not in available:
                    raise ValueError(f"op {op.name!r} reads {t!r} before it is produced")
            for t in op.outputs:
                if t not in known:
                    raise ValueError(f"op {op.name!r} writes unknown tensor {t!r}")
                if t in produced:
                    raise ValueError(f"tensor {t!r} is produced twice")
                produced.add(t)
                available.add(t)
        for t in self.outputs:
            if t not in known:
                raise ValueError(f"graph output {t!r} is not a tensor of the graph")

    def _produced_names(self) -> set[str]:
        return {t for op in self.ops for t in op.outputs}

    def tensor(self, name: str) -> Tensor:
        """The tensor called ``name``.

        >>> from infrabook.ffn_chain import article_chain
        >>> article_chain().tensor("T").nbytes // 2**20
        24
        """
        for t in self.tensors:
            if t.name == name:
                return t
        raise ValueError(f"no tensor {name!r} in the graph")

    @property
    def inputs(self) -> tuple[str, ...]:
        """Tensors no op produces: they start in memory."""
        produced = self._produced_names()
        return tuple(t.name for t in self.tensors if t.name not in produced)


@dataclass(frozen=True)
class KernelTraffic:
    """What one kernel of a plan moves, and the bytes live in memory while it runs."""

    name: str
    ops: tuple[str, ...]
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    bytes_read: int
    bytes_written: int
    live: tuple[str, ...]
    live_bytes: int

    @property
    def bytes_moved(self) -> int:
        """Bytes read plus bytes written."""
        return self.bytes_read + self.bytes_written


@dataclass(frozen=True)
class Accounting:
    """Per-kernel traffic of one plan and its totals.

    ``footprint_bytes`` counts every tensor that is in memory at some point: what a cache
    would have to hold for repeated runs of the plan to never reach DRAM.
    """

    kernels: tuple[KernelTraffic, ...]
    footprint_bytes: int

    @property
    def traffic(self) -> int:
        """Total bytes read and written by all kernels."""
        return sum(k.bytes_moved for k in self.kernels)

    @property
    def peak_live_bytes(self) -> int:
        """The largest number of bytes live in memory during any kernel."""
        return max(k.live_bytes for k in self.kernels)

    @property
    def kernel_count(self) -> int:
        """Number of kernels the plan launches."""
        return len(self.kernels)


def unfused(graph: Graph) -> Plan:
    """The plan that runs every op as its own kernel.

    >>> from infrabook.ffn_chain import article_chain
    >>> unfused(article_chain(with_quant=True))
    (('silu',), ('mul',), ('quant',))
    """
    return tuple((op.name,) for op in graph.ops)


def fully_fused(graph: Graph) -> Plan:
    """The plan that runs all ops in one kernel.

    >>> from infrabook.ffn_chain import article_chain
    >>> fully_fused(article_chain(with_quant=True))
    (('silu', 'mul', 'quant'),)
    """
    return (tuple(op.name for op in graph.ops),)


def check_plan(graph: Graph, plan: Plan) -> None:
    """Raise ``ValueError`` unless ``plan`` groups the graph's ops, in order, into kernels.

    Groups must be non-empty and consecutive in execution order (which keeps every kernel
    free of a path that leaves it and comes back), and a non-fusible op must run alone.

    >>> from infrabook.ffn_chain import article_chain
    >>> check_plan(article_chain(), (("mul",), ("silu",)))
    Traceback (most recent call last):
    ...
    ValueError: plan (('mul',), ('silu',)) must list every op once, in execution order ...
    """
    order = [op.name for op in graph.ops]
    flat = [name for group in plan for name in group]
    if any(not group for group in plan):
        raise ValueError(f"a kernel of the plan has no ops: {plan!r}")
    if flat != order:
        raise ValueError(
            f"plan {plan!r} must list every op once, in execution order {tuple(order)!r}"
        )
    by_name = {op.name: op for op in graph.ops}
    for group in plan:
        if len(group) > 1:
            for name in group:
                if not by_name[name].fusible:
                    raise ValueError(f"op {name!r} cannot be fused, but the plan groups {group!r}")


def account(graph: Graph, plan: Plan) -> Accounting:
    """Bytes read and written by each kernel of ``plan``, and the live bytes at each step.

    The article's example 5-4 (two bf16 [1024, 12288] inputs, SiLU then multiply):

    >>> from infrabook.ffn_chain import activation_chain
    >>> g = activation_chain(1024, 12288, "bf16")
    >>> account(g, unfused(g)).traffic // 2**20, account(g, fully_fused(g)).traffic // 2**20
    (120, 72)
    """
    check_plan(graph, plan)
    kernel_of = {name: k for k, group in enumerate(plan) for name in group}
    producer: dict[str, int] = {}
    consumers: dict[str, set[int]] = {t.name: set() for t in graph.tensors}
    for op in graph.ops:
        for t in op.outputs:
            producer[t] = kernel_of[op.name]
        for t in op.inputs:
            consumers[t].add(kernel_of[op.name])

    outputs = set(graph.outputs)
    last = len(plan) - 1

    def in_memory(t: str) -> bool:
        if t not in producer or t in outputs:
            return True
        return any(k != producer[t] for k in consumers[t])

    first_live = {t.name: producer.get(t.name, 0) for t in graph.tensors}
    last_live = {
        t.name: last if t.name in outputs else max(consumers[t.name] | {first_live[t.name]})
        for t in graph.tensors
    }
    by_op = {op.name: op for op in graph.ops}
    kernels = []
    for k, group in enumerate(plan):
        reads: list[str] = []
        writes: list[str] = []
        for name in group:
            op = by_op[name]
            for t in op.inputs:
                if producer.get(t) != k and in_memory(t) and t not in reads:
                    reads.append(t)
            writes.extend(t for t in op.outputs if in_memory(t))
        live = tuple(
            t.name
            for t in graph.tensors
            if in_memory(t.name) and first_live[t.name] <= k <= last_live[t.name]
        )
        size = {t.name: t.nbytes for t in graph.tensors}
        kernels.append(
            KernelTraffic(
                name="+".join(group),
                ops=group,
                reads=tuple(reads),
                writes=tuple(writes),
                bytes_read=sum(size[t] for t in reads),
                bytes_written=sum(size[t] for t in writes),
                live=live,
                live_bytes=sum(size[t] for t in live),
            )
        )
    footprint = sum(t.nbytes for t in graph.tensors if in_memory(t.name))
    return Accounting(tuple(kernels), footprint)


def element_ops(graph: Graph, plan: Plan) -> int:
    """Element-wise operations a plan executes: each op once per element it produces.

    Fusion regroups the same ops into fewer kernels, so this count, and with it the FLOP,
    is the same for every plan of a graph; only the traffic changes:

    >>> from infrabook.ffn_chain import article_chain
    >>> g = article_chain()
    >>> element_ops(g, unfused(g)) == element_ops(g, fully_fused(g)) == 2 * 1024 * 12288
    True
    """
    check_plan(graph, plan)
    by_name = {op.name: op for op in graph.ops}
    return sum(
        math.prod(graph.tensor(t).shape)
        for group in plan
        for name in group
        for t in by_name[name].outputs
    )
