"""One declaration: every producer's output round-trips through JSON, the validator, a merge
and a read; a field nobody declared fails where it is produced; the rules the types state
hold for any value they allow (Hypothesis); a JSON Schema made from the types accepts the
committed records; and a record that would crash a page is refused when read."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
import shutil
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any, Literal

import jsonschema
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infrabook.bench import run
from infrabook.bench.experiments import launches
from infrabook.bench.experiments.suite import EXPERIMENTS
from infrabook.bench.measure import cuda, host
from infrabook.bench.records import schema, store, validate
from infrabook.bench.records.entry import CpuDevice, CudaDevice, Entry, GitInfo, Provenance
from infrabook.bench.records.results import RESULTS
from infrabook.bench.records.store import RecordError
from infrabook.bench.records.timing import Timing

ROOT = Path(__file__).parents[2]
COMMITTED = sorted((ROOT / "docs" / "_data" / "bench").glob("*.json"))


def round_trip(device: CpuDevice | CudaDevice, folder: Path) -> Entry:
    """Provenance made here for ``device`` -> a merged record -> JSON -> validate -> read:
    what is read equals what was written."""
    prov = host.provenance(device, quick=True)
    name = "gpu_persistent" if isinstance(device, CudaDevice) else "launches"
    entry = Entry(name, "skipped", "no CUDA device", prov)
    path = store.merge(store.machine_name(device), entry, folder)
    validate.check(json.loads(path.read_text(encoding="utf-8")), RESULTS)
    read = store.read(path)
    assert read is not None and read.experiments[name] == entry
    return entry


# ----------------------------------------------------------- every producer branch


def test_the_gpu_from_nvml_round_trips(fake_gpu, tmp_path):
    entry = round_trip(cuda.gpu_info(), tmp_path)
    device = entry.provenance.device
    assert isinstance(device, CudaDevice) and device.driver == "580.159.04"
    assert (device.max_sm_clock_mhz, device.max_mem_clock_mhz) == (1980, 3201)


def test_the_gpu_from_nvidia_smi_round_trips(fake_gpu, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import pynvml raises ImportError
    answer = subprocess.CompletedProcess([], 0, stdout="1980, 3201\n")
    monkeypatch.setattr(cuda.subprocess, "run", lambda command, **kw: answer)
    monkeypatch.setattr(torch._C, "_cuda_getDriverVersion", lambda: 13000, raising=False)
    device = round_trip(cuda.gpu_info(), tmp_path).provenance.device
    assert isinstance(device, CudaDevice) and device.driver == "CUDA driver API 13.0"
    assert device.max_sm_clock_mhz == 1980


def test_a_gpu_with_neither_nvml_nor_nvidia_smi_round_trips(fake_gpu, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pynvml", None)

    def missing(command, **kwargs):
        raise FileNotFoundError("nvidia-smi")

    monkeypatch.setattr(cuda.subprocess, "run", missing)
    monkeypatch.setattr(torch._C, "_cuda_getDriverVersion", lambda: 0, raising=False)
    device = round_trip(cuda.gpu_info(), tmp_path).provenance.device
    assert isinstance(device, CudaDevice) and device.driver is None
    assert device.max_sm_clock_mhz is None and device.max_mem_clock_mhz is None


def test_the_cpu_round_trips_with_and_without_proc(monkeypatch, tmp_path):
    with_proc = round_trip(host.cpu_info(), tmp_path / "a").provenance.device
    monkeypatch.setattr(host, "_read", lambda path: "")  # no /proc, no sysfs
    without = host.cpu_info()
    assert without.vector == () and without.llc_bytes is None
    assert round_trip(without, tmp_path / "b").provenance.device == without != with_proc


def test_git_facts_round_trip_from_a_checkout(tmp_path):
    host.git_info.cache_clear()
    git = round_trip(host.cpu_info(), tmp_path).provenance.git
    head = subprocess.run(
        ["git", "-C", str(host.PACKAGE_DIR), "rev-parse", "HEAD"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert (git.commit, git.source) == (head, "git") and git.dirty is not None


@pytest.mark.parametrize("given", ["INFRABOOK_COMMIT", "archive", None])
def test_git_facts_round_trip_outside_git(no_git, monkeypatch, given):
    commit = "96830a60658a860ee2046fd19ddb31f756d10b25"
    if given == "INFRABOOK_COMMIT":
        monkeypatch.setenv("INFRABOOK_COMMIT", commit)
    elif given == "archive":
        (no_git / "COMMIT").write_text(commit + "\n")
        monkeypatch.setattr(host, "ARCHIVED_COMMIT", no_git / "COMMIT")
    git = round_trip(host.cpu_info(), no_git / "out").provenance.git
    assert git == (GitInfo(commit, None, source=given) if given else git)
    if given is None:
        assert git.commit is None and git.error == "CalledProcessError: not tracked by git"


def test_a_copy_inside_an_unrelated_repository_does_not_take_its_commit(tmp_path, monkeypatch):
    """The project copied into some other git checkout: that checkout's commit is not ours."""
    other = tmp_path / "other"
    package = other / "vendor" / "src" / "infrabook"
    package.mkdir(parents=True)
    shutil.copy(host.PACKAGE_DIR / "__init__.py", package)  # the copy, untracked there
    git = ["git", "-C", str(other), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q"], check=True)
    (other / "README").write_text("another project\n")
    subprocess.run([*git, "add", "README"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "theirs"], check=True)
    theirs = subprocess.run(
        [*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    monkeypatch.chdir(package)
    monkeypatch.delenv("INFRABOOK_COMMIT", raising=False)
    host.git_info.cache_clear()
    ours = host.git_info()  # the real package, the working folder inside their checkout
    assert ours.commit != theirs and ours.source == "git"
    monkeypatch.setattr(host, "PACKAGE_DIR", package)
    host.git_info.cache_clear()
    try:
        copied = host.git_info()  # the copy itself, inside their checkout
    finally:
        host.git_info.cache_clear()
    assert copied.commit is None and copied.error == "CalledProcessError: not tracked by git"


def test_a_field_nobody_declared_fails_where_it_is_produced():
    device = dataclasses.asdict(host.cpu_info())
    with pytest.raises(TypeError, match="unexpected keyword argument 'sm_clock_mhz'"):
        CpuDevice(**device, sm_clock_mhz=1980)
    with pytest.raises(ValueError, match=r"Timing.median_s must be from 1e-09 to 100000, got 0"):
        Timing(0.0, 0.0, 0.0)


# ------------------------------------------------------------- the rules as a property


def _no_private(text: str) -> bool:
    """What the validator's privacy check (not a type's rule) lets through."""
    lowered = text.lower()
    return not validate.PATH.search(text) and not any(
        n in lowered for n in validate.private_names()
    )


def _built(cls: Any, fields: dict[str, Any]) -> Any:
    """``cls(**fields)``, or None where a rule across fields (a type's ``__post_init__``)
    refuses them: those are not values of the type."""
    try:
        return cls(**fields)
    except ValueError:
        return None


def _names(hint: Any) -> list[str]:
    """The names a closed set states (``Pattern("eager|copy", ...)``), else none."""
    pattern = next((r for r in schema.unannotated(hint)[1] if isinstance(r, schema.Pattern)), None)
    if pattern is None or not re.fullmatch(r"[\w|\\+]+", pattern.regex):
        return []
    return [n.replace("\\", "") for n in pattern.regex.split("|")]


def values(hint: Any) -> st.SearchStrategy[Any]:
    """Any value that ``hint`` and its rules allow (dataclasses built from their fields)."""
    base, rules = schema.unannotated(hint)
    origin, args = typing.get_origin(base), typing.get_args(base)
    ranges = [r for r in rules if isinstance(r, schema.Range)] or [schema.DEFAULT_RANGE]
    pattern = next((r for r in rules if isinstance(r, schema.Pattern)), None)
    limit = next((r.chars for r in rules if isinstance(r, schema.MaxLen)), 40)
    if schema.is_union(base):
        return st.one_of(*(values(a) for a in args))
    if dataclasses.is_dataclass(base):
        fields = st.fixed_dictionaries({k: values(t) for k, t in schema.field_types(base).items()})
        return fields.map(lambda kw: _built(base, kw)).filter(lambda v: v is not None)
    if origin is Literal:
        return st.sampled_from(args)
    if origin is dict:
        names = _names(args[0])
        if names:  # a closed set of names: each one, so that required names are there
            return st.fixed_dictionaries({n: values(args[1]) for n in names})
        return st.dictionaries(values(args[0]), values(args[1]), max_size=3)
    if origin in (tuple, list):
        return st.lists(values(args[0]), max_size=3).map(origin)
    if base is type(None):
        return st.none()
    if base is bool:
        return st.booleans()
    if base is int:
        low, high = int(ranges[0].low), int(min(ranges[0].high, 2**53))
        return st.integers(low, high)
    if base is float:
        return st.floats(ranges[0].low, ranges[0].high, allow_nan=False)
    if any(isinstance(r, schema.Instant) for r in rules):
        moments = st.datetimes(dt.datetime(1970, 1, 1), dt.datetime(2999, 12, 31))
        return moments.map(lambda t: t.strftime("%Y-%m-%dT%H:%M:%SZ"))
    if pattern is not None:
        return st.from_regex(pattern.regex, fullmatch=True).filter(_no_private)
    return st.text("abcxyz0123 -_<[", max_size=min(limit, 40)).filter(_no_private)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(prov=values(Provenance), name=st.sampled_from(sorted(EXPERIMENTS)), data=st.data())
def test_entries_made_from_the_types_survive_merge_and_read(tmp_path_factory, prov, name, data):
    results_type = EXPERIMENTS[name].results
    results = data.draw(values(results_type))
    params = {k: data.draw(values(t)) for k, t in results_type.PARAMS.items()}
    params = json.loads(json.dumps(store.CONVERTER.unstructure(params)))  # as JSON holds them
    entry = Entry(name, "ok", None, prov, params, results)
    folder = tmp_path_factory.mktemp("merged")
    path = store.merge("cpu-any-1c-000000", entry, folder)
    read = store.read(path)
    assert read is not None and read.experiments[name] == entry


# ------------------------------------------------------------------- the JSON Schema


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.stem)
def test_the_committed_records_validate_against_the_json_schema(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(data, store.json_schema())


def test_the_json_schema_refuses_what_the_types_refuse():
    data = json.loads(COMMITTED[0].read_text(encoding="utf-8"))
    data["experiments"]["fusion"]["provenance"]["device"]["sm_clock_mhz"] = 1980
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, store.json_schema())


# --------------------------------------------- what consumers rely on, refused when read


def _committed() -> dict[str, Any]:
    return json.loads((ROOT / "docs/_data/bench/cpu-amd-epyc-2c-c8153f.json").read_text())


def _paths(data: dict[str, Any]) -> dict[str, Any]:
    return data["experiments"]["fusion"]["results"]["paths"]


def _set(data: dict[str, Any], where: str, value: Any) -> None:
    *parents, last = where.split(".")
    for key in parents:
        data = data[key]
    data[last] = value


def _drop(data: dict[str, Any], where: str) -> None:
    *parents, last = where.split(".")
    for key in parents:
        data = data[key]
    del data[last]


F = "record.experiments.fusion"
_CRASHES = {  # security review 1c: each crashed compare, the figures or a page cell
    "model_bytes_0": (
        lambda d: _set(d, "experiments.fusion.results.paths.compile.model_bytes", 0),
        rf"{F}.results.paths.compile.model_bytes must be from 1 to",
    ),
    "no_copy": (
        lambda d: _drop(d, "experiments.fusion.results.paths.copy"),
        r"FusionResults.paths.copy is missing or was not timed",
    ),
    "no_eager": (
        lambda d: _drop(d, "experiments.fusion.results.paths.eager"),
        r"FusionResults.paths.eager is missing or was not timed",
    ),
    "no_fused": (
        lambda d: [p.update(fused=False) for p in _paths(d).values() if p["fused"]],
        r"FusionResults.paths has no fused path",
    ),
    "no_paths": (
        lambda d: _set(d, "experiments.fusion.results.paths", {}),
        r"FusionResults.paths.eager is missing",
    ),
    "no_rows": (
        lambda d: _drop(d, "experiments.fusion.params.rows"),
        rf"{F}.params lacks the parameter 'rows'",
    ),
    "no_params": (
        lambda d: _set(d, "experiments.fusion.params", {}),
        rf"{F}.params lacks the parameter",
    ),
    "renamed_path": (
        lambda d: _paths(d).update({"<script>x": _paths(d).pop("compile")}),
        r"paths\['<script>x'\] must be eager, compile, numexpr or copy",
    ),
    "k_0": (
        lambda d: _set(d, "experiments.shapes.params.k", 0),
        r"record.experiments.shapes.params.k must be from 1 to",
    ),
}


@pytest.mark.parametrize(("spoil", "why"), _CRASHES.values(), ids=_CRASHES)
def test_a_record_that_would_crash_a_page_is_refused_naming_file_and_field(
    bench_dir, spoil, why, capsys
):
    data = _committed()
    spoil(data)
    bench_dir.mkdir(parents=True, exist_ok=True)
    path = bench_dir / "cpu-amd-epyc-2c-c8153f.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RecordError, match=why) as err:
        store.read(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)
    assert run.compare_main([str(path)]) == 2
    assert "Traceback" not in capsys.readouterr().err


# ------------------------------------------------------------ never lose a measurement


def test_an_entry_the_validator_refuses_is_kept_and_merges_once_it_is_fixed(
    bench_dir, monkeypatch, tmp_path
):
    out = tmp_path / "out"
    entry = Entry(
        "launches", "skipped", "no CUDA device", host.provenance(host.cpu_info(), quick=True)
    )
    name = store.machine_name(host.cpu_info())
    real = validate.check

    def wrong(data, known):
        raise ValueError("record.experiments.launches.provenance.device has the unknown field 'x'")

    monkeypatch.setattr(validate, "check", wrong)
    with pytest.raises(RecordError, match=r"not written: .* \(the entry is kept in .*rejected"):
        store.merge(name, entry, out)
    assert not (out / f"{name}.json").exists()
    kept = out / "rejected" / f"{name}.json"
    assert json.loads(kept.read_text())["experiments"]["launches"]["reason"] == "no CUDA device"
    monkeypatch.setattr(validate, "check", real)  # the validator fixed
    counted = launches.Dispatches(3, ("aten.mm.default",), {"aten.mm.default": 3})
    results = launches.LaunchResults(counted, counted)
    ok = dataclasses.replace(  # --merge takes measured ones
        entry, status="ok", reason=None, params={"runs": 1}, results=results
    )
    store.keep_rejected(name, ok, out)
    assert run.main(["--merge", str(out / "rejected"), "--out", str(out)]) == 0
    assert store.read(out / f"{name}.json").experiments["launches"] == ok


def test_a_provenance_the_record_would_refuse_stops_the_run_before_it_measures(monkeypatch):
    leaky = dataclasses.replace(host.cpu_info(), name="Xeon /home/ada/")
    monkeypatch.setattr(host, "cpu_info", lambda: leaky)
    ran = []
    monkeypatch.setattr(EXPERIMENTS["launches"], "run", lambda **kw: ran.append(kw))
    with pytest.raises(ValueError, match=r"provenance.device.name holds the path or address"):
        EXPERIMENTS["launches"](quick=True)
    assert ran == []


def test_the_preflight_refuses_a_gpu_whose_record_would_not_be_written(
    fake_gpu, monkeypatch, capsys
):
    import importlib.util

    spec = importlib.util.spec_from_file_location("preflight", ROOT / "tools/gpu_preflight.py")
    assert spec is not None and spec.loader is not None
    preflight = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(preflight)
    preflight.dry_merge(fake_gpu)  # the faked H200: its record would be written
    leaky = dataclasses.replace(fake_gpu, host_cpu="Xeon /home/ada/")
    with pytest.raises(RecordError, match=r"device.host_cpu holds the path or address"):
        preflight.dry_merge(leaky)


# ------------------------------------------------- privacy and plausibility (L4, L5)


@pytest.mark.parametrize(
    "leak",
    [
        "C:/Users/ada/x.py", "file:///home/ada/x.py", "\\\\fileserver\\share\\ada",
        "%USERPROFILE%\\x", "ssh://ada@host/x", "mail ada@example.com", "~ada",
        "x:/home/ada/", "a./home/ada/",
    ],
)  # fmt: skip
def test_paths_and_addresses_in_free_text_are_refused(leak):
    data = {"schema": 5, "experiments": {"shapes": {"reason": f"failed: {leak}"}}}
    with pytest.raises(ValueError, match=r"reason holds the path or address"):
        validate.check(data, RESULTS)


def test_the_word_root_passes_whoever_checks(monkeypatch):
    monkeypatch.setattr(validate.getpass, "getuser", lambda: "root")
    validate.private_names.cache_clear()
    try:
        assert "root" not in validate.private_names()
        data = _committed()
        _set(data, "experiments.gpu_flash.reason", "found the root cause")
        validate.check(data, RESULTS)
    finally:
        validate.private_names.cache_clear()


@pytest.mark.parametrize(
    ("spoil", "why"),
    [
        (lambda d: _set(d, "updated", "2026-13-45T99:99:99Z"), r"record.updated must be a UTC"),
        (
            lambda d: _set(d, "experiments.fusion.results.paths.eager.timing.p20_s", 1.0),
            r"Timing needs p20_s <= median_s <= p80_s",
        ),
        (
            lambda d: _set(d, "experiments.fusion.provenance.device.usable_cores", 0),
            r"device.usable_cores must be from 1 to",
        ),
        (
            lambda d: _set(d, "experiments.fusion.reason", "a\u2028b"),
            r"fusion.reason holds the control or formatting character LINE SEPARATOR",
        ),
        (  # a speed-up of a millionfold is no measurement (security review L5)
            lambda d: d["experiments"]["fusion"]["targets"][0].update(measured=1e6),
            r"target 'cpu_fused_speedup' measured 1e\+06x, more than the 1000x .*"
            r"@ record.experiments\['fusion'\].targets\[0\]",
        ),
        (  # a median of 1 ns over the article's bytes: 75 PB/s is a broken timer (L5)
            lambda d: _paths(d)["copy"]["timing"].update(
                median_s=1e-9, p20_s=1e-9, p80_s=1e-9, samples_s=[1e-9]
            ),
            r"FusionPath.timing: \d+ bytes in a median of 1e-09 s is .* GB/s, above the "
            r"1e\+06 GB/s no memory reaches",
        ),
        (  # 500 accents on one letter draw over the lines around it (security review L5)
            lambda d: _set(d, "experiments.fusion.reason", "a" + "\u0301" * 500),
            r"fusion.reason stacks more than 4 combining marks on one character",
        ),
    ],
)
def test_implausible_values_are_refused(bench_dir, spoil, why):
    data = _committed()
    spoil(data)
    bench_dir.mkdir(parents=True, exist_ok=True)
    path = bench_dir / "cpu-amd-epyc-2c-c8153f.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RecordError, match=why):
        store.read(path)


def test_accents_a_language_needs_pass(bench_dir):
    """Vietnamese stacks two marks on a letter (ệ written with combining marks): a record
    may say so in its free text."""
    data = _committed()
    _set(data, "experiments.fusion.reason", "Vie\u0323\u0302t")
    validate.check(data, RESULTS)


def test_lists_and_objects_are_capped(bench_dir):
    """A valid record of 380,000 samples took a second per read on every page (L3)."""
    with pytest.raises(ValueError, match=r"Timing.samples_s must be at most 10,000 entries"):
        Timing(1e-3, 1e-3, 1e-3, (1e-3,) * 10_001)
    data = _committed()
    timing = _paths(data)["eager"]["timing"]
    timing["samples_s"] = [timing["median_s"]] * 10_001
    bench_dir.mkdir(parents=True, exist_ok=True)
    path = bench_dir / "cpu-amd-epyc-2c-c8153f.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RecordError, match=r"timing.samples_s must hold at most 10,000 entries"):
        store.read(path)


def test_a_cpu_timing_without_its_samples_is_refused_in_one_line(bench_dir):
    """L5: an empty samples_s passed. CPU timers always keep the repetitions' times."""
    data = _committed()
    timing = data["experiments"]["fusion"]["results"]["paths"]["eager"]["timing"]
    timing["samples_s"] = []
    bench_dir.mkdir(parents=True, exist_ok=True)
    path = bench_dir / "cpu-amd-epyc-2c-c8153f.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RecordError) as err:
        store.read(path)
    message = str(err.value)
    assert "\n" not in message
    assert "FusionResults.paths.eager.timing.samples_s must hold the repetitions' times" in message
    timing["samples_s"] = [timing["median_s"]]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert store.read(path) is not None  # one sample is a CPU timing


def test_a_gpu_timing_of_quantiles_alone_is_kept():
    """do_bench reports quantiles only: a GPU record's timings have no samples, and read."""
    (path,) = (p for p in COMMITTED if p.stem.startswith("gpu-"))
    entry = store.read(path).experiments["gpu_swiglu"]
    fused = entry.results.shapes[0].paths["triton_fused"]
    assert fused.flushed.samples_s == () and fused.unflushed.samples_s == ()
    assert fused.flushed.median_s > 0
