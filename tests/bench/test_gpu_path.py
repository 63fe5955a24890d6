"""The GPU path before its first run: torch-version-tolerant profiling, no NaN in a record,
experiments isolated under time limits, no interpreter on a GPU, what was compared
recorded, like-for-like baselines, and a commit without a git checkout. All on CPU, with
fakes for what only a GPU machine has."""

from __future__ import annotations

import dataclasses
import gc
import importlib.util
import json
import logging
import os
import re
import subprocess
import sys
import textwrap
import types

import pytest
import torch
import triton.testing

import infrabook.kernels  # decides interpreting before a test fakes CUDA
from infrabook import config
from infrabook.bench import run
from infrabook.bench.experiments import attention, fusion, launches, persistent, shapes
from infrabook.bench.experiments.base import Measured
from infrabook.bench.experiments.suite import get
from infrabook.bench.measure import cuda, host
from infrabook.bench.records import store, timing
from infrabook.bench.records.entry import GitInfo
from infrabook.bench.records.timing import Timing
from infrabook.labels import text
from infrabook.serialise import jsonable

#: The name of this machine's CPU record, as the suite writes it.
HERE = store.machine_name(host.cpu_info())

CUDA, CPU = torch.autograd.DeviceType.CUDA, torch.autograd.DeviceType.CPU


class Span:
    def __init__(self, start, end):
        self.start, self.end = start, end


class Event211:
    """A FunctionEvent as torch 2.11 makes it: a device type, no ``activity_type``."""

    def __init__(self, name, device_type=CPU, start=0, end=1, annotation=False):
        self.name, self.device_type, self.is_user_annotation = name, device_type, annotation
        self.time_range, self.thread = Span(start, end), 1


class Event213(Event211):
    """torch 2.13's: Kineto's ``activity_type`` too (None for events Kineto did not make)."""

    def __init__(self, name, activity_type, device_type=CPU, start=0, end=1):
        super().__init__(name, device_type, start, end)
        self.activity_type = activity_type


def _run(events_211):
    """The same trace, as each torch version shapes it."""
    kinds = {CUDA: "kernel", CPU: "cuda_runtime"}
    events_213 = [
        Event213(
            e.name,
            "gpu_memcpy"
            if e.name.startswith("Memcpy")
            else "gpu_memset"
            if e.name.startswith("Memset")
            else "gpu_user_annotation"
            if e.is_user_annotation
            else kinds[e.device_type],
            e.device_type,
            e.time_range.start,
            e.time_range.end,
        )
        for e in events_211
    ]
    events_213.append(Event213("[memory]", None))  # not from Kineto: no activity type
    return cuda._classify(events_211), cuda._classify(events_213)


def test_kernels_are_counted_alike_in_torch_2_11_and_2_13_events():
    trace = [Event211("cudaLaunchKernel", CPU, 3 * i, 3 * i + 1) for i in range(3)]
    trace += [
        Event211("cuLaunchKernelEx", CPU, 20, 21),
        Event211("cudaGraphLaunch", CPU, 30, 31),
        Event211("aten::mm"),
        Event211("sm90_gemm", CUDA),
        Event211("_swiglu_kernel", CUDA),
        Event211("_swiglu_kernel", CUDA),
        Event211("Memcpy HtoD (Pageable -> Device)", CUDA),
        Event211("Memset (Device)", CUDA),
        Event211("ffn", CUDA, annotation=True),
    ]
    for counts in _run(trace):
        assert (counts["host_launches"], counts["graph_launches"], counts["kernels"]) == (4, 1, 3)
        assert counts["kernel_names"] == {"sm90_gemm": 1, "_swiglu_kernel": 2}
        assert counts["by_api"] == {
            "cudaLaunchKernel": 3,
            "cuLaunchKernelEx": 1,
            "cudaGraphLaunch": 1,
        }


# ---------------------------------------------------------------- no NaN in a record

#: CPU results keep their repetitions: the timings these fakes stand in for come from
#: ``time_interleaved``.
_T = Timing.of((9e-4, 1e-3, 1.1e-3))


#: What the fakes' ``**kw`` hides: the parameters the results' methods read.
_SHAPES_PARAMS = {"k": 8, "n": 8, "reps": 2, "warmup": 1, "prep": "none", "calls": [[4, 1]]}
_SHAPES_PARAMS |= {"buckets": [4], "compile_error": None, "peak_basis": None}
_FUSION_PARAMS = {"rows": 2, "cols": 4, "threads": 1, "reps": 2, "warmup": 1, "flush_mib": None}


def _shapes(median_s=1e-3):
    t = Timing.of((9e-4, median_s, 1.1e-3))
    results = shapes.ShapesResults({"4": t}, {"generic": _T, "bucketed": _T})
    return Measured(results, params=_SHAPES_PARAMS)


def _fusion(median_s):
    eager = fusion.FusionPath(12, False, Timing.of((9e-4, median_s, 1.1e-3)), True)
    paths = {"eager": eager, "numexpr": fusion.FusionPath(8, True, _T), "copy": _copy()}
    return Measured(fusion.FusionResults(paths), params=_FUSION_PARAMS)


def _copy():
    return fusion.FusionPath(8, None, _T)


def test_a_nan_result_fails_its_experiment_alone_naming_the_field(bench_dir, monkeypatch, caplog):
    monkeypatch.setattr(fusion.fusion, "run", lambda **kw: _fusion(float("nan")))
    monkeypatch.setattr(shapes.shapes, "run", lambda **kw: _shapes())
    assert run.main(["--only", "fusion", "shapes"]) == 1
    assert "fusion: FAILED" in caplog.text
    assert "Timing.median_s must be a finite number, got nan" in caplog.text  # when measured
    written = store.read(bench_dir / f"{HERE}.json")  # still readable: nothing was stored as null
    assert list(written.experiments) == ["shapes"]


def test_an_unreadable_record_fails_each_experiment_without_stopping_the_run(
    bench_dir, monkeypatch, caplog
):
    bench_dir.mkdir(parents=True)
    (bench_dir / f"{HERE}.json").write_text('{"schema": 5, "experiments": {')
    monkeypatch.setattr(fusion.fusion, "run", lambda **kw: _fusion(1e-3))
    monkeypatch.setattr(shapes.shapes, "run", lambda **kw: _shapes())
    assert run.main(["--only", "fusion", "shapes"]) == 1
    failures = [r for r in caplog.records if "FAILED" in r.getMessage()]
    assert [r.getMessage().split(":")[0] for r in failures] == ["fusion", "shapes"]
    assert all("is not valid JSON" in str(r.exc_info[1]) for r in failures)
    assert (bench_dir / f"{HERE}.json").read_text() == '{"schema": 5, "experiments": {'


# ------------------------------------------------------- isolation and time limits

_FAKE_SUITE = """
import os, sys, time
from infrabook.bench import run
from infrabook.bench.experiments import fusion, shapes
from infrabook.bench.measure import host
from infrabook.bench.experiments.base import Measured
from infrabook.bench.records.timing import Timing


host.psutil.cpu_percent = lambda interval: 0.0
t = Timing.of((9e-4, 1e-3, 1.1e-3))

def hang(**kw):
    with open({pid_file!r}, "w") as f:
        f.write(str(os.getpid()))
    time.sleep(600)

fusion.fusion.run = hang
results = shapes.ShapesResults({{"4": t}}, {{"generic": t, "bucketed": t}})
added = {{"k": 8, "n": 8, "reps": 2, "warmup": 1, "prep": "none", "calls": [[4, 1]],
         "buckets": [4], "compile_error": None, "peak_basis": None}}
shapes.shapes.run = lambda **kw: Measured(results, params=added)
sys.exit(run.main(sys.argv[1:]))
"""


def test_a_hanging_experiment_is_killed_at_its_limit_and_the_next_one_runs(
    tmp_path, bench_dir, monkeypatch, caplog
):
    pid_file = tmp_path / "hang.pid"
    suite = tmp_path / "fake_suite.py"
    suite.write_text(textwrap.dedent(_FAKE_SUITE.format(pid_file=str(pid_file))))
    monkeypatch.setattr(run, "CHILD", (sys.executable, str(suite)))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(sys.path))
    out = tmp_path / "returned"
    argv = ["--isolate", "--limit", "20", "--only", "fusion", "shapes", "--out", str(out)]
    assert run.main(argv) == 1
    assert "fusion: FAILED (killed at its time limit of 20 s)" in caplog.text
    with pytest.raises(ProcessLookupError):  # the hung process is gone, not orphaned
        os.kill(int(pid_file.read_text()), 0)
    assert list(store.read(out / f"{HERE}.json").experiments) == ["shapes"]
    assert not bench_dir.exists()  # --out decides where records go


def test_a_time_limit_needs_isolation(capsys):
    with pytest.raises(SystemExit):
        run.main(["--limit", "5", "--only", "fusion"])
    assert text("bench.cli.error.limit_isolate") in capsys.readouterr().err
    for bad in ("nan", "inf", "0", "-1", "soon"):  # none of them would stop a hung experiment
        with pytest.raises(SystemExit):
            run.main(["--isolate", "--limit", bad, "--only", "fusion"])
        assert text("bench.cli.error.limit", raw=bad) in capsys.readouterr().err


def test_every_experiment_has_a_time_limit_and_the_gpu_ones_fit_eight_minutes():
    from infrabook.bench.experiments.suite import EXPERIMENTS, GPU_EXPERIMENTS

    assert all(e.limit_s > 0 for e in EXPERIMENTS.values())
    # tools/gpu-run.sh: the experiments' limits plus 120 s of GPU tests, within 8 minutes
    assert sum(EXPERIMENTS[n].limit_s for n in GPU_EXPERIMENTS) + 120 < 8 * 60


# ------------------------------------------------------ never the interpreter on a GPU


@pytest.fixture
def fake_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)


# A fake GPU over kernels decorated for the interpreter: on a machine with CUDA the kernels
# compile natively, so there is no interpreter to refuse.
_INTERPRETER_ONLY = pytest.mark.skipif(
    not infrabook.kernels.INTERPRETED, reason="a CUDA device: the kernels are not interpreted"
)


@_INTERPRETER_ONLY
def test_the_rig_refuses_the_interpreter_when_a_gpu_is_present(fake_cuda, bench_dir, capsys):
    with pytest.raises(cuda.RigError, match="TRITON_INTERPRET"):
        cuda.rig()
    with pytest.raises(SystemExit) as stop:
        run.main(["--only", "gpu_persistent", "--isolate"])
    message = capsys.readouterr().err
    assert stop.value.code == 2 and "unset TRITON_INTERPRET" in message
    assert message.count("\n") == 1
    assert not bench_dir.exists()


# ------------------------------------------------------------ what was compared


def test_the_sdpa_backend_that_ran_is_recorded_per_length(dry, monkeypatch):
    from torch.nn.attention import SDPBackend

    cudnn = SDPBackend.CUDNN_ATTENTION
    monkeypatch.setattr(torch, "_fused_sdp_choice", lambda q, k, v: int(cudnn.value))
    e = attention.gpu_flash(rig=dry, seq_lens=(16, 32), heads=1, tokens=32, head_dim=16)
    assert [r.sdpa_backend for r in e.results.per_seq_len] == ["CUDNN_ATTENTION"] * 2
    assert e.tables[0].rows[0][6] == "CUDNN_ATTENTION"


def test_versions_name_cudnn_and_a_nightly_triton(monkeypatch):
    monkeypatch.setattr(torch.version, "cuda", "13.0")
    monkeypatch.setattr(torch.backends.cudnn, "version", lambda: 91500)
    real = host._version
    monkeypatch.setattr(host, "_version", lambda d: None if d == "triton" else real(d) or "3.6.0")
    v = host.versions()
    assert (v.cuda_runtime, v.cudnn, v.triton) == ("13.0", "9.15.0", "3.6.0")


def _props(name="NVIDIA H200"):
    return types.SimpleNamespace(
        name=name,
        multi_processor_count=132,
        major=9,
        minor=0,
        total_memory=141 * 10**9,
        L2_cache_size=60 * 2**20,
        pci_domain_id=0,
        pci_bus_id=0x1B,
        pci_device_id=0,
    )


def test_gpu_info_has_the_clocks_from_nvml(monkeypatch):
    asked = []

    def handle(bus_id):
        asked.append(bus_id)
        return "h"

    nvml = types.SimpleNamespace(
        nvmlInit=lambda: None,
        nvmlSystemGetDriverVersion=lambda: "580.65",
        nvmlDeviceGetHandleByPciBusId=handle,
        NVML_CLOCK_SM=1,
        NVML_CLOCK_MEM=2,
        nvmlDeviceGetClockInfo=lambda h, kind: {1: 345, 2: 3201}[kind],  # idle: not recorded
        nvmlDeviceGetMaxClockInfo=lambda h, kind: {1: 1980, 2: 3201}[kind],
    )
    monkeypatch.setitem(sys.modules, "pynvml", nvml)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: _props())
    info = cuda.gpu_info()
    assert asked == ["00000000:1b:00.0"]
    assert info.driver == "580.65" and info.sm_count == 132
    assert (info.max_sm_clock_mhz, info.max_mem_clock_mhz) == (1980, 3201)
    assert info.sm_clock_mhz is None and info.mem_clock_mhz is None


def test_gpu_clocks_from_nvidia_smi_without_nvml(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import pynvml raises ImportError
    calls = []

    def smi(command, **kwargs):
        calls.append(command)
        return subprocess.CompletedProcess(command, 0, stdout="1980, 3201\n")

    monkeypatch.setattr(cuda.subprocess, "run", smi)
    assert cuda._clocks("00000000:1b:00.0") == dict(zip(cuda.CLOCKS, (1980, 3201), strict=True))
    assert "--id=00000000:1b:00.0" in calls[0]

    def missing(command, **kwargs):
        raise FileNotFoundError("nvidia-smi")

    monkeypatch.setattr(cuda.subprocess, "run", missing)
    assert cuda._clocks("00000000:1b:00.0") == dict.fromkeys(cuda.CLOCKS)


# ------------------------------------------------------------------- like for like


def test_the_copy_moves_the_fused_bytes_with_each_timer(dry):
    def timer(seconds):
        def time_it(fn):
            fn()
            return Timing(seconds, seconds, seconds)

        return time_it

    # the flushed timer slower than the unflushed one: a copy timed by the other timer
    # would move the percentages by a factor of 2
    rig = dataclasses.replace(dry, flushed=timer(2e-3), unflushed=timer(1e-3))
    e = fusion.gpu_swiglu(rig=rig, shapes=[(4, 64), (8, 128)], compiled=False)
    for shape in e.results.shapes:
        copy, fused, unfused = (shape.paths[n] for n in ("copy", "triton_fused", "triton_unfused"))
        assert copy.model_bytes == fused.model_bytes == 3 * shape.rows * shape.cols * 2
        assert copy.max_abs_err_vs_fp32 == 0.0
        for mode in timing.MODES:  # same bytes and the same timer: exactly the copy's rate
            assert shape.pct_copy(fused, mode) == pytest.approx(100.0)
            assert shape.pct_copy(unfused, mode) == pytest.approx(100 * 5 / 3)
    assert e.targets[0].measured == pytest.approx(100.0)


# ------------------------------------------------------------------ launch counts


def test_fewer_host_launches_than_kernels_without_a_graph_is_flagged(dry, caplog):
    def profile(fn, runs):  # a profiler that sees no launch API at all
        graphed = getattr(fn, "graphed", False)
        return {
            "host_launches": 0,
            "graph_launches": runs if graphed else 0,
            "kernels": 6 * runs,
            "by_api": {"cudaGraphLaunch": runs} if graphed else {},
            "kernel_names": {},
        }

    def capture(fn):
        def replay():
            return fn()

        replay.graphed = True
        return replay

    rig = dataclasses.replace(dry, capture=capture, profile=profile)
    with caplog.at_level(logging.WARNING, "infrabook.bench"):
        e = launches.gpu_graphs(rig=rig, rows=2, d_model=16, d_ff=32, reps=1)
    flagged = {n for n, c in e.results.configs.items() if c.undercounted}
    assert flagged == {"eager", "fused"}
    assert "gpu_graphs: eager: 0 host launches for 18 kernels without a graph" in caplog.text
    stored = json.loads(json.dumps(jsonable(e, "e")))
    assert stored["results"]["configs"]["graph"]["by_api"] == {"cudaGraphLaunch": 3}


def test_quick_flash_keeps_the_targets_length():
    want = config.bench_targets()["gpu_flash_vs_sdpa_8192"].seq_len
    assert want in get("gpu_flash").quick["seq_lens"]
    assert want in get("gpu_flash").full["seq_lens"]


# ------------------------------------------------------- Triton 3.6, names, commit


def test_do_bench_cudagraph_runs_with_the_collector_off(monkeypatch):
    seen = []

    def bench(fn, rep, quantiles):
        seen.append(gc.isenabled())
        return [2.0, 1.0, 3.0]

    monkeypatch.setattr(triton.testing, "do_bench_cudagraph", bench)
    gc.enable()
    assert cuda.do_bench(False, lambda: None) == Timing(2e-3, 1e-3, 3e-3)
    assert seen == [False] and gc.isenabled()


def test_a_gpu_without_a_profile_is_said_in_the_log(dry, gpu_named, caplog):
    rig = dataclasses.replace(dry, info=gpu_named("NVIDIA H200 NVL"))
    with caplog.at_level(logging.WARNING, "infrabook.bench"):
        attention.gpu_flash(rig=rig, seq_lens=(16,), heads=1, tokens=16, head_dim=16)
    assert "no profile of NVIDIA H200 NVL" in caplog.text


def test_the_commit_is_passed_in_without_a_git_checkout(no_git, monkeypatch):
    # A stamp as in a checkout, so that the test holds in a `git archive` copy too.
    stamp = no_git / "COMMIT"
    stamp.write_text("$Format:%H$\n")
    monkeypatch.setattr(host, "ARCHIVED_COMMIT", stamp)
    got = host.git_info()  # the archive stamp is still "$Format:%H$"
    assert got.commit is None and got.error == "CalledProcessError: not tracked by git"
    host.git_info.cache_clear()
    monkeypatch.setenv("INFRABOOK_COMMIT", "0123abc")
    assert host.git_info() == GitInfo("0123abc", None, source="INFRABOOK_COMMIT")
    host.git_info.cache_clear()
    monkeypatch.setenv("INFRABOOK_COMMIT", "main")
    with pytest.raises(ValueError, match=r"INFRABOOK_COMMIT: expected a git commit .* got 'main'"):
        host.git_info()


def test_the_commit_is_read_from_an_archived_package(no_git, monkeypatch):
    stamp = no_git / "COMMIT"
    commit = "b8970c0" * 5 + "abcde"
    stamp.write_text(commit + "\n")
    monkeypatch.setattr(host, "ARCHIVED_COMMIT", stamp)
    assert host.git_info() == GitInfo(commit, None, source="archive")


def test_the_package_carries_an_archive_stamp():
    # In a checkout the placeholder; in a copy made by `git archive`, the commit it wrote.
    assert re.fullmatch(r"\$Format:%H\$|[0-9a-f]{40}", host.ARCHIVED_COMMIT.read_text().strip())
    attributes = (host.ARCHIVED_COMMIT.parents[2] / ".gitattributes").read_text()
    assert "src/infrabook/COMMIT export-subst" in attributes


# ------------------------------------------------------------- returned records


def test_returned_gpu_records_merge_their_measurements_only(dry, tmp_path, bench_dir):
    returned = tmp_path / "gpu-records"
    measured = persistent.gpu_persistent(rig=dry, shape=(16, 256))
    store.merge("gpu-h200-bdae84", measured, returned)
    skipped = get("gpu_flash")(quick=True)  # no CUDA here: a skipped entry
    assert skipped.status == "skipped"
    store.merge(HERE, skipped, returned)
    (returned / "gpu.log").write_text("the log travels too")
    assert run.main(["--merge", str(returned), "--out", str(bench_dir)]) == 0
    assert sorted(p.name for p in bench_dir.iterdir()) == ["gpu-h200-bdae84.json"]
    back = store.read(bench_dir / "gpu-h200-bdae84.json").experiments["gpu_persistent"]
    assert back.results == measured.results
    # a folder of skips only merges nothing, and says so by its exit status
    os.remove(returned / "gpu-h200-bdae84.json")
    assert run.main(["--merge", str(returned), "--out", str(bench_dir)]) == 1


def _preflight():
    path = host.ARCHIVED_COMMIT.parents[2] / "tools" / "gpu_preflight.py"
    spec = importlib.util.spec_from_file_location("gpu_preflight", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@_INTERPRETER_ONLY
def test_the_preflight_says_what_will_happen(monkeypatch, capsys):
    preflight = _preflight()
    assert preflight.main() == 0
    assert "no CUDA device: every GPU experiment will be recorded as skipped" in (
        capsys.readouterr().out
    )
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert preflight.main() == 2
    assert capsys.readouterr().err.startswith("refused: a CUDA device is present")
