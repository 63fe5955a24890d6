"""When does preparation pay? T_total = P + n * T_run for n runs (section 5.3).

A strategy with preparation time P and time per run T_run costs P + n*T_run over n runs (the
article writes T = P + rT; the book keeps r for the softmax rescale factor). Two strategies
cost the same at n* = (P_b - P_a) / (T_run,a - T_run,b); the cheapest strategy for each n is
the lower envelope of the lines, and its breaks are the regime boundaries.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from infrabook.checks import check_finite
from infrabook.labels import text
from infrabook.quoting import quoted
from infrabook.tables import number_text


@dataclass(frozen=True)
class Line:
    """A strategy's cost line: ``prep_ms + n * run_ms`` over n runs."""

    name: str
    prep_ms: float
    run_ms: float

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError(text("error.strategy.name"))
        if not (math.isfinite(self.prep_ms) and self.prep_ms >= 0):
            raise ValueError(
                text("error.strategy.prep", name=repr(self.name), value=f"{self.prep_ms:g}")
            )
        if not (math.isfinite(self.run_ms) and self.run_ms > 0):
            raise ValueError(
                text("error.strategy.run", name=repr(self.name), value=f"{self.run_ms:g}")
            )

    def total_ms(self, runs: float) -> float:
        """Total milliseconds over ``runs`` runs.

        >>> Line("generic", 100, 17.0).total_ms(10)
        270.0
        """
        return self.prep_ms + runs * self.run_ms


def crossover(a: Line, b: Line) -> float:
    """The number of runs at which ``a`` and ``b`` cost the same.

    The article's generic against bucketed (100 + 17.0 n = 400 + 12.4 n):

    >>> round(crossover(Line("generic", 100, 17.0), Line("bucketed", 400, 12.4)), 1)
    65.2

    A negative value means the lines cross before the first run: one strategy is cheaper
    for every n >= 0.
    """
    if a.run_ms == b.run_ms:
        raise ValueError(
            text("error.strategy.parallel", a=repr(a.name), b=repr(b.name), run=a.run_ms)
        )
    return (b.prep_ms - a.prep_ms) / (a.run_ms - b.run_ms) + 0.0  # + 0.0: no -0 when P_a = P_b


def check_lines(lines: Sequence[Line]) -> tuple[Line, ...]:
    """At least two lines with distinct names.

    >>> len(check_lines([Line("generic", 100, 17.0), Line("bucketed", 400, 12.4)]))
    2
    """
    if len(lines) < 2:
        raise ValueError(text("error.strategy.too_few", count=len(lines)))
    names = [line.name for line in lines]
    twice = next((name for i, name in enumerate(names) if name in names[:i]), None)
    if twice is not None:
        raise ValueError(text("error.strategy.duplicate", name=repr(twice)))
    return tuple(lines)


@dataclass(frozen=True)
class Crossing:
    """Where two strategies cost the same; ``runs`` is None for parallel lines (the same
    run time), which never cross."""

    a: str
    b: str
    runs: float | None

    @property
    def runs_text(self) -> str:
        """The crossing as a table cell shows it: runs to one decimal, or "never" in the
        build's language for parallel lines and for lines that cross before the first run
        (a negative crossover is no number of runs: one strategy is cheaper throughout).

        >>> Crossing("a", "b", 65.217).runs_text, Crossing("a", "b", None).runs_text
        ('65.2', '不相交（平行）')
        >>> Crossing("a", "b", -449.5).runs_text
        '不相交（n ≥ 0 时一方始终更省）'
        """
        if self.runs is None:
            return text("live.cell.never")
        if self.runs < 0:
            return text("live.cell.never_ahead")
        return number_text(self.runs, ".1f")


def pairwise(lines: Sequence[Line]) -> tuple[Crossing, ...]:
    """Every pair's crossover, in the order the lines are given.

    >>> ls = [Line("generic", 100, 17.0), Line("bucketed", 400, 12.4),
    ...       Line("specialised", 900, 6.8)]
    >>> [(c.a, c.b, round(c.runs)) for c in pairwise(ls)]
    [('generic', 'bucketed', 65), ('generic', 'specialised', 78), ('bucketed', 'specialised', 89)]
    >>> pairwise([Line("a", 100, 17.0), Line("b", 400, 17.0)])[0].runs is None
    True
    """
    checked = check_lines(lines)
    return tuple(
        Crossing(a.name, b.name, None if a.run_ms == b.run_ms else crossover(a, b))
        for i, a in enumerate(checked)
        for b in checked[i + 1 :]
    )


def best_at(lines: Sequence[Line], runs: float) -> Line:
    """The cheapest strategy over ``runs`` runs (the first listed wins a tie).

    >>> ls = [Line("generic", 100, 17.0), Line("bucketed", 400, 12.4)]
    >>> best_at(ls, 10).name, best_at(ls, 100).name
    ('generic', 'bucketed')
    """
    check_finite("runs", runs)
    return min(check_lines(lines), key=lambda line: line.total_ms(runs))


@dataclass(frozen=True)
class Regime:
    """A range of run counts [start, end) over which one strategy is cheapest."""

    start: float
    end: float
    best: str


def regimes(lines: Sequence[Line]) -> tuple[Regime, ...]:
    """The lower envelope of the lines for n >= 0, as consecutive regimes.

    >>> ls = [Line("generic", 100, 17.0), Line("bucketed", 400, 12.4),
    ...       Line("specialised", 900, 6.8)]
    >>> [(round(g.start, 1), round(g.end, 1), g.best) for g in regimes(ls)]
    [(0.0, 65.2, 'generic'), (65.2, 89.3, 'bucketed'), (89.3, inf, 'specialised')]

    Two strategies with the same run time never cross; the cheaper one to prepare wins:

    >>> [g.best for g in regimes([Line("a", 1, 5.0), Line("b", 2, 5.0), Line("c", 0, 9.0)])]
    ['c', 'a']
    """
    checked = check_lines(lines)
    # Parallel lines never cross (the one with less preparation is always cheaper), so
    # only the other pairs can put a break in the envelope.
    points = sorted(
        {0.0}
        | {
            crossover(a, b)
            for i, a in enumerate(checked)
            for b in checked[i + 1 :]
            if a.run_ms != b.run_ms and crossover(a, b) > 0
        }
    )
    samples = [(lo + hi) / 2 for lo, hi in itertools.pairwise(points)]
    samples.append(points[-1] + 1.0)
    out: list[Regime] = []
    for lo, probe in zip(points, samples, strict=True):
        best = best_at(checked, probe).name
        if out and out[-1].best == best:
            continue
        if out:
            out[-1] = Regime(out[-1].start, lo, out[-1].best)
        out.append(Regime(lo, math.inf, best))
    return tuple(out)


def parse_strategy(raw: str) -> Line:
    """Parse ``NAME:PREP_MS:RUN_MS``.

    >>> parse_strategy("bucketed:400:12.4")
    Line(name='bucketed', prep_ms=400.0, run_ms=12.4)
    >>> parse_strategy("bucketed:400")
    Traceback (most recent call last):
    ...
    ValueError: 无法读取策略 'bucketed:400'：应为 NAME:PREP_MS:RUN_MS 的形式
    """
    parts = raw.split(":")
    if len(parts) != 3:
        raise ValueError(text("error.strategy.format", raw=quoted(repr(raw))))
    name, prep, run = parts
    try:
        prep_ms, run_ms = float(prep), float(run)
    except ValueError:
        raise ValueError(text("error.strategy.numbers", raw=quoted(repr(raw)))) from None
    return Line(name.strip(), prep_ms, run_ms)
