"""Shapes: the matmul rate against rows, and the article's calls run generic, bucketed and
specialised, with what each strategy pays to prepare (CPU only)."""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any, ClassVar, Literal

import torch

from infrabook import bucketing, config
from infrabook.bench import host
from infrabook.bench.entry import Compared, Device, Params, Results
from infrabook.bench.experiment import Measured, experiment, first_line, log, table, timed_method
from infrabook.bench.schema import Checked, Count, Millis, Pattern, Positive, Range, Text
from infrabook.bench.timing import Timing, time_interleaved
from infrabook.checks import check_positive_int, check_sizes
from infrabook.crossover import Line, pairwise
from infrabook.labels import text
from infrabook.tables import Table

#: fp32 FLOP per cycle and core of the widest vector unit the flags show, widest first.
#: Some AVX-512 parts have one FMA pipe, and boost clocks differ from the MHz listed.
_VECTOR_UNITS = (({"avx512f"}, 64, "avx512f"), ({"avx2", "fma"}, 32, "avx2"), ({"avx"}, 16, "avx"))


def _peak_basis() -> dict[str, Any] | None:
    """What an fp32 peak of the usable cores is estimated from (cores x MHz x FLOP per
    cycle, from /proc/cpuinfo); None without AVX flags or a clock."""
    info = host.cpu_info()
    unit = next((u for u in _VECTOR_UNITS if u[0] <= set(info.vector)), None)
    if unit is None or not info.mhz:
        return None
    _, per_cycle, name = unit
    return {"cores": info.usable_cores, "mhz": info.mhz, "per_cycle": per_cycle, "unit": name}


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


_SHAPES_FULL = {"rows": (16, 32, 64, 128, 256, 512, 1024, 2048), "k": 1024, "n": 1024, "reps": 10}
# The quick sweep holds the quick buckets (128, 512), which the bucketing page quotes.
_SHAPES_QUICK = {"rows": (16, 64, 128, 256, 512, 1024), "k": 256, "n": 256, "reps": 3}


@experiment(
    "cpu",
    ShapesResults,
    full=_SHAPES_FULL | {"warmup": 2, "scale": 1, "prep": "compile"},
    quick=_SHAPES_QUICK | {"warmup": 1, "scale": 4, "prep": "compile"},
)
def shapes(
    rows: Sequence[int], k: int, n: int, reps: int, *, warmup: int, scale: int, prep: str
) -> Measured:
    """Matmul rate against rows, and the article's ten calls run generic vs bucketed.

    1. ``x @ w``, x [rows, k], w [k, n], fp32: GFLOP/s for each row count.
    2. The calls of ``conf/scenarios.toml`` [bucketing] (rows and buckets divided by
       ``scale``) run *generic* (each at its own size), *bucketed* (each copied into the
       first rows of its bucket's buffer and the whole buffer multiplied, the copy timed)
       and, with ``prep="compile"``, *specialised*. Padding rows are never re-zeroed: their
       outputs are discarded, and only subnormals would change a dense fp32 matmul's time.

    ``prep="compile"`` measures each strategy's preparation as a compiler stack pays it:
    ``torch.compile`` first calls, caches off, of one dynamic graph (generic), a static one
    per bucket or per shape; the runs then use those graphs (inductor calls the same BLAS
    matmul for every shape). ``prep="none"``: eager, no preparation, no crossovers.
    """
    if prep not in ("none", "compile"):
        raise ValueError(f"prep must be 'none' or 'compile', got {prep!r}")
    rows = check_sizes("rows", rows)
    for name, size in (("k", k), ("n", n), ("scale", scale)):
        check_positive_int(name, size)
    gen = torch.Generator().manual_seed(0)
    w = torch.randn(k, n, generator=gen) / math.sqrt(k)

    log.info("shapes: matmul sweep over rows %s at k=%d, n=%d ...", list(rows), k, n)
    xs = {r: torch.randn(r, k, generator=gen) for r in rows}
    sweep = {str(r): partial(torch.mm, xs[r], w, out=torch.empty(r, n)) for r in rows}
    sweep_t = time_interleaved(sweep, warmup=warmup, reps=reps)

    conf = config.scenarios().bucketing
    calls = bucketing.check_calls([[max(1, r // scale), c] for r, c in conf.calls])
    buckets = bucketing.check_buckets([max(1, b // scale) for b in conf.buckets])
    sequence = [r for r, c in calls for _ in range(c)]
    inputs = {r: torch.randn(r, k, generator=gen) for r, _ in calls}
    padded = {b: torch.zeros(b, k) for b in buckets}

    def mm(x: torch.Tensor) -> torch.Tensor:
        return x @ w

    fns: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {"generic": mm, "bucketed": mm}
    measured_prep, compile_error = None, None
    if prep == "compile":
        log.info("shapes: measuring preparation (torch.compile per prepared shape, caches off)")
        try:
            measured_prep, fns = _compile_prep(mm, calls, buckets, inputs, padded)
        except Exception as err:  # e.g. no C++ compiler: say so, run eager
            compile_error = first_line(err)

    # Everything but the work itself is looked up before timing: each call's input and, for
    # bucketed, its bucket's buffer and the rows it is copied into. The timed loops then
    # differ only in the copy and the padding rows.
    call_inputs = [inputs[r] for r in sequence]
    buffers = [padded[bucketing.bucket_for(r, buckets)] for r in sequence]
    bucket_plan = [(x, buf[: len(x)], buf) for x, buf in zip(call_inputs, buffers, strict=True)]

    def over_calls(fn: Callable[[torch.Tensor], torch.Tensor]) -> Callable[[], None]:
        def group() -> None:
            for x in call_inputs:
                fn(x)

        return group

    def bucketed() -> None:
        for x, head, buf in bucket_plan:
            head.copy_(x)
            fns["bucketed"](buf)

    group_fns = {"generic": over_calls(fns["generic"]), "bucketed": bucketed}
    if "specialised" in fns:
        group_fns["specialised"] = over_calls(fns["specialised"])
    log.info("shapes: timing the %d-call group: %s ...", len(sequence), ", ".join(group_fns))
    group_t = time_interleaved(group_fns, warmup=warmup, reps=reps)
    params = {"dtype": "fp32", "calls": calls, "buckets": buckets, "compile_error": compile_error}
    return Measured(
        ShapesResults(sweep_t, group_t, measured_prep),
        params=params | {"threads": torch.get_num_threads(), "peak_basis": _peak_basis()},
    )


def _compile_prep(
    mm: Callable[[torch.Tensor], torch.Tensor],
    calls: tuple[tuple[int, int], ...],
    buckets: tuple[int, ...],
    inputs: dict[int, torch.Tensor],
    padded: dict[int, torch.Tensor],
) -> tuple[Prep, dict[str, Callable]]:
    """Compile what each strategy needs, timing the first call of each graph."""
    import torch._dynamo
    import torch._inductor.config as inductor_config

    def timed(fn: Callable, x: torch.Tensor) -> float:
        t0 = time.perf_counter()
        fn(x)
        return (time.perf_counter() - t0) * 1e3

    def fresh(dynamic: bool) -> Callable:
        torch._dynamo.reset()
        return torch.compile(mm, dynamic=dynamic, fullgraph=True)

    with warnings.catch_warnings(), inductor_config.patch(force_disable_caches=True):
        warnings.simplefilter("ignore")
        # One throwaway compile first, so that one-time start-up (imports, the compiler's
        # own set-up) is charged to no strategy.
        torch._dynamo.reset()
        warm = torch.compile(torch.mm, dynamic=False, fullgraph=True)
        startup = timed(partial(warm, torch.ones(4, 4)), torch.ones(4, 4))
        generic = fresh(dynamic=True)
        generic_ms = tuple(timed(generic, inputs[r]) for r, _ in calls)
        bucket_fn = fresh(dynamic=False)
        per_bucket = {str(b): timed(bucket_fn, padded[b]) for b in buckets}
        special_fn = fresh(dynamic=False)
        per_shape = {str(r): timed(special_fn, inputs[r]) for r, _ in calls}
    fns = {"generic": generic, "bucketed": bucket_fn, "specialised": special_fn}
    return Prep(startup, generic_ms, per_bucket, per_shape), fns
