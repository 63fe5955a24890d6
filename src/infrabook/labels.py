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
    #
    # ---- end of calculators -------------------------------------------------------------
    #
    # ---- live calculators (live.py, docs/_ext/infrabook_live.py) ------------------------
    "live.title.fusion": ("试一试：你的形状下每种融合方案的流量与峰值",
                          "Try it: traffic and peak of every fusion plan for your shape"),
    "live.title.attention": ("试一试：标准实现与分块 FlashAttention 的读写",
                             "Try it: standard attention and tiled FlashAttention traffic"),
    "live.title.softmax": ("试一试：自己走一遍在线 softmax", "Try it: online softmax by hand"),
    "live.title.buckets": ("试一试：你的形状分布下的补齐、利用率、时间与交叉点",
                           "Try it: padding, utilisation, time and crossovers for your shapes"),
    "live.title.crossover": ("试一试：你的准备时间 P 与每次运行时间 T_run",
                             "Try it: your preparation time P and run time T_run"),
    "live.field.rows": ("行数 rows", "rows"),
    "live.field.cols": ("列数 cols", "cols"),
    "live.field.dtype": ("数据类型", "dtype"),
    "live.field.quant_dtype": ("量化到", "quantise to"),
    "live.field.seq_len": ("序列长度 L", "sequence length L"),
    "live.field.head_dim": ("头维度 d", "head dim d"),
    "live.field.score_dtype": ("S、P 的数据类型", "dtype of S and P"),
    "live.field.block_q": ("查询块行数 block_q", "query block rows block_q"),
    "live.field.block_k": ("键值块行数 block_k", "key/value block rows block_k"),
    "live.field.causal": ("因果掩码", "causal mask"),
    "live.field.scores": ("分数 s_i（逗号分隔）", "scores s_i (comma-separated)"),
    "live.field.values": ("值 v_i（逗号分隔）", "values v_i (comma-separated)"),
    "live.field.block": ("每块几个分数", "scores per block"),
    "live.field.calls": ("一组调用的行数（256x8 表示 8 次 256 行）",
                         "rows of a group of calls (256x8 means 8 calls of 256 rows)"),
    "live.field.buckets": ("桶的大小（逗号分隔）", "bucket sizes (comma-separated)"),
    "live.field.peak_tflops": ("峰值算力 TFLOP/s", "peak TFLOP/s"),
    "live.field.util_generic": ("通用：执行利用率", "generic: executed utilisation"),
    "live.field.util_bucketed": ("分桶：执行利用率", "bucketed: executed utilisation"),
    "live.field.util_specialised": ("逐形状特化：执行利用率",
                                    "per-shape specialised: executed utilisation"),
    "live.field.prep_generic": ("通用：准备时间 P（ms）", "generic: preparation P (ms)"),
    "live.field.prep_bucketed": ("分桶：准备时间 P（ms）", "bucketed: preparation P (ms)"),
    "live.field.prep_specialised": ("逐形状特化：准备时间 P（ms）",
                                    "per-shape specialised: preparation P (ms)"),
    "live.field.run_generic": ("通用：每组时间 T_run（ms）", "generic: T_run per group (ms)"),
    "live.field.run_bucketed": ("分桶：每组时间 T_run（ms）", "bucketed: T_run per group (ms)"),
    "live.field.run_specialised": ("逐形状特化：每组时间 T_run（ms）",
                                   "per-shape specialised: T_run per group (ms)"),
    "live.error.int": ("{label}：应为 {low} 到 {high} 之间的整数，收到 {raw}",
                       "{label}: expected an integer from {low} to {high}, got {raw}"),
    "live.error.float": ("{label}：应为 {low} 到 {high} 之间的有限数，收到 {raw}",
                         "{label}: expected a finite number from {low} to {high}, got {raw}"),
    "live.error.choice": ("{label}：应为 {choices} 之一，收到 {raw}",
                          "{label}: expected one of {choices}, got {raw}"),
    "live.error.items": ("{label}：应为 1 到 {items} 项、以逗号分隔，每项在 {low} 到 {high} 之间，"
                         "收到 {raw}",
                         "{label}: expected 1 to {items} comma-separated items, each from {low} "
                         "to {high}, got {raw}"),
    "live.error.same_length": ("值的个数（{values}）与分数的个数（{scores}）不同",
                               "{values} values for {scores} scores: the counts must match"),
    "live.col.plan": ("方案", "plan"),
    "live.col.kernels": ("kernel 数", "kernels"),
    "live.col.traffic_mib": ("流量 MiB", "traffic MiB"),
    "live.col.peak_mib": ("峰值 MiB", "peak MiB"),
    "live.col.quantity": ("量", "quantity"),
    "live.col.block": ("块", "block"),
    "live.col.scores": ("本块的分数", "scores in the block"),
    "live.col.strategy": ("策略", "strategy"),
    "live.col.executed_rows": ("执行行数", "rows executed"),
    "live.col.padding": ("补齐", "padding"),
    "live.col.executed_util": ("执行利用率", "executed utilisation"),
    "live.col.useful_mfu": ("有用 MFU", "useful MFU"),
    "live.col.run_ms": ("每组时间 ms", "time per group ms"),
    "live.col.prep_ms": ("准备 ms", "preparation ms"),
    "live.col.pair": ("两种策略", "strategies"),
    "live.col.crossover_n": ("交叉点 n*（组）", "crossover n* (groups)"),
    "live.col.from_n": ("运行组数 n 从", "runs n from"),
    "live.col.to_n": ("到", "to"),
    "live.col.cheapest": ("最省的策略", "cheapest"),
    "live.row.qkvo_each": ("Q / K / V / O（各）", "Q / K / V / O (each)"),
    "live.row.score_each": ("S / P（各）", "S / P (each)"),
    "live.row.standard_io": ("标准实现：读 Q、K、V，写 O", "standard: read Q, K, V, write O"),
    "live.row.standard_intermediate": ("标准实现：S、P 各写一次、读一次",
                                       "standard: S and P each written and read once"),
    "live.row.standard_total": ("标准实现合计", "standard: total"),
    "live.row.flash_total": ("FlashAttention 分块（{tiles} 个查询块）合计",
                             "FlashAttention tiled ({tiles} query tiles): total"),
    "live.row.flash_kv": ("其中 K、V 的读取", "of which K and V reads"),
    "live.note.softmax_result": ("结果 u/ℓ = {value}", "result u/ℓ = {value}"),
    "live.cell.never": ("不相交（平行）", "never (parallel)"),
    "live.ui.enable": ("启用实时计算", "Turn on live calculation"),
    "live.ui.loading": ("正在载入浏览器里的 Python（首次需要几秒）…",
                        "Loading Python in your browser (a few seconds the first time)…"),
    "live.ui.ready": ("实时计算已启用：修改输入，结果随之更新。",
                      "Live: change an input and the tables follow."),
    "live.ui.static": ("下表是构建时用默认输入（原文的例子）算出的；启用实时计算后，它随输入更新。",
                       "The tables below were computed at build time for the defaults (the "
                       "article's case); turn on live calculation to change them."),
    "live.ui.file": ("本页是从 file:// 打开的，浏览器不允许在这里加载实时计算所需的模块；"
                     "通过 http(s) 打开本页即可启用。下表是构建时算出的结果。",
                     "This page was opened from file://, where the browser will not load the "
                     "modules live calculation needs; open it over http(s). The tables below "
                     "were computed at build time."),
    "live.ui.unsupported": ("这个浏览器不支持 WebAssembly，无法实时计算；下表是构建时算出的结果。",
                            "This browser has no WebAssembly, so nothing runs live; the tables "
                            "below were computed at build time."),
    "live.ui.failed": ("实时计算未能启动（{error}）；下表是构建时算出的结果。",
                       "Live calculation could not start ({error}); the tables below were "
                       "computed at build time."),
    "live.title.recompute": ("试一试：用你的参数重跑第 6 节的复算",
                             "Try it: section 6's recomputation with your parameters"),
    "live.col.item": ("项目", "item"),
    "live.col.result": ("结果", "result"),
    "live.recompute.fusion": ("融合", "fusion"),
    "live.recompute.fusion_value": ("分开 {sep} MiB → 融合 {fused} MiB（字节模型 {ratio}×）；三步 "
                                    "{three}/{mid}/{all} MiB",
                                    "separate {sep} MiB → fused {fused} MiB (byte model "
                                    "{ratio}×); three steps {three}/{mid}/{all} MiB"),
    "live.recompute.peak": ("峰值", "peak"),
    "live.recompute.peak_value": ("分开 {sep} MiB 对全融合 {fused} MiB（读写 −{traffic} MiB，"
                                  "峰值只 −{peak} MiB）",
                                  "separate {sep} MiB vs fully fused {fused} MiB (traffic "
                                  "−{traffic} MiB, peak only −{peak} MiB)"),
    "live.recompute.attention": ("FlashAttention", "FlashAttention"),
    "live.recompute.attention_value": ("Q、K、V、O 各 {io} MiB；S、P 各 {score} MiB → "
                                       "标准实现的中间读写 {gib} GiB",
                                       "Q, K, V, O {io} MiB each; S, P {score} MiB each → "
                                       "standard intermediate traffic {gib} GiB"),
    "live.recompute.crossover": ("交叉点（组，原文的处理率）",
                                 "crossovers (groups, article's rates)"),
    # ---- end of live calculators ---------------------------------------------------------
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
