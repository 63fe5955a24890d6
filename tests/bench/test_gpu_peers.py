"""The peers a reader compares the book's kernels against, measured by the suite: every SDPA
backend beside the Triton FlashAttention, ``torch.compile`` beside the fused SwiGLU, and the
copy and GEMM ceilings. Dry runs on CPU tensors through the fake rig (Triton's interpreter);
each entry goes through ``store.merge``, ``store.read`` and the report functions."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import torch

from infrabook import config
from infrabook.bench.experiments import attention, ceilings, fusion
from infrabook.bench.records import compare, report, store
from infrabook.bench.records.results.ceilings import CopySize
from infrabook.labels import text
from infrabook.units import MiB

GPU = "gpu-h200-bdae84"
#: The median every dry timer returns (conftest's ``dry``).
MEDIAN_S = 1e-3

#: On a CPU no CUDA backend runs: torch's CPU SDPA stands in. Its FLASH_ATTENTION has a CPU
#: kernel and MATH is the reference; CUDNN_ATTENTION and EFFICIENT_ATTENTION have none, so they
#: take the path a GPU that lacks a backend takes: recorded with the reason, not timed.
CPU_BACKENDS = (*attention.SDPA_BACKENDS, "MATH")


def _sdpa(dry):
    return attention.gpu_sdpa(
        rig=dry, seq_len=16, heads=2, tokens=32, head_dim=16, backends=CPU_BACKENDS
    )


def test_every_sdpa_backend_beside_the_book_kernel_causal_and_not(dry):
    e = _sdpa(dry)
    assert e.status == "ok" and e.params["batch"] == 2
    full, causal = e.results.cases
    assert (full.causal, causal.causal) == (False, True)
    # FLOP from the shape, independently of attention_flop: 4 b h L^2 d, half when causal
    assert full.flop == 4 * 2 * 2 * 16**2 * 16 == 2 * causal.flop
    for case in (full, causal):
        assert list(case.kernels) == ["triton", *CPU_BACKENDS]
        for ran in ("triton", "FLASH_ATTENTION", "MATH"):
            k = case.kernels[ran]
            assert k.reason is None and k.timing.median_s == MEDIAN_S
            assert case.tflop_s(ran) == pytest.approx(case.flop / MEDIAN_S / 1e12)
            # the same mask on both sides: a causal/non-causal mix-up would differ by O(1)
            assert k.max_abs_diff_vs_triton < 0.05
        for lacking in ("CUDNN_ATTENTION", "EFFICIENT_ATTENTION"):
            k = case.kernels[lacking]
            assert k.timing is None and k.max_abs_diff_vs_triton is None
            assert k.reason.startswith("failed: RuntimeError: No viable backend")
            assert case.tflop_s(lacking) is None and case.triton_over(lacking) is None
    (shown,) = e.tables
    assert len(shown.rows) == 2 * len(("triton", *CPU_BACKENDS))
    peak = config.device("h200").bf16_dense_tflops.value
    ours = shown.rows[0]
    assert ours[1] == text("bench.sdpa.ours")
    assert ours[5] == pytest.approx(100 * full.flop / MEDIAN_S / 1e12 / peak)
    lacking_row = next(r for r in shown.rows if r[1] == "CUDNN_ATTENTION")
    assert lacking_row[2] is None and lacking_row[7].startswith("failed:")


def test_an_unknown_sdpa_backend_is_refused_by_name(dry):
    with pytest.raises(ValueError, match=r"backends must name SDPA backends .* got \('FA3',\)"):
        attention.gpu_sdpa(rig=dry, seq_len=16, heads=1, tokens=16, head_dim=16, backends=("FA3",))


def test_the_compiled_expression_beside_the_fused_kernel(dry):
    e = fusion.gpu_swiglu(rig=dry, shapes=[(4, 64)])
    shape = e.results.shapes[0]
    compiled, fused = shape.paths["torch_compile"], shape.paths["triton_fused"]
    assert e.results.compile_reason is None
    assert compiled.compile_s > 0 and fused.compile_s is None
    assert compiled.model_bytes == fused.model_bytes == 3 * 4 * 64 * 2  # one pass: g, u, z
    assert compiled.max_abs_err_vs_fp32 < 0.1
    rows = [r for r in e.tables[0].rows if r[1] == "torch_compile"]
    assert len(rows) == 2 and all(r[-1] == compiled.compile_s for r in rows)


def test_the_fused_kernel_is_also_timed_far_beyond_the_l2():
    l2 = config.device("h200").l2_mib.value * MiB
    fused = [3 * rows * cols * 2 for rows, cols in fusion.gpu_swiglu.full["shapes"]]
    assert fused[0] == 72 * MiB  # the article's shape first: the target reads it
    assert max(fused) >= 8 * l2


def test_a_compile_that_fails_is_recorded_with_its_reason(dry, monkeypatch):
    def refuse(*args, **kwargs):
        raise RuntimeError("inductor: no C++ compiler in /opt/secret/bin\nmore")

    monkeypatch.setattr(torch, "compile", refuse)
    e = fusion.gpu_swiglu(rig=dry, shapes=[(4, 64)])
    assert "torch_compile" not in e.results.shapes[0].paths
    assert e.results.compile_reason == "failed: RuntimeError: inductor: no C++ compiler in …/bin"
    skipped = fusion.gpu_swiglu(rig=dry, shapes=[(4, 64)], compiled=False)
    assert skipped.results.compile_reason.startswith("skipped: not requested")


def test_the_ceilings_skip_what_does_not_fit_with_the_reason(dry):
    small = dataclasses.replace(dry.info, memory_bytes=200 * MiB)
    rig = dataclasses.replace(dry, info=small)
    e = ceilings.gpu_ceilings(rig=rig, copy_mib=(1, 2, 64), gemm_n=64)
    one, two, big = e.results.copies
    assert (one.nbytes, two.nbytes, big.nbytes) == (MiB, 2 * MiB, 64 * MiB)
    assert two.tb_s == pytest.approx(2 * 2 * MiB / MEDIAN_S / 1e12)  # read and written
    assert big.timing is None and big.tb_s is None
    assert big.reason == (
        "skipped: source and destination need 128 MiB, more than half of the GPU's 200 MiB"
    )
    assert e.results.bandwidth_tb_s == two.tb_s  # the largest copy that ran
    assert e.results.gemm.tflop_s == pytest.approx(2 * 64**3 / MEDIAN_S / 1e12)
    copies, gemm = e.tables
    assert [r[0] for r in copies.rows] == [1, 2, 64] and copies.rows[2][4] == big.reason
    dram = config.device("h200").dram_tb_s.value
    assert copies.rows[1][3] == pytest.approx(100 * two.tb_s / dram)
    peak = config.device("h200").bf16_dense_tflops.value
    assert gemm.rows == ((64, 1.0, e.results.gemm.tflop_s, 100 * e.results.gemm.tflop_s / peak),)
    with pytest.raises(ValueError, match="CopySize needs a timing or a reason"):
        CopySize(MiB)


def test_peers_round_trip_through_the_record_and_the_reports(dry):
    made = {
        "gpu_sdpa": _sdpa(dry),
        "gpu_ceilings": ceilings.gpu_ceilings(rig=dry, copy_mib=(1, 2), gemm_n=32),
        "gpu_swiglu": fusion.gpu_swiglu(rig=dry, shapes=[(4, 64)]),
    }
    for name in made:  # no GPU record yet: the note says so
        assert report.show(name).message == text("bench.no_gpu_record")
    store.merge(GPU, made["gpu_swiglu"])
    # a GPU record made before the peers were measured: not measured, not "no GPU record"
    for name in ("gpu_sdpa", "gpu_ceilings"):
        shown = report.show(name)
        assert shown.message == text("bench.not_measured") and not shown.tables
    for e in made.values():
        store.merge(GPU, e)
    back = report.records()[GPU].experiments
    for name, e in made.items():
        assert back[name].results == e.results, name
        shown = report.show(name)
        assert shown.tables == e.tables and "NVIDIA H200" in shown.provenance
        assert compare.table(name, report.records()).rows, name
        report.side_by_side(name)
    rows = compare.rows(compare.entries("gpu_sdpa", report.records()))
    mask = text("bench.sdpa.causal")
    assert rows[text("bench.cmp.sdpa_vs", mask=mask, kernel="MATH")] == (None, {GPU: 1.0})
    assert text("bench.cmp.sdpa_vs", mask=mask, kernel="CUDNN_ATTENTION") not in rows
    peak = config.device("h200").bf16_dense_tflops.value
    gemm = text("bench.cmp.pct_bf16_peak", what=text("bench.ceilings.gemm", n=32))
    ceiling = compare.rows(compare.entries("gpu_ceilings", report.records()))[gemm]
    assert ceiling == (100.0, {GPU: pytest.approx(100 * 2 * 32**3 / MEDIAN_S / 1e12 / peak)})
    # the book's kernels against this run's ceilings, as the pages read them
    ceilings_, sdpa = report.results("gpu_ceilings"), report.results("gpu_sdpa")
    gemm_rate = 2 * 32**3 / MEDIAN_S / 1e12
    full = sdpa.cases[0]
    assert full.pct_of("triton", ceilings_.gemm.tflop_s) == pytest.approx(
        100 * full.flop / MEDIAN_S / 1e12 / gemm_rate
    )
    assert full.pct_of("CUDNN_ATTENTION", gemm_rate) is None
    fused = report.results("gpu_swiglu").shapes[0].paths["triton_fused"]
    copy_tb_s = 2 * 2 * MiB / MEDIAN_S / 1e12  # the larger copy: 2 MiB read and written
    assert ceilings_.bandwidth_tb_s == pytest.approx(copy_tb_s)
    fused_tb_s = 3 * 4 * 64 * 2 / MEDIAN_S / 1e12
    assert fused.pct_of("flushed", ceilings_.bandwidth_tb_s) == pytest.approx(
        100 * fused_tb_s / copy_tb_s
    )


BOOK = Path(__file__).parents[2] / "docs" / "_data" / "bench"


@pytest.mark.parametrize("path", sorted(BOOK.glob("*.json")), ids=lambda p: p.name)
def test_records_made_before_the_peers_still_read(path):
    rec = store.read(path)
    swiglu = rec.experiments.get("gpu_swiglu")
    if swiglu is not None and swiglu.status == "ok":
        assert swiglu.results.compile_reason is None
        assert "torch_compile" not in json.loads(path.read_text())  # written before it
