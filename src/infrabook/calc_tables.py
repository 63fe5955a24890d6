"""The calculators' tables: each result laid out as a :class:`~infrabook.tables.Table` of raw
numbers, with its columns in the reader's language (formatted only when rendered: text for
the CLI, HTML for the live calculators, Markdown for the pages).

>>> from infrabook.launches import launch_counts
>>> launch_table(launch_counts(100, 10, 2)).cells()[0][1:]
['1000', '1000']
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from infrabook.attention_sizes import AttentionSizes, FlashTraffic
from infrabook.audit import AuditRow
from infrabook.bucketing import StrategyCost, shown_ms
from infrabook.crossover import Line, pairwise, regimes
from infrabook.dataflow import Accounting
from infrabook.fusion_search import RankedPlan
from infrabook.labels import group, text
from infrabook.launches import LaunchCount
from infrabook.online_softmax import Step
from infrabook.tables import Table, number_text
from infrabook.units import mib

#: Every MiB column: four significant figures, whole numbers without decimals.
MIB = ".4g"


def _columns(*keys: str) -> tuple[str, ...]:
    return tuple(text(k) for k in keys)


def plan_table(ranked: Sequence[RankedPlan]) -> Table:
    """One row per fusion plan, best first: kernels, traffic, peak live and working set, MiB.

    >>> from infrabook.ffn_chain import activation_chain
    >>> from infrabook.fusion_search import rank_plans
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
    return Table("", columns, rows, formats=("", "d", MIB, MIB, MIB))


def _kernel_name(name: str) -> str:
    ops = group("calc.op")
    return " + ".join(ops.get(op, op) for op in name.split("+"))


def kernel_table(plans: Sequence[tuple[str, Accounting]]) -> Table:
    """One row per kernel of each ``(tag, accounting)``: what it reads and writes, MiB.

    >>> from infrabook.dataflow import account, unfused
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
    return Table("", columns, rows, formats=("", "", "", MIB, MIB, MIB))


def size_table(a: AttentionSizes) -> Table:
    """The article's size table of one attention head: tensor, shape, dtype, MiB.

    >>> from infrabook.attention_sizes import attention_sizes
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
    return Table("", columns, rows, formats=("", "", "", MIB))


def attention_table(a: AttentionSizes, f: FlashTraffic) -> Table:
    """What the standard implementation and FlashAttention read and write, MiB."""
    rows = (
        (text("live.row.qkvo_each"), mib(a.qkvo_bytes)),
        (text("live.row.score_each"), mib(a.score_bytes)),
        (text("live.row.standard_io"), mib(a.io_traffic)),
        (text("live.row.standard_intermediate"), mib(a.intermediate_traffic)),
        (text("live.row.standard_total"), mib(a.standard_traffic)),
        (text("live.row.flash_total", tiles=f.query_tiles), mib(f.total)),
        (text("live.row.flash_kv"), mib(f.kv_bytes)),
    )
    return Table("", (text("live.col.quantity"), "MiB"), rows, formats=("", MIB))


def trace_table(steps: Sequence[Step]) -> Table:
    """The online-softmax trace, one row per block (counted from 1, as the article counts
    them): its scores, m, ℓ, u and the rescale factor r; the result u / ℓ under it. Exact
    scores and values (:class:`~infrabook.online_softmax.Ln`, fractions) stay exact.

    >>> from fractions import Fraction
    >>> from infrabook.online_softmax import Ln, trace
    >>> t = trace_table(trace([Ln(1), Ln(2)], [Fraction(1), Fraction(3)]))
    >>> t.cells()[-1], t.note
    (['2', 'ln(2)', 'ln(2)', '3/2', '7/2', '1/2'], '结果 u/ℓ = 7/3')
    """
    rows = tuple((s.index + 1, s.scores, s.state.m, s.state.l, s.state.u, s.r) for s in steps)
    columns = (text("live.col.block"), text("live.col.scores"), "m", "ℓ", "u", "r")
    result = number_text(steps[-1].state.result, ".6g")
    note = text("live.note.softmax_result", value=result)
    return Table("", columns, rows, note, formats=("d", ".4g", ".6g", ".6g", ".6g", ".6g"))


def bucket_table(costs: Sequence[StrategyCost], peak: float) -> Table:
    """One row per strategy: executed rows, padding, utilisation, rate, run and prep times."""
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
    return Table("", columns, rows, formats=("", "d", "+.1%", ".1%", ".1%", "g", "", "g"))


def crossing_tables(lines: Sequence[Line]) -> tuple[Table, Table]:
    """Each pair's crossover, and the cheapest strategy between the crossovers.

    >>> pairs, spans = crossing_tables([Line("a", 100, 17.0), Line("b", 400, 12.4)])
    >>> pairs.cells()[0][1], spans.cells()[-1]
    ('65.2', ['65.2', '∞', 'b'])
    """
    pairs = tuple((f"{c.a} ↔ {c.b}", c.runs_text) for c in pairwise(lines))
    # an open end is ∞ here, where number_text would write a dash for "no value"
    ends = tuple((g.start, g.end if math.isfinite(g.end) else "∞", g.best) for g in regimes(lines))
    return (
        Table("", _columns("live.col.pair", "live.col.crossover_n"), pairs),
        Table(
            "",
            _columns("live.col.from_n", "live.col.to_n", "live.col.cheapest"),
            ends,
            formats=(".1f", ".1f", ""),
        ),
    )


def launch_table(counts: Sequence[LaunchCount]) -> Table:
    """Host submissions and kernels of each configuration."""
    rows = tuple((text(f"launches.{c.name}"), c.host_submissions, c.kernels) for c in counts)
    columns = _columns("cli.col.config", "cli.col.host_submissions", "cli.col.kernels")
    return Table("", columns, rows, formats=("", "d", "d"))


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


def section6_table(lines: Sequence[str]) -> Table:
    """The article's section 6 recomputed, one ``item: result`` line per row."""
    rows = tuple(tuple(line.split(": ", 1)) for line in lines)
    return Table("", _columns("live.col.item", "live.col.result"), rows)
