"""FlashAttention's forward pass: softmax(Q K^T / sqrt(d)) V without materialising S or P.

Each program owns BLOCK_M query rows of one (batch, head) and streams K and V through in
tiles of BLOCK_N rows, keeping a running row max m, a running sum l and an fp32
accumulator (the online softmax): when a new tile raises the max, the old sum and
accumulator are rescaled by exp(m_old - m_new). Only Q, K, V are read and O (plus the
log-sum-exp m + log l) written; K and V are read once per query tile, which is why a
larger BLOCK_M means less traffic.

Head dims that are not a power of two (80, 96, ...) are padded to the next one in
registers with masked loads, so the padding is never read from or written to memory.

On a machine without CUDA the kernel runs in Triton's interpreter (``TRITON_INTERPRET=1``,
which :mod:`infrabook.kernels` sets before the kernels are decorated); with CUDA it
compiles natively.
"""

from __future__ import annotations

import math

import torch
import triton
import triton.language as tl

from infrabook.kernels._checks import INTERPRETED, check_block, check_inputs

#: Query rows per program: K and V are read once per tile of BLOCK_M queries.
BLOCK_M = 64
#: Key/value rows per step of the inner loop: S and P exist only as BLOCK_M x BLOCK_N tiles.
BLOCK_N = 64
#: Supported head dims (inclusive); 16 is the smallest operand ``tl.dot`` takes.
MIN_HEAD_DIM, MAX_HEAD_DIM = 16, 128
# CUDA caps a grid's axes 1 and 2 at 65535 programs; axis 1 here is batch * heads.
_MAX_GRID_AXIS_1 = 65535


@triton.jit
def _dot(a, b, WIDEN: tl.constexpr):
    if WIDEN:
        # Triton 3.9's interpreter multiplies bf16 operands as their raw 16-bit patterns.
        # Widening to fp32 is exact, and exact products summed in fp32 are what the GPU's
        # bf16 tensor-core dot computes, so the numerics match the compiled kernel.
        a = a.to(tl.float32)
        b = b.to(tl.float32)
    # ieee: fp32 inputs would otherwise be multiplied in tf32 on the GPU.
    return tl.dot(a, b, input_precision="ieee")


@triton.jit
def _flash_attention_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    lse_ptr,
    seq_len,
    head_dim,
    sm_scale,
    CAUSAL: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_D: tl.constexpr,
    WIDEN: tl.constexpr,
):
    start_m = tl.program_id(0) * BLOCK_M
    head = tl.program_id(1).to(tl.int64)
    base = head * seq_len * head_dim
    rows = start_m + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, BLOCK_D)
    row_ok = rows < seq_len
    dim_ok = dims < head_dim
    q_mask = row_ok[:, None] & dim_ok[None, :]
    q = tl.load(q_ptr + base + rows[:, None] * head_dim + dims[None, :], mask=q_mask, other=0.0)

    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l = tl.zeros([BLOCK_M], tl.float32)  # noqa: E741 (the paper's name)
    acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)
    # Causal: key tiles wholly after this query tile's last row contribute nothing.
    end = tl.minimum(seq_len, start_m + BLOCK_M) if CAUSAL else seq_len
    for start_n in range(0, end, BLOCK_N):
        cols = start_n + tl.arange(0, BLOCK_N)
        col_ok = cols < seq_len
        kv_offs = base + cols[:, None] * head_dim + dims[None, :]
        kv_mask = col_ok[:, None] & dim_ok[None, :]
        k = tl.load(k_ptr + kv_offs, mask=kv_mask, other=0.0)
        s = _dot(q, tl.trans(k), WIDEN) * sm_scale
        keep = col_ok[None, :]
        if CAUSAL:
            keep = keep & (cols[None, :] <= rows[:, None])
        s = tl.where(keep, s, float("-inf"))
        # Key 0 is in the first tile and visible to every row, so m is finite from the
        # first step on and exp(m - m_new) never sees -inf - -inf.
        m_new = tl.maximum(m, tl.max(s, axis=1))
        alpha = tl.exp(m - m_new)
        p = tl.exp(s - m_new[:, None])
        l = l * alpha + tl.sum(p, axis=1)  # noqa: E741
        v = tl.load(v_ptr + kv_offs, mask=kv_mask, other=0.0)
        acc = acc * alpha[:, None] + _dot(p.to(v.dtype), v, WIDEN)
        m = m_new

    o = acc / l[:, None]
    tl.store(
        o_ptr + base + rows[:, None] * head_dim + dims[None, :],
        o.to(o_ptr.dtype.element_ty),
        mask=q_mask,
    )
    tl.store(lse_ptr + head * seq_len + rows, m + tl.log(l), mask=row_ok)


def flash_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    causal: bool = False,
    return_lse: bool = False,
    *,
    block_m: int = BLOCK_M,
    block_n: int = BLOCK_N,
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
    """Attention forward pass with the online softmax, scale ``1 / sqrt(head_dim)``.

    ``q``, ``k``, ``v``: (batch, heads, seq_len, head_dim), same shape, contiguous,
    fp32/fp16/bf16, head_dim from 16 to 128, any seq_len, batch * heads at most 65535.
    ``causal``: query i sees keys 0..i. ``block_m``, ``block_n``: tile sizes, powers of two
    from 16 to 128.

    Returns O in the input dtype, or ``(O, lse)`` with ``return_lse``: the fp32 natural
    log-sum-exp of each row of scaled scores, shape (batch, heads, seq_len).

    >>> from infrabook.kernels import DEVICE
    >>> q, k, v = torch.randn(3, 1, 1, 8, 16, device=DEVICE)
    >>> torch.allclose(flash_attention(q, k, v), attention_reference(q, k, v), atol=1e-5)
    True
    """
    check_inputs("flash_attention", 4, q=q, k=k, v=v)
    batch, heads, seq_len, head_dim = q.shape
    if not MIN_HEAD_DIM <= head_dim <= MAX_HEAD_DIM:
        raise ValueError(
            f"flash_attention: head_dim must be from {MIN_HEAD_DIM} to {MAX_HEAD_DIM}, "
            f"got {head_dim}"
        )
    for name, flag in (("causal", causal), ("return_lse", return_lse)):
        if not isinstance(flag, bool):
            raise TypeError(f"flash_attention: {name} must be a bool, got {flag!r}")
    if batch * heads > _MAX_GRID_AXIS_1:
        raise ValueError(
            f"flash_attention: batch * heads must be at most {_MAX_GRID_AXIS_1} (CUDA's limit "
            f"on grid axis 1), got {batch} * {heads} = {batch * heads}"
        )
    check_block("flash_attention: block_m", block_m, 16, 128)
    check_block("flash_attention: block_n", block_n, 16, 128)
    o = torch.empty_like(q)
    lse = torch.empty((batch, heads, seq_len), dtype=torch.float32, device=q.device)
    _flash_attention_kernel[(triton.cdiv(seq_len, block_m), batch * heads)](
        q,
        k,
        v,
        o,
        lse,
        seq_len,
        head_dim,
        1.0 / math.sqrt(head_dim),
        CAUSAL=causal,
        BLOCK_M=block_m,
        BLOCK_N=block_n,
        BLOCK_D=triton.next_power_of_2(head_dim),
        WIDEN=INTERPRETED and q.dtype == torch.bfloat16,
        # Two stages of K/V prefetch fit shared memory even for fp32 at head_dim 128.
        num_stages=2,
    )
    return (o, lse) if return_lse else o


def attention_reference(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False
) -> torch.Tensor:
    """The standard implementation: S = Q K^T / sqrt(d) and P = softmax(S) materialised in
    fp32 (fp64 for fp64 inputs, which makes it a high-precision oracle), O = P V, cast to the
    input dtype.

    >>> q = k = v = torch.eye(2).reshape(1, 1, 2, 2)
    >>> attention_reference(q, k, v, causal=True)[0, 0]
    tensor([[1.0000, 0.0000],
            [0.3302, 0.6698]])
    """
    compute = torch.promote_types(q.dtype, torch.float32)
    s = q.to(compute) @ k.to(compute).transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        n = q.shape[-2]
        hidden = torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1)
        s = s.masked_fill(hidden, float("-inf"))
    return (torch.softmax(s, dim=-1) @ v.to(compute)).to(q.dtype)
