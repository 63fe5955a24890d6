"""The ``infrabook`` command: the article's recomputation, and the calculators on your numbers.

Every subcommand's defaults come from ``conf/scenarios.toml``, so a bare subcommand shows the
article's case. Bad input prints one line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any, NoReturn

import numpy as np

from infrabook import config, labels
from infrabook.attention_sizes import attention_sizes, flash_traffic
from infrabook.audit import audit, section6_lines
from infrabook.bucketing import (
    BucketingScenario,
    article_bucketing,
    check_buckets,
    cost_lines,
    parse_calls,
    parse_mfus,
)
from infrabook.crossover import pairwise, parse_strategy, regimes
from infrabook.ffn_chain import activation_chain
from infrabook.fusion_search import rank_plans
from infrabook.launches import launch_counts
from infrabook.live import calculators, crossing_tables
from infrabook.online_softmax import trace
from infrabook.serialise import jsonable
from infrabook.tables import number_text, text_table
from infrabook.units import mib


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _floats(text: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(f"cannot read {text!r}: expected comma-separated numbers") from None


def _ints(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(f"cannot read {text!r}: expected comma-separated integers") from None


def _cmd_calc(args: argparse.Namespace) -> Any:
    lines = section6_lines()
    return {"lines": lines}, "\n".join(lines)


def _live(name: str, values: dict[str, Any]) -> str:
    """Calculator ``name``'s tables (the ones its live calculator shows) as terminal text."""
    tables = calculators()[name].compute(values)
    return "\n\n".join(t.text() for t in tables)


def _cmd_fusion(args: argparse.Namespace) -> Any:
    graph = activation_chain(args.rows, args.cols, args.dtype, args.quant_dtype)
    ranked = rank_plans(graph)
    keys = ("kernel", "reads", "writes", "read_mib", "written_mib")
    detail: list[tuple[object, ...]] = [tuple(labels.text(f"cli.col.{k}") for k in keys)]
    for r in (ranked[-1], ranked[0]):
        detail += [
            (
                k.name,
                ",".join(k.reads),
                ",".join(k.writes),
                number_text(mib(k.bytes_read), ".4g"),
                number_text(mib(k.bytes_written), ".4g"),
            )
            for k in r.accounting.kernels
        ]
    data = [
        {
            "plan": r.label,
            "kernels": [asdict(k) for k in r.accounting.kernels],
            "traffic_bytes": r.accounting.traffic,
            "peak_live_bytes": r.accounting.peak_live_bytes,
        }
        for r in ranked
    ]
    values = vars(args) | {"quant_dtype": args.quant_dtype or "none"}
    return data, _live("fusion", values) + "\n\n" + text_table(detail)


def _cmd_attention(args: argparse.Namespace) -> Any:
    a = attention_sizes(args.seq_len, args.head_dim, args.dtype, args.score_dtype)
    f = flash_traffic(
        args.seq_len, args.head_dim, args.dtype, args.block_q, args.block_k, args.causal
    )
    data = {
        "qkvo_bytes": a.qkvo_bytes,
        "score_bytes": a.score_bytes,
        "io_traffic_bytes": a.io_traffic,
        "standard_intermediate_traffic_bytes": a.intermediate_traffic,
        "standard_traffic_bytes": a.standard_traffic,
        "flash": asdict(f) | {"total": f.total},
    }
    return data, _live("attention", vars(args))


def _cmd_softmax(args: argparse.Namespace) -> Any:
    values = {"scores": _floats(args.scores), "values": _floats(args.values), "block": args.block}
    # Finite inputs can still overflow float64 in the weighted sum (values near 1.8e308);
    # say so instead of printing inf or a numpy warning.
    try:
        with np.errstate(over="raise", invalid="raise"):
            steps = trace(values["scores"], values["values"], args.block)
            text = _live("softmax", values)
    except FloatingPointError:
        steps = []
    result = float(steps[-1].state.result) if steps else math.inf
    if not math.isfinite(result):
        raise ValueError(
            f"the weighted sum of --values {args.values!r} overflows float64 "
            f"(largest {sys.float_info.max:.3g}): expected smaller values"
        )
    data = {"steps": [asdict(s) for s in steps], "result": result}
    return data, text


def _cmd_launches(args: argparse.Namespace) -> Any:
    counts = launch_counts(args.runs, args.kernels_per_run, args.fused_kernels_per_run)
    keys = ("config", "host_submissions", "kernels")
    rows: list[tuple[object, ...]] = [tuple(labels.text(f"cli.col.{k}") for k in keys)]
    rows += [(labels.text(f"launches.{c.name}"), c.host_submissions, c.kernels) for c in counts]
    return [asdict(c) for c in counts], text_table(rows)


def _scenario_for(args: argparse.Namespace) -> BucketingScenario:
    base = article_bucketing()
    sc = BucketingScenario(
        parse_calls(args.rows),
        check_buckets(_ints(args.buckets)),
        base.peak_tflops,
        base.flop_per_row,
        base.strategies,
    )
    return sc.with_mfus(parse_mfus(args.mfu)) if args.mfu else sc


def _cmd_buckets(args: argparse.Namespace) -> Any:
    sc = _scenario_for(args)
    costs = sc.costs(args.rates)
    peak = sc.implied_peak_tflops(args.rates)
    values: dict[str, Any] = {"calls": sc.calls, "buckets": sc.buckets, "peak_tflops": peak}
    for s in sc.strategies:
        values |= {f"util_{s.name}": s.mfu, f"prep_{s.name}": s.prep_ms}
    assumed = labels.text(
        "buckets.assumed",
        peak=f"{peak:g}",
        mfus=",".join(f"{s.name}={s.mfu:g}" for s in sc.strategies),
    )
    data = [
        asdict(c)
        | {
            "padding_fraction": c.padding_fraction,
            "executed_utilisation": c.executed_utilisation(peak),
            "useful_mfu": c.useful_mfu(peak),
        }
        for c in costs
    ]
    return data, _live("buckets", values) + "\n\n" + assumed


def _cmd_crossover(args: argparse.Namespace) -> Any:
    if args.strategy:
        lines = [parse_strategy(s) for s in args.strategy]
    else:
        lines = cost_lines(article_bucketing().costs("article"), label=True)
    # the tables the live calculator shows, as text
    text = "\n\n".join(t.text() for t in crossing_tables(lines))
    return {"crossings": pairwise(lines), "regimes": regimes(lines)}, text


def _cmd_audit(args: argparse.Namespace) -> Any:
    rows = audit()
    keys = ("section", "claim", "stated", "recomputed", "verdict")
    table: list[tuple[object, ...]] = [tuple(labels.text(f"cli.col.{k}") for k in keys)]
    table += [
        (
            r.section,
            r.id,
            f"{r.stated} {r.unit}".strip(),
            f"{r.recomputed_text} {r.recomputed_unit}".strip(),
            r.verdict_text,
        )
        for r in rows
    ]
    notes = [labels.text("word.named", name=r.id, value=r.note) for r in rows if r.note]
    return rows, "\n\n".join((text_table(table), labels.text("cli.notes"), "\n".join(notes)))


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with the article's case as every default."""
    s = config.scenarios()
    chain, att, sm = s.ffn_chain, s.attention, s.online_softmax
    gr, bk = s.graph_replay, s.bucketing
    dtypes = ("fp32", "fp16", "bf16")
    parser = _Parser(prog="infrabook", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(name: str, func: Callable[[argparse.Namespace], Any], help_: str) -> Any:
        p = sub.add_parser(name, help=help_, description=help_)
        p.add_argument("--json", action="store_true", help="print JSON instead of a table")
        p.set_defaults(func=func)
        return p

    command("calc", _cmd_calc, "the article's section 6 recomputation")
    p = command("fusion", _cmd_fusion, "traffic and peak of every fusion plan of the chain")
    p.add_argument("--rows", type=int, default=chain.rows)
    p.add_argument("--cols", type=int, default=chain.cols)
    p.add_argument("--dtype", choices=dtypes, default=chain.dtype)
    p.add_argument(
        "--quant-dtype",
        choices=("int8", "fp8"),
        default=None,
        help="add the 1-byte quantisation step",
    )
    p = command("attention", _cmd_attention, "standard vs FlashAttention sizes and traffic")
    p.add_argument("--seq-len", type=int, default=att.seq_len)
    p.add_argument("--head-dim", type=int, default=att.head_dim)
    p.add_argument("--dtype", choices=dtypes, default=att.dtype)
    p.add_argument("--score-dtype", choices=dtypes, default=att.score_dtype)
    p.add_argument("--block-q", type=int, default=att.block_q)
    p.add_argument("--block-k", type=int, default=att.block_k)
    p.add_argument("--causal", action="store_true")
    p = command("softmax", _cmd_softmax, "online softmax traced block by block")
    p.add_argument("--scores", default=",".join(str(math.log(w)) for w in sm.score_exps))
    p.add_argument("--values", default=",".join(str(v) for v in sm.values))
    p.add_argument("--block", type=int, default=sm.block)
    p = command("launches", _cmd_launches, "host submissions vs kernels executed")
    p.add_argument("--runs", type=int, default=gr.runs)
    p.add_argument("--kernels-per-run", type=int, default=gr.kernels_per_run)
    p.add_argument("--fused-kernels-per-run", type=int, default=gr.fused_kernels_per_run)
    p = command("buckets", _cmd_buckets, "rows, padding and time of each shape strategy")
    p.add_argument("--rows", default=",".join(f"{r}x{n}" if n > 1 else str(r) for r, n in bk.calls))
    p.add_argument("--buckets", default=",".join(str(b) for b in bk.buckets))
    p.add_argument(
        "--rates",
        choices=("article", "peak"),
        default="article",
        help="the article's stated rates, or MFU x the unrounded peak",
    )
    p.add_argument(
        "--mfu",
        metavar="NAME=FRACTION,...",
        default=None,
        help="assumed executed utilisation per strategy, padding included "
        "(default: the article's generic=0.2,bucketed=0.4,specialised=0.5)",
    )
    p = command("crossover", _cmd_crossover, "where T = P + r*T lines cross")
    p.add_argument(
        "--strategy",
        action="append",
        metavar="NAME:PREP_MS:RUN_MS",
        help="repeatable; default: the article's three strategies",
    )
    command("audit", _cmd_audit, "every numeric claim of the article, recomputed")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status: 0, or 2 with one line on stderr for bad input
    or a bad ``conf/`` file."""
    try:
        config.check_all()
    except config.ConfError as err:
        print(f"infrabook: error: {err}", file=sys.stderr)
        return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        data, text = args.func(args)
    except ValueError as err:
        print(f"infrabook {args.command}: error: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(jsonable(data), ensure_ascii=False, indent=2))
    else:
        print(text)
    return 0
