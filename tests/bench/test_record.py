"""Record schema, atomic writes, unreadable records, and what an interrupted run leaves."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from infrabook.bench import run
from infrabook.bench.experiments import fusion, launches, shapes
from infrabook.bench.experiments.suite import EXPERIMENTS, get
from infrabook.bench.measure import host
from infrabook.bench.records import report, store
from infrabook.bench.records.entry import SCHEMA, Entry, Target
from infrabook.bench.records.store import RecordError
from infrabook.bench.records.timing import Timing
from infrabook.labels import text

#: The name of this machine's CPU record, as the suite writes it.
CPU = store.machine_name(host.cpu_info())

#: A CPU timing keeps its repetitions (a results type running on the CPU refuses one without).
_T = Timing.of((0.5, 1.0, 1.5))
#: Small results of the right type for each experiment a test writes.
TINY = {
    "launches": launches.LaunchResults(
        launches.Dispatches(18, ("aten.mm.default",), {"aten.mm.default": 18}),
        launches.Dispatches(15, ("aten.mm.default",), {"aten.mm.default": 15}),
    ),
    "shapes": shapes.ShapesResults({"4": _T}, {"generic": _T, "bucketed": _T}),
    "fusion": fusion.FusionResults(
        {
            "eager": fusion.FusionPath(12, False, _T, True),
            "numexpr": fusion.FusionPath(8, True, _T, True),
            "copy": fusion.FusionPath(8, None, _T),
        }
    ),
}
#: The parameters each of those results reads (its type's PARAMS).
TINY_PARAMS = {
    "launches": {"runs": 3},
    "shapes": {
        "k": 8, "n": 8, "reps": 2, "warmup": 1, "prep": "none", "compile_error": None,
        "calls": [[4, 1]], "buckets": [4], "peak_basis": None,
    },
    "fusion": {"rows": 2, "cols": 4, "threads": 1, "reps": 2, "warmup": 1, "flush_mib": 0},
}  # fmt: skip


def fake_entry(name: str = "launches", marker: float = 1.0) -> Entry:
    return Entry(
        name,
        "ok",
        None,
        host.provenance(host.cpu_info(), quick=True),
        params=TINY_PARAMS[name] | {"marker": marker},
        results=TINY[name],
        targets=(Target("cpu_fused_speedup", marker),),
    )


def test_merge_writes_a_record_with_the_schema(bench_dir):
    path = store.merge(CPU, fake_entry())
    assert path == bench_dir / f"{CPU}.json"
    data = json.loads(path.read_text())
    assert data["schema"] == SCHEMA == 5 and data["device"] == CPU
    e = data["experiments"]["launches"]
    assert set(e) == {
        "name",
        "status",
        "reason",
        "provenance",
        "params",
        "results",
        "targets",
        "duration_s",
    }  # stored once: no values, no tables, no method sentence (described from params)
    prov = e["provenance"]
    assert {"device", "versions", "git", "date", "quick", "host_load", "note"} == set(prov)
    assert prov["date"].endswith("Z")
    assert {"torch", "triton", "numpy"} <= set(prov["versions"])
    assert {"commit", "dirty"} <= set(prov["git"])
    assert prov["device"]["kind"] == "cpu" and prov["device"]["usable_cores"] >= 1
    assert e["targets"][0] == {"id": "cpu_fused_speedup", "measured": 1.0}
    assert e["results"]["eager"] == {
        "dispatches": 18,
        "ops_first_run": ["aten.mm.default"],
        "histogram": {"aten.mm.default": 18},
    }
    # judged when read, against conf/bench_targets.toml's 1.6x
    assert store.read(path).experiments["launches"].targets[0].met is False


def test_a_record_reads_back_equal_to_what_was_written(bench_dir):
    entry = fake_entry("shapes", 2.5)
    path = store.merge(CPU, entry)
    assert store.read(path).experiments["shapes"] == entry


def test_merge_keeps_other_experiments_and_orders_them(bench_dir):
    store.merge(CPU, fake_entry("shapes", 2.0))
    store.merge(CPU, fake_entry("fusion", 3.0))
    store.merge(CPU, fake_entry("shapes", 4.0))
    data = store.read(bench_dir / f"{CPU}.json")
    assert list(data.experiments) == ["fusion", "shapes"]
    assert data.experiments["shapes"].params["marker"] == 4.0
    assert data.experiments["fusion"].params["marker"] == 3.0


def test_record_file_is_readable_by_others(bench_dir):
    path = store.merge(CPU, fake_entry())
    assert path.stat().st_mode & 0o044 == 0o044


def test_entries_refuse_a_bad_status_and_targets_an_unknown_id():
    with pytest.raises(ValueError, match="status must be one of ok, skipped, failed, got 'great'"):
        fake_entry().__class__("launches", "great", None, fake_entry().provenance)
    with pytest.raises(ValueError, match=r"unknown target 'cpu_speed': conf/bench_targets\.toml"):
        Target("cpu_speed", 1.0)


def test_failed_replace_leaves_the_earlier_file_intact(bench_dir, monkeypatch):
    path = store.merge(CPU, fake_entry("fusion", 1.0))
    before = path.read_bytes()

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        store.merge(CPU, fake_entry("fusion", 2.0))
    assert path.read_bytes() == before
    assert [p.name for p in bench_dir.iterdir()] == [f"{CPU}.json"]  # no temp file left


def test_unserialisable_data_fails_before_touching_the_file(bench_dir):
    path = store.merge(CPU, fake_entry("fusion", 1.0))
    before = path.read_bytes()
    with pytest.raises(TypeError, match="cannot store object as JSON"):
        store.merge(
            CPU, Entry("fusion", "ok", None, fake_entry().provenance, params={"bad": object()})
        )
    assert path.read_bytes() == before
    assert [p.name for p in bench_dir.iterdir()] == [f"{CPU}.json"]


def test_non_finite_numbers_are_refused_before_touching_the_file(bench_dir):
    path = store.merge(CPU, fake_entry("fusion", 1.0))
    before = path.read_bytes()
    with pytest.raises(ValueError, match=r"record\.experiments\.launches\.params\.inf is inf"):
        store.merge(CPU, dataclasses.replace(fake_entry(), params={"inf": float("inf")}))
    assert path.read_bytes() == before
    assert [p.name for p in bench_dir.iterdir()] == [f"{CPU}.json"]


def _edit(text: str) -> str:
    data = json.loads(text)
    data["experiments"]["launches"]["results"] = "lots"
    return json.dumps(data)


def _older(text: str) -> str:
    data = json.loads(text)
    data["schema"] = 2
    return json.dumps(data)


def _bad_number(text: str) -> str:
    data = json.loads(text)
    data["experiments"]["launches"]["results"]["eager"]["dispatches"] = "18"
    return json.dumps(data)


def _ok_without_results(text: str) -> str:
    data = json.loads(text)
    data["experiments"]["launches"]["results"] = None
    return json.dumps(data)


def _unknown_field(text: str) -> str:
    data = json.loads(text)
    data["experiments"]["launches"]["values"] = {}
    return json.dumps(data)


def _unknown_experiment(text: str) -> str:
    data = json.loads(text)
    data["experiments"]["fusoin"] = data["experiments"].pop("launches")
    return json.dumps(data)


def _lost_field(text: str) -> str:
    data = json.loads(text)
    del data["experiments"]["launches"]["provenance"]["date"]
    return json.dumps(data)


@pytest.mark.parametrize(
    ("spoil", "why"),
    [
        (lambda t: t[: len(t) // 2], "is not valid JSON"),
        (lambda t: "", "is not valid JSON"),
        (_older, "schema 2, this version of infrabook reads schema 5"),
        (_edit, r"experiments.launches.results must be an object, got 'lots'"),
        (_bad_number, r"launches.results.eager.dispatches must be an integer, got '18'"),
        (_ok_without_results, "experiments.launches is ok but has no results"),
        (_unknown_field, r"experiments.launches has the unknown field 'values'"),
        (_lost_field, "experiments.launches.provenance lacks the field 'date'"),
        (_unknown_experiment, "record.experiments.fusoin: unknown experiment, or named 'launches'"),
        (lambda t: "[1, 2]", "the file is not a JSON object"),
    ],
)
def test_an_unreadable_record_names_the_file_and_why_and_is_never_overwritten(
    bench_dir, spoil, why
):
    path = store.merge(CPU, fake_entry())
    path.write_text(spoil(path.read_text()))
    spoiled = path.read_bytes()
    with pytest.raises(RecordError, match=why) as err:
        store.read(path)
    assert str(path) in str(err.value)
    with pytest.raises(RecordError, match=why):
        store.merge(CPU, fake_entry("shapes"))
    with pytest.raises(RecordError, match=why):
        report.results("launches")
    with pytest.raises(RecordError, match=why):  # a page's cell fails: the site is not built
        report.show("launches")
    assert path.read_bytes() == spoiled


def _wait_for(proc: subprocess.Popen, needle: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if needle in line:
            return
        if not line and proc.poll() is not None:
            break
    proc.kill()
    pytest.fail(f"the suite never printed {needle!r}")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_a_killed_run_keeps_finished_and_earlier_experiments(bench_dir, tmp_path, sig):
    earlier = store.merge(CPU, fake_entry("shapes", 7.0))
    # In the child, shapes never finishes on its own, so the signal always lands while it
    # runs: a quick shapes run on a loaded machine could otherwise end before the signal.
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(
        "import time\n"
        "from infrabook.bench.experiments import shapes\n"
        "shapes.shapes.run = lambda **kwargs: time.sleep(3600)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hook), *sys.path])}
    with subprocess.Popen(
        [
            sys.executable,
            "-m",
            "infrabook.bench",
            "--quick",
            "--only",
            "launches",
            "shapes",
            "--out",
            str(bench_dir),
        ],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
        # a suite started in the background (`nox ... &`) inherits SIGINT as ignored, and
        # Python then installs no KeyboardInterrupt handler: give the child the default back
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    ) as proc:
        try:
            _wait_for(proc, "shapes: start")  # launches is merged; shapes is now running
            proc.send_signal(sig)
            assert proc.wait(timeout=60) != 0
        finally:
            proc.kill()  # never leave the child's endless shapes behind
    data = store.read(earlier)  # a whole record, never half a file
    assert data.experiments["shapes"].params["marker"] == 7.0  # the earlier result
    assert data.experiments["launches"].results.eager.dispatches == 18  # finished
    assert [p.name for p in bench_dir.iterdir()] == [f"{CPU}.json"]  # no temp file left


def test_a_failing_experiment_is_reported_and_not_merged(bench_dir, monkeypatch, caplog):
    store.merge(CPU, fake_entry("launches", 5.0))

    def broken(**kwargs):
        raise RuntimeError("kaput")

    monkeypatch.setattr(launches.launches, "run", broken)
    assert run.main(["--only", "launches"]) == 1
    assert "launches: FAILED" in caplog.text and "kaput" in caplog.text
    assert store.read(bench_dir / f"{CPU}.json").experiments["launches"].params["marker"] == 5.0


def test_quick_suite_writes_a_record_the_pages_read(bench_dir, monkeypatch):
    smallest = {  # the smallest sizes: the quick path, seconds faster
        "fusion": {"rows": 16, "cols": 256, "compiled": False},
        "fusion_sweep": {"rows": (1, 2), "cols": 256, "compiled": False},
        "shapes": {"rows": (4, 8), "k": 16, "n": 16, "scale": 64, "prep": "none"},
    }
    for name, sizes in smallest.items():
        exp = get(name)
        monkeypatch.setattr(exp, "quick", exp.quick | sizes)
    assert run.main(["--quick", "--only", "cpu", "--out", str(bench_dir)]) == 0
    rec = store.read(bench_dir / f"{CPU}.json")
    expected = ["fusion", "fusion_sweep", "attention_memory", "launches", "shapes"]
    assert list(rec.experiments) == expected
    assert all(e.provenance.quick for e in rec.experiments.values())
    assert report.results("launches").fused.dispatches == 15
    assert report.show("shapes").tables


def test_record_path_wants_a_machine_name():
    for bad in ("NVIDIA H200", "cpu", "nvidia-h200", "cpu-../x"):
        with pytest.raises(ValueError, match=r"a record's name is a machine name .* got"):
            store.record_path(bad)
    assert store.record_path("gpu-h200-bdae84").name == "gpu-h200-bdae84.json"


def test_select_rejects_unknown_names():
    with pytest.raises(ValueError) as exc:
        run.select(["fusoin"])
    names = " / ".join(("cpu", "gpu", *EXPERIMENTS))
    assert str(exc.value) == text("bench.cli.error.experiment", name="'fusoin'", names=names)


def test_a_record_read_again_is_not_parsed_again_until_it_changes(bench_dir, monkeypatch):
    """A build asks for every record many times: the same bytes are parsed and checked once
    (security review L3), a rewritten file is read afresh, and a refusal is never cached."""
    path = store.merge("cpu-test-1c-abcdef", fake_entry(marker=1.0), bench_dir)
    parsed = []
    real = store.validate.parse
    monkeypatch.setattr(store.validate, "parse", lambda raw: parsed.append(1) or real(raw))
    store._checked.cache_clear()
    first = store.read(path)
    assert store.read(path) is first and len(parsed) == 1
    store.merge("cpu-test-1c-abcdef", fake_entry(marker=2.0), bench_dir)
    again = store.read(path)
    assert len(parsed) == 2 and again != first
    path.write_text("{", encoding="utf-8")
    for _ in range(2):
        with pytest.raises(RecordError, match="not valid JSON"):
            store.read(path)
    assert len(parsed) == 4
