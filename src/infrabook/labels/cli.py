"""The command line (:mod:`infrabook.cli`): headers, printed lines and errors.

Keys: ``cli.``, ``error.``.
Chinese only; the English is the catalogue's.
"""

NAMESPACES = ("cli", "error")

LABELS: dict[str, str] = {
    "cli.description": "infrabook 命令：原文第 6 节的复算，以及用你自己的数字跑的计算器",
    "cli.help.calc": "原文第 6 节的复算",
    "cli.help.fusion": "这条链上每种融合方案的流量与峰值",
    "cli.help.attention": "标准注意力与 FlashAttention 的大小和流量",
    "cli.help.softmax": "逐块追踪在线 softmax",
    "cli.help.launches": "主机提交次数与执行的 kernel 数",
    "cli.help.buckets": "每种形状策略的行数、补齐与时间",
    "cli.help.crossover": "各策略的 T_prep + n·T_run 直线在哪里相交",
    "cli.help.audit": "原文每个数字结论的复算",
    "cli.help.json": "输出 JSON，而不是表格",
    "cli.help.rates": "article：原文写出的速率；peak：MFU × 未取整的峰值",
    "cli.help.mfu": "每种策略假设的执行利用率（含补齐行），默认为原文的 {mfus}",
    "cli.help.strategy": "可重复；默认为原文的三种策略",
    "cli.subcommand": "子命令",
    "cli.error": "{prog}：错误：{message}",
    "cli.error.overflow": (
        "--values {values} 的加权和超出 float64 的范围（最大 {largest}）：请用小一些的值"
    ),
    "cli.section": "{heading}：",
    # errors of the calculators themselves, on values each field accepts alone
    "error.strategy.format": "无法读取策略 {raw}：应为 NAME:PREP_MS:RUN_MS 的形式",
    "error.strategy.numbers": "无法读取策略 {raw}：PREP_MS 和 RUN_MS 应为数字",
    "error.strategy.name": "策略需要一个非空的名字",
    "error.strategy.prep": "策略 {name} 的准备时间 prep_ms：应为不小于 0 的有限数，收到 {value}",
    "error.strategy.run": "策略 {name} 的每组时间 run_ms：应为大于 0 的有限数，收到 {value}",
    "error.strategy.too_few": "至少要两种策略才能比较，收到 {count} 种",
    "error.strategy.duplicate": "策略的名字不能重复：{name} 出现了不止一次",
    "error.strategy.parallel": "{a} 和 {b} 的每组时间相同（{run} ms）：两条直线平行，永不相交",
    "error.strategy.unknown": "没有名为 {name} 的策略：应为 {names} 之一",
    "error.mfu.format": "无法读取 {raw}：应为 NAME=FRACTION 的形式，例如 bucketed=0.4",
    "error.mfu.range": "策略 {name} 的执行利用率 mfu：应为大于 0、不大于 1 的分数，收到 {value}",
    "error.mfu.empty": "逗号之间有一项是空的",
    "error.mfu.duplicate": "策略 {name} 的执行利用率给了不止一次",
    "error.launches.fused": (
        "融合后每次的 kernel 数（{fused}）不能多于每次的 kernel 数（{kernels}）："
        "融合从不增加 kernel"
    ),
    "cli.col.kernel": "kernel",
    "cli.col.reads": "读",
    "cli.col.writes": "写",
    "cli.col.read_mib": "读 MiB",
    "cli.col.written_mib": "写 MiB",
    "cli.col.config": "配置",
    "cli.col.host_submissions": "主机提交",
    "cli.col.kernels": "kernel 数",
    "cli.col.section": "节",
    "cli.col.claim": "结论",
    "cli.col.stated": "原文",
    "cli.col.recomputed": "复算",
    "cli.col.verdict": "判定",
    "cli.notes": "说明：",
}
