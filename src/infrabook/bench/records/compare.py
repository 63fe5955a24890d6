"""Records from many machines side by side: per experiment, the book's model prediction
first, then one column per record, over the rows the experiment's results compare
(:meth:`infrabook.bench.records.entry.Results.compared`); the measurements appendix shows this,
and so does ``python -m infrabook.bench compare`` in the terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from infrabook.bench.records.entry import Entry, Record
from infrabook.labels import text
from infrabook.tables import Table

Rows = dict[str, tuple[float | None, dict[str, float | None]]]


def entries(experiment: str, records: Mapping[str, Record]) -> dict[str, Entry]:
    """The measured (``ok``) entries of ``experiment``, by record name, in the given order."""
    found = {name: rec.experiments.get(experiment) for name, rec in records.items()}
    return {name: e for name, e in found.items() if e is not None and e.status == "ok"}


def rows(measured: Mapping[str, Entry]) -> Rows:
    """By row: the book's model (the first record's that has one) and each record's value;
    a row one record lacks (other sizes, a path that did not run) is None there. A row only
    some records have goes after the row it follows in theirs, so sizes stay in order.

    >>> from types import SimpleNamespace as N
    >>> def at(*ls):
    ...     by_row = {f"L={n}": (n, n) for n in ls}
    ...     prov = N(device={})
    ...     return N(params={}, provenance=prov, results=N(compared=lambda params, device: by_row))
    >>> list(rows({"full": at(1024, 2048), "quick": at(256, 512, 1024)}))
    ['L=256', 'L=512', 'L=1024', 'L=2048']
    """
    out: Rows = {}
    order: list[str] = []
    for name, entry in measured.items():
        before = -1
        for row, (model, value) in entry.results.compared(
            entry.params, entry.provenance.device
        ).items():
            if row not in out:
                order.insert(before + 1, row)
            before = order.index(row)
            known, values = out.get(row, (None, {}))
            out[row] = (known if known is not None else model, values | {name: value})
    return {row: (out[row][0], {n: out[row][1].get(n) for n in measured}) for row in order}


def table(
    experiment: str,
    records: Mapping[str, Record],
    header: Callable[[str], str] = str,
) -> Table:
    """The experiment's rows, model first, one column per record that measured it (headed
    ``header(name)``); a table without rows when none did.

    >>> table("fusion", {}).columns
    ('数值', '本书的模型')
    """
    compared = rows(entries(experiment, records))
    names = list(entries(experiment, records))
    columns = (text("bench.col.quantity"), text("bench.col.model"), *map(header, names))
    return Table(
        "",
        columns,
        tuple((row, model, *(v[n] for n in names)) for row, (model, v) in compared.items()),
    )


def spread(
    experiment: str, reference: str, records: Mapping[str, Record]
) -> tuple[int, float | None]:
    """How many other records measured ``experiment`` at the reference's sizes (a quick run
    is not compared with a full one) on rows the reference also has, and the largest
    difference from the reference on those rows, in percent of the reference's value (None
    when no other record compares)."""
    measured = entries(experiment, records)
    if reference not in measured:
        return 0, None
    compared, others, worst = rows(measured), 0, None
    quick = measured[reference].provenance.quick
    for name, entry in measured.items():
        if name == reference or entry.provenance.quick != quick:
            continue
        pairs = [(v[name], v[reference]) for _, v in compared.values()]
        diffs = [100 * abs(a - b) / abs(b) for a, b in pairs if a is not None and b]
        if diffs:
            others += 1
            worst = max(diffs) if worst is None else max(worst, *diffs)
    return others, worst
