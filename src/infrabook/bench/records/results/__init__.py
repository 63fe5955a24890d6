"""What each experiment measured, as typed results and what pages derive from them: the
records layer, which imports no torch, psutil or matplotlib (the experiments that measure
import these types, not the other way round).

:data:`RESULTS` lists every experiment's results type by name, CPU ones first, in the order
the pages show them; :mod:`infrabook.bench.experiments.suite` lists the experiments in the
same order.
"""

from __future__ import annotations

from infrabook.bench.records.entry import Results
from infrabook.bench.records.results.attention import AttentionResults, FlashResults, SdpaResults
from infrabook.bench.records.results.ceilings import CeilingsResults
from infrabook.bench.records.results.fusion import FusionResults, SwigluResults
from infrabook.bench.records.results.launches import GraphResults, LaunchResults
from infrabook.bench.records.results.persistent import PersistentResults
from infrabook.bench.records.results.shapes import ShapesResults

#: Each experiment's results type, by the experiment's name, in suite order.
RESULTS: dict[str, type[Results]] = {
    t.experiment: t
    for t in (
        FusionResults,
        AttentionResults,
        LaunchResults,
        ShapesResults,
        SwigluResults,
        FlashResults,
        SdpaResults,
        GraphResults,
        PersistentResults,
        CeilingsResults,
    )
}
#: The experiments that run on the host CPU, and those that need a CUDA GPU.
CPU_EXPERIMENTS = tuple(name for name, t in RESULTS.items() if t.runs_on == "cpu")
GPU_EXPERIMENTS = tuple(name for name, t in RESULTS.items() if t.runs_on == "cuda")


def results_type(name: str) -> type[Results]:
    """The results type of the experiment called ``name``; ``ValueError`` listing the
    known ones otherwise.

    >>> results_type("gpu_flash").runs_on
    'cuda'
    """
    try:
        return RESULTS[name]
    except KeyError:
        raise ValueError(
            f"unknown experiment {name!r}: expected one of {', '.join(RESULTS)}"
        ) from None
