"""Records named by machine, side by side, compared in the terminal, and holding nothing
private (#30)."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from infrabook.bench import run
from infrabook.bench.measure import host
from infrabook.bench.records import compare, report, store, validate
from infrabook.bench.records.results import RESULTS
from infrabook.bench.records.store import RecordError
from infrabook.labels import text
from infrabook.tables import markdown_text

COMMITTED = Path(__file__).parents[2] / "docs" / "_data" / "bench"
BOOK = "cpu-amd-epyc-2c-c8153f"


def _book(bench_dir: Path) -> Path:
    """The book's reference record alone (not whatever other machines' records are
    committed beside it), copied where the test's records are read."""
    bench_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy(COMMITTED / f"{BOOK}.json", bench_dir)
    return bench_dir


def _other_machine(bench_dir: Path, name: str = "cpu-other-4c-abcdef", scale: float = 1.1) -> Path:
    """The book's record as if measured on another machine: every time ``scale`` times
    longer in the fused paths, so its speed-ups differ by a known amount."""
    data = json.loads((COMMITTED / f"{BOOK}.json").read_text(encoding="utf-8"))
    data["device"] = name
    paths = data["experiments"]["fusion"]["results"]["paths"]
    for path in ("compile", "numexpr"):
        timing = paths[path]["timing"]
        for key in ("median_s", "p20_s", "p80_s"):
            timing[key] *= scale
        timing["samples_s"] = [s * scale for s in timing.get("samples_s", [])]
    out = bench_dir / f"{name}.json"
    out.write_text(json.dumps(data), encoding="utf-8")
    return out


def test_a_machine_name_comes_from_non_private_facts_and_is_stable():
    info = host.cpu_info()
    name = store.machine_name(info)
    same = dataclasses.replace(info, mhz=1.0, os="Other-1.0")  # clock, OS: the same machine
    assert name == store.machine_name(same)
    more = dataclasses.replace(info, mem_bytes=(info.mem_bytes or 0) + 2**30)
    assert name != store.machine_name(more)
    assert re.fullmatch(r"cpu(-[a-z0-9]+)+-[0-9a-f]{6}", name)
    assert validate.RECORD_NAME.fullmatch(name) and store.kind_of(name) == "cpu"
    assert store.machine_name(info, "Lab box 2") == f"{name}-lab-box-2"
    for private in validate.private_names():
        assert private not in name


def test_the_committed_record_is_named_after_its_machine():
    rec = store.read(COMMITTED / f"{BOOK}.json")
    devices = {e.provenance.device for e in rec.experiments.values()}
    assert len(devices) == 1
    assert store.machine_name(devices.pop()) == BOOK == rec.device


@pytest.mark.parametrize(
    ("where", "value", "why"),
    [
        (("experiments", "shapes", "params", "compile_error"),
         "InvalidCxxCompiler: /home/ada/.cache/torch_extensions/x.so",
         r"params.compile_error holds the path or address '/home/ada/"),
        (("experiments", "gpu_flash", "reason"), r"failed: C:\Users\ada\x.py",
         r"gpu_flash.reason holds the path or address 'C:\\\\'"),
        (("experiments", "gpu_flash", "reason"), "failed: see ~/logs/x",
         r"gpu_flash.reason holds the path or address '~/'"),
        (("experiments", "fusion", "params", "hostname"), "box",
         r"fusion.params has the key 'hostname'"),
        (("experiments", "fusion", "provenance", "versions", "user"), "1.0",
         r"provenance.versions has the key 'user'"),
    ],
    ids=["unix-path", "windows-path", "home", "hostname-key", "user-key"],
)  # fmt: skip
def test_a_record_holding_something_private_is_refused_in_one_line(bench_dir, where, value, why):
    data = json.loads((COMMITTED / f"{BOOK}.json").read_text(encoding="utf-8"))
    node = data
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    bench_dir.mkdir()
    path = bench_dir / f"{BOOK}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RecordError, match=why) as err:
        store.read(path)
    assert "\n" not in str(err.value) and str(path) in str(err.value)


def test_this_machines_host_and_user_names_are_never_written(bench_dir, monkeypatch):
    monkeypatch.setattr(validate, "private_names", lambda: frozenset({"ada-laptop"}))
    entry = report.load(BOOK, folder=COMMITTED).experiments["launches"]
    leaky = dataclasses.replace(entry, reason="ran on ada-laptop")
    with pytest.raises(RecordError, match=r"launches.reason holds this machine's host or user"):
        store.merge("cpu-x-1c-000000", leaky)
    assert not (bench_dir / "cpu-x-1c-000000.json").exists()
    store.merge("cpu-x-1c-000000", dataclasses.replace(entry, reason="ran on a laptop"))


def test_the_committed_records_hold_no_path_nor_this_machines_names():
    for path in COMMITTED.glob("*.json"):
        validate.check(json.loads(path.read_text(encoding="utf-8")), RESULTS)  # raises on a leak
        assert not validate.PATH.search(path.read_text(encoding="utf-8"))


def test_the_reference_record_is_the_one_conf_names_and_comes_first(bench_dir):
    _book(bench_dir)
    _other_machine(bench_dir, "cpu-aaa-1c-000000")
    assert report.reference("cpu") == BOOK
    assert list(report.records()) == [BOOK, "cpu-aaa-1c-000000"]
    assert report.entry("fusion").provenance.device.name == "AMD EPYC"
    (bench_dir / f"{BOOK}.json").unlink()  # a build with other records only
    assert report.reference("cpu") == "cpu-aaa-1c-000000"


def test_two_machines_side_by_side_with_the_model_first(bench_dir):
    _book(bench_dir)
    _other_machine(bench_dir)
    shown = report.side_by_side("fusion")
    (table,) = shown.tables
    assert table.columns == (
        text("bench.col.quantity"),
        text("bench.col.model"),
        BOOK,
        "cpu-other-4c-abcdef",
    )
    rows = {row[0]: row[1:] for row in table.rows}
    model, book, other = rows[text("bench.cmp.speedup", what=f"{_size()} compile")]
    assert model == pytest.approx(5 / 3) and other == pytest.approx(book / 1.1)
    assert len(shown.notes) == 2 and text("bench.cmp.is_reference") in shown.notes[0]
    page = shown._repr_markdown_()
    assert markdown_text("cpu-other-4c-abcdef") in page and "AMD EPYC" in page
    svg = io.StringIO()
    report.machines_figure("fusion").savefig(svg, format="svg")
    assert "cpu-other-4c-abcdef" in svg.getvalue() and BOOK in svg.getvalue()


def test_a_chapter_says_how_many_other_machines_agree_and_within_what(bench_dir):
    _book(bench_dir)
    assert report.show("fusion").notes == (text("bench.cmp.alone"),)
    _other_machine(bench_dir, scale=1.1)
    others, worst = compare.spread("fusion", BOOK, report.records())
    # the fused paths' speed-ups fall by 1/1.1 and their bandwidths too: 9.1 % off
    assert others == 1 and worst == pytest.approx(100 * (1 - 1 / 1.1))
    assert report.show("fusion").notes == (text("bench.cmp.agree", n=1, spread="9"),)
    # launch counts do not scale: the same on both, said as such, never "within 0%"
    assert report.show("launches").notes == (text("bench.cmp.identical", n=1),)
    _other_machine(bench_dir, scale=1.002)  # 0.2 % off: two figures, not "within 0%"
    assert report.show("fusion").notes == (text("bench.cmp.agree", n=1, spread="0.2"),)
    _other_machine(bench_dir, scale=1.1)
    quick = json.loads((bench_dir / "cpu-other-4c-abcdef.json").read_text(encoding="utf-8"))
    for entry in quick["experiments"].values():
        entry["provenance"]["quick"] = True  # other sizes: shown beside, not compared
    (bench_dir / "cpu-other-4c-abcdef.json").write_text(json.dumps(quick), encoding="utf-8")
    assert report.show("fusion").notes == (text("bench.cmp.alone"),)
    assert len(report.side_by_side("fusion").tables[0].columns) == 4


def test_compare_prints_the_readers_machine_beside_the_books(bench_dir, capsys):
    _book(bench_dir)
    mine = _other_machine(bench_dir.parent, "cpu-mine-8c-123456")
    assert run.main(["compare", str(mine)]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith(text("bench.col.quantity")))
    assert text("bench.cmp.yours", name="cpu-mine-8c-123456") in header and BOOK in header
    assert text("bench.col.model") in header
    assert text("bench.cmp.speedup", what=f"{_size()} compile") in out


def test_compare_marks_only_the_books_reference_and_the_readers_record_wins_a_name(
    bench_dir, tmp_path, capsys
):
    book = tmp_path / "empty-book"
    book.mkdir()
    mine = _other_machine(tmp_path, "cpu-mine-8c-123456")
    assert run.main(["compare", str(mine), "--book", str(book)]) == 0
    assert text("bench.cmp.is_reference") not in capsys.readouterr().out
    _book(bench_dir)
    same = tmp_path / "mine" / f"{BOOK}.json"  # the book's machine, measured again
    same.parent.mkdir()
    _other_machine(same.parent, BOOK, scale=10.0)
    assert run.main(["compare", str(same)]) == 0
    out = capsys.readouterr().out
    speedup = next(line for line in out.splitlines() if f"{_size()} compile" in line)
    book_value = report.results("fusion", BOOK).speedup("compile")
    # one column, the reader's, with the reader's numbers: ten times slower than the book's
    assert text("bench.cmp.yours", name=BOOK) in out and text("bench.cmp.is_reference") not in out
    assert speedup.split()[-1] == f"{book_value / 10:.3g}"


def _size() -> str:
    """The book's fusion record's problem size, as the rows it compares name it."""
    params = report.entry("fusion", BOOK).params
    return f"[{params['rows']}, {params['cols']}]"


def test_records_at_other_sizes_get_rows_of_their_own(bench_dir):
    _book(bench_dir)
    path = _other_machine(bench_dir)
    other = json.loads(path.read_text(encoding="utf-8"))
    other["experiments"]["fusion"]["params"]["rows"] //= 4  # as a quick run's
    path.write_text(json.dumps(other), encoding="utf-8")
    (table,) = report.side_by_side("fusion").tables
    compile_rows = [row for row in table.rows if " compile" in row[0]]
    # one row per size, each with one machine's value and None for the other
    assert len(compile_rows) == 4
    assert all((row[2] is None) != (row[3] is None) for row in compile_rows)
    assert report.show("fusion").notes == (text("bench.cmp.alone"),)


def test_compare_in_english_when_the_build_is(bench_dir, capsys, monkeypatch):
    monkeypatch.setenv("INFRABOOK_LANG", "en")
    _book(bench_dir)
    assert run.main(["compare", str(bench_dir / f"{BOOK}.json")]) == 0
    out = capsys.readouterr().out
    assert "Book's model" in out and not re.search(r"[\u4e00-\u9fff]", out)


_FOLDER = object()  # a folder where the record file should be


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (None, None),  # no file: the command line says so before reading anything
        (_FOLDER, None),
        ("{", "not valid JSON"),
        ("[]", "not a JSON object"),
    ],
)
def test_compare_refuses_a_file_that_is_no_record_in_one_line(
    bench_dir, tmp_path, capsys, content, why
):
    path = tmp_path / "cpu-bad-1c-000000.json"
    if content is _FOLDER:
        path.mkdir()
    elif content is not None:
        path.write_text(content)
    with pytest.raises(SystemExit) as exc:
        raise SystemExit(run.main(["compare", str(path)]))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err
    assert (why or text("bench.cli.error.not_file", path=path)) in err


def test_a_record_path_that_is_no_file_is_refused_without_reading_it(tmp_path):
    os.mkfifo(tmp_path / "pipe.json")  # reading a pipe would wait for a writer for ever
    (tmp_path / "folder.json").mkdir()
    for name in ("pipe.json", "folder.json"):
        with pytest.raises(RecordError, match="is not a file: expected a record file"):
            store.read(tmp_path / name)


def test_the_suite_writes_under_the_machine_name_and_a_label_names_another(
    bench_dir, monkeypatch, capsys
):
    _book(bench_dir)
    monkeypatch.setattr(store, "machine_name", lambda info, label=None: "-".join(
        ["cpu-here-2c-000000", *([label] if label else [])]))  # fmt: skip
    assert run.main(["--quick", "--only", "launches", "--compare"]) == 0
    first = store.read(bench_dir / "cpu-here-2c-000000.json")
    assert list(first.experiments) == ["launches"]
    out = capsys.readouterr().out
    assert text("bench.cmp.yours", name="cpu-here-2c-000000") in out and BOOK in out
    assert run.main(["--quick", "--only", "launches", "--machine", "desk"]) == 0
    assert (bench_dir / "cpu-here-2c-000000-desk.json").is_file()
    assert run.main(["--quick", "--only", "launches"]) == 0  # a re-run replaces its record
    assert sorted(p.name for p in bench_dir.glob("cpu-here*")) == [
        "cpu-here-2c-000000-desk.json",
        "cpu-here-2c-000000.json",
    ]


def test_the_suites_help_and_errors_follow_the_build_language(capsys, monkeypatch):
    monkeypatch.setenv("INFRABOOK_LANG", "zh")
    for argv in (["--help"], ["compare", "--help"]):
        with pytest.raises(SystemExit):
            run.main(argv)
        help_ = capsys.readouterr().out
        assert help_.startswith("用法：python -m infrabook.bench") and "选项：" in help_
        assert "show this" not in help_ and "options" not in help_
    with pytest.raises(SystemExit):
        run.main(["--machine", "!!"])
    assert text("bench.cli.error.machine", raw="'!!'") in capsys.readouterr().err
    monkeypatch.setenv("INFRABOOK_LANG", "en")
    with pytest.raises(SystemExit):
        run.main(["--help"])
    assert text("bench.cli.machine", lang="en")[:30] in " ".join(capsys.readouterr().out.split())
