"""The calculators, static and live (:mod:`infrabook.calculators`, :mod:`infrabook.live`,
``docs/_ext/infrabook_live.py``), and ``infrabook calc``'s words.

Keys: ``live.``, ``calc.``.
Chinese only; the English is the catalogue's.
"""

NAMESPACES = ("live", "calc")

LABELS: dict[str, str] = {
    # `infrabook calc`: the article's section-6 lines; the Chinese keeps the article's format
    "calc.fusion": (
        "融合: 分开 {sep:.0f} MiB → 融合 {fused:.0f} MiB(比 {ratio:.2f},理论 {speedup:.2f}×);"
        "三步 {s3:.0f}/{s2:.0f}/{s1:.0f} MiB"
    ),
    "calc.peak": (
        "峰值: 分开 {sep:.0f} MiB vs 全融合 {fused:.0f} MiB(读写 -{traffic:.0f} MiB,"
        "峰值只 -{peak:.0f} MiB)"
    ),
    "calc.attention": (
        "FlashAttention(L={L},d={d},{dtype}): QKV/O 各 {io:.0f} MiB;S、P 各 {s:.0f} MiB → "
        "中间读写 {gib:.1f} GiB(S、P 各写读一次)"
    ),
    "calc.softmax": (
        "在线 softmax: [{scores}]/[{values}] → r={r} → ℓ'={l}, u'={u} → {result:.4f}(= {exact})"
    ),
    "calc.crossover": "交叉点: {g}↔{b} {gb} 组;{b}↔{p} {bp} 组;{g}↔{p} {gp} 组",
    "live.title.fusion": "试一试：你的形状下每种融合方案的流量与峰值",
    "live.title.attention": "试一试：标准实现与分块 FlashAttention 的读写",
    "live.title.softmax": "试一试：自己走一遍在线 softmax",
    "live.title.buckets": "试一试：你的形状分布下的补齐、利用率、时间与交叉点",
    "live.title.crossover": "试一试：你的准备时间 T_prep 与每次运行时间 T_run",
    "live.field.rows": "行数 rows",
    "live.field.cols": "列数 cols",
    "live.field.dtype": "数据类型",
    "live.field.quant_dtype": "量化到",
    "live.field.seq_len": "序列长度 L",
    "live.field.head_dim": "头维度 d",
    "live.field.score_dtype": "S、P 的数据类型",
    "live.field.block_q": "查询块行数 block_q",
    "live.field.block_k": "键值块行数 block_k",
    "live.field.causal": "因果掩码",
    "live.field.scores": "分数 s_i（逗号分隔）",
    "live.field.values": "值 v_i（逗号分隔）",
    "live.field.block": "每块几个分数",
    "live.field.calls": "一组调用的行数（256x8 表示 8 次 256 行）",
    "live.field.buckets": "桶的大小（逗号分隔）",
    "live.field.peak_tflops": "峰值算力 TFLOP/s",
    "live.field.util_generic": "通用：执行利用率",
    "live.field.util_bucketed": "分桶：执行利用率",
    "live.field.util_specialised": "逐形状特化：执行利用率",
    "live.field.prep_generic": "通用：准备时间 T_prep（ms）",
    "live.field.prep_bucketed": "分桶：准备时间 T_prep（ms）",
    "live.field.prep_specialised": "逐形状特化：准备时间 T_prep（ms）",
    "live.field.run_generic": "通用：每组时间 T_run（ms）",
    "live.field.run_bucketed": "分桶：每组时间 T_run（ms）",
    "live.field.run_specialised": "逐形状特化：每组时间 T_run（ms）",
    # A field's name in its errors, where its label carries help that the error states itself.
    "live.field_name.calls": "一组调用的行数",
    "live.field_name.buckets": "桶的大小",
    "live.field_name.scores": "分数 s_i",
    "live.field_name.values": "值 v_i",
    "live.error.calls": (
        "{label}：应为以逗号分隔的 ROWS 或 ROWSxCOUNT（例如 256x8），ROWS、COUNT 都是正整数，"
        "收到 {raw}"
    ),
    "live.error.int": "{label}：应为 {low} 到 {high} 之间的整数，收到 {raw}",
    "live.error.float": "{label}：应为 {low} 到 {high} 之间的有限数，收到 {raw}",
    "live.error.read_int": "{label}：应为整数，收到 {raw}",
    "live.error.read_float": "{label}：应为有限数，收到 {raw}",
    "live.error.read_floats": "{label}：应为以逗号分隔的有限数，收到 {raw}",
    "live.error.read_items": "{label}：应为以逗号分隔的一项或多项，收到 {raw}",
    "live.error.positive_int": "{label}：应为正整数，收到 {raw}",
    "live.error.large_int": "{label}：应为不大于 {limit} 的整数，收到 {raw}",
    "live.error.positive_items": "{label}：应为以逗号分隔的正整数，收到 {raw}",
    "live.error.positive_calls": (
        "{label}：应为以逗号分隔的调用，每个写成 ROWS 或 ROWSxCOUNT（例如 256x8），收到 {raw}"
    ),
    "live.error.choice": "{label}：应为 {choices} 之一，收到 {raw}",
    "live.error.items": (
        "{label}：应为 1 到 {items} 项、以逗号分隔，每项在 {low} 到 {high} 之间，收到 {raw}"
    ),
    "live.error.same_length": "值的个数（{values}）与分数的个数（{scores}）不同",
    "live.error.empty_raw": "空白",
    "live.col.plan": "方案",
    "live.col.kernels": "kernel 数",
    "live.col.traffic_mib": "流量 MiB",
    "live.col.peak_mib": "峰值 MiB",
    "live.col.quantity": "量",
    "live.col.block": "块",
    "live.col.scores": "本块的分数",
    "live.col.strategy": "策略",
    "live.col.executed_rows": "执行行数",
    "live.col.padding": "补齐",
    "live.col.executed_util": "执行利用率",
    "live.col.useful_mfu": "有用 MFU",
    "live.col.rate": "处理率 TFLOP/s",
    "live.col.run_ms": "每组时间 ms",
    "live.col.prep_ms": "准备 ms",
    "live.col.pair": "两种策略",
    "live.col.crossover_n": "交叉点 n*（组）",
    "live.col.from_n": "运行组数 n 从",
    "live.col.to_n": "到",
    "live.col.cheapest": "最省的策略",
    "live.field.runs": "运行次数",
    "live.field.rates": "速率",
    "live.field.kernels_per_run": "每次的 kernel 数",
    "live.field.fused_kernels_per_run": "融合后每次的 kernel 数",
    "live.title.launches": "试一试：主机提交与 kernel 数",
    "calc.col.footprint_mib": "工作集 MiB",
    "calc.col.total_mib": "合计 MiB",
    "calc.col.tensor": "张量",
    "calc.col.shape": "形状",
    "calc.col.size_mib": "大小 MiB",
    "calc.tag.separate": "分开：",
    "calc.tag.fused": "融合：",
    "calc.op.silu": "SiLU",
    "calc.op.mul": "乘法",
    "calc.op.quant": "量化",
    "live.row.qkvo_each": "Q / K / V / O（各）",
    "live.row.score_each": "S / P（各）",
    "live.row.standard_io": "标准实现：读 Q、K、V，写 O",
    "live.row.standard_intermediate": "标准实现：S、P 各写一次、读一次",
    "live.row.standard_total": "标准实现合计",
    "live.row.flash_total": "FlashAttention 分块（{tiles} 个查询块）合计",
    "live.row.flash_kv": "其中 K、V 的读取",
    "live.note.softmax_result": "结果 u/ℓ = {value}",
    "live.cell.never": "不相交（平行）",
    "live.cell.never_ahead": "不相交（n ≥ 0 时一方始终更省）",
    "live.ui.enable": "启用实时计算（首次下载 {mb} MB）",
    "live.ui.enable_loaded": "启用实时计算（Python 已载入，无需再下载）",
    "live.ui.loading": "正在下载并载入浏览器里的 Python（首次 {mb} MB，需要几秒；之后取自缓存）…",
    "live.ui.stale": "输入有误，下表仍是上一次有效输入的结果；改正标红的输入后即更新。",
    "live.ui.ready": "实时计算已启用：修改输入，结果随之更新。",
    "live.ui.static": (
        "下表是构建时用默认输入（原文的例子）算出的；启用实时计算后，它随输入更新。"
        "你指向计算器或在这里停留时，浏览器就在后台开始下载它所需的 Python（{mb} MB），"
        "好让点按钮后很快有结果。"
    ),
    "live.ui.progress": "已下载 {done} / {total} MB",
    "live.ui.progress_label": "浏览器里的 Python 的下载进度",
    "live.ui.file": (
        "本页是从 file:// 打开的，浏览器不允许在这里加载实时计算所需的模块；"
        "通过 http(s) 打开本页即可启用。下表是构建时算出的结果。"
    ),
    "live.ui.unsupported": "这个浏览器不支持 WebAssembly，无法实时计算；下表是构建时算出的结果。",
    "live.ui.failed": "实时计算未能启动（{error}）；下表是构建时算出的结果。",
    "live.title.recompute": "试一试：用你的参数重跑第 6 节的复算",
    "live.col.item": "项目",
    "live.col.result": "结果",
    "live.note.shown_times": (
        "交叉点按表中显示的每组时间（三位有效数字，与原文的算法相同）计算；"
        "按不取整的时间是 {unrounded}。"
    ),
}
