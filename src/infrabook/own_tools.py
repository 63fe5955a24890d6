"""What a reader's own tools show for the SwiGLU chain: ``torch.profiler``'s operator events,
eager and under ``torch.compile``, and the code Inductor (``torch.compile``'s back end)
generates for the chain.

On a GPU every ``aten::`` operator the profiler lists in an eager run is (at least) one kernel
launch; the compiled run calls one generated kernel. On the CPU the same counts show the
same thing: two operators eager, none compiled, because Inductor wrote one loop that reads
G and U once and writes Z once. :func:`look` compiles once and reuses the compiled function
for the profile, since a compile costs seconds.
"""

from __future__ import annotations

import re
import time
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import torch

from infrabook.checks import check_positive_int

#: Inductor names a compiled graph by a hash of it; the hash says nothing to a reader.
_GRAPH_HASH = re.compile(r"## Call CompiledFxGraph \w+ ##")


def swiglu_chain(g: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """The chain as a PyTorch user writes it: ``silu(g) * u``, two operators.

    >>> swiglu_chain(torch.tensor([0.0, 1.0]), torch.tensor([5.0, 2.0]))
    tensor([0.0000, 1.4621])
    """
    return torch.nn.functional.silu(g) * u


def operator_events(fn: Callable[[], object], runs: int = 1) -> dict[str, int]:
    """The profiler's CPU events while ``fn()`` runs ``runs`` times (after one untimed call,
    so first-call set-up is not counted), by name, with how many times each occurred.

    >>> g = torch.ones(4)
    >>> operator_events(lambda: swiglu_chain(g, g), runs=3)
    {'aten::silu': 3, 'aten::mul': 3}
    """
    from torch.profiler import ProfilerActivity, profile

    check_positive_int("runs", runs)
    fn()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(runs):
            fn()
    counts: Counter[str] = Counter()
    for event in prof.events():
        counts[_GRAPH_HASH.sub("## Call CompiledFxGraph ##", event.name)] += 1
    return dict(counts)


def aten_count(events: dict[str, int]) -> int:
    """How many ``aten::`` operator calls ``events`` holds.

    >>> aten_count({"aten::silu": 2, "aten::mul": 2, "Torch-Compiled Region: 0/0": 1})
    4
    """
    return sum(n for name, n in events.items() if name.startswith("aten::"))


def kernel_source(module_source: str) -> str:
    """The first generated kernel in the source of an Inductor output module: the text of
    the first triple-quoted string (C++ on the CPU, Triton on a GPU), without its blank
    edges.

    >>> kernel_source("k = async_compile.cpp_pybinding([], r'''\\nvoid kernel() {}\\n''')")
    'void kernel() {}'
    >>> kernel_source("x = 1")
    Traceback (most recent call last):
    ...
    ValueError: no kernel source (a triple-quoted string) in the generated module
    """
    found = re.search(r"'''(.*?)'''", module_source, re.DOTALL)
    if found is None:
        raise ValueError("no kernel source (a triple-quoted string) in the generated module")
    return found.group(1).strip("\n")


def call_source(module_source: str) -> str:
    """The ``call`` function of an Inductor output module: where buffers are allocated and
    the kernels called, so what is (not) allocated shows what became an intermediate.

    >>> call_source("class R:\\n    def call(self, args):\\n        return (1, )\\n\\nx = 1")
    'def call(self, args):\\n    return (1, )'
    """
    found = re.search(r"^( *)def call\(.*?(?=\n\n|\Z)", module_source, re.DOTALL | re.MULTILINE)
    if found is None:
        raise ValueError("no call function in the generated module")
    indent = len(found.group(1))
    return "\n".join(line[indent:] for line in found.group(0).splitlines())


@dataclass(frozen=True)
class Seen:
    """The chain through the reader's tools: operator events per ``runs`` runs, eager and
    compiled; Inductor's generated module, its kernel and its ``call``; the compile time;
    the compiled function's output ``z`` on the inputs of :func:`inputs`."""

    rows: int
    cols: int
    runs: int
    eager: dict[str, int]
    compiled: dict[str, int]
    module: str
    compile_s: float
    z: torch.Tensor

    @property
    def kernel(self) -> str:
        """The generated kernel's source."""
        return kernel_source(self.module)

    @property
    def call(self) -> str:
        """The generated ``call`` function."""
        return call_source(self.module)


def inputs(rows: int, cols: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The fp32 inputs ``g, u`` that :func:`look` uses: normal, from a fixed seed.

    >>> g, u = inputs(2, 3)
    >>> g.shape, g.dtype, torch.equal(g, inputs(2, 3)[0])
    (torch.Size([2, 3]), torch.float32, True)
    """
    check_positive_int("rows", rows)
    check_positive_int("cols", cols)
    gen = torch.Generator().manual_seed(0)
    g = torch.randn(rows, cols, generator=gen)
    return g, torch.randn(rows, cols, generator=gen)


def look(rows: int = 64, cols: int = 256, runs: int = 3) -> Seen:
    """Profile the eager chain, compile it once with Inductor (keeping the generated code),
    and profile the compiled function on the same fp32 inputs.

    Needs a C++ compiler for Inductor's CPU back end, and seconds for the compile.

    >>> seen = look(8, 32, runs=2)
    >>> seen.eager, aten_count(seen.compiled), "cpp_fused" in seen.module
    ({'aten::silu': 2, 'aten::mul': 2}, 0, True)
    """
    from torch._inductor.utils import run_and_get_code

    g, u = inputs(rows, cols)
    eager = operator_events(lambda: swiglu_chain(g, u), runs)
    compiled_fn = torch.compile(swiglu_chain, fullgraph=True, dynamic=False)
    with warnings.catch_warnings():
        # torch's own modules warn about their deprecated parts while Inductor compiles
        warnings.simplefilter("ignore", DeprecationWarning)
        start = time.perf_counter()
        z, modules = run_and_get_code(compiled_fn, g, u)
        compile_s = time.perf_counter() - start
    compiled = operator_events(lambda: compiled_fn(g, u), runs)
    return Seen(rows, cols, runs, eager, compiled, modules[0], compile_s, z)
