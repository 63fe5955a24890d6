"""The calculators' explanations: launches, the roofline, the memory hierarchy, timelines,
bucketing and crossovers (and the errors bucketing raises).

Keys: ``launches.``, ``roofline.``, ``hierarchy.``, ``timeline.``, ``buckets.``, ``bucketing.``.
Chinese only; the English is the catalogue's.
"""

NAMESPACES = ("launches", "roofline", "hierarchy", "timeline", "buckets", "bucketing")

LABELS: dict[str, str] = {
    "launches.eager": "普通提交",
    "launches.graph": "图重放(CUDA Graph)",
    "launches.fused": "融合激活链",
    "launches.fused+graph": "融合 + 图重放",
    # pages1: roofline and memory hierarchy
    "roofline.silu_separate": "SiLU 链，分开执行",
    "roofline.silu_fused": "SiLU 链，融合",
    "roofline.attention_standard": "标准注意力",
    "roofline.attention_flash": "FlashAttention，K、V 读自显存",
    "roofline.attention_flash_l2": "FlashAttention，K、V 读自 L2",
    "roofline.verdict.from_dram": "需要 {tb_s} TB/s，显存带宽够的设备：{devices}",
    "roofline.verdict.not_from_dram": (
        "需要 {tb_s} TB/s，高于所列每种设备的显存带宽（最快的 {fastest} 为 {fastest_tb_s} TB/s）；"
        "只有工作集留在 L2 里（L2 装得下的设备：{l2}）或形状与所写不同时才可能"
    ),
    "roofline.verdict.none": "无",
    "roofline.verdict.sep": "、",
    "roofline.gemm": "FFN 矩阵乘，{rows} 行",
    "roofline.roof_bf16": "{device}：bf16 张量核心",
    "roofline.roof_fp32": "{device}：FP32 标量单元",
    "roofline.x": "算术强度（FLOP/字节）",
    "roofline.y": "可达算力（TFLOP/s）",
    "roofline.unit_fp32": "FP32 标量单元",
    "roofline.unit_bf16": "bf16 张量核心",
    "hierarchy.registers": "寄存器",
    "hierarchy.smem": "共享内存",
    "hierarchy.l2": "L2",
    "hierarchy.dram": "显存（设备 DRAM）",
    "hierarchy.per_sm": "每 SM {value} KiB，共 {total} MiB",
    "hierarchy.l2_size": "{value} MiB，全芯片共享",
    "hierarchy.dram_size": "{value} GB",
    "hierarchy.bw": "带宽 {value} TB/s",
    "hierarchy.bw_unknown": "带宽：厂商未公布",
    "hierarchy.bw_onchip": "带宽：厂商未公布（片上）",
    "hierarchy.size_unknown": "容量：资料未给出",
    "hierarchy.fused": "融合：T 只在\n寄存器里存在",
    "hierarchy.separate": "分开：T 写到\n这里再读回",
    "hierarchy.title": "{device} 的存储层次",
    # pages2: timelines
    "timeline.lane.host": "主机提交",
    "timeline.lane.device": "设备 kernel",
    "timeline.lane.copy": "拷贝到显存",
    "timeline.name.eager": "普通提交",
    "timeline.name.graph": "图重放",
    "timeline.name.serial": "串行",
    "timeline.name.overlap": "重叠",
    "timeline.row": "{name}·{lane}",
    "timeline.axis.time": "时间(μs)",
    "timeline.end": "共 {value} μs",
    # pages3: bucketing and crossovers
    "buckets.assumed": (
        "执行利用率（含补齐行）是假设，不是实测，可用 --mfu 改：{mfus}；"
        "占峰值 {peak} TFLOP/s。有用 MFU 只计实际行。"
    ),
    "buckets.peak_source": (
        "给了 --mfu，处理率都按“执行利用率 × 峰值”计算，峰值取 conf/scenarios.toml 的 "
        "{peak} TFLOP/s（原文的分母）；原文取整的处理率对应的峰值是 {stated} TFLOP/s。"
    ),
    # The errors bucketing.py raises reach a reader through the live calculators.
    "bucketing.error.no_calls": "调用列表为空：应为（行数, 次数）对",
    "bucketing.error.call": "无法读取调用 {item}：应为 ROWS 或 ROWSxCOUNT，例如 256x8",
    "bucketing.error.call_positive": "调用 {item} 的行数和次数都应为正整数",
    "bucketing.error.no_buckets": "桶的列表为空",
    "bucketing.error.same_bucket": "桶的大小不能重复，收到 {buckets}",
    "bucketing.error.too_large": (
        "一次 {rows} 行的调用超过了最大的桶（{largest}）：请加一个放得下它的桶"
    ),
}
