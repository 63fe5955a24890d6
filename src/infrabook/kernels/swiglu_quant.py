"""SwiGLU fused with quantisation to one byte: ``q, scale = quant(silu(g) * u)``.

Symmetric per-row quantisation: ``scale = max|z| / QMAX`` for each row (QMAX = 127 for
int8, 448 for fp8 e4m3), ``q = round(z / scale)``, so ``q * scale`` is within half a step
of z. The article's section 2.1 step: Z never reaches memory, only the 1-byte Q and one
fp32 scale per row do.

The scale needs the whole row's max before any element can be quantised, so each program
owns one row. When the row fits in one block (``cols <= block_cols``) it is loaded once
and kept in registers: G and U are read exactly once, as the traffic model assumes. When
it does not fit, the program walks the row twice, a first pass for the max and a second
that recomputes ``silu(g) * u`` and quantises. The kernel then issues loads for G and U
twice (twice the model's ideal reads), yet Z still never touches memory. Storing Z and
reading it back instead would move just as many bytes (Z written and read in the input
dtype is two tensors' worth, the same as reading G and U again), would need a scratch
buffer, and would round Z to that dtype before quantising it; and the re-read is of a
row the same program has just read, which the GPU's L2 cache usually still holds.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from infrabook.kernels._checks import INTERPRETED, check_block, check_inputs
from infrabook.kernels._tiles import silu

#: Widest row kept in registers in one pass (the article's 12288 columns fit).
MAX_BLOCK_COLS = 16384

_QMAX = {torch.int8: 127.0, torch.float8_e4m3fn: 448.0}

# A row whose max |z| is below 2 * QMAX times fp32's smallest normal (3e-36 for int8, 1e-35
# for fp8) is stored as a zero row. Compiled GPU code may flush subnormal fp32 to zero
# (Triton's CUDA backend does in libdevice calls, its AMD backend in exp2) where the
# interpreter keeps them, so a row whose scale max / QMAX, or whose max itself, is
# subnormal would quantise differently per backend: zeroed on one, +-QMAX on another.
# Zeroing those rows explicitly gives every backend the same q and scale, at an absolute
# error below the bound. The factor 2 keeps the scale of every other row at least twice the
# smallest normal, and makes the int8 q of any subnormal z in a kept row 0 whether or not
# the z was flushed (|z| / max * 127 < 0.5).
_ZERO_BELOW = {dtype: 2 * qmax * torch.finfo(torch.float32).tiny for dtype, qmax in _QMAX.items()}


@triton.jit
def _z(g_ptr, u_ptr, offs, mask):
    # Masked lanes load 0, so they add silu(0) * 0 = 0 to the row max.
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    return silu(g) * u


@triton.jit
def _row_max(abs_z, ZERO_BELOW: tl.constexpr):
    amax = tl.max(abs_z, axis=0)
    return tl.where(amax < ZERO_BELOW, 0.0, amax)


@triton.jit
def _store_q(q_ptr, offs, mask, z, amax, QMAX: tl.constexpr):
    # A zero row (amax 0) divides by 1 instead of 0, so its q is 0, not NaN.
    x = z / tl.where(amax > 0, amax, 1.0) * QMAX
    if q_ptr.dtype.element_ty == tl.int8:
        # The float-to-int cast truncates; adding +-0.5 first rounds half away from zero.
        x = x + tl.where(x >= 0, 0.5, -0.5)
    tl.store(q_ptr + offs, x.to(q_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _swiglu_quant_kernel(
    g_ptr,
    u_ptr,
    q_ptr,
    scale_ptr,
    cols,
    QMAX: tl.constexpr,
    ZERO_BELOW: tl.constexpr,
    BLOCK: tl.constexpr,
    ONE_PASS: tl.constexpr,
):
    row_start = tl.program_id(0).to(tl.int64) * cols
    cols_in_block = tl.arange(0, BLOCK)
    if ONE_PASS:
        mask = cols_in_block < cols
        z = _z(g_ptr, u_ptr, row_start + cols_in_block, mask)
        amax = _row_max(tl.abs(z), ZERO_BELOW)
        _store_q(q_ptr, row_start + cols_in_block, mask, z, amax, QMAX)
    else:
        amax = tl.zeros([BLOCK], tl.float32)
        for start in range(0, cols, BLOCK):
            mask = start + cols_in_block < cols
            z = _z(g_ptr, u_ptr, row_start + start + cols_in_block, mask)
            amax = tl.maximum(amax, tl.abs(z))
        amax = _row_max(amax, ZERO_BELOW)
        for start in range(0, cols, BLOCK):
            mask = start + cols_in_block < cols
            z = _z(g_ptr, u_ptr, row_start + start + cols_in_block, mask)
            _store_q(q_ptr, row_start + start + cols_in_block, mask, z, amax, QMAX)
    tl.store(scale_ptr + tl.program_id(0), amax / QMAX)


def _fp8_unsupported(device: torch.device) -> str | None:
    if INTERPRETED:
        return (
            "Triton's interpreter rounds fp32 to fp8e4nv wrongly when the rounding carries "
            "into the exponent (31.4 becomes 16, not 32), so quantised values would be off "
            "by up to 2x; fp8 output needs a CUDA GPU"
        )
    capability = torch.cuda.get_device_capability(device)
    if capability < (8, 9):
        return (
            f"the GPU has compute capability {capability[0]}.{capability[1]}; "
            "converting to fp8 e4m3 in a Triton kernel needs 8.9 or newer (Ada, Hopper)"
        )
    return None


def swiglu_quant(
    g: torch.Tensor,
    u: torch.Tensor,
    *,
    out_dtype: torch.dtype = torch.int8,
    block_cols: int | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """SiLU, multiply and per-row symmetric quantisation in one kernel.

    ``g``, ``u``: 2-D, same shape, contiguous, fp32/fp16/bf16. ``out_dtype``: ``torch.int8``
    or ``torch.float8_e4m3fn`` (GPU with compute capability 8.9+ only). ``block_cols``:
    columns per block, a power of two from 16 to :data:`MAX_BLOCK_COLS`; by default the
    smallest that holds a whole row (one pass), capped at :data:`MAX_BLOCK_COLS`.

    Returns ``(q, scale)``: q of shape ``g.shape`` in ``out_dtype`` and fp32 ``scale`` of
    shape ``(rows,)``, with ``q.float() * scale[:, None]`` approximating ``silu(g) * u``.
    A row whose max |z| is below ``2 * QMAX`` times fp32's smallest normal (about 3e-36 for
    int8) counts as a zero row: scale 0 and q 0, on every backend.

    >>> from infrabook.kernels import DEVICE
    >>> g, u = torch.randn(2, 8, 8, device=DEVICE)
    >>> q, scale = swiglu_quant(g, u)
    >>> z = torch.nn.functional.silu(g) * u
    >>> q.dtype, bool(((q.float() * scale[:, None] - z).abs() <= scale[:, None] / 2 + 1e-6).all())
    (torch.int8, True)
    """
    check_inputs("swiglu_quant", 2, g=g, u=u)
    if out_dtype not in _QMAX:
        raise TypeError(
            f"swiglu_quant: out_dtype must be torch.int8 or torch.float8_e4m3fn, got {out_dtype}"
        )
    if out_dtype == torch.float8_e4m3fn and (reason := _fp8_unsupported(g.device)):
        raise RuntimeError(f"swiglu_quant: fp8 e4m3 output is not available here: {reason}")
    rows, cols = g.shape
    if block_cols is None:
        block_cols = min(triton.next_power_of_2(max(cols, 16)), MAX_BLOCK_COLS)
    check_block("swiglu_quant: block_cols", block_cols, 16, MAX_BLOCK_COLS)
    q = torch.empty(g.shape, dtype=out_dtype, device=g.device)
    scale = torch.empty(rows, dtype=torch.float32, device=g.device)
    _swiglu_quant_kernel[(rows,)](
        g,
        u,
        q,
        scale,
        cols,
        QMAX=_QMAX[out_dtype],
        ZERO_BELOW=_ZERO_BELOW[out_dtype],
        BLOCK=block_cols,
        ONE_PASS=cols <= block_cols,
        # About 32 fp32 values of a row per thread, however wide the block.
        num_warps=max(4, min(16, block_cols // 1024)),
    )
    return q, scale


def swiglu_quant_reference(
    g: torch.Tensor, u: torch.Tensor, *, out_dtype: torch.dtype = torch.int8
) -> tuple[torch.Tensor, torch.Tensor]:
    """PyTorch reference for :func:`swiglu_quant`: the same formulas, Z materialised in fp32.

    >>> q, scale = swiglu_quant_reference(torch.tensor([[1.0, -2.0]]), torch.ones(1, 2))
    >>> q, scale
    (tensor([[127, -41]], dtype=torch.int8), tensor([0.0058]))
    """
    if out_dtype not in _QMAX:
        raise TypeError(f"out_dtype must be torch.int8 or torch.float8_e4m3fn, got {out_dtype}")
    qmax = _QMAX[out_dtype]
    z = torch.nn.functional.silu(g.float()) * u.float()
    amax = z.abs().amax(dim=1, keepdim=True)
    amax = torch.where(amax < _ZERO_BELOW[out_dtype], 0.0, amax)
    x = z / torch.where(amax > 0, amax, 1.0) * qmax
    if out_dtype == torch.int8:
        x = x + torch.where(x >= 0, 0.5, -0.5)
    return x.to(out_dtype), (amax / qmax).squeeze(1)
