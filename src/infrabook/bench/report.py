"""What the pages call to show the committed measurements.

``show`` displays an experiment's tables with one provenance line, or a note saying why
there are none; ``results`` gives its typed results, ``entry`` the whole entry and ``figure``
its measured curve. ``device=None`` reads ``cpu`` for a CPU experiment and the first GPU
record that has a GPU one; ``folder`` overrides where records are read. An unreadable or
refused record raises :class:`~infrabook.bench.record.RecordError` naming the file and the
field, so the page's cell fails and the site is not built with it. Every string a display
shows (record, ``conf/``, labels) goes through :func:`infrabook.tables.markdown_text`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infrabook import config
from infrabook.bench import record
from infrabook.bench.experiment import table
from infrabook.bench.record import Entry, Record
from infrabook.bench.registry import CPU_EXPERIMENTS, get
from infrabook.labels import text
from infrabook.tables import Table, markdown_text, number_text

_VERDICT = {True: "bench.met", False: "bench.missed", None: "bench.unmeasured"}

Folder = Path | str | None


def load(device: str = "cpu", *, folder: Folder = None) -> Record | None:
    """The record of ``device`` (``"cpu"``, ``"nvidia-h200"``, ...), or None if absent."""
    return record.read(record.record_path(device, Path(folder) if folder else None))


def records(*, folder: Folder = None) -> dict[str, Record]:
    """Every device's record by device, ``cpu`` first."""
    where = Path(folder) if folder else record.bench_dir()
    paths = sorted(where.glob("*.json"), key=lambda p: (p.stem != "cpu", p.stem))
    found = {p.stem: record.read(p) for p in paths} if where.is_dir() else {}
    return {name: rec for name, rec in found.items() if rec is not None}


def _resolve(
    experiment: str, device: str | None, folder: Folder
) -> tuple[str | None, Entry | None]:
    """The device to read and the experiment's entry there (None when absent). A CPU
    record's note that a GPU experiment was skipped is not a measurement of it."""
    get(experiment)
    if device is None and experiment in CPU_EXPERIMENTS:
        device = "cpu"
    if device is not None:
        rec = load(device, folder=folder)
        return device, rec.experiments.get(experiment) if rec else None
    found = [
        (name, rec.experiments[experiment])
        for name, rec in records(folder=folder).items()
        if name != "cpu" and experiment in rec.experiments
    ]
    return next((f for f in found if f[1].status == "ok"), found[0] if found else (None, None))


def provenance_line(entry: Entry) -> str:
    """Device, versions, commit, date, load and method of one entry, on one line."""
    prov, dev = entry.provenance, entry.provenance.device
    if dev.get("kind") == "cuda":
        where = text("bench.prov.gpu", name=dev["name"], sms=dev["sm_count"], driver=dev["driver"])
    else:
        where = text("bench.prov.cpu", name=dev.get("name"), cores=dev.get("usable_cores"))
    v = prov.versions
    libs = ", ".join(f"{k} {v[k]}" for k in ("torch", "triton", "numpy", "numexpr") if v.get(k))
    commit = (prov.git.get("commit") or text("word.unknown"))[:10]
    commit += text("bench.prov.dirty") if prov.git.get("dirty") else ""
    parts = [text("bench.prov.measured", where=where), libs]
    parts += [text("bench.prov.commit", commit=commit), prov.date]
    load_ = prov.host_load
    if load_.get("loadavg_1m") is not None:
        parts.append(text("bench.prov.load", load=load_["loadavg_1m"], cores=load_.get("cores")))
    parts += [text("bench.prov.quick")] if prov.quick else []
    parts += [text("bench.prov.note")] if prov.note else []  # the note itself: in the file
    if entry.status == "ok":
        parts.append(text("bench.prov.method", method=entry.results.method(entry.params)))
    return " · ".join(parts)


@dataclass
class Display:
    """A titled set of tables with a provenance line, or a note; Jupyter shows it, every
    string as literal text (:func:`~infrabook.tables.markdown_text`)."""

    title: str
    tables: list[Table] = field(default_factory=list)
    provenance: str = ""
    message: str = ""

    def _repr_markdown_(self) -> str:
        parts = [f"**{markdown_text(self.title)}**"] if self.title else []
        parts += [f"```{{note}}\n{markdown_text(self.message)}\n```"] if self.message else []
        parts += [t.markdown() for t in self.tables]
        parts += [f"*{markdown_text(self.provenance)}*"] if self.provenance else []
        return "\n\n".join(parts)


def show(experiment: str, device: str | None = None, *, folder: Folder = None) -> Display:
    """The experiment's tables with one provenance line, or a short note why there are none;
    an unreadable or refused record raises its error (the build must not show it)."""
    where, entry = _resolve(experiment, device, folder)
    if entry is None:
        gpu = experiment not in CPU_EXPERIMENTS and device is None
        return Display("", message=text("bench.no_gpu_record" if gpu else "bench.not_measured"))
    return render(entry, where or "")


def render(entry: Entry, where: str) -> Display:
    """Display one experiment entry: a recorded one, or one a page just measured live."""
    title, line = f"{get(entry.name).title} · {where}", provenance_line(entry)
    if entry.status != "ok":
        why = text("bench.not_run", reason=entry.reason or entry.status)
        return Display(title=title, provenance=line, message=why)
    return Display(title=title, tables=entry.tables, provenance=line)


def entry(experiment: str, device: str | None = None, *, folder: Folder = None) -> Entry | None:
    """The entry of an experiment (None when absent), for what the tables do not show."""
    return _resolve(experiment, device, folder)[1]


def results(experiment: str, device: str | None = None, *, folder: Folder = None) -> Any:
    """The typed results of an experiment, whose methods and properties give what the prose
    quotes; ``LookupError`` saying why when it was not measured there."""
    where, found = _resolve(experiment, device, folder)
    if found is None or found.status != "ok":
        state = "not measured" if found is None else f"{found.status}: {found.reason}"
        raise LookupError(f"{experiment} on {where or 'any GPU'}: {state}")
    return found.results


def targets(device: str | None = None, *, folder: Folder = None) -> Display:
    """Every target of ``conf/bench_targets.toml``: met, missed or not measured, and by how
    much, from one device's record or from all of them."""
    judged: dict[str, list[tuple[str, Any]]] = {}
    read = {device: load(device, folder=folder)} if device is not None else records(folder=folder)
    for name, rec in read.items():
        for exp in rec.experiments.values() if rec else ():
            for t in exp.targets:
                judged.setdefault(t.id, []).append((name, t))
    rows: list[tuple[Any, ...]] = []
    for goal in config.bench_targets().values():
        unit, title = goal.unit, get(goal.experiment).title
        threshold = f"{goal.comparison} {number_text(goal.threshold)}{unit}"
        row = (title, text(f"bench.target.{goal.id}"), threshold)
        for name, t in judged.get(goal.id) or [("—", None)]:
            if t is None or t.measured is None:
                rows.append((name, *row, None, text(_VERDICT[None]), None))
            else:
                measured, margin = f"{number_text(t.measured)}{unit}", f"{t.margin:+.3g}{unit}"
                rows.append((name, *row, measured, text(_VERDICT[t.met]), margin))
    keys = "record experiment target threshold measured verdict margin"
    return Display(title=text("bench.targets.title"), tables=[table("", keys, rows)])


def figure(experiment: str, device: str | None = None, *, folder: Folder = None) -> Any:
    """A matplotlib figure of the measurement, or one that says it was not measured
    (figures exist for the experiments :data:`infrabook.plots.measured.FIGURES` names)."""
    from infrabook.plots import measured

    where, found = _resolve(experiment, device, folder)
    return measured.figure(experiment, found, where)
