"""The display API on a fixture record and on a missing one."""

from __future__ import annotations

import dataclasses

import pytest
from matplotlib.figure import Figure

from infrabook import config
from infrabook.bench.experiments import attention, fusion, launches, shapes
from infrabook.bench.experiments.suite import EXPERIMENTS
from infrabook.bench.measure import host
from infrabook.bench.records import report, store
from infrabook.bench.records.entry import Entry
from infrabook.labels import group, text

#: The name of this machine's CPU record, as the suite writes it.
CPU = store.machine_name(host.cpu_info())


@pytest.fixture
def fixture_record(bench_dir):
    store.merge(
        CPU, attention.attention_memory(seq_lens=(64, 128), head_dim=16, block_q=32, block_k=16)
    )
    store.merge(CPU, launches.launches(rows=2, d_model=8, d_ff=16))
    store.merge(
        CPU, shapes.shapes(rows=(4, 8), k=16, n=16, reps=1, warmup=0, scale=64, prep="none")
    )
    store.merge(
        CPU, fusion.fusion(rows=16, cols=256, reps=2, warmup=1, compiled=False, flush=False)
    )
    return bench_dir


def test_records_and_load(fixture_record):
    assert list(report.records()) == [CPU]
    rec = report.load(CPU)
    assert rec == report.records()[CPU]
    assert set(rec.experiments) == {"fusion", "attention_memory", "launches", "shapes"}
    assert report.load("gpu-h200-bdae84") is None


def test_show_renders_pipe_tables_and_one_provenance_line(fixture_record):
    d = report.show("launches")
    page = d._repr_markdown_()
    assert page.count("\n|:---") == 1 and "| 18 | 18 |" in page and "| 15 | 15 |" in page
    assert page.count(text("bench.prov.measured", where="")) == 1
    assert d.title.startswith(text("bench.title.launches"))
    for needle in (
        "torch",
        "numpy",
        text("bench.prov.commit", commit=""),
        text("bench.prov.method", method=""),
        text("bench.prov.quick"),
    ):
        assert needle in d.provenance
    assert "18" in d.tables[0].text()


def test_a_provenance_note_is_flagged_in_the_page_language_and_kept_in_the_file(bench_dir):
    e = launches.launches(rows=2, d_model=8, d_ff=16)
    note = "converted from schema 4 without re-measuring"
    store.merge(
        CPU, dataclasses.replace(e, provenance=dataclasses.replace(e.provenance, note=note))
    )
    line = report.show("launches").provenance
    assert text("bench.prov.note") in line and note not in line
    assert report.entry("launches").provenance.note == note
    assert text("bench.prov.note") not in report.render(e, CPU).provenance


def test_results_are_read_back_typed(fixture_record):
    assert report.results("launches").eager.dispatches == 18
    assert all(r.allclose for r in report.results("attention_memory").per_seq_len)
    assert report.results("fusion").model_speedup == pytest.approx(5 / 3)
    assert report.results("fusion") == report.entry("fusion").results


def test_entries_carry_params_provenance_and_targets(fixture_record):
    e = report.entry("shapes")
    assert e.params["k"] == 16 and e.provenance.quick is True
    (target,) = report.entry("attention_memory").targets
    assert target.id == "blockwise_peak_8192" and target.met is None


def test_targets_table(fixture_record):
    rows = report.targets(CPU).tables[0].rows
    # every configured target appears once, measured or not
    ids = list(config.bench_targets())
    words = [text(f"bench.target.{i}") for i in ids]
    assert [r[1] for r in rows] == words and all(w.strip() for w in words)
    by_target = {goal: rows[words.index(text(f"bench.target.{goal}"))] for goal in ids}
    assert by_target["cpu_fused_speedup"][0] == CPU
    assert by_target["gpu_flash_vs_sdpa_8192"][0] == "—"
    assert by_target["gpu_flash_vs_sdpa_8192"][4] == text("bench.unmeasured")
    assert by_target["blockwise_peak_8192"][4] == text("bench.unmeasured")
    assert len(rows[0]) == len(report.targets(CPU).tables[0].columns) == 6


def test_a_skipped_gpu_note_in_the_cpu_record_is_not_a_measurement(bench_dir):
    prov = host.provenance(host.cpu_info(), quick=True)
    store.merge(CPU, Entry("gpu_flash", "skipped", "no CUDA device", prov))
    assert report.show("gpu_flash").message == text("bench.no_gpu_record")
    shown = report.show("gpu_flash", device=CPU)
    assert shown.message == text("bench.not_run", reason="no CUDA device")


def test_figures(fixture_record):
    for name in ("shapes", "attention_memory", "fusion"):
        assert isinstance(report.figure(name), Figure)
    assert isinstance(report.figure("gpu_flash"), Figure)  # a "not measured" figure
    with pytest.raises(ValueError, match="no figure for 'launches'"):
        report.figure("launches")


def test_missing_record_is_one_short_note(bench_dir):
    assert report.records() == {}
    for name, exp in EXPERIMENTS.items():
        d = report.show(name)
        assert d.message == (
            text("bench.no_gpu_record") if exp.device == "cuda" else text("bench.not_measured")
        )
        page = d._repr_markdown_()
        assert page == f"```{{note}}\n{d.message}\n```" and name not in page
    assert report.show("gpu_flash", device="gpu-h200-bdae84").message == text("bench.not_measured")
    assert {r[4] for r in report.targets().tables[0].rows} == {text("bench.unmeasured")}
    with pytest.raises(LookupError, match="fusion on any CPU: not measured"):
        report.results("fusion")


def test_unknown_experiment_is_an_error(bench_dir):
    with pytest.raises(ValueError, match="unknown experiment 'fusoin'"):
        report.show("fusoin")


def test_folder_from_environment(bench_dir, monkeypatch, tmp_path):
    store.merge(CPU, launches.launches(rows=2, d_model=8, d_ff=16))
    monkeypatch.setenv("INFRABOOK_BENCH_DIR", str(tmp_path / "elsewhere"))
    assert report.records() == {}
    assert list(report.records(folder=bench_dir)) == [CPU]


def test_every_experiment_describes_its_method_in_both_languages():
    for lang in ("zh", "en"):
        assert set(EXPERIMENTS) <= set(group("bench.method", lang))
