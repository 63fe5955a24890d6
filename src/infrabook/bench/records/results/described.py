"""What results share to describe themselves: their tables, how they were timed, the
datasheet of the GPU they ran on, and an experiment's title; no torch, so that reading a
record imports none."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from infrabook import config
from infrabook.bench.records.entry import Device, Params
from infrabook.labels import text
from infrabook.tables import Table


def title(experiment: str) -> str:
    """An experiment's title as pages show it, in the build's language."""
    return text(f"bench.title.{experiment}")


def table(title: str, keys: str, rows: Iterable[tuple[Any, ...]]) -> Table:
    """A table whose headers are ``bench.col.<key>`` (:mod:`infrabook.labels`) for each of the
    space-separated ``keys``.

    >>> table("t", "rows gb_s", [(1, 2.0)]).columns[1]
    'GB/s'
    """
    return Table(title, tuple(text(f"bench.col.{key}") for key in keys.split()), tuple(rows))


def timed_method(params: Params, *clauses: str) -> str:
    """How interleaved repetitions were timed, then ``clauses``, in the page's language."""
    timed = text("bench.method.interleaved", reps=params["reps"], warmup=params["warmup"])
    return text("word.list_sep").join((timed, *clauses))


def profile_for(name: str) -> config.Device | None:
    """The ``conf/hardware.toml`` profile whose ``cuda_names`` match the GPU called ``name``.

    >>> profile_for("NVIDIA H100 80GB HBM3").key, profile_for("NVIDIA H100 PCIe")
    ('h100_sxm', None)
    """
    short = name.strip().removeprefix("NVIDIA ").strip()
    profiles = config.devices().values()
    return next((d for d in profiles if any(re.fullmatch(p, short) for p in d.cuda_names)), None)


def datasheet(device: Device, quantity: str) -> float | None:
    """A figure (``bf16_dense_tflops``, ``dram_tb_s``) of the ``conf/hardware.toml`` profile
    of the GPU that ``device`` names; None for a GPU it has no profile of.

    >>> import dataclasses
    >>> from infrabook.bench.records.entry import CudaDevice
    >>> h200 = CudaDevice("cuda", "NVIDIA H200", "580", 132, "9.0", 2**37, 2**26, "x86")
    >>> datasheet(h200, "dram_tb_s"), datasheet(dataclasses.replace(h200, name="x"), "dram_tb_s")
    (4.8, None)
    """
    spec = profile_for(device.name)
    return getattr(spec, quantity).value if spec else None
