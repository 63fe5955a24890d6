"""The rules between keys of the conf files, which a per-key description cannot state.

Each key's kind is declared once by the classes of :mod:`infrabook.config` and checked by
:mod:`infrabook.conf_convert`; what is left here relates keys to each other (as many values as
scores, a bucket that holds the largest call, distinct ids, a device hardware.toml knows).
A broken rule is one :class:`ConfError` naming the file and the key.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any


class ConfError(ValueError):
    """A conf file that does not hold what the loader expects; the message is one line."""


def _fail(path: Path, key: str, what: str, got: str) -> ConfError:
    return ConfError(f"{path}: {key}: expected {what}, got {got}")


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
