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
from dataclasses import replace
from typing import Any, NoReturn

import numpy as np

from infrabook import config, labels
from infrabook.audit import audit, section6_lines
from infrabook.bucketing import (
    BucketingScenario,
    article_bucketing,
    check_buckets,
    cost_lines,
    parse_mfus,
)
from infrabook.calculators import Field, Result, audit_table, calculators, crossing_result
from infrabook.crossover import parse_strategy
from infrabook.serialise import jsonable


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _shown(result: Result, *after: str) -> tuple[Any, str]:
    """The data for ``--json`` and the text to print: the tables, then ``after``."""
    return result.data, "\n\n".join([*(t.text() for t in result.tables), *after])


def _cmd_calc(args: argparse.Namespace) -> tuple[Any, str]:
    lines = section6_lines()
    return {"lines": lines}, "\n".join(lines)


def _reader(f: Field) -> Callable[[str], Any]:
    """The field's option value read as :meth:`Field.convert` reads it (its message kept)."""

    def read(raw: str) -> Any:
        try:
            return f.convert(raw)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    return read


def _computed(name: str, args: argparse.Namespace) -> Result:
    """Calculator ``name`` on the options :func:`build_parser` made from its fields."""
    calc = calculators()[name]
    return calc.compute({f.name: getattr(args, f.name) for f in calc.fields})


def _cmd(name: str) -> Callable[[argparse.Namespace], tuple[Any, str]]:
    return lambda args: _shown(_computed(name, args))


def _cmd_softmax(args: argparse.Namespace) -> tuple[Any, str]:
    # Finite inputs can still overflow float64 in the weighted sum (values near 1.8e308);
    # say so instead of printing inf or a numpy warning.
    try:
        with np.errstate(over="raise", invalid="raise"):
            result: Result | None = _computed("softmax", args)
    except FloatingPointError:
        result = None
    if result is None or not math.isfinite(result.data["result"]):
        raise ValueError(
            f"the weighted sum of --values {args.values!r} overflows float64 "
            f"(largest {sys.float_info.max:.3g}): expected smaller values"
        )
    return _shown(result)


def _scenario_for(args: argparse.Namespace) -> BucketingScenario:
    base = article_bucketing()
    sc = replace(base, calls=args.calls, buckets=check_buckets(args.buckets))
    return sc.with_mfus(parse_mfus(args.mfu)) if args.mfu else sc


def _cmd_buckets(args: argparse.Namespace) -> tuple[Any, str]:
    sc = _scenario_for(args)
    peak = sc.implied_peak_tflops(args.rates)
    values: dict[str, Any] = {"calls": sc.calls, "buckets": sc.buckets, "peak_tflops": peak}
    for s in sc.strategies:
        values |= {f"util_{s.name}": s.mfu, f"prep_{s.name}": s.prep_ms}
    assumed = labels.text(
        "buckets.assumed",
        peak=f"{peak:g}",
        mfus=",".join(f"{s.name}={s.mfu:g}" for s in sc.strategies),
    )
    return _shown(calculators()["buckets"].compute(values), assumed)


def _cmd_crossover(args: argparse.Namespace) -> tuple[Any, str]:
    if args.strategy:
        lines = [parse_strategy(s) for s in args.strategy]
    else:
        lines = cost_lines(article_bucketing().costs("article"), label=True)
    return _shown(crossing_result(lines))


def _cmd_audit(args: argparse.Namespace) -> tuple[Any, str]:
    rows = audit()
    notes = [labels.text("word.named", name=r.id, value=r.note) for r in rows if r.note]
    return rows, "\n\n".join((audit_table(rows).text(), labels.text("cli.notes"), "\n".join(notes)))


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with the article's case as every default."""
    parser = _Parser(prog="infrabook", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(name: str, func: Callable[[argparse.Namespace], Any], help_: str) -> Any:
        p = sub.add_parser(name, help=help_, description=help_)
        p.add_argument("--json", action="store_true", help="print JSON instead of a table")
        p.set_defaults(func=func)
        return p

    def option(p: argparse.ArgumentParser, f: Field, flag: str | None = None) -> None:
        """An option declared by the field: its name, kind, default and label."""
        if f.kind == "bool":
            p.add_argument(flag or f.option, dest=f.name, action="store_true", help=f.label)
            return
        flag = flag or f.option
        choices = [f.convert(c) for c in f.choices] or None
        p.add_argument(
            flag,
            dest=f.name,
            metavar=None if choices else flag.removeprefix("--").replace("-", "_").upper(),
            type=_reader(f),
            default=f.default,
            choices=choices,
            help=f.label,
        )

    def calculator(name: str, func: Callable[[argparse.Namespace], Any], help_: str) -> None:
        p = command(name, func, help_)
        for f in calculators()[name].fields:
            option(p, f)

    command("calc", _cmd_calc, "the article's section 6 recomputation")
    calculator("fusion", _cmd("fusion"), "traffic and peak of every fusion plan of the chain")
    calculator("attention", _cmd("attention"), "standard vs FlashAttention sizes and traffic")
    calculator("softmax", _cmd_softmax, "online softmax traced block by block")
    calculator("launches", _cmd("launches"), "host submissions vs kernels executed")
    # The buckets command keeps its own way to vary the strategies (--rates, --mfu), the
    # book's pages show it; its calls (as --rows) and buckets are the calculator's fields.
    p = command("buckets", _cmd_buckets, "rows, padding and time of each shape strategy")
    buckets = calculators()["buckets"]
    option(p, buckets.field("calls"), "--rows")
    option(p, buckets.field("buckets"))
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
