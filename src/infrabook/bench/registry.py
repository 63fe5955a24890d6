"""Every experiment of the suite, CPU ones first, in the order the pages show them."""

from __future__ import annotations

from infrabook.bench import cpu, gpu  # noqa: F401 - declaring them registers them
from infrabook.bench.experiment import REGISTERED, Experiment

EXPERIMENTS: dict[str, Experiment] = {
    e.name: e for e in sorted(REGISTERED.values(), key=lambda e: e.device != "cpu")
}
CPU_EXPERIMENTS = tuple(n for n, e in EXPERIMENTS.items() if e.device == "cpu")
GPU_EXPERIMENTS = tuple(n for n, e in EXPERIMENTS.items() if e.device == "cuda")


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
