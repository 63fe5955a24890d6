"""Every experiment of the suite, listed: CPU ones first, in the order the pages show them."""

from __future__ import annotations

from infrabook.bench.experiments import attention, ceilings, fusion, launches, persistent, shapes
from infrabook.bench.experiments.base import Experiment
from infrabook.bench.records.results import CPU_EXPERIMENTS, GPU_EXPERIMENTS, RESULTS

__all__ = ["CPU_EXPERIMENTS", "EXPERIMENTS", "GPU_EXPERIMENTS", "get"]

_LISTED = (
    fusion.fusion,
    attention.attention_memory,
    launches.launches,
    shapes.shapes,
    fusion.gpu_swiglu,
    attention.gpu_flash,
    attention.gpu_sdpa,
    launches.gpu_graphs,
    persistent.gpu_persistent,
    ceilings.gpu_ceilings,
)
EXPERIMENTS: dict[str, Experiment] = {e.name: e for e in _LISTED}
if len(EXPERIMENTS) < len(_LISTED):  # a record keys its entries by name
    raise ValueError(f"two experiments share a name: {[e.name for e in _LISTED]}")
if list(EXPERIMENTS) != list(RESULTS):  # records and pages follow the results' order
    raise ValueError(f"the suite lists {list(EXPERIMENTS)}, the results {list(RESULTS)}")


def get(name: str) -> Experiment:
    """The experiment called ``name``; ``ValueError`` listing the known ones otherwise.

    >>> get("fusion").device, get("gpu_flash").device
    ('cpu', 'cuda')
    """
    try:
        return EXPERIMENTS[name]
    except KeyError:
        raise ValueError(
            f"unknown experiment {name!r}: expected one of {', '.join(EXPERIMENTS)}"
        ) from None
