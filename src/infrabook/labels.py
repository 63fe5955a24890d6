"""Reader-facing words, kept in one place so the CLI, the tables, the figures and the pages agree.

Every string the package shows a reader (a table header, a printed line, a verdict, a figure
label) is looked up here by key, in the build's language: Chinese by default, English for the
English edition (``INFRABOOK_LANG=en``). Code identifiers, API names and units are not words and
stay as they are in both languages.

>>> text("verdict.matches", lang="zh")
'一致'
>>> text("verdict.matches", lang="en")
'matches'
>>> text("unit.us_value", lang="zh", value="14.2")
'14.2 μs'
"""

from __future__ import annotations

import os

LANGUAGES = ("zh", "en")

# key: (Chinese, English). Keys are grouped by the module that shows them; each group keeps
# to its own block so that changes to one group never touch another.
_LABELS: dict[str, tuple[str, str]] = {
    # ---- shared words -------------------------------------------------------------------
    "unit.us_value": ("{value} μs", "{value} μs"),
    "word.yes": ("是", "yes"),
    "word.no": ("否", "no"),
    "word.unknown": ("未知", "unknown"),
    # ---- end of shared words ------------------------------------------------------------
    #
    # ---- audit verdicts (audit.py) ------------------------------------------------------
    "verdict.matches": ("一致", "matches"),
    # ---- end of audit -------------------------------------------------------------------
    #
    # ---- tables and figures (tables.py, plots/) -----------------------------------------
    # ---- end of tables and figures ------------------------------------------------------
    #
    # ---- benchmark records (bench/) -----------------------------------------------------
    # ---- end of benchmark records -------------------------------------------------------
    #
    # ---- command line (cli.py) ----------------------------------------------------------
    # ---- end of command line ------------------------------------------------------------
    #
    # ---- calculators' explanations (bucketing, crossover, roofline, ...) ----------------
    # pages1: roofline and memory hierarchy
    #
    # pages2: timelines
    "timeline.lane.host": ("主机提交", "host submits"),
    "timeline.lane.device": ("设备 kernel", "device kernels"),
    "timeline.lane.copy": ("拷贝到显存", "copy to device"),
    "timeline.name.eager": ("普通提交", "separate launches"),
    "timeline.name.graph": ("图重放", "graph replay"),
    "timeline.name.serial": ("串行", "serial"),
    "timeline.name.overlap": ("重叠", "overlapped"),
    "timeline.row": ("{name}·{lane}", "{name}: {lane}"),
    "timeline.axis.time": ("时间(μs)", "time (μs)"),
    "timeline.end": ("共 {value} μs", "{value} μs in all"),
    #
    # pages3: bucketing and crossovers
    #
    # ---- end of calculators -------------------------------------------------------------
}


def language() -> str:
    """The build's language: ``INFRABOOK_LANG`` (``zh`` or ``en``), Chinese when unset.

    >>> language() in LANGUAGES
    True
    """
    lang = os.environ.get("INFRABOOK_LANG", "zh") or "zh"
    if lang not in LANGUAGES:
        raise ValueError(f"INFRABOOK_LANG={lang!r}: expected one of {', '.join(LANGUAGES)}")
    return lang


def text(key: str, lang: str | None = None, **fields: object) -> str:
    """The words for ``key`` in ``lang`` (the build's language by default), with ``fields``
    filled into its ``{placeholders}``.

    >>> text("word.yes", lang="zh"), text("word.yes", lang="en")
    ('是', 'yes')
    >>> text("no.such.key")
    Traceback (most recent call last):
    ...
    KeyError: "no label 'no.such.key'; add it to infrabook/labels.py"
    """
    try:
        pair = _LABELS[key]
    except KeyError:
        raise KeyError(f"no label {key!r}; add it to infrabook/labels.py") from None
    lang = lang or language()
    if lang not in LANGUAGES:
        raise ValueError(f"lang={lang!r}: expected one of {', '.join(LANGUAGES)}")
    chosen = pair[LANGUAGES.index(lang)]
    return chosen.format(**fields) if fields else chosen
