"""Counting operator dispatches: the CPU's view of the article's 18 vs 15 (section 5.1).

One FFN run is six operators: ``G = X W_g``, ``U = X W_u``, ``T = silu(G)``, ``Z = T * U``,
``Y = Z W_d`` and ``X + Y``. The fused run replaces silu and the multiply by one operator,
``infrabook_bench::swiglu``, registered with :func:`torch.library.custom_op` so that it is
one dispatch (its body is eager PyTorch: what is counted is dispatches, which on a GPU are
kernel launches, not speed). :class:`DispatchCounter` is a ``TorchDispatchMode``: PyTorch
hands it every operator call after autograd and before the kernel, so the operators a
called operator runs inside it are not seen again, and one custom op counts once.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

#: The fused op's namespace; not ``infrabook``, whose kernels :mod:`infrabook.kernels` registers.
NAMESPACE = "infrabook_bench"


class DispatchCounter(TorchDispatchMode):
    """Records the name of every operator dispatched while it is active.

    >>> with DispatchCounter() as c:
    ...     _ = torch.ones(2) + torch.ones(2)
    >>> c.ops[-1], c.ops.count("aten.add.Tensor")
    ('aten.add.Tensor', 1)
    """

    def __init__(self) -> None:
        super().__init__()
        self.ops: list[str] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


def swiglu_op() -> Any:
    """The fused ``silu(g) * u`` as one registered operator (registered on first use).

    >>> swiglu_op()(torch.tensor([[0.0, 1.0]]), torch.tensor([[5.0, 2.0]]))
    tensor([[0.0000, 1.4621]])
    """
    namespace = getattr(torch.ops, NAMESPACE)
    if not hasattr(namespace, "swiglu"):

        @torch.library.custom_op(f"{NAMESPACE}::swiglu", mutates_args=())
        def swiglu(g: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
            return torch.nn.functional.silu(g) * u

        swiglu.register_fake(lambda g, u: torch.empty_like(g))
    return namespace.swiglu.default


class FFN:
    """A gate/up/down FFN with a residual connection: ``x + (silu(x Wg) * (x Wu)) Wd``.

    >>> f = FFN(4, 8, 16)
    >>> torch.allclose(f(f.x, fused=True), f(f.x, fused=False))
    True
    """

    def __init__(
        self,
        rows: int,
        d_model: int,
        d_ff: int,
        *,
        dtype: torch.dtype = torch.float32,
        device: str = "cpu",
    ) -> None:
        gen = torch.Generator().manual_seed(0)

        def rand(*shape: int, scale: float = 1.0) -> torch.Tensor:
            return (torch.randn(*shape, generator=gen) * scale).to(dtype=dtype, device=device)

        self.x = rand(rows, d_model)
        self.w_gate, self.w_up = (rand(d_model, d_ff, scale=d_model**-0.5) for _ in range(2))
        self.w_down = rand(d_ff, d_model, scale=d_ff**-0.5)

    def __call__(self, x: torch.Tensor, *, fused: bool, swiglu: Any = None) -> torch.Tensor:
        g, u = x @ self.w_gate, x @ self.w_up
        z = (swiglu or swiglu_op())(g, u) if fused else torch.nn.functional.silu(g) * u
        return x + z @ self.w_down


def count_runs(ffn: FFN, runs: int, *, fused: bool) -> DispatchCounter:
    """Dispatch ``runs`` FFN runs under a counter and return it.

    >>> f = FFN(2, 4, 8)
    >>> len(count_runs(f, 3, fused=False).ops), len(count_runs(f, 3, fused=True).ops)
    (18, 15)
    """
    op = swiglu_op() if fused else None  # register outside the counted region
    with torch.no_grad(), DispatchCounter() as counter:
        for _ in range(runs):
            ffn(ffn.x, fused=fused, swiglu=op)
    return counter
