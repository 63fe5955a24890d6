"""Launch accounting: host submissions against kernels executed (section 5.1).

Graph replay records a run's kernels once and submits the whole graph with one host call:
the device still executes every kernel. Fusion removes kernels. Only the two together
reduce both counts.
"""

from __future__ import annotations

from dataclasses import dataclass

from infrabook import config
from infrabook.checks import check_positive_int


@dataclass(frozen=True)
class LaunchCount:
    """One configuration: how many host submissions, how many kernels the device runs."""

    name: str
    label: str
    host_submissions: int
    kernels: int


def launch_counts(
    runs: int, kernels_per_run: int, fused_kernels_per_run: int
) -> tuple[LaunchCount, ...]:
    """Eager, graph replay, fused, and fused + graph replay, for ``runs`` runs.

    The article's three FFN runs, 6 kernels a run, 5 when SiLU and the multiply are fused:

    >>> [(c.name, c.host_submissions, c.kernels) for c in launch_counts(3, 6, 5)]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('eager', 18, 18), ('graph', 3, 18), ('fused', 15, 15), ('fused+graph', 3, 15)]
    """
    check_positive_int("runs", runs)
    check_positive_int("kernels_per_run", kernels_per_run)
    check_positive_int("fused_kernels_per_run", fused_kernels_per_run)
    if fused_kernels_per_run > kernels_per_run:
        raise ValueError(
            f"fused_kernels_per_run ({fused_kernels_per_run}) must not exceed "
            f"kernels_per_run ({kernels_per_run}): fusion never adds kernels"
        )
    return (
        LaunchCount("eager", "普通提交", runs * kernels_per_run, runs * kernels_per_run),
        LaunchCount("graph", "图重放(CUDA Graph)", runs, runs * kernels_per_run),
        LaunchCount("fused", "融合激活链", runs * fused_kernels_per_run,
                    runs * fused_kernels_per_run),
        LaunchCount("fused+graph", "融合 + 图重放", runs, runs * fused_kernels_per_run),
    )


@dataclass(frozen=True)
class PersistentSchedule:
    """Programs launched for one elementwise kernel: one per tile, or one per SM looping."""

    tiles: int
    per_tile_programs: int
    persistent_programs: int

    @property
    def tiles_per_program(self) -> tuple[int, int]:
        """Fewest and most tiles one persistent program processes."""
        return (self.tiles // self.persistent_programs,
                -(-self.tiles // self.persistent_programs))


def persistent_schedule(elements: int, block: int, sm_count: int) -> PersistentSchedule:
    """Section 5.4: a persistent kernel launches ``min(sm_count, tiles)`` programs that loop
    over the tiles, instead of one program per tile.

    The article's [1024, 12288] tensor in 1024-element tiles on an H200's 132 SMs:

    >>> s = persistent_schedule(1024 * 12288, 1024, 132)
    >>> s.per_tile_programs, s.persistent_programs, s.tiles_per_program
    (12288, 132, (93, 94))
    """
    check_positive_int("elements", elements)
    check_positive_int("block", block)
    check_positive_int("sm_count", sm_count)
    tiles = -(-elements // block)
    return PersistentSchedule(tiles, tiles, min(sm_count, tiles))


def article_launch_counts() -> tuple[LaunchCount, ...]:
    """The article's case from ``conf/scenarios.toml``.

    >>> article_launch_counts()[1].host_submissions
    3
    """
    s = config.scenarios()["graph_replay"]
    return launch_counts(s["runs"], s["kernels_per_run"], s["fused_kernels_per_run"])
