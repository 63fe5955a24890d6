"""The byte meter itself: it counts exactly the lanes a kernel loads and stores."""

import pytest
import torch
import triton
import triton.language as tl

from infrabook.kernels import INTERPRETED


@triton.jit
def _copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def _copy(x, block):
    y = torch.empty_like(x)
    _copy_kernel[(triton.cdiv(x.numel(), block),)](x, y, x.numel(), BLOCK=block)
    return y


def test_counts_unmasked_lanes_only(device, traffic):
    # 37 fp16 elements in 3 programs of 16 lanes: 48 lanes issued, 11 masked off.
    x = torch.arange(37, dtype=torch.float16, device=device)
    y, (launch,) = traffic(_copy, x, 16)
    assert torch.equal(y, x)
    assert (launch.name, launch.programs) == ("_copy_kernel", 3)
    assert launch.read == {"x_ptr": 37 * 2} and launch.written == {"y_ptr": 37 * 2}


def test_counts_every_launch_separately(device, traffic):
    x = torch.ones(5, device=device)
    _, launches = traffic(lambda: (_copy(x, 16), _copy(x, 32)))
    assert [(k.programs, k.bytes_read, k.bytes_written) for k in launches] == [(1, 20, 20)] * 2


@pytest.mark.skipif(not INTERPRETED, reason="the byte meter needs Triton's interpreter")
def test_skips_when_the_interpreter_internals_are_gone(monkeypatch, request):
    from triton.runtime import interpreter

    monkeypatch.delattr(type(interpreter.interpreter_builder), "create_masked_store")
    reason = r"interpreter_builder\.create_masked_store, which triton \S+ does not have"
    with pytest.raises(pytest.skip.Exception, match=reason):
        request.getfixturevalue("traffic")
