"""What the attention experiments measured: peak memory per length (``attention_memory``)
and the Triton FlashAttention against SDPA (``gpu_flash``), and what pages derive from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from infrabook.bench.entry import Compared, Device, Params, Results
from infrabook.bench.results.described import datasheet, table
from infrabook.bench.schema import AbsDiff, Bytes, Checked, Count, Positive, Text
from infrabook.bench.timing import Timing
from infrabook.labels import text
from infrabook.tables import Table
from infrabook.units import MiB


@dataclass(frozen=True)
class AttentionRow(Checked):
    """Peak bytes of naive and blockwise attention at one L, beside the model's."""

    seq_len: Positive
    predicted_naive_bytes: Bytes
    predicted_blockwise_bytes: Bytes
    naive_peak_bytes: Bytes
    blockwise_peak_bytes: Bytes
    allclose: bool
    max_abs_diff: AbsDiff

    @property
    def ratio(self) -> float:
        """Blockwise peak over naive peak."""
        return self.blockwise_peak_bytes / self.naive_peak_bytes


@dataclass(frozen=True)
class AttentionResults(Results):
    """One row per sequence length."""

    experiment = "attention_memory"
    runs_on = "cpu"

    PARAMS: ClassVar[dict[str, Any]] = {
        "head_dim": Positive,
        "block_q": Positive,
        "block_k": Positive,
    }
    per_seq_len: tuple[AttentionRow, ...]

    def compared(self, params: Params, device: Device) -> Compared:
        """Naive and blockwise peak MiB at each L, beside the model's."""
        rows: Compared = {}
        for r in self.per_seq_len:
            naive, block = r.predicted_naive_bytes / MiB, r.predicted_blockwise_bytes / MiB
            rows[text("bench.cmp.naive_mib", L=r.seq_len)] = (naive, r.naive_peak_bytes / MiB)
            rows[text("bench.cmp.block_mib", L=r.seq_len)] = (block, r.blockwise_peak_bytes / MiB)
        return rows

    def tables(self, params: Params, device: Device) -> list[Table]:
        """Model and measured peaks by L."""
        rows = (
            (r.seq_len, r.predicted_naive_bytes / MiB, r.naive_peak_bytes / MiB)
            + (r.predicted_blockwise_bytes / MiB, r.blockwise_peak_bytes / MiB, 100 * r.ratio)
            + (r.allclose, r.max_abs_diff)
            for r in self.per_seq_len
        )
        p = params
        title = text("bench.attention.table", d=p["head_dim"], bq=p["block_q"], bk=p["block_k"])
        keys = "seq_len model_naive_mib naive_peak_mib model_block_mib block_peak_mib"
        return [table(title, keys + " block_pct allclose max_diff", rows)]


@dataclass(frozen=True)
class FlashRow(Checked):
    """The Triton kernel and SDPA at one sequence length."""

    seq_len: Positive
    batch: Positive
    flop: Count
    max_abs_diff_vs_sdpa: AbsDiff
    flash: Timing
    sdpa: Timing
    sdpa_backend: Text

    def tflop_s(self, kernel: str) -> float:
        """TFLOP/s of ``flash`` or ``sdpa``."""
        return self.flop / getattr(self, kernel).median_s / 1e12

    @property
    def ratio(self) -> float:
        """Triton's throughput over SDPA's."""
        return self.tflop_s("flash") / self.tflop_s("sdpa")

    def pct_of(self, peak_tflop_s: float) -> float:
        """Triton's TFLOP/s as a percentage of ``peak_tflop_s``."""
        return 100 * self.tflop_s("flash") / peak_tflop_s


@dataclass(frozen=True)
class FlashResults(Results):
    """One row per sequence length."""

    experiment = "gpu_flash"
    runs_on = "cuda"

    PARAMS: ClassVar[dict[str, Any]] = {"head_dim": Positive, "heads": Positive}
    per_seq_len: tuple[FlashRow, ...]

    def compared(self, params: Params, device: Device) -> Compared:
        """By L: Triton's TFLOP/s as a share of the GPU's bf16 datasheet peak (model: 100 %,
        the roofline's ceiling for a compute-bound kernel; only for a GPU ``conf/`` has a
        profile of) and Triton's throughput over SDPA's, without a model."""
        peak = datasheet(device, "bf16_dense_tflops")
        rows: Compared = {}
        for r in self.per_seq_len:
            if peak:
                rows[text("bench.cmp.pct_peak_at", L=r.seq_len)] = (100.0, r.pct_of(peak))
            rows[text("bench.cmp.vs_sdpa", L=r.seq_len)] = (None, r.ratio)
        return rows

    def tables(self, params: Params, device: Device) -> list[Table]:
        """Times, rates and their ratio by L, with the share of the bf16 peak that
        ``conf/hardware.toml`` gives for this GPU (none for a GPU it has no profile of)."""
        peak = datasheet(device, "bf16_dense_tflops")
        rows = (
            (r.seq_len, r.batch, r.flash.ms, r.tflop_s("flash"), r.sdpa.ms, r.tflop_s("sdpa"))
            + (r.sdpa_backend, r.ratio, r.pct_of(peak) if peak else None)
            + (r.max_abs_diff_vs_sdpa,)
            for r in self.per_seq_len
        )
        keys = "seq_len batch triton_ms triton_tflops sdpa_ms sdpa_tflops sdpa_backend"
        title = text("bench.flash.table", d=params["head_dim"], heads=params["heads"])
        return [table(title, keys + " triton_vs_sdpa pct_datasheet max_diff_sdpa", rows)]
