"""What the ceilings experiment measured (``gpu_ceilings``): the device copy's bandwidth by
size and a large bf16 GEMM's rate, the two ceilings a reader measures the book's kernels
against, and what pages derive from them."""

from __future__ import annotations

from dataclasses import dataclass

from infrabook.bench.records.entry import Compared, Device, Params, Results
from infrabook.bench.records.results.described import datasheet, table
from infrabook.bench.records.schema import Checked, ModelBytes, Positive, Text
from infrabook.bench.records.timing import Timing
from infrabook.labels import text
from infrabook.tables import Table
from infrabook.units import MiB


@dataclass(frozen=True)
class CopySize(Checked):
    """One device copy ``dst.copy_(src)`` of ``nbytes`` (read once, written once): its
    timing, or why there is none (``reason``: it does not fit, or failed)."""

    nbytes: ModelBytes
    timing: Timing | None = None
    reason: Text | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if (self.timing is None) == (self.reason is None):
            raise ValueError("CopySize needs a timing or a reason, not both or neither")
        if self.timing is not None:
            self.timing.check_rate(2 * self.nbytes, "CopySize.timing")

    @property
    def tb_s(self) -> float | None:
        """Bytes read and written over the median time, in TB/s (None where not timed)."""
        return self.timing.gb_s(2 * self.nbytes) / 1e3 if self.timing else None


@dataclass(frozen=True)
class Gemm(Checked):
    """A square bf16 GEMM ``x @ y`` of side ``n``."""

    n: Positive
    timing: Timing

    @property
    def tflop_s(self) -> float:
        """2 n³ FLOP over the median time, in TFLOP/s."""
        return 2 * self.n**3 / self.timing.median_s / 1e12


@dataclass(frozen=True)
class CeilingsResults(Results):
    """The copy at each size, smallest first, and the GEMM."""

    experiment = "gpu_ceilings"
    runs_on = "cuda"

    copies: tuple[CopySize, ...]
    gemm: Gemm

    @property
    def bandwidth_tb_s(self) -> float | None:
        """The bandwidth ceiling: the largest copy that ran, in TB/s (the smaller ones can
        be helped by L2 or be too short to reach full speed); None when none ran."""
        ran = [c for c in self.copies if c.tb_s is not None]
        return max(ran, key=lambda c: c.nbytes).tb_s if ran else None

    def compared(self, params: Params, device: Device) -> Compared:
        """Each copy's bandwidth and the GEMM's rate as shares of the datasheet's DRAM
        bandwidth and bf16 peak (model: 100 %); for a GPU ``conf/`` has no profile of,
        TB/s and TFLOP/s without a model."""
        dram, peak = datasheet(device, "dram_tb_s"), datasheet(device, "bf16_dense_tflops")
        rows: Compared = {}
        for c in self.copies:
            if (tb_s := c.tb_s) is None:
                continue
            what = text("bench.ceilings.copy", mib=f"{c.nbytes / MiB:g}")
            if dram:
                rows[text("bench.cmp.pct_dram", what=what)] = (100.0, 100 * tb_s / dram)
            else:
                rows[text("bench.cmp.gb_s", what=what)] = (None, 1e3 * tb_s)
        what = text("bench.ceilings.gemm", n=self.gemm.n)
        if peak:
            share = 100 * self.gemm.tflop_s / peak
            rows[text("bench.cmp.pct_bf16_peak", what=what)] = (100.0, share)
        else:
            rows[text("bench.cmp.tflop_s", what=what)] = (None, self.gemm.tflop_s)
        return rows

    def tables(self, params: Params, device: Device) -> list[Table]:
        """The copy by size (TB/s, share of the datasheet's DRAM bandwidth, or why it did not
        run), then the GEMM (TFLOP/s, share of the bf16 datasheet peak)."""
        dram, peak = datasheet(device, "dram_tb_s"), datasheet(device, "bf16_dense_tflops")
        copies = (
            (c.nbytes / MiB, c.timing.us if c.timing else None, c.tb_s)
            + (100 * c.tb_s / dram if c.tb_s and dram else None, c.reason)
            for c in self.copies
        )
        g = self.gemm
        gemm = [(g.n, g.timing.ms, g.tflop_s, 100 * g.tflop_s / peak if peak else None)]
        copy_keys = "size_mib median_us tb_s pct_dram note"
        return [
            table(text("bench.ceilings.copy_table"), copy_keys, copies),
            table(text("bench.ceilings.gemm_table"), "n median_ms tflops pct_bf16_peak", gemm),
        ]
