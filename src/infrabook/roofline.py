"""Roofline bounds and bandwidth claims.

A kernel cannot finish faster than its bytes over DRAM bandwidth, nor faster than its FLOP
over peak compute. Turned around, a measured time implies a bandwidth; a claim that needs
more than the device's DRAM can deliver is only possible if the data came from a cache
(L2) that holds the whole working set, or if the shape was not what was stated.
"""

from __future__ import annotations

from dataclasses import dataclass

from infrabook.checks import check_finite
from infrabook.config import Device, devices


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
        """One sentence for the audit."""
        if self.plausible_from_dram:
            return f"needs {self.implied_tb_s:.1f} TB/s: possible from DRAM on " + ", ".join(
                self.dram_possible_on
            )
        where = ", ".join(self.fits_l2_on) or "no listed device"
        best = self.fastest_dram
        return (
            f"needs {self.implied_tb_s:.1f} TB/s, above every listed device's DRAM bandwidth "
            f"(fastest: {best.name}, {best.dram_tb_s.value} TB/s); possible only if the "
            f"working set stayed in L2 (large enough on: {where}) or the shape differed"
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
