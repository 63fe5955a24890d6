"""What the pages call to show the committed measurements.

``show`` returns an object that Jupyter (and MyST-NB) displays as a table with one
provenance line under it; where the record or the experiment is missing it says so instead
of failing. ``value`` returns one number for the prose. ``figure`` draws a measured curve.
Nothing here imports torch: reading a record is cheap.

The pages read ``docs/_data/bench``; here a record is written to a temporary folder first:

>>> import tempfile
>>> from pathlib import Path
>>> from infrabook.bench import record, report
>>> tmp = tempfile.TemporaryDirectory()
>>> folder = Path(tmp.name)
>>> measured = record.entry(
...     "launches", "Dispatches of three FFN runs", device=record.cpu_info(), quick=True,
...     method={"summary": "counted"}, params={}, results={},
...     values={"eager_dispatches": 18, "fused_dispatches": 15},
...     tables=[record.table("3 runs", ["configuration", "dispatches"],
...                          [["eager", 18], ["fused", 15]])],
...     targets=[], duration_s=0.0)
>>> _ = record.merge("cpu", measured, folder)
>>> report.devices(folder=folder)
['cpu']
>>> report.value("launches", "fused_dispatches", folder=folder)
15
>>> print(report.show("launches", folder=folder))
Dispatches of three FFN runs · cpu
3 runs
configuration | dispatches
eager | 18
fused | 15
Measured on ... · QUICK run (scaled-down sizes) · method: counted
>>> report.show("fusion", folder=folder).message == report.NOT_MEASURED
True
>>> tmp.cleanup()
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infrabook import config
from infrabook.bench import record
from infrabook.bench.record import CPU_EXPERIMENTS, EXPERIMENTS
from infrabook.units import MiB

NOT_MEASURED = "尚未在此类设备上测量 (not measured on this kind of device yet)"
NOT_RUN = "未在此设备上运行 (not run on this device)"

_MISSING = object()


def _folder(folder: Path | str | None) -> Path:
    return Path(folder) if folder is not None else record.bench_dir()


def load(device: str = "cpu", *, folder: Path | str | None = None) -> dict[str, Any] | None:
    """The record of ``device`` (``"cpu"``, ``"nvidia-h200"``, ...), or None if absent."""
    return record.read(record.record_path(device, _folder(folder)))


def devices(*, folder: Path | str | None = None) -> list[str]:
    """Devices that have a record, ``cpu`` first."""
    where = _folder(folder)
    names = sorted(p.stem for p in where.glob("*.json")) if where.is_dir() else []
    present = [n for n in names if record.read(where / f"{n}.json") is not None]
    return sorted(present, key=lambda n: (n != "cpu", n))


def _check_experiment(experiment: str) -> None:
    if experiment not in EXPERIMENTS:
        raise ValueError(f"unknown experiment {experiment!r}: expected one of "
                         f"{', '.join(EXPERIMENTS)}")


def _resolve(experiment: str, device: str | None, folder: Path | str | None
             ) -> tuple[str, dict[str, Any] | None]:
    """The device to read and the experiment's entry there (None when absent).

    ``device=None``: ``cpu`` for the CPU experiments; for the GPU ones the first GPU record
    that has them, measured or not. A CPU record's note that a GPU experiment was skipped
    is not a measurement of it, so without a GPU record a GPU experiment is "not measured".
    """
    _check_experiment(experiment)
    if device is not None:
        rec = load(device, folder=folder)
        return device, (rec or {}).get("experiments", {}).get(experiment)
    if experiment in CPU_EXPERIMENTS:
        return _resolve(experiment, "cpu", folder)
    found: tuple[str, dict[str, Any] | None] = ("GPU", None)
    for name in devices(folder=folder):
        if name == "cpu":
            continue
        entry = (load(name, folder=folder) or {}).get("experiments", {}).get(experiment)
        if entry is not None and (entry.get("status") == "ok" or found[1] is None):
            found = (name, entry)
            if entry.get("status") == "ok":
                break
    return found


# --------------------------------------------------------------------------- formatting


def fmt(x: Any) -> str:
    """One table cell as text.

    >>> [fmt(v) for v in (None, True, 18, 1234567, 0.5, 3.14159, 47.96, 1536.2, 1e-7, "a")]
    ['—', 'yes', '18', '1,234,567', '0.500', '3.14', '48.0', '1,536', '1e-07', 'a']
    """
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return f"{x:,}"
    if isinstance(x, float):
        if not math.isfinite(x):
            return "—"
        a = abs(x)
        if a >= 1000:
            return f"{x:,.0f}"
        if a >= 100:
            return f"{x:.0f}"
        if a >= 10:
            return f"{x:.1f}"
        if a >= 1:
            return f"{x:.2f}"
        if a >= 0.01 or a == 0:
            return f"{x:.3f}"
        return f"{x:.3g}"
    return str(x)


def provenance_line(entry: dict[str, Any]) -> str:
    """Device, versions, commit, date and method of one entry, on one line."""
    prov = entry.get("provenance", {})
    dev = prov.get("device", {})
    if dev.get("kind") == "cuda":
        where = f"{dev.get('name')}, {dev.get('sm_count')} SMs, driver {dev.get('driver')}"
    else:
        where = f"{dev.get('name', 'unknown CPU')}, {dev.get('usable_cores', '?')} cores"
    v = prov.get("versions", {})
    libs = ", ".join(f"{k} {v[k]}" for k in ("torch", "triton", "numpy", "numexpr") if v.get(k))
    git = prov.get("git", {})
    commit = (git.get("commit") or "unknown")[:10]
    if git.get("dirty"):
        commit += " (uncommitted changes)"
    load_ = prov.get("host_load", {})
    load_text = ""
    if load_.get("loadavg_1m") is not None:
        load_text = f" · load {load_['loadavg_1m']} on {load_.get('cores')} cores"
        if load_.get("others_busy_before") is not None:
            load_text += f" (other processes {load_['others_busy_before']:.0%} busy at start)"
    quick = " · QUICK run (scaled-down sizes)" if prov.get("quick") else ""
    method = entry.get("method", {}).get("summary", "")
    return (f"Measured on {where} · {libs} · commit {commit} · {prov.get('date', '?')}"
            f"{load_text}{quick} · method: {method}")


@dataclass
class Display:
    """A titled set of tables with a provenance line, or a message; Jupyter shows it."""

    title: str
    tables: list[dict[str, Any]] = field(default_factory=list)
    provenance: str = ""
    message: str = ""

    def _repr_html_(self) -> str:
        e = html.escape
        parts = [f'<div class="infrabook-bench"><p><strong>{e(self.title)}</strong></p>']
        if self.message:
            parts.append(f"<p><em>{e(self.message)}</em></p>")
        for t in self.tables:
            if t.get("title"):
                parts.append(f"<p>{e(t['title'])}</p>")
            head = "".join(f"<th>{e(str(c))}</th>" for c in t["columns"])
            body = "".join("<tr>" + "".join(f"<td>{e(fmt(c))}</td>" for c in row) + "</tr>"
                           for row in t["rows"])
            parts.append(f'<table class="table"><thead><tr>{head}</tr></thead>'
                         f"<tbody>{body}</tbody></table>")
        if self.provenance:
            parts.append(f"<p><small>{e(self.provenance)}</small></p>")
        parts.append("</div>")
        return "".join(parts)

    def _repr_markdown_(self) -> str:
        def cell(x: Any) -> str:
            return fmt(x).replace("|", "\\|").replace("\n", " ")

        lines = [f"**{self.title}**", ""]
        if self.message:
            lines += [f"*{self.message}*", ""]
        for t in self.tables:
            if t.get("title"):
                lines += [cell(t["title"]), ""]
            lines.append("| " + " | ".join(cell(c) for c in t["columns"]) + " |")
            lines.append("|" + "---|" * len(t["columns"]))
            lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in t["rows"]]
            lines.append("")
        if self.provenance:
            lines.append(f"<small>{html.escape(self.provenance)}</small>")
        return "\n".join(lines)

    def __str__(self) -> str:
        out = [self.title]
        if self.message:
            out.append(self.message)
        for t in self.tables:
            if t.get("title"):
                out.append(t["title"])
            out.append(" | ".join(str(c) for c in t["columns"]))
            out += [" | ".join(fmt(c) for c in row) for row in t["rows"]]
        if self.provenance:
            out.append(self.provenance)
        return "\n".join(out)

    __repr__ = __str__


def show(experiment: str, device: str | None = None, *,
         folder: Path | str | None = None) -> Display:
    """The experiment's tables with one provenance line, or why there are none.

    ``device=None`` is ``"cpu"`` for the CPU experiments and, for the GPU ones, the first
    GPU record that has them.
    """
    where, entry = _resolve(experiment, device, folder)
    if entry is None:
        return Display(title=f"{experiment} · {where}", message=NOT_MEASURED)
    return render(entry, where)


def render(entry: dict[str, Any], where: str) -> Display:
    """Display one experiment entry: a recorded one, or one a page just measured live."""
    title = f"{entry.get('title', entry.get('name'))} · {where}"
    if entry.get("status") != "ok":
        return Display(title=title, provenance=provenance_line(entry),
                       message=f"{NOT_RUN}: {entry.get('reason') or entry.get('status')}")
    return Display(title=title, tables=entry.get("tables", []),
                   provenance=provenance_line(entry))


def entry(experiment: str, device: str | None = None, *,
          folder: Path | str | None = None) -> dict[str, Any] | None:
    """The raw entry of an experiment (None when absent), for what the tables do not show."""
    return _resolve(experiment, device, folder)[1]


def value(experiment: str, key: str, device: str | None = None, *,
          default: Any = _MISSING, folder: Path | str | None = None) -> Any:
    """One measured number (or word) of an experiment, from its ``values``.

    Raises ``KeyError`` naming what is missing, unless ``default`` is given.
    """
    where, found = _resolve(experiment, device, folder)
    if found is None or found.get("status") != "ok":
        if default is not _MISSING:
            return default
        state = "not measured" if found is None else f"{found.get('status')}: {found.get('reason')}"
        raise KeyError(f"{experiment} on {where}: {state}")
    values = found.get("values", {})
    if key not in values:
        if default is not _MISSING:
            return default
        raise KeyError(f"{experiment} on {where} has no value {key!r}; it has: "
                       f"{', '.join(sorted(values))}")
    return values[key]


def targets(device: str | None = None, *, folder: Path | str | None = None) -> Display:
    """Every target of ``conf/bench_targets.toml``: met, missed or not measured, and by how
    much, from one device's record or from all of them."""
    names = [device] if device is not None else devices(folder=folder)
    judged: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for name in names:
        for exp in ((load(name, folder=folder) or {}).get("experiments", {})).values():
            for t in exp.get("targets", []):
                judged.setdefault(t["id"], []).append((name, t))
    rows = []
    for goal in config.bench_targets().values():
        unit = goal["unit"]
        threshold = f"{goal['comparison']} {fmt(goal['threshold'])}{unit}"
        found = judged.get(goal["id"]) or [("—", {"met": None})]
        for name, t in found:
            met = {True: "met", False: "missed", None: "not measured"}[t.get("met")]
            rows.append([name, goal["experiment"], goal["description"], threshold,
                         None if t.get("measured") is None else f"{fmt(t['measured'])}{unit}",
                         met,
                         None if t.get("margin") is None else f"{t['margin']:+.3g}{unit}",
                         t.get("note") or None])
    return Display(title="Benchmark targets", tables=[{
        "title": "", "columns": ["record", "experiment", "target", "threshold", "measured",
                                 "verdict", "margin", "note"], "rows": rows}])


# ------------------------------------------------------------------------------ figures


def _message_figure(text: str) -> Any:
    from infrabook.plots.style import figure as new_figure

    fig, ax = new_figure(6.4, 1.6)
    ax.axis("off")
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes)
    return fig


def _log2_ticks(ax: Any, xs: Sequence[int]) -> None:
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(xs), [str(x) for x in xs])
    ax.minorticks_off()


FIGURES: Sequence[str] = ("fusion", "attention_memory", "shapes", "gpu_swiglu", "gpu_flash")


def figure(experiment: str, device: str | None = None, *,
           folder: Path | str | None = None) -> Any:
    """A matplotlib figure of the measurement (English labels), or a figure that says it
    was not measured. Available for: fusion, attention_memory, shapes, gpu_swiglu,
    gpu_flash."""
    from infrabook.plots.style import figure as new_figure
    from infrabook.plots.style import figure_row

    _check_experiment(experiment)
    if experiment not in FIGURES:
        raise ValueError(f"no figure for {experiment!r}: figures exist for {', '.join(FIGURES)}")
    where, found = _resolve(experiment, device, folder)
    if found is None:
        return _message_figure(f"{experiment}: not measured on {where} yet")
    if found.get("status") != "ok":
        return _message_figure(f"{experiment}: not run on {where} ({found.get('reason')})")
    res = found["results"]
    if experiment == "shapes":
        fig, ax = new_figure()
        sweep = res["sweep"]
        ax.plot([s["rows"] for s in sweep], [s["gflop_s"] for s in sweep], marker="o",
                label="measured")
        peak = res.get("est_peak", {}).get("gflop_s")
        if peak:
            ax.axhline(peak, ls="--", color="#888888", label="estimated peak")
        _log2_ticks(ax, [s["rows"] for s in sweep])
        ax.set_xlabel("rows of x (x @ w)")
        ax.set_ylabel("GFLOP/s")
        ax.set_title(f"Matmul rate against rows, w [{found['params']['k']}, "
                     f"{found['params']['n']}] fp32 ({where})")
        ax.legend()
    elif experiment == "attention_memory":
        fig, ax = new_figure()
        per = res["per_seq_len"]
        ls = [r["seq_len"] for r in per]
        ax.plot(ls, [r["naive_peak_bytes"] / MiB for r in per], marker="o",
                label="naive, measured")
        ax.plot(ls, [r["predicted_naive_bytes"] / MiB for r in per], ls="--",
                label="naive, model S+P+O")
        ax.plot(ls, [r["blockwise_peak_bytes"] / MiB for r in per], marker="s",
                label="blockwise (online softmax), measured")
        _log2_ticks(ax, ls)
        ax.set_yscale("log")
        ax.set_xlabel("sequence length L")
        ax.set_ylabel("peak memory (MiB)")
        ax.set_title(f"Attention peak memory, one head, d={found['params']['head_dim']} fp32")
        ax.legend()
    elif experiment == "fusion":
        fig, (left, right) = figure_row(2, 7.0, 3.4)
        paths = {n: p for n, p in res["paths"].items() if "gb_s" in p and n != "copy"}
        names = list(paths)
        left.bar(names, [p["timing"]["median_s"] * 1e3 for p in paths.values()])
        if "eager" in paths:
            left.axhline(paths["eager"]["timing"]["median_s"] * 1e3
                         / found["values"]["model_speedup"], ls="--", color="#888888",
                         label="fused, if time followed bytes")
            left.legend(loc="upper left")
        left.set_ylabel("median time (ms)")
        left.set_title("time (lower is better)")
        right.bar(names, [p["gb_s"] for p in paths.values()])
        right.axhline(found["values"]["copy_gb_s"], ls="--", color="#888888",
                      label="measured copy")
        right.set_ylabel("GB/s (model bytes / time)")
        right.set_title("effective bandwidth")
        right.legend(loc="upper right")
        fig.suptitle(f"silu(g) * u at {found['params']['rows']} x {found['params']['cols']} "
                     f"fp32 ({where})")
    elif experiment == "gpu_flash":
        fig, ax = new_figure()
        per = res["per_seq_len"]
        ls = [r["seq_len"] for r in per]
        ax.plot(ls, [r["flash"]["tflop_s"] for r in per], marker="o", label="Triton flash")
        ax.plot(ls, [r["sdpa"]["tflop_s"] for r in per], marker="s", label="PyTorch SDPA")
        _log2_ticks(ax, ls)
        ax.set_xlabel("sequence length L")
        ax.set_ylabel("TFLOP/s")
        ax.set_title(f"Attention forward, d=128, bf16 ({where})")
        ax.legend()
    else:  # gpu_swiglu
        fig, ax = new_figure()
        shape = res["shapes"][0]
        names = list(shape["paths"])
        xs = range(len(names))
        for i, mode in enumerate(("flushed", "unflushed")):
            ax.bar([x + (i - 0.5) * 0.4 for x in xs],
                   [shape["paths"][n][mode]["gb_s"] for n in names], width=0.4,
                   label=f"L2 {mode}")
        ax.axhline(res["copy"]["gb_s"], ls="--", color="#888888", label="measured copy")
        ax.set_xticks(list(xs), names)
        ax.set_ylabel("GB/s (model bytes / time)")
        ax.set_title(f"SwiGLU [{shape['rows']}, {shape['cols']}] bf16 ({where})")
        ax.legend()
    return fig
