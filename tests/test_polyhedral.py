"""isl's answers for the SwiGLU chain, checked by running the loop code it generates.

The generated C is translated line by line into Python and executed on small R x C; the
trace of statement calls is the reference: every instance exactly once, and a schedule is
legal exactly when each S[i, j] runs before the M[i, j] that reads its T[i, j].
"""

from __future__ import annotations

import re
import textwrap

import pytest

from infrabook import polyhedral

_FOR = re.compile(r"for \(int (c\d+) = (.+); \1 < (.+); \1 \+= 1\)( \{)?$")
_CALL = re.compile(r"([SM])\((.*)\);$")


def run_code(code: str, rows: int, cols: int) -> list[tuple[str, int, int]]:
    """Execute isl's C output (for loops with unit steps, statement calls) in Python."""
    lines = []
    for raw in code.splitlines():
        body = raw.strip()
        if body in ("{", "}"):
            continue
        indent = " " * (len(raw) - len(raw.lstrip()))
        if m := _FOR.match(body):
            var, lo, hi, _ = m.groups()
            lines.append(f"{indent}for {var} in range({lo}, {hi}):")
        elif m := _CALL.match(body):
            lines.append(f"{indent}trace.append(({m.group(1)!r}, {m.group(2)}))")
        else:
            raise AssertionError(f"unexpected line in isl's code: {raw!r}")
    trace: list[tuple[str, int, int]] = []
    exec(textwrap.dedent("\n".join(lines)), {"R": rows, "C": cols, "trace": trace})
    return trace


def follows_dependences(trace: list[tuple[str, int, int]]) -> bool:
    when = {call: k for k, call in enumerate(trace)}
    return all(when[("S", i, j)] < when[("M", i, j)] for _, i, j in trace)


@pytest.mark.parametrize("rows, cols", [(1, 1), (2, 3), (4, 2)])
def test_generated_code_runs_each_instance_once_and_legality_matches_the_trace(rows, cols):
    everything = sorted((s, i, j) for s in "SM" for i in range(rows) for j in range(cols))
    for scheduled in [*polyhedral.article_schedules(), polyhedral.computed()]:
        trace = run_code(scheduled.code, rows, cols)
        assert sorted(trace) == everything, scheduled.name
        assert scheduled.legal == follows_dependences(trace), scheduled.name


def test_fused_code_interleaves_and_unfused_runs_all_s_first():
    named = {s.name: s for s in polyhedral.article_schedules()}
    unfused = run_code(named["unfused"].code, 2, 2)
    fused = run_code(named["fused"].code, 2, 2)
    assert [s for s, _, _ in unfused] == ["S"] * 4 + ["M"] * 4
    assert [s for s, _, _ in fused] == ["S", "M"] * 4
    # one loop nest instead of two: the intermediate is consumed where it is made
    assert named["unfused"].code.count("for (int c0") == 0
    assert named["fused"].code.count("for (") == 2
    assert named["unfused"].code.count("for (") == 4


def test_swapped_schedule_names_the_broken_dependence():
    swapped = polyhedral.apply("swapped", polyhedral.SCHEDULES["swapped"])
    assert not swapped.legal
    assert "S[i, j] -> M[" in swapped.violated


def test_a_schedule_that_drops_a_statement_is_refused():
    with pytest.raises(ValueError, match="unscheduled"):
        polyhedral.apply("partial", "[R, C] -> { S[i, j] -> [i, j] }")
