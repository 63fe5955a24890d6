"""What the pages call to show the committed measurements.

``show`` returns an object that Jupyter (and MyST-NB) displays as the experiment's tables,
rendered like every other table of the book, with one provenance line under them; where
the record or the experiment is missing it says so in a short note instead of failing.
``value`` returns one number for the prose, ``entry`` the whole entry, ``figure`` a measured
curve (:mod:`infrabook.plots.measured`); all are derived from the stored results when
reading. A record that cannot be read raises :class:`~infrabook.bench.record.RecordError`
naming the file and why (``show`` displays it). ``folder`` overrides where records are read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infrabook import config
from infrabook.bench import record
from infrabook.bench.experiment import columns as experiment_columns
from infrabook.bench.record import Entry, Record, RecordError
from infrabook.bench.registry import CPU_EXPERIMENTS, get
from infrabook.labels import text
from infrabook.tables import Table, number_text

NOT_MEASURED = text("bench.not_measured")
NO_GPU_RECORD = text("bench.no_gpu_record")

_MISSING = object()
_VERDICT = {True: "bench.met", False: "bench.missed", None: "bench.unmeasured"}


def _folder(folder: Path | str | None) -> Path:
    return Path(folder) if folder is not None else record.bench_dir()


def load(device: str = "cpu", *, folder: Path | str | None = None) -> Record | None:
    """The record of ``device`` (``"cpu"``, ``"nvidia-h200"``, ...), or None if absent."""
    return record.read(record.record_path(device, _folder(folder)))


def devices(*, folder: Path | str | None = None) -> list[str]:
    """Devices that have a record, ``cpu`` first."""
    where = _folder(folder)
    names = sorted(p.stem for p in where.glob("*.json")) if where.is_dir() else []
    present = [n for n in names if record.read(where / f"{n}.json") is not None]
    return sorted(present, key=lambda n: (n != "cpu", n))


def _resolve(
    experiment: str, device: str | None, folder: Path | str | None
) -> tuple[str | None, Entry | None]:
    """The device to read and the experiment's entry there (None when absent).

    ``device=None``: ``cpu`` for the CPU experiments; for the GPU ones the first GPU record
    that has them, measured or not. A CPU record's note that a GPU experiment was skipped
    is not a measurement of it, so without a GPU record a GPU experiment is "not measured".
    """
    get(experiment)
    if device is None and experiment in CPU_EXPERIMENTS:
        device = "cpu"
    if device is not None:
        rec = load(device, folder=folder)
        return device, rec.experiments.get(experiment) if rec else None
    found: tuple[str | None, Entry | None] = (None, None)
    for name in devices(folder=folder):
        rec = load(name, folder=folder)
        entry = rec.experiments.get(experiment) if rec and name != "cpu" else None
        if entry is not None and (entry.status == "ok" or found[1] is None):
            found = (name, entry)
            if entry.status == "ok":
                break
    return found


def provenance_line(entry: Entry) -> str:
    """Device, versions, commit, date, load and method of one entry, on one line."""
    prov = entry.provenance
    dev = prov.device
    if dev.get("kind") == "cuda":
        where = text(
            "bench.prov.gpu",
            name=dev.get("name"),
            sms=dev.get("sm_count"),
            driver=dev.get("driver"),
        )
    else:
        where = text("bench.prov.cpu", name=dev.get("name"), cores=dev.get("usable_cores"))
    v = prov.versions
    libs = ", ".join(f"{k} {v[k]}" for k in ("torch", "triton", "numpy", "numexpr") if v.get(k))
    commit = (prov.git.get("commit") or text("word.unknown"))[:10]
    if prov.git.get("dirty"):
        commit += text("bench.prov.dirty")
    parts = [
        text("bench.prov.measured", where=where),
        libs,
        text("bench.prov.commit", commit=commit),
        prov.date,
    ]
    load_ = prov.host_load
    if load_.get("loadavg_1m") is not None:
        parts.append(text("bench.prov.load", load=load_["loadavg_1m"], cores=load_.get("cores")))
    if prov.quick:
        parts.append(text("bench.prov.quick"))
    if prov.note:
        parts.append(prov.note)
    parts.append(text("bench.prov.method", method=entry.method.get("summary", "")))
    return " · ".join(parts)


@dataclass
class Display:
    """A titled set of tables with a provenance line, or a note; Jupyter shows it."""

    title: str
    tables: list[Table] = field(default_factory=list)
    provenance: str = ""
    message: str = ""
    kind: str = "note"

    def _repr_markdown_(self) -> str:
        parts = [f"**{self.title}**"] if self.title else []
        if self.message:
            parts.append(f"```{{{self.kind}}}\n{self.message}\n```")
        parts += [t.markdown() for t in self.tables]
        if self.provenance:
            parts.append(f"*{self.provenance}*")
        return "\n\n".join(parts)


def show(
    experiment: str, device: str | None = None, *, folder: Path | str | None = None
) -> Display:
    """The experiment's tables with one provenance line, or a short note why there are none.

    ``device=None`` is ``"cpu"`` for the CPU experiments and, for the GPU ones, the first
    GPU record that has them. An unreadable record is shown as an error naming the file.
    """
    try:
        where, entry = _resolve(experiment, device, folder)
    except RecordError as err:
        return Display(title=get(experiment).title, message=str(err), kind="error")
    if entry is None:
        gpu = experiment not in CPU_EXPERIMENTS and device is None
        return Display(title="", message=NO_GPU_RECORD if gpu else NOT_MEASURED)
    return render(entry, where or "")


def render(entry: Entry, where: str) -> Display:
    """Display one experiment entry: a recorded one, or one a page just measured live."""
    title = f"{entry.title} · {where}"
    if entry.status != "ok":
        return Display(
            title=title,
            provenance=provenance_line(entry),
            message=text("bench.not_run", reason=entry.reason or entry.status),
        )
    return Display(title=title, tables=entry.tables, provenance=provenance_line(entry))


def entry(
    experiment: str, device: str | None = None, *, folder: Path | str | None = None
) -> Entry | None:
    """The entry of an experiment (None when absent), for what the tables do not show."""
    return _resolve(experiment, device, folder)[1]


def value(
    experiment: str,
    key: str,
    device: str | None = None,
    *,
    default: Any = _MISSING,
    folder: Path | str | None = None,
) -> Any:
    """One measured number (or word) of an experiment, derived from its results.

    Raises ``KeyError`` naming what is missing, unless ``default`` is given.
    """
    where, found = _resolve(experiment, device, folder)
    values = found.values if found is not None else {}
    if key in values:
        return values[key]
    if default is not _MISSING:
        return default
    if found is None or found.status != "ok":
        state = "not measured" if found is None else f"{found.status}: {found.reason}"
        raise KeyError(f"{experiment} on {where or 'any GPU'}: {state}")
    raise KeyError(
        f"{experiment} on {where} has no value {key!r}; it has: {', '.join(sorted(values))}"
    )


def targets(device: str | None = None, *, folder: Path | str | None = None) -> Display:
    """Every target of ``conf/bench_targets.toml``: met, missed or not measured, and by how
    much, from one device's record or from all of them."""
    judged: dict[str, list[tuple[str, Any]]] = {}
    for name in [device] if device is not None else devices(folder=folder):
        rec = load(name, folder=folder)
        for exp in rec.experiments.values() if rec else ():
            for t in exp.targets:
                judged.setdefault(t.id, []).append((name, t))
    rows = []
    for goal in config.bench_targets().values():
        unit = goal["unit"]
        threshold = f"{goal['comparison']} {number_text(goal['threshold'])}{unit}"
        for name, t in judged.get(goal["id"]) or [("—", None)]:
            met = None if t is None else t.met
            verdict = text(_VERDICT[met])
            rows.append(
                (
                    name,
                    get(goal["experiment"]).title,
                    goal["description"],
                    threshold,
                    None if met is None else f"{number_text(t.measured)}{unit}",
                    verdict,
                    None if met is None else f"{t.margin:+.3g}{unit}",
                    (t.note if t is not None else "") or None,
                )
            )
    columns = experiment_columns("record experiment target threshold measured verdict margin note")
    return Display(title=text("bench.targets.title"), tables=[Table("", columns, tuple(rows))])


def figure(experiment: str, device: str | None = None, *, folder: Path | str | None = None) -> Any:
    """A matplotlib figure of the measurement, or one that says it was not measured
    (figures exist for the experiments :data:`infrabook.plots.measured.FIGURES` names)."""
    from infrabook.plots import measured

    where, found = _resolve(experiment, device, folder)
    return measured.figure(experiment, found, where)
