"""SwiGLU, ``z = silu(g) * u``: the article's fused kernel beside the unfused pair it replaces.

The fused kernel reads G and U once and writes Z once; the unfused path writes
T = silu(G) to memory in one kernel and reads it back in a second, which is the extra
traffic of the article's example 5-4. Both treat the tensors as flat arrays of elements
(they are elementwise and contiguous), so any 2-D shape works, odd sizes included.

The dataflow model's count for the fused kernel is three tensors, the bytes that
``tests/kernels`` measures it loading and storing:

>>> from infrabook.dataflow import account, fully_fused
>>> from infrabook.ffn_chain import activation_chain
>>> chain = activation_chain(8, 8, "bf16")
>>> account(chain, fully_fused(chain)).traffic == 3 * 8 * 8 * 2
True
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from infrabook.kernels._checks import check_inputs
from infrabook.kernels._tiles import silu, swiglu_kernel, tile_offsets

#: Elements per program. Each program handles one tile of BLOCK consecutive elements.
BLOCK = 1024


@triton.jit
def _silu_kernel(g_ptr, t_ptr, n, BLOCK: tl.constexpr):
    offs = tile_offsets(tl.program_id(0), BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask).to(tl.float32)
    tl.store(t_ptr + offs, silu(g).to(t_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _mul_kernel(t_ptr, u_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tile_offsets(tl.program_id(0), BLOCK)
    mask = offs < n
    t = tl.load(t_ptr + offs, mask=mask).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask).to(tl.float32)
    tl.store(z_ptr + offs, (t * u).to(z_ptr.dtype.element_ty), mask=mask)


def swiglu(g: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """``silu(g) * u`` in one kernel: 2 tensors read, 1 written, math in fp32.

    ``g`` and ``u``: 2-D, same shape, contiguous, fp32, fp16 or bf16. Returns Z in their
    dtype.

    >>> from infrabook.kernels import DEVICE
    >>> g, u = torch.randn(2, 8, 8, device=DEVICE)
    >>> torch.allclose(swiglu(g, u), swiglu_reference(g, u), rtol=1e-6, atol=1e-6)
    True
    """
    check_inputs("swiglu", 2, g=g, u=u)
    z = torch.empty_like(g)
    n = g.numel()
    swiglu_kernel[(triton.cdiv(n, BLOCK),)](g, u, z, n, BLOCK=BLOCK)
    return z


def swiglu_unfused(g: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """The unfused path: a SiLU kernel writes T to memory, a multiply kernel reads it back.

    Same inputs and output as :func:`swiglu`. T is stored in the input dtype, as an
    unfused framework would, so in fp16/bf16 the result carries one extra rounding.

    >>> from infrabook.kernels import DEVICE
    >>> g, u = torch.randn(2, 8, 8, device=DEVICE)
    >>> torch.allclose(swiglu_unfused(g, u), swiglu(g, u), rtol=1e-6, atol=1e-6)
    True
    """
    check_inputs("swiglu_unfused", 2, g=g, u=u)
    t = torch.empty_like(g)
    z = torch.empty_like(g)
    n = g.numel()
    grid = (triton.cdiv(n, BLOCK),)
    _silu_kernel[grid](g, t, n, BLOCK=BLOCK)
    _mul_kernel[grid](t, u, z, n, BLOCK=BLOCK)
    return z


def swiglu_reference(g: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """PyTorch reference: ``silu(g) * u`` computed in fp32, cast once to the input dtype.

    >>> swiglu_reference(torch.tensor([[0.0, 1.0]]), torch.tensor([[5.0, 2.0]]))
    tensor([[0.0000, 1.4621]])
    """
    return (torch.nn.functional.silu(g.float()) * u.float()).to(g.dtype)
