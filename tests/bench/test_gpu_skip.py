"""Without CUDA every GPU experiment is recorded as skipped, with the reason."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from infrabook import config
from infrabook.bench import run
from infrabook.bench.experiments import attention, ceilings, fusion, launches, persistent
from infrabook.bench.experiments.suite import GPU_EXPERIMENTS, get
from infrabook.bench.measure import cuda, host
from infrabook.bench.records import report, store
from infrabook.bench.records.results import described
from infrabook.labels import text

#: The name of this machine's CPU record, as the suite writes it.
CPU = store.machine_name(host.cpu_info())


@pytest.fixture
def no_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


@pytest.mark.parametrize("name", GPU_EXPERIMENTS)
def test_gpu_experiment_skipped_without_cuda(no_cuda, name):
    e = get(name)(quick=True)
    assert (e.status, e.reason) == ("skipped", "no CUDA device")


def test_suite_records_gpu_skips_in_the_cpu_record(no_cuda, bench_dir):
    assert run.main(["--only", "gpu"]) == 0
    data = store.read(bench_dir / f"{CPU}.json")
    assert set(data.experiments) == set(GPU_EXPERIMENTS)
    assert all(e.reason == "no CUDA device" for e in data.experiments.values())
    # the CPU record says why; the book still reports the GPU experiment as not measured
    assert "no CUDA device" in report.show("gpu_flash", device=CPU).message
    assert report.show("gpu_flash").message == text("bench.no_gpu_record")
    with pytest.raises(LookupError, match="gpu_flash on any GPU: not measured"):
        report.results("gpu_flash")


class Range:
    def __init__(self, start, end):
        self.start, self.end = start, end


class Event:
    """The fields of a profiler FunctionEvent that _classify reads."""

    def __init__(self, name, activity_type="cpu_op", start=0, end=1, thread=1):
        self.name, self.activity_type = name, activity_type
        self.time_range, self.thread = Range(start, end), thread


def test_classify_profiler_events():
    events = [Event("cudaLaunchKernel", "cuda_runtime", 3 * i, 3 * i + 1) for i in range(3)]
    events += [
        Event("cuLaunchKernelEx", "cuda_driver", 20, 21),
        Event("cudaGraphLaunch", "cuda_runtime", 30, 31),
        Event("ampere_gemm", "kernel"),
        Event("aten::mm"),
        Event("Memcpy HtoD", "gpu_memcpy"),
        Event("triton_k", "kernel"),
    ]
    c = cuda._classify(events)
    assert (c["host_launches"], c["graph_launches"], c["kernels"]) == (4, 1, 2)
    assert c["kernel_names"] == {"ampere_gemm": 1, "triton_k": 1}


def test_driver_launch_inside_a_runtime_launch_counts_once():
    c = cuda._classify(
        [
            Event("cudaLaunchKernel", "cuda_runtime", 0, 10),
            Event("cuLaunchKernel", "cuda_driver", 2, 8),
            Event("cuLaunchKernel", "cuda_driver", 2, 8, thread=2),
            Event("cuLaunchKernelEx", "cuda_driver", 20, 25),
        ]
    )
    assert c["host_launches"] == 3
    assert c["by_api"]["cuLaunchKernel (inside a runtime launch, not counted)"] == 1


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("NVIDIA H200", "h200"),
        ("NVIDIA H200 NVL", None),
        ("NVIDIA GH200 480GB", None),
        ("NVIDIA H100 80GB HBM3", "h100_sxm"),
        ("NVIDIA H100 SXM5 80GB", "h100_sxm"),
        ("NVIDIA H100 PCIe", None),
        ("NVIDIA H100 NVL", None),
        ("NVIDIA A100-SXM4-80GB", "a100_80gb"),
        ("NVIDIA A100-SXM4-40GB", None),
        ("NVIDIA A100 80GB PCIe", None),
        ("NVIDIA B200", "b200"),
        ("NVIDIA GB200", None),
        ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "rtx_pro_6000"),
        ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", None),
        ("NVIDIA GeForce RTX 4090", None),
    ],
)
def test_profile_only_for_the_gpu_it_describes(name, key):
    spec = described.profile_for(name)
    assert (spec.key if spec else None) == key


def test_gpu_experiments_dry_run(dry):
    entries = [  # torch.compile's SwiGLU path: tests/bench/test_gpu_peers.py (it takes seconds)
        fusion.gpu_swiglu(rig=dry, shapes=[(4, 64), (2, 64), (8, 64)], compiled=False),
        attention.gpu_flash(rig=dry, seq_lens=(16,), heads=1, tokens=16, head_dim=16),
        launches.gpu_graphs(rig=dry, rows=2, d_model=16, d_ff=32),
        persistent.gpu_persistent(rig=dry, shape=(16, 256)),  # 4 tiles of 1024
        attention.gpu_sdpa(rig=dry, seq_len=16, heads=1, tokens=16, head_dim=16),
        ceilings.gpu_ceilings(rig=dry, copy_mib=(1,), gemm_n=16),
    ]
    for e in entries:
        assert e.status == "ok" and e.provenance.device.name == "NVIDIA H200"
    swiglu, flash, graphs, persisted, _, _ = entries
    assert swiglu.targets[0].id == "gpu_fused_swiglu_bandwidth"
    assert swiglu.results.shapes[0].paths["triton_fused"].max_abs_err_vs_fp32 < 0.1
    # three shapes, each with its own rows: none overwrites another
    shown = {row[0] for row in swiglu.tables[0].rows}
    assert shown == {"[4, 64]", "[2, 64]", "[8, 64]"} and len(swiglu.tables[0].rows) == 24
    assert flash.results.per_seq_len[0].max_abs_diff_vs_sdpa < 0.1
    # the share of the datasheet peak is read from conf/hardware.toml's H200 profile
    peak = config.device("h200").bf16_dense_tflops.value
    share = 100 * flash.results.per_seq_len[0].tflop_s("flash") / peak
    assert flash.tables[0].rows[0][8] == pytest.approx(share)
    assert flash.targets[0].met is None  # L=8192 not in the dry run
    assert set(graphs.results.configs) == {"eager", "graph", "fused", "fused+graph"}
    assert persisted.results.variants["persistent_1x_sm"].programs == 2
    # the default grid: what the device holds at once (in the interpreter, CPU_PROGRAMS)
    assert persisted.results.variants["persistent_resident"].programs == 4
    assert all(v.equal_to_per_tile for v in persisted.results.variants.values())
    for e in entries:
        store.merge("gpu-h200-bdae84", e)
    assert list(report.records()) == ["gpu-h200-bdae84"]
    for name in GPU_EXPERIMENTS:
        shown = report.show(name)
        assert shown.tables and "NVIDIA H200" in shown.provenance
    for name in ("gpu_swiglu", "gpu_flash"):
        report.figure(name)
    assert report.results("gpu_graphs").configs["eager"].kernels == 3
    assert report.entry("gpu_swiglu").results == swiglu.results  # read back as written
    # side by side: every GPU experiment has rows with the book's model, and the figure
    dram = config.device("h200").dram_tb_s.value * 1e3
    expected = {
        "gpu_swiglu": (text("bench.cmp.pct_copy", what="[4, 64] triton_fused · "
                            + text("bench.l2.flushed")), 100.0,
                       swiglu.results.shapes[0].pct_copy(
                           swiglu.results.shapes[0].paths["triton_fused"], "flushed")),
        "gpu_flash": (text("bench.cmp.pct_peak_at", L=16), 100.0, share),
        "gpu_graphs": (text("bench.cmp.kernels", what="eager"), 18, 3),
        "gpu_persistent": (text("bench.cmp.pct_dram", what="persistent_1x_sm"), 100.0,
                           100 * persisted.results.variants["persistent_1x_sm"].timing.gb_s(
                               persisted.results.model_bytes) / dram),
    }  # fmt: skip
    for name, (row, model, value) in expected.items():
        (table,) = report.side_by_side(name).tables
        rows = {r[0]: r[1:] for r in table.rows}
        assert rows[row][0] == model and rows[row][1] == pytest.approx(value), name
        report.machines_figure(name)


def test_an_unprofiled_gpu_has_no_share_of_a_datasheet_peak(dry, gpu_named):
    rig = dataclasses.replace(dry, info=gpu_named("NVIDIA H100 PCIe"))
    e = attention.gpu_flash(rig=rig, seq_lens=(16,), heads=1, tokens=16, head_dim=16)
    assert e.tables[0].rows[0][8] is None  # % of datasheet peak


@pytest.mark.parametrize(
    ("sizes", "needle"),
    [
        ({"shapes": []}, "shapes must name at least one"),
        ({"seq_lens": ()}, "seq_lens must name at least one"),
    ],
)
def test_empty_sizes_are_refused_not_replaced_by_defaults(dry, sizes, needle):
    experiment = attention.gpu_flash if "seq_lens" in sizes else fusion.gpu_swiglu
    with pytest.raises(ValueError, match=needle):
        experiment(rig=dry, **sizes)
