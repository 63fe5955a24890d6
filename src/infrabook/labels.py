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
    "strategy.generic": ("通用", "generic"),
    "strategy.bucketed": ("分桶", "bucketed"),
    "strategy.specialised": ("逐形状特化", "per-shape specialised"),
    "table.each": ("{name}（各）", "{name} (each)"),
    "fig.fusion.read": ("读", "read"),
    "fig.fusion.written": ("写", "written"),
    "fig.fusion.read_mid": ("读（中间量）", "read (intermediate)"),
    "fig.fusion.written_mid": ("写（中间量）", "written (intermediate)"),
    "fig.fusion.plan_total": ("{plan}：{mib} MiB", "{plan}: {mib} MiB"),
    "fig.fusion.kernel": ("kernel", "kernel"),
    "fig.fusion.moved_mib": ("搬运的字节（MiB）", "bytes moved (MiB)"),
    "fig.fusion.live": ("驻留：{name}", "live: {name}"),
    "fig.fusion.total_traffic": ("总流量", "total traffic"),
    "fig.fusion.traffic_tick": ("流量", "traffic"),
    "fig.fusion.peak_live": ("驻留峰值", "peak live"),
    "fig.fusion.panel_title": ("{plan}\n流量 {traffic} MiB，峰值 {peak} MiB",
                               "{plan}\ntraffic {traffic} MiB, peak {peak} MiB"),
    "fig.fusion.step": ("kernel 步骤", "kernel step"),
    "fig.attention.flash": ("FlashAttention，block_q={block_q}",
                            "FlashAttention, block_q={block_q}"),
    "fig.attention.flash_causal": ("FlashAttention 因果，block_k={block_k}",
                                   "FlashAttention causal, block_k={block_k}"),
    "fig.attention.ideal": ("理想：Q、K、V、O 各一次（4 L d）",
                            "ideal: Q, K, V, O once (4 L d)"),
    "fig.attention.standard": ("标准：输入输出 + S、P 写回再读",
                               "standard: I/O + S, P write and read"),
    "fig.attention.standard_sp": ("标准：仅 S、P", "standard: S, P only"),
    "fig.attention.length": ("序列长度 L（token）", "sequence length L (tokens)"),
    "fig.attention.traffic": ("每个头的流量（MiB），d={d}，{dtype}",
                              "traffic per head (MiB), d={d}, {dtype}"),
    "fig.launch.host": ("主机提交（控制面）", "host submissions (control plane)"),
    "fig.launch.kernels": ("执行的 kernel（数据面）", "kernels executed (data plane)"),
    "fig.launch.count": ("每批运行的次数", "count per batch of runs"),
    "fig.bucket.real": ("实际行", "real rows"),
    "fig.bucket.padding": ("补齐行", "padding rows"),
    "fig.bucket.rows": ("每组执行的行数", "rows executed per group"),
    "fig.bucket.rows_title": ("工作量：执行的行数", "work: rows executed"),
    "fig.bucket.time": ("每组时间（ms）", "time per group (ms)"),
    "fig.bucket.time_title": ("时间：行数 ÷（MFU × 峰值）", "time: rows / (MFU × peak)"),
    "fig.crossover.line": ("{name}：{prep} + {run}·n ms", "{name}: {prep} + {run}·n ms"),
    "fig.crossover.cheapest": ("最省：{name}", "cheapest: {name}"),
    "fig.crossover.runs": ("运行次数 n（调用组数）", "runs n (groups of calls)"),
    "fig.crossover.total": ("总时间 P + n·T_run（ms）", "total time P + n·T_run (ms)"),
    "fig.sweep.ratio": ("{b} / {g}", "{b} / {g}"),
    "fig.sweep.even": ("持平", "break-even"),
    "fig.sweep.loses": ("{b}更慢", "{b} loses"),
    "fig.sweep.rows": ("每次调用的行数（各次调用同样大小）",
                       "rows per call (all calls the same size)"),
    "fig.sweep.ylabel": ("时间比 {b} / {g}", "time ratio {b} / {g}"),
    "fig.tiles.persistent": ("常驻 kernel（{programs} 个程序）",
                             "persistent ({programs} programs)"),
    "fig.tiles.per_tile": ("每块一个程序（{tiles} 个程序）", "per tile ({tiles} programs)"),
    "fig.tiles.xlabel": ("块编号（格中数字：计算该块的程序）",
                         "tile index (cell text: the program that computes it)"),
    # ---- end of tables and figures ------------------------------------------------------
    #
    # ---- benchmark records (bench/) -----------------------------------------------------
    # ---- end of benchmark records -------------------------------------------------------
    #
    # ---- command line (cli.py) ----------------------------------------------------------
    # ---- end of command line ------------------------------------------------------------
    #
    # ---- calculators' explanations (bucketing, crossover, roofline, ...) ----------------
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
