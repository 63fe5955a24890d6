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
from infrabook.audit import audit, recompute
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
from infrabook.live import crossing_tables
from infrabook.online_softmax import Ln, trace
from infrabook.serialise import jsonable
from infrabook.tables import text_table
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


def calc_lines(lang: str | None = None) -> list[str]:
    """The article's section 6 output, line by line, formatted from :func:`recompute`, in
    ``lang`` (the build's language by default; the Chinese keeps the article's format).

    >>> print(calc_lines(lang="zh")[0])
    融合: 分开 120 MiB → 融合 72 MiB(比 0.60,理论 1.67×);三步 156/108/60 MiB
    >>> print(calc_lines(lang="en")[0])
    fusion: separate 120 MiB → fused 72 MiB (ratio 0.60, theory 1.67×); three steps 156/108/60 MiB
    """
    recomputed = recompute()
    r = {key: rec.value for key, rec in recomputed.items()}
    s = config.scenarios()
    att, sm = s["attention"], s["online_softmax"]
    g, b, p = (labels.text(f"strategy.{st.name}", lang) for st in article_bucketing().strategies)
    cross = {key: rec.as_article for key, rec in recomputed.items() if key.startswith("cross")}
    return [
        labels.text(
            "calc.fusion",
            lang,
            sep=r["fusion.separate_mib"],
            fused=r["fusion.fused_mib"],
            ratio=r["fusion.ratio"],
            speedup=r["fusion.model_speedup"],
            s3=r["boundary.separate_mib"],
            s2=r["boundary.two_fused_mib"],
            s1=r["boundary.all_fused_mib"],
        ),
        labels.text(
            "calc.peak",
            lang,
            sep=r["boundary.peak_separate_mib"],
            fused=r["boundary.peak_fused_mib"],
            traffic=r["boundary.traffic_saved_mib"],
            peak=r["boundary.peak_saved_mib"],
        ),
        labels.text(
            "calc.attention",
            lang,
            L=att["seq_len"],
            d=att["head_dim"],
            dtype=att["dtype"].upper(),
            io=r["attention.qkvo_mib"],
            s=r["attention.s_mib"],
            gib=r["attention.intermediate_gib"],
        ),
        labels.text(
            "calc.softmax",
            lang,
            scores=",".join(str(Ln(w)) for w in sm["score_exps"]).replace("ln(2)", "ln2"),
            values=",".join(str(v) for v in sm["values"]),
            r=float(r["softmax.r"]),
            l=float(r["softmax.l"]),
            u=float(r["softmax.u"]),
            result=float(r["softmax.result"]),
            exact=r["softmax.result"],
        ),
        labels.text(
            "calc.crossover",
            lang,
            g=g,
            b=b,
            p=p,
            gb=cross["crossover.generic_bucketed"],
            bp=cross["crossover.bucketed_specialised"],
            gp=cross["crossover.generic_specialised"],
        ),
    ]


def _cmd_calc(args: argparse.Namespace) -> Any:
    lines = calc_lines()
    return {"lines": lines}, "\n".join(lines)


def _cmd_fusion(args: argparse.Namespace) -> Any:
    graph = activation_chain(args.rows, args.cols, args.dtype, args.quant_dtype)
    ranked = rank_plans(graph)
    rows: list[tuple[object, ...]] = [("plan", "kernels", "traffic MiB", "peak MiB")]
    rows += [
        (
            r.label,
            r.accounting.kernel_count,
            f"{mib(r.accounting.traffic):g}",
            f"{mib(r.accounting.peak_live_bytes):g}",
        )
        for r in ranked
    ]
    detail = [("kernel", "reads", "writes", "read MiB", "written MiB")]
    for r in (ranked[-1], ranked[0]):
        detail += [
            (
                k.name,
                ",".join(k.reads),
                ",".join(k.writes),
                f"{mib(k.bytes_read):g}",
                f"{mib(k.bytes_written):g}",
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
    return data, text_table(rows) + "\n\n" + text_table(detail)


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
    text = text_table(
        [
            ("quantity", "MiB"),
            ("Q / K / V / O (each)", f"{mib(a.qkvo_bytes):g}"),
            ("S / P (each)", f"{mib(a.score_bytes):g}"),
            ("standard: Q,K,V read + O write", f"{mib(a.io_traffic):g}"),
            ("standard: S, P written and read", f"{mib(a.intermediate_traffic):g}"),
            (f"flash ({f.query_tiles} query tiles of {args.block_q}): total", f"{mib(f.total):g}"),
            ("flash: K and V reads", f"{mib(f.kv_bytes):g}"),
        ]
    )
    return data, text


def _cmd_softmax(args: argparse.Namespace) -> Any:
    # Finite inputs can still overflow float64 in the weighted sum (values near 1.8e308);
    # say so instead of printing inf or a numpy warning.
    try:
        with np.errstate(over="raise", invalid="raise"):
            steps = trace(_floats(args.scores), _floats(args.values), args.block)
    except FloatingPointError:
        steps = []
    result = float(steps[-1].state.result) if steps else math.inf
    if not math.isfinite(result):
        raise ValueError(
            f"the weighted sum of --values {args.values!r} overflows float64 "
            f"(largest {sys.float_info.max:.3g}): expected smaller values"
        )
    rows: list[tuple[object, ...]] = [("block", "scores", "m", "l", "u", "r")]
    rows += [
        (
            s.index,
            ",".join(f"{x:g}" for x in s.scores),
            f"{s.state.m:.6g}",
            f"{s.state.l:.6g}",
            f"{float(s.state.u):.6g}",
            f"{float(s.r):.6g}",
        )
        for s in steps
    ]
    data = {"steps": [asdict(s) for s in steps], "result": result}
    return data, text_table(rows) + f"\nresult u/l = {result:.6g}"


def _cmd_launches(args: argparse.Namespace) -> Any:
    counts = launch_counts(args.runs, args.kernels_per_run, args.fused_kernels_per_run)
    rows: list[tuple[object, ...]] = [("config", "host submissions", "kernels")]
    rows += [(c.name, c.host_submissions, c.kernels) for c in counts]
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
    keys = ("strategy", "rows", "padding", "executed", "useful", "rate", "time", "prep")
    rows: list[tuple[object, ...]] = [tuple(labels.text(f"buckets.col.{k}") for k in keys)]
    rows += [
        (
            labels.text(f"strategy.{c.strategy.name}"),
            c.executed_rows,
            f"{c.padding_fraction:+.1%}",
            f"{c.executed_utilisation(peak):.1%}",
            f"{c.useful_mfu(peak):.1%}",
            f"{c.rate_tflops:g}",
            f"{c.time_ms:.2f}",
            f"{c.strategy.prep_ms:g}",
        )
        for c in costs
    ]
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
    return data, text_table(rows) + "\n\n" + assumed


def _cmd_crossover(args: argparse.Namespace) -> Any:
    if args.strategy:
        lines = [parse_strategy(s) for s in args.strategy]
    else:
        lines = cost_lines(article_bucketing().costs("article"), digits=1)
    # the tables the live calculator shows, as text
    text = "\n\n".join(text_table([t.header, *t.rows]) for t in crossing_tables(lines))
    return {"crossings": pairwise(lines), "regimes": regimes(lines)}, text


def _cmd_audit(args: argparse.Namespace) -> Any:
    rows = audit()
    table = [("section", "claim", "stated", "recomputed", "verdict")]
    table += [
        (
            r.section,
            r.id,
            f"{r.stated} {r.unit}".strip(),
            f"{r.recomputed_text} {r.recomputed_unit}".strip(),
            r.verdict,
        )
        for r in rows
    ]
    notes = [f"{r.id}: {r.note}" for r in rows if r.note]
    return rows, text_table(table) + "\n\nnotes:\n" + "\n".join(notes)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with the article's case as every default."""
    s = config.scenarios()
    chain, att, sm = s["ffn_chain"], s["attention"], s["online_softmax"]
    gr, bk = s["graph_replay"], s["bucketing"]
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
    p.add_argument("--rows", type=int, default=chain["rows"])
    p.add_argument("--cols", type=int, default=chain["cols"])
    p.add_argument("--dtype", choices=dtypes, default=chain["dtype"])
    p.add_argument(
        "--quant-dtype",
        choices=("int8", "fp8"),
        default=None,
        help="add the 1-byte quantisation step",
    )
    p = command("attention", _cmd_attention, "standard vs FlashAttention sizes and traffic")
    p.add_argument("--seq-len", type=int, default=att["seq_len"])
    p.add_argument("--head-dim", type=int, default=att["head_dim"])
    p.add_argument("--dtype", choices=dtypes, default=att["dtype"])
    p.add_argument("--score-dtype", choices=dtypes, default=att["score_dtype"])
    p.add_argument("--block-q", type=int, default=att["block_q"])
    p.add_argument("--block-k", type=int, default=att["block_k"])
    p.add_argument("--causal", action="store_true")
    p = command("softmax", _cmd_softmax, "online softmax traced block by block")
    p.add_argument("--scores", default=",".join(str(math.log(w)) for w in sm["score_exps"]))
    p.add_argument("--values", default=",".join(str(v) for v in sm["values"]))
    p.add_argument("--block", type=int, default=sm["block"])
    p = command("launches", _cmd_launches, "host submissions vs kernels executed")
    p.add_argument("--runs", type=int, default=gr["runs"])
    p.add_argument("--kernels-per-run", type=int, default=gr["kernels_per_run"])
    p.add_argument("--fused-kernels-per-run", type=int, default=gr["fused_kernels_per_run"])
    p = command("buckets", _cmd_buckets, "rows, padding and time of each shape strategy")
    p.add_argument(
        "--rows", default=",".join(f"{r}x{n}" if n > 1 else str(r) for r, n in bk["calls"])
    )
    p.add_argument("--buckets", default=",".join(str(b) for b in bk["buckets"]))
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
