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
    #
    # pages3: bucketing and crossovers
    "strategy.generic": ("通用", "generic"),
    "strategy.bucketed": ("分桶", "bucketed"),
    "strategy.specialised": ("逐形状特化", "per-shape specialised"),
    "buckets.col.strategy": ("策略", "strategy"),
    "buckets.col.rows": ("执行行数", "rows executed"),
    "buckets.col.padding": ("补齐", "padding"),
    "buckets.col.executed": ("执行利用率", "executed utilisation"),
    "buckets.col.useful": ("有用 MFU", "useful MFU"),
    "buckets.col.rate": ("处理率 TFLOP/s", "rate TFLOP/s"),
    "buckets.col.time": ("每组时间 ms", "time per group ms"),
    "buckets.col.prep": ("准备时间 ms", "prep ms"),
    "buckets.assumed": (
        "执行利用率（含补齐行）是假设，不是实测，可用 --mfu 改：{mfus}；"
        "占峰值 {peak} TFLOP/s。有用 MFU 只计实际行。",
        "Executed utilisations (padding rows included) are assumptions, not measurements; "
        "change them with --mfu: {mfus}; of a {peak} TFLOP/s peak. "
        "Useful MFU counts real rows only.",
    ),
    "audit.note.bucketing_mfu": (
        "原文的 {stated}% 计入补齐行，是执行利用率；有用 MFU（PaLM 的定义，只计实际行）"
        "为 {useful:.1%}（按峰值 {peak:g} TFLOP/s 为 {useful_peak:.1%}）",
        "the article's {stated}% counts padding rows: it is executed utilisation; useful MFU "
        "(PaLM's definition, real rows only) is {useful:.1%} ({useful_peak:.1%} of the "
        "{peak:g} TFLOP/s peak)",
    ),
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
