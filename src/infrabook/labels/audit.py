"""The audit's verdicts and notes (:mod:`infrabook.audit`).

Keys: ``audit.``.
Chinese only; the English is the catalogue's.
"""

NAMESPACES = ("audit",)

LABELS: dict[str, str] = {
    "audit.unit.lower_bound": "μs（下限）",
    "audit.note.per_intermediate": "156 − 108 = {mib} MiB 也是",
    "audit.note.exactly": "精确值 {value}",
    "audit.note.rate": (
        "原文所称的“有效处理率”把补齐行也算作完成的工作，是执行处理率：执行利用率 × 标称峰值"
        " {peak} TFLOP/s；原文的速率是执行利用率 × 500。只计实际行的有用处理率是 {useful} TFLOP/s"
    ),
    "audit.note.time": "按原文给的速率；按执行利用率 × {peak} TFLOP/s 是 {ms} ms",
    "audit.note.crossing": (
        "按原文的每组时间（{a} / {b} ms，即本书各处所用的口径）；不取整的时间得 {unrounded}；"
        "按执行利用率 × {peak} TFLOP/s 得 {at_peak}"
    ),
    "audit.note.mfu_ratio": (
        "翻倍的是执行利用率（计入补齐行，×{executed}）；有用 MFU 只从 {generic} 升到 {bucketed}，"
        "×{ratio}，恰好等于加速比 {speedup}"
    ),
    "audit.note.measured": (
        "{us} μs 内搬运 {mib} MiB：{summary}（工作集 {working} MiB）；表中是在 {device} 上的下限"
    ),
    "audit.note.above_model": (
        "，高于读写模型的 {model}×：有一部分时间不随字节变化（每个 kernel 的固定开销，或两次运"
        "行的带宽不同）"
    ),
    "audit.note.doubtful": "所依据的计时超过了所列每种设备的显存带宽（{us} μs）",
    "audit.note.bucketing_mfu": (
        "原文的 {stated}% 计入补齐行，是执行利用率；有用 MFU（PaLM 的定义，只计实际行）"
        "为 {useful:.1%}（按峰值 {peak:g} TFLOP/s 为 {useful_peak:.1%}）"
    ),
}
