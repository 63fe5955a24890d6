"""The ``infrabook`` command: the article's recomputation, and the calculators on your numbers.

Every subcommand's defaults come from ``conf/scenarios.toml``, so a bare subcommand shows the
article's case. Bad input prints one line on stderr and exits with status 2. Its help,
tables and printed lines, argparse's own words and the errors of the fields it reads are in
the build's language (``INFRABOOK_LANG``, Chinese by default), and so are the errors a
calculator raises on values each option accepts alone (two strategies of one name, more
fused kernels than kernels). Only an ``INFRABOOK_LANG`` that names no language is refused in
English: there is then no language to speak.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from infrabook import config, i18n, labels
from infrabook.argparse_lang import Parser, argparse_words, wrap
from infrabook.audit import audit, section6_lines
from infrabook.bucketing import (
    BucketingScenario,
    article_bucketing,
    check_buckets,
    cost_lines,
    parse_mfus,
)
from infrabook.calc_fields import Field
from infrabook.calc_tables import audit_table
from infrabook.calculators import Result, calculators, crossing_result
from infrabook.crossover import parse_strategy
from infrabook.quoting import line
from infrabook.serialise import jsonable

# Notes under the tables are wrapped at this many columns: a table may be wider than a
# terminal or the book's column, and scrolls; its notes are prose and must not.
NOTE_COLUMNS = 80


def _paragraph(note: str) -> str:
    return "\n".join(wrap(note, NOTE_COLUMNS))


def _shown(result: Result, *after: str) -> tuple[Any, str]:
    """The data for ``--json`` and the text to print: the tables (their notes wrapped at
    :data:`NOTE_COLUMNS`), then ``after``, wrapped too."""
    tables = [
        "\n".join(filter(None, (replace(t, note="").text(), t.note and _paragraph(t.note))))
        for t in result.tables
    ]
    return result.data, "\n\n".join([*tables, *(_paragraph(a) for a in after)])


def _cmd_calc(args: argparse.Namespace) -> tuple[Any, str]:
    lines = section6_lines()
    return {"lines": lines}, "\n".join(lines)


def _reader(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """An option's reader: ``parse``, its ``ValueError`` argparse's error for the option."""

    def read(raw: str) -> Any:
        try:
            return parse(raw)
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
        largest = f"{sys.float_info.max:.3g}"
        raise ValueError(labels.text("cli.error.overflow", values=args.values, largest=largest))
    return _shown(result)


def _read_mfus(raw: str) -> dict[str, float]:
    """``--mfu``: each fraction checked, and each name one of the article's strategies."""
    mfus = parse_mfus(raw)
    article_bucketing().with_mfus(mfus)
    return mfus


def _scenario_for(args: argparse.Namespace) -> BucketingScenario:
    base = article_bucketing()
    sc = replace(base, calls=args.calls, buckets=check_buckets(args.buckets))
    return sc.with_mfus(args.mfu) if args.mfu else sc


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
    stated = article_bucketing().implied_peak_tflops("article")
    # the reader did not ask for another peak: say where this one comes from
    source = (
        [labels.text("buckets.peak_source", peak=f"{peak:g}", stated=f"{stated:g}")]
        if peak != stated
        else []
    )
    return _shown(calculators()["buckets"].compute(values), assumed, *source)


def _cmd_crossover(args: argparse.Namespace) -> tuple[Any, str]:
    lines = args.strategy or cost_lines(article_bucketing().costs("article"), label=True)
    return _shown(crossing_result(lines))


def _cmd_audit(args: argparse.Namespace) -> tuple[Any, str]:
    rows = audit()
    notes = [labels.text("word.named", name=r.id, value=r.note) for r in rows if r.note]
    return rows, "\n\n".join((audit_table(rows).text(), labels.text("cli.notes"), "\n".join(notes)))


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with the article's case as every default; its help in the
    build's language, argparse's own words too when it parses inside :func:`main`."""
    parser = Parser(prog="infrabook", description=labels.text("cli.description"))
    sub = parser.add_subparsers(
        dest="command", metavar=labels.text("cli.subcommand"), required=True, parser_class=Parser
    )

    def command(name: str, func: Callable[[argparse.Namespace], Any]) -> Any:
        help_ = labels.text(f"cli.help.{name}")
        p = sub.add_parser(name, help=help_, description=help_)
        p.add_argument("--json", action="store_true", help=labels.text("cli.help.json"))
        p.set_defaults(func=func)
        return p

    def option(
        p: argparse.ArgumentParser, f: Field, flag: str | None = None, help_: str | None = None
    ) -> None:
        """An option declared by the field: its name, kind, default and label (or ``help_``)."""
        if f.kind == "bool":
            p.add_argument(flag or f.option, dest=f.name, action="store_true", help=f.label)
            return
        flag = flag or f.option
        p.add_argument(
            flag,
            dest=f.name,
            metavar="{" + ",".join(f.choices) + "}"
            if f.choices
            else flag.removeprefix("--").replace("-", "_").upper(),
            type=_reader(f.unbounded.parse),
            default=f.default,
            help=help_ or f.label,
        )

    def calculator(name: str, func: Callable[[argparse.Namespace], Any]) -> None:
        p = command(name, func)
        for f in calculators()[name].fields:
            option(p, f)

    command("calc", _cmd_calc)
    calculator("fusion", _cmd("fusion"))
    calculator("attention", _cmd("attention"))
    calculator("softmax", _cmd_softmax)
    calculator("launches", _cmd("launches"))
    # The buckets command keeps its own way to vary the strategies (--rates, --mfu), the
    # book's pages show it; its calls (as --rows) and buckets are the calculator's fields.
    p = command("buckets", _cmd_buckets)
    buckets = calculators()["buckets"]
    option(p, buckets.field("calls"), "--rows")
    option(p, buckets.field("buckets"))
    rates = Field("rates", "choice", "article", choices=("article", "peak"))
    option(p, rates, help_=labels.text("cli.help.rates"))
    mfus = ",".join(f"{s.name}={s.mfu:g}" for s in article_bucketing().strategies)
    p.add_argument(
        "--mfu",
        metavar="NAME=FRACTION,...",
        type=_reader(_read_mfus),
        default=None,
        help=labels.text("cli.help.mfu", mfus=mfus),
    )
    p = command("crossover", _cmd_crossover)
    p.add_argument(
        "--strategy",
        action="append",
        metavar="NAME:PREP_MS:RUN_MS",
        type=_reader(parse_strategy),
        help=labels.text("cli.help.strategy"),
    )
    command("audit", _cmd_audit)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status: 0, or 2 with one line on stderr for bad input
    or a bad ``conf/`` file."""
    try:
        i18n.language()
    except ValueError as err:
        print(f"infrabook: error: {err}", file=sys.stderr)
        return 2
    try:
        config.check_all()
    except config.ConfError as err:
        print(labels.text("cli.error", prog="infrabook", message=line(err)), file=sys.stderr)
        return 2
    with argparse_words():
        args = build_parser().parse_args(argv)
    try:
        data, text = args.func(args)
    except ValueError as err:
        prog = f"infrabook {args.command}"
        print(labels.text("cli.error", prog=prog, message=line(err)), file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(jsonable(data), ensure_ascii=False, indent=2))
    else:
        print(text)
    return 0
