"""Roofline bounds, arithmetic intensity and bandwidth claims.

A kernel cannot finish faster than its bytes over DRAM bandwidth, nor faster than its FLOP
over peak compute. Turned around, a measured time implies a bandwidth; a claim that needs
more than the device's DRAM can deliver is only possible if the data came from a cache
(L2) that holds the whole working set, or if the shape was not what was stated.

Arithmetic intensity (FLOP per DRAM byte) places a kernel against a device's ridge point,
peak over bandwidth (Williams, Waterman and Patterson's roofline model). Pointwise math
runs on the FP32 units, not the tensor cores, so its ridge is the FP32 one.
"""

from __future__ import annotations

from dataclasses import dataclass

from infrabook.attention_sizes import attention_flop, attention_sizes, flash_traffic
from infrabook.checks import check_finite, check_positive_int
from infrabook.config import Device, devices, scenarios
from infrabook.dataflow import account, fully_fused, unfused
from infrabook.ffn_chain import activation_chain
from infrabook.labels import text
from infrabook.units import dtype_bytes


def lower_bound_s(nbytes: float, flop: float, device: Device) -> float:
    """The roofline's lower bound on time: max(bytes / bandwidth, FLOP / peak), in seconds.

    The article's fused activation chain moves 72 MiB; its few FLOP per element are
    negligible beside the bytes. On an H200:

    >>> from infrabook.config import device
    >>> round(lower_bound_s(72 * 2**20, 0, device("h200")) * 1e6, 1)
    15.7
    """
    check_finite("nbytes", nbytes)
    check_finite("flop", flop)
    bw = device.dram_tb_s.value
    peak = device.bf16_dense_tflops.value
    if bw is None or peak is None:
        raise ValueError(f"device {device.key!r} lacks a bandwidth or peak figure")
    return max(nbytes / (bw * 1e12), flop / (peak * 1e12))


def implied_tb_s(nbytes: float, seconds: float) -> float:
    """The bandwidth (TB/s, 10**12 byte/s) that moving ``nbytes`` in ``seconds`` requires.

    The article's fused chain, 72 MiB in 7.7 us:

    >>> round(implied_tb_s(72 * 2**20, 7.7e-6), 1)
    9.8
    """
    check_finite("nbytes", nbytes)
    check_finite("seconds", seconds, positive=True)
    return nbytes / seconds / 1e12


@dataclass(frozen=True)
class BandwidthVerdict:
    """Whether a measured time is possible from DRAM, and on which devices from L2."""

    implied_tb_s: float
    fastest_dram: Device
    dram_possible_on: tuple[str, ...]
    fits_l2_on: tuple[str, ...]

    @property
    def plausible_from_dram(self) -> bool:
        """True when some listed device's DRAM delivers the implied bandwidth."""
        return bool(self.dram_possible_on)

    @property
    def summary(self) -> str:
        """One sentence for the audit, in the build's language, naming devices as readers
        know them (not by their ``conf/hardware.toml`` keys).

        >>> v = check_bandwidth_claim(72 * 2**20, 7.7e-6, 72 * 2**20)
        >>> "rtx_pro_6000" in v.summary, "RTX PRO 6000" in v.summary
        (False, True)
        """
        sep = text("roofline.verdict.sep")
        if self.plausible_from_dram:
            return text(
                "roofline.verdict.from_dram",
                tb_s=f"{self.implied_tb_s:.1f}",
                devices=sep.join(devices()[k].name for k in self.dram_possible_on),
            )
        best = self.fastest_dram
        return text(
            "roofline.verdict.not_from_dram",
            tb_s=f"{self.implied_tb_s:.1f}",
            fastest=best.name,
            fastest_tb_s=f"{best.dram_tb_s.value:g}",
            l2=sep.join(devices()[k].name for k in self.fits_l2_on)
            or text("roofline.verdict.none"),
        )


def check_bandwidth_claim(
    nbytes: float, seconds: float, working_set_bytes: float
) -> BandwidthVerdict:
    """Judge a claim "``nbytes`` moved in ``seconds``" against every device profile.

    >>> v = check_bandwidth_claim(72 * 2**20, 7.7e-6, 72 * 2**20)
    >>> v.plausible_from_dram, v.fits_l2_on
    (False, ('rtx_pro_6000',))
    """
    check_finite("working_set_bytes", working_set_bytes)
    need = implied_tb_s(nbytes, seconds)
    profiles = [d for d in devices().values() if d.dram_tb_s.value is not None]
    return BandwidthVerdict(
        implied_tb_s=need,
        fastest_dram=max(profiles, key=lambda d: d.dram_tb_s.value or 0.0),
        dram_possible_on=tuple(d.key for d in profiles if (d.dram_tb_s.value or 0) >= need),
        fits_l2_on=tuple(
            d.key for d in profiles if d.l2_bytes is not None and d.l2_bytes >= working_set_bytes
        ),
    )


#: The execution units a workload's FLOP run on: pointwise math on the FP32 (non-tensor)
#: units, matrix products on the bf16 tensor cores.
UNITS = ("fp32", "bf16")

#: FLOP per element of ``silu(g) * u`` counted as the formula reads, x / (1 + e^-x) * u:
#: negate, exp, add, divide, multiply. Counting exp and the division as one FLOP each
#: flatters the chain (each takes several instructions), which only strengthens the
#: conclusion that the chain is far below the ridge.
SWIGLU_FLOP_PER_ELEMENT = 5


def peak_tflops(device: Device, unit: str) -> float:
    """The device's dense peak on ``unit`` ("fp32" non-tensor or "bf16" tensor cores).

    >>> from infrabook.config import device
    >>> peak_tflops(device("h100_sxm"), "fp32"), peak_tflops(device("h100_sxm"), "bf16")
    (67.0, 989.4)
    """
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {UNITS}, got {unit!r}")
    fig = device.fp32_tflops if unit == "fp32" else device.bf16_dense_tflops
    if fig.value is None:
        raise ValueError(f"device {device.key!r} has no {unit} peak figure")
    return fig.value


def ridge_point(device: Device, unit: str) -> float:
    """FLOP per byte of DRAM traffic at which ``unit``'s peak and DRAM bandwidth meet.

    Below it a kernel is bound by bandwidth, above it by compute. The article's device
    (RTX PRO 6000, 503.8 TFLOP/s bf16 over 1.792 TB/s) and its FP32 units:

    >>> from infrabook.config import device
    >>> rtx = device("rtx_pro_6000")
    >>> round(ridge_point(rtx, "bf16")), round(ridge_point(rtx, "fp32"))
    (281, 70)
    """
    bw = device.dram_tb_s.value
    if bw is None:
        raise ValueError(f"device {device.key!r} has no DRAM bandwidth figure")
    return peak_tflops(device, unit) / bw


@dataclass(frozen=True)
class Workload:
    """A kernel's FLOP and DRAM bytes, and the units its FLOP run on: a point on a roofline."""

    name: str
    flop: float
    nbytes: float
    unit: str

    def __post_init__(self) -> None:
        check_finite("flop", self.flop)
        check_finite("nbytes", self.nbytes, positive=True)
        if self.unit not in UNITS:
            raise ValueError(f"unit must be one of {UNITS}, got {self.unit!r}")

    @property
    def intensity(self) -> float:
        """Arithmetic intensity, FLOP per byte moved to or from DRAM."""
        return self.flop / self.nbytes

    def attainable_tflops(self, device: Device) -> float:
        """The roofline's ceiling for this workload: min(peak, intensity x bandwidth).

        >>> from infrabook.config import device
        >>> w = Workload("x", flop=10.0, nbytes=1.0, unit="fp32")
        >>> round(w.attainable_tflops(device("h100_sxm")), 1)
        33.5
        """
        bw = device.dram_tb_s.value
        if bw is None:
            raise ValueError(f"device {device.key!r} has no DRAM bandwidth figure")
        return min(peak_tflops(device, self.unit), self.intensity * bw)

    def bound(self, device: Device) -> str:
        """``"memory"`` below the device's ridge point for this unit, else ``"compute"``."""
        return "memory" if self.intensity < ridge_point(device, self.unit) else "compute"


def silu_chain_workloads(rows: int, cols: int, dtype: str) -> tuple[Workload, Workload]:
    """The activation chain ``silu(g) * u``, separate and fused: same FLOP, fewer bytes.

    At the article's shape (1024 x 12288 bf16) the fused chain does 5 FLOP per 6 bytes:

    >>> sep, fused = silu_chain_workloads(1024, 12288, "bf16")
    >>> round(sep.intensity, 2), round(fused.intensity, 2)
    (0.5, 0.83)
    """
    chain = activation_chain(rows, cols, dtype)
    flop = SWIGLU_FLOP_PER_ELEMENT * rows * cols
    return (
        Workload(
            text("roofline.silu_separate"), flop, account(chain, unfused(chain)).traffic, "fp32"
        ),
        Workload(
            text("roofline.silu_fused"), flop, account(chain, fully_fused(chain)).traffic, "fp32"
        ),
    )


def gemm_workload(rows: int, d_model: int, d_ff: int, dtype: str) -> Workload:
    """One FFN projection, (rows x d_model) @ (d_model x d_ff), reading X and W once and
    writing Y once (the ideal traffic; tiles re-read more).

    With few rows the weight dominates the bytes, so intensity grows almost linearly with
    rows; at the article's d_model 4096, d_ff 12288:

    >>> [round(gemm_workload(m, 4096, 12288, "bf16").intensity) for m in (256, 2048)]
    [236, 1229]
    """
    check_positive_int("rows", rows)
    check_positive_int("d_model", d_model)
    check_positive_int("d_ff", d_ff)
    nbytes = (rows * d_model + d_model * d_ff + rows * d_ff) * dtype_bytes(dtype)
    return Workload(text("roofline.gemm", rows=rows), 2 * rows * d_model * d_ff, nbytes, "bf16")


def attention_workloads(
    seq_len: int, head_dim: int, dtype: str, score_dtype: str, block_q: int
) -> tuple[Workload, Workload]:
    """One head's forward attention: the standard path (S and P written and read back) and
    FlashAttention with query tiles of ``block_q`` rows re-reading K and V.

    >>> std, fa = attention_workloads(8192, 128, "bf16", "fp32", 128)
    >>> round(std.intensity, 1), round(fa.intensity, 1)
    (31.8, 126.0)
    """
    flop = attention_flop(seq_len, head_dim)
    std = attention_sizes(seq_len, head_dim, dtype, score_dtype).standard_traffic
    fa = flash_traffic(seq_len, head_dim, dtype, block_q=block_q).total
    return (
        Workload(text("roofline.attention_standard"), flop, std, "bf16"),
        Workload(text("roofline.attention_flash", block_q=block_q), flop, fa, "bf16"),
    )


def flash_l2_workload(seq_len: int, head_dim: int, dtype: str) -> Workload:
    """FlashAttention's forward pass when every re-read of K and V is served by L2: DRAM then
    sees Q, K and V read once and O written once (the article's 8 MiB), and the intensity is
    in the thousands, far right of every bf16 ridge.

    >>> round(flash_l2_workload(8192, 128, "bf16").intensity)
    4096
    """
    io = flash_traffic(seq_len, head_dim, dtype, block_q=seq_len).total
    return Workload(
        text("roofline.attention_flash_l2"), attention_flop(seq_len, head_dim), io, "bf16"
    )


def article_workloads(gemm_rows: tuple[int, ...] = (256, 512, 2048)) -> list[Workload]:
    """The book's kernels at the article's shapes (``conf/scenarios.toml``), for one roofline.

    >>> [w.unit for w in article_workloads()]
    ['fp32', 'fp32', 'bf16', 'bf16', 'bf16', 'bf16', 'bf16', 'bf16']
    """
    s = scenarios()
    ffn, att, bk = s.ffn_chain, s.attention, s.bucketing
    return [
        *silu_chain_workloads(ffn.rows, ffn.cols, ffn.dtype),
        *attention_workloads(att.seq_len, att.head_dim, att.dtype, att.score_dtype, att.block_q),
        flash_l2_workload(att.seq_len, att.head_dim, att.dtype),
        *(gemm_workload(m, bk.d_model, bk.d_ff, ffn.dtype) for m in gemm_rows),
    ]
