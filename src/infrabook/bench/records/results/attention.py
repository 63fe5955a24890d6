"""What the attention experiments measured: peak memory per length (``attention_memory``),
the Triton FlashAttention against SDPA (``gpu_flash``) and against every SDPA backend, causal
and not (``gpu_sdpa``), and what pages derive from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from infrabook.bench.records.entry import Compared, Device, Params, Results
from infrabook.bench.records.results.described import datasheet, table
from infrabook.bench.records.schema import AbsDiff, Bytes, Checked, Count, Pattern, Positive, Text
from infrabook.bench.records.timing import Timing
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


#: The kernels ``gpu_sdpa`` times: the book's Triton kernel and each SDPA backend, as
#: :class:`torch.nn.attention.SDPBackend` names them.
SdpaKernelName = Annotated[
    str,
    Pattern(
        "triton|CUDNN_ATTENTION|FLASH_ATTENTION|EFFICIENT_ATTENTION|MATH",
        "triton, CUDNN_ATTENTION, FLASH_ATTENTION, EFFICIENT_ATTENTION or MATH",
    ),
]


@dataclass(frozen=True)
class SdpaKernel(Checked):
    """One kernel at one mask: its timing and its largest difference from the book's
    kernel, or why it did not run (``reason``: the machine or torch lacks that backend for
    these inputs)."""

    timing: Timing | None = None
    max_abs_diff_vs_triton: AbsDiff | None = None
    reason: Text | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if (self.timing is None) == (self.reason is None):
            raise ValueError("SdpaKernel needs a timing or a reason, not both or neither")


@dataclass(frozen=True)
class SdpaCase(Checked):
    """Every kernel at one mask (causal or not), and the FLOP the shape counts."""

    causal: bool
    flop: Count
    kernels: dict[SdpaKernelName, SdpaKernel]

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.kernels.get("triton") is None or self.kernels["triton"].timing is None:
            raise ValueError("SdpaCase.kernels.triton is missing or was not timed")

    def tflop_s(self, kernel: str) -> float | None:
        """A kernel's TFLOP/s, derived from the shape's FLOP (None where it did not run)."""
        timing = self.kernels[kernel].timing
        return self.flop / timing.median_s / 1e12 if timing else None

    def pct_of(self, kernel: str, tflop_s: float) -> float | None:
        """A kernel's TFLOP/s as a percentage of ``tflop_s``: the GEMM that ``gpu_ceilings``
        measured (``CeilingsResults.gemm.tflop_s``), or a datasheet peak."""
        rate = self.tflop_s(kernel)
        return 100 * rate / tflop_s if rate is not None else None

    def triton_over(self, kernel: str) -> float | None:
        """The book's kernel's throughput over ``kernel``'s (None where it did not run)."""
        theirs = self.tflop_s(kernel)
        ours = self.tflop_s("triton")
        return ours / theirs if ours and theirs else None


@dataclass(frozen=True)
class SdpaResults(Results):
    """Non-causal, then causal."""

    experiment = "gpu_sdpa"
    runs_on = "cuda"

    PARAMS: ClassVar[dict[str, Any]] = {
        "seq_len": Positive,
        "batch": Positive,
        "heads": Positive,
        "head_dim": Positive,
    }
    cases: tuple[SdpaCase, ...]

    def compared(self, params: Params, device: Device) -> Compared:
        """For each mask and each backend that ran: the book's kernel's throughput over the
        backend's, without a model (a ratio, so machines compare)."""
        rows: Compared = {}
        for c in self.cases:
            mask = text(f"bench.sdpa.{'causal' if c.causal else 'full'}")
            for name in c.kernels:
                if name != "triton" and (ratio := c.triton_over(name)) is not None:
                    rows[text("bench.cmp.sdpa_vs", mask=mask, kernel=name)] = (None, ratio)
        return rows

    def tables(self, params: Params, device: Device) -> list[Table]:
        """One row per mask and kernel: time, TFLOP/s, the book's kernel over it, the share
        of the bf16 datasheet peak (for a GPU ``conf/`` has a profile of), the difference
        from the book's kernel, and why a backend did not run."""
        peak = datasheet(device, "bf16_dense_tflops")
        rows = []
        for c in self.cases:
            mask = text(f"bench.sdpa.{'causal' if c.causal else 'full'}")
            for name, k in c.kernels.items():
                rate = c.tflop_s(name)
                shown = text("bench.sdpa.ours") if name == "triton" else name
                rows.append(
                    (mask, shown, k.timing.ms if k.timing else None, rate)
                    + (c.triton_over(name), 100 * rate / peak if rate and peak else None)
                    + (k.max_abs_diff_vs_triton, k.reason)
                )
        p = params
        title = text(
            "bench.sdpa.table", L=p["seq_len"], batch=p["batch"], heads=p["heads"], d=p["head_dim"]
        )
        keys = "mask kernel median_ms tflops triton_vs pct_bf16_peak max_diff_triton note"
        return [table(title, keys, rows)]
