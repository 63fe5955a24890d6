"""The calculators, declared once for the CLI, the live calculators and the pages.

Each :class:`Calculator` names its inputs (:class:`Field`: name, kind, default from ``conf/``,
bounds, label) and one function from parsed inputs to a :class:`Result`: the tables, with raw
numbers (:class:`~infrabook.tables.Table`), and the same numbers as data for ``--json``. The
CLI builds its options from the fields and prints the tables as text, the live calculators
build their forms from them and show the tables as HTML, the pages show them as Markdown.
Nothing here imports numpy or matplotlib: Pyodide runs this module from the package's wheel.

>>> result = calculators()["fusion"].compute(calculators()["fusion"].parse({})[0])
>>> result.tables[0].cells()[0][:3]
['[silu+mul]', '1', '72']
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from infrabook import config
from infrabook.attention_sizes import AttentionSizes, attention_sizes, flash_traffic
from infrabook.audit import AuditRow, section6_lines
from infrabook.bucketing import (
    Strategy,
    article_bucketing,
    check_buckets,
    cost,
    cost_lines,
    parse_calls,
    shown_ms,
)
from infrabook.crossover import Line, pairwise, regimes
from infrabook.dataflow import Accounting, account, fully_fused, unfused
from infrabook.ffn_chain import activation_chain
from infrabook.fusion_search import RankedPlan, rank_plans
from infrabook.labels import LABELS, group, text
from infrabook.launches import launch_counts
from infrabook.online_softmax import Step, trace
from infrabook.quoting import quoted
from infrabook.tables import Table, number_text
from infrabook.units import mib

_DTYPES = ("fp32", "fp16", "bf16")
#: Every MiB column: four significant figures, whole numbers without decimals.
_MIB = ".4g"


class FieldError(ValueError):
    """Bad input for one field; ``field`` names it so the page can show the message beside it."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name


#: The largest integer the CLI reads (its fields have no upper bound of their own): sizes are
#: turned into floats and numpy's int64, which a larger one overflows.
CLI_INT_LIMIT = 2**63 - 1


@dataclass(frozen=True)
class Field:
    """One input: its name, kind, default (the article's case) and bounds.

    The bounds keep a live calculator's answer to milliseconds in a reader's browser
    (:meth:`parse`); the CLI reads the same field without them (:attr:`unbounded`).
    """

    name: str
    kind: str  # int, float, choice, bool, floats, calls, ints
    default: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    max_items: int = 32

    @property
    def label(self) -> str:
        """The field's label in the build's language."""
        return text(f"live.field.{self.name}")

    @property
    def name_text(self) -> str:
        """The field's name in its errors: the label, less the help some labels carry (an
        example, "comma-separated") that the error states itself.

        >>> Field("calls", "calls", "256").name_text == text("live.field_name.calls")
        True
        >>> Field("rows", "int", "1").name_text == Field("rows", "int", "1").label
        True
        """
        key = f"live.field_name.{self.name}"
        return text(key) if key in LABELS else self.label

    @property
    def option(self) -> str:
        """The CLI's option for the field.

        >>> Field("seq_len", "int", "8192").option
        '--seq-len'
        """
        return "--" + self.name.replace("_", "-")

    @property
    def unbounded(self) -> Field:
        """The same field without the bounds a browser needs: what the CLI reads, leaving the
        checks to the calculators, so a terminal can ask for any size they accept.

        >>> Field("block", "int", "1", 1, 64).unbounded.parse("4096")
        4096
        >>> Field("block", "int", "1", 1, 64).unbounded.parse("0")
        Traceback (most recent call last):
        ...
        infrabook.calculators.FieldError: 每块几个分数：应为正整数，收到 0
        """
        # an integer field with a lower bound counts or sizes something: the calculators
        # refuse less than 1 too, so the CLI says so here, in the reader's language
        counts = self.kind in ("int", "ints", "calls") and (self.low or 0) >= 1
        return replace(self, low=1 if counts else None, high=None, max_items=sys.maxsize)

    def parse(self, raw: str) -> Any:
        """The value in ``raw``, checked against the field's kind and bounds: the live
        calculators' reading, every error a :class:`FieldError` in the reader's language."""
        raw = raw.strip()
        if self.kind == "bool":
            return raw.lower() in ("1", "true", "on", "yes")
        if self.kind == "choice":
            if raw not in self.choices:
                self._fail("live.error.choice", raw, choices=" / ".join(self.choices))
            return raw
        if self.kind == "calls":
            items = raw.split(",")
            if not raw or len(items) > self.max_items:
                self._fail("live.error.items", raw)
            try:
                calls = parse_calls(raw)
            except ValueError:
                self._fail("live.error.calls", raw)
            for rows, count in calls:
                self._bounded(rows, raw)
                if self.high is not None and count > self.high:
                    self._fail("live.error.items", raw)
                self._bounded(count, raw, sizes_only=True)
            return calls
        if self.kind in ("floats", "ints"):
            items = [x.strip() for x in raw.split(",")]
            if not raw or len(items) > self.max_items:
                self._fail("live.error.items", raw)
            return [self._number(x, raw) for x in items]
        return self._number(raw, raw)

    def _number(self, token: str, raw: str) -> Any:
        integer = self.kind in ("int", "ints")
        try:
            value: Any = int(token) if integer else float(token)
        except ValueError:
            self._fail("live.error.int" if integer else "live.error.float", raw)
        if not integer and not math.isfinite(value):
            self._fail("live.error.float", raw)
        return self._bounded(value, raw)

    def _bounded(self, value: Any, raw: str, sizes_only: bool = False) -> Any:
        if self.high is None and isinstance(value, int) and value > CLI_INT_LIMIT:
            self._fail("live.error.large_int", raw, limit=str(CLI_INT_LIMIT))
        if sizes_only:
            return value
        if (self.low is not None and value < self.low) or (
            self.high is not None and value > self.high
        ):
            key = "live.error.int" if isinstance(value, int) else "live.error.float"
            self._fail(key, raw)
        return value

    def _fail(self, key: str, raw: str, **extra: str) -> Any:
        low = bound_text(self.low) if self.low is not None else ""
        high = bound_text(self.high) if self.high is not None else ""
        if self.high is None and key not in ("live.error.choice", "live.error.large_int"):
            # the CLI's unbounded reading
            lists = {"calls": "calls", "ints": "items", "floats": "floats"}
            what = lists.get(self.kind) or key.rsplit(".", 1)[1]
            key = f"live.error.{'positive' if low == '1' else 'read'}_{what}"
        raise FieldError(
            self.name,
            text(
                key,
                label=self.name_text,
                low=low,
                high=high,
                # an unprintable character (a control code, a line break) is shown escaped
                # and a long value cut: the message is one line in a terminal and one
                # short paragraph on a page
                raw=quoted(raw) or text("live.error.empty_raw"),
                items=self.max_items,
                **extra,
            ),
        )


def bound_text(value: float) -> str:
    """A field's bound as a reader writes it, not as Python prints it.

    >>> bound_text(1e-6), bound_text(1e9), bound_text(1048576), bound_text(0.5)
    ('0.000001', '1,000,000,000', '1,048,576', '0.5')
    """
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.12f}".rstrip("0")


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


def _columns(*keys: str) -> tuple[str, ...]:
    return tuple(text(k) for k in keys)


def plan_table(ranked: Sequence[RankedPlan]) -> Table:
    """One row per fusion plan, best first: kernels, traffic, peak live and working set, MiB.

    >>> from infrabook.ffn_chain import activation_chain
    >>> plan_table(rank_plans(activation_chain(1024, 12288, "bf16", "int8"))).cells()[0]
    ['[silu+mul+quant]', '1', '60', '60', '60']
    """
    rows = tuple(
        (
            r.label,
            r.accounting.kernel_count,
            mib(r.accounting.traffic),
            mib(r.accounting.peak_live_bytes),
            mib(r.accounting.footprint_bytes),
        )
        for r in ranked
    )
    columns = _columns(
        "live.col.plan",
        "live.col.kernels",
        "live.col.traffic_mib",
        "live.col.peak_mib",
        "calc.col.footprint_mib",
    )
    return Table("", columns, rows, formats=("", "d", _MIB, _MIB, _MIB))


def _kernel_name(name: str) -> str:
    ops = group("calc.op")
    return " + ".join(ops.get(op, op) for op in name.split("+"))


def kernel_table(plans: Sequence[tuple[str, Accounting]]) -> Table:
    """One row per kernel of each ``(tag, accounting)``: what it reads and writes, MiB.

    >>> from infrabook.ffn_chain import activation_chain
    >>> g = activation_chain(1024, 12288, "bf16")
    >>> for row in kernel_table([("", account(g, unfused(g)))]).cells():
    ...     print(row)
    ['SiLU', 'G', 'T', '24', '24', '48']
    ['乘法', 'T, U', 'Z', '48', '24', '72']
    """
    rows = tuple(
        (
            tag + _kernel_name(k.name),
            ", ".join(k.reads) or "-",
            ", ".join(k.writes) or "-",
            mib(k.bytes_read),
            mib(k.bytes_written),
            mib(k.bytes_moved),
        )
        for tag, acc in plans
        for k in acc.kernels
    )
    columns = _columns(
        "cli.col.kernel",
        "cli.col.reads",
        "cli.col.writes",
        "cli.col.read_mib",
        "cli.col.written_mib",
        "calc.col.total_mib",
    )
    return Table("", columns, rows, formats=("", "", "", _MIB, _MIB, _MIB))


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


def size_table(a: AttentionSizes) -> Table:
    """The article's size table of one attention head: tensor, shape, dtype, MiB.

    >>> for row in size_table(attention_sizes(8192, 128, "bf16", "fp32")).cells():
    ...     print(row)
    ['Q / K / V / O（各）', '8192 × 128', 'bf16', '2']
    ['S = QKᵀ / √d', '8192 × 8192', 'fp32', '256']
    ['P = softmax(S)', '8192 × 8192', 'fp32', '256']
    """
    io = f"{a.seq_len} × {a.head_dim}"
    sq = f"{a.seq_len} × {a.seq_len}"
    rows = (
        (text("table.each", name="Q / K / V / O"), io, a.dtype, mib(a.qkvo_bytes)),
        ("S = QKᵀ / √d", sq, a.score_dtype, mib(a.score_bytes)),
        ("P = softmax(S)", sq, a.score_dtype, mib(a.score_bytes)),
    )
    columns = (text("calc.col.tensor"), text("calc.col.shape"), "dtype", text("calc.col.size_mib"))
    return Table("", columns, rows, formats=("", "", "", _MIB))


def _attention(v: dict[str, Any]) -> Result:
    a = attention_sizes(v["seq_len"], v["head_dim"], v["dtype"], v["score_dtype"])
    f = flash_traffic(
        v["seq_len"], v["head_dim"], v["dtype"], v["block_q"], v["block_k"], v["causal"]
    )
    rows = (
        (text("live.row.qkvo_each"), mib(a.qkvo_bytes)),
        (text("live.row.score_each"), mib(a.score_bytes)),
        (text("live.row.standard_io"), mib(a.io_traffic)),
        (text("live.row.standard_intermediate"), mib(a.intermediate_traffic)),
        (text("live.row.standard_total"), mib(a.standard_traffic)),
        (text("live.row.flash_total", tiles=f.query_tiles), mib(f.total)),
        (text("live.row.flash_kv"), mib(f.kv_bytes)),
    )
    data = {
        "qkvo_bytes": a.qkvo_bytes,
        "score_bytes": a.score_bytes,
        "io_traffic_bytes": a.io_traffic,
        "standard_intermediate_traffic_bytes": a.intermediate_traffic,
        "standard_traffic_bytes": a.standard_traffic,
        "flash": asdict(f) | {"total": f.total},
    }
    table = Table("", (text("live.col.quantity"), "MiB"), rows, formats=("", _MIB))
    return Result((table,), data)


def trace_table(steps: Sequence[Step]) -> Table:
    """The online-softmax trace, one row per block (counted from 1, as the article counts
    them): its scores, m, ℓ, u and the rescale factor r; the result u / ℓ under it. Exact
    scores and values (:class:`~infrabook.online_softmax.Ln`, fractions) stay exact.

    >>> from fractions import Fraction
    >>> from infrabook.online_softmax import Ln
    >>> t = trace_table(trace([Ln(1), Ln(2)], [Fraction(1), Fraction(3)]))
    >>> t.cells()[-1], t.note
    (['2', 'ln(2)', 'ln(2)', '3/2', '7/2', '1/2'], '结果 u/ℓ = 7/3')
    """
    rows = tuple((s.index + 1, s.scores, s.state.m, s.state.l, s.state.u, s.r) for s in steps)
    columns = (text("live.col.block"), text("live.col.scores"), "m", "ℓ", "u", "r")
    result = number_text(steps[-1].state.result, ".6g")
    note = text("live.note.softmax_result", value=result)
    return Table("", columns, rows, note, formats=("d", ".4g", ".6g", ".6g", ".6g", ".6g"))


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
    rows = tuple(
        (
            c.strategy.label,
            c.executed_rows,
            c.padding_fraction,
            c.executed_utilisation(peak),
            c.useful_mfu(peak),
            c.rate_tflops,
            shown_ms(c.time_ms),
            c.strategy.prep_ms,
        )
        for c in costs
    )
    columns = _columns(
        "live.col.strategy",
        "live.col.executed_rows",
        "live.col.padding",
        "live.col.executed_util",
        "live.col.useful_mfu",
        "live.col.rate",
        "live.col.run_ms",
        "live.col.prep_ms",
    )
    table = Table("", columns, rows, formats=("", "d", "+.1%", ".1%", ".1%", "g", "", "g"))
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
    return Result((table, replace(pairs, note=note), spans), data)


def crossing_result(lines: Sequence[Line]) -> Result:
    """Each pair's crossover and the cheapest strategy between them, as two tables.

    >>> pairs, spans = crossing_result([Line("a", 100, 17.0), Line("b", 400, 12.4)]).tables
    >>> pairs.cells()[0][1], spans.cells()[-1]
    ('65.2', ['65.2', '∞', 'b'])
    """
    crossings, spans = pairwise(lines), regimes(lines)
    pairs = tuple((f"{c.a} ↔ {c.b}", c.runs_text) for c in crossings)
    # an open end is ∞ here, where number_text would write a dash for "no value"
    ends = tuple((g.start, g.end if math.isfinite(g.end) else "∞", g.best) for g in spans)
    return Result(
        (
            Table("", _columns("live.col.pair", "live.col.crossover_n"), pairs),
            Table(
                "",
                _columns("live.col.from_n", "live.col.to_n", "live.col.cheapest"),
                ends,
                formats=(".1f", ".1f", ""),
            ),
        ),
        {"crossings": crossings, "regimes": spans},
    )


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
    rows = tuple((text(f"launches.{c.name}"), c.host_submissions, c.kernels) for c in counts)
    columns = _columns("cli.col.config", "cli.col.host_submissions", "cli.col.kernels")
    table = Table("", columns, rows, formats=("", "d", "d"))
    return Result((table,), [asdict(c) for c in counts])


def audit_table(rows: Sequence[AuditRow]) -> Table:
    """The audit's claims as one table: section, claim, stated, recomputed, verdict.

    >>> from infrabook.audit import audit
    >>> audit_table(audit()).columns
    ('节', '结论', '原文', '复算', '判定')
    """
    cells = tuple(
        (
            r.section,
            r.id,
            f"{r.stated} {r.unit}".strip(),
            f"{r.recomputed_text} {r.recomputed_unit}".strip(),
            r.verdict_text,
        )
        for r in rows
    )
    keys = ("section", "claim", "stated", "recomputed", "verdict")
    return Table("", _columns(*(f"cli.col.{k}" for k in keys)), cells)


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
    rows = tuple(tuple(line.split(": ", 1)) for line in lines)
    table = Table("", _columns("live.col.item", "live.col.result"), rows)
    return Result((table,), {"lines": lines})


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
