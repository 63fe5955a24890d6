"""The rules between keys of the conf files, which a per-key description cannot state.

Each key's kind is declared once by the classes of :mod:`infrabook.config` and checked by
:mod:`infrabook.conf_plain`; what is left here relates keys to each other (as many values as
scores, a block that leaves two blocks of them, a bucket that holds the largest call, distinct
ids, the three strategies the book names, stated rates that share one peak, rates at which a
group of calls takes a finite, non-zero time, a device hardware.toml knows): whatever the code
would otherwise meet as a crash. A broken rule is one :class:`ConfError` naming the file and
the key.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from infrabook import labels
from infrabook.quoting import printable


class ConfError(ValueError):
    """A conf file that does not hold what the loader expects; the message is one line."""


def _fail(path: Path, key: str, what: str, got: str) -> ConfError:
    return ConfError(f"{printable(str(path))}: {key}: expected {what}, got {got}")


def _distinct(path: Path, key: str, items: Iterable[Any]) -> None:
    seen = set()
    for item in items:
        if item in seen:
            raise _fail(path, key, "distinct entries", f"{item!r} twice")
        seen.add(item)


def _scenarios(s: Any, path: Path) -> None:
    sm, gr, bk, tl = s.online_softmax, s.graph_replay, s.bucketing, s.timeline
    if len(sm.values) != len(sm.score_exps):
        raise _fail(
            path,
            "online_softmax.values",
            f"as many entries as score_exps ({len(sm.score_exps)})",
            str(len(sm.values)),
        )
    if gr.fused_kernels_per_run > gr.kernels_per_run:
        raise _fail(
            path,
            "graph_replay.fused_kernels_per_run",
            f"at most kernels_per_run ({gr.kernels_per_run})",
            str(gr.fused_kernels_per_run),
        )
    if len(tl.kernel_us) != gr.kernels_per_run:
        raise _fail(
            path,
            "timeline.kernel_us",
            f"one duration per kernel of graph_replay.kernels_per_run ({gr.kernels_per_run})",
            f"{len(tl.kernel_us)} durations",
        )
    if sm.block >= len(sm.score_exps):
        raise _fail(
            path,
            "online_softmax.block",
            f"a block that splits score_exps into two blocks or more (at most "
            f"{len(sm.score_exps) - 1}: the example shows the running sums after each block)",
            str(sm.block),
        )
    _distinct(path, "bucketing.buckets", bk.buckets)
    _distinct(path, "bucketing.strategies[].name", [st.name for st in bk.strategies])
    largest_call = max(rows for rows, _ in bk.calls)
    if max(bk.buckets) < largest_call:
        raise _fail(
            path,
            "bucketing.buckets",
            f"a bucket that holds the largest call ({largest_call} rows)",
            repr(list(bk.buckets)),
        )
    _strategies(bk, path)


def _group_ms(rows: int, flop_per_row: int, rate_tflops: float) -> float:
    # bucketing.group_time_ms's formula; that module reads this one's files, so the rule
    # cannot call it
    return rows * flop_per_row / (rate_tflops * 1e12) * 1e3


def _strategies(bk: Any, path: Path) -> None:
    """Example 5-12's strategies: the three the book has words for, stated rates that share
    one peak (rate / mfu), and rates at which a group of calls takes a finite, non-zero time."""
    named = labels.group("strategy")
    flop_per_row = bk.flop_per_row_factor * bk.d_model * bk.d_ff
    fewest = min(rows for rows, _ in bk.calls)  # the shortest and longest group there can be
    most = sum(max(rows, max(bk.buckets)) * count for rows, count in bk.calls)
    names = [st.name for st in bk.strategies]
    if sorted(names) != sorted(named):  # the claims and crossovers compare all three
        raise _fail(
            path,
            "bucketing.strategies[].name",
            f"each of {', '.join(named)} once (the article's example compares them all)",
            repr(names),
        )
    first: tuple[str, float] | None = None  # the first stated rate's key and peak
    for i, st in enumerate(bk.strategies):
        key = f"bucketing.strategies[{i}]"
        timed = "a rate at which a group of calls takes a finite, non-zero time"
        rates = {
            f"{key}.mfu": (
                st.mfu * bk.peak_tflops,
                f"an mfu whose product with bucketing.peak_tflops ({bk.peak_tflops!r}) is {timed}",
                st.mfu,
            )
        }
        if st.article_rate_tflops is not None:
            rate = st.article_rate_tflops
            rates[f"{key}.article_rate_tflops"] = (rate, timed, rate)
        for where, (rate, what, given) in rates.items():
            if not _finite_times(rate, fewest, most, flop_per_row):
                raise _fail(path, where, what, repr(given))
        if st.article_rate_tflops is None:
            continue
        peak = st.article_rate_tflops / st.mfu
        said = f"{st.article_rate_tflops!r} (over mfu {st.mfu!r}: {peak:g} TFLOP/s)"
        if not 0 < peak < math.inf:
            raise _fail(
                path,
                f"{key}.article_rate_tflops",
                "a rate that over its mfu gives a finite peak",
                said,
            )
        if first is None:
            first = (key, peak)
        elif peak != first[1]:
            raise _fail(
                path,
                f"{key}.article_rate_tflops",
                f"a rate that over its mfu gives the peak {first[0]} gives ({first[1]:g} TFLOP/s)",
                said,
            )


def _finite_times(rate: float, fewest: int, most: int, flop_per_row: int) -> bool:
    """Whether the shortest and the longest group of calls take a finite, non-zero time."""
    if not 0 < rate * 1e12 < math.inf:
        return False
    times = (_group_ms(fewest, flop_per_row, rate), _group_ms(most, flop_per_row, rate))
    return all(0 < t < math.inf for t in times)


def check_relations(data: Any, path: Path) -> None:
    """Check the rules between the keys of one typed conf file (``path``, for the message);
    files without such rules pass as they are.

    >>> from types import SimpleNamespace as NS
    >>> check_relations(NS(claim=[NS(id="a"), NS(id="a")]), Path("claims.toml"))
    Traceback (most recent call last):
    ...
    infrabook.conf_schema.ConfError: claims.toml: claim[].id: expected distinct entries, got 'a'...
    """
    if path.name == "scenarios.toml":
        _scenarios(data, path)
    elif path.name == "claims.toml":
        _distinct(path, "claim[].id", [c.id for c in data.claim])
    elif path.name == "bench_targets.toml":
        _distinct(path, "target[].id", [t.id for t in data.target])
        _distinct(path, "reference[].kind", [r.kind for r in data.reference])
        for i, r in enumerate(data.reference):
            if not r.record.startswith(f"{r.kind}-"):
                raise _fail(
                    path,
                    f"reference[{i}].record",
                    f"a record name starting {r.kind}-",
                    repr(r.record),
                )


def check_device(key: str, known: Mapping[str, object], path: Path) -> None:
    """The rule between two files: scenarios.toml's ``bucketing.peak_device`` is a device of
    hardware.toml (``known``).

    >>> check_device("h300", {"h200": None}, Path("s.toml"))
    Traceback (most recent call last):
    ...
    infrabook.conf_schema.ConfError: s.toml: bucketing.peak_device: expected a device of ... 'h300'
    """
    if key not in known:
        raise _fail(
            path,
            "bucketing.peak_device",
            f"a device of hardware.toml ({', '.join(known)})",
            repr(key),
        )
