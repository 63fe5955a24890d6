"""Fixtures for the kernel tests: shared inputs, and a byte meter that counts what kernels
really load and store.

The meter hooks Triton's interpreter at its two memory primitives (masked load and masked
store; unmasked ones, atomics and descriptors all go through them). For every access it
counts the lanes whose mask is true, times the element size of the pointer, and files the
bytes under the kernel argument whose tensor holds the address. Masked-off lanes move no
data on a GPU either, so they are not counted; an address outside every tensor argument
fails the test rather than going uncounted.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np
import pytest
import torch
import triton

from infrabook.kernels import DEVICE, INTERPRETED


@dataclass
class KernelLaunch:
    """One kernel launch: its name, how many programs ran, bytes per pointer argument."""

    name: str
    programs: int
    ranges: dict[str, tuple[int, int]]
    read: Counter[str] = field(default_factory=Counter)
    written: Counter[str] = field(default_factory=Counter)

    @property
    def bytes_read(self) -> int:
        return sum(self.read.values())

    @property
    def bytes_written(self) -> int:
        return sum(self.written.values())

    def tally(self, into: Counter[str], ptrs, mask) -> None:
        addresses = np.broadcast_to(ptrs.data, mask.data.shape)[mask.data].astype(np.int64)
        size = ptrs.get_element_ty().primitive_bitwidth // 8
        matched = 0
        for name, (start, end) in self.ranges.items():
            inside = int(((addresses >= start) & (addresses < end)).sum())
            if inside:
                into[name] += inside * size
                matched += inside
        assert matched == addresses.size, f"{self.name} touched memory outside its tensors"


@pytest.fixture(scope="session")
def device() -> str:
    """Where test tensors live: compiled kernels need CUDA, the interpreter takes CPU."""
    return DEVICE


# The dtypes the kernels accept, by their names in infrabook's traffic models.
MODEL_DTYPE = {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16"}


# Session scope because hypothesis refuses function-scoped fixtures in a @given test.
@pytest.fixture(scope="session", params=list(MODEL_DTYPE), ids=str)
def dtype(request: pytest.FixtureRequest) -> torch.dtype:
    """Each input dtype the kernels accept: a test that takes ``dtype`` runs once per dtype,
    unless it parametrizes ``dtype`` itself."""
    return request.param


@pytest.fixture
def model_dtype(dtype: torch.dtype) -> str:
    """The name of ``dtype`` in infrabook's traffic models: "fp32", "fp16" or "bf16"."""
    return MODEL_DTYPE[dtype]


@pytest.fixture(scope="session", params=[(1, 1), (3, 5), (37, 129), (64, 200)], ids=str)
def shape(request: pytest.FixtureRequest) -> tuple[int, int]:
    """2-D shapes for the elementwise kernels: one element, odd sizes, one tile and several."""
    return request.param


@pytest.fixture(scope="session")
def make_inputs(device: str) -> Callable[..., tuple[torch.Tensor, torch.Tensor]]:
    """``make_inputs(shape, dtype, seed=0)``: seeded (g, u) for the SwiGLU kernels."""

    def make(shape, dtype, seed=0):
        gen = torch.Generator().manual_seed(seed)
        # Scale 4 reaches far into both tails of silu, where exp(-|g|) underflows.
        g = 4 * torch.randn(shape, generator=gen)
        u = torch.randn(shape, generator=gen)
        return g.to(device, dtype), u.to(device, dtype)

    return make


Meter = Callable[..., tuple[object, list[KernelLaunch]]]

# The private parts of triton.runtime.interpreter the meter hooks (present from 3.4 to 3.9).
_METER_HOOKS = (
    "GridExecutor.__call__",
    "interpreter_builder.create_masked_load",
    "interpreter_builder.create_masked_store",
)


def _missing_meter_hooks(interpreter: object) -> list[str]:
    """The entries of _METER_HOOKS that ``interpreter`` (the module) lacks."""
    missing = []
    for dotted in _METER_HOOKS:
        owner = interpreter
        for part in dotted.split("."):
            owner = getattr(owner, part, None)
        if owner is None:
            missing.append(dotted)
    return missing


@pytest.fixture
def traffic(monkeypatch: pytest.MonkeyPatch) -> Meter:
    """``traffic(fn, *args, **kwargs)`` runs ``fn`` and returns ``(result, launches)``."""
    if not INTERPRETED:
        pytest.skip("the byte meter hooks Triton's interpreter; compiled kernels need a profiler")
    from triton.runtime import interpreter

    missing = _missing_meter_hooks(interpreter)
    if missing:
        pytest.skip(
            f"the byte meter hooks Triton's interpreter at {', '.join(missing)}, which "
            f"triton {triton.__version__} does not have"
        )
    launches: list[KernelLaunch] = []
    run_grid = interpreter.GridExecutor.__call__

    def launch(executor, *args, **kwargs):
        # The interpreter runs CPU tensors in their own storage, so these are the ranges
        # its loads and stores address (a copy would trip the assertion in tally).
        named = dict(zip(executor.arg_names, args, strict=False)) | kwargs
        ranges = {
            name: (t.data_ptr(), t.data_ptr() + t.numel() * t.element_size())
            for name, t in named.items()
            if isinstance(t, torch.Tensor)
        }
        spans = sorted(ranges.values())
        assert all(a[1] <= b[0] for a, b in pairwise(spans)), "arguments share memory"
        grid = executor.grid
        assert isinstance(grid, tuple), "the meter expects a fixed grid"
        launches.append(KernelLaunch(executor.fn.__name__, math.prod(grid), ranges))
        return run_grid(executor, *args, **kwargs)

    builder = interpreter.interpreter_builder
    load, store = builder.create_masked_load, builder.create_masked_store

    # The trailing cache and volatility arguments changed between Triton releases (3.4
    # passes cache_modifier and eviction_policy, 3.9 one cache_policy); they pass through.
    def counted_load(ptrs, mask, *rest):
        launches[-1].tally(launches[-1].read, ptrs, mask)
        return load(ptrs, mask, *rest)

    def counted_store(ptrs, value, mask, *rest):
        launches[-1].tally(launches[-1].written, ptrs, mask)
        return store(ptrs, value, mask, *rest)

    monkeypatch.setattr(interpreter.GridExecutor, "__call__", launch)
    monkeypatch.setattr(builder, "create_masked_load", counted_load)
    monkeypatch.setattr(builder, "create_masked_store", counted_store)

    def measure(fn, *args, **kwargs):
        launches.clear()
        result = fn(*args, **kwargs)
        return result, list(launches)

    return measure
