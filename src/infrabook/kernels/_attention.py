"""The device code of the attention forward pass, shared by the book's kernel and the ladder.

:func:`query_tile` is one program's work, one query tile of one (batch, head), and
:func:`attention_inner` its loop over key tiles. The book's kernel
(:mod:`infrabook.kernels.flash_attention`, rung 0) calls them with the ladder's flags off;
the ladder's kernel (:mod:`infrabook.kernels.attention_ladder`) with ``TMA`` (tiles through
tensor descriptors) and ``WARP_SPECIALIZE`` (the key loop split into producer and consumer
warp groups) on from rungs 1 and 2. Every flag is a ``tl.constexpr``: a branch that is off is
not compiled at all, so rung 0 compiles to the code it had before the ladder shared it.
"""

import math

import triton
import triton.language as tl

from infrabook.kernels._tiles import _dot

# Scores are in base 2 inside the kernel; the LSE goes out in natural log units.
LN_2 = tl.constexpr(math.log(2))


@triton.jit
def attention_inner(
    acc,
    m,
    l,  # noqa: E741 (the paper's name)
    q,
    k_src,
    v_src,
    head,
    rows,
    seq_len,
    qk_scale,
    lo,
    hi,
    MASKED: tl.constexpr,
    CAUSAL: tl.constexpr,
    HEAD_DIM: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_D: tl.constexpr,
    WIDEN: tl.constexpr,
    TMA: tl.constexpr,
    WARP_SPECIALIZE: tl.constexpr,
):
    # One head's key tiles lo, lo + BLOCK_N, ... below hi, folded into (acc, m, l). m is
    # in base-2 units. MASKED tiles may reach past seq_len or (causal) past a query row.
    # k_src and v_src are this head's K and V pointers, or under TMA the descriptors of all
    # heads' rows (head picks the rows).
    dims = tl.arange(0, BLOCK_D)
    for start_n in tl.range(lo, hi, BLOCK_N, warp_specialize=WARP_SPECIALIZE):
        cols = start_n + tl.arange(0, BLOCK_N)
        offs = cols[:, None] * HEAD_DIM + dims[None, :]
        kv_mask = dims[None, :] < HEAD_DIM
        if MASKED:
            kv_mask = kv_mask & (cols[:, None] < seq_len)
        if TMA:
            k = k_src.load([head * seq_len + start_n, 0])
        else:
            k = tl.load(k_src + offs, mask=kv_mask, other=0.0)
        s = _dot(q, tl.trans(k), None, WIDEN) * qk_scale
        if MASKED:
            keep = cols[None, :] < seq_len
            if CAUSAL:
                keep = keep & (cols[None, :] <= rows[:, None])
            s = tl.where(keep, s, float("-inf"))
        # The first tile holds key 0, which every row sees, so m is finite from the first
        # step on and 2^(m - m_new) never meets -inf - -inf.
        m_new = tl.maximum(m, tl.max(s, axis=1))
        r = tl.exp2(m - m_new)
        p = tl.exp2(s - m_new[:, None])
        l = l * r + tl.sum(p, axis=1)  # noqa: E741
        if TMA:
            v = v_src.load([head * seq_len + start_n, 0])
        else:
            v = tl.load(v_src + offs, mask=kv_mask, other=0.0)
        acc = _dot(p.to(v.dtype), v, acc * r[:, None], WIDEN)
        m = m_new
    return acc, m, l


@triton.jit
def query_tile(
    q_src,
    k_src,
    v_src,
    o_src,
    lse_ptr,
    head,
    start_m,
    seq_len,
    qk_scale,
    CAUSAL: tl.constexpr,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_D: tl.constexpr,
    WIDEN: tl.constexpr,
    TMA: tl.constexpr,
    WARP_SPECIALIZE: tl.constexpr,
):
    # The query rows start_m .. start_m + BLOCK_M of one (batch, head): Q read once, the key
    # loop, O and the LSE written. The sources are pointers, or descriptors under TMA.
    base = head.to(tl.int64) * seq_len * HEAD_DIM
    rows = start_m + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, BLOCK_D)
    q_offs = base + rows[:, None] * HEAD_DIM + dims[None, :]
    q_mask = (rows[:, None] < seq_len) & (dims[None, :] < HEAD_DIM)
    if TMA:
        q = q_src.load([head * seq_len + start_m, 0])
        k_head, v_head = k_src, v_src
    else:
        q = tl.load(q_src + q_offs, mask=q_mask, other=0.0)
        k_head, v_head = k_src + base, v_src + base

    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l = tl.zeros([BLOCK_M], tl.float32)  # noqa: E741 (the paper's name)
    acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)
    if CAUSAL:
        # Key tiles wholly before this query tile's first row are seen by every row;
        # tiles after its last row by none, so the loop stops there.
        lo = start_m // BLOCK_N * BLOCK_N
        hi = tl.minimum(seq_len, start_m + BLOCK_M)
    else:
        # Every whole tile is seen in full; only a partial last tile needs the mask.
        lo = seq_len // BLOCK_N * BLOCK_N
        hi = seq_len
    acc, m, l = attention_inner(  # noqa: E741
        acc, m, l, q, k_head, v_head, head, rows, seq_len, qk_scale, 0, lo,
        False, CAUSAL, HEAD_DIM, BLOCK_N, BLOCK_D, WIDEN, TMA, WARP_SPECIALIZE,
    )  # fmt: skip
    acc, m, l = attention_inner(  # noqa: E741
        acc, m, l, q, k_head, v_head, head, rows, seq_len, qk_scale, lo, hi,
        True, CAUSAL, HEAD_DIM, BLOCK_N, BLOCK_D, WIDEN, TMA, WARP_SPECIALIZE,
    )  # fmt: skip

    out = (acc / l[:, None]).to(q.dtype)
    if TMA:
        o_src.store([head, start_m, 0], out.reshape(1, BLOCK_M, BLOCK_D))
    else:
        tl.store(o_src + q_offs, out, mask=q_mask)
    lse_offs = head.to(tl.int64) * seq_len + rows
    tl.store(lse_ptr + lse_offs, (m + tl.log2(l)) * LN_2, mask=rows < seq_len)
