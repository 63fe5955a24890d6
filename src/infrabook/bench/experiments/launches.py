"""Launches: the article's 18 vs 15 (section 5.1). On the CPU (``launches``), operator
dispatches counted; on a GPU (``gpu_graphs``), host launches, graph launches and kernels as
the profiler sees them, eager and replayed from a CUDA graph, unfused and fused.

One FFN run is six operators: ``G = X W_g``, ``U = X W_u``, ``T = silu(G)``, ``Z = T * U``,
``Y = Z W_d`` and ``X + Y``. The fused run replaces silu and the multiply by one operator,
``infrabook_bench::swiglu``, registered with :func:`torch.library.custom_op` so that it is
one dispatch (its body is eager PyTorch: what is counted is dispatches, which on a GPU are
kernel launches, not speed). :class:`DispatchCounter` is a ``TorchDispatchMode``: PyTorch
hands it every operator call after autograd and before the kernel, so the operators a
called operator runs inside it are not seen again, and one custom op counts once."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from infrabook import config
from infrabook.bench.experiments.base import Measured, experiment, log
from infrabook.bench.measure.cuda import Rig
from infrabook.bench.records.results.launches import (
    Dispatches,
    GraphResults,
    LaunchResults,
    Submissions,
)
from infrabook.bench.records.timing import Timing
from infrabook.checks import check_positive_int

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


@experiment(LaunchResults, full={})
def launches(
    runs: int | None = None, rows: int = 8, d_model: int = 64, d_ff: int = 256
) -> Measured:
    """Operator dispatches of ``runs`` FFN runs (the article's, ``conf/scenarios.toml``
    [graph_replay], by default), eager against fused, as counted by
    :class:`infrabook.bench.experiments.launches.DispatchCounter`."""
    default = config.scenarios().graph_replay.runs
    runs = check_positive_int("runs", default if runs is None else runs)
    log.info("launches: counting dispatches of %d FFN runs, eager and fused ...", runs)
    ffn = FFN(rows, d_model, d_ff)
    eager, fused = (
        Dispatches(len(c.ops), tuple(c.ops[: len(c.ops) // runs]), dict(Counter(c.ops)))
        for c in (count_runs(ffn, runs, fused=fused) for fused in (False, True))
    )
    return Measured(
        LaunchResults(eager, fused),
        params={"runs": runs, "fused_op": "infrabook_bench::swiglu (torch.library.custom_op)"},
    )


def _host_time(
    fn: Callable[[], object], runs: int, reps: int, sync: Callable[[], None]
) -> tuple[Timing, Timing]:
    """Seconds to *issue* ``runs`` calls (host side) and to finish them (with a sync)."""
    issue, total = [], []
    for rep in range(-5, reps):  # five untimed warm-ups first
        t0 = time.perf_counter()
        for _ in range(runs):
            fn()
        t1 = time.perf_counter()
        sync()
        if rep >= 0:
            issue.append(t1 - t0)
            total.append(time.perf_counter() - t0)
    return Timing.of(issue), Timing.of(total)


_FFN = {"rows": 64, "d_model": 1024, "d_ff": 4096}


@experiment(GraphResults, full=_FFN | {"reps": 100}, quick=_FFN | {"reps": 20}, limit_s=40)
def gpu_graphs(rig: Rig, rows: int, d_model: int, d_ff: int, reps: int) -> Measured:
    """Three FFN runs eager, replayed from a CUDA graph, fused, fused and replayed.

    Counts come from ``torch.profiler``: host events ``cudaLaunchKernel`` (and the other
    launch calls, driver API included, which Triton uses) against ``cudaGraphLaunch``, and
    device kernel events. A small FFN (64 rows, d_model 1024, d_ff 4096, bf16) keeps the
    kernels short, so host submission is visible in the times.
    """
    from infrabook.kernels import swiglu

    runs = config.scenarios().graph_replay.runs
    ffn = FFN(rows, d_model, d_ff, dtype=torch.bfloat16, device=rig.device)
    eager, fused = partial(ffn, ffn.x, fused=False), partial(ffn, ffn.x, fused=True, swiglu=swiglu)
    log.info("gpu_graphs: capturing graphs ...")
    configs: dict[str, Callable[[], object]] = {
        "eager": eager,
        "graph": rig.capture(eager),
    }
    configs["fused"] = fused
    configs["fused+graph"] = rig.capture(fused)
    results: dict[str, Submissions] = {}
    for name, fn in configs.items():
        log.info("gpu_graphs: %s: profiling %d runs, then timing the host ...", name, runs)
        for _ in range(3):
            fn()
        rig.sync()
        counts = rig.profile(fn, runs)
        issue, total = _host_time(fn, runs, reps, rig.sync)
        results[name] = Submissions(**counts, issue=issue, total=total)
        if results[name].undercounted:
            log.warning(
                "gpu_graphs: %s: %d host launches for %d kernels without a graph; by API: %s",
                *(name, counts["host_launches"], counts["kernels"], counts["by_api"]),
            )
    return Measured(
        GraphResults(results),
        params={"runs": runs, "dtype": "bf16", "fused_kernel": "infrabook.kernels.swiglu"},
    )
