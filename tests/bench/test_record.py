"""Record schema, atomic writes, and what an interrupted run leaves behind."""

from __future__ import annotations

import json
import os

import pytest

from infrabook.bench import cpu, record, run


def fake_entry(name: str = "launches", marker: float = 1.0) -> dict:
    return record.entry(
        name, f"{name} title", device=record.cpu_info(), quick=True,
        method={"summary": "test"}, params={}, results={"marker": marker},
        values={"marker": marker},
        tables=[record.table("t", ["a", "b"], [[1, marker]])],
        targets=[record.target("t1", "a target", marker, 1.0, ">=")],
        duration_s=0.0,
    )


def test_merge_writes_a_record_with_the_schema(bench_dir):
    path = record.merge("cpu", fake_entry())
    assert path == bench_dir / "cpu.json"
    data = json.loads(path.read_text())
    assert data["schema"] == record.SCHEMA and data["device"] == "cpu"
    e = data["experiments"]["launches"]
    for key in ("name", "title", "status", "reason", "provenance", "method", "params",
                "results", "values", "tables", "targets", "duration_s"):
        assert key in e
    prov = e["provenance"]
    assert {"device", "versions", "git", "date", "quick", "host_load"} <= set(prov)
    assert prov["date"].endswith("Z")
    assert {"torch", "triton", "numpy"} <= set(prov["versions"])
    assert {"commit", "dirty"} <= set(prov["git"])
    assert prov["device"]["kind"] == "cpu" and prov["device"]["usable_cores"] >= 1
    assert e["targets"][0]["met"] is True


def test_merge_keeps_other_experiments_and_orders_them(bench_dir):
    record.merge("cpu", fake_entry("shapes", 2.0))
    record.merge("cpu", fake_entry("fusion", 3.0))
    record.merge("cpu", fake_entry("shapes", 4.0))
    data = record.read(bench_dir / "cpu.json")
    assert list(data["experiments"]) == ["fusion", "shapes"]
    assert data["experiments"]["shapes"]["values"]["marker"] == 4.0
    assert data["experiments"]["fusion"]["values"]["marker"] == 3.0


def test_record_file_is_readable_by_others(bench_dir):
    path = record.merge("cpu", fake_entry())
    assert path.stat().st_mode & 0o044 == 0o044


@pytest.mark.parametrize(
    ("bad", "needle"),
    [({"status": "great"}, "status must be ok, skipped or failed, got 'great'"),
     ({"name": "nope"}, "unknown experiment 'nope'"),
     ({"tables": [{"title": "", "columns": ["a"], "rows": [[1, 2]]}]}, "2 cells, expected 1")],
)
def test_check_entry_rejects_malformed_entries(bad, needle):
    entry = fake_entry() | bad
    with pytest.raises(ValueError, match=needle):
        record.check_entry(entry)


def test_failed_replace_leaves_the_earlier_file_intact(bench_dir, monkeypatch):
    path = record.merge("cpu", fake_entry("fusion", 1.0))
    before = path.read_bytes()

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        record.merge("cpu", fake_entry("fusion", 2.0))
    assert path.read_bytes() == before
    assert [p.name for p in bench_dir.iterdir()] == ["cpu.json"]  # no temp file left


def test_unserialisable_data_fails_before_touching_the_file(bench_dir):
    path = record.merge("cpu", fake_entry("fusion", 1.0))
    before = path.read_bytes()
    data = record.read(path)
    data["experiments"]["fusion"]["results"]["bad"] = object()
    with pytest.raises(TypeError, match="cannot store object as JSON"):
        record.write_atomic(path, data)
    assert path.read_bytes() == before
    assert [p.name for p in bench_dir.iterdir()] == ["cpu.json"]


def test_non_finite_numbers_are_stored_as_null(bench_dir):
    e = fake_entry()
    e["values"]["inf"] = float("inf")
    path = record.merge("cpu", e)
    assert record.read(path)["experiments"]["launches"]["values"]["inf"] is None


def test_interrupted_run_keeps_finished_and_earlier_experiments(bench_dir, monkeypatch):
    earlier = record.merge("cpu", fake_entry("shapes", 7.0)).read_text()
    assert "shapes" in earlier

    def interrupted(**kwargs):
        raise KeyboardInterrupt

    # The suite runs launches, then shapes; shapes is interrupted half-way.
    monkeypatch.setattr(cpu, "shapes", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run.main(["--only", "shapes", "launches", "--quick"])
    data = record.read(bench_dir / "cpu.json")
    assert data["experiments"]["shapes"]["values"]["marker"] == 7.0  # the earlier result
    assert data["experiments"]["launches"]["values"]["eager_dispatches"] == 18  # finished


def test_a_failing_experiment_is_reported_and_not_merged(bench_dir, monkeypatch, capsys):
    record.merge("cpu", fake_entry("launches", 5.0))

    def broken(**kwargs):
        raise RuntimeError("kaput")

    monkeypatch.setattr(cpu, "launches", broken)
    assert run.main(["--only", "launches"]) == 1
    assert "kaput" in capsys.readouterr().err
    data = record.read(bench_dir / "cpu.json")
    assert data["experiments"]["launches"]["values"]["marker"] == 5.0


def test_read_ignores_a_file_that_is_not_a_record(bench_dir):
    bench_dir.mkdir(parents=True)
    (bench_dir / "cpu.json").write_text("{not json")
    assert record.read(bench_dir / "cpu.json") is None
    (bench_dir / "cpu.json").write_text('{"schema": 99}')
    assert record.read(bench_dir / "cpu.json") is None


def test_record_path_wants_a_slug():
    with pytest.raises(ValueError, match=r"device must be a slug .* got 'NVIDIA H200'"):
        record.record_path("NVIDIA H200")
    assert record.record_path(record.slug("NVIDIA H200")).name == "nvidia-h200.json"


def test_select_rejects_unknown_names():
    with pytest.raises(SystemExit):
        run.select(["fusoin"])
