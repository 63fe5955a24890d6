"""Device code shared by the kernels, so that no op imports another op's privates.

The whole per-tile kernel is here too because two ops launch it: ``swiglu`` with its
default tile and ``swiglu_per_tile`` with any tile size, so the per-tile and persistent
launches run the same tile body and their results can be compared bit for bit.
"""

import triton
import triton.language as tl


@triton.jit
def silu(x):
    # silu(x) = x * sigmoid(x) written with exp(-|x|) <= 1, so no inf is ever formed: on a
    # GPU exp(100) = inf would still give the right 0, but the interpreter's numpy warns
    # on the overflow, and the select costs nothing in a memory-bound kernel.
    e = tl.exp(-tl.abs(x))
    return x * tl.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


@triton.jit
def tile_offsets(tile, BLOCK: tl.constexpr):
    # int64 so that tensors past 2**31 elements do not wrap the offset; tl.cast, not .to,
    # because in the interpreter a loop index is a plain Python int.
    return tl.cast(tile, tl.int64) * BLOCK + tl.arange(0, BLOCK)


@triton.jit
def swiglu_tile(g_ptr, u_ptr, z_ptr, offs, n):
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask).to(tl.float32)
    tl.store(z_ptr + offs, (silu(g) * u).to(z_ptr.dtype.element_ty), mask=mask)


@triton.jit
def swiglu_kernel(g_ptr, u_ptr, z_ptr, n, BLOCK: tl.constexpr):
    swiglu_tile(g_ptr, u_ptr, z_ptr, tile_offsets(tl.program_id(0), BLOCK), n)


@triton.jit
def _dot(a, b, acc, WIDEN: tl.constexpr):
    if WIDEN:
        # Triton 3.9's interpreter multiplies bf16 operands as their raw 16-bit patterns.
        # Widening to fp32 is exact, and exact products summed in fp32 are what the GPU's
        # bf16 tensor-core dot computes, so the numerics match the compiled kernel.
        a = a.to(tl.float32)
        b = b.to(tl.float32)
    # ieee: fp32 inputs would otherwise be multiplied in tf32 on the GPU.
    return tl.dot(a, b, acc, input_precision="ieee")
