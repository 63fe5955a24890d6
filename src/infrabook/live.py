"""The calculators a reader can drive on a page: inputs in, tables out, the same code everywhere.

Each live calculator names its input fields (with the article's case as defaults and bounds
that keep every answer to milliseconds) and computes tables by calling the package's own
calculators. The docs build calls :func:`run` with the defaults to print the static table; in
the reader's browser, Pyodide runs this very module from the package's wheel and calls
:func:`run_json` whenever an input changes. Nothing here imports numpy, so it runs there.

>>> out = run("fusion", {})
>>> out["ok"], out["tables"][0]["rows"][0][2]
(True, '72')
>>> run("fusion", {"rows": "-3"})["error"]
'行数 rows：应为 1 到 1048576 之间的整数，收到 -3'
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
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
    parse_calls,
    shown_ms,
)
from infrabook.crossover import Line, pairwise, regimes
from infrabook.ffn_chain import activation_chain
from infrabook.fusion_search import rank_plans
from infrabook.labels import text
from infrabook.online_softmax import trace
from infrabook.tables import number_text, text_table
from infrabook.units import mib

_DTYPES = ("fp32", "fp16", "bf16")
_NUMBER = re.compile(r"[+\-−]?[\d.,]+(e[+-]?\d+)?%?|∞")


class FieldError(ValueError):
    """Bad input for one field; ``field`` names it so the page can show the message beside it."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name


@dataclass(frozen=True)
class Field:
    """One input: its name, kind, default (the article's case) and bounds."""

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

    def parse(self, raw: str) -> Any:
        """The value in ``raw``, checked against the field's kind and bounds."""
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
            except ValueError as err:
                raise FieldError(
                    self.name, text("word.named", name=self.label, value=err)
                ) from None
            for rows, count in calls:
                self._bounded(rows, raw)
                if count > self.high:  # type: ignore[operator]
                    self._fail("live.error.items", raw)
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

    def _bounded(self, value: Any, raw: str) -> Any:
        if (self.low is not None and value < self.low) or (
            self.high is not None and value > self.high
        ):
            key = "live.error.int" if isinstance(value, int) else "live.error.float"
            self._fail(key, raw)
        return value

    def _fail(self, key: str, raw: str, **extra: str) -> Any:
        low = number_text(self.low, "g") if self.low is not None else ""
        high = number_text(self.high, "g") if self.high is not None else ""
        raise FieldError(
            self.name,
            text(
                key,
                label=self.label,
                low=low,
                high=high,
                raw=raw or "''",
                items=self.max_items,
                **extra,
            ),
        )


@dataclass(frozen=True)
class Table:
    """One output table: header and rows of text, with an optional line under it."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""

    def text(self) -> str:
        """The table as aligned terminal text (the CLI's rendering), its note under it."""
        body = text_table([self.header, *self.rows])
        return f"{body}\n{self.note}" if self.note else body

    def html(self) -> str:
        """The table as HTML, every cell escaped; numeric cells are marked to align right."""
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.header)
        body = "".join(
            "<tr>"
            + "".join(
                f'<td class="num">{html.escape(c)}</td>'
                if _NUMBER.fullmatch(c)
                else f"<td>{html.escape(c)}</td>"
                for c in row
            )
            + "</tr>"
            for row in self.rows
        )
        note = f'<p class="live-note">{html.escape(self.note)}</p>' if self.note else ""
        # The theme's scrolling container: a wide table scrolls inside it on a phone.
        return (
            '<div class="pst-scrollable-table-container">'
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{note}"
        )


@dataclass(frozen=True)
class Calculator:
    """A live calculator: its fields and the function from parsed inputs to tables."""

    name: str
    fields: tuple[Field, ...]
    compute: Callable[[dict[str, Any]], list[Table]] = field(repr=False)

    @property
    def title(self) -> str:
        """The calculator's title in the build's language."""
        return text(f"live.title.{self.name}")

    def defaults(self) -> dict[str, str]:
        """The article's case, as the text a reader sees in each field."""
        return {f.name: f.default for f in self.fields}


def _mib(nbytes: float) -> str:
    return number_text(mib(nbytes), ".4g")


def _fusion(v: dict[str, Any]) -> list[Table]:
    quant = None if v["quant_dtype"] == "none" else v["quant_dtype"]
    ranked = rank_plans(activation_chain(v["rows"], v["cols"], v["dtype"], quant))
    rows = tuple(
        (
            r.label,
            str(r.accounting.kernel_count),
            _mib(r.accounting.traffic),
            _mib(r.accounting.peak_live_bytes),
        )
        for r in ranked
    )
    header = tuple(
        text(k)
        for k in ("live.col.plan", "live.col.kernels", "live.col.traffic_mib", "live.col.peak_mib")
    )
    return [Table(header, rows)]


def _attention(v: dict[str, Any]) -> list[Table]:
    a = attention_sizes(v["seq_len"], v["head_dim"], v["dtype"], v["score_dtype"])
    f = flash_traffic(
        v["seq_len"], v["head_dim"], v["dtype"], v["block_q"], v["block_k"], v["causal"]
    )
    rows = (
        (text("live.row.qkvo_each"), _mib(a.qkvo_bytes)),
        (text("live.row.score_each"), _mib(a.score_bytes)),
        (text("live.row.standard_io"), _mib(a.io_traffic)),
        (text("live.row.standard_intermediate"), _mib(a.intermediate_traffic)),
        (text("live.row.standard_total"), _mib(a.standard_traffic)),
        (text("live.row.flash_total", tiles=f.query_tiles), _mib(f.total)),
        (text("live.row.flash_kv"), _mib(f.kv_bytes)),
    )
    return [Table((text("live.col.quantity"), "MiB"), rows)]


def _softmax(v: dict[str, Any]) -> list[Table]:
    scores, values = v["scores"], v["values"]
    if len(scores) != len(values):
        raise FieldError(
            "values", text("live.error.same_length", scores=len(scores), values=len(values))
        )
    steps = trace(scores, values, v["block"])
    rows = tuple(
        (
            str(s.index + 1),  # blocks are counted from 1, as the article counts them
            ", ".join(number_text(x, ".4g") for x in s.scores),
            number_text(s.state.m, ".6g"),
            number_text(s.state.l, ".6g"),
            number_text(s.state.u, ".6g"),
            number_text(float(s.r), ".6g"),
        )
        for s in steps
    )
    header = (text("live.col.block"), text("live.col.scores"), "m", "ℓ", "u", "r")
    result = number_text(float(steps[-1].state.result), ".6g")
    return [Table(header, rows, text("live.note.softmax_result", value=result))]


def _strategies(v: dict[str, Any]) -> tuple[Strategy, ...]:
    base = {s.name: s for s in article_bucketing().strategies}
    return tuple(
        Strategy(name, base[name].bucketed, v[f"util_{name}"], v[f"prep_{name}"])
        for name in ("generic", "bucketed", "specialised")
    )


def _buckets(v: dict[str, Any]) -> list[Table]:
    scenario = article_bucketing()
    buckets = check_buckets(v["buckets"])
    peak = v["peak_tflops"]
    costs = [
        cost(s, v["calls"], buckets, scenario.flop_per_row, s.mfu * peak) for s in _strategies(v)
    ]
    rows = tuple(
        (
            c.strategy.label,
            str(c.executed_rows),
            f"{c.padding_fraction:+.1%}",
            f"{c.executed_utilisation(peak):.1%}",
            f"{c.useful_mfu(peak):.1%}",
            number_text(c.rate_tflops, "g"),
            number_text(shown_ms(c.time_ms)),
            number_text(c.strategy.prep_ms, "g"),
        )
        for c in costs
    )
    header = tuple(
        text(k)
        for k in (
            "live.col.strategy",
            "live.col.executed_rows",
            "live.col.padding",
            "live.col.executed_util",
            "live.col.useful_mfu",
            "live.col.rate",
            "live.col.run_ms",
            "live.col.prep_ms",
        )
    )
    pairs, spans = crossing_tables(cost_lines(costs, label=True))
    unrounded = " / ".join(
        c.runs_text for c in pairwise(cost_lines(costs, shown=False, label=True))
    )
    note = text("live.note.shown_times", unrounded=unrounded)
    return [Table(header, rows), replace(pairs, note=note), spans]


def _crossover(v: dict[str, Any]) -> list[Table]:
    labels = {s.name: s.label for s in article_bucketing().strategies}
    lines = [
        Line(labels[n], v[f"prep_{n}"], v[f"run_{n}"])
        for n in ("generic", "bucketed", "specialised")
    ]
    return crossing_tables(lines)


def crossing_tables(lines: Sequence[Line]) -> list[Table]:
    """Each pair's crossover and the cheapest strategy between them, as two tables.

    >>> pairs, spans = crossing_tables([Line("generic", 100, 17.0), Line("bucketed", 400, 12.4)])
    >>> pairs.rows[0][1], spans.rows[-1]
    ('65.2', ('65.2', '∞', 'bucketed'))
    """
    pairs = tuple(
        (
            f"{c.a} ↔ {c.b}",
            c.runs_text,
        )
        for c in pairwise(lines)
    )
    spans = tuple(
        (
            number_text(g.start, ".1f"),
            number_text(g.end, ".1f") if math.isfinite(g.end) else "∞",
            g.best,
        )
        for g in regimes(lines)
    )
    return [
        Table((text("live.col.pair"), text("live.col.crossover_n")), pairs),
        Table((text("live.col.from_n"), text("live.col.to_n"), text("live.col.cheapest")), spans),
    ]


def _recompute(v: dict[str, Any]) -> list[Table]:
    s = config.scenarios()
    chain = {k: v[k] for k in ("rows", "cols", "dtype", "quant_dtype")}
    att = {k: v[k] for k in ("seq_len", "head_dim", "dtype", "score_dtype")}
    scenario = replace(
        s,
        ffn_chain=replace(s.ffn_chain, **chain),
        attention=replace(s.attention, **att),
        bucketing=replace(s.bucketing, calls=v["calls"], buckets=v["buckets"]),
    )
    rows = tuple(tuple(line.split(": ", 1)) for line in section6_lines(scenario))
    return [Table((text("live.col.item"), text("live.col.result")), rows)]


def _calculators() -> dict[str, Calculator]:
    s = config.scenarios()
    chain, att, sm = s.ffn_chain, s.attention, s.online_softmax
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


def calculators() -> dict[str, Calculator]:
    """Every live calculator by name.

    >>> sorted(calculators())
    ['attention', 'buckets', 'crossover', 'fusion', 'recompute', 'softmax']
    """
    return _calculators()


def run(name: str, raw: Mapping[str, str]) -> dict[str, Any]:
    """Compute calculator ``name`` on the reader's raw inputs (missing ones take defaults).

    Returns ``{"ok": True, "tables": [...], "html": ...}``, or ``{"ok": False, "errors":
    [{"field": ..., "error": ...}, ...], "field": ..., "error": ...}``: every bad field with the
    package's own message (``field`` and ``error`` repeat the first), or, when each field is
    valid but together they are not, one error whose ``field`` is ``None``.

    >>> out = run("crossover", {})
    >>> [row[1] for row in out["tables"][0]["rows"]]
    ['65.2', '78.4', '89.3']
    >>> run("softmax", {"values": "1"})["error"]
    '值的个数（1）与分数的个数（2）不同'
    >>> [e["field"] for e in run("fusion", {"rows": "-5", "cols": "x"})["errors"]]
    ['rows', 'cols']
    """
    calcs = calculators()
    if name not in calcs:
        raise ValueError(f"no live calculator {name!r}; expected one of {', '.join(calcs)}")
    calc = calcs[name]
    unknown = set(raw) - {f.name for f in calc.fields}
    if unknown:
        raise ValueError(f"calculator {name!r} has no field(s) {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {}
    errors: list[FieldError] = []
    for f in calc.fields:
        try:
            values[f.name] = f.parse(raw.get(f.name, f.default))
        except FieldError as err:
            errors.append(err)
    if not errors:
        try:
            tables = calc.compute(values)
        except FieldError as err:
            errors.append(err)
        except ValueError as err:
            errors.append(FieldError("", str(err)))
    if errors:
        listed = [{"field": e.field or None, "error": str(e)} for e in errors]
        return {"ok": False, "errors": listed, **listed[0]}
    return {
        "ok": True,
        "tables": [
            {"header": list(t.header), "rows": [list(r) for r in t.rows], "note": t.note}
            for t in tables
        ],
        "html": "".join(t.html() for t in tables),
    }


def run_json(name: str, raw_json: str) -> str:
    """:func:`run` for the page's script: JSON in, JSON out."""
    return json.dumps(run(name, json.loads(raw_json)), ensure_ascii=False)
