"""The ceilings (GPU only): how fast this GPU copies memory, by size, and how fast it runs a
large bf16 GEMM, measured in the same run as the book's kernels so that a kernel's share of
either is read against this machine, not only against the datasheet."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from infrabook.bench.experiments.base import Measured, experiment, first_line, log
from infrabook.bench.measure.cuda import Rig, bf16
from infrabook.bench.records.results.ceilings import CeilingsResults, CopySize, Gemm
from infrabook.checks import check_positive_int, check_sizes
from infrabook.units import MiB

#: The copy sizes in MiB: the article's fused SwiGLU working set (72 MiB: [1024, 12288]
#: bf16, three tensors) to 4 GiB, far beyond any L2.
COPY_MIB = (72, 288, 1024, 4096)


def _copy(rig: Rig, nbytes: int) -> CopySize:
    """A device copy of ``nbytes``, timed with the L2 flushed; skipped when source and
    destination would take more than half the GPU's memory (the rest is the process's and
    the flush buffer's), and failed, with the reason, when the allocation does."""
    memory = rig.info.memory_bytes
    if 2 * nbytes > memory // 2:
        why = f"skipped: source and destination need {2 * nbytes / MiB:g} MiB, more than half"
        return CopySize(nbytes, reason=f"{why} of the GPU's {memory / MiB:g} MiB")
    try:
        (src,) = bf16(rig, nbytes // 2, n=1)
        dst = torch.empty_like(src)
        timing = rig.flushed(lambda: dst.copy_(src))
    except torch.OutOfMemoryError as err:
        return CopySize(nbytes, reason=f"failed: {first_line(err)}")
    if not torch.equal(dst, src):
        raise RuntimeError(f"the device copy of {nbytes / MiB:g} MiB did not copy")
    return CopySize(nbytes, timing)


@experiment(CeilingsResults, full={"copy_mib": COPY_MIB, "gemm_n": 8192}, limit_s=30)
def gpu_ceilings(rig: Rig, copy_mib: Sequence[int], gemm_n: int) -> Measured:
    """The bandwidth ceiling (a device copy, bf16, at each size in ``copy_mib``) and the
    compute ceiling (a square bf16 GEMM of side ``gemm_n``), both timed with the L2 flushed.
    Times are stored; TB/s (bytes read and written over the time) and TFLOP/s (2 n³ over
    the time) are derived when read."""
    copies = []
    for mib in check_sizes("copy_mib", copy_mib):
        log.info("gpu_ceilings: copy of %d MiB ...", mib)
        copies.append(_copy(rig, mib * MiB))
    n = check_positive_int("gemm_n", gemm_n)
    log.info("gpu_ceilings: bf16 GEMM %d^3 ...", n)
    x, y = bf16(rig, n, n)
    timing = rig.flushed(lambda: x @ y)
    return Measured(CeilingsResults(tuple(copies), Gemm(n, timing)), params={"dtype": "bf16"})
