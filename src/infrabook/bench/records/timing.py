"""One timed measurement as a record stores it: the median and the p20-p80 spread (the
quantiles Triton's ``do_bench`` reports), so one slow repetition does not move a result. The
timers that produce it are in :mod:`infrabook.bench.measure.timers`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated

import numpy as np

from infrabook.bench.records.schema import MAX_ITEMS, Checked, MaxItems, TimedSeconds

#: The GPU timers' two states of L2: flushed before every call, or left warm by a loop.
MODES = ("flushed", "unflushed")

#: The fastest rate, in GB/s, a record may derive from bytes over a median time: 1 PB/s,
#: more than a hundred times the fastest memory ``conf/hardware.toml`` knows (B200's HBM,
#: 8 TB/s) and above the aggregate bandwidth of any cache these experiments can stay in. A
#: median of 1 ns over 72 MiB (75 PB/s) is a broken timer, not a measurement.
MAX_GB_S = 1e6


@dataclass(frozen=True)
class Timing(Checked):
    """One timed measurement as a record stores it, in seconds. GPU timers report only the
    quantiles; the CPU's also keep the samples.

    >>> t = Timing.of((0.003, 0.001, 0.002, 0.010, 0.002))
    >>> t.median_s, len(t.samples_s), round(t.p20_s, 4), round(t.p80_s, 4), t.spread_ms
    (0.002, 5, 0.0018, 0.0044, '1.80–4.40')
    """

    median_s: TimedSeconds
    p20_s: TimedSeconds
    p80_s: TimedSeconds
    samples_s: Annotated[tuple[TimedSeconds, ...], MaxItems(MAX_ITEMS)] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.p20_s <= self.median_s <= self.p80_s:
            raise ValueError(
                f"Timing needs p20_s <= median_s <= p80_s, got {self.p20_s:g}, "
                f"{self.median_s:g}, {self.p80_s:g}"
            )

    @classmethod
    def of(cls, samples: Sequence[float]) -> Timing:
        """The statistics of raw repetitions; the samples are kept to 6 significant figures."""
        if not samples:
            raise ValueError("a timing needs at least one sample")
        p20, p80 = (float(np.percentile(samples, q)) for q in (20, 80))
        kept = tuple(float(f"{s:.6g}") for s in samples)
        return cls(float(np.median(samples)), p20, p80, kept)

    @property
    def ms(self) -> float:
        """Median milliseconds."""
        return self.median_s * 1e3

    @property
    def us(self) -> float:
        """Median microseconds."""
        return self.median_s * 1e6

    def gb_s(self, nbytes: float) -> float:
        """``nbytes`` over the median time, in GB/s."""
        return nbytes / self.median_s / 1e9

    def check_rate(self, nbytes: float, where: str) -> None:
        """Refuses, in one line naming ``where``, a timing that would move ``nbytes`` faster
        than :data:`MAX_GB_S`.

        >>> Timing(median_s=1e-9, p20_s=1e-9, p80_s=1e-9).check_rate(72 * 2**20, "copy")
        Traceback (most recent call last):
        ...
        ValueError: copy: 75497472 bytes in a median of 1e-09 s is 7.55e+07 GB/s, above the ...
        """
        if self.gb_s(nbytes) > MAX_GB_S:
            raise ValueError(
                f"{where}: {nbytes:.0f} bytes in a median of {self.median_s:g} s is "
                f"{self.gb_s(nbytes):.3g} GB/s, above the {MAX_GB_S:g} GB/s no memory reaches"
            )

    @property
    def spread_ms(self) -> str:
        """The p20–p80 range in milliseconds, as a table shows it."""
        return f"{self.p20_s * 1e3:.2f}–{self.p80_s * 1e3:.2f}"

    def ties(self, other: Timing) -> bool:
        """Whether the two are within noise: interleaved samples are paired (repetition i of
        each ran back to back), so when the p20–p80 range of the ratios a_i / b_i contains 1;
        without paired samples, when the two p20–p80 ranges overlap.

        >>> Timing.of([1.0, 2.0, 3.0]).ties(Timing.of([1.5, 3.0, 4.5]))
        False
        >>> Timing(1.5, 1.0, 2.0).ties(Timing(2.0, 1.5, 3.0))
        True
        """
        if self.samples_s and len(self.samples_s) == len(other.samples_s):
            ratios = np.asarray(self.samples_s) / np.asarray(other.samples_s)
            return bool(np.percentile(ratios, 20) <= 1.0 <= np.percentile(ratios, 80))
        return self.p20_s <= other.p80_s and other.p20_s <= self.p80_s
