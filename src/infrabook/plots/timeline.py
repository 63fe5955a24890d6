"""Host/device timelines (chapter 5, section 5.1): who is busy when, drawn from
:mod:`infrabook.launches`.

Each timeline gets one row per lane (host submissions, copies, device kernels), stacked top
to bottom in the order given, so a reader compares separate launches with graph replay, or
serial with overlapped copies, on one time axis. The figure lays out nothing itself: the
spans come from the calculators.
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from infrabook.labels import text
from infrabook.launches import Timeline
from infrabook.plots import style

# Lanes in the order they are drawn within one timeline, each with its colour.
_LANES = ("host", "copy", "device")
_LANE_COLOUR = {"host": style.PALETTE[0], "copy": style.PALETTE[2], "device": style.PALETTE[1]}


def timeline_figure(timelines: Sequence[Timeline], width: float = 7.0) -> Figure:
    """One row per lane of each timeline, bars where the lane is busy, total time at the end.

    >>> from infrabook.launches import article_timelines
    >>> fig = timeline_figure(article_timelines())
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['普通提交·主机提交', '普通提交·设备 kernel', '图重放·主机提交', '图重放·设备 kernel']
    """
    if len(timelines) == 0:
        raise ValueError("timelines must not be empty: expected at least one Timeline")
    rows: list[tuple[Timeline, str]] = [
        (t, lane) for t in timelines for lane in _LANES if t.lane(lane)
    ]
    fig, ax = style.figure(width, 0.5 * len(rows) + 1.0)
    end = max(t.makespan_us for t in timelines)
    labels = []
    for y, (t, lane) in enumerate(rows):
        spans = t.lane(lane)
        ax.broken_barh(
            [(s.start_us, s.duration_us) for s in spans],
            (y - 0.35, 0.7),
            facecolors=_LANE_COLOUR[lane],
            edgecolors="white",
            linewidth=0.8,
        )
        labels.append(
            text(
                "timeline.row",
                name=text(f"timeline.name.{t.name}"),
                lane=text(f"timeline.lane.{lane}"),
            )
        )
        if lane == "device":
            ax.text(
                t.makespan_us + 0.01 * end,
                y,
                text("timeline.end", value=f"{t.makespan_us:g}"),
                va="center",
                ha="left",
            )
    ax.set_yticks(range(len(rows)), labels)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlim(0, end * 1.18)
    ax.set_xlabel(text("timeline.axis.time"))
    ax.grid(axis="y", visible=False)
    return fig
