"""What the shapes experiment measured (``shapes``): the matmul sweep, the call group per
strategy and the preparation, and what pages derive from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

from infrabook import bucketing
from infrabook.bench.records.entry import Compared, Device, Params, Results
from infrabook.bench.records.results.described import table, timed_method
from infrabook.bench.records.schema import Checked, Count, Millis, Pattern, Positive, Range, Text
from infrabook.bench.records.timing import Timing
from infrabook.crossover import Line, pairwise
from infrabook.labels import text
from infrabook.tables import Table

#: The strategies for many shapes: those with a label ``bench.strategy.<name>``.
Strategy = Annotated[
    str, Pattern("generic|bucketed|specialised", "generic, bucketed or specialised")
]


@dataclass(frozen=True)
class PeakBasis(Checked):
    """What the CPU's estimated fp32 peak is computed from (a parameter of ``shapes``)."""

    cores: Positive
    mhz: Annotated[float, Range(1, 1e5)]
    per_cycle: Positive
    unit: Literal["avx512f", "avx2", "avx"]


@dataclass(frozen=True)
class Prep(Checked):
    """Milliseconds of ``torch.compile`` first calls: start-up, the generic graph (first
    shape, then the others), one graph per bucket and one per distinct shape."""

    startup_ms: Millis
    generic_ms: tuple[Millis, ...]
    per_bucket_ms: dict[str, Millis]
    per_shape_ms: dict[str, Millis]

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.generic_ms:
            raise ValueError("Prep.generic_ms is empty: the generic graph's first call is its cost")

    def total_ms(self, strategy: str) -> float:
        """What a strategy pays before its first run."""
        if strategy == "generic":
            return self.generic_ms[0]
        return sum((self.per_bucket_ms if strategy == "bucketed" else self.per_shape_ms).values())


@dataclass(frozen=True)
class ShapesResults(Results):
    """The matmul sweep (a timing per row count) and the call group per strategy."""

    experiment = "shapes"
    runs_on = "cpu"

    PARAMS: ClassVar[dict[str, Any]] = {
        "k": Positive, "n": Positive, "reps": Positive, "warmup": Count,
        "prep": Literal["compile", "none"], "compile_error": Text | None,
        "calls": tuple[tuple[Positive, ...], ...], "buckets": tuple[Positive, ...],
        "peak_basis": PeakBasis | None,
    }  # fmt: skip
    sweep: dict[Annotated[str, Pattern(r"[1-9][0-9]{0,9}", "a row count")], Timing]
    groups: dict[Strategy, Timing]
    prep: Prep | None = None

    @staticmethod
    def est_peak_gflop_s(params: dict[str, Any]) -> float | None:
        """The estimated fp32 peak of the usable cores, if there is a basis for one."""
        b = params["peak_basis"]
        return None if b is None else b["cores"] * b["mhz"] / 1e3 * b["per_cycle"]

    def method(self, params: Params) -> str:
        """Repetitions, no flush, how preparation was measured and the peak's basis."""
        error, basis = params["compile_error"], params["peak_basis"]
        if error:
            prep = text("bench.method.prep_failed", error=error)
        else:
            prep = text(f"bench.method.prep_{params['prep']}")
        peak = text("bench.method.peak_unknown")
        if basis:
            unit = text(f"bench.method.unit.{basis['unit']}")
            peak = text("bench.method.peak", **(basis | {"unit": unit}))
        return timed_method(params, text("bench.method.shapes"), prep, peak)

    def rates(self, params: dict[str, Any]) -> dict[int, float]:
        """GFLOP/s of the sweep by row count."""
        flop_per_row = 2 * params["k"] * params["n"]
        return {int(r): int(r) * flop_per_row / t.median_s / 1e9 for r, t in self.sweep.items()}

    def crossovers(self) -> dict[tuple[str, str], tuple[float | None, bool]]:
        """Each pair's crossing of T = P + n·T_run (None for parallel lines), and whether
        their run times are within noise; none without measured preparation."""
        if self.prep is None:
            return {}
        lines = [Line(n, self.prep.total_ms(n), t.ms) for n, t in self.groups.items()]
        ties = self.groups
        return {(c.a, c.b): (c.runs, ties[c.a].ties(ties[c.b])) for c in pairwise(lines)}

    def compared(self, params: Params, device: Device) -> Compared:
        """Each strategy's group time over generic's, beside the book's model (time in
        proportion to rows executed), and the best matmul rate as a share of the estimated
        peak, without a model."""
        calls, generic = params["calls"], self.groups.get("generic")
        size = f"[k={params['k']}, n={params['n']}]"  # a quick run's rows are not a full one's
        rows: Compared = {}
        for name, t in self.groups.items():
            if name == "generic" or generic is None:
                continue
            buckets = params["buckets"] if name == "bucketed" else None
            model = bucketing.executed_rows(calls, buckets) / bucketing.actual_rows(calls)
            what = f"{size} {text(f'bench.strategy.{name}')}"
            rows[text("bench.cmp.group_ratio", what=what)] = (model, t.median_s / generic.median_s)
        peak = self.est_peak_gflop_s(params)
        if peak:
            best = 100 * max(self.rates(params).values()) / peak
            rows[f"{size} {text('bench.cmp.pct_peak')}"] = (None, best)
        return rows

    def tables(self, params: Params, device: Device) -> list[Table]:
        """The sweep, the group by strategy and, with preparation, the crossovers."""
        rates, peak, calls = self.rates(params), self.est_peak_gflop_s(params), params["calls"]
        best = max(rates.values())
        sweep = (
            (r, self.sweep[str(r)].ms, rate, 100 * rate / best, 100 * rate / peak if peak else None)
            for r, rate in rates.items()
        )
        flop_per_row, group = 2 * params["k"] * params["n"], []
        for name, t in self.groups.items():
            buckets = params["buckets"] if name == "bucketed" else None
            executed = bucketing.executed_rows(calls, buckets)
            padding = 100 * bucketing.padding_fraction(calls, buckets) if buckets else 0.0
            rates_ = (executed, bucketing.actual_rows(calls))  # executed and useful GFLOP/s
            gflop_s = (rows * flop_per_row / t.median_s / 1e9 for rows in rates_)
            prep = self.prep.total_ms(name) if self.prep else None
            row = (text(f"bench.strategy.{name}"), executed, padding, t.ms, t.spread_ms)
            group.append((*row, *gflop_s, prep))
        listed, n_calls = ", ".join(f"{c}x{r}" for r, c in calls), sum(c for _, c in calls)
        titles = [text("bench.shapes.sweep", k=params["k"], n=params["n"])]
        titles += [text("bench.shapes.group", n=n_calls, calls=listed, buckets=params["buckets"])]
        keys = (
            "strategy rows_executed padding_pct group_ms spread_ms executed_gflop_s useful_gflop_s"
        )
        tables = [table(titles[0], "rows median_ms gflop_s pct_best pct_peak", sweep)]
        tables.append(table(titles[1], f"{keys} prep_ms", group))
        crossings = [
            (f"{text(f'bench.strategy.{a}')} / {text(f'bench.strategy.{b}')}", runs)
            + (self._meaning(a, b, runs),)
            for (a, b), (runs, tie) in self.crossovers().items()
            if runs is not None and self.shown_crossing(runs, tie)
        ]
        if crossings:
            title = f"{text('bench.shapes.cross')}{text('bench.shapes.cross_note')}"
            tables.append(table(title, "pair runs_star meaning", crossings))
        return tables

    @staticmethod
    def shown_crossing(runs: float | None, tie: bool) -> bool:
        """Whether a crossing goes into the table: one at a positive number of runs, between
        lines whose run times differ by more than their noise. Parallel lines never cross; a
        negative crossing lies before the first run (one strategy is cheaper for every n);
        and where the run times are within noise the crossing's place is noise too (a
        hair's change of slope moves it by thousands of runs, or past zero).

        >>> ShapesResults.shown_crossing(65.2, False), ShapesResults.shown_crossing(-1121.0, True)
        (True, False)
        >>> ShapesResults.shown_crossing(None, False), ShapesResults.shown_crossing(40.0, True)
        (False, False)
        """
        return runs is not None and runs > 0 and not tie

    def _meaning(self, a: str, b: str, runs: float) -> str:
        """What a crossing at a positive number of runs means, in words: the strategy that is
        cheaper to prepare wins below it, the one that runs faster above it."""
        assert self.prep is not None, "crossings come from measured preparation"
        cheap, fast = (a, b) if self.prep.total_ms(a) <= self.prep.total_ms(b) else (b, a)
        name = {s: text(f"bench.strategy.{s}") for s in (cheap, fast)}
        return text("bench.shapes.below", cheap=name[cheap], runs=f"{runs:.1f}", fast=name[fast])
