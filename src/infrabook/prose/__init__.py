"""The numbers a page glues into its prose, computed here rather than in the page's cells.

One module per subject returns the values a page glues as a mapping ``name -> value`` (text
in the build's language, or a figure), and the tables it shows as :class:`tables.Table`
values; the page keeps one hidden cell that glues them all (:func:`glue_all`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from infrabook import config


def glue_all(values: Mapping[str, object]) -> None:
    """Glue every value of ``values`` under its name without showing it, as a page's hidden
    cell does for each number its prose uses.

    >>> glue_all({"bad name": "1"})
    Traceback (most recent call last):
    ...
    ValueError: glue name 'bad name': expected letters, digits and underscores
    """
    for name in values:
        if not name.replace("_", "").isalnum():
            raise ValueError(f"glue name {name!r}: expected letters, digits and underscores")
    from myst_nb import glue  # the docs build's, imported only where a page runs this

    for name, value in values.items():
        glue(name, value, display=False)


def figure(device: config.Device, name: str) -> float:
    """``device``'s published figure ``name`` (a field of :class:`config.Device`), refused
    with the device and the field named where ``conf/hardware.toml`` has none.

    >>> figure(config.device("h100_sxm"), "sm_count")
    132.0
    """
    value = getattr(device, name).value
    if value is None:
        raise ValueError(f"device {device.key!r} has no {name} in conf/hardware.toml")
    return float(value)


def reference_entry(experiment: str, folder: object = None) -> Any:
    """The entry of ``experiment`` in the reference record of its kind of machine
    (``conf/bench_targets.toml``: the CPU's or the GPU's), which the chapters' prose quotes;
    ``LookupError`` naming the experiment when that record lacks a measured entry.

    >>> [reference_entry(e).provenance.device.kind for e in ("gpu_graphs", "shapes")]
    ['cuda', 'cpu']
    """
    from infrabook.bench.records import report
    from infrabook.bench.records.results import CPU_EXPERIMENTS

    kind = "cpu" if experiment in CPU_EXPERIMENTS else "gpu"
    ref = report.reference(kind, folder=folder)  # type: ignore[arg-type]
    found = report.entry(experiment, ref, folder=folder) if ref else None  # type: ignore[arg-type]
    if found is None or found.status != "ok":
        raise LookupError(
            f"{experiment}: not measured in the reference {kind.upper()} record ({ref})"
        )
    return found


def claims_stated() -> dict[str, str]:
    """The article's stated value of each claim in ``conf/claims.toml``, by claim id.

    >>> claims_stated()["fusion.measured_speedup"]
    '1.8'
    """
    return {str(c.id): str(c.stated) for c in config.claims()}
