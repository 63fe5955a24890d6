"""Shape strategies: generic, bucketed, per-shape specialised (section 5.2).

Bucketing rounds each call up to the smallest prepared shape (bucket) that fits it, so it
executes padding rows; it wins when the utilisation it buys is worth more than the padding it
costs. Time per group of calls = FLOP executed / (utilisation x peak).

Two utilisations must be kept apart. The article's "MFU" (20 / 40 / 50 %) counts every
executed FLOP, padding included: it is an *executed* (hardware) utilisation, and that is what
:attr:`Strategy.mfu` holds (the name follows the article and ``conf/scenarios.toml``). Model
FLOPs utilisation as the PaLM paper defines it counts only useful FLOPs, the real rows; see
:meth:`StrategyCost.useful_mfu`. Useful MFU rises by exactly the speed-up.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from infrabook import config, labels
from infrabook.checks import check_finite, check_fraction, check_positive_int
from infrabook.crossover import Line

Calls = tuple[tuple[int, int], ...]  # (rows, number of calls)


def check_calls(calls: Sequence[Sequence[int]]) -> Calls:
    """Validate ``(rows, count)`` pairs and return them as a tuple.

    >>> check_calls([[256, 8], [1536, 1]])
    ((256, 8), (1536, 1))
    """
    if len(calls) == 0:
        raise ValueError(labels.text("bucketing.error.no_calls"))
    out = []
    for pair in calls:
        if len(pair) != 2:
            raise ValueError(f"each call must be a (rows, count) pair, got {pair!r}")
        out.append((check_positive_int("rows", pair[0]), check_positive_int("count", pair[1])))
    return tuple(out)


def check_buckets(buckets: Sequence[int]) -> tuple[int, ...]:
    """Validate bucket sizes and return them sorted.

    >>> check_buckets([2048, 512])
    (512, 2048)
    """
    if len(buckets) == 0:
        raise ValueError(labels.text("bucketing.error.no_buckets"))
    out = sorted(check_positive_int("bucket", b) for b in buckets)
    if len(set(out)) != len(out):
        raise ValueError(labels.text("bucketing.error.same_bucket", buckets=list(buckets)))
    return tuple(out)


def bucket_for(rows: int, buckets: Sequence[int]) -> int:
    """The smallest bucket that holds ``rows``.

    >>> bucket_for(256, (512, 2048)), bucket_for(1536, (512, 2048))
    (512, 2048)
    """
    check_positive_int("rows", rows)
    sizes = check_buckets(buckets)
    i = bisect.bisect_left(sizes, rows)
    if i == len(sizes):
        raise ValueError(labels.text("bucketing.error.too_large", rows=rows, largest=sizes[-1]))
    return sizes[i]


def actual_rows(calls: Sequence[Sequence[int]]) -> int:
    """Rows the calls really contain.

    >>> actual_rows([(256, 8), (1536, 1), (2048, 1)])
    5632
    """
    return sum(r * n for r, n in check_calls(calls))


def executed_rows(calls: Sequence[Sequence[int]], buckets: Sequence[int] | None) -> int:
    """Rows executed: each call padded to its bucket, or as is when ``buckets`` is None.

    >>> executed_rows([(256, 8), (1536, 1), (2048, 1)], (512, 2048))
    8192
    """
    checked = check_calls(calls)
    if buckets is None:
        return actual_rows(checked)
    return sum(bucket_for(r, buckets) * n for r, n in checked)


def padding_fraction(calls: Sequence[Sequence[int]], buckets: Sequence[int]) -> float:
    """Extra rows executed, as a fraction of the real rows.

    >>> round(padding_fraction([(256, 8), (1536, 1), (2048, 1)], (512, 2048)), 4)
    0.4545
    """
    return executed_rows(calls, buckets) / actual_rows(calls) - 1


def effective_rate_tflops(mfu: float, peak_tflops: float) -> float:
    """Useful throughput: MFU x peak.

    >>> round(effective_rate_tflops(0.2, 503.8), 2)
    100.76
    """
    peak = check_finite("peak_tflops", peak_tflops, positive=True)
    return check_fraction("mfu", mfu) * peak


def group_time_ms(rows: int, flop_per_row: float, rate_tflops: float) -> float:
    """Milliseconds to execute ``rows`` rows at ``rate_tflops``.

    The article's generic strategy: 5,632 rows of a d_model=4096, d_ff=12288 FFN at 100 TFLOP/s:

    >>> round(group_time_ms(5632, 6 * 4096 * 12288, 100.0), 1)
    17.0
    """
    check_positive_int("rows", rows)
    check_finite("flop_per_row", flop_per_row)
    check_finite("rate_tflops", rate_tflops, positive=True)
    return rows * flop_per_row / (rate_tflops * 1e12) * 1e3


@dataclass(frozen=True)
class Strategy:
    """A shape strategy: whether it pads to buckets, its utilisation and its preparation time.

    ``mfu`` is the article's "MFU": the *executed* utilisation, padding rows included (an
    assumption of the article, not a measurement). ``article_rate_tflops`` is the rate the
    article states, when it states one.
    """

    name: str
    bucketed: bool
    mfu: float
    prep_ms: float
    article_rate_tflops: float | None = None

    def __post_init__(self) -> None:
        check_fraction(f"mfu of {self.name!r}", self.mfu)
        check_finite(f"prep_ms of {self.name!r}", self.prep_ms)

    @property
    def label(self) -> str:
        """The strategy's name in the build's language (``strategy.<name>`` in
        :mod:`infrabook.labels`; a strategy the book does not name keeps its ``name``).

        >>> Strategy("bucketed", True, 0.4, 400.0).label, Strategy("tuned", True, 0.3, 1.0).label
        ('分桶', 'tuned')
        """
        return labels.group("strategy").get(self.name, self.name)


@dataclass(frozen=True)
class StrategyCost:
    """One row of the article's table 5-12, recomputed."""

    strategy: Strategy
    executed_rows: int
    actual_rows: int
    rate_tflops: float
    time_ms: float

    @property
    def padding_fraction(self) -> float:
        """Extra rows executed over real rows."""
        return self.executed_rows / self.actual_rows - 1

    @property
    def useful_rate_tflops(self) -> float:
        """Useful (model) TFLOP/s: only the real rows count.

        Padded rows are executed at ``rate_tflops`` but are not model FLOPs, so they do not
        count towards MFU as the PaLM paper defines it. The article's bucketed strategy runs at
        200 TFLOP/s over 8,192 rows of which 5,632 are real:

        >>> s = Strategy("bucketed", True, 0.4, 400.0)
        >>> c = cost(s, [(256, 8), (1536, 1), (2048, 1)], (512, 2048), 6 * 4096 * 12288, 200.0)
        >>> round(c.useful_rate_tflops, 1)
        137.5
        """
        return self.rate_tflops * self.actual_rows / self.executed_rows

    def executed_utilisation(self, peak_tflops: float) -> float:
        """Executed (hardware) utilisation: every executed FLOP, padding included, over peak.

        This is what the article calls "MFU" (40 % for bucketing).

        >>> s = Strategy("bucketed", True, 0.4, 400.0)
        >>> c = cost(s, [(256, 8), (1536, 1), (2048, 1)], (512, 2048), 6 * 4096 * 12288, 200.0)
        >>> round(c.executed_utilisation(500.0), 3)
        0.4
        """
        return self.rate_tflops / check_finite("peak_tflops", peak_tflops, positive=True)

    def useful_mfu(self, peak_tflops: float) -> float:
        """Model FLOPs utilisation: useful (model) FLOP/s over peak; padding does not count.

        Bucketing's 40 % executed utilisation is about 27.3 % useful MFU of the 503.8 TFLOP/s
        peak (27.5 % of 500); generic's 20 % stays 20 %, so MFU rises by exactly the speed-up:

        >>> s = Strategy("bucketed", True, 0.4, 400.0)
        >>> c = cost(s, [(256, 8), (1536, 1), (2048, 1)], (512, 2048), 6 * 4096 * 12288, 200.0)
        >>> round(c.useful_mfu(503.8), 4), round(c.useful_mfu(500.0), 4)
        (0.2729, 0.275)
        """
        return self.useful_rate_tflops / check_finite("peak_tflops", peak_tflops, positive=True)


def cost(
    strategy: Strategy,
    calls: Sequence[Sequence[int]],
    buckets: Sequence[int],
    flop_per_row: float,
    rate_tflops: float,
) -> StrategyCost:
    """Rows executed and time per group of calls for one strategy at a given rate.

    >>> s = Strategy("bucketed", True, 0.4, 400.0)
    >>> c = cost(s, [(256, 8), (1536, 1), (2048, 1)], (512, 2048), 6 * 4096 * 12288, 200.0)
    >>> c.executed_rows, round(c.time_ms, 1)
    (8192, 12.4)
    """
    rows = executed_rows(calls, buckets if strategy.bucketed else None)
    return StrategyCost(
        strategy=strategy,
        executed_rows=rows,
        actual_rows=actual_rows(calls),
        rate_tflops=rate_tflops,
        time_ms=group_time_ms(rows, flop_per_row, rate_tflops),
    )


@dataclass(frozen=True)
class BucketingScenario:
    """The article's example 5-12 as data."""

    calls: Calls
    buckets: tuple[int, ...]
    peak_tflops: float
    flop_per_row: int
    strategies: tuple[Strategy, ...]

    def implied_peak_tflops(self, rates: str = "article") -> float:
        """The peak the rates are a fraction of: ``peak_tflops`` for ``"peak"``; for
        ``"article"``, the one value rate / MFU that the article's stated rates share.

        >>> sc = article_bucketing()
        >>> sc.implied_peak_tflops("article"), sc.implied_peak_tflops("peak")
        (500.0, 503.8)
        """
        if rates not in ("article", "peak"):
            raise ValueError(f"rates must be 'article' or 'peak', got {rates!r}")
        stated = {
            s.article_rate_tflops / s.mfu
            for s in self.strategies
            if s.article_rate_tflops is not None
        }
        if rates == "peak" or not stated:
            return self.peak_tflops
        if len(stated) != 1:
            raise ValueError(f"the stated rates imply different peaks: {sorted(stated)}")
        return stated.pop()

    def with_mfus(self, mfus: Mapping[str, float]) -> BucketingScenario:
        """The same scenario with other executed utilisations for the named strategies.

        Every strategy then loses its stated rate and runs at utilisation x ``peak_tflops``:
        keeping the article's rates (a rounded peak of 500) beside new ones would mix two
        peaks.

        >>> sc = article_bucketing().with_mfus({"bucketed": 0.3})
        >>> [round(c.time_ms, 2) for c in sc.costs()]
        [16.88, 16.37, 6.75]
        >>> article_bucketing().with_mfus({"tuned": 0.3})
        Traceback (most recent call last):
        ...
        ValueError: 没有名为 'tuned' 的策略：应为 generic / bucketed / specialised 之一
        """
        names = [s.name for s in self.strategies]
        for name in mfus:
            if name not in names:
                raise ValueError(
                    labels.text("error.strategy.unknown", name=repr(name), names=" / ".join(names))
                )
        return replace(
            self,
            strategies=tuple(
                replace(s, mfu=mfus.get(s.name, s.mfu), article_rate_tflops=None)
                for s in self.strategies
            ),
        )

    def costs(self, rates: str = "article") -> tuple[StrategyCost, ...]:
        """Each strategy's cost, at the article's stated rates (``"article"``) or at
        MFU x the unrounded peak (``"peak"``).

        >>> [round(c.time_ms, 1) for c in article_bucketing().costs("article")]
        [17.0, 12.4, 6.8]
        >>> [round(c.time_ms, 2) for c in article_bucketing().costs("peak")]
        [16.88, 12.28, 6.75]
        """
        if rates not in ("article", "peak"):
            raise ValueError(f"rates must be 'article' or 'peak', got {rates!r}")
        out = []
        for s in self.strategies:
            rate = (
                s.article_rate_tflops
                if rates == "article" and s.article_rate_tflops is not None
                else effective_rate_tflops(s.mfu, self.peak_tflops)
            )
            out.append(cost(s, self.calls, self.buckets, self.flop_per_row, rate))
        return tuple(out)


#: Significant figures of a per-run time as the article prints it (17.0 / 12.4 / 6.8 ms) and as
#: the book's tables show it. Crossovers are computed from the times as shown, so that a reader
#: can check them by hand and the article's example gives the article's crossovers everywhere.
SHOWN_FIGURES = 3


def shown_ms(ms: float) -> float:
    """A per-run time as shown: :data:`SHOWN_FIGURES` significant figures.

    >>> [shown_ms(c.time_ms) for c in article_bucketing().costs("article")]
    [17.0, 12.4, 6.8]
    """
    return float(f"{ms:.{SHOWN_FIGURES}g}")


def cost_lines(
    costs: Sequence[StrategyCost], shown: bool = True, label: bool = False
) -> list[Line]:
    """The T_total = P + n*T_run line of each strategy, its time per group as shown
    (:func:`shown_ms`, the article's rounding) unless ``shown`` is false; named by ``label``
    (the strategy's label in the build's language) or by ``name``.

    >>> [line.run_ms for line in cost_lines(article_bucketing().costs("article"))]
    [17.0, 12.4, 6.8]
    >>> [round(line.run_ms, 3) for line in cost_lines(article_bucketing().costs(), shown=False)]
    [17.008, 12.37, 6.803]
    """
    return [
        Line(
            c.strategy.label if label else c.strategy.name,
            c.strategy.prep_ms,
            shown_ms(c.time_ms) if shown else c.time_ms,
        )
        for c in costs
    ]


def bucketing_scenario(s: config.Bucketing) -> BucketingScenario:
    """Example 5-12's structure from ``conf/scenarios.toml``'s ``[bucketing]`` (the chapter 6
    calculator passes one with the reader's calls and buckets).

    >>> bucketing_scenario(config.scenarios().bucketing).buckets
    (512, 2048)
    """
    return BucketingScenario(
        calls=check_calls(s.calls),
        buckets=check_buckets(s.buckets),
        peak_tflops=s.peak_tflops,
        flop_per_row=s.flop_per_row_factor * s.d_model * s.d_ff,
        strategies=tuple(
            Strategy(st.name, st.bucketed, st.mfu, st.prep_ms, st.article_rate_tflops)
            for st in s.strategies
        ),
    )


def article_bucketing() -> BucketingScenario:
    """Example 5-12 from ``conf/scenarios.toml``.

    >>> sc = article_bucketing()
    >>> sc.flop_per_row, sc.peak_tflops
    (301989888, 503.8)
    """
    return bucketing_scenario(config.scenarios().bucketing)


def parse_calls(text: str) -> Calls:
    """Parse ``"256x8,1536,2048"`` (rows, optionally x count) into (rows, count) pairs.

    >>> parse_calls("256x8,1536,2048")
    ((256, 8), (1536, 1), (2048, 1))
    """
    pairs = []
    for item in text.split(","):
        item = item.strip()
        rows, sep, count = item.partition("x")
        try:
            pair = (int(rows), int(count) if sep else 1)
        except ValueError:
            raise ValueError(labels.text("bucketing.error.call", item=repr(item))) from None
        if min(pair) < 1:
            raise ValueError(labels.text("bucketing.error.call_positive", item=repr(item)))
        pairs.append(pair)
    return check_calls(pairs)


def parse_mfus(raw: str) -> dict[str, float]:
    """Parse ``"generic=0.2,bucketed=0.4"`` (strategy=executed utilisation, a fraction).

    >>> parse_mfus("generic=0.2, bucketed=0.4")
    {'generic': 0.2, 'bucketed': 0.4}
    >>> parse_mfus("bucketed=40")
    Traceback (most recent call last):
    ...
    ValueError: 策略 'bucketed' 的执行利用率 mfu：应为大于 0、不大于 1 的分数，收到 40
    """
    out: dict[str, float] = {}
    for item in raw.split(","):
        name, sep, value = (part.strip() for part in item.partition("="))
        if not item.strip():
            raise ValueError(labels.text("error.mfu.empty"))
        if name in out:
            raise ValueError(labels.text("error.mfu.duplicate", name=repr(name)))
        try:
            if not (sep and name):
                raise ValueError
            out[name] = float(value)
        except ValueError:
            raise ValueError(labels.text("error.mfu.format", raw=repr(item.strip()))) from None
        if not 0 < out[name] <= 1:
            raise ValueError(
                labels.text("error.mfu.range", name=repr(name), value=f"{out[name]:g}")
            )
    return out
