"""Launch accounting: host submissions against kernels executed (section 5.1).

Graph replay records a run's kernels once and submits the whole graph with one host call:
the device still executes every kernel. Fusion removes kernels. Only the two together
reduce both counts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from infrabook import config
from infrabook.checks import check_finite, check_positive_int
from infrabook.labels import text


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
            text("error.launches.fused", fused=fused_kernels_per_run, kernels=kernels_per_run)
        )
    counts = {
        "eager": (runs * kernels_per_run, runs * kernels_per_run),
        "graph": (runs, runs * kernels_per_run),
        "fused": (runs * fused_kernels_per_run, runs * fused_kernels_per_run),
        "fused+graph": (runs, runs * fused_kernels_per_run),
    }
    return tuple(
        LaunchCount(name, text(f"launches.{name}"), submissions, kernels)
        for name, (submissions, kernels) in counts.items()
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
        return (self.tiles // self.persistent_programs, -(-self.tiles // self.persistent_programs))


def persistent_schedule(
    elements: int, block: int, sm_count: int, programs_per_sm: int = 1
) -> PersistentSchedule:
    """Section 5.4: a persistent kernel launches as many programs as the device holds at
    once, ``sm_count * programs_per_sm`` (capped at the tile count), and they loop over the
    tiles, instead of one program per tile.

    How many programs one SM holds at once (its occupancy) depends on the kernel's registers
    and shared memory; ``programs_per_sm`` is that number.

    The article's [1024, 12288] tensor in 1024-element tiles on an H200's 132 SMs:

    >>> s = persistent_schedule(1024 * 12288, 1024, 132)
    >>> s.per_tile_programs, s.persistent_programs, s.tiles_per_program
    (12288, 132, (93, 94))
    >>> persistent_schedule(1024 * 12288, 1024, 132, programs_per_sm=4).persistent_programs
    528
    """
    check_positive_int("elements", elements)
    check_positive_int("block", block)
    check_positive_int("sm_count", sm_count)
    check_positive_int("programs_per_sm", programs_per_sm)
    tiles = -(-elements // block)
    return PersistentSchedule(tiles, tiles, min(sm_count * programs_per_sm, tiles))


def article_launch_counts() -> tuple[LaunchCount, ...]:
    """The article's case from ``conf/scenarios.toml``.

    >>> article_launch_counts()[1].host_submissions
    3
    """
    s = config.scenarios().graph_replay
    return launch_counts(s.runs, s.kernels_per_run, s.fused_kernels_per_run)


@dataclass(frozen=True)
class Span:
    """One bar of a timeline: what ``lane`` (host, device, copy) does from start to end, in μs."""

    lane: str
    start_us: float
    end_us: float
    label: str

    @property
    def duration_us(self) -> float:
        """Length of the bar."""
        return self.end_us - self.start_us


@dataclass(frozen=True)
class Timeline:
    """A laid-out schedule: the spans of every lane, in the order they were placed."""

    name: str
    spans: tuple[Span, ...]

    def lane(self, lane: str) -> tuple[Span, ...]:
        """The spans of one lane, in time order."""
        return tuple(sorted((s for s in self.spans if s.lane == lane), key=lambda s: s.start_us))

    @property
    def makespan_us(self) -> float:
        """From time 0 to the end of the last span."""
        return max(s.end_us for s in self.spans)

    def busy_us(self, lane: str) -> float:
        """Time the lane spends working."""
        return math.fsum(s.duration_us for s in self.lane(lane))

    def gaps_us(self, lane: str) -> tuple[float, ...]:
        """Idle stretches between consecutive spans of the lane (zeros included)."""
        spans = self.lane(lane)
        return tuple(b.start_us - a.end_us for a, b in pairwise(spans))


def _check_durations(name: str, values: Sequence[float]) -> tuple[float, ...]:
    if len(values) == 0:
        raise ValueError(f"{name} must list at least one duration, got an empty list")
    return tuple(check_finite(f"{name}[{i}]", v, positive=True) for i, v in enumerate(values))


def eager_timeline(
    kernel_us: Sequence[float], runs: int, launch_us: float, device_gap_us: float
) -> Timeline:
    """Every kernel submitted by its own host call (``cudaLaunchKernel``).

    The host submits back to back, ``launch_us`` a call; a kernel starts when its call has
    returned and the device has finished the previous kernel plus ``device_gap_us``. Kernels
    shorter than a launch leave the device waiting on the host.

    Three runs of six kernels, as in section 5.1, with 5 μs launches and 1 μs gaps:

    >>> t = eager_timeline([4, 4, 1.5, 1.5, 4, 1.5], 3, 5.0, 1.0)
    >>> len(t.lane("host")), len(t.lane("device")), t.makespan_us
    (18, 18, 91.5)
    """
    durations = _check_durations("kernel_us", kernel_us)
    check_positive_int("runs", runs)
    check_finite("launch_us", launch_us, positive=True)
    check_finite("device_gap_us", device_gap_us)
    spans: list[Span] = []
    host = 0.0
    device_free = -device_gap_us
    for run in range(runs):
        for k, duration in enumerate(durations):
            spans.append(Span("host", host, host + launch_us, f"{run}.{k}"))
            host += launch_us
            start = max(host, device_free + device_gap_us)
            spans.append(Span("device", start, start + duration, f"{run}.{k}"))
            device_free = start + duration
    return Timeline("eager", tuple(spans))


def graph_timeline(
    kernel_us: Sequence[float], runs: int, graph_launch_us: float, device_gap_us: float
) -> Timeline:
    """Each run submitted as one captured graph (``cudaGraphLaunch``).

    The device executes exactly the kernels of :func:`eager_timeline`, with the same
    durations; the host makes one call per run, so within a run the kernels follow each
    other after ``device_gap_us`` instead of waiting for the next submission.

    >>> t = graph_timeline([4, 4, 1.5, 1.5, 4, 1.5], 3, 5.0, 1.0)
    >>> len(t.lane("host")), len(t.lane("device")), t.makespan_us
    (3, 18, 71.5)
    """
    durations = _check_durations("kernel_us", kernel_us)
    check_positive_int("runs", runs)
    check_finite("graph_launch_us", graph_launch_us, positive=True)
    check_finite("device_gap_us", device_gap_us)
    spans: list[Span] = []
    device_free = -device_gap_us
    for run in range(runs):
        submitted = (run + 1) * graph_launch_us
        spans.append(Span("host", submitted - graph_launch_us, submitted, f"{run}"))
        for k, duration in enumerate(durations):
            start = max(submitted, device_free + device_gap_us)
            spans.append(Span("device", start, start + duration, f"{run}.{k}"))
            device_free = start + duration
    return Timeline("graph", tuple(spans))


def overlap_timeline(chunks: int, copy_us: float, compute_us: float, overlap: bool) -> Timeline:
    """Copy a chunk to the device, then compute on it, for ``chunks`` chunks.

    Without ``overlap`` one stream does copy, compute, copy, compute. With it, copies run on
    a second stream into two alternating buffers (double buffering): chunk i+1 is copied
    while chunk i is computed, but a copy must wait until the compute that last used its
    buffer (chunk i-1) is done. Total time falls from ``chunks * (copy + compute)`` to
    ``copy + (chunks - 1) * max(copy, compute) + compute``.

    >>> overlap_timeline(4, 20.0, 30.0, overlap=False).makespan_us
    200.0
    >>> overlap_timeline(4, 20.0, 30.0, overlap=True).makespan_us
    140.0
    """
    check_positive_int("chunks", chunks)
    check_finite("copy_us", copy_us, positive=True)
    check_finite("compute_us", compute_us, positive=True)
    spans: list[Span] = []
    copy_free = 0.0
    compute_ends: list[float] = []
    for i in range(chunks):
        if overlap:
            buffer_free = compute_ends[i - 2] if i >= 2 else 0.0
            copy_start = max(copy_free, buffer_free)
        else:
            copy_start = compute_ends[-1] if compute_ends else 0.0
        copy_free = copy_start + copy_us
        spans.append(Span("copy", copy_start, copy_free, f"{i}"))
        start = max(copy_free, compute_ends[-1] if compute_ends else 0.0)
        spans.append(Span("device", start, start + compute_us, f"{i}"))
        compute_ends.append(start + compute_us)
    return Timeline("overlap" if overlap else "serial", tuple(spans))


def article_timelines() -> tuple[Timeline, Timeline]:
    """Eager and graph-replay timelines of section 5.1's runs, with the assumed durations of
    ``conf/scenarios.toml`` (table ``timeline``).

    >>> eager, graph = article_timelines()
    >>> len(eager.lane("host")), len(graph.lane("host"))
    (18, 3)
    """
    # conf_schema checks that kernel_us has one duration per kernel of graph_replay
    runs = config.scenarios().graph_replay
    t = config.scenarios().timeline
    return (
        eager_timeline(t.kernel_us, runs.runs, t.launch_us, t.device_gap_us),
        graph_timeline(t.kernel_us, runs.runs, t.graph_launch_us, t.device_gap_us),
    )


def article_overlap() -> tuple[Timeline, Timeline]:
    """Serial and overlapped copy/compute with ``conf/scenarios.toml``'s assumed chunks.

    >>> serial, overlapped = article_overlap()
    >>> serial.makespan_us, overlapped.makespan_us
    (200.0, 140.0)
    """
    o = config.scenarios().timeline.overlap
    serial, overlapped = (
        overlap_timeline(o.chunks, o.copy_us, o.compute_us, overlap=flag) for flag in (False, True)
    )
    return serial, overlapped
