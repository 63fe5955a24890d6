"""Little's law for a memory-bound kernel: bytes in flight = bandwidth x latency.

A load waits a round trip to memory before its bytes arrive. To stream at a bandwidth B
through a memory whose round trip takes L, B·L bytes must be requested and not yet
arrived at every moment; a kernel that keeps fewer in flight reaches only
(bytes in flight) / L, however fast the memory is (Little's law, the queue's mean
occupancy = throughput x time in the system). A program that loads one tile and waits
for it before asking for the next keeps one tile in flight, so the bytes in flight are
tiles in flight x bytes per tile.

Chapter 5.4 applies it to the persistent kernel's measured times.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from infrabook.checks import check_positive_int
from infrabook.gpu_model import WARP

#: Most threads resident on one SM, by compute capability (CUDA C++ Programming Guide,
#: technical specifications per compute capability: "maximum number of resident threads
#: per SM").
MAX_THREADS_PER_SM = {"8.0": 2048, "8.6": 1536, "8.9": 1536, "9.0": 2048}


def resident_programs(capability: str, num_warps: int) -> int:
    """Programs of ``num_warps`` warps one SM holds at once by its thread limit (registers
    and shared memory may allow fewer; a small element-wise kernel uses little of either).

    >>> resident_programs("9.0", 4)
    16
    >>> resident_programs("7.5", 4)
    Traceback (most recent call last):
    ...
    ValueError: compute capability '7.5' unknown: expected one of 8.0, 8.6, 8.9, 9.0
    """
    check_positive_int("num_warps", num_warps)
    if capability not in MAX_THREADS_PER_SM:
        known = ", ".join(MAX_THREADS_PER_SM)
        raise ValueError(f"compute capability {capability!r} unknown: expected one of {known}")
    return MAX_THREADS_PER_SM[capability] // (WARP * num_warps)


@dataclass(frozen=True)
class InFlight:
    """A kernel that keeps ``programs`` x ``bytes_per_program`` bytes in flight, against a
    memory that streams ``bandwidth`` bytes/s with a round trip of ``latency_s`` seconds.

    >>> k = InFlight(bandwidth=3.3e12, latency_s=1.1e-6, bytes_per_program=6144, programs=132)
    >>> round(k.needed / 2**20, 2), round(k.kept / 2**10), round(k.share, 3)
    (3.46, 792, 0.223)
    >>> round(k.reached / 1e12, 2), k.programs_needed
    (0.74, 591)
    """

    bandwidth: float
    latency_s: float
    bytes_per_program: int
    programs: int

    def __post_init__(self) -> None:
        for name in ("bandwidth", "latency_s"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive finite number, got {value!r}")
        check_positive_int("bytes_per_program", self.bytes_per_program)
        check_positive_int("programs", self.programs)

    @property
    def needed(self) -> float:
        """Bytes that must be in flight to stream at the full bandwidth."""
        return self.bandwidth * self.latency_s

    @property
    def kept(self) -> int:
        """Bytes the kernel keeps in flight."""
        return self.programs * self.bytes_per_program

    @property
    def share(self) -> float:
        """The part of the needed bytes the kernel keeps in flight (at most 1)."""
        return min(1.0, self.kept / self.needed)

    @property
    def reached(self) -> float:
        """The bandwidth Little's law allows this kernel, bytes/s."""
        return self.share * self.bandwidth

    @property
    def programs_needed(self) -> int:
        """Programs in flight at once for the full bandwidth."""
        return math.ceil(self.needed / self.bytes_per_program)


def latency_implied(kept: float, bandwidth: float) -> float:
    """The round trip, in seconds, at which ``kept`` bytes in flight give ``bandwidth``
    bytes/s (Little's law read backwards: L = N / X).

    >>> round(latency_implied(792 * 2**10, 0.735e12) * 1e6, 2)
    1.1
    """
    return kept / bandwidth
