"""Reader-facing words, kept in one place so the CLI, the tables, the figures and the pages agree.

Every string the package shows a reader (a table header, a printed line, a verdict, a figure
label) is looked up here by key, in the build's language: Chinese by default, English for the
English edition (``INFRABOOK_LANG=en``). This module holds the Chinese, the source language;
the English is the gettext catalogue's (:mod:`infrabook.i18n`,
``locale/en/LC_MESSAGES/infrabook.po``). Code identifiers, API names and units are not words
and stay as they are in both languages.

>>> text("verdict.matches", lang="zh")
'一致'
>>> text("verdict.matches", lang="en")
'matches'
>>> text("unit.us_value", lang="zh", value="14.2")
'14.2 μs'
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from infrabook.i18n import LANGUAGES, language, translate
from infrabook.labels import audit, bench, cli, explain, figures, live, prose, site, words

__all__ = ["IN_CONTEXT", "LABELS", "LANGUAGES", "group", "language", "text"]

# Labels whose Chinese another label shares but whose English differs: their key is the
# message's context (msgctxt) in the catalogue. Every other label is translated by its
# Chinese alone, once for every key that uses it.
IN_CONTEXT = frozenset(
    {
        "strategy.specialised",
        "bench.strategy.specialised",
        "fig.fusion.read",
        "cli.col.reads",
        "fig.fusion.written",
        "cli.col.writes",
        "bench.col.pair",
        "live.col.pair",
        "bench.col.prep_ms",
        "live.col.prep_ms",
        "cli.col.host_submissions",
        "timeline.lane.host",
        "roofline.verdict.none",
        "ui.records_none",
        "pdf.edition_label",
        "ui.version",
        "prose.bucketing.calls_many",
        "prose.bucketing.calls_one",
        "prose.bucketing.col.rows",
        "bench.col.rows",
        "prose.bucketing.col.strategy",
        "prose.bucketing.col.mfu",
        "live.col.executed_util",
        "prose.bucketing.col.time",
        "live.col.run_ms",
        "prose.bucketing.col.useful_mfu",
        "live.col.useful_mfu",
        "prose.preconditions.col.executed_pad",
        "prose.bucketing.col.executed_pad",
        "prose.preconditions.col.time",
        "prose.preconditions.col.prep",
        "prose.bucketing.col.prep",
        "prose.recompute.col.line",
        "prose.audit.col.verdict",
        "prose.audit.col.section",
        "cli.col.section",
        "prose.audit.col.article",
        "cli.col.stated",
        "prose.audit.col.recomputed",
        "cli.col.recomputed",
        "prose.audit.col.device",
        "prose.fusion.col.device",
        "prose.audit.col.dram",
        "prose.fusion.col.dram",
        "prose.audit.col.fits",
        "bench.col.fits_l2",
        "prose.decision.col.article",
        "prose.compiler.schedule.unfused",
        "prose.conclusion.fusion",
        "prose.conclusion.bucketing",
        "prose.graph_replay.col.config",
        "prose.graph_replay.col.kernels",
        "timeline.lane.device",
        "prose.measure.col.eager",
        "prose.conclusion.col.plain",
        "prose.records.col.record",
        "bench.col.record",
        "prose.records.col.commit",
        "ui.commit",
        # words a table header shares: a header is in sentence case, a figure's label or a
        # table cell keeps its own
        "fig.fusion.kernel",
        "bench.fig.measured",
        "prose.conclusion.replay_keeps",
    }
)

# key: Chinese, one module per namespace (a key's first part): a new label goes into the module
# that owns its namespace, so that changes to one part of the book never touch another. A
# label written the old way, "key": ("中文", "English"), is converted by ``nox -s catalogues``
# (the English moves into the catalogue; see infrabook.catalogue.convert_labels).
MODULES = (words, audit, figures, explain, bench, cli, live, site, prose)
SOURCES = tuple(Path(module.__file__ or "") for module in MODULES)


def _merged() -> dict[str, str]:
    owners: dict[str, ModuleType] = {}
    for module in MODULES:
        for ns in module.NAMESPACES:
            if ns in owners:
                raise ValueError(
                    f"namespace {ns!r} is claimed by {owners[ns].__name__} and {module.__name__}"
                )
            owners[ns] = module
    merged: dict[str, str] = {}
    for module in MODULES:
        for key, zh in module.LABELS.items():
            owner = owners.get(key.partition(".")[0])
            if owner is not module:
                where = owner.__name__ if owner else "no module (add its namespace to one)"
                raise ValueError(
                    f"label {key!r} is in {module.__name__}, but its namespace is {where}'s"
                )
            merged[key] = zh
    return merged


LABELS: dict[str, str] = _merged()


def text(key: str, lang: str | None = None, **fields: object) -> str:
    """The words for ``key`` in ``lang`` (the build's language by default), with ``fields``
    filled into its ``{placeholders}``.

    >>> text("word.yes", lang="zh"), text("word.yes", lang="en")
    ('是', 'yes')
    >>> text("fig.fusion.read", lang="en"), text("cli.col.reads", lang="en")
    ('read', 'Reads')
    >>> text("no.such.key")
    Traceback (most recent call last):
    ...
    KeyError: "no label 'no.such.key'; add it to the infrabook.labels module of its namespace"
    """
    try:
        zh = LABELS[key]
    except KeyError:
        raise KeyError(
            f"no label {key!r}; add it to the infrabook.labels module of its namespace"
        ) from None
    chosen = translate(zh, context=key if key in IN_CONTEXT else None, lang=lang)
    return chosen.format(**fields) if fields else chosen


def group(prefix: str, lang: str | None = None) -> dict[str, str]:
    """Every label whose key starts with ``prefix.``, keyed by the rest of the key, in
    ``lang`` (the build's language by default); placeholders are left unfilled.

    >>> group("ui", lang="en")["other_edition"], group("a11y", lang="zh")["chapters"]
    ('中文', '章节目录')
    """
    start = f"{prefix}."
    return {k.removeprefix(start): text(k, lang) for k in LABELS if k.startswith(start)}
