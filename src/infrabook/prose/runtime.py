"""Chapter 5 (the runtime): the values its prose glues, from the copy/compute overlap
(:mod:`infrabook.launches`, durations assumed in ``conf/scenarios.toml``) and section 5.1's
timelines (:func:`infrabook.prose.graph_replay.timelines`: the launch costs measured, the kernel
durations assumed), and its exercises' answers.
"""

from __future__ import annotations

from typing import Any

from infrabook import config
from infrabook.launches import article_overlap, overlap_timeline
from infrabook.prose import graph_replay
from infrabook.tables import number_text

#: Exercise 2's number of chunks: many, to show the overlap's limit.
MANY_CHUNKS = 64


def _us(value: float) -> str:
    return number_text(value, "g")


def values() -> dict[str, Any]:
    """The overlap of copies and computation (chunks, durations, serial and overlapped
    totals, how many copies hide), the eager and replayed totals of section 5.1, and the
    figure.

    >>> v = values()
    >>> v["rt_serial_us"], v["rt_overlap_us"], v["rt_overlap_speedup"], v["rt_copy_hidden"]
    ('200', '140', '1.43', '3')
    """
    from infrabook.plots.timeline import timeline_figure

    ov = config.scenarios().timeline.overlap
    serial, overlapped = article_overlap()
    eager, graph = graph_replay.timelines()  # the same model as section 5.1's
    return {
        "rt_chunks": str(ov.chunks),
        "rt_copy_us": _us(ov.copy_us),
        "rt_compute_us": _us(ov.compute_us),
        "rt_serial_us": _us(serial.makespan_us),
        "rt_overlap_us": _us(overlapped.makespan_us),
        "rt_overlap_speedup": number_text(serial.makespan_us / overlapped.makespan_us, ".2f"),
        "rt_copy_hidden": str(len(serial.lane("copy")) - 1),
        "rt_eager_us": number_text(eager.makespan_us, ".0f"),
        "rt_graph_us": number_text(graph.makespan_us, ".0f"),
        "rt_fig": timeline_figure((serial, overlapped)),
    }


def exercises() -> dict[str, str]:
    """Exercise 1: computation twice as fast, copies unchanged (the bottleneck changes
    sides); exercise 2: :data:`MANY_CHUNKS` chunks, and the limit as chunks grow.

    >>> v = exercises()
    >>> v["ex5_fast_serial"], v["ex5_fast_overlap"], v["ex5_many_speedup"], v["ex5_limit"]
    ('140', '95', '1.649', '1.667')
    """
    ov = config.scenarios().timeline.overlap
    half = ov.compute_us / 2
    fast_serial, fast = (
        overlap_timeline(ov.chunks, ov.copy_us, half, overlap=flag) for flag in (False, True)
    )
    many_serial, many = (
        overlap_timeline(MANY_CHUNKS, ov.copy_us, ov.compute_us, overlap=flag)
        for flag in (False, True)
    )
    limit = (ov.copy_us + ov.compute_us) / max(ov.copy_us, ov.compute_us)
    return {
        "ex5_half_compute": _us(half),
        "ex5_fast_overlap": _us(fast.makespan_us),
        "ex5_fast_serial": _us(fast_serial.makespan_us),
        "ex5_fast_speedup": number_text(fast_serial.makespan_us / fast.makespan_us, ".2f"),
        "ex5_many": str(MANY_CHUNKS),
        "ex5_many_speedup": number_text(many_serial.makespan_us / many.makespan_us, ".3f"),
        "ex5_limit": number_text(limit, ".3f"),
    }
