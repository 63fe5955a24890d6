"""How one launch of a tiled kernel spreads over a GPU: programs (thread blocks), warps of
:data:`WARP` threads, elements per thread, and waves of programs over the SMs.

The primer page uses it to put numbers on the picture of one Triton program's tile.
"""

from __future__ import annotations

from dataclasses import dataclass

from infrabook.checks import check_positive_int

#: Threads per warp on every NVIDIA GPU so far (CUDA C++ Programming Guide, "warpSize").
WARP = 32


@dataclass(frozen=True)
class TileMap:
    """``elements`` split into tiles of ``block`` elements, one program per tile, each
    program run by ``num_warps`` warps; ``sms`` streaming multiprocessors.

    >>> m = TileMap(elements=1024 * 12288, block=1024, num_warps=4, sms=188)
    >>> m.programs, m.threads_per_program, m.elements_per_thread
    (12288, 128, 8)
    >>> round(m.waves, 2), m.full_waves
    (65.36, 65)
    >>> TileMap(elements=100, block=96, num_warps=1, sms=1)
    Traceback (most recent call last):
    ...
    ValueError: block must be a multiple of 32 threads x num_warps 1 = 32, got 96 ...
    """

    elements: int
    block: int
    num_warps: int
    sms: int

    def __post_init__(self) -> None:
        for name in ("elements", "block", "num_warps", "sms"):
            check_positive_int(name, getattr(self, name))
        if self.block % self.threads_per_program or self.block & (self.block - 1):
            raise ValueError(
                f"block must be a multiple of {WARP} threads x num_warps {self.num_warps} = "
                f"{self.threads_per_program}, got {self.block} (and a power of two, as "
                "Triton requires)"
            )

    @property
    def programs(self) -> int:
        """Programs in the grid: one per tile, the last one possibly partly masked."""
        return -(-self.elements // self.block)

    @property
    def threads_per_program(self) -> int:
        """Threads running one program."""
        return WARP * self.num_warps

    @property
    def elements_per_thread(self) -> int:
        """Elements of the tile each thread holds in its registers."""
        return self.block // self.threads_per_program

    @property
    def waves(self) -> float:
        """Programs per SM if each SM ran one program at a time."""
        return self.programs / self.sms

    @property
    def full_waves(self) -> int:
        """Whole waves of one program per SM."""
        return self.programs // self.sms
