"""The CLI: the article's recomputation, every subcommand, JSON, and one-line errors."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from infrabook.argparse_lang import Formatter
from infrabook.bench.run import main as bench_main
from infrabook.calc_fields import Field
from infrabook.cli import main
from infrabook.labels import text
from infrabook.tables import display_width

SAVED = (argparse._, argparse.ngettext)  # type: ignore[attr-defined]

ARTICLE_SECTION_6 = [
    "融合: 分开 120 MiB → 融合 72 MiB(比 0.60,理论 1.67×);三步 156/108/60 MiB",
    "峰值: 分开 72 MiB vs 全融合 60 MiB(读写 -96 MiB,峰值只 -12 MiB)",
    "FlashAttention(L=8192,d=128,BF16): QKV/O 各 2 MiB;S、P 各 256 MiB → 中间读写 1.0 GiB"
    "(S、P 各写读一次)",
    "在线 softmax: [0,ln2]/[1,3] → r=0.5 → ℓ'=1.5, u'=3.5 → 2.3333(= 7/3)",
]


def test_calc_matches_the_article(capsys):
    assert main(["calc"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == ARTICLE_SECTION_6
    assert lines[4].startswith("交叉点: 通用↔分桶 65 组;分桶↔逐形状特化 89 组;")
    assert lines[4].endswith("通用↔逐形状特化 78 组")


def _plan(plans, name):
    return next(p for p in plans if p["plan"] == name)


BF16, INT8 = 2, 1  # bytes per element
# every claim of conf/claims.toml, in its order, read here without the package
CLAIMS_TOML = Path(__file__).parents[1] / "conf" / "claims.toml"
CLAIM_IDS = [c["id"] for c in tomllib.loads(CLAIMS_TOML.read_text())["claim"]]
ROWS, COLS = 1024, 12288  # the article's [1024, 12288] activations
# What each subcommand's JSON must say, worked out by hand from the article's shapes (exact
# integers, and the article's rounded crossovers), not from the package.
JSON_CHECKS = {
    ("calc",): lambda d: d["lines"] == [*ARTICLE_SECTION_6, d["lines"][4]],
    ("fusion",): lambda d: (
        _plan(d, "[silu+mul]")["traffic_bytes"] == 3 * ROWS * COLS * BF16  # read G, U; write Z
        and _plan(d, "[silu] [mul]")["traffic_bytes"] == 5 * ROWS * COLS * BF16  # + T twice
    ),
    ("fusion", "--quant-dtype", "int8", "--rows", "7", "--cols", "3"): lambda d: (
        _plan(d, "[silu+mul+quant]")["traffic_bytes"] == 7 * 3 * (2 * BF16 + INT8)
    ),
    ("attention", "--causal"): lambda d: (
        d["qkvo_bytes"] == 8192 * 128 * BF16
        and d["score_bytes"] == 8192 * 8192 * 4  # fp32 scores
        and d["standard_intermediate_traffic_bytes"] == 4 * 8192 * 8192 * 4  # S, P: write, read
    ),
    ("softmax",): lambda d: abs(d["result"] - 7 / 3) <= 4 * sys.float_info.epsilon,
    ("launches",): lambda d: [c["kernels"] for c in d] == [18, 18, 15, 15],
    ("buckets", "--rates", "peak"): lambda d: (
        [c["executed_rows"] for c in d] == [5632, 8192, 5632]
        and abs(d[1]["padding_fraction"] - 2560 / 5632) <= 1e-15
    ),
    ("crossover",): lambda d: (
        sorted(round(c["runs"], 1) for c in d["crossings"]) == [65.2, 78.4, 89.3]
    ),
    ("crossover", "--strategy", "a:0:2", "--strategy", "b:10:1"): lambda d: (
        [(c["a"], c["b"], c["runs"]) for c in d["crossings"]] == [("a", "b", 10.0)]  # 2n = 10 + n
    ),
    ("audit",): lambda d: (
        [c["id"] for c in d] == CLAIM_IDS
        and {c["verdict"] for c in d} <= {"matches", "rounded", "differs", "implausible"}
    ),
}


@pytest.mark.parametrize("argv", list(JSON_CHECKS), ids=" ".join)
def test_every_subcommands_json_holds_the_articles_numbers(argv, capsys):
    assert main([*argv, "--json"]) == 0
    assert JSON_CHECKS[argv](json.loads(capsys.readouterr().out))


def test_defaults_are_the_articles_case(capsys):
    main(["launches", "--json"])
    got = [(c["host_submissions"], c["kernels"]) for c in json.loads(capsys.readouterr().out)]
    assert got == [(18, 18), (3, 18), (15, 15), (3, 15)]
    main(["buckets", "--json"])
    assert [c["executed_rows"] for c in json.loads(capsys.readouterr().out)] == [5632, 8192, 5632]
    main(["attention", "--json"])
    assert json.loads(capsys.readouterr().out)["standard_intermediate_traffic_bytes"] == 2**30


# how an empty field is quoted in a message
EMPTY = text("live.error.empty_raw")


def _field_error(key: str, field: str, raw: str) -> str:
    return text(key, label=Field(field, "int", "1").name_text, raw=raw)


def _choice_error(field: str, raw: str, choices: str) -> str:
    return text("live.error.choice", label=text(f"live.field.{field}"), raw=raw, choices=choices)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        # the fields' own messages, in the reader's language, as the live calculators say them
        (["fusion", "--rows", "0"], _field_error("live.error.positive_int", "rows", "0")),
        (["fusion", "--cols", "-5"], _field_error("live.error.positive_int", "cols", "-5")),
        (["fusion", "--dtype", "fp64"], _choice_error("dtype", "fp64", "fp32 / fp16 / bf16")),
        (["attention", "--seq-len", "0"], _field_error("live.error.positive_int", "seq_len", "0")),
        (
            ["softmax", "--scores", "0,nan", "--values", "1,2"],
            _field_error("live.error.read_floats", "scores", "0,nan"),
        ),
        (
            ["softmax", "--scores", "0,inf", "--values", "1,2"],
            _field_error("live.error.read_floats", "scores", "0,inf"),
        ),
        (
            ["softmax", "--scores", "0,1", "--values", "1"],
            text("live.error.same_length", scores=2, values=1),
        ),
        (["softmax", "--scores", "a,b"], _field_error("live.error.read_floats", "scores", "a,b")),
        (["launches", "--runs", "-1"], _field_error("live.error.positive_int", "runs", "-1")),
        (["buckets", "--rows", "4096"], "超过了最大的桶（2048）"),
        (
            ["buckets", "--buckets", ""],
            _field_error("live.error.positive_items", "buckets", EMPTY),
        ),
        (
            ["buckets", "--rows", ""],
            _field_error("live.error.positive_calls", "calls", EMPTY),
        ),
        (["attention", "--block-q", "0"], _field_error("live.error.positive_int", "block_q", "0")),
        # the calculators' own messages, on values each option accepts alone
        (["crossover", "--strategy", "a:1:5"], text("error.strategy.too_few", count=1)),
        (
            ["crossover", "--strategy", "a:1:inf", "--strategy", "b:1:2"],
            text("error.strategy.run", name="'a'", value="inf"),
        ),
        (
            ["crossover", "--strategy", "a:1:2", "--strategy", "a:3:4"],
            text("error.strategy.duplicate", name="'a'"),
        ),
        (
            ["launches", "--kernels-per-run", "2", "--fused-kernels-per-run", "5"],
            text("error.launches.fused", fused=5, kernels=2),
        ),
        (["buckets", "--mfu", "generic=2"], text("error.mfu.range", name="'generic'", value="2")),
        (["buckets", "--rates", "list"], _choice_error("rates", "list", "article / peak")),
        # argparse's own words, from the Chinese catalogue of its messages
        (["frobnicate"], "参数 子命令：无效的取值：'frobnicate'"),
        ([], "缺少以下参数：子命令"),
        (["fusion", "--frobnicate"], "无法识别的参数：--frobnicate"),
        (["fusion", "--rows"], "参数 --rows：需要一个值"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, needle, capsys):
    with pytest.raises(SystemExit) as exc:
        raise SystemExit(main(argv))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert needle in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_parallel_strategies_never_cross_and_the_cheaper_one_wins(capsys):
    assert main(["crossover", "--strategy", "a:1:5", "--strategy", "b:2:5"]) == 0
    out = capsys.readouterr().out
    assert text("live.cell.never") in out and out.rstrip().endswith("a")


def test_lines_that_cross_before_the_first_run_never_cross(capsys):
    """b costs more from n = 0 on and runs slower: the lines meet at n = -50, which is
    written as "never" (in the build's language), not as a number of runs."""
    assert main(["crossover", "--strategy", "a:100:5", "--strategy", "b:200:7"]) == 0
    out = capsys.readouterr().out
    assert text("live.cell.never_ahead") in out
    assert not re.search(r"[-−]\d", out)


# Chapter 6's own case: bucketed at 30 % executed utilisation never catches up.
OWN_BUCKETS = ["buckets", "--rows", "300x20,700x4,1900", "--buckets", "512,1024,2048"]


def test_a_negative_crossover_is_never_rounded_into_a_number(capsys):
    assert main([*OWN_BUCKETS, "--mfu", "bucketed=0.3"]) == 0
    out = capsys.readouterr().out
    pair = next(line for line in out.splitlines() if "↔" in line)
    assert pair.split(None, 3)[-1].strip() == text("live.cell.never_ahead")
    assert not re.search(r"[-−]\d", out)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_notes_under_the_tables_wrap_and_the_peak_is_explained(lang, monkeypatch, capsys):
    """Only the tables may be wider than a terminal: their notes are wrapped; a peak the
    reader did not choose (--mfu alone moves it from the article's implied 500 to
    conf's 503.8) is said where it comes from."""
    monkeypatch.setenv("INFRABOOK_LANG", lang)
    assert main([*OWN_BUCKETS, "--mfu", "bucketed=0.3"]) == 0
    out = capsys.readouterr().out
    prose = [line for line in out.splitlines() if "  " not in line.strip()]
    assert prose and max(display_width(line) for line in prose) <= 80
    assert "503.8" in out and "500" in out
    assert main(OWN_BUCKETS) == 0
    assert "503.8" not in capsys.readouterr().out


def test_console_script_and_module_entry_point():
    out = subprocess.run(
        [sys.executable, "-m", "infrabook", "audit"], capture_output=True, text=True, check=True
    ).stdout
    assert "fusion.measured_fused_us" in out and text("verdict.implausible") in out
    bad = subprocess.run(
        [sys.executable, "-m", "infrabook", "buckets", "--rows", "9999"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and not bad.stdout


# Words a Chinese reader may see in Latin letters: units, API and kernel names, code identifiers
# (audit claim ids, strategy names in --mfu), and the article's own Latin terms.
_LATIN_OK = {
    "MiB", "GiB", "TFLOP", "ms", "MFU", "FlashAttention", "CUDA", "Graph", "softmax", "kernel",
    "silu", "SiLU", "mul", "mfu", "generic", "bucketed", "specialised", "BF16", "QKV", "ln2", "μs",
    "vs",  # the article's own section 6 writes "分开 72 MiB vs 全融合 60 MiB"
    "TB",  # TB/s
    "NVIDIA", "B200", "HGX", "RTX", "PRO", "Blackwell", "DRAM", "L2", "PaLM",  # proper names
}  # fmt: skip


_COMMANDS = ["calc", "fusion", "attention", "softmax", "launches", "buckets", "crossover", "audit"]


@pytest.mark.parametrize("command", _COMMANDS)
def test_chinese_default_prints_no_english(command, capsys, monkeypatch):
    monkeypatch.setenv("INFRABOOK_LANG", "zh")
    assert main([command]) == 0
    words = {
        w
        for w in re.findall(r"[A-Za-z][A-Za-z0-9_.]+", capsys.readouterr().out)
        if "." not in w and "_" not in w  # a code identifier such as fusion.tensor_mib
    }
    assert words <= _LATIN_OK, sorted(words - _LATIN_OK)


@pytest.mark.parametrize(
    "argv",
    [
        ["crossover", "--strategy", "a:1"],
        ["crossover", "--strategy", "a:x:1", "--strategy", "b:1:2"],
        ["crossover", "--strategy", ":1:2", "--strategy", "b:1:2"],
        ["crossover", "--strategy", "a:-1:2", "--strategy", "b:1:2"],
        ["crossover", "--strategy", "a:1:0", "--strategy", "b:1:2"],
        ["crossover", "--strategy", "a:1:2"],
        ["crossover", "--strategy", "a:1:2", "--strategy", "a:1:3"],
        ["buckets", "--mfu", "generic"],
        ["buckets", "--mfu", "generic=0"],
        ["buckets", "--mfu", "tuned=0.3"],
        ["buckets", "--rates", "list"],
        ["launches", "--kernels-per-run", "2", "--fused-kernels-per-run", "5"],
    ],
)
def test_chinese_default_errors_print_no_english(argv, capsys, monkeypatch):
    """What a calculator refuses is said in Chinese too, not only what a field refuses."""
    monkeypatch.setenv("INFRABOOK_LANG", "zh")
    with pytest.raises(SystemExit) as exc:
        raise SystemExit(main(argv))
    assert exc.value.code == 2
    err = capsys.readouterr().err.removeprefix(f"infrabook {argv[0]}")
    for token in argv:  # the reader's own input, quoted back
        err = err.replace(token, "")
    err = re.sub(r"'[^']*'", "", err)
    words = set(re.findall(r"[A-Za-z][A-Za-z0-9_]+", err))
    # what a reader types: the options' syntax and choices
    syntax = {"NAME", "FRACTION", "PREP_MS", "RUN_MS", "prep_ms", "run_ms", "article", "peak"}
    assert words <= _LATIN_OK | syntax, sorted(words - _LATIN_OK - syntax)


def test_help_headings_and_usage_are_laid_out_by_display_width(capsys, monkeypatch):
    monkeypatch.setenv("INFRABOOK_LANG", "zh")
    monkeypatch.setenv("COLUMNS", "60")
    with pytest.raises(SystemExit):
        main(["attention", "--help"])
    lines = capsys.readouterr().out.splitlines()
    assert "选项：" in lines and "选项:" not in lines  # the language's colon ends a heading
    usage = lines[: lines.index("")]
    assert len(usage) > 1 and all(display_width(line) <= 58 for line in usage)
    first = display_width("用法：infrabook attention ")  # where the first option starts
    assert {len(line) - len(line.lstrip()) for line in usage[1:]} == {first}


def test_columns_line_up_by_display_width(capsys, monkeypatch):
    """Chinese cells take two terminal columns each: the second column starts at one offset."""
    monkeypatch.setenv("INFRABOOK_LANG", "zh")
    main(["launches"])
    lines = capsys.readouterr().out.splitlines()
    starts = set()
    for line in lines:
        first = re.match(r"\S+(?: \S+)*", line).group(0)  # the first cell (may hold one space)
        starts.add(
            display_width(first) + len(line[len(first) :]) - len(line[len(first) :].lstrip())
        )
    assert len(starts) == 1, lines


def test_help_and_argparse_words_follow_the_build_language(capsys, monkeypatch):
    with pytest.raises(SystemExit):
        main(["fusion", "--help"])
    zh = capsys.readouterr().out
    assert zh.startswith("用法：infrabook fusion") and "显示这段帮助后退出" in zh
    assert text("cli.help.fusion") in zh and text("live.field.rows") in zh
    for english in ("usage", "options", "show this", "print JSON", "traffic"):
        assert english not in zh
    with pytest.raises(SystemExit):
        main(["--help"])
    top = capsys.readouterr().out
    assert top.startswith("用法：infrabook [-h] 子命令") and text("cli.help.audit") in top
    assert (argparse._, argparse.ngettext) == SAVED  # put back after it exits
    monkeypatch.setenv("INFRABOOK_LANG", "en")
    with pytest.raises(SystemExit):
        main(["fusion", "--help"])
    en = capsys.readouterr().out
    assert en.startswith("usage: infrabook fusion") and "show this help message" in en
    assert "traffic and peak" in en and "用法" not in en
    with pytest.raises(SystemExit) as exc:
        main(["fusion", "--rows", "0"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "error: argument --rows: " in err
    assert "expected a positive integer, got 0" in err


def test_a_bad_build_language_is_one_line(capsys, monkeypatch):
    monkeypatch.setenv("INFRABOOK_LANG", "fr")
    assert main(["calc"]) == 2
    assert capsys.readouterr().err.strip() == (
        "infrabook: error: INFRABOOK_LANG='fr': expected one of zh, en"
    )


_HELPS = [
    (main, []),
    *((main, [command]) for command in _COMMANDS),
    (bench_main, []),
    (bench_main, ["compare"]),
]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("columns", [60, 80, 120])
def test_every_help_fits_the_terminal_and_keeps_phrases_whole(lang, columns, capsys, monkeypatch):
    """Lines fit by display width (a word or option too long for any line may stand alone), and no
    line starts with closing punctuation or ends with opening punctuation."""
    monkeypatch.setenv("INFRABOOK_LANG", lang)
    monkeypatch.setenv("COLUMNS", str(columns))
    for entry, argv in _HELPS:
        with pytest.raises(SystemExit):
            entry([*argv, "--help"])
        for line in filter(str.strip, capsys.readouterr().out.splitlines()):
            # argparse keeps a usage's option with its metavar, "[--dtype {fp32,fp16}]"
            unit = len(line.split()) == 1 or re.fullmatch(r"\s*\[[^\[\]]+\]", line)
            assert display_width(line) <= columns - 2 or unit, (argv, line)
            assert line.strip()[0] not in "，。、：；！？）」』", (argv, line)
            assert line.strip()[-1] not in "（「『", (argv, line)


def test_english_help_keeps_a_word_with_a_middle_dot_whole(capsys, monkeypatch):
    monkeypatch.setenv("INFRABOOK_LANG", "en")
    monkeypatch.setenv("COLUMNS", "48")
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "n·T_run" in capsys.readouterr().out.split()


def test_a_coloured_heading_still_ends_in_the_languages_colon(monkeypatch):
    """Python 3.14's argparse may colour a heading; the colon is still the language's."""
    monkeypatch.setenv("INFRABOOK_LANG", "zh")
    coloured = "用法：p\n\n\x1b[1;34m选项:\x1b[0m\n  -h\n"
    monkeypatch.setattr(argparse.HelpFormatter, "format_help", lambda self: coloured)
    formatter = Formatter("p")
    formatter.start_section("选项")
    assert formatter.format_help() == "用法：p\n\n\x1b[1;34m选项：\x1b[0m\n  -h\n"


def test_count_mismatch_reads_for_one_score_too(monkeypatch, capsys):
    """English: no "2 values for 1 scores"; the counts are named, not pluralised."""
    monkeypatch.setenv("INFRABOOK_LANG", "en")
    with pytest.raises(SystemExit):
        raise SystemExit(main(["softmax", "--scores", "0", "--values", "1,2"]))
    err = capsys.readouterr().err
    assert "scores: 1" in err and "1 scores" not in err
