"""The calculator layer: one result, rendered as text, HTML and Markdown with the same cells; the
CLI's options are the calculators' fields; no numpy or matplotlib under it (Pyodide has neither).

References: the article's worked numbers (exact in MiB), and the HTML and Markdown read back
with the standard library's parser and by splitting the pipe table, not with the renderers.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import subprocess
import sys
from fractions import Fraction
from html.parser import HTMLParser

import pytest

from infrabook.attention_sizes import attention_sizes
from infrabook.calc_fields import Field, FieldError
from infrabook.calc_tables import kernel_table, plan_table, size_table, trace_table
from infrabook.calculators import calculators
from infrabook.cli import build_parser, main
from infrabook.dataflow import account, fully_fused
from infrabook.ffn_chain import activation_chain
from infrabook.fusion_search import rank_plans
from infrabook.online_softmax import Ln, trace
from infrabook.tables import Table

CLI_CALCULATORS = ("fusion", "attention", "softmax", "launches")


def _default_tables(name: str) -> tuple[Table, ...]:
    calc = calculators()[name]
    values, errors = calc.parse({})
    assert not errors
    return calc.compute(values).tables


class _Cells(HTMLParser):
    """Every table row of an HTML fragment as the text of its cells."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _markdown_rows(markdown: str) -> list[list[str]]:
    rows = [line for line in markdown.splitlines() if line.startswith("| ")]
    # a cell's own | is escaped as \|; every other backslash escapes the character after it
    return [
        [re.sub(r"\\(.)", r"\1", c) for c in re.split(r" (?<!\\)\| ", line[2:-2])] for line in rows
    ]


@pytest.mark.parametrize("name", sorted(calculators()))
def test_one_result_renders_the_same_cells_three_ways(name):
    for table in _default_tables(name):
        expected = [list(table.columns), *table.cells()]
        parser = _Cells()
        parser.feed(table.html())
        assert parser.rows == expected
        assert _markdown_rows(table.markdown()) == expected
        lines = table.text().splitlines()
        # the terminal's columns are padded with spaces: compare the words, line by line
        for line, row in zip(lines, expected, strict=False):
            assert line.split() == " ".join(row).split()
        assert html.escape(table.note) in table.html() and table.note in table.text()


def test_the_layer_imports_no_numpy_and_no_matplotlib():
    """Pyodide loads the layer as it is: with numpy and matplotlib blocked, every calculator
    and the live entry point still answer on their defaults."""
    code = (
        "import sys; sys.modules['numpy'] = None; sys.modules['matplotlib'] = None\n"
        "from infrabook import calculators, live\n"
        "for name, calc in calculators.calculators().items():\n"
        "    assert calc.compute(calc.parse({})[0]).tables, name\n"
        "    assert live.run(name, {})['ok'], name\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def _subcommand(name: str) -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[name]


@pytest.mark.parametrize("name", CLI_CALCULATORS)
def test_cli_options_are_the_calculators_fields(name):
    calc = calculators()[name]
    actions = [a for a in _subcommand(name)._actions if a.option_strings and a.dest != "help"]
    assert {a.option_strings[0] for a in actions} == {f.option for f in calc.fields} | {"--json"}
    args = _subcommand(name).parse_args([])
    assert {f.name: getattr(args, f.name) for f in calc.fields} == calc.parse({})[0]


def test_cli_prints_the_tables_and_the_json_of_one_result(capsys):
    assert main(["fusion", "--quant-dtype", "int8"]) == 0
    shown = capsys.readouterr().out
    assert main(["fusion", "--quant-dtype", "int8", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    plans, kernels = (
        calculators()["fusion"]
        .compute(calculators()["fusion"].parse({"quant_dtype": "int8"})[0])
        .tables
    )
    assert shown == f"{plans.text()}\n\n{kernels.text()}\n"
    # the JSON's bytes are the table's MiB: 60, 108, 108, 156 in the article's section 2.1
    assert [d["traffic_bytes"] / 2**20 for d in data] == [60, 108, 108, 156]
    assert [row[2] for row in plans.cells()] == ["60", "108", "108", "156"]


def test_plan_and_kernel_tables_are_the_accounting():
    three = activation_chain(1024, 12288, "bf16", "int8")
    cells = plan_table(rank_plans(three)).cells()
    assert [r[2] for r in cells] == ["60", "108", "108", "156"]
    assert [r[3] for r in cells] == ["60", "72", "72", "72"]
    two = activation_chain(1024, 12288, "bf16")
    fused = kernel_table([("", account(two, fully_fused(two)))]).cells()
    assert fused == [["SiLU + 乘法", "G, U", "Z", "48", "24", "72"]]


def test_size_and_trace_tables():
    sizes = size_table(attention_sizes(8192, 128, "bf16", "fp32")).cells()
    assert [r[3] for r in sizes] == ["2", "256", "256"]
    exact = trace_table(trace([Ln(1), Ln(2)], [Fraction(1), Fraction(3)]))
    assert exact.cells()[-1][-1] == "1/2" and exact.note.endswith("7/3")
    floats = trace_table(trace([0.0, 1.0], [1.0, 2.0], block=2))
    assert len(floats.rows) == 1 and floats.cells()[0][3] == "1.36788"  # 1 + e^-1


def test_a_field_reads_the_same_for_cli_and_page_within_bounds():
    f = Field("scores", "floats", "0", -1e6, 1e6)
    assert f.unbounded.parse("1, 2.5") == f.parse("1, 2.5") == [1.0, 2.5]
    # the CLI is not bounded by what a browser can answer quickly; the page is
    assert f.unbounded.parse("2e6") == [2e6]
    with pytest.raises(ValueError, match="2e6"):
        f.parse("2e6")
    # a count's lower bound of 1 is no browser's limit: the CLI keeps it
    runs = Field("runs", "int", "3", 1, 1000)
    assert runs.unbounded.parse("5000") == 5000
    with pytest.raises(FieldError, match="-1"):
        runs.unbounded.parse("-1")


def test_a_json_caller_may_send_numbers_and_gets_field_errors_for_the_rest():
    calc = calculators()["fusion"]
    values, errors = calc.parse({"rows": 64, "cols": [1, 2]})
    assert values["rows"] == 64
    assert [e.field for e in errors] == ["cols"] and "[1, 2]" in str(errors[0])
