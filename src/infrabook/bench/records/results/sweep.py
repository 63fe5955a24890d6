"""What the fusion size sweeps measured: the fused SwiGLU, the eager expression and a copy
of the fused path's bytes at sizes from well inside the caches to far beyond them, each
timed with the caches (L2 on a GPU) flushed and not; on the CPU (``fusion_sweep``) and on a
GPU (``gpu_fusion_sweep``). They show where time = bytes / bandwidth holds and where the
caches or small transfers bend it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from infrabook.bench.records.entry import Compared, Device, Params, Results
from infrabook.bench.records.results.described import table, timed_method
from infrabook.bench.records.schema import Checked, Count, ModelBytes, Pattern, Positive, Text
from infrabook.bench.records.timing import MODES, Timing
from infrabook.labels import text
from infrabook.tables import Table
from infrabook.units import MiB

#: The paths at each size: the fused kernel (on a CPU, ``torch.compile``'s loop), the eager
#: expression (two kernels, T written and read back) and the copy of the fused bytes.
SweepName = Annotated[str, Pattern("fused|eager|copy", "fused, eager or copy")]
#: How close to the largest size's bandwidth a size must come for time = bytes / bandwidth
#: to count as holding there: 10 %, about the run-to-run spread of one size's median.
HOLDS_WITHIN = 0.10


@dataclass(frozen=True)
class SweepPath(Checked):
    """One path at one size: its modelled bytes and both timings."""

    model_bytes: ModelBytes
    flushed: Timing
    unflushed: Timing

    def __post_init__(self) -> None:
        super().__post_init__()
        for mode in MODES:
            getattr(self, mode).check_rate(self.model_bytes, f"SweepPath.{mode}")

    def gb_s(self, mode: str) -> float:
        """Model bytes over the median time, caches ``flushed`` or ``unflushed``, in GB/s."""
        timing: Timing = getattr(self, mode)
        return timing.gb_s(self.model_bytes)


@dataclass(frozen=True)
class SweepPoint(Checked):
    """One size: ``rows`` of the experiment's ``cols``, the fused plan's modelled bytes
    (the sweep's axis), and the paths that ran; no paths and the ``reason`` where the size
    did not fit."""

    rows: Positive
    fused_bytes: ModelBytes
    paths: dict[SweepName, SweepPath]
    reason: Text | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.reason is None and not {"eager", "copy"} <= set(self.paths):
            raise ValueError("SweepPoint.paths needs 'eager' and 'copy' at a size that ran")
        if self.reason is not None and self.paths:
            raise ValueError("SweepPoint has paths and a reason: a size ran or it did not")

    def pct_copy(self, name: str, mode: str) -> float:
        """A path's GB/s as a percentage of the copy's at this size, in the same mode."""
        return 100 * self.paths[name].gb_s(mode) / self.paths["copy"].gb_s(mode)

    def speedup(self, mode: str) -> float | None:
        """Eager's median time over the fused path's (None where the fused path did not run)."""
        if "fused" not in self.paths:
            return None
        eager, fused = (getattr(self.paths[n], mode).median_s for n in ("eager", "fused"))
        return float(eager / fused)


@dataclass(frozen=True)
class SweepResults(Results):
    """Each size, smallest first, and why the fused path is missing where it is (a CPU
    without a C++ compiler for ``torch.compile``; None when it ran)."""

    PARAMS: ClassVar[dict[str, Any]] = {"cols": Positive}
    points: tuple[SweepPoint, ...]
    fused_reason: Text | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        sizes = [p.fused_bytes for p in self.points]
        if not sizes or sizes != sorted(set(sizes)):
            raise ValueError("SweepResults.points must be one or more sizes, smallest first")

    @property
    def ran(self) -> tuple[SweepPoint, ...]:
        """The sizes that ran, smallest first."""
        return tuple(p for p in self.points if p.reason is None)

    @property
    def model_speedup(self) -> float:
        """Eager's modelled bytes over the fused path's: the byte model's speed-up."""
        p = self.ran[0]
        return p.paths["eager"].model_bytes / p.fused_bytes

    def ceiling_gb_s(self, mode: str = "flushed") -> float:
        """The copy's GB/s at the largest size that ran: the bandwidth the sweep reaches."""
        return self.ran[-1].paths["copy"].gb_s(mode)

    def holds_from(self, name: str = "copy", mode: str = "flushed") -> SweepPoint | None:
        """The smallest size from which the path's GB/s stays within :data:`HOLDS_WITHIN`
        of its GB/s at the largest size, at every larger size too: where time = bytes /
        bandwidth holds (None when the path did not run at the largest size)."""
        ran = [p for p in self.ran if name in p.paths]
        if not ran or ran[-1] is not self.ran[-1]:
            return None
        top = ran[-1].paths[name].gb_s(mode)
        first = ran[-1]
        for p in reversed(ran):
            if abs(p.paths[name].gb_s(mode) / top - 1) > HOLDS_WITHIN:
                break
            first = p
        return first

    def cache_gain(self, name: str = "copy") -> tuple[SweepPoint, float]:
        """The size where leaving the caches warm helps the path most, and by how much:
        the unflushed GB/s over the flushed GB/s there."""
        gains = [
            (p, p.paths[name].gb_s("unflushed") / p.paths[name].gb_s("flushed"))
            for p in self.ran
            if name in p.paths
        ]
        return max(gains, key=lambda pg: pg[1])

    def compared(self, params: Params, device: Device) -> Compared:
        """At each size, caches flushed: the fused path's speed-up over eager (model: the
        bytes' ratio) and its bandwidth as a share of the copy's (model: 100 %)."""
        rows: Compared = {}
        for p in self.ran:
            if "fused" not in p.paths:
                continue
            size = f"{p.fused_bytes / MiB:g} MiB"
            rows[text("bench.cmp.speedup", what=f"{size} fused")] = (
                self.model_speedup,
                p.speedup("flushed"),
            )
            what = f"{size} fused"
            rows[text("bench.cmp.pct_copy", what=what)] = (100.0, p.pct_copy("fused", "flushed"))
        return rows

    def tables(self, params: Params, device: Device) -> list[Table]:
        """One row per size and cache state: each path's median time, the fused path's and
        the copy's GB/s, the fused path's share of the copy and its speed-up over eager."""
        rows: list[tuple[Any, ...]] = []
        for p in self.points:
            size = p.fused_bytes / MiB
            if p.reason is not None:
                rows.append((size, p.rows, "—", None, None, None, None, None, None, None))
                continue
            for mode in MODES:
                us = {n: getattr(path, mode).us for n, path in p.paths.items()}
                fused = p.paths.get("fused")
                rows.append(
                    (size, p.rows, text(f"bench.sweep.{mode}"))
                    + (us.get("fused"), us["eager"], us["copy"])
                    + (fused.gb_s(mode) if fused else None, p.paths["copy"].gb_s(mode))
                    + (p.pct_copy("fused", mode) if fused else None, p.speedup(mode))
                )
        keys = "fused_mib rows cache fused_us eager_us copy_us fused_gb_s copy_gb_s pct_copy"
        keys += " speedup_eager"
        title = text(f"bench.sweep.table.{self.runs_on}", cols=params["cols"])
        notes = [p for p in self.points if p.reason]
        if self.fused_reason:
            title += text("bench.sweep.no_fused", reason=self.fused_reason)
        if notes:
            title += text("bench.sweep.skipped", reason=notes[0].reason)
        return [table(title, keys, rows)]


@dataclass(frozen=True)
class FusionSweepResults(SweepResults):
    """The sweep on the host CPU, fp32: eager PyTorch, ``torch.compile``'s loop, a copy."""

    experiment = "fusion_sweep"
    runs_on = "cpu"

    PARAMS: ClassVar[dict[str, Any]] = {
        "cols": Positive, "reps": Positive, "warmup": Count, "flush_mib": Positive,
    }  # fmt: skip

    def method(self, params: Params) -> str:
        """Repetitions, the cache flush, and how GB/s is counted."""
        flush = text("bench.method.flush", mib=params["flush_mib"])
        return timed_method(params, flush, text("bench.method.fusion_sweep"))


@dataclass(frozen=True)
class GpuSweepResults(SweepResults):
    """The sweep on a GPU, bf16: the book's fused Triton kernel, torch eager, a copy."""

    experiment = "gpu_fusion_sweep"
    runs_on = "cuda"
