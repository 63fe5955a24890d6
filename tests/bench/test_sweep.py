"""The fusion size sweeps: the CPU one run for real at small sizes, the GPU one dry on CPU
tensors through the fake rig (Triton's interpreter); what the results derive (where time =
bytes / bandwidth holds, what warm caches gain) checked on hand-made timings."""

from __future__ import annotations

import dataclasses

import pytest

from infrabook.bench.experiments import sweep
from infrabook.bench.measure import host
from infrabook.bench.records import report, store
from infrabook.bench.records.results.sweep import FusionSweepResults, SweepPath, SweepPoint
from infrabook.bench.records.timing import Timing
from infrabook.labels import text
from infrabook.units import MiB

GPU = "gpu-h200-bdae84"
#: The median every dry timer returns (conftest's ``dry``).
MEDIAN_S = 1e-3


def test_the_cpu_sweep_times_eager_and_the_copy_of_the_fused_bytes_at_each_size(monkeypatch):
    monkeypatch.setattr(host, "llc_bytes", lambda: None)  # the smallest flush: 64 MiB
    e = sweep.fusion_sweep(rows=(1, 4), cols=256, reps=2, warmup=0, compiled=False)
    assert e.status == "ok" and e.params["flush_mib"] == 64 and e.params["dtype"] == "fp32"
    one, four = e.results.points
    assert (one.rows, four.rows) == (1, 4)
    assert four.fused_bytes == 3 * 4 * 256 * 4  # G and U read, Z written, fp32
    assert four.paths["eager"].model_bytes == 5 * 4 * 256 * 4  # T written and read back
    assert four.paths["copy"].model_bytes == four.fused_bytes
    assert "fused" not in four.paths and four.speedup("flushed") is None
    assert e.results.fused_reason.startswith("skipped: not requested")
    assert len(four.paths["eager"].flushed.samples_s) == 2
    (shown,) = e.tables
    assert len(shown.rows) == 2 * 2  # two sizes, caches flushed and not
    assert e.results.fused_reason in shown.title
    assert [r[2] for r in shown.rows[:2]] == [
        text("bench.sweep.flushed"),
        text("bench.sweep.unflushed"),
    ]


def test_the_cpu_sweep_refuses_bad_sizes():
    with pytest.raises(ValueError, match="rows must name at least one size"):
        sweep.fusion_sweep(rows=(), cols=256, reps=1, warmup=0, compiled=False)
    with pytest.raises(ValueError, match="cols"):
        sweep.fusion_sweep(rows=(1,), cols=0, reps=1, warmup=0, compiled=False)


def test_the_gpu_sweep_dry_round_trips_through_the_record_and_the_report(dry):
    e = sweep.gpu_fusion_sweep(rig=dry, rows=(2, 8), cols=64)
    assert e.status == "ok"
    _, big = e.results.points
    assert big.fused_bytes == 3 * 8 * 64 * 2  # bf16
    for name, nbytes in (("fused", big.fused_bytes), ("eager", 5 * 8 * 64 * 2)):
        path = big.paths[name]
        assert path.model_bytes == nbytes
        assert path.gb_s("flushed") == pytest.approx(nbytes / MEDIAN_S / 1e9)
    # every dry timing is the same, so the fused path moves the copy's bytes in its time
    assert big.pct_copy("fused", "flushed") == pytest.approx(100)
    assert big.speedup("unflushed") == pytest.approx(1.0)
    assert report.show("gpu_fusion_sweep").message == text("bench.no_gpu_record")
    store.merge(GPU, e)
    back = report.entry("gpu_fusion_sweep")
    assert back.results == e.results
    shown = report.show("gpu_fusion_sweep")
    assert shown.tables == e.tables and "NVIDIA H200" in shown.provenance


def test_the_gpu_sweep_skips_a_size_that_does_not_fit_with_the_reason(dry):
    small = dataclasses.replace(dry.info, memory_bytes=3 * MiB // 4)
    rig = dataclasses.replace(dry, info=small)
    e = sweep.gpu_fusion_sweep(rig=rig, rows=(2, 64), cols=512)  # 64 x 512 x 2 B x 8 = 512 KiB
    fits, big = e.results.points
    assert fits.reason is None and big.paths == {}
    assert big.reason == "skipped: its tensors need 0.5 MiB, more than half of the GPU's 0.75 MiB"
    assert e.results.ran == (fits,)
    (shown,) = e.tables
    assert big.reason in shown.title and shown.rows[-1][2] == "—"


def _point(rows: int, copy_s: float, warm_s: float) -> SweepPoint:
    """A size of ``rows`` MiB of fused bytes whose paths all take ``copy_s`` flushed and
    ``warm_s`` unflushed."""
    nbytes = rows * MiB
    paths = {
        name: SweepPath(nbytes, Timing.of((copy_s,)), Timing.of((warm_s,)))
        for name in ("eager", "copy")
    }
    return SweepPoint(rows, nbytes, paths)


def test_where_time_is_bytes_over_bandwidth_and_what_warm_caches_gain():
    # 1 MiB in 20 us, 4 MiB in 44 us, 16 MiB in 168 us, 64 MiB in 640 us: GB/s 52, 95, 100,
    # 105; within 10 % of the largest size's 105 GB/s from 4 MiB on
    points = (
        _point(1, 20e-6, 10e-6),
        _point(4, 44e-6, 11e-6),
        _point(16, 168e-6, 120e-6),
        _point(64, 640e-6, 620e-6),
    )
    results = FusionSweepResults(points)
    assert results.holds_from().rows == 4
    assert results.ceiling_gb_s() == pytest.approx(64 * MiB / 640e-6 / 1e9)
    best, gain = results.cache_gain()
    assert best.rows == 4 and gain == pytest.approx(4.0)  # 44 us over 11 us


def test_a_sweep_needs_its_sizes_in_order_and_each_size_its_reference_paths():
    with pytest.raises(ValueError, match="smallest first"):
        FusionSweepResults((_point(4, 1e-5, 1e-5), _point(1, 1e-5, 1e-5)))
    copy_only = {"copy": _point(1, 1e-5, 1e-5).paths["copy"]}
    with pytest.raises(ValueError, match="needs 'eager' and 'copy'"):
        SweepPoint(1, MiB, copy_only)
    with pytest.raises(ValueError, match="a size ran or it did not"):
        SweepPoint(1, MiB, copy_only, reason="skipped: too big")
