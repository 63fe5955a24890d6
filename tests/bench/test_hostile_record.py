"""Benchmark records are contributed, so untrusted: a hostile one is refused on read with
one line naming the file and the field, or, where the field may legitimately hold such
characters (a reason, a kernel name), its text reaches the page literally.

Each case starts from the committed CPU record, so the record is otherwise one the book
builds with. "Reaches the page" is checked by rendering the display's Markdown with MyST's
own docutils parser (roles and directives run, raw HTML allowed, as in the book's build),
not by looking for escapes in the Markdown.
"""

from __future__ import annotations

import html
import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from infrabook import live
from infrabook.bench.records import report, store
from infrabook.bench.records.entry import CudaDevice
from infrabook.bench.records.store import RecordError
from infrabook.plots import measured
from infrabook.tables import Table, markdown_table

# Declared in the test extra; a GPU machine's own environment may lack them (tools/gpu-run.sh
# says so), and then this module is skipped with the reason instead of failing collection.
publish_string = pytest.importorskip("docutils.core", reason="renders with docutils").publish_string
Parser = pytest.importorskip("myst_parser.parsers.docutils_", reason="renders with MyST").Parser

COMMITTED = Path(__file__).parents[2] / "docs" / "_data" / "bench" / "cpu-amd-epyc-2c-c8153f.json"
CPU = COMMITTED.stem
TAGS = "<img src=x onerror=alert(1)><script>alert(2)</script>"
HOSTILE = [
    TAGS,
    "[x](javascript:alert(1))",
    "<https://example.com/x>",
    "{eval-rst}`.. raw:: html\n\n   <script>alert(3)</script>`",
    "{raw}`<script>alert(4)</script>`",
    "```{raw} html\n<script>alert(5)</script>\n```",
    "$\\href{javascript:alert(6)}{x}$ **bold** | cell",
    "&lt;script&gt; {{ substitution }}",
]


def _committed() -> dict[str, Any]:
    return json.loads(COMMITTED.read_text(encoding="utf-8"))


def _write(bench_dir: Path, data: dict[str, Any] | str, name: str = COMMITTED.name) -> Path:
    bench_dir.mkdir(parents=True, exist_ok=True)
    path = bench_dir / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _fusion(data: dict[str, Any]) -> dict[str, Any]:
    return data["experiments"]["fusion"]


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """Set a dotted path of the record (integers index lists)."""

    def spoil(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        here: Any = data
        for key in parents:
            here = here[int(key)] if isinstance(here, list) else here[key]
        here[int(last) if isinstance(here, list) else last] = value

    return spoil


def _nest(depth: int) -> Callable[[dict[str, Any]], None]:
    def spoil(data: dict[str, Any]) -> None:
        deep: Any = 1
        for _ in range(depth):
            deep = {"a": deep}
        _fusion(data)["params"]["deep"] = deep

    return spoil


FUSION = "record.experiments.fusion"
REFUSED = [
    # names: only what a name holds, so markup is refused rather than shown
    (_set("experiments.fusion.provenance.device.name", f"Intel(R) Xeon(R) Processor {TAGS}"),
     rf"{FUSION}.provenance.device.name must be a CPU or GPU name"),
    (_set("experiments.fusion.provenance.device.name", "[x](javascript:alert(1))"),
     rf"{FUSION}.provenance.device.name must be a CPU or GPU name"),
    (_set("experiments.fusion.provenance.versions.torch", "{eval-rst}`x`"),
     rf"{FUSION}.provenance.versions.torch must be a version"),
    (_set("experiments.fusion.provenance.versions.numpy", "{raw}`html`"),
     rf"{FUSION}.provenance.versions.numpy must be a version"),
    (_set("experiments.fusion.provenance.git.commit", "javascript:alert(1)"),
     rf"{FUSION}.provenance.git.commit must be a git commit \(7 to 64 hex digits\)"),
    (_set("experiments.fusion.provenance.date", "2026-11-29 <b>"),
     rf"{FUSION}.provenance.date must be a UTC time"),
    (_set("device", "<b>cpu</b>"), r"record.device must be a machine name"),
    (_set("device", "cpu"), r"record.device must be a machine name"),
    (_set("device", "gpu-h200-bdae84"),
     r"record.device is 'gpu-h200-bdae84', but the file is named cpu-amd-epyc-2c-c8153f.json"),
    (_set("experiments.fusion.provenance.device.usable_cores", "2"),
     rf"{FUSION}.provenance.device.usable_cores must be an integer, got '2'"),
    (_set("experiments.fusion.provenance.device.script", "x"),
     rf"{FUSION}.provenance.device has the unknown field 'script'"),
    # free text: bounded, one line, nothing invisible
    (_set("experiments.fusion.provenance.note", "x" * 10 * 2**20),  # refused before parsing
     r"has [\d,]+ bytes, more than the 2,097,152 allowed"),
    (_set("experiments.fusion.provenance.note", "x" * 100_000),
     rf"{FUSION}.provenance.note has 100,000 characters, at most 8,000 allowed"),
    (_set("experiments.gpu_flash.reason", "no CUDA\u202e device"),
     r"record.experiments.gpu_flash.reason holds the control or formatting character "
     r"RIGHT-TO-LEFT OVERRIDE"),
    (_set("experiments.gpu_flash.reason", "line one\n```{raw} html"),
     r"record.experiments.gpu_flash.reason holds the control or formatting character"),
    # numbers: finite, not negative, in their unit's range
    (_set("experiments.fusion.results.paths.eager.timing.median_s", -0.004),
     rf"{FUSION}.results.paths.eager.timing.median_s must be from 1e-09 to 100000, got -0.004"),
    (_set("experiments.fusion.results.paths.eager.timing.median_s", 1e-300),
     rf"{FUSION}.results.paths.eager.timing.median_s must be from 1e-09"),
    (_set("experiments.fusion.targets.1.measured", 1e308),
     rf"{FUSION}.targets\[1\].measured must be from 0 to 1e\+06, got 1e\+308"),
    (_set("experiments.fusion.duration_s", -1), rf"{FUSION}.duration_s must be from 0"),
    (_set("experiments.fusion.params.reps", 10**30), "an integer of 31 digits"),
    # shape of the file
    (_nest(20), rf"{FUSION}.params.deep(.a)+ nests deeper than 12 levels"),
    (_set("schema", 4), "schema 4, this version of infrabook reads schema 5"),
    (_set("schema", "5"), "schema '5', this version of infrabook reads schema 5"),
]  # fmt: skip


@pytest.mark.parametrize(("spoil", "why"), REFUSED)
def test_a_hostile_field_is_refused_with_one_line_naming_file_and_field(bench_dir, spoil, why):
    data = _committed()
    spoil(data)
    path = _write(bench_dir, data)
    with pytest.raises(RecordError, match=why) as err:
        store.read(path)
    message = str(err.value)
    assert "\n" not in message and str(path) in message and len(message) < 400
    with pytest.raises(RecordError, match=why):  # a page's cell fails, so the build does
        report.show("fusion")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{"schema": 5, "device": "cpu-a-1", "x": NaN}', "the number NaN"),
        ('{"schema": 5, "device": "cpu-a-1", "x": Infinity}', "the number Infinity"),
        ('{"schema": 5, "device": "cpu-a-1", "x": -Infinity}', "the number -Infinity"),
        ('{"schema": 5, "device": "cpu-a-1", "updated": 1e999}', "record.updated must be a finite"),
        ('{"schema": 5, "device": "cpu-a-1", "device": "gpu"}', "the key 'device' appears twice"),
        ("[" * 200_000 + "]" * 200_000, "the file nests deeper than 12 levels"),
        ('{"note": "' + "x" * 10 * 2**20 + '"}', "has 10,485,772 bytes, more than the 2,097,152"),
    ],
    ids=["nan", "inf", "-inf", "1e999", "duplicate", "deep", "10MB"],
)
def test_a_hostile_file_is_refused_with_one_line(bench_dir, text, why):
    path = _write(bench_dir, text)
    with pytest.raises(RecordError, match=why) as err:
        store.read(path)
    assert "\n" not in str(err.value) and str(path) in str(err.value)


def _html(markdown: str) -> str:
    """The Markdown as the book's build would render it: MyST (with the book's
    extensions), raw HTML and the ``raw`` role and directive enabled."""
    settings = {
        "myst_enable_extensions": ["colon_fence", "dollarmath", "amsmath", "substitution"],
        "raw_enabled": True,
        "report_level": 5,
        "output_encoding": "unicode",
    }
    return publish_string(markdown, parser=Parser(), writer="html5",
                          settings_overrides=settings)  # fmt: skip


def _body(page: str) -> str:
    return page[page.index("<main") : page.index("</main>")]


def _assert_literal(page: str, text: str) -> None:
    """No tag or link came from ``text``, and a reader sees ``text`` itself."""
    body = _body(page)
    assert not re.search(r"<(script|img|a|iframe|object|embed|math)\b", body), body
    assert "href=" not in body and 'class="math' not in body
    visible = html.unescape(re.sub(r"<[^>]+>", "", body))
    assert " ".join(text.split()) in " ".join(visible.split())


@pytest.mark.parametrize("hostile", HOSTILE)
def test_free_text_from_a_record_reaches_the_page_literally(bench_dir, hostile):
    data = _committed()
    flat = " ".join(hostile.split())  # free text is one line: the validator refuses more
    data["experiments"]["gpu_flash"]["reason"] = flat
    data["experiments"]["launches"]["results"]["eager"]["ops_first_run"] = [flat]
    data["experiments"]["launches"]["results"]["eager"]["histogram"] = {flat: 1}
    _write(bench_dir, data)
    for name in ("gpu_flash", "launches"):
        html = _html(report.show(name, CPU)._repr_markdown_())
        _assert_literal(html, flat)


@pytest.mark.parametrize("hostile", HOSTILE)
def test_a_table_cell_is_text_whatever_it_holds(hostile):
    html = _html(markdown_table(["name", "value"], [[hostile, 1]]))
    _assert_literal(html, hostile)
    assert html.count("<td") == 2  # a | in the cell did not split it


def test_the_committed_record_passes_the_checks(bench_dir):
    bench_dir.mkdir()
    shutil.copy(COMMITTED, bench_dir / f"{CPU}.json")
    read = store.read(bench_dir / f"{CPU}.json")
    assert set(read.experiments) == set(_committed()["experiments"])


def test_record_text_in_a_figure_is_drawn_as_text():
    """Names and reasons reach a figure as characters: no mathtext (whose errors would stop
    the build), and the SVG the page embeds escapes the tags."""
    data = _committed()
    data["experiments"]["gpu_flash"]["reason"] = f"{TAGS} $\\frac{{$"
    experiments = store.from_json(data).experiments
    shown = {
        "gpu_flash": "&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;",
    }
    for name, literal in shown.items():
        svg = io.StringIO()
        measured.figure(name, experiments[name], CPU).savefig(svg, format="svg")
        assert not re.search(r"<(script|img|b)\b", svg.getvalue())
        assert literal in svg.getvalue()


def test_live_tables_and_errors_are_text():
    """The live calculators' tables are HTML built here, so they escape every cell; their
    error messages go into the page with ``textContent`` and so may hold anything."""
    table = Table("", (TAGS,), ((TAGS,), ("[x](javascript:alert(1))",)), note=TAGS)
    page = table.html()
    assert "<script" not in page and "<img" not in page and page.count("&lt;script&gt;") == 3
    out = live.run("attention", {"dtype": TAGS})
    assert not out["ok"] and TAGS in out["error"] and "html" not in out


def test_the_docs_build_stops_at_startup_on_a_refused_record(bench_dir, tmp_path):
    """The issue's record: the build ends before any page, with the record's one line."""
    pytest.importorskip("sphinx", reason="the docs extra is not installed in this session")
    data = _committed()
    _set("experiments.fusion.provenance.device.name", f"Intel(R) Xeon(R) Processor {TAGS}")(data)
    path = _write(bench_dir, data)
    root = Path(__file__).parents[2]
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(root / "docs"), str(tmp_path)],
        capture_output=True,
        text=True,
        env=os.environ | {"INFRABOOK_BENCH_DIR": str(bench_dir)},
        timeout=120,
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"infrabook: error: benchmark record {path}: ")
    assert f"{FUSION}.provenance.device.name must be a CPU or GPU name" in proc.stderr
    assert not (tmp_path / "index.html").exists()


def test_a_gpu_device_must_say_what_its_provenance_line_names(bench_dir):
    data = _committed()
    device = data["experiments"]["fusion"]["provenance"]["device"]
    cpu_only = ("logical_cpus", "usable_cores", "torch_threads", "llc_bytes", "mem_bytes", "mhz")
    for key in (*cpu_only, "vector", "machine", "os"):
        del device[key]
    device.update(kind="cuda", name="NVIDIA H200", driver="570.86.15", capability="9.0")
    device.update(memory_bytes=2**37, l2_bytes=2**26, host_cpu="AMD EPYC")
    with pytest.raises(
        RecordError, match=rf"{FUSION}.provenance.device lacks the field 'sm_count'"
    ):
        store.read(_write(bench_dir, data))
    device["sm_count"] = 132
    read = store.read(_write(bench_dir, data)).experiments["fusion"].provenance.device
    assert read == CudaDevice(**device)
