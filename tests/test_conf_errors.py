"""A typo in conf/*.toml fails with one message naming the file, the key and what was
expected: from the loader, from the CLI (exit 2, one line) and from the docs build."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from infrabook import conf_plain, config
from infrabook.cli import main
from infrabook.conf_convert import CONVERTER
from infrabook.conf_convert import structure as CONVERTER_STRUCTURE

ROOT = Path(__file__).resolve().parents[1]

# (file, text to replace, replacement, key named, what the message says was expected)
MUTATIONS = [
    (
        "scenarios.toml",
        "seq_len = 8192\n",
        "",
        "attention.seq_len",
        "expected a positive integer, got nothing (the key is missing)",
    ),
    (
        "scenarios.toml",
        "rows = 1024",
        'rows = "1024"',
        "ffn_chain.rows",
        "expected a positive integer, got '1024'",
    ),
    (
        "scenarios.toml",
        "head_dim = 128",
        "head_dim = -128",
        "attention.head_dim",
        "expected a positive integer, got -128",
    ),
    (
        "scenarios.toml",
        'score_dtype = "fp32"',
        'score_dtype = "fp23"',
        "attention.score_dtype",
        "expected one of 'fp32', 'fp16', 'bf16', got 'fp23'",
    ),
    (
        "scenarios.toml",
        "block_q = 128",
        "block_q = 128.0",
        "attention.block_q",
        "expected a positive integer, got 128.0",
    ),
    (
        "scenarios.toml",
        "rows = 1024",
        "rows = true",
        "ffn_chain.rows",
        "expected a positive integer, got True",
    ),
    (
        "scenarios.toml",
        "mfu = 0.20",
        "mfu = 20",
        "bucketing.strategies[0].mfu",
        "expected a number in (0, 1], got 20",
    ),
    (
        "scenarios.toml",
        "prep_ms = 400.0",
        "prep_ms = -400.0",
        "bucketing.strategies[1].prep_ms",
        "expected a finite number >= 0, got -400.0",
    ),
    (
        "scenarios.toml",
        "peak_tflops = 503.8",
        "peak_tflops = nan",
        "bucketing.peak_tflops",
        "expected a finite number > 0, got nan",
    ),
    (
        "scenarios.toml",
        "buckets = [512, 2048]",
        "buckets = [512, 1024]",
        "bucketing.buckets",
        "expected a bucket that holds the largest call (2048 rows), got [512, 1024]",
    ),
    (
        "scenarios.toml",
        "buckets = [512, 2048]",
        "buckets = []",
        "bucketing.buckets",
        "expected a non-empty array of a positive integer, got []",
    ),
    (
        "scenarios.toml",
        "calls = [[256, 8]",
        "calls = [[256, 0]",
        "bucketing.calls[0]",
        "expected a [rows, count] pair of positive integers, got [256, 0]",
    ),
    (
        "scenarios.toml",
        "values = [1, 3]",
        "values = [1, 3, 5]",
        "online_softmax.values",
        "expected as many entries as score_exps (2), got 3",
    ),
    (
        "scenarios.toml",
        "fused_kernels_per_run = 5",
        "fused_kernels_per_run = 7",
        "graph_replay.fused_kernels_per_run",
        "expected at most kernels_per_run (6), got 7",
    ),
    (
        "scenarios.toml",
        'peak_device = "rtx_pro_6000"',
        'peak_device = "rtx_pro_600"',
        "bucketing.peak_device",
        "expected a device of hardware.toml (a100_80gb, ",
    ),
    (
        "hardware.toml",
        "dram_tb_s = { value = 4.8,",
        'dram_tb_s = { value = "4.8",',
        "devices.h200.dram_tb_s.value",
        "expected a finite number > 0, got '4.8'",
    ),
    (
        "hardware.toml",
        'sm_count = { value = 108, source = "NVIDIA A100 Tensor Core GPU '
        'architecture whitepaper" }',
        "sm_count = { value = 108 }",
        "devices.a100_80gb.sm_count.source",
        "expected a non-empty string, got nothing (the key is missing)",
    ),
    (
        "claims.toml",
        'stated = "24"',
        "stated = 24",
        "claim[0].stated",
        'expected a number or fraction written as a string, e.g. "24" or "7/3", got 24',
    ),
    (
        "claims.toml",
        'id = "fusion.silu_kernel_mib"',
        'id = "fusion.tensor_mib"',
        "claim[].id",
        "expected distinct entries, got 'fusion.tensor_mib' twice",
    ),
    (
        "bench_targets.toml",
        'comparison = ">="',
        'comparison = "=>"',
        "target[0].comparison",
        "expected one of '>=', '<=', got '=>'",
    ),
    (
        "bench_targets.toml",
        "update_ms = 50",
        "update_ms = 0.05",
        "live.update_ms",
        "expected a positive integer, got 0.05",
    ),
    # a string where an array belongs (cattrs alone would read it as ('H', '2', '0', '0'))
    (
        "hardware.toml",
        'cuda_names = ["H200"]',
        'cuda_names = "H200"',
        "devices.h200.cuda_names",
        "expected a non-empty array of a non-empty string, got 'H200'",
    ),
    (
        "scenarios.toml",
        "values = [1, 3]",
        'values = "1, 3"',
        "online_softmax.values",
        "expected a non-empty array of a finite number, got '1, 3'",
    ),
    (
        "scenarios.toml",
        "kernel_us = [4.0, 4.0, 1.5, 1.5, 4.0, 1.5]",
        "kernel_us = 4.0",
        "timeline.kernel_us",
        "expected a non-empty array of a finite number > 0, got 4.0",
    ),
    (
        "hardware.toml",
        'fp32_tflops = { value = 67.0, source = "NVIDIA H200 datasheet (FP32, non-tensor, SXM)" }',
        "",
        "devices.h200.fp32_tflops",
        "expected a table with keys source, value, got nothing (the key is missing)",
    ),
    (
        "scenarios.toml",
        "kernel_us = [4.0, 4.0, 1.5, 1.5, 4.0, 1.5]",
        "kernel_us = [4.0, 4.0, 1.5, 1.5, 4.0]",
        "timeline.kernel_us",
        "expected one duration per kernel of graph_replay.kernels_per_run (6), got 5 durations",
    ),
    # a key no class declares (a misspelt optional key would otherwise be ignored)
    (
        "claims.toml",
        'unit = "MiB"',
        'unit = "MiB"\nunit_en = "MiB"',
        "claim[0]",
        "expected only the keys id, section, text, stated, unit, got also unit_en",
    ),
    # Ordinary edits that crashed every subcommand or calc and audit with a traceback (#41 M4)
    (
        "scenarios.toml",
        "article_rate_tflops = 100.0",
        "article_rate_tflops = 101.0",
        "bucketing.strategies[1].article_rate_tflops",
        "expected a rate that over its mfu gives the peak bucketing.strategies[0] gives "
        "(505 TFLOP/s), got 200.0 (over mfu 0.4: 500 TFLOP/s)",
    ),
    (
        "scenarios.toml",
        "article_rate_tflops = 100.0",
        "article_rate_tflops = 1e308",
        "bucketing.strategies[0].article_rate_tflops",
        "expected a rate at which a group of calls takes a finite, non-zero time, got 1e+308",
    ),
    (
        "scenarios.toml",
        "article_rate_tflops = 100.0",
        "article_rate_tflops = 5e-324",
        "bucketing.strategies[0].article_rate_tflops",
        "expected a rate at which a group of calls takes a finite, non-zero time, got 5e-324",
    ),
    (
        "scenarios.toml",
        "mfu = 0.20",
        "mfu = 5e-324",
        "bucketing.strategies[0].mfu",
        "expected an mfu whose product with bucketing.peak_tflops (503.8) is a rate at which a "
        "group of calls takes a finite, non-zero time, got 5e-324",
    ),
    (
        "scenarios.toml",
        "peak_tflops = 503.8",
        "peak_tflops = 1e308",
        "bucketing.strategies[0].mfu",
        "expected an mfu whose product with bucketing.peak_tflops (1e+308) is a rate at which a "
        "group of calls takes a finite, non-zero time, got 0.2",
    ),
    (
        "scenarios.toml",
        "block = 1\n",
        "block = 2\n",
        "online_softmax.block",
        "expected a block that splits score_exps into two blocks or more (at most 1: the "
        "example shows the running sums after each block), got 2",
    ),
    (
        "scenarios.toml",
        'name = "generic"',
        'name = "zgeneric"',
        "bucketing.strategies[].name",
        "expected each of generic, bucketed, specialised once (the article's example compares "
        "them all), got ['zgeneric', 'bucketed', 'specialised']",
    ),
    (
        "bench_targets.toml",
        'experiment = "fusion"',
        'experiment = "fusoin"',
        "target[0].experiment",
        "expected one of 'fusion', 'attention_memory', ",
    ),
]


def _mutated_conf(tmp_path: Path, file: str, old: str, new: str) -> Path:
    conf = tmp_path / "conf"
    shutil.copytree(ROOT / "conf", conf)
    text = (conf / file).read_text(encoding="utf-8")
    assert old in text, f"the mutation's anchor {old!r} is no longer in conf/{file}"
    (conf / file).write_text(text.replace(old, new, 1), encoding="utf-8")
    return conf


@pytest.mark.parametrize(
    ("file", "old", "new", "key", "expected"), MUTATIONS, ids=[f"{m[0]}:{m[3]}" for m in MUTATIONS]
)
def test_each_typo_gives_one_message(tmp_path, monkeypatch, capsys, file, old, new, key, expected):
    conf = _mutated_conf(tmp_path, file, old, new)
    monkeypatch.setenv("INFRABOOK_CONF", str(conf))
    message = f"{conf / file}: {key}: {expected}"
    with pytest.raises(config.ConfError, match=re.escape(message)) as err:
        config.check_all()
    assert "\n" not in str(err.value)
    assert main(["launches"]) == 2
    cli = capsys.readouterr()
    assert not cli.out and cli.err.count("\n") == 1 and message in cli.err


def test_toml_syntax_error_names_file_and_line(tmp_path, monkeypatch):
    conf = _mutated_conf(tmp_path, "scenarios.toml", "[attention]", "[attention")
    monkeypatch.setenv("INFRABOOK_CONF", str(conf))
    with pytest.raises(
        config.ConfError,
        match=re.escape(f"{conf / 'scenarios.toml'}: expected valid TOML: ") + r".*line \d+",
    ):
        config.scenarios()


def test_the_unmutated_copy_is_accepted(tmp_path, monkeypatch):
    monkeypatch.setenv("INFRABOOK_CONF", str(_mutated_conf(tmp_path, "claims.toml", "", "")))
    config.check_all()


# One real process per kind of typo: missing key, wrong type, negative size, unknown dtype,
# broken TOML, a bad hardware figure, a bad claim.
CLI_KINDS = [
    MUTATIONS[0],
    MUTATIONS[1],
    MUTATIONS[2],
    MUTATIONS[3],
    MUTATIONS[15],
    MUTATIONS[17],
    MUTATIONS[21],
    MUTATIONS[24],
    ("scenarios.toml", "[attention]", "[attention", "", ""),
]


@pytest.mark.parametrize(
    ("file", "old", "new", "key", "expected"),
    CLI_KINDS,
    ids=[f"{m[0]}:{m[3] or 'syntax'}" for m in CLI_KINDS],
)
def test_cli_process_exits_2_with_one_line(tmp_path, file, old, new, key, expected):
    conf = _mutated_conf(tmp_path, file, old, new)
    env = os.environ | {"INFRABOOK_CONF": str(conf)}
    proc = subprocess.run(
        [sys.executable, "-m", "infrabook", "calc"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 2 and not proc.stdout
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert f"{conf / file}: {key}" in proc.stderr and expected in proc.stderr


def test_docs_build_stops_at_startup_with_the_message(tmp_path):
    pytest.importorskip("sphinx", reason="the docs extra is not installed in this session")
    conf = _mutated_conf(tmp_path, "scenarios.toml", "head_dim = 128", "head_dim = -128")
    env = os.environ | {"INFRABOOK_CONF": str(conf)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-q",
            "-b",
            "html",
            str(ROOT / "docs"),
            str(tmp_path / "html"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr == (
        f"infrabook: error: {conf / 'scenarios.toml'}: attention.head_dim: "
        "expected a positive integer, got -128\n"
    )
    assert not (tmp_path / "html" / "index.html").exists()


def _declared(cls: Any, data: Any, where: str, kind: str) -> Iterator[tuple[str, str, list, bool]]:
    """Every key class ``cls`` declares that ``data`` (parsed TOML) holds, in every entry of
    arrays of tables and of named tables: its dotted name, the same with entries unnamed
    (``claim[].id``, ``devices.*.name``), the path to it in ``data``, whether it is required."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if not f.init or f.name not in data:
            continue  # set by the loader; or optional and absent here
        key, generic = (f"{where}.{f.name}", f"{kind}.{f.name}") if where else (f.name, f.name)
        yield key, generic, [f.name], f.default is dataclasses.MISSING
        hint, value = hints[f.name], data[f.name]
        args = typing.get_args(hint)
        if dataclasses.is_dataclass(hint):
            entries = [(key, generic, [], value)]
        elif typing.get_origin(hint) is tuple and dataclasses.is_dataclass(args[0]):
            hint = args[0]
            entries = [(f"{key}[{i}]", f"{generic}[]", [i], v) for i, v in enumerate(value)]
        elif typing.get_origin(hint) is dict:
            hint = args[1]
            entries = [(f"{key}.{n}", f"{generic}.*", [n], v) for n, v in value.items()]
        else:
            continue
        for name, name_kind, step, entry in entries:
            for k, g, p, r in _declared(hint, entry, name, name_kind):
                yield k, g, [f.name, *step, *p], r


def _removals() -> list[tuple[str, str, list, bool]]:
    """Each declared key of each file once, where it first occurs (one entry of an array of
    tables or of named tables stands for the others: they share one class)."""
    out, seen = [], set()
    for name, cls in config.FILES.items():
        data = tomllib.loads((ROOT / "conf" / name).read_text(encoding="utf-8"))
        for key, generic, path, required in _declared(cls, data, "", ""):
            if (name, generic) not in seen:
                seen.add((name, generic))
                out.append((name, key, path, required))
    return out


REMOVALS = _removals()


@pytest.mark.parametrize(
    ("file", "key", "path", "required"), REMOVALS, ids=[f"{r[0]}:{r[1]}" for r in REMOVALS]
)
def test_each_declared_key_removed(tmp_path, monkeypatch, file, key, path, required):
    """Remove one declared key from a copy of conf/: a required one is refused in one line
    naming the file and the key; an optional one is accepted."""
    conf = tmp_path / "conf"
    shutil.copytree(ROOT / "conf", conf)
    data = tomllib.loads((conf / file).read_text(encoding="utf-8"))
    parent = data
    for step in path[:-1]:
        parent = parent[step]
    del parent[path[-1]]
    (conf / file).write_text(tomli_w.dumps(data), encoding="utf-8")
    monkeypatch.setenv("INFRABOOK_CONF", str(conf))
    if not required:
        config.check_all()
        return
    with pytest.raises(config.ConfError) as err:
        config.check_all()
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"{conf / file}: {key}: expected ")
    assert message.endswith(", got nothing (the key is missing)")


def test_every_file_and_table_is_reached():
    """The removal test covers every conf file and, in each, every top-level table."""
    assert {r[0] for r in REMOVALS} == set(config.FILES)
    assert {"timeline.overlap.chunks", "devices.a100_80gb.fp32_tflops.source"} <= {
        r[1] for r in REMOVALS
    }
    assert sum(r[3] for r in REMOVALS) >= 60


@pytest.mark.parametrize("file", list(config.FILES))
def test_json_round_trip(file):
    """The description that reads a file also writes it as JSON, and reads that back
    unchanged: JSON needs no second description."""
    typed = config._load(file, config.FILES[file], config.conf_dir())
    text = json.dumps(CONVERTER.unstructure(typed), allow_nan=False)
    assert CONVERTER.structure(json.loads(text), config.FILES[file]) == typed


def _both_readers(data: Any, cls: type, path: Path) -> tuple[str, str]:
    """What cattrs' reader and the standard library's (the browser's) make of ``data``."""
    said = []
    for structure in (CONVERTER_STRUCTURE, conf_plain.structure):
        try:
            said.append(repr(structure(data, cls, path)))
        except config.ConfError as err:
            said.append(str(err))
    return said[0], said[1]


@pytest.mark.parametrize("file", list(config.FILES))
def test_the_browsers_reader_reads_the_book_alike(file):
    path = ROOT / "conf" / file
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    cattrs_made, plain_made = _both_readers(data, config.FILES[file], path)
    assert plain_made == cattrs_made and "Error" not in plain_made


@pytest.mark.parametrize(
    ("file", "old", "new", "key", "expected"), MUTATIONS, ids=[f"{m[0]}:{m[3]}" for m in MUTATIONS]
)
def test_the_browsers_reader_refuses_each_typo_alike(tmp_path, file, old, new, key, expected):
    """Each typo, structured by both readers: the same typed value or the same one line."""
    path = _mutated_conf(tmp_path, file, old, new) / file
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    cattrs_said, plain_said = _both_readers(data, config.FILES[file], path)
    assert plain_said == cattrs_said


@pytest.mark.parametrize(
    ("file", "key", "path", "required"), REMOVALS, ids=[f"{r[0]}:{r[1]}" for r in REMOVALS]
)
def test_the_browsers_reader_misses_each_key_alike(file, key, path, required):
    data = tomllib.loads((ROOT / "conf" / file).read_text(encoding="utf-8"))
    parent = data
    for step in path[:-1]:
        parent = parent[step]
    del parent[path[-1]]
    cattrs_said, plain_said = _both_readers(data, config.FILES[file], Path(file))
    assert plain_said == cattrs_said
    assert required == plain_said.startswith(f"{file}: {key}: expected ")


def test_a_strategy_deleted_is_refused(tmp_path, monkeypatch):
    """Deleting one of example 5-12's strategies crashed calc and audit (an IndexError)."""
    conf = _mutated_conf(tmp_path, "scenarios.toml", "", "")
    data = tomllib.loads((conf / "scenarios.toml").read_text(encoding="utf-8"))
    del data["bucketing"]["strategies"][2]
    (conf / "scenarios.toml").write_text(tomli_w.dumps(data), encoding="utf-8")
    monkeypatch.setenv("INFRABOOK_CONF", str(conf))
    with pytest.raises(config.ConfError, match=re.escape(
        f"{conf / 'scenarios.toml'}: bucketing.strategies[].name: expected each of generic, "
        "bucketed, specialised once"
    )):  # fmt: skip
        config.check_all()


@pytest.mark.timeout(120)
def test_a_claim_without_recomputation_names_file_and_key(tmp_path):
    """A claim id the audit does not recompute gave a message naming neither file nor key."""
    conf = _mutated_conf(tmp_path, "claims.toml", 'id = "fusion.tensor_mib"', 'id = "x"')
    env = os.environ | {"INFRABOOK_CONF": str(conf)}
    proc = subprocess.run(
        [sys.executable, "-m", "infrabook", "audit"],
        capture_output=True,
        text=True,
        env=env,
        timeout=100,
    )
    assert proc.returncode == 2 and not proc.stdout and proc.stderr.count("\n") == 1
    assert f"{conf / 'claims.toml'}: claim[0].id: expected the id of a claim " in proc.stderr


def test_the_experiment_names_are_the_suites():
    """bench_targets.toml's experiments are checked against a list kept in config (reading
    conf imports no torch); it is the suite's."""
    from infrabook.bench.experiments.suite import EXPERIMENTS

    assert typing.get_args(config.ExperimentName) == tuple(EXPERIMENTS)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("value", ["0.999999", "1e300", "1e-300", "2"])
@pytest.mark.parametrize(
    "key", ["peak_tflops = 503.8", "article_rate_tflops = 250.0", "mfu = 0.50", "prep_ms = 900.0"]
)
def test_an_edited_bucketing_figure_never_crashes_a_command(tmp_path, key, value):
    """Every command either answers or refuses the edited file in one line naming it (the
    review edited one rate and every subcommand crashed)."""
    conf = _mutated_conf(tmp_path, "scenarios.toml", key, f"{key.split(' =')[0]} = {value}")
    env = os.environ | {"INFRABOOK_CONF": str(conf)}
    code = (
        "import sys\n"
        "from infrabook.cli import main\n"
        "for argv in (['calc'], ['audit'], ['fusion'], ['buckets'], ['buckets', '--rates', "
        "'peak'], ['crossover']):\n"
        "    try:\n"
        "        code = main(argv)\n"
        "    except SystemExit as exc:\n"
        "        code = exc.code\n"
        "    print(code, file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=250
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    for line in proc.stderr.splitlines():
        assert line in ("0", "2") or f"{conf / 'scenarios.toml'}: " in line, line
