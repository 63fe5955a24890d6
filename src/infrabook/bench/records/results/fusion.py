"""What the fusion experiments measured: the CPU paths (``fusion``) and the GPU paths per
shape (``gpu_swiglu``), and what pages derive from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from infrabook.bench.records.entry import Compared, Device, Params, Results
from infrabook.bench.records.results.described import table, timed_method
from infrabook.bench.records.schema import (
    AbsDiff,
    Checked,
    Count,
    ModelBytes,
    Pattern,
    Positive,
    Seconds,
    Text,
)
from infrabook.bench.records.timing import MODES, Timing
from infrabook.labels import text
from infrabook.tables import Table
from infrabook.units import MiB

#: The CPU paths: those with a label ``bench.fusion.path.<name>``.
FusionName = Annotated[
    str, Pattern("eager|compile|numexpr|copy", "eager, compile, numexpr or copy")
]
#: The GPU paths: the fused Triton kernel, the unfused pair, torch eager, ``torch.compile``
#: of the eager expression (records from 2026-12-05 on) and the copy.
SwigluName = Annotated[
    str,
    Pattern(
        "triton_fused|triton_unfused|torch_eager|torch_compile|copy",
        "triton_fused, triton_unfused, torch_eager, torch_compile or copy",
    ),
]


@dataclass(frozen=True)
class FusionPath(Checked):
    """One way to get ``z`` (or the copy beside them): modelled bytes, and the timing or why
    there is none (``reason``: ``skipped: ...`` or ``failed: ...``)."""

    model_bytes: ModelBytes
    fused: bool | None  # None: the copy, the bandwidth reference
    timing: Timing | None = None
    allclose: bool | None = None
    reason: Text | None = None
    compile_s: Seconds | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.timing is not None:
            self.timing.check_rate(self.model_bytes, "FusionPath.timing")

    @property
    def gb_s(self) -> float:
        """Model bytes over the median time."""
        assert self.timing is not None, "a path that did not run has no bandwidth"
        return self.timing.gb_s(self.model_bytes)


@dataclass(frozen=True)
class FusionResults(Results):
    """The paths ``eager``, ``compile``, ``numexpr`` and ``copy``, in that order: ``eager``
    and ``copy`` always (what the others are compared with) and at least one fused path."""

    experiment = "fusion"
    runs_on = "cpu"

    PARAMS: ClassVar[dict[str, Any]] = {
        "rows": Positive, "cols": Positive, "threads": Positive, "reps": Positive,
        "warmup": Count, "flush_mib": Count | None,
    }  # fmt: skip
    paths: dict[FusionName, FusionPath]

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("eager", "copy"):
            if self.paths.get(name) is None or self.paths[name].timing is None:
                raise ValueError(f"FusionResults.paths.{name} is missing or was not timed")
        if not any(p.fused for p in self.paths.values()):
            raise ValueError("FusionResults.paths has no fused path (fused: true)")

    def pct_copy(self, name: str) -> float:
        """A path's GB/s as a percentage of the copy's."""
        return 100 * self.paths[name].gb_s / self.paths["copy"].gb_s

    def speedup(self, name: str) -> float | None:
        """Eager's time over the path's (None for the copy, which computes nothing)."""
        timing, eager = self.paths[name].timing, self.paths["eager"].timing
        if name == "copy" or timing is None or eager is None:
            return None
        return eager.median_s / timing.median_s

    @property
    def model_speedup(self) -> float:
        """Unfused model bytes over fused."""
        fused = next(p.model_bytes for p in self.paths.values() if p.fused)
        return self.paths["eager"].model_bytes / fused

    @property
    def best(self) -> str | None:
        """The fastest fused path that ran."""
        ran = {n: p.timing.median_s for n, p in self.paths.items() if p.fused and p.timing}
        return min(ran, key=ran.__getitem__) if ran else None

    def method(self, params: Params) -> str:
        """Repetitions, the cache flush, and how GB/s is counted."""
        mib = params["flush_mib"]
        flush = text("bench.method.flush", mib=mib) if mib else text("bench.method.no_flush")
        return timed_method(params, flush, text("bench.method.fusion"))

    def compared(self, params: Params, device: Device) -> Compared:
        """Each fused path's speed-up over eager (model: the bytes' ratio) and each path's
        bandwidth as a share of the copy's (model: 100 %, every path moving its modelled
        bytes at copy bandwidth); the copy's GB/s beside them, without a model."""
        rows: Compared = {}
        size = f"[{params['rows']}, {params['cols']}]"  # a quick run's rows are not a full one's
        ran = [n for n, p in self.paths.items() if p.timing is not None]
        for name in ran:
            if self.paths[name].fused:
                row = text("bench.cmp.speedup", what=f"{size} {name}")
                rows[row] = (self.model_speedup, self.speedup(name))
        for name in ran:
            if name != "copy" and "copy" in ran:
                row = text("bench.cmp.pct_copy", what=f"{size} {name}")
                rows[row] = (100.0, self.pct_copy(name))
        if "copy" in ran:
            rows[f"{size} {text('bench.cmp.copy_gb_s')}"] = (None, self.paths["copy"].gb_s)
        return rows

    def tables(self, params: Params, device: Device) -> list[Table]:
        """One row per path, beside the model's speed-up."""
        rows = []
        for name, p in self.paths.items():
            what, t = text(f"bench.fusion.path.{name}"), p.timing
            measured = (t.ms, t.spread_ms) if t else (None, None)
            rates = (p.gb_s, self.pct_copy(name)) if t else (None, None)
            model = {True: self.model_speedup, False: 1.0, None: None}[p.fused]
            what = what if t else f"{what}({p.reason})"
            rows.append(
                (name, what, *measured, p.model_bytes / MiB, *rates, self.speedup(name), model)
            )
        size = {"rows": params["rows"], "cols": params["cols"], "cores": params["threads"]}
        title = text("bench.fusion.table", **size)
        keys = "path what median_ms spread_ms model_mib gb_s pct_copy speedup_eager model_speedup"
        return [table(title, keys, rows)]


@dataclass(frozen=True)
class SwigluPath(Checked):
    """One implementation at one shape: modelled bytes, error, both timings, and for
    ``torch_compile`` the seconds its first call took to compile at this shape."""

    model_bytes: ModelBytes
    max_abs_err_vs_fp32: AbsDiff
    flushed: Timing
    unflushed: Timing
    compile_s: Seconds | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        for mode in MODES:
            getattr(self, mode).check_rate(self.model_bytes, f"SwigluPath.{mode}")

    def gb_s(self, mode: str) -> float:
        """Model bytes over the median time, L2 ``flushed`` or ``unflushed``."""
        return getattr(self, mode).gb_s(self.model_bytes)

    def pct_of(self, mode: str, tb_s: float) -> float:
        """The path's bandwidth as a percentage of ``tb_s`` TB/s: the ceiling that
        ``gpu_ceilings`` measured with a large copy (``CeilingsResults.bandwidth_tb_s``),
        beside :meth:`SwigluShape.pct_copy`'s same-size copy."""
        return 100 * self.gb_s(mode) / (1e3 * tb_s)


@dataclass(frozen=True)
class SwigluShape(Checked):
    """The three implementations and the ``copy`` of the fused path's bytes at one shape,
    and whether the fused working set fits L2."""

    rows: Positive
    cols: Positive
    fits_l2: bool
    paths: dict[SwigluName, SwigluPath]

    def __post_init__(self) -> None:
        super().__post_init__()
        if "copy" not in self.paths or "triton_fused" not in self.paths:
            raise ValueError("SwigluShape.paths needs the paths 'copy' and 'triton_fused'")

    def pct_copy(self, path: SwigluPath, mode: str) -> float:
        """A path's GB/s as a percentage of the copy's at this shape, both L2 ``flushed``
        or both ``unflushed``: the same bytes, the same timer, the same L2 state."""
        return 100 * path.gb_s(mode) / self.paths["copy"].gb_s(mode)


@dataclass(frozen=True)
class SwigluResults(Results):
    """Each shape, and why ``torch_compile`` is not among its paths when it is not (None
    when it is, and in records made before it was measured)."""

    experiment = "gpu_swiglu"
    runs_on = "cuda"

    shapes: tuple[SwigluShape, ...]
    compile_reason: Text | None = None

    def compared(self, params: Params, device: Device) -> Compared:
        """Each path's bandwidth as a share of the copy's at each shape, L2 flushed and not
        (model: 100 %, every path moving its modelled bytes at copy bandwidth)."""
        rows: Compared = {}
        for s in self.shapes:
            for name, p in s.paths.items():
                for mode in MODES if name != "copy" else ():
                    what = f"[{s.rows}, {s.cols}] {name} · {text(f'bench.l2.{mode}')}"
                    rows[text("bench.cmp.pct_copy", what=what)] = (100.0, s.pct_copy(p, mode))
        return rows

    def tables(self, params: Params, device: Device) -> list[Table]:
        """One row per shape, path and L2 mode."""
        rows = (
            (f"[{s.rows}, {s.cols}]", name, text(f"bench.l2.{mode}"), p.model_bytes / MiB)
            + (getattr(p, mode).us, p.gb_s(mode), s.pct_copy(p, mode))
            + (s.fits_l2, p.compile_s)
            for s in self.shapes
            for name, p in s.paths.items()
            for mode in MODES
        )
        keys = "shape path l2 model_mib median_us gb_s pct_copy fits_l2 compile_s"
        return [table(text("bench.swiglu.table"), keys, rows)]
