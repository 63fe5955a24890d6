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
    "roofline.silu_separate": ("SiLU 链，分开执行", "SiLU chain, separate"),
    "roofline.silu_fused": ("SiLU 链，融合", "SiLU chain, fused"),
    "roofline.attention_standard": ("标准注意力", "standard attention"),
    "roofline.attention_flash": ("FlashAttention（block_q={block_q}）",
                                 "FlashAttention (block_q={block_q})"),
    "roofline.gemm": ("FFN 矩阵乘，{rows} 行", "FFN GEMM, {rows} rows"),
    "roofline.roof_bf16": ("{device}：bf16 张量核心", "{device}: bf16 tensor cores"),
    "roofline.roof_fp32": ("{device}：FP32 标量单元", "{device}: FP32 non-tensor"),
    "roofline.x": ("算术强度（FLOP/字节）", "arithmetic intensity (FLOP/byte)"),
    "roofline.y": ("可达算力（TFLOP/s）", "attainable compute (TFLOP/s)"),
    "roofline.unit_fp32": ("FP32 标量单元", "FP32 non-tensor units"),
    "roofline.unit_bf16": ("bf16 张量核心", "bf16 tensor cores"),
    "hierarchy.registers": ("寄存器", "registers"),
    "hierarchy.smem": ("共享内存", "shared memory"),
    "hierarchy.l2": ("L2", "L2"),
    "hierarchy.dram": ("显存（设备 DRAM）", "device memory (DRAM)"),
    "hierarchy.per_sm": ("每 SM {value} KiB，共 {total} MiB", "{value} KiB per SM, {total} MiB"),
    "hierarchy.l2_size": ("{value} MiB，全芯片共享", "{value} MiB, shared by all SMs"),
    "hierarchy.dram_size": ("{value} GB", "{value} GB"),
    "hierarchy.bw": ("带宽 {value} TB/s", "bandwidth {value} TB/s"),
    "hierarchy.bw_unknown": ("带宽：厂商未公布", "bandwidth: not published"),
    "hierarchy.bw_onchip": ("带宽：厂商未公布（片上）", "bandwidth: not published (on chip)"),
    "hierarchy.size_unknown": ("容量：资料未给出", "size: not given by the sources"),
    "hierarchy.fused": ("融合：T 只在\n寄存器里存在", "fused: T lives\nonly here"),
    "hierarchy.separate": ("分开：T 写到\n这里再读回", "separate: T written\nhere, read back"),
    "hierarchy.title": ("{device} 的存储层次", "memory hierarchy of {device}"),
    #
    # pages2: timelines
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
