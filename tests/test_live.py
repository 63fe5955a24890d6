"""The live calculators: the article's numbers on their defaults, the package's own error
for every bad input, bounded work, and no numpy (the browser has none).

References: the article's worked numbers (exact in MiB and groups) and the calculators the
pages already use; the live module must agree with them to the digit it prints.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import zipfile
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infrabook import config, live
from infrabook.audit import recompute, section6_lines
from infrabook.calculators import calculators
from infrabook.labels import text


def _cells(name: str, raw: dict[str, str] | None = None, table: int = 0) -> list[list[str]]:
    out = live.run(name, raw or {})
    assert out["ok"], out
    return out["tables"][table]["rows"]


def test_fusion_defaults_are_example_5_4():
    rows = {r[0]: r for r in _cells("fusion")}
    assert rows["[silu] [mul]"][2] == "120"
    assert rows["[silu+mul]"][2] == "72"


def test_fusion_with_quantisation_is_section_2_1():
    traffic = sorted(int(r[2]) for r in _cells("fusion", {"quant_dtype": "int8"}))
    assert traffic == [60, 108, 108, 156]


def test_attention_defaults():
    rows = dict(_cells("attention"))
    assert rows["S / P（各）"] == "256"
    assert rows["标准实现合计"] == "1032"
    assert rows["FlashAttention 分块（64 个查询块）合计"] == "260"


def test_softmax_defaults_are_example_5_6():
    out = live.run("softmax", {})
    (table,) = out["tables"]
    assert [r[3:] for r in table["rows"]] == [["1", "1", "1"], ["1.5", "3.5", "0.5"]]
    assert table["note"].endswith("2.33333")


def test_crossovers_are_the_articles():
    assert [r[1] for r in _cells("crossover")] == ["65.2", "78.4", "89.3"]


def test_buckets_show_both_utilisations():
    rows = {r[0]: r for r in _cells("buckets")}
    assert rows["分桶"][2:5] == ["+45.5%", "40.0%", "27.5%"]
    assert rows["通用"][3:5] == ["20.0%", "20.0%"]


# The article's three lines, 100 + 17.0 n, 400 + 12.4 n and 900 + 6.8 n (its stated preparation
# and per-run times), crossed by hand in exact arithmetic: the reference every front end must
# reproduce for "the article's example", in pairwise order (g-b, g-s, b-s).
_ARTICLE_LINES = {"g": (100, Fraction("17.0")), "b": (400, Fraction("12.4")),
                  "s": (900, Fraction("6.8"))}  # fmt: skip


def _cross(x: str, y: str) -> str:
    (px, tx), (py, ty) = _ARTICLE_LINES[x], _ARTICLE_LINES[y]
    return f"{float((py - px) / (tx - ty)):.1f}"


ARTICLE_CROSSOVERS = [_cross("g", "b"), _cross("g", "s"), _cross("b", "s")]


def test_the_articles_example_gives_one_triple_everywhere():
    """The 5.2 and 5.3 calculators, the audit (and so `infrabook calc` and the chapter 6
    calculator, which format it) give the article's crossovers on the article's example."""
    assert ARTICLE_CROSSOVERS == ["65.2", "78.4", "89.3"]
    assert [r[1] for r in _cells("crossover")] == ARTICLE_CROSSOVERS
    assert [r[1] for r in _cells("buckets", table=1)] == ARTICLE_CROSSOVERS
    r = recompute()
    keys = ("generic_bucketed", "generic_specialised", "bucketed_specialised")
    assert [f"{r[f'crossover.{k}'].value:.1f}" for k in keys] == ARTICLE_CROSSOVERS


def test_recompute_is_section_6():
    """The chapter 6 calculator shows `infrabook calc`'s lines: one derivation, one wording."""
    assert [": ".join(row) for row in _cells("recompute")] == section6_lines()
    changed = [": ".join(row) for row in _cells("recompute", {"rows": "2048"})]
    assert changed[0].startswith("融合: 分开 240 MiB → 融合 144 MiB")


@pytest.mark.parametrize(
    ("name", "field", "raw", "message"),
    [
        ("fusion", "rows", "-3", "行数 rows：应为 1 到 1,048,576 之间的整数，收到 -3"),
        # an empty field is said to be empty, not quoted as Python's ''
        ("fusion", "rows", "", "行数 rows：应为 1 到 1,048,576 之间的整数，收到 空白"),
        ("fusion", "cols", "1e3", "列数 cols：应为 1 到 1,048,576 之间的整数，收到 1e3"),
        ("attention", "seq_len", str(2**63 - 1), "序列长度 L：应为 1 到 1,048,576 之间的整数"),
        ("fusion", "dtype", "int4", "数据类型：应为 fp32 / fp16 / bf16 之一，收到 int4"),
        (
            "softmax",
            "scores",
            "1,nan",
            "分数 s_i：应为 -1,000,000 到 1,000,000 之间的有限数",
        ),
        ("softmax", "scores", ",".join(["1"] * 33), "分数 s_i：应为 1 到 32 项"),
        ("buckets", "util_bucketed", "0", "分桶：执行利用率：应为 0.01 到 1 之间的有限数，收到 0"),
        (
            "buckets",
            "calls",
            "abc",
            "一组调用的行数：应为以逗号分隔的 ROWS 或 ROWSxCOUNT（例如 256x8），"
            "ROWS、COUNT 都是正整数，收到 abc",
        ),
        ("buckets", "calls", "256x0", "一组调用的行数：应为以逗号分隔的 ROWS 或 ROWSxCOUNT"),
        ("buckets", "buckets", "", "桶的大小：应为 1 到 16 项、以逗号分隔"),
    ],
)
def test_bad_input_names_the_field(name, field, raw, message):
    out = live.run(name, {field: raw})
    assert not out["ok"]
    assert out["field"] == field
    assert message in out["error"]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(
    ("name", "field", "raw"),
    [
        ("buckets", "calls", "abc"),
        ("buckets", "calls", "256x0"),
        ("buckets", "buckets", ""),
        ("softmax", "scores", "1,x"),
        ("softmax", "values", ""),
    ],
)
def test_an_error_names_its_field_once(monkeypatch, lang, name, field, raw):
    # the field's name once, at the start; the help its label carries (an example, "comma-
    # separated") is not said twice, since the error states what is expected itself
    monkeypatch.setenv("INFRABOOK_LANG", lang)
    calc = calculators()[name]
    label, short = calc.field(field).label, calc.field(field).name_text
    error = live.run(name, {field: raw})["error"]
    assert error.startswith(short) and short in label and label not in error
    assert error.count(short) == 1, error
    assert error.endswith(raw or text("live.error.empty_raw")), error


def test_every_bad_field_is_reported():
    out = live.run("buckets", {"peak_tflops": "-1", "util_generic": "2", "calls": "256x"})
    assert not out["ok"]
    assert [e["field"] for e in out["errors"]] == ["calls", "peak_tflops", "util_generic"] or {
        e["field"] for e in out["errors"]
    } == {"calls", "peak_tflops", "util_generic"}
    assert (out["field"], out["error"]) == (out["errors"][0]["field"], out["errors"][0]["error"])


def test_errors_between_fields_are_the_packages_in_the_readers_language():
    out = live.run("buckets", {"calls": "4096", "buckets": "512,2048"})
    assert out["field"] is None
    assert out["error"] == "一次 4096 行的调用超过了最大的桶（2048）：请加一个放得下它的桶"


def test_unknown_calculator_and_field_are_errors():
    with pytest.raises(ValueError, match="no live calculator 'nope'"):
        live.run("nope", {})
    with pytest.raises(ValueError, match="has no field"):
        live.run("fusion", {"colour": "red"})


@settings(max_examples=60, deadline=None)
@given(data=st.data())
@pytest.mark.timeout(60)
def test_any_text_in_any_field_answers(data):
    """Whatever a reader types, the answer is a table or one message, never an exception."""
    name = data.draw(st.sampled_from(sorted(live.calculators())))
    fields = live.calculators()[name].fields
    raw = {
        f.name: data.draw(st.one_of(st.text(max_size=40), st.integers().map(str)))
        for f in fields
        if data.draw(st.booleans())
    }
    out = live.run(name, raw)
    assert out["ok"] or (out["error"] and out["field"] in {None, *(f.name for f in fields)})


def test_largest_inputs_stay_cheap():
    """The bounds keep the work small: the largest shapes still answer (pytest-timeout and
    the exact closed forms keep this from hanging)."""
    big = str(1 << 20)
    assert live.run("fusion", {"rows": big, "cols": big})["ok"]
    assert live.run("attention", {"seq_len": big, "block_q": "16", "block_k": "16"})["ok"]
    many = ",".join(["2048x1000000"] * 32)
    assert live.run("buckets", {"calls": many})["ok"]


def test_run_json_round_trips():
    assert json.loads(live.run_json("crossover", "{}")) == live.run("crossover", {})


def test_runs_from_the_conf_files_without_cattrs(tmp_path):
    """In the browser the calculators read the conf files the build shipped (the TOML files,
    as the docs extension zips them) without cattrs, which Pyodide would compile for longer
    than the calculators take, and without numpy: the standard library's reader checks them."""
    for name in config.FILES:
        (tmp_path / name).write_bytes((config.conf_dir() / name).read_bytes())
    code = (
        "import sys\n"
        "for name in ('numpy', 'cattrs', 'attrs', 'attr'): sys.modules[name] = None\n"
        "from infrabook import config, live\n"
        "config.check_all()\n"
        "assert all(live.run(n, {})['ok'] for n in live.calculators())\n"
        "assert 'infrabook.conf_plain' in sys.modules\n"
        "assert not {'cattrs', 'attrs'} & {n for n, m in sys.modules.items() if m}\n"
        "print(live.run_json('recompute', '{}'))\n"
    )
    env = os.environ | {"INFRABOOK_CONF": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], check=True, env=env, capture_output=True)
    assert json.loads(out.stdout) == live.run("recompute", {})


def test_a_bad_conf_file_is_refused_without_cattrs(tmp_path):
    """The browser's reader refuses what the CLI refuses, in the same words."""
    for name in config.FILES:
        (tmp_path / name).write_bytes((config.conf_dir() / name).read_bytes())
    scenarios = tmp_path / "scenarios.toml"
    scenarios.write_text(
        scenarios.read_text(encoding="utf-8").replace("head_dim = 128", "head_dim = -128", 1),
        encoding="utf-8",
    )
    code = (
        "import sys\n"
        "for name in ('cattrs', 'attrs', 'attr'): sys.modules[name] = None\n"
        "from infrabook import config\n"
        "try:\n"
        "    config.check_all()\n"
        "except config.ConfError as err:\n"
        "    print(err)\n"
    )
    env = os.environ | {"INFRABOOK_CONF": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], check=True, env=env, capture_output=True)
    expected = f"{scenarios}: attention.head_dim: expected a positive integer, got -128\n"
    assert out.stdout.decode() == expected


def test_runs_without_numpy():
    """The browser has no numpy: import and run every calculator with numpy blocked."""
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "from infrabook import live\n"
        "assert all(live.run(n, {})['ok'] for n in live.calculators())\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_docs_build_ships_the_conf_files_and_no_pickle(tmp_path):
    """The archive the pages' script unpacks over the wheel holds the conf files the build
    read, byte for byte, and nothing else (once a pickle, which the browser loaded)."""
    pytest.importorskip("sphinx", reason="the docs extra is not installed in this session")
    ext = Path(__file__).resolve().parents[1] / "docs" / "_ext" / "infrabook_live.py"
    spec = importlib.util.spec_from_file_location("infrabook_live_under_test", ext)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    target = tmp_path / module.CONF_NAME
    module._make_conf(target)
    with zipfile.ZipFile(target) as archive:
        names = archive.namelist()
        assert names == [f"infrabook/conf/{name}" for name in config.FILES]
        for name in config.FILES:
            shipped = archive.read(f"infrabook/conf/{name}")
            assert shipped == (config.conf_dir() / name).read_bytes()
