"""What the pages call to show the committed measurements.

``show`` displays an experiment's tables with one provenance line and how many other
machines agree with them, or a note saying why there are none; ``results`` gives its typed
results, ``entry`` the whole entry and ``figure`` its measured curve. ``device=None`` reads
the reference record of the experiment's kind of machine (:func:`reference`: the one
``conf/bench_targets.toml`` names, which the chapters' prose quotes); ``folder`` overrides
where records are read; ``side_by_side`` and ``machines_figure`` show every record at once.
An unreadable or refused record raises :class:`~infrabook.bench.records.store.RecordError` naming
the file and the field, so the page's cell fails and the site is not built with it. Every
string a display shows (record, ``conf/``, labels) goes through
:func:`infrabook.tables.markdown_text`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infrabook import config
from infrabook.bench.records import compare, store
from infrabook.bench.records.entry import CudaDevice, Device, Entry, GitInfo, Record
from infrabook.bench.records.results import CPU_EXPERIMENTS, results_type
from infrabook.bench.records.results.described import table, title
from infrabook.labels import text
from infrabook.tables import Table, markdown_text, number_text

_VERDICT = {True: "bench.met", False: "bench.missed", None: "bench.unmeasured"}

Folder = Path | str | None


def load(name: str, *, folder: Folder = None) -> Record | None:
    """The record called ``name`` (its machine's: ``"cpu-amd-epyc-2c-c8153f"``), or None."""
    return store.read(store.record_path(name, Path(folder) if folder else None))


def records(*, folder: Folder = None) -> dict[str, Record]:
    """Every record by name: the reference records first (CPU, then GPU), then the others
    by name."""
    where = Path(folder) if folder else store.bench_dir()
    paths = sorted(where.glob("*.json")) if where.is_dir() else []
    found = {p.stem: store.read(p) for p in paths}
    named = {name: rec for name, rec in found.items() if rec is not None}
    refs = [_reference(kind, named) for kind in ("cpu", "gpu")]
    first = [name for name in refs if name is not None]
    return {name: named[name] for name in first + [n for n in named if n not in first]}


def _reference(kind: str, named: dict[str, Record]) -> str | None:
    ref = config.bench_references().get(kind)
    chosen = ref.record if ref else None
    if chosen in named:
        return chosen
    return next((name for name in named if store.kind_of(name) == kind), None)


def reference(
    kind: str, *, folder: Folder = None, found: dict[str, Record] | None = None
) -> str | None:
    """The record of this kind of machine (``cpu`` or ``gpu``) the chapters quote, among
    ``folder``'s records (or ``found``, records already read): the one
    ``conf/bench_targets.toml`` [[reference]] names, or, when that file is not there (a
    build with only other records in ``INFRABOOK_BENCH_DIR``), the first of that kind by
    name; None when there is none."""
    return _reference(kind, records(folder=folder) if found is None else found)


def _resolve(
    experiment: str, device: str | None, folder: Folder
) -> tuple[str | None, Entry | None]:
    """The record to read and the experiment's entry there (None when absent). A CPU
    record's note that a GPU experiment was skipped is not a measurement of it."""
    results_type(experiment)
    if device is None and experiment in CPU_EXPERIMENTS:
        device = reference("cpu", folder=folder)
        if device is None:
            return None, None
    if device is not None:
        rec = load(device, folder=folder)
        return device, rec.experiments.get(experiment) if rec else None
    found = [
        (name, rec.experiments[experiment])
        for name, rec in records(folder=folder).items()
        if store.kind_of(name) == "gpu" and experiment in rec.experiments
    ]
    return next((f for f in found if f[1].status == "ok"), found[0] if found else (None, None))


def _where(device: Device) -> str:
    """A machine in words: GPU name, SMs and driver, or CPU model and cores."""
    if isinstance(device, CudaDevice):
        return text("bench.prov.gpu", name=device.name, sms=device.sm_count, driver=device.driver)
    return text("bench.prov.cpu", name=device.name, cores=device.usable_cores)


def _commit(git: GitInfo) -> str:
    """A commit as a line shows it: 10 hex digits, and whether the tree had changes."""
    commit = (git.commit or text("word.unknown"))[:10]
    return commit + (text("bench.prov.dirty") if git.dirty else "")


def date_span(dates: Iterable[str]) -> str:
    """The days that ISO timestamps fall on: one day, the first and the last, or ``—``.

    >>> date_span(["2026-11-29T15:02:51Z", "2026-11-29T15:03:10Z"]), date_span([])
    ('2026-11-29', '—')
    >>> date_span(["2026-11-30T01:00:00Z", "2026-11-28T23:00:00Z"])
    '2026-11-28–2026-11-30'
    """
    days = sorted({d[:10] for d in dates}) or ["—"]
    return days[0] if len(days) == 1 else f"{days[0]}–{days[-1]}"


def record_list(*, folder: Folder = None) -> Display:
    """Each record: the experiments it measured, the days (UTC) and the commits they were
    measured at."""
    rows = []
    for name, rec in records(folder=folder).items():
        ok = [(n, e.provenance) for n, e in rec.experiments.items() if e.status == "ok"]
        commits = ", ".join(sorted({_commit(p.git) for _, p in ok})) or "—"
        rows.append((name, ", ".join(n for n, _ in ok), date_span(p.date for _, p in ok), commits))
    keys = ("record", "experiments", "dates", "commit")
    columns = tuple(text(f"prose.records.col.{k}") for k in keys)
    return Display("", tables=[Table("", columns, tuple(rows))])


def provenance_line(entry: Entry, *, method: bool = True) -> str:
    """Device, versions, commit, date, load and (``method``) how it was measured, on one line."""
    prov = entry.provenance
    v = prov.versions
    libs = ", ".join(
        f"{k} {getattr(v, k)}" for k in ("torch", "triton", "numpy", "numexpr") if getattr(v, k)
    )
    parts = [text("bench.prov.measured", where=_where(prov.device)), libs]
    parts += [text("bench.prov.commit", commit=_commit(prov.git)), prov.date]
    load_ = prov.host_load
    if load_.loadavg_1m is not None:
        parts.append(text("bench.prov.load", load=load_.loadavg_1m, cores=load_.cores))
    parts += [text("bench.prov.quick")] if prov.quick else []
    parts += [text("bench.prov.note")] if prov.note else []  # the note itself: in the file
    if method and entry.status == "ok":
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
    notes: tuple[str, ...] = ()

    def _repr_markdown_(self) -> str:
        parts = [f"**{markdown_text(self.title)}**"] if self.title else []
        parts += [f"```{{note}}\n{markdown_text(self.message)}\n```"] if self.message else []
        parts += [t.markdown() for t in self.tables]
        parts += [f"*{markdown_text(self.provenance)}*"] if self.provenance else []
        parts += ["\n".join(f"- {markdown_text(n)}" for n in self.notes)] if self.notes else []
        return "\n\n".join(parts)

    def text(self) -> str:
        """The same in a terminal: title, note, tables, provenance line and notes, a line each."""
        parts = [self.title, self.message, *(t.text() for t in self.tables), self.provenance]
        return "\n".join(p for p in (*parts, *self.notes) if p)


def show(experiment: str, device: str | None = None, *, folder: Folder = None) -> Display:
    """The experiment's tables with one provenance line, or a short note why there are none:
    no GPU record at all, or none that holds this experiment (a record made before it was
    added); an unreadable or refused record raises its error (the build must not show it)."""
    where, entry = _resolve(experiment, device, folder)
    if entry is None:
        gpu = experiment not in CPU_EXPERIMENTS and device is None
        none = gpu and all(store.kind_of(n) != "gpu" for n in records(folder=folder))
        return Display("", message=text("bench.no_gpu_record" if none else "bench.not_measured"))
    shown = render(entry, where or "")
    if device is None and entry.status == "ok":
        shown.notes = (agreement(experiment, folder=folder),)
    return shown


def agreement(experiment: str, *, folder: Folder = None) -> str:
    """How many other machines' records compare with the reference one on this experiment,
    and within what spread, in words (the measurements appendix shows them all)."""
    found = records(folder=folder)
    kind = "cpu" if experiment in CPU_EXPERIMENTS else "gpu"
    ref = _reference(kind, found)
    others, worst = compare.spread(experiment, ref, found) if ref else (0, None)
    if worst is None:
        return text("bench.cmp.alone")
    if worst == 0:
        return text("bench.cmp.identical", n=others)
    # under half a percent, a whole percent would read "within 0%": keep two figures
    spread = f"{worst:.0f}" if worst >= 0.5 else number_text(worst, ".2g")
    return text("bench.cmp.agree", n=others, spread=spread)


def side_by_side(
    experiment: str,
    *,
    folder: Folder = None,
    found: dict[str, Record] | None = None,
    yours: Collection[str] = (),
    refs: Collection[str | None] | None = None,
) -> Display:
    """Every record of ``experiment`` (``folder``'s, or ``found``) side by side, the book's
    model first, each column's machine, date, versions and load in a note under the table,
    the reader's records (``yours``) headed as such and the reference records (``refs``,
    by default those of ``found``) marked; a note when none has it."""
    found = records(folder=folder) if found is None else found
    if refs is None:
        refs = {_reference(kind, found) for kind in ("cpu", "gpu")}
    measured = compare.entries(experiment, found)
    title_ = title(experiment)
    if not measured or not compare.rows(measured):
        return Display(title_, message=text("bench.not_measured"))
    notes = tuple(
        text(
            "bench.cmp.machine",
            name=name + (text("bench.cmp.is_reference") if name in refs else ""),
            what=provenance_line(entry, method=False),
        )
        for name, entry in measured.items()
    )

    def header(name: str) -> str:
        return text("bench.cmp.yours", name=name) if name in yours else name

    return Display(title_, tables=[compare.table(experiment, found, header)], notes=notes)


def machines_figure(experiment: str, *, folder: Folder = None) -> Any:
    """One mark per machine against the book's model, for every row that has a model."""
    from infrabook.plots import measured

    compared = compare.rows(compare.entries(experiment, records(folder=folder)))
    modelled = {row: (m, v) for row, (m, v) in compared.items() if m}
    return measured.machines(modelled)


def render(entry: Entry, where: str) -> Display:
    """Display one experiment entry: a recorded one, or one a page just measured live."""
    title_, line = f"{title(entry.name)} · {where}", provenance_line(entry)
    if entry.status != "ok":
        why = text("bench.not_run", reason=entry.reason or entry.status)
        return Display(title=title_, provenance=line, message=why)
    return Display(title=title_, tables=entry.tables, provenance=line)


def entry(experiment: str, device: str | None = None, *, folder: Folder = None) -> Entry | None:
    """The entry of an experiment (None when absent), for what the tables do not show."""
    return _resolve(experiment, device, folder)[1]


def results(experiment: str, device: str | None = None, *, folder: Folder = None) -> Any:
    """The typed results of an experiment, whose methods and properties give what the prose
    quotes; ``LookupError`` saying why when it was not measured there."""
    where, found = _resolve(experiment, device, folder)
    if found is None or found.status != "ok":
        state = "not measured" if found is None else f"{found.status}: {found.reason}"
        anywhere = "any CPU" if experiment in CPU_EXPERIMENTS else "any GPU"
        raise LookupError(f"{experiment} on {where or anywhere}: {state}")
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
        unit = goal.unit
        # ≥ and ≤ with a no-break space: a threshold is one value, never split over two lines
        sign = {">=": "≥", "<=": "≤"}[goal.comparison]
        threshold = f"{sign}\u00a0{number_text(goal.threshold)}{unit}"
        # the target's words name its experiment's setting: no column of experiment titles
        row = (text(f"bench.target.{goal.id}"), threshold)
        for name, t in judged.get(goal.id) or [("—", None)]:
            if t is None or t.measured is None:
                rows.append((name, *row, None, text(_VERDICT[None]), None))
            else:
                measured, margin = f"{number_text(t.measured)}{unit}", f"{t.margin:+.3g}{unit}"
                rows.append((name, *row, measured, text(_VERDICT[t.met]), margin))
    keys = "record target threshold measured verdict margin"
    return Display(title=text("bench.targets.title"), tables=[table("", keys, rows)])


def figure(experiment: str, device: str | None = None, *, folder: Folder = None) -> Any:
    """A matplotlib figure of the measurement, or one that says it was not measured
    (figures exist for the experiments :data:`infrabook.plots.measured.FIGURES` names)."""
    from infrabook.plots import measured

    where, found = _resolve(experiment, device, folder)
    return measured.figure(experiment, found, where)
