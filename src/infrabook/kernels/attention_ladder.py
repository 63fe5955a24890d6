"""The attention ladder: FlashAttention's forward pass, one idea added per rung.

Rung 0 is the book's kernel, :func:`infrabook.kernels.flash_attention`. Each further rung
keeps everything of the one below and adds one idea, as a compile-time flag of one kernel,
so the lines a rung changes are the lines under its flag:

1. ``TMA``: Q, K, V and O are read and written through tensor descriptors
   (``tl.make_tensor_descriptor``, built on the device). Compiled for Hopper a tile then moves
   as one bulk copy by the Tensor Memory Accelerator (``cp.async.bulk.tensor``) instead of
   per-thread loads and their address arithmetic. A descriptor is three-dimensional,
   (batch x heads, seq_len, head_dim), so a tile never crosses into the next head: rows past
   seq_len and columns past head_dim are filled with zeros by the copy, and stores past
   them are dropped.
2. ``WARP_SPECIALIZE``: the K/V loop is ``tl.range(..., warp_specialize=True)``: Triton
   gives the loads to a producer warp group and the dots and softmax to consumer groups,
   which on Hopper shows as warp-group register reallocation (``setmaxnreg``).
3. ``PERSISTENT``: one program per SM walks the (batch x heads x query tiles) in a strided
   loop, instead of one program per tile; consecutive tiles share a head, so its K and V
   stay in L2.
4. ``HEAVY_FIRST`` (causal only): query tile i walks i + 1 key tiles, so the persistent loop
   hands out each head's tiles longest first; the programs' last tiles are then short ones
   and they finish together instead of waiting on the longest.

The causal split itself (key tiles that every query row sees run without a mask, only the
diagonal ones with it) is already rung 0's, and every rung keeps it.

Every rung runs in Triton's interpreter (descriptors and ``warp_specialize`` included) and
is tested there against the float64 reference; :data:`RUNG_TILES` holds each rung's
autotuning configurations on a GPU.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass

import torch
import triton
import triton.language as tl

from infrabook.kernels._attention import query_tile
from infrabook.kernels._checks import INTERPRETED, check_block
from infrabook.kernels.flash_attention import (
    BLOCK_M,
    BLOCK_N,
    GPU_TILES,
    check_attention_inputs,
    fitting_tiles,
    flash_attention,
)


@dataclass(frozen=True)
class Rung:
    """One rung: its number, its name in code, and the idea it adds to the rung below."""

    number: int
    name: str
    idea: str


#: The rungs, bottom first.
RUNGS = (
    Rung(0, "baseline", "the book's kernel: pointer loads, one program per query tile"),
    Rung(1, "tma", "tensor descriptors for Q, K, V and O (TMA on Hopper)"),
    Rung(2, "warp_specialize", "warp specialization of the K/V loop"),
    Rung(3, "persistent", "a persistent schedule over (batch x heads x query tiles)"),
    Rung(4, "heavy_first", "causal: the persistent schedule takes the longest query tiles first"),
)

#: Each rung's autotuning configurations on a GPU, as (BLOCK_M, BLOCK_N, num_warps,
#: num_stages); the first is the one fp32 keeps (see ``fitting_tiles``). Rung 1 keeps the
#: book's table. Compiled for sm_90 by Triton 3.9 (bf16, head_dim 128), warp specialization
#: takes effect only with 4 warps and 128 query rows (with 8 warps the loop is left as it
#: was, without ``setmaxnreg``), and its K/V buffers are large: at 128 x 64 it asks for
#: 256 KiB of shared memory and spills, more than a Hopper block may have (227 KiB). So rung
#: 2 specializes at 128 x 32 (192 KiB), and rungs 3 and 4, whose persistent loop needs more
#: again (256 KiB at 128 x 32), at 128 x 16 (224 KiB); their single-stage 128 x 32 tile
#: (40 KiB, not specialized) and the 8-warp tile let the autotuner show whether
#: specialization wins at all. tests/kernels/test_attention_ladder.py compiles every tile
#: here for sm_90 and holds it within the limit and without spills.
RUNG_TILES: dict[int, tuple[tuple[int, int, int, int], ...]] = {
    0: GPU_TILES,
    1: GPU_TILES,
    2: ((128, 64, 8, 2), (128, 32, 4, 2)),
    3: ((128, 64, 8, 2), (128, 16, 4, 2), (128, 32, 4, 1)),
    4: ((128, 64, 8, 2), (128, 16, 4, 2), (128, 32, 4, 1)),
}

#: Whether this Triton has what rungs 1 and 2 need (a feature test, not a version test):
#: device-side tensor descriptors, and ``tl.range``'s ``warp_specialize``.
HAS_DESCRIPTORS = hasattr(tl, "make_tensor_descriptor")
HAS_WARP_SPECIALIZE = "warp_specialize" in inspect.signature(tl.range).parameters

# The interpreter runs programs one after another, so a few persistent programs exercise the
# strided loop (uneven shares included) as well as a GPU's worth would.
_INTERPRETED_PROGRAMS = 3
_TMA_ALIGN = 16


@triton.jit
def _descriptor(
    ptr, n_heads, seq_len, HEAD_DIM: tl.constexpr, ROWS: tl.constexpr, BLOCK_D: tl.constexpr
):
    return tl.make_tensor_descriptor(
        ptr,
        shape=[n_heads, seq_len, HEAD_DIM],
        strides=[seq_len * HEAD_DIM, HEAD_DIM, 1],
        block_shape=[1, ROWS, BLOCK_D],
    )


@triton.jit
def _ladder_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    lse_ptr,
    seq_len,
    n_heads,
    qk_scale,
    CAUSAL: tl.constexpr,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_D: tl.constexpr,
    WIDEN: tl.constexpr,
    TMA: tl.constexpr,
    WARP_SPECIALIZE: tl.constexpr,
    PERSISTENT: tl.constexpr,
    HEAVY_FIRST: tl.constexpr,
):
    if TMA:
        # Q and O as (batch x heads, seq_len, head_dim): the copy zero-fills and clips at
        # each dimension's end, so a query tile stops at its own head's last row.
        # K and V as (batch x heads x seq_len, head_dim): Triton 3.9's warp specialization
        # for Hopper fails to compile three-dimensional loads in the loop. A masked tile's
        # rows past seq_len are then the next head's (zeros after the last one); their scores
        # are masked to -inf, so their weight p is exactly 0.
        rows_all = n_heads * seq_len
        q_src = tl.make_tensor_descriptor(
            q_ptr, [rows_all, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_M, BLOCK_D]
        )
        k_src = tl.make_tensor_descriptor(
            k_ptr, [rows_all, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_N, BLOCK_D]
        )
        v_src = tl.make_tensor_descriptor(
            v_ptr, [rows_all, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_N, BLOCK_D]
        )
        o_src = _descriptor(o_ptr, n_heads, seq_len, HEAD_DIM, BLOCK_M, BLOCK_D)
    else:
        q_src, k_src, v_src, o_src = q_ptr, k_ptr, v_ptr, o_ptr
    if PERSISTENT:
        # Tile t is query tile t % m_tiles of head t // m_tiles: programs that run side by
        # side work on the same head.
        m_tiles = tl.cdiv(seq_len, BLOCK_M)
        for tile in tl.range(tl.program_id(0), n_heads * m_tiles, tl.num_programs(0)):
            m_index = tile % m_tiles
            if HEAVY_FIRST and CAUSAL:
                m_index = m_tiles - 1 - m_index
            query_tile(
                q_src, k_src, v_src, o_src, lse_ptr, tile // m_tiles, m_index * BLOCK_M,
                seq_len, qk_scale, CAUSAL, HEAD_DIM, BLOCK_M, BLOCK_N, BLOCK_D, WIDEN, TMA,
                WARP_SPECIALIZE,
            )  # fmt: skip
    else:
        query_tile(
            q_src, k_src, v_src, o_src, lse_ptr, tl.program_id(1), tl.program_id(0) * BLOCK_M,
            seq_len, qk_scale, CAUSAL, HEAD_DIM, BLOCK_M, BLOCK_N, BLOCK_D, WIDEN, TMA,
            WARP_SPECIALIZE,
        )  # fmt: skip


def rung_flags(rung: int) -> dict[str, bool]:
    """The kernel's flags for ``rung`` (1 and up): each rung keeps the ones below it.

    >>> rung_flags(2)
    {'TMA': True, 'WARP_SPECIALIZE': True, 'PERSISTENT': False, 'HEAVY_FIRST': False}
    """
    return {
        "TMA": rung >= 1,
        "WARP_SPECIALIZE": rung >= 2,
        "PERSISTENT": rung >= 3,
        "HEAVY_FIRST": rung >= 4,
    }


_tuned = {
    rung: triton.autotune(
        [
            triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_warps=warps, num_stages=stages)
            for bm, bn, warps, stages in RUNG_TILES[rung]
        ],
        key=["seq_len", "HEAD_DIM", "CAUSAL"],
        prune_configs_by={"early_config_prune": fitting_tiles},
    )(_ladder_kernel)
    for rung in RUNG_TILES
    if rung > 0
}


def tuned_tile(rung: int) -> tuple[int, int, int, int] | None:
    """The tile the autotuner last chose for ``rung`` on a GPU, as (BLOCK_M, BLOCK_N,
    num_warps, num_stages); None before any autotuned call (and always in the interpreter)."""
    if rung == 0:
        from infrabook.kernels.flash_attention import _flash_attention_tuned as tuner
    else:
        tuner = _tuned[rung]
    best = getattr(tuner, "best_config", None)
    if best is None:
        return None
    return best.kwargs["BLOCK_M"], best.kwargs["BLOCK_N"], best.num_warps, best.num_stages


def _check_rung(rung: object) -> int:
    """``rung`` if it is a rung's number that this Triton can run."""
    if not isinstance(rung, int) or isinstance(rung, bool) or rung not in {r.number for r in RUNGS}:
        numbers = ", ".join(str(r.number) for r in RUNGS)
        raise ValueError(f"ladder_attention: rung must be one of {numbers}, got {rung!r}")
    if rung >= 1 and not HAS_DESCRIPTORS:
        raise RuntimeError(
            f"ladder_attention: rung {rung} needs tl.make_tensor_descriptor, which triton "
            f"{triton.__version__} does not have"
        )
    if rung >= 2 and not HAS_WARP_SPECIALIZE:
        raise RuntimeError(
            f"ladder_attention: rung {rung} needs tl.range(..., warp_specialize=...), which "
            f"triton {triton.__version__} does not have"
        )
    return rung


def _device_scratch(size: int, alignment: int, stream: object) -> torch.Tensor:
    """Global scratch memory that Triton asks for to write device-side descriptors into."""
    return torch.empty(size, dtype=torch.int8, device="cuda")


def ladder_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    causal: bool = False,
    rung: int = len(RUNGS) - 1,
    *,
    block_m: int | None = None,
    block_n: int | None = None,
) -> torch.Tensor:
    """Attention forward pass, ``softmax(Q K^T / sqrt(d)) V``, with the kernel of ``rung``
    (see :data:`RUNGS`); inputs and tiles as :func:`flash_attention`, which is rung 0.

    Left out, the tiles are autotuned among ``RUNG_TILES[rung]`` on a GPU and are
    BLOCK_M x BLOCK_N in the interpreter. The persistent rung runs one program per SM
    (three in the interpreter), or one per tile when there are fewer tiles.

    >>> from infrabook.kernels import DEVICE, attention_reference
    >>> q, k, v = torch.randn(3, 1, 2, 40, 16, device=DEVICE)
    >>> o = ladder_attention(q, k, v, causal=True, rung=3)
    >>> torch.allclose(o, attention_reference(q, k, v, causal=True), atol=1e-5)
    True
    """
    rung = _check_rung(rung)
    if rung == 0:
        out = flash_attention(q, k, v, causal, block_m=block_m, block_n=block_n)
        assert isinstance(out, torch.Tensor)
        return out
    batch, heads, seq_len, head_dim = check_attention_inputs(
        "ladder_attention", q, k, v, causal, False
    )
    flags = rung_flags(rung)
    if head_dim * q.element_size() % _TMA_ALIGN:
        # A descriptor's strides must be multiples of 16 bytes (a TMA rule the interpreter
        # does not check, so it is checked here for both).
        raise ValueError(
            f"ladder_attention: rung {rung} reads rows through tensor descriptors, which need "
            f"head_dim * {q.element_size()} bytes to be a multiple of {_TMA_ALIGN}, got "
            f"head_dim {head_dim}"
        )
    if not INTERPRETED:
        triton.set_allocator(_device_scratch)
    o = torch.empty_like(q)
    lse = torch.empty((batch, heads, seq_len), dtype=torch.float32, device=q.device)
    args = (q, k, v, o, lse, seq_len, batch * heads, math.log2(math.e) / math.sqrt(head_dim))
    consts = {
        "CAUSAL": causal,
        "HEAD_DIM": head_dim,
        "BLOCK_D": triton.next_power_of_2(head_dim),
        "WIDEN": INTERPRETED and q.dtype == torch.bfloat16,
        **flags,
    }
    programs = (
        _INTERPRETED_PROGRAMS
        if INTERPRETED
        else torch.cuda.get_device_properties(q.device).multi_processor_count
    )

    def grid(meta: dict) -> tuple[int, ...]:
        m_tiles = triton.cdiv(seq_len, meta["BLOCK_M"])
        if flags["PERSISTENT"]:
            return (min(programs, m_tiles * batch * heads),)
        return m_tiles, batch * heads

    if block_m is None and block_n is None and not INTERPRETED:
        _tuned[rung][grid](*args, **consts)
    else:
        block_m = BLOCK_M if block_m is None else block_m
        block_n = BLOCK_N if block_n is None else block_n
        check_block("ladder_attention: block_m", block_m, 16, 128)
        check_block("ladder_attention: block_n", block_n, 16, 128)
        tiles = {"BLOCK_M": block_m, "BLOCK_N": block_n}
        _ladder_kernel[grid(tiles)](
            *args, **consts, **tiles, num_warps=RUNG_TILES[rung][0][2], num_stages=2
        )
    return o
