"""The calculators, declared once for the CLI, the live calculators and the pages: what each
computes from its inputs.

Each :class:`Calculator` names its inputs (:class:`~infrabook.calc_fields.Field`: name, kind,
default from ``conf/``, bounds, label; parsing them is :mod:`infrabook.calc_fields`) and one
function from parsed inputs to a :class:`Result`: the tables (laid out by
:mod:`infrabook.calc_tables`) and the same numbers as data for ``--json``. The CLI builds its
options from the fields and prints the tables as text, the live calculators build their forms
from them and show the tables as HTML, the pages show them as Markdown. Nothing here imports
numpy or matplotlib: Pyodide runs this module from the package's wheel.

>>> result = calculators()["fusion"].compute(calculators()["fusion"].parse({})[0])
>>> result.tables[0].cells()[0][:3]
['[silu+mul]', '1', '72']
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from infrabook import config
from infrabook.attention_sizes import attention_sizes, flash_traffic
from infrabook.audit import section6_lines
from infrabook.bucketing import (
    Strategy,
    article_bucketing,
    check_buckets,
    cost,
    cost_lines,
    shown_ms,
)
from infrabook.calc_fields import Field, FieldError
from infrabook.calc_tables import (
    attention_table,
    bucket_table,
    crossing_tables,
    kernel_table,
    launch_table,
    plan_table,
    section6_table,
    trace_table,
)
from infrabook.crossover import Line, pairwise, regimes
from infrabook.dataflow import account, fully_fused, unfused
from infrabook.ffn_chain import activation_chain
from infrabook.fusion_search import rank_plans
from infrabook.labels import text
from infrabook.launches import launch_counts
from infrabook.online_softmax import trace
from infrabook.tables import Table, number_text

_DTYPES = ("fp32", "fp16", "bf16")


@dataclass(frozen=True)
class Result:
    """What a calculator computes: its tables (raw numbers, formatted when rendered) and the
    same numbers as data (the CLI's ``--json``)."""

    tables: tuple[Table, ...]
    data: Any = field(default=None, repr=False)


@dataclass(frozen=True)
class Calculator:
    """A calculator: its fields and the function from parsed inputs to a :class:`Result`."""

    name: str
    fields: tuple[Field, ...]
    compute: Callable[[dict[str, Any]], Result] = field(repr=False)

    @property
    def title(self) -> str:
        """The calculator's title in the build's language."""
        return text(f"live.title.{self.name}")

    def field(self, name: str) -> Field:
        """The field called ``name``.

        >>> calculators()["buckets"].field("calls").option
        '--calls'
        """
        return next(f for f in self.fields if f.name == name)

    def defaults(self) -> dict[str, str]:
        """The article's case, as the text a reader sees in each field."""
        return {f.name: f.default for f in self.fields}

    def parse(self, raw: Mapping[str, object]) -> tuple[dict[str, Any], list[FieldError]]:
        """Every field read from ``raw`` (missing ones take their defaults), with the error
        of each bad one."""
        values: dict[str, Any] = {}
        errors: list[FieldError] = []
        for f in self.fields:
            value = raw.get(f.name, f.default)
            try:  # a JSON caller may send a number: read as the text a field would hold
                values[f.name] = f.parse(value if isinstance(value, str) else str(value))
            except FieldError as err:
                errors.append(err)
        return values, errors


def _fusion(v: dict[str, Any]) -> Result:
    quant = None if v["quant_dtype"] == "none" else v["quant_dtype"]
    graph = activation_chain(v["rows"], v["cols"], v["dtype"], quant)
    ranked = rank_plans(graph)
    kernels = kernel_table(
        [
            (text("calc.tag.separate"), account(graph, unfused(graph))),
            (text("calc.tag.fused"), account(graph, fully_fused(graph))),
        ]
    )
    data = [
        {
            "plan": r.label,
            "kernels": [asdict(k) for k in r.accounting.kernels],
            "traffic_bytes": r.accounting.traffic,
            "peak_live_bytes": r.accounting.peak_live_bytes,
            "footprint_bytes": r.accounting.footprint_bytes,
        }
        for r in ranked
    ]
    return Result((plan_table(ranked), kernels), data)


def _attention(v: dict[str, Any]) -> Result:
    a = attention_sizes(v["seq_len"], v["head_dim"], v["dtype"], v["score_dtype"])
    f = flash_traffic(
        v["seq_len"], v["head_dim"], v["dtype"], v["block_q"], v["block_k"], v["causal"]
    )
    data = {
        "qkvo_bytes": a.qkvo_bytes,
        "score_bytes": a.score_bytes,
        "io_traffic_bytes": a.io_traffic,
        "standard_intermediate_traffic_bytes": a.intermediate_traffic,
        "standard_traffic_bytes": a.standard_traffic,
        "flash": asdict(f) | {"total": f.total},
    }
    return Result((attention_table(a, f),), data)


def _softmax(v: dict[str, Any]) -> Result:
    scores, values = v["scores"], v["values"]
    if len(scores) != len(values):
        raise FieldError(
            "values", text("live.error.same_length", scores=len(scores), values=len(values))
        )
    steps = trace(scores, values, v["block"])
    data = {"steps": [asdict(s) for s in steps], "result": float(steps[-1].state.result)}
    return Result((trace_table(steps),), data)


def _strategies(v: dict[str, Any]) -> tuple[Strategy, ...]:
    def stated(s: Strategy) -> float | None:
        # the article's rate stays with a strategy only while the inputs still give it
        rate, was = v[f"util_{s.name}"] * v["peak_tflops"], s.article_rate_tflops
        return was if was is not None and math.isclose(rate, was, rel_tol=1e-12) else None

    return tuple(
        replace(
            s,
            mfu=v[f"util_{s.name}"],
            prep_ms=v[f"prep_{s.name}"],
            article_rate_tflops=stated(s),
        )
        for s in article_bucketing().strategies
    )


def _buckets(v: dict[str, Any]) -> Result:
    scenario = article_bucketing()
    buckets = check_buckets(v["buckets"])
    peak = v["peak_tflops"]
    costs = [
        cost(s, v["calls"], buckets, scenario.flop_per_row, s.mfu * peak) for s in _strategies(v)
    ]
    crossings = crossing_result(cost_lines(costs, label=True))
    unrounded = " / ".join(
        c.runs_text for c in pairwise(cost_lines(costs, shown=False, label=True))
    )
    pairs, spans = crossings.tables
    note = text("live.note.shown_times", unrounded=unrounded)
    data = [
        asdict(c)
        | {
            "padding_fraction": c.padding_fraction,
            "executed_utilisation": c.executed_utilisation(peak),
            "useful_mfu": c.useful_mfu(peak),
        }
        for c in costs
    ]
    return Result((bucket_table(costs, peak), replace(pairs, note=note), spans), data)


def crossing_result(lines: Sequence[Line]) -> Result:
    """Each pair's crossover and the cheapest strategy between them: two tables, and the
    crossings and regimes as data.

    >>> crossing_result([Line("a", 100, 17.0), Line("b", 400, 12.4)]).data["regimes"][-1].best
    'b'
    """
    return Result(crossing_tables(lines), {"crossings": pairwise(lines), "regimes": regimes(lines)})


def _crossover(v: dict[str, Any]) -> Result:
    labels = {s.name: s.label for s in article_bucketing().strategies}
    return crossing_result(
        [
            Line(labels[n], v[f"prep_{n}"], v[f"run_{n}"])
            for n in ("generic", "bucketed", "specialised")
        ]
    )


def _launches(v: dict[str, Any]) -> Result:
    counts = launch_counts(v["runs"], v["kernels_per_run"], v["fused_kernels_per_run"])
    return Result((launch_table(counts),), [asdict(c) for c in counts])


def _recompute(v: dict[str, Any]) -> Result:
    s = config.scenarios()
    chain = {k: v[k] for k in ("rows", "cols", "dtype", "quant_dtype")}
    att = {k: v[k] for k in ("seq_len", "head_dim", "dtype", "score_dtype")}
    scenario = replace(
        s,
        ffn_chain=replace(s.ffn_chain, **chain),
        attention=replace(s.attention, **att),
        bucketing=replace(s.bucketing, calls=v["calls"], buckets=v["buckets"]),
    )
    lines = section6_lines(scenario)
    return Result((section6_table(lines),), {"lines": lines})


def calculators() -> dict[str, Calculator]:
    """Every calculator by name, with its fields' defaults from ``conf/``.

    >>> sorted(calculators())
    ['attention', 'buckets', 'crossover', 'fusion', 'launches', 'recompute', 'softmax']
    """
    s = config.scenarios()
    chain, att, sm, gr = s.ffn_chain, s.attention, s.online_softmax, s.graph_replay
    article = article_bucketing()
    by_name = {c.strategy.name: c for c in article.costs("article")}
    big = 1 << 20
    util = {
        n: Field(f"util_{n}", "float", str(by_name[n].strategy.mfu), 0.01, 1.0) for n in by_name
    }
    prep = {
        n: Field(f"prep_{n}", "float", number_text(by_name[n].strategy.prep_ms, "g"), 0.0, 1e9)
        for n in by_name
    }
    run = {
        n: Field(f"run_{n}", "float", number_text(shown_ms(by_name[n].time_ms)), 1e-6, 1e9)
        for n in by_name
    }
    calls = ",".join(f"{r}x{n}" if n > 1 else str(r) for r, n in s.bucketing.calls)
    # Fields that several calculators share, defined once.
    rows = Field("rows", "int", str(chain.rows), 1, big)
    cols = Field("cols", "int", str(chain.cols), 1, big)
    chain_dtype = Field("dtype", "choice", chain.dtype, choices=_DTYPES)
    seq_len = Field("seq_len", "int", str(att.seq_len), 1, big)
    head_dim = Field("head_dim", "int", str(att.head_dim), 1, 1024)
    score_dtype = Field("score_dtype", "choice", att.score_dtype, choices=_DTYPES)
    call_rows = Field("calls", "calls", calls, 1, big, max_items=32)
    bucket_sizes = Field(
        "buckets", "ints", ",".join(str(b) for b in article.buckets), 1, big, max_items=16
    )
    calcs = [
        Calculator(
            "fusion",
            (
                rows,
                cols,
                chain_dtype,
                Field("quant_dtype", "choice", "none", choices=("none", "int8", "fp8")),
            ),
            _fusion,
        ),
        Calculator(
            "attention",
            (
                seq_len,
                head_dim,
                Field("dtype", "choice", att.dtype, choices=_DTYPES),
                score_dtype,
                Field("block_q", "int", str(att.block_q), 16, 4096),
                Field("block_k", "int", str(att.block_k), 16, 4096),
                Field("causal", "bool", "false"),
            ),
            _attention,
        ),
        Calculator(
            "softmax",
            (
                Field(
                    "scores",
                    "floats",
                    ", ".join(number_text(math.log(w), ".17g") for w in sm.score_exps),
                    -1e6,
                    1e6,
                ),
                Field("values", "floats", ", ".join(str(x) for x in sm.values), -1e6, 1e6),
                Field("block", "int", str(sm.block), 1, 32),
            ),
            _softmax,
        ),
        Calculator(
            "launches",
            tuple(
                Field(k, "int", str(getattr(gr, k)), 1, big)
                for k in ("runs", "kernels_per_run", "fused_kernels_per_run")
            ),
            _launches,
        ),
        Calculator(
            "buckets",
            (
                call_rows,
                bucket_sizes,
                # the peak the article's rates imply (rate / MFU), so that its example gives
                # the article's 100 / 200 / 250 TFLOP/s and per-run times
                Field(
                    "peak_tflops",
                    "float",
                    number_text(article.implied_peak_tflops("article"), "g"),
                    1.0,
                    1e5,
                ),
                *util.values(),
                *prep.values(),
            ),
            _buckets,
        ),
        Calculator("crossover", (*prep.values(), *run.values()), _crossover),
        Calculator(
            "recompute",
            (
                rows,
                cols,
                chain_dtype,
                Field("quant_dtype", "choice", chain.quant_dtype, choices=("int8", "fp8")),
                seq_len,
                head_dim,
                score_dtype,
                call_rows,
                bucket_sizes,
            ),
            _recompute,
        ),
    ]
    return {c.name: c for c in calcs}
