"""Online softmax: the three numbers (m, l, u) that let attention forget its L x L matrix.

For scores s_i and values v_i, softmax-weighted averaging needs sum_i e^{s_i} v_i / sum_i e^{s_i}.
Processing the scores block by block, it suffices to keep

* m: the largest score seen so far,
* l: sum of e^{s_i - m} over the scores seen,
* u: sum of e^{s_i - m} v_i over the same scores.

When a new block raises the maximum from m_old to m_new, the old l and u are multiplied by
r = e^{m_old - m_new} and the block's own terms are added. Two states merge the same way, so
any blocking gives the same u / l as one pass over the whole row: in exact arithmetic the
same number, in floating point the same up to rounding. Because every exponent is <= 0, no
term can overflow, whatever the size of the scores.

Exact arithmetic: pass scores as :class:`Ln` (the logarithm of a positive rational) and
values as ``fractions.Fraction``; then e^{a - b} = a.w / b.w is rational and every state is
exact, as in the article's example 5-6.

Values are numbers or, for a row of V, sequences of numbers. The module is pure Python (no
numpy), so the same code runs in the reader's browser for the live calculator.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from infrabook.checks import check_positive_int


@dataclass(frozen=True, order=True)
class Ln:
    """The natural logarithm of a positive rational ``w``: an exact score.

    >>> Ln(2) > Ln(1), float(Ln(1))
    (True, 0.0)
    """

    w: Fraction

    def __post_init__(self) -> None:
        w = Fraction(self.w)
        if w <= 0:
            raise ValueError(f"Ln needs a positive rational, got {self.w!r}")
        object.__setattr__(self, "w", w)

    def __float__(self) -> float:
        return math.log(self.w)

    def __str__(self) -> str:
        return "0" if self.w == 1 else f"ln({self.w})"


@dataclass(frozen=True)
class State:
    """Running max ``m``, exponential sum ``l`` and weighted value sum ``u``."""

    m: Any
    l: Any  # noqa: E741 - the article's name for it
    u: Any

    @property
    def result(self) -> Any:
        """The softmax-weighted average u / l."""
        if isinstance(self.u, tuple):
            return tuple(x / self.l for x in self.u)
        return self.u / self.l


@dataclass(frozen=True)
class Step:
    """One block of the trace: its scores, the rescale factor r and the state after it."""

    index: int
    scores: tuple[Any, ...]
    r: Any
    state: State


def _exact(scores: Sequence[Any]) -> bool:
    kinds = {isinstance(s, Ln) for s in scores}
    if len(kinds) > 1:
        raise ValueError("scores must be all Ln (exact) or all real numbers, not a mix")
    return kinds == {True}


def _exp_diff(a: Any, b: Any) -> Any:
    """e^(a - b), exact for Ln scores."""
    if isinstance(a, Ln):
        return a.w / b.w
    return math.exp(a - b)


def _vector(value: Any) -> Any:
    """A value as a float, or as a tuple of floats when it is a row (any sequence)."""
    if isinstance(value, Fraction):
        return value
    try:
        return tuple(float(x) for x in value)
    except TypeError:
        return float(value)


def _scaled(value: Any, weight: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(x * weight for x in value)
    return value * weight


def _added(a: Any, b: Any) -> Any:
    if isinstance(a, tuple):
        return tuple(x + y for x, y in zip(a, b, strict=True))
    return a + b


def _weighted_sum(weights: Sequence[Any], values: Sequence[Any]) -> Any:
    total = _scaled(values[0], weights[0])
    for w, v in zip(weights[1:], values[1:], strict=True):
        total = _added(total, _scaled(v, w))
    return total


def _finite(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(math.isfinite(x) for x in value)
    return math.isfinite(value)


def _check(scores: Sequence[Any], values: Sequence[Any]) -> None:
    if len(scores) == 0:
        raise ValueError("scores must not be empty")
    if len(scores) != len(values):
        raise ValueError(
            f"scores and values must have the same length, got {len(scores)} and {len(values)}"
        )
    if not _exact(scores) and not all(math.isfinite(float(s)) for s in scores):
        raise ValueError(f"scores must be finite, got {list(scores)!r}")
    vectors = [_vector(v) for v in values]
    if not all(isinstance(v, Fraction) or _finite(v) for v in vectors):
        raise ValueError("values must be finite")
    widths = {len(v) if isinstance(v, tuple) else None for v in vectors}
    if len(widths) > 1:
        raise ValueError(f"values must all be numbers or all rows of one width, got {widths!r}")


def block_state(scores: Sequence[Any], values: Sequence[Any]) -> State:
    """The state of one block on its own.

    >>> block_state([Ln(1)], [Fraction(1)])
    State(m=Ln(w=Fraction(1, 1)), l=Fraction(1, 1), u=Fraction(1, 1))
    """
    _check(scores, values)
    if _exact(scores):
        m = max(scores)
        weights = [_exp_diff(s, m) for s in scores]
        return State(
            m, sum(weights), sum(w * Fraction(v) for w, v in zip(weights, values, strict=True))
        )
    s = [float(x) for x in scores]
    m = max(s)
    weights = [math.exp(x - m) for x in s]
    return State(m, math.fsum(weights), _weighted_sum(weights, [_vector(v) for v in values]))


def merge(a: State, b: State) -> tuple[State, Any, Any]:
    """Combine two states; returns the merged state and the factors applied to a and b.

    >>> s, ra, rb = merge(block_state([Ln(1)], [1]), block_state([Ln(2)], [3]))
    >>> ra, s.l, s.u, s.result
    (Fraction(1, 2), Fraction(3, 2), Fraction(7, 2), Fraction(7, 3))
    """
    m = max(a.m, b.m)
    ra = _exp_diff(a.m, m)
    rb = _exp_diff(b.m, m)
    u = _added(_scaled(a.u, ra), _scaled(b.u, rb))
    return State(m, a.l * ra + b.l * rb, u), ra, rb


def trace(scores: Sequence[Any], values: Sequence[Any], block: int = 1) -> list[Step]:
    """Run online softmax over blocks of ``block`` scores; one :class:`Step` per block.

    The first block's r is 1 (nothing to rescale). The article's example 5-6:

    >>> steps = trace([Ln(1), Ln(2)], [Fraction(1), Fraction(3)], block=1)
    >>> [(str(s.state.m), s.r, s.state.l, s.state.u) for s in steps]
    [('0', 1, Fraction(1, 1), Fraction(1, 1)),
     ('ln(2)', Fraction(1, 2), Fraction(3, 2), Fraction(7, 2))]
    >>> steps[-1].state.result
    Fraction(7, 3)
    """
    _check(scores, values)
    check_positive_int("block", block)
    steps: list[Step] = []
    state: State | None = None
    for i, start in enumerate(range(0, len(scores), block)):
        chunk = tuple(scores[start : start + block])
        new = block_state(chunk, values[start : start + block])
        if state is None:
            state, r = new, 1
        else:
            state, r, _ = merge(state, new)
        steps.append(Step(i, chunk, r, state))
    return steps


def online_softmax(scores: Sequence[Any], values: Sequence[Any], block: int = 1) -> Any:
    """The softmax-weighted average of ``values``, computed block by block.

    >>> round(float(online_softmax([0.0, math.log(2)], [1.0, 3.0])), 4)
    2.3333
    >>> float(online_softmax([1e4, -1e4, 1e4], [1.0, 5.0, 3.0], block=2))
    2.0
    """
    return trace(scores, values, block)[-1].state.result


def one_pass(scores: Sequence[Any], values: Sequence[Any]) -> Any:
    """The same average computed over the whole row at once (the reference).

    >>> one_pass([Ln(1), Ln(2)], [Fraction(1), Fraction(3)])
    Fraction(7, 3)
    """
    return block_state(scores, values).result


def without_running_max(scores: Sequence[float], values: Sequence[float]) -> float:
    """The naive form sum e^{s_i} v_i / sum e^{s_i}, with no maximum subtracted.

    Section 7's boundary: it overflows to inf / inf = nan where the rescaled form does not.

    >>> without_running_max([1e4, 1e4], [1.0, 3.0])
    nan
    >>> without_running_max([0.0, math.log(2)], [1.0, 3.0])  # fine for small scores
    2.333...
    """
    _check(scores, values)
    e = [_exp_or_inf(float(x)) for x in scores]
    total = sum(e)
    num = sum(w * float(v) for w, v in zip(e, values, strict=True))
    return num / total if math.isfinite(total) else math.nan


def _exp_or_inf(x: float) -> float:
    """e^x as IEEE arithmetic gives it: inf past the largest double, where math.exp raises."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf
