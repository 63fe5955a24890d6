"""A persistent SwiGLU kernel beside the one-program-per-tile launch (the article's 5.4).

One program per tile launches as many programs as there are tiles, and each does one
tile and exits. The persistent kernel launches a fixed number of programs (on a GPU, as
many as its SMs hold at once: SMs x resident programs per SM) that stay resident and fetch
their next tile themselves, striding by the grid size: it trades launches for a loop
inside the kernel. Each program waits for its tile's loads before the next, so fewer
programs keep fewer bytes in flight (:mod:`infrabook.little`): one per SM ran 4.5x slower
than one per tile on an H200. Both run the same tile body, so
their results are bitwise identical; only the number of programs differs.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import triton
import triton.language as tl

from infrabook.checks import check_positive_int
from infrabook.gpu_model import WARP
from infrabook.kernels._checks import INTERPRETED, check_block, check_inputs
from infrabook.kernels._tiles import swiglu_kernel, swiglu_tile, tile_offsets
from infrabook.kernels.swiglu import BLOCK

#: Programs the persistent kernel launches when there is no GPU to count SMs on.
CPU_PROGRAMS = 4
#: Warps per program of both launches (Triton's default, stated so the resident count holds).
NUM_WARPS = 4


@dataclass(frozen=True)
class Launch:
    """A kernel's result and how it was launched: ``programs`` over ``tiles`` tiles."""

    z: torch.Tensor
    programs: int
    tiles: int


@triton.jit
def _swiglu_persistent_kernel(g_ptr, u_ptr, z_ptr, n, num_tiles, BLOCK: tl.constexpr):
    for tile in range(tl.program_id(0), num_tiles, tl.num_programs(0)):
        swiglu_tile(g_ptr, u_ptr, z_ptr, tile_offsets(tile, BLOCK), n)


@triton.jit
def _swiglu_pipelined_kernel(
    g_ptr, u_ptr, z_ptr, n, num_tiles, BLOCK: tl.constexpr, STAGES: tl.constexpr
):
    # the compiler issues the loads of the next STAGES - 1 tiles before this one is done:
    # each program keeps STAGES tiles in flight instead of one
    for tile in tl.range(tl.program_id(0), num_tiles, tl.num_programs(0), num_stages=STAGES):
        swiglu_tile(g_ptr, u_ptr, z_ptr, tile_offsets(tile, BLOCK), n)


def _check(op: str, g: torch.Tensor, u: torch.Tensor, block_size: int) -> int:
    check_inputs(op, 2, g=g, u=u)
    check_block(f"{op}: block_size", block_size, 16, 2**16)
    return triton.cdiv(g.numel(), block_size)


def _tiles_and_programs(
    op: str, g: torch.Tensor, u: torch.Tensor, block_size: int, num_programs: int | None
) -> tuple[int, int]:
    """The inputs checked; their tile count and the programs a persistent launch starts
    (``num_programs``, by default as many as the device holds at once, never more than
    there are tiles)."""
    tiles = _check(op, g, u, block_size)
    if num_programs is None:
        num_programs = CPU_PROGRAMS if INTERPRETED else resident_on(g.device)
    check_positive_int(f"{op}: num_programs", num_programs)
    return tiles, min(num_programs, tiles)


def resident_on(device: torch.device) -> int:
    """Programs of :data:`NUM_WARPS` warps a CUDA GPU holds at once: its SMs x the programs
    one SM's thread limit admits. The kernel uses no shared memory; should its registers
    admit fewer, the surplus programs wait for a free slot, as one program per tile's do
    (not measured yet: the H200 record predates this default)."""
    props = torch.cuda.get_device_properties(device)
    per_sm = props.max_threads_per_multi_processor // (WARP * NUM_WARPS)
    return props.multi_processor_count * per_sm


def swiglu_per_tile(g: torch.Tensor, u: torch.Tensor, *, block_size: int = BLOCK) -> Launch:
    """:func:`~infrabook.kernels.swiglu` launched as one program per tile of ``block_size``
    elements (a power of two from 16 to 65536).

    >>> from infrabook.kernels import DEVICE
    >>> g, u = torch.randn(2, 16, 16, device=DEVICE)
    >>> run = swiglu_per_tile(g, u, block_size=16)
    >>> run.programs, run.tiles
    (16, 16)
    """
    tiles = _check("swiglu_per_tile", g, u, block_size)
    z = torch.empty_like(g)
    swiglu_kernel[(tiles,)](g, u, z, g.numel(), BLOCK=block_size, num_warps=NUM_WARPS)
    return Launch(z, programs=tiles, tiles=tiles)


def swiglu_persistent(
    g: torch.Tensor, u: torch.Tensor, num_programs: int | None = None, *, block_size: int = BLOCK
) -> Launch:
    """SwiGLU with ``min(num_programs, tiles)`` resident programs looping over the tiles.

    ``num_programs`` defaults to as many programs as the GPU holds at once
    (:func:`resident_on`), or :data:`CPU_PROGRAMS` in the interpreter. Results are
    identical to :func:`swiglu_per_tile`.

    >>> from infrabook.kernels import DEVICE
    >>> g, u = torch.randn(2, 16, 16, device=DEVICE)
    >>> run = swiglu_persistent(g, u, num_programs=4, block_size=16)
    >>> run.programs, run.tiles, torch.equal(run.z, swiglu_per_tile(g, u, block_size=16).z)
    (4, 16, True)
    """
    tiles, programs = _tiles_and_programs("swiglu_persistent", g, u, block_size, num_programs)
    z = torch.empty_like(g)
    _swiglu_persistent_kernel[(programs,)](
        g, u, z, g.numel(), tiles, BLOCK=block_size, num_warps=NUM_WARPS
    )
    return Launch(z, programs=programs, tiles=tiles)


def swiglu_pipelined(
    g: torch.Tensor,
    u: torch.Tensor,
    num_programs: int | None = None,
    *,
    stages: int = 3,
    block_size: int = BLOCK,
) -> Launch:
    """:func:`swiglu_persistent` with a software-pipelined loop: each program keeps
    ``stages`` tiles' loads in flight (``tl.range(..., num_stages=stages)``), so that few
    programs can still hide the memory's latency (:mod:`infrabook.little`). In the
    interpreter the loop runs one tile after another; results are identical either way.

    >>> from infrabook.kernels import DEVICE
    >>> g, u = torch.randn(2, 16, 16, device=DEVICE)
    >>> run = swiglu_pipelined(g, u, num_programs=4, block_size=16)
    >>> run.programs, run.tiles, torch.equal(run.z, swiglu_per_tile(g, u, block_size=16).z)
    (4, 16, True)
    """
    tiles, programs = _tiles_and_programs("swiglu_pipelined", g, u, block_size, num_programs)
    check_positive_int("swiglu_pipelined: stages", stages)
    z = torch.empty_like(g)
    _swiglu_pipelined_kernel[(programs,)](
        g, u, z, g.numel(), tiles, BLOCK=block_size, STAGES=stages, num_warps=NUM_WARPS
    )
    return Launch(z, programs=programs, tiles=tiles)
