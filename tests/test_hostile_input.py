"""No input hangs or crashes the CLI: every option of every subcommand, any 64-bit integer,
any float spelling, any text, answers at once or exits 2 with one line on stderr.

The options are read from the parser itself, so an option added later is fuzzed too. A hang
(a loop over tiles, rows or calls) fails in two ways: each call gets ``ANSWER_S`` seconds, and
pytest-timeout ends the whole test if that guard is ever bypassed. The backstop uses the
thread method, because the signal method fires once and Hypothesis would then retry the
hanging example forever.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import signal
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from infrabook.attention_sizes import _causal_kv_rows, _floor_sum, flash_traffic
from infrabook.cli import build_parser, main
from infrabook.labels import text

INT64 = st.integers(-(2**63), 2**63 - 1)
# Hypothesis favours small integers; sizes near the top of the range are what would hang a
# loop over tiles, rows or calls, so they get a strategy of their own.
HUGE = st.one_of(st.integers(2**40, 2**63 - 1), st.sampled_from([2**63 - 1, 10**14, 2**62]))
POSITIVE_INT64 = st.one_of(HUGE, st.integers(1, 2**63 - 1))
FLOAT_TEXT = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["nan", "inf", "-inf", "1e400", "-1e400", "1e308", "5e-324", "1_0", ""]),
)
NUMBER_TEXT = st.one_of(INT64.map(str), FLOAT_TEXT)
# What a string option may be handed: numbers, lists of them, the option's own syntaxes
# (ROWSxCOUNT calls, NAME:PREP_MS:RUN_MS strategies) with hostile parts, or any text.
LIST_TEXT = st.lists(NUMBER_TEXT, min_size=1, max_size=6).map(",".join)
CALLS_TEXT = st.lists(
    st.tuples(INT64, INT64).map(lambda p: f"{p[0]}x{p[1]}"), min_size=1, max_size=4
).map(",".join)
STRATEGY_TEXT = st.tuples(st.text(max_size=4), NUMBER_TEXT, NUMBER_TEXT).map(":".join)
ANY_TEXT = st.one_of(NUMBER_TEXT, LIST_TEXT, CALLS_TEXT, STRATEGY_TEXT, st.text(max_size=20))


def _options() -> dict[str, list[argparse.Action]]:
    """Every subcommand and its value-taking options, read from the parser."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {
        name: [a for a in p._actions if a.option_strings and a.nargs != 0]
        for name, p in sub.choices.items()
    }


OPTIONS = _options()
CASES = [(cmd, a.option_strings[-1]) for cmd, actions in OPTIONS.items() for a in actions]


def _values_for(action: argparse.Action, hostile: bool) -> st.SearchStrategy[str]:
    """Values for one option: anything at all when ``hostile``, else mostly valid ones (so
    that the option under test is reached with the others accepted)."""
    valid: st.SearchStrategy[str] = st.sampled_from(
        [str(action.default)] if action.default is not None else ["1"]
    )
    if action.choices:
        valid = st.sampled_from([str(c) for c in action.choices])
    elif action.type is int:
        valid = st.one_of(POSITIVE_INT64.map(str), st.integers(1, 64).map(str))
    if not hostile:
        return valid
    return st.one_of(valid, INT64.map(str), ANY_TEXT)


# Every call answers in milliseconds; the margin is for a loaded 2-core CI machine.
ANSWER_S = 20


class _NoAnswer(Exception):
    pass


def _no_answer(signum, frame):
    raise _NoAnswer


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``main(argv)`` in this process: exit status, stdout, stderr; a call that does not
    answer within ``ANSWER_S`` seconds fails the test, naming the arguments."""
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _no_answer)
    signal.alarm(ANSWER_S)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code
    except _NoAnswer:
        pytest.fail(f"infrabook {' '.join(argv)} did not answer within {ANSWER_S} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return code, out.getvalue(), err.getvalue()


def assert_answers_or_one_line(argv: list[str]) -> None:
    code, out, err = run_cli(argv)
    if code == 0:
        assert out and not err, (argv, err)
    else:
        assert code == 2, (argv, code, err)
        assert len(err.strip().splitlines()) == 1, (argv, err)
        assert not out, (argv, out)


def test_every_subcommand_is_fuzzed():
    assert set(OPTIONS) == {
        "calc",
        "fusion",
        "attention",
        "softmax",
        "launches",
        "buckets",
        "crossover",
        "audit",
    }
    assert ("attention", "--seq-len") in CASES and ("crossover", "--strategy") in CASES


@pytest.mark.timeout(300, method="thread")
@pytest.mark.parametrize(("command", "option"), CASES)
# No shrinking: a hanging example would cost ANSWER_S per shrink step, and its arguments
# are already in the failure message.
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(data=st.data())
def test_any_value_in_any_option_answers_or_exits_2(command, option, data):
    argv = [command]
    for action in OPTIONS[command]:
        name = action.option_strings[-1]
        # The option under test always gets a value; the others sometimes do, so that
        # combinations (a huge sequence with 1-row tiles) are reached too.
        if name == option or data.draw(st.booleans(), label=f"set {name}"):
            value = data.draw(_values_for(action, hostile=name == option), label=name)
            argv.append(f"{name}={value}")
    argv += data.draw(st.sampled_from([[], ["--json"], ["--causal"]]), label="flags")
    if "--causal" in argv and command != "attention":
        argv.remove("--causal")
    assert_answers_or_one_line(argv)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("command", [c for c, actions in OPTIONS.items() if not actions])
def test_commands_without_options(command):
    assert_answers_or_one_line([command])
    assert_answers_or_one_line([command, "--json"])


@pytest.mark.timeout(60)
def test_the_reported_hang_returns_at_once():
    start = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "infrabook",
            "attention",
            "--seq-len",
            "99999999999999",
            "--block-q",
            "1",
            "--block-k",
            "3",
            "--causal",
        ],
        capture_output=True,
        text=True,
        timeout=50,
    )
    assert proc.returncode == 0 and not proc.stderr
    assert text("live.row.flash_total", tiles=99999999999999) in proc.stdout
    assert time.monotonic() - start < 50


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "argv",
    [
        ["attention", "--seq-len", "1e9"],
        ["softmax", "--values", "1.7e308,1.7e308"],
        ["softmax", "--block", "nan"],
        ["buckets", "--rows", ""],
        ["crossover", "--strategy", "a:1e400:1", "--strategy", "b:0:2"],
    ],
)
def test_non_integers_in_a_real_process_give_one_line(argv):
    proc = subprocess.run(
        [sys.executable, "-m", "infrabook", *argv], capture_output=True, text=True, timeout=50
    )
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert not proc.stdout


def test_float_overflow_in_softmax_is_named():
    code, _, err = run_cli(["softmax", "--values", "1.7e308,1.7e308"])
    largest = f"{sys.float_info.max:.3g}"
    said = text("cli.error.overflow", values=[1.7e308, 1.7e308], largest=largest)
    assert code == 2 and said in err and "--values" in err


# ---- the closed form that replaced the loop over query tiles ---------------------------


def _old_loop_kv_rows(seq_len, block_q, block_k):
    """The causal K/V row count as flash_traffic computed it before, one tile at a time."""
    query_tiles = -(-seq_len // block_q)
    kv_rows = 0
    for t in range(query_tiles):
        last_row = min((t + 1) * block_q, seq_len)
        kv_rows += min(-(-last_row // block_k) * block_k, seq_len)
    return kv_rows


@settings(max_examples=500)
@given(seq_len=st.integers(1, 3000), block_q=st.integers(1, 300), block_k=st.integers(1, 300))
def test_closed_form_equals_the_old_loop(seq_len, block_q, block_k):
    assert _causal_kv_rows(seq_len, block_q, block_k) == _old_loop_kv_rows(
        seq_len, block_q, block_k
    )


@settings(max_examples=300)
@given(
    n=st.integers(0, 200), m=st.integers(1, 10**6), a=st.integers(0, 10**6), b=st.integers(0, 10**6)
)
def test_floor_sum_equals_the_sum(n, m, a, b):
    assert _floor_sum(n, m, a, b) == sum((a * i + b) // m for i in range(n))


@pytest.mark.timeout(30)
@settings(max_examples=300)
@given(seq_len=POSITIVE_INT64, block_k=st.integers(1, 2**20), multiple=st.integers(1, 2**20))
def test_closed_form_is_exact_at_any_size(seq_len, block_k, multiple):
    # When block_k divides block_q every tile but the last reads exactly k * block_q rows,
    # so the sum is an arithmetic series: an independent exact reference at any size.
    block_q = block_k * multiple
    tiles = -(-seq_len // block_q)
    expected = block_q * (tiles - 1) * tiles // 2 + seq_len
    assert _causal_kv_rows(seq_len, block_q, block_k) == expected
    f = flash_traffic(seq_len, 1, "int8", block_q, block_k, causal=True)
    assert f.kv_bytes == 2 * expected and f.query_tiles == tiles


# L7 and M3 of the security review (2026-12-04): a message quotes what it was given escaped
# and cut, whether the value went through an option's reader or argparse's own words.
HOSTILE_WORDS = [
    ["fusion", "--rows", "a" * 100_000],
    ["crossover", "--strategy", "x" * 100_000],
    ["calc", "\x1b]0;pwned\x07\x1b[2J" + "y" * 100_000],
    ["fusion", "--rows", "abc\u202edcba"],
    ["fusion", "--dtype", "\x1b[31m" + "z" * 100_000],
    ["buckets", "--mfu", "\x1b[31m=0.5"],
]


@pytest.mark.parametrize("argv", HOSTILE_WORDS, ids=lambda a: f"{a[0]}:{a[-1][:8]!r}")
def test_a_hostile_value_is_quoted_escaped_and_cut(argv):
    code, out, err = run_cli(argv)
    assert code == 2 and not out and err.count("\n") == 1
    assert all(c.isprintable() for c in err.rstrip("\n")), err[:200]
    assert len(err) < 1100


def test_the_live_calculators_cut_a_long_value():
    from infrabook import live

    error = live.run("fusion", {"rows": "1" * 10**6})["error"]
    assert len(error) < 200 and "…" in error


HUGE_TEXT = str(2**1000)


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "argv",
    [
        ["attention", "--seq-len", HUGE_TEXT],
        ["buckets", "--rows", HUGE_TEXT],
        ["buckets", "--buckets", HUGE_TEXT],
        ["buckets", "--rows", f"256x{HUGE_TEXT}"],
    ],
    ids=["seq-len", "rows", "buckets", "count"],
)
def test_a_size_beyond_int64_gives_one_line(argv):
    """L1: 2**1000 as a size ended in an OverflowError traceback (exit 1)."""
    proc = subprocess.run(
        [sys.executable, "-m", "infrabook", *argv], capture_output=True, text=True, timeout=100
    )
    assert proc.returncode == 2 and not proc.stdout, proc.stderr[-500:]
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "9223372036854775807" in proc.stderr and len(proc.stderr) < 400


@pytest.mark.timeout(120)
def test_a_long_machine_label_is_refused_before_anything_runs():
    """L8: a 300-character --machine passed parsing and failed at the first merge, after the
    experiment had run."""
    proc = subprocess.run(
        [sys.executable, "-m", "infrabook.bench", "--only", "fusion", "--machine", "a" * 300],
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert proc.returncode == 2 and not proc.stdout
    assert proc.stderr.count("\n") == 1 and "300" in proc.stderr and "[bench]" not in proc.stderr
