"""FlashAttention's forward pass: softmax(Q K^T / sqrt(d)) V without materialising S or P.

Each program owns BLOCK_M query rows of one (batch, head) and streams K and V through in
tiles of BLOCK_N rows, keeping a running row max m, a running sum l and an fp32
accumulator (the online softmax): when a tile raises the max, the old sum and accumulator
are rescaled by r = e^(m_old - m_new). Only Q, K, V are read and O (plus the
log-sum-exp m + log l) written; K and V are read once per query tile, which is why a
larger BLOCK_M means less traffic.

Three idioms from Triton's fused-attention tutorial keep the compiled loop short:

* scores are kept in base 2. log2(e) is folded into the softmax scale on the host, so
  every exponential is an ``exp2``, the one the GPU's special-function unit computes
  (``exp`` would cost an extra multiply per score); r = 2^(m_old - m_new) in those units.
* the key loop is split in two. Tiles that every query row of the program sees in full
  run with no mask on the scores and no row check on the K and V loads; only the tiles on
  the diagonal (causal) or past the end of the sequence pay for the ``where``. In a long
  causal sequence that is one or two tiles of the many each program walks.
* ``P V`` is added to the accumulator by the dot itself (``tl.dot(p, v, acc)``), which the
  tensor cores do in place instead of a separate add.

The device code, one query tile and its key loop, is in :mod:`infrabook.kernels._attention`:
this kernel is rung 0 of the attention ladder (:mod:`infrabook.kernels.attention_ladder`),
whose rungs run the same code with their flags on.

Head dims that are not a power of two (80, 96, ...) are padded to the next one in
registers with masked loads, so the padding is never read from or written to memory.

Compiled for a GPU, the tile sizes, warps and pipeline stages come from an autotuner
choosing among :data:`GPU_TILES` for each sequence length, head dim, causal flag and
dtype. The interpreter has nothing worth timing, so it runs one fixed config,
:data:`BLOCK_M` x :data:`BLOCK_N`, the one the byte meter checks against the traffic model.
"""

from __future__ import annotations

import math

import torch
import triton
import triton.language as tl

from infrabook.kernels._attention import query_tile
from infrabook.kernels._checks import INTERPRETED, check_block, check_inputs

#: Query rows per program when the tiles are not autotuned: K and V are read once per tile
#: of BLOCK_M queries.
BLOCK_M = 64
#: Key/value rows per step of the inner loop when not autotuned: S and P exist only as
#: BLOCK_M x BLOCK_N tiles.
BLOCK_N = 64
# Warps and stages for fixed tiles: two stages of K/V prefetch at 64 x 64 fit shared memory
# even for fp32 at head_dim 128 (the interpreter ignores both).
_FIXED_WARPS, _FIXED_STAGES = 4, 2
#: The autotuner's choices on a GPU, as (BLOCK_M, BLOCK_N, num_warps, num_stages), for
#: fp16 and bf16 (fp32 keeps the first). The fixed config is among them; the others take
#: 128 query rows (half the K/V traffic) with 8 warps, since with 4 a 128-row tile spills
#: registers at head_dim 128, and 2 to 4 stages of K/V prefetch. Compiled for sm_90 in
#: bf16 at head_dim 128, none of them spills and the largest takes 160 KiB of shared
#: memory; a config that overflows a smaller GPU's fails to compile and is skipped.
GPU_TILES = (
    (BLOCK_M, BLOCK_N, _FIXED_WARPS, _FIXED_STAGES),
    (128, 64, 8, 3),
    (128, 64, 8, 4),
    (128, 128, 8, 2),
)
#: Supported head dims (inclusive); 16 is the smallest operand ``tl.dot`` takes.
MIN_HEAD_DIM, MAX_HEAD_DIM = 16, 128
# CUDA caps a grid's axes 1 and 2 at 65535 programs; axis 1 here is batch * heads.
_MAX_GRID_AXIS_1 = 65535


@triton.jit
def _flash_attention_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    lse_ptr,
    seq_len,
    qk_scale,
    CAUSAL: tl.constexpr,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_D: tl.constexpr,
    WIDEN: tl.constexpr,
):
    # One program per query tile. The attention ladder's flags (TMA, WARP_SPECIALIZE) are
    # off: this is its rung 0.
    head = tl.program_id(1)
    start_m = tl.program_id(0) * BLOCK_M
    query_tile(
        q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, head, start_m, seq_len, qk_scale,
        CAUSAL, HEAD_DIM, BLOCK_M, BLOCK_N, BLOCK_D, WIDEN, False, False,
    )  # fmt: skip


def fitting_tiles(configs: list[triton.Config], nargs: dict, **_: object) -> list[triton.Config]:
    """The autotuner's configs worth timing for these arguments (its early prune)."""
    # Rows of a query tile past seq_len are computed and thrown away, so a tile taller than
    # the sequence is not worth compiling and timing. fp32 multiplies on the CUDA cores
    # (input_precision="ieee"), where 64 x 64 already spills registers on sm_90 and a larger
    # tile only spills more. The first config is always kept.
    if nargs["q_ptr"].dtype == torch.float32:
        return configs[:1]
    return [configs[0]] + [c for c in configs[1:] if c.kwargs["BLOCK_M"] <= nargs["seq_len"]]


_flash_attention_tuned = triton.autotune(
    [
        triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_warps=warps, num_stages=stages)
        for bm, bn, warps, stages in GPU_TILES
    ],
    key=["seq_len", "HEAD_DIM", "CAUSAL"],
    prune_configs_by={"early_config_prune": fitting_tiles},
)(_flash_attention_kernel)


def check_attention_inputs(
    op: str, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: object, return_lse: object
) -> tuple[int, int, int, int]:
    """Raise unless ``q``, ``k``, ``v`` and the flags are what an attention kernel takes;
    return ``(batch, heads, seq_len, head_dim)``. Messages start with ``op``.

    >>> check_attention_inputs("op", *torch.zeros(3, 1, 2, 8, 8), causal=True, return_lse=False)
    Traceback (most recent call last):
    ...
    ValueError: op: head_dim must be from 16 to 128, got 8
    """
    check_inputs(op, 4, q=q, k=k, v=v)
    batch, heads, seq_len, head_dim = q.shape
    if not MIN_HEAD_DIM <= head_dim <= MAX_HEAD_DIM:
        raise ValueError(
            f"{op}: head_dim must be from {MIN_HEAD_DIM} to {MAX_HEAD_DIM}, got {head_dim}"
        )
    for name, flag in (("causal", causal), ("return_lse", return_lse)):
        if not isinstance(flag, bool):
            raise TypeError(f"{op}: {name} must be a bool, got {flag!r}")
    if batch * heads > _MAX_GRID_AXIS_1:
        raise ValueError(
            f"{op}: batch * heads must be at most {_MAX_GRID_AXIS_1} (CUDA's limit "
            f"on grid axis 1), got {batch} * {heads} = {batch * heads}"
        )
    return batch, heads, seq_len, head_dim


def flash_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    causal: bool = False,
    return_lse: bool = False,
    *,
    block_m: int | None = None,
    block_n: int | None = None,
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
    """Attention forward pass with the online softmax, scale ``1 / sqrt(head_dim)``.

    ``q``, ``k``, ``v``: (batch, heads, seq_len, head_dim), same shape, contiguous,
    fp32/fp16/bf16, head_dim from 16 to 128, any seq_len, batch * heads at most 65535.
    ``causal``: query i sees keys 0..i. ``block_m``, ``block_n``: tile sizes, powers of two
    from 16 to 128. Left out, both are autotuned on a GPU and are BLOCK_M x BLOCK_N in the
    interpreter; giving either fixes the tiles (the other one at its default).

    Returns O in the input dtype, or ``(O, lse)`` with ``return_lse``: the fp32 natural
    log-sum-exp of each row of scaled scores, shape (batch, heads, seq_len).

    >>> from infrabook.kernels import DEVICE
    >>> q, k, v = torch.randn(3, 1, 1, 8, 16, device=DEVICE)
    >>> torch.allclose(flash_attention(q, k, v), attention_reference(q, k, v), atol=1e-5)
    True
    """
    batch, heads, seq_len, head_dim = check_attention_inputs(
        "flash_attention", q, k, v, causal, return_lse
    )
    o = torch.empty_like(q)
    lse = torch.empty((batch, heads, seq_len), dtype=torch.float32, device=q.device)
    args = (q, k, v, o, lse, seq_len, math.log2(math.e) / math.sqrt(head_dim))
    consts = {
        "CAUSAL": causal,
        "HEAD_DIM": head_dim,
        "BLOCK_D": triton.next_power_of_2(head_dim),
        "WIDEN": INTERPRETED and q.dtype == torch.bfloat16,
    }
    if block_m is None and block_n is None and not INTERPRETED:

        def grid(meta: dict) -> tuple[int, int]:
            return triton.cdiv(seq_len, meta["BLOCK_M"]), batch * heads

        _flash_attention_tuned[grid](*args, **consts)
    else:
        block_m = BLOCK_M if block_m is None else block_m
        block_n = BLOCK_N if block_n is None else block_n
        check_block("flash_attention: block_m", block_m, 16, 128)
        check_block("flash_attention: block_n", block_n, 16, 128)
        _flash_attention_kernel[(triton.cdiv(seq_len, block_m), batch * heads)](
            *args,
            **consts,
            BLOCK_M=block_m,
            BLOCK_N=block_n,
            num_warps=_FIXED_WARPS,
            num_stages=_FIXED_STAGES,
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
