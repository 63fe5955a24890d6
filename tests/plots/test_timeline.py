"""Timelines: the layout against closed forms, the figure against the spans it was given."""

from __future__ import annotations

import pytest

from infrabook.launches import (
    article_overlap,
    article_timelines,
    eager_timeline,
    graph_timeline,
    overlap_timeline,
)
from infrabook.plots.timeline import timeline_figure

KERNELS = [4.0, 4.0, 1.5, 1.5, 4.0, 1.5]


def test_short_kernels_wait_on_the_host_when_launched_one_by_one() -> None:
    t = eager_timeline(KERNELS, 3, launch_us=5.0, device_gap_us=1.0)
    # Every kernel is shorter than a launch, so each starts when its own call returns.
    assert [s.start_us for s in t.lane("device")] == [5.0 * (i + 1) for i in range(18)]
    assert t.makespan_us == 18 * 5.0 + KERNELS[-1]


def test_long_kernels_hide_the_launches() -> None:
    t = eager_timeline([50.0] * 6, 3, launch_us=5.0, device_gap_us=1.0)
    assert t.gaps_us("device") == pytest.approx([1.0] * 17)
    assert t.makespan_us == pytest.approx(5.0 + 18 * 50.0 + 17 * 1.0)


def test_graph_replay_keeps_kernels_and_durations_and_shrinks_gaps() -> None:
    eager, graph = (eager_timeline(KERNELS, 3, 5.0, 1.0), graph_timeline(KERNELS, 3, 5.0, 1.0))
    assert [s.duration_us for s in graph.lane("device")] == [
        s.duration_us for s in eager.lane("device")
    ]
    assert len(graph.lane("host")) == 3 and len(eager.lane("host")) == 18
    assert max(graph.gaps_us("device")) == pytest.approx(1.0)
    assert sum(graph.gaps_us("device")) < sum(eager.gaps_us("device"))
    assert graph.makespan_us == pytest.approx(5.0 + 3 * sum(KERNELS) + 17 * 1.0)


@pytest.mark.parametrize(("copy", "compute"), [(20.0, 30.0), (30.0, 20.0), (25.0, 25.0)])
@pytest.mark.parametrize("chunks", [1, 2, 5])
def test_overlap_matches_the_pipeline_formula(chunks: int, copy: float, compute: float) -> None:
    serial = overlap_timeline(chunks, copy, compute, overlap=False)
    overlapped = overlap_timeline(chunks, copy, compute, overlap=True)
    assert serial.makespan_us == pytest.approx(chunks * (copy + compute))
    assert overlapped.makespan_us == pytest.approx(
        copy + (chunks - 1) * max(copy, compute) + compute
    )
    # Double buffering: a copy never overwrites a buffer whose compute has not finished.
    computes = overlapped.lane("device")
    for i, c in enumerate(overlapped.lane("copy")):
        if i >= 2:
            assert c.start_us >= computes[i - 2].end_us


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: eager_timeline([], 3, 5.0, 1.0), "kernel_us must list"),
        (lambda: eager_timeline([1.0, -2.0], 3, 5.0, 1.0), r"kernel_us\[1\]"),
        (lambda: graph_timeline(KERNELS, 0, 5.0, 1.0), "runs"),
        (lambda: graph_timeline(KERNELS, 3, 5.0, -1.0), "device_gap_us"),
        (lambda: overlap_timeline(4, 0.0, 30.0, overlap=True), "copy_us"),
    ],
)
def test_bad_input_names_the_value(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_figure_draws_one_row_per_lane_with_the_spans() -> None:
    timelines = (*article_timelines(), *article_overlap())
    fig = timeline_figure(timelines)
    ax = fig.axes[0]
    bars = ax.collections
    expected = [
        t.lane(lane) for t in timelines for lane in ("host", "copy", "device") if t.lane(lane)
    ]
    assert len(bars) == len(expected)
    for coll, spans in zip(bars, expected, strict=True):
        xs = sorted(p.vertices[:, 0].min() for p in coll.get_paths())
        assert xs == pytest.approx([s.start_us for s in spans])
    with pytest.raises(ValueError, match="timelines must not be empty"):
        timeline_figure([])
