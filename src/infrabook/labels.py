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

from infrabook.i18n import LANGUAGES, language, translate

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

# key: Chinese. Keys are grouped by the module that shows them; each group keeps to its own
# block so that changes to one group never touch another. A label written the old way,
# "key": ("中文", "English"), is converted by ``nox -s catalogues`` (the English moves into
# the catalogue; see infrabook.catalogue.convert_labels).
LABELS: dict[str, str] = {
    # ---- shared words -------------------------------------------------------------------
    "unit.us_value": "{value} μs",
    "word.yes": "是",
    "word.no": "否",
    "word.unknown": "未知",
    "word.named": "{name}：{value}",
    "word.list_sep": "；",
    # ---- end of shared words ------------------------------------------------------------
    #
    # ---- audit verdicts (audit.py) ------------------------------------------------------
    "verdict.matches": "一致",
    "verdict.rounded": "取整",
    "verdict.differs": "不符",
    "verdict.implausible": "不可信",
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
    # ---- end of audit -------------------------------------------------------------------
    #
    # ---- tables and figures (tables.py, plots/) -----------------------------------------
    "strategy.generic": "通用",
    "strategy.bucketed": "分桶",
    "strategy.specialised": "逐形状特化",
    "table.each": "{name}（各）",
    "fig.fusion.read": "读",
    "fig.fusion.written": "写",
    "fig.fusion.read_mid": "读（中间量）",
    "fig.fusion.written_mid": "写（中间量）",
    "fig.fusion.plan_total": "{plan}：{mib} MiB",
    "fig.fusion.kernel": "kernel",
    "fig.fusion.moved_mib": "搬运的字节（MiB）",
    "fig.fusion.live": "驻留：{name}",
    "fig.fusion.total_traffic": "总流量",
    "fig.fusion.traffic_tick": "流量",
    "fig.fusion.peak_live": "驻留峰值",
    "fig.fusion.panel_title": "{plan}\n流量 {traffic} MiB，峰值 {peak} MiB",
    "fig.fusion.step": "kernel 步骤",
    "fig.attention.flash": "FlashAttention，block_q={block_q}",
    "fig.attention.flash_causal": "FlashAttention 因果，block_k={block_k}",
    "fig.attention.ideal": "理想：Q、K、V、O 各一次（4 L d）",
    "fig.attention.standard": "标准：分块 {m}×{n}，S、P 写回再读",
    "fig.attention.standard_sp": "标准：仅 S、P",
    "fig.attention.length": "序列长度 L（token）",
    "fig.attention.traffic": "每个头的流量（MiB），d={d}，{dtype}",
    "fig.launch.host": "主机提交（控制面）",
    "fig.launch.kernels": "执行的 kernel（数据面）",
    "fig.launch.count": "每批运行的次数",
    "fig.bucket.real": "实际行",
    "fig.bucket.padding": "补齐行",
    "fig.bucket.rows": "每组执行的行数",
    "fig.bucket.rows_title": "工作量：执行的行数",
    "fig.bucket.time": "每组时间（ms）",
    "fig.bucket.time_title": "时间：行数 ÷（MFU × 峰值）",
    "fig.crossover.line": "{name}：{prep} + {run}·n ms",
    "fig.crossover.cheapest": "最省：{name}",
    "fig.crossover.runs": "运行次数 n（调用组数）",
    "fig.crossover.total": "总时间 P + n·T_run（ms）",
    "fig.sweep.ratio": "{b} / {g}",
    "fig.sweep.even": "持平",
    "fig.sweep.loses": "{b}更慢",
    "fig.sweep.rows": "每次调用的行数（各次调用同样大小）",
    "fig.sweep.ylabel": "时间比 {b} / {g}",
    "fig.tiles.persistent": "常驻 kernel（{programs} 个程序）",
    "fig.tiles.per_tile": "每块一个程序（{tiles} 个程序）",
    "fig.tiles.xlabel": "块编号（格中数字：计算该块的程序）",
    # ---- end of tables and figures ------------------------------------------------------
    #
    # ---- benchmark records (bench/) -----------------------------------------------------
    "bench.title.fusion": "CPU 上的融合：silu(g) * u，分开执行与融合",
    "bench.title.attention_memory": "注意力的内存峰值：物化 S 与 P，还是在线 softmax",
    "bench.title.launches": "三次 FFN 运行的派发次数：eager 与融合",
    "bench.title.shapes": "形状：矩阵乘速率随行数变化，通用与分桶",
    "bench.title.gpu_swiglu": "GPU 上融合与分开的 SwiGLU，冲与不冲 L2",
    "bench.title.gpu_flash": "FlashAttention 前向（Triton）与 PyTorch SDPA",
    "bench.title.gpu_graphs": "CUDA graph 重放：三次 FFN 运行的主机启动与 kernel",
    "bench.title.gpu_persistent": "常驻 kernel（persistent kernel）与每块一个程序",
    "bench.title.gpu_sdpa": "注意力前向：本书的 Triton 内核与 SDPA 的每个后端，因果与非因果",
    "bench.title.gpu_ceilings": "上限：设备拷贝的带宽与 bf16 矩阵乘的速率",
    "bench.not_measured": "尚未在此类设备上测量。",
    "bench.no_gpu_record": "本节需要 GPU；当前构建没有 GPU 记录，结论依据模型。",
    "bench.not_run": "未在此设备上运行：{reason}",
    "bench.met": "达到",
    "bench.missed": "未达到",
    "bench.unmeasured": "未测量",
    "bench.targets.title": "基准目标",
    "bench.target.cpu_fused_speedup": "CPU：最快的融合路径相对分开执行（eager）的加速比",
    "bench.target.cpu_fused_bandwidth": "CPU：最快的融合路径的有效带宽，占实测拷贝带宽的百分比",
    "bench.target.blockwise_peak_8192": "CPU：L=8192 时分块注意力的内存峰值，占朴素实现的百分比",
    "bench.target.gpu_fused_swiglu_bandwidth": (
        "GPU：融合 SwiGLU（冲 L2，原文形状）的带宽，占实测拷贝带宽的百分比"
    ),
    "bench.target.gpu_flash_vs_sdpa_8192": (
        "GPU：L=8192、d=128、bf16 时 Triton FlashAttention 与 SDPA 默认后端（H200 上是 cuDNN）"
        "的吞吐之比"
    ),
    "bench.cli.description": "运行 infrabook 的基准测试套件",
    "bench.cli.quick": "缩小的规模（几秒钟）",
    "bench.cli.only": "cpu、gpu 或实验名",
    "bench.cli.out": "记录所在的文件夹（{default}）",
    "bench.cli.isolate": "每个实验在自己的进程里运行",
    "bench.cli.limit": "与 --isolate 同用：每个实验的时间上限",
    "bench.cli.merge": "并入 DIR 中各记录已测的条目",
    "bench.cli.machine": (
        "加在记录名后的一个词：记录里的事实分不出这台机器与另一台已有记录的机器时用"
        "（不加它重跑会替换那份记录）"
    ),
    "bench.cli.compare": "跑完后把记录与本书的记录并排打印",
    "bench.cli.compare_description": "把实测记录与本书的记录和模型并排打印",
    "bench.cli.records": "记录文件（*.json）",
    "bench.cli.book": "本书的记录所在的文件夹（{default}）",
    "bench.cli.error.machine": "--machine：{raw} 里没有可用作记录名的 ASCII 字母或数字（a–z、0–9）",
    "bench.cli.error.machine_long": (
        "--machine：{raw} 有 {n} 个字符，最多 {limit} 个（它是记录文件名的一部分）"
    ),
    "bench.cli.error.compare_isolate": (
        "--compare 在套件自己的进程里运行：用 --isolate 跑完后，请运行 "
        "python -m infrabook.bench compare RECORD ..."
    ),
    "bench.cli.error.limit": "应为正的有限秒数，收到 {raw}",
    "bench.cli.error.limit_isolate": "--limit 只能与 --isolate 同用",
    "bench.cli.error.not_file": "{path}：没有这个文件，或它不是普通文件",
    "bench.cli.error.experiment": "没有名为 {name} 的实验：应为 {names} 之一",
    "bench.cli.error.merge_out": "--merge {folder}：记录正是写到这里（--out）",
    "bench.cli.error.merge_none": "--merge {folder}：那里没有记录（*.json）",
    "bench.cli.failed": "失败：{names}",
    "bench.cmp.speedup": "{what}：相对 eager 的加速比",
    "bench.cmp.pct_copy": "{what}：占复制带宽的 %",
    "bench.cmp.copy_gb_s": "复制带宽 GB/s",
    "bench.cmp.naive_mib": "L={L}：朴素峰值 MiB",
    "bench.cmp.block_mib": "L={L}：分块峰值 MiB",
    "bench.cmp.dispatches": "{what}：派发数",
    "bench.cmp.group_ratio": "{what}：一组时间 ÷ 通用的",
    "bench.cmp.pct_peak": "最好的矩阵乘速率占估计峰值的 %",
    "bench.cmp.pct_peak_at": "L={L}：Triton 占 bf16 标称峰值的 %",
    "bench.cmp.vs_sdpa": "L={L}：Triton ÷ SDPA 的吞吐",
    "bench.cmp.host": "{what}：主机提交次数",
    "bench.cmp.kernels": "{what}：设备上的 kernel 数",
    "bench.cmp.pct_dram": "{what}：占标称显存带宽的 %",
    "bench.cmp.gb_s": "{what}：GB/s",
    "bench.cmp.sdpa_vs": "{mask}：Triton ÷ {kernel} 的吞吐",
    "bench.cmp.pct_bf16_peak": "{what}：占 bf16 标称峰值的 %",
    "bench.cmp.tflop_s": "{what}：TFLOP/s",
    "bench.cmp.machine": "{name}：{what}",
    "bench.cmp.is_reference": "（正文引用的参考记录）",
    "bench.cmp.yours": "{name}（你的）",
    "bench.cmp.alone": (
        "目前没有别的机器在同样的尺寸上测过；别的机器的记录加进来后，这里会说它们与这台相差多少。"
    ),
    "bench.cmp.agree": (
        "另有 {n} 台机器在同样的尺寸上测过：各项可比的数值与这台相差不超过 {spread}%"
        "（各台机器并排见实测附录）。"
    ),
    "bench.cmp.identical": (
        "另有 {n} 台机器在同样的尺寸上测过：各项可比的数值与这台相同（各台机器并排见实测附录）。"
    ),
    "bench.cmp.none_yet": "{path} 里还没有别的记录可以比较。",
    "bench.cmp.files": "记录文件：{paths}",
    "bench.fig.machines": "各台机器与本书的模型",
    "bench.fig.ratio": "实测 ÷ 模型（1 = 与模型一致）",
    "bench.fig.model": "模型",
    "bench.prov.measured": "测量于 {where}",
    "bench.prov.cpu": "{name}，{cores} 核",
    "bench.prov.gpu": "{name}，{sms} 个 SM，驱动 {driver}",
    "bench.prov.commit": "提交 {commit}",
    "bench.prov.dirty": "（有未提交的改动）",
    "bench.prov.load": "负载 {load}（{cores} 核）",
    "bench.prov.quick": "缩小尺寸的快速运行",
    "bench.prov.note": "测得之后记录有过改动，改了什么写在记录文件里",
    "bench.prov.method": "方法：{method}",
    # How each experiment measured, composed from its params when a page shows it.
    "bench.method.interleaved": (
        "{reps} 次重复取中位数（先预热 {warmup} 次），离散范围取 p20–p80，各候选交错执行"
    ),
    "bench.method.flush": "每次计时前读写 {mib} MiB 冲掉缓存（末级缓存的 2 倍，至少 64 MiB）",
    "bench.method.no_flush": "不冲缓存",
    "bench.method.fusion": (
        "输出预先分配（不计缺页）；GB/s = 模型字节数 ÷ 中位时间，拷贝的 GB/s = （读 + 写）÷ 时间"
    ),
    "bench.method.attention_memory": (
        "一次调用的峰值由 tracemalloc 测得，只计调用前已分配之上的部分（numpy 的数组缓冲区，"
        "不含 BLAS 的临时空间）；fp32，单头，d={head_dim}，分块 {block_q} × {block_k}；"
        "allclose 取 rtol 1e-4、atol 1e-5"
    ),
    "bench.method.launches": (
        "在 torch.no_grad 下用 TorchDispatchMode 数算子（在 GPU 上每个算子是一个 kernel）；"
        "不计时。图重放需要 CUDA：见 gpu_graphs"
    ),
    "bench.method.shapes": "不冲缓存（权重留在缓存里，与服务循环一样）",
    "bench.method.prep_compile": (
        "准备时间 = 关闭缓存时 torch.compile 首次调用的时间：通用 1 个动态图，分桶每桶 1 个静态图，"
        "逐形状特化每种形状 1 个；运行用的就是这些图"
    ),
    "bench.method.prep_none": "没有测准备时间（prep='none'）",
    "bench.method.prep_failed": "torch.compile 失败（{error}）：按 eager 运行，没有准备时间",
    "bench.method.peak": (
        "fp32 峰值估计：{cores} 核 × {mhz:.0f} MHz × 每周期 {per_cycle} 次 fp32 运算"
        "（{unit}；估计值，睿频不同）"
    ),
    "bench.method.peak_unknown": "fp32 峰值估计：未知（/proc/cpuinfo 里没有 AVX 标志或主频）",
    "bench.method.unit.avx512f": "2 条 FMA 流水线 × 16 路（AVX-512）× 2",
    "bench.method.unit.avx2": "2 条 FMA 流水线 × 8 路（AVX2）× 2",
    "bench.method.unit.avx": "加法、乘法流水线各 1 条 × 8 路（AVX，无 FMA）",
    "bench.method.gpu_swiglu": (
        "do_bench 中位数（p20–p80），每次调用前清零 256 MB 冲掉 L2；“不冲”= do_bench_cudagraph："
        "把连续调用录进一个 CUDA graph，什么都不冲；拷贝带宽 = （读 + 写）÷ 设备拷贝的时间，"
        "每个形状拷贝与融合路径相同的字节数，用同一计时器、同样冲或不冲 L2"
    ),
    "bench.method.gpu_flash": (
        "do_bench 中位数（p20–p80），每次调用前冲掉 L2；FLOP = 4 b h L² d；"
        "SDPA 的后端由 PyTorch 选择"
    ),
    "bench.method.gpu_graphs": (
        "计数来自 torch.profiler 对 {runs} 次运行的记录（主机端的 launch 调用、graph launch、"
        "设备端的 kernel 事件）；主机时间 = 用 perf_counter 量发出 {runs} 次运行的时间"
        "（{reps} 次取中位数），总时间再加上同步；不冲 L2"
    ),
    "bench.method.gpu_persistent": "do_bench 中位数（p20–p80），每次调用前冲掉 L2",
    "bench.method.gpu_sdpa": (
        "do_bench 中位数（p20–p80），每次调用前冲掉 L2；每个 SDPA 后端用 sdpa_kernel 单独指定，"
        "跑不了就记下原因，不换别的后端；FLOP = 4 b h L² d，因果时算一半；TFLOP/s 读取时由时间算出"
    ),
    "bench.method.gpu_ceilings": (
        "do_bench 中位数（p20–p80），每次调用前冲掉 L2；拷贝带宽 = （读 + 写）÷ 时间；"
        "矩阵乘 FLOP = 2 n³；TB/s 与 TFLOP/s 读取时由时间算出"
    ),
    "bench.fusion.table": "silu(g) * u，[{rows}, {cols}] fp32，{cores} 核",
    "bench.fusion.path.eager": "eager：silu 写出 T，mul 再读回",
    "bench.fusion.path.compile": "torch.compile（inductor 生成的 C++ 循环）",
    "bench.fusion.path.numexpr": "numexpr，一遍算完",
    "bench.fusion.path.copy": "复制：dst.copy_(g)，带宽参照",
    "bench.attention.table": "单个头，d={d}，fp32；分块 {bq} x {bk}",
    "bench.launches.table": "x + (silu(x Wg) * (x Wu)) Wd 运行 {runs} 次",
    "bench.launches.eager": "eager",
    "bench.launches.fused": "融合（silu·mul 作为一个算子）",
    "bench.shapes.sweep": "x @ w，w [{k}, {n}] fp32：速率随行数变化",
    "bench.shapes.group": "{n} 次调用（{calls} 行），桶 {buckets}",
    "bench.shapes.cross": "T_total = P + n·T_run：两条实测直线的交点",
    "bench.shapes.below": "n < {runs} 时{cheap}更便宜，之后{fast}更便宜",
    "bench.shapes.cross_note": (
        "。只列出在正的运行次数上、运行时间之差大于噪声的交点：两条直线平行时不相交；交点为负时，"
        "它落在第一次运行之前，一种策略对任何次数都更便宜；运行时间之差小于噪声时，交点的位置本身"
        "就是噪声，斜率稍有变化，它就移动成千上万次，甚至越过零"
    ),
    "bench.strategy.generic": "通用",
    "bench.strategy.bucketed": "分桶",
    "bench.strategy.specialised": "逐形状特化",
    "bench.swiglu.table": "SwiGLU bf16：时间、模型 GB/s、占实测复制带宽的百分比",
    "bench.l2.flushed": "冲 L2",
    "bench.l2.unflushed": "不冲 L2",
    "bench.flash.table": "注意力前向，d={d}，{heads} 个头，bf16",
    "bench.sdpa.table": "注意力前向，L={L}，batch {batch}，{heads} 个头，d={d}，bf16",
    "bench.sdpa.full": "非因果",
    "bench.sdpa.causal": "因果",
    "bench.sdpa.ours": "本书的 Triton 内核",
    "bench.ceilings.copy_table": "设备拷贝 dst.copy_(src)，bf16：带宽随大小的变化",
    "bench.ceilings.gemm_table": "bf16 矩阵乘 x @ y，n × n",
    "bench.ceilings.copy": "复制 {mib} MiB",
    "bench.ceilings.gemm": "bf16 矩阵乘 {n}³",
    "bench.graphs.table": "{runs} 次 FFN 运行：主机提交了什么，GPU 运行了什么",
    "bench.persistent.table": "SwiGLU [{rows}, {cols}] bf16：启动形状与时间",
    "bench.col.allclose": "allclose",
    "bench.col.article_host": "原文：主机",
    "bench.col.article_kernels": "原文的 kernel 数",
    "bench.col.batch": "batch",
    "bench.col.bitwise_equal": "与每块一个程序逐位相同",
    "bench.col.compile_s": "torch.compile 编译 s",
    "bench.col.block_pct": "分块占朴素的 %",
    "bench.col.block_peak_mib": "分块实测峰值 MiB",
    "bench.col.configuration": "配置",
    "bench.col.device_kernels": "设备上的 kernel",
    "bench.col.dispatches": "计数到的派发",
    "bench.col.executed_gflop_s": "执行 GFLOP/s",
    "bench.col.fits_l2": "工作集装得进 L2",
    "bench.col.gb_s": "GB/s",
    "bench.col.kernel": "内核",
    "bench.col.gflop_s": "GFLOP/s",
    "bench.col.graph_launches": "graph 启动",
    "bench.col.group_ms": "一组 ms",
    "bench.col.host_launches": "主机 kernel 启动",
    "bench.col.issue_us": "主机提交 μs",
    "bench.col.l2": "L2",
    "bench.col.model": "本书的模型",
    "bench.col.quantity": "数值",
    "bench.col.margin": "差距",
    "bench.col.mask": "掩码",
    "bench.col.max_diff": "最大 |Δ|",
    "bench.col.max_diff_sdpa": "与 SDPA 的最大 |Δ|",
    "bench.col.max_diff_triton": "与 Triton 的最大 |Δ|",
    "bench.col.meaning": "含义",
    "bench.col.measured": "实测",
    "bench.col.median_ms": "中位 ms",
    "bench.col.median_us": "中位 μs",
    "bench.col.model_block_mib": "模型：分块 MiB",
    "bench.col.model_mib": "模型 MiB",
    "bench.col.model_naive_mib": "模型 S+P+O MiB",
    "bench.col.model_speedup": "模型加速比",
    "bench.col.n": "边长 n",
    "bench.col.naive_peak_mib": "朴素实测峰值 MiB",
    "bench.col.note": "说明",
    "bench.col.ops_one_run": "一次运行派发的算子",
    "bench.col.padding_pct": "填充 %",
    "bench.col.pair": "两种策略",
    "bench.col.path": "路径",
    "bench.col.pct_best": "占最好的 %",
    "bench.col.pct_copy": "占复制的 %",
    "bench.col.pct_datasheet": "Triton 占标称峰值的 %",
    "bench.col.pct_bf16_peak": "占 bf16 标称峰值的 %",
    "bench.col.pct_dram": "占标称显存带宽的 %",
    "bench.col.pct_peak": "占估计峰值的 %",
    "bench.col.prep_ms": "准备 ms",
    "bench.col.programs": "程序数",
    "bench.col.record": "记录",
    "bench.col.rows": "行数",
    "bench.col.rows_executed": "执行的行数",
    "bench.col.runs_star": "交点 n*",
    "bench.col.sdpa_ms": "SDPA ms",
    "bench.col.sdpa_tflops": "SDPA TFLOP/s",
    "bench.col.sdpa_backend": "SDPA 后端",
    "bench.col.seq_len": "L",
    "bench.col.shape": "形状",
    "bench.col.size_mib": "大小 MiB",
    "bench.col.speedup_eager": "相对 eager 的加速比",
    "bench.col.spread_ms": "p20–p80 ms",
    "bench.col.strategy": "策略",
    "bench.col.tb_s": "TB/s",
    "bench.col.tflops": "TFLOP/s",
    "bench.col.target": "目标",
    "bench.col.threshold": "阈值",
    "bench.col.tiles": "块数",
    "bench.col.total_us": "端到端 μs",
    "bench.col.triton_ms": "Triton ms",
    "bench.col.triton_tflops": "Triton TFLOP/s",
    "bench.col.triton_vs_sdpa": "Triton / SDPA",
    "bench.col.triton_vs": "Triton ÷ 它",
    "bench.col.useful_gflop_s": "有用 GFLOP/s",
    "bench.col.variant": "变体",
    "bench.col.verdict": "判定",
    "bench.col.what": "做法",
    "bench.fig.measured": "实测",
    "bench.fig.est_peak": "估计峰值",
    "bench.fig.rows": "x 的行数（x @ w）",
    "bench.fig.shapes": "矩阵乘速率随行数变化，w [{k}, {n}] fp32（{where}）",
    "bench.fig.naive_measured": "朴素，实测",
    "bench.fig.naive_model": "朴素，模型 S+P+O",
    "bench.fig.block_measured": "分块（在线 softmax），实测",
    "bench.fig.seq_len": "序列长度 L",
    "bench.fig.peak_mib": "内存峰值（MiB）",
    "bench.fig.attention": "注意力内存峰值，单个头，d={d} fp32（{where}）",
    "bench.fig.if_bytes": "融合：若时间跟着字节走",
    "bench.fig.median_ms": "中位时间（ms）",
    "bench.fig.time": "时间（越低越好）",
    "bench.fig.copy": "实测复制带宽",
    "bench.fig.gb_s": "GB/s（模型字节 / 时间）",
    "bench.fig.bandwidth": "有效带宽",
    "bench.fig.fusion": "silu(g) * u，{rows} x {cols} fp32（{where}）",
    "bench.fig.flash": "注意力前向，d={d}，bf16（{where}）",
    "bench.fig.swiglu": "SwiGLU [{rows}, {cols}] bf16（{where}）",
    # ---- end of benchmark records -------------------------------------------------------
    #
    # ---- command line (cli.py) ----------------------------------------------------------
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
    # ---- end of command line ------------------------------------------------------------
    #
    # ---- calculators' explanations (bucketing, crossover, roofline, ...) ----------------
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
    #
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
    #
    # pages3: bucketing and crossovers
    "buckets.assumed": (
        "执行利用率（含补齐行）是假设，不是实测，可用 --mfu 改：{mfus}；"
        "占峰值 {peak} TFLOP/s。有用 MFU 只计实际行。"
    ),
    "buckets.peak_source": (
        "给了 --mfu，处理率都按“执行利用率 × 峰值”计算，峰值取 conf/scenarios.toml 的 "
        "{peak} TFLOP/s（原文的分母）；原文取整的处理率对应的峰值是 {stated} TFLOP/s。"
    ),
    "audit.note.bucketing_mfu": (
        "原文的 {stated}% 计入补齐行，是执行利用率；有用 MFU（PaLM 的定义，只计实际行）"
        "为 {useful:.1%}（按峰值 {peak:g} TFLOP/s 为 {useful_peak:.1%}）"
    ),
    #
    # The errors bucketing.py raises reach a reader through the live calculators.
    "bucketing.error.no_calls": "调用列表为空：应为（行数, 次数）对",
    "bucketing.error.call": "无法读取调用 {item}：应为 ROWS 或 ROWSxCOUNT，例如 256x8",
    "bucketing.error.call_positive": "调用 {item} 的行数和次数都应为正整数",
    "bucketing.error.no_buckets": "桶的列表为空",
    "bucketing.error.same_bucket": "桶的大小不能重复，收到 {buckets}",
    "bucketing.error.too_large": (
        "一次 {rows} 行的调用超过了最大的桶（{largest}）：请加一个放得下它的桶"
    ),
    # ---- end of calculators -------------------------------------------------------------
    #
    # ---- calculators (calculators.py, live.py, docs/_ext/infrabook_live.py) -------------
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
    "live.ui.static": "下表是构建时用默认输入（原文的例子）算出的；启用实时计算后，它随输入更新。",
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
    # ---- end of live calculators ---------------------------------------------------------
    # ---- the PDF editions (docs/pdf/build.py) ---------------------------------------------
    "pdf.subtitle": "为什么 kernel 会变快",
    "pdf.edition_label": "版本",
    "pdf.edition": "中文版",
    "pdf.version_label": "修订",
    "pdf.date_label": "构建日期",
    "pdf.site_label": "网站",
    "pdf.blurb": (
        "融合、FlashAttention、编译器与运行时。书中每个数字、表格和图都由 infrabook "
        "包在构建时算出；本 PDF 与网站出自同一次构建。"
    ),
    "pdf.contents": "目录",
    "pdf.introduction": "导读",
    "pdf.figure": "图",
    "pdf.table": "表",
    "pdf.number_sep": "\u3000",
    "pdf.live_inputs": "输入：",
    "pdf.live_note": (
        "这是一个实时计算器：上表是按这些默认输入在构建时算出的；在网站上可以改输入、即时重算："
    ),
    "pdf.author": "infrabook 作者们",
    "ui.pdf_download": "下载本书 PDF（中文版）",
    # ---- end of the PDF editions ---------------------------------------------------------
    # ---- the site's templates and scripts (docs/_templates, docs/_ext) --------------------
    "ui.colour": "配色",
    "ui.light": "亮色",
    "ui.dark": "暗色",
    "ui.auto": "跟随系统",
    "ui.toggle_chapters": "显示或隐藏章节目录",
    "ui.toggle_contents": "显示或隐藏本页目录",
    "ui.by": "作者：",
    "ui.other_edition": "English",
    "ui.other_edition_label": "Read this page in English",
    # the footer (copyright.html): licences, then the version and build of the page
    "ui.licence_code": "代码：",
    "ui.licence_text": "文字与图：",
    "ui.notices": "第三方组件",
    "ui.version": "版本",
    "ui.commit": "提交",
    "ui.uncommitted": "（另有未提交的修改）",
    "ui.built": "构建于",
    "ui.records": "实测记录：",
    "ui.records_none": "无",
    "ui.records_unreadable": "无法读取",
    "ui.changelog": "版本记录与勘误",
    "ui.report": "报告本页的错误",
    # {title} is the chapter's title
    "a11y.sections": "展开或收起“{title}”的小节",
    "a11y.chapters": "章节目录",
    "a11y.open_chapters": "打开章节目录",
    "a11y.open_contents": "打开本页目录",
    "a11y.site": "书名",
    # the per-edition settings (docs/_ext/infrabook_i18n.py); {prefix} is the edition's root
    "site.title": "infrabook · 为什么 kernel 会变快",
    "site.author": "infrabook 作者们",
    "site.copyright": "2026，{author}",
    "site.code_show": "显示代码",
    "site.code_hide": "隐藏代码",
    "site.search": "搜索…",
    "site.notfound_title": "页面不存在（404）",
    "site.notfound_body": (
        "<h1>页面不存在</h1><p>这个地址没有页面。请从<a href='{prefix}"
        "index.html'>目录</a>重新进入，或<a href='{prefix}search.html'>搜索</a>要找的内容。</p>"
    ),
    # ---- end of the site ------------------------------------------------------------------
    # ---- the GPU primer (gpu_model.py, plots/gpu_model.py) --------------------------------
    "gpu.tensor": "张量切成 {programs} 块，每块 {block} 个元素\n（图中只画出一角）",
    "gpu.sm": "一个 SM（共 {sms} 个）",
    "gpu.title": "{device}：一个程序的块放在哪里",
    "gpu.program": "程序 p：{warps} 个 warp，{threads} 个线程",
    "gpu.warp": "warp {index}\n{threads} 个线程\n每线程 {per_thread}\n个元素",
    "gpu.smem": "共享内存 {kib} KiB\n（逐元素链不用）",
    "gpu.tensor_cores": "张量核心\n（逐元素链不用）",
    "gpu.assign": "程序 p → 一个 SM",
    "gpu.l2": "L2：{mib} MiB，全部 SM 共享",
    "gpu.hbm": "显存（HBM/GDDR）：{gb} GB，{tb_s} TB/s",
    "gpu.reads": "读 G、U 的一块",
    "gpu.writes": "写 Z 的一块",
    "gpu.no_t": "T 只在寄存器里，\n从不写回显存",
    # ---- end of the GPU primer -------------------------------------------------------------
    # ---- FlashAttention tiling and the decision guide (plots/guides.py) ---------------------
    "flash_tiles.matrix": "分数矩阵 L × L（L = {L}）：{q} 个查询块 × {k} 个 K/V 块（只画出一角）",
    "flash_tiles.q": "Q 块：{rows} 行",
    "flash_tiles.q_note": "一个程序一块，\n读入一次，留在片上",
    "flash_tiles.kv": "K、V 块（每块 {cols} 行）\n从显存依次流过",
    "flash_tiles.stats": "片上：m、ℓ、u\n（每行三个量）\n整行走完才写 O",
    "flash_tiles.reread": "每个查询块各读一遍\n全部 K、V：共 {times} 遍",
    "guide.q_memory": "时间主要花在逐元素算子\n写出又读回的中间张量上？",
    "guide.a_memory": "融合（第 2 章）；\n注意力用 FlashAttention（第 3 章）",
    "guide.q_launch": "kernel 很小、很多，\n主机提交跟不上？",
    "guide.a_launch": "图重放（5.1）；\n再融合以减少 kernel 数",
    "guide.q_tiles": "一个 kernel 的块数\n远多于 SM 数？",
    "guide.a_tiles": "常驻 kernel（5.4）",
    "guide.q_shapes": "形状一直在变？",
    "guide.regime": "n ∈ [{start}, {end})：{name}",
    "guide.regime_note": "n：同一组形状运行的组数（5.3 的交叉点，原文的数）",
    "guide.yes": "是",
    "guide.no": "否",
    # ---- end of FlashAttention tiling and the decision guide ----------------------------------
    # ---- prose: words the pages' glued values share ---------------------------------------
    "prose.list_sep": "、",
    # ---- prose.records: words the pages' benchmark-record cells glue -----------------------
    "prose.records.live": "本次构建现场运行",
    "prose.records.reduced": "缩小尺寸",
    "prose.records.full": "完整尺寸",
    "prose.records.col.record": "记录",
    "prose.records.col.experiments": "测过的实验",
    "prose.records.col.dates": "测量日期（UTC）",
    "prose.records.col.commit": "提交",
    "prose.records.compile_path": "torch.compile 生成的循环",
    "prose.records.bucketing_slower": "比通用更慢",
    "prose.records.bucketing_faster": "仍比通用快",
    "prose.records.bucketing_cheap_prep": (
        "分桶的准备时间比通用还短，每组时间却更长，所以只有运行不到 {gb} 组时它才更省，"
        "也就是说连一组都撑不过"
    ),
    "prose.records.both_lines_here": "两条实测直线的截距与斜率都来自这台机器",
    "prose.records.crossing": "通用 ↔ 分桶的交叉点是 {runs} 组：{reason}",
    "prose.records.no_crossing": (
        "上面的交叉点表里没有通用 ↔ 分桶这一对：两条直线不在 n > 0 处相交，或者两者的每组时间"
        "相差不超过噪声，交点的位置也只是噪声"
    ),
    # ---- prose.fusion: chapter 2's glued words, tables and figure labels -------------------
    "prose.fusion.none": "无",
    "prose.fusion.col.device": "设备",
    "prose.fusion.col.dram": "显存 TB/s",
    "prose.fusion.col.fp32_ridge": "FP32 拐点",
    "prose.fusion.col.bf16_ridge": "bf16 张量核心拐点",
    "prose.fusion.col.sep_min_us": "分开 {mib} MiB 最短 μs",
    "prose.fusion.col.fused_min_us": "融合 {mib} MiB 最短 μs",
    "prose.fusion.col.fits_l2": "L2 装得下 {mib} MiB？",
    "prose.fusion.col.path": "路径",
    "prose.fusion.col.max_err": "与参考的最大绝对误差",
    "prose.fusion.col.differing": "与参考不同的元素",
    "prose.fusion.col.plan": "方案",
    "prose.fusion.col.kernels": "kernel 数",
    "prose.fusion.col.traffic": "读写 MiB",
    "prose.fusion.col.peak": "峰值 MiB",
    "prose.fusion.col.first_writes": "第一个 kernel 写出",
    "prose.fusion.path.fused": "融合",
    "prose.fusion.path.separate": "分开",
    "prose.fusion.mode.interpreted": "本次在 Triton 解释器里运行",
    "prose.fusion.mode.gpu": "本次是编译后在 GPU 上运行",
    "prose.fusion.plan.all_separate": "三步完全分开",
    "prose.fusion.plan.first_two": "只融合前两步",
    "prose.fusion.plan.last_two": "只融合后两步（原文未列）",
    "prose.fusion.plan.all_fused": "三步全融合",
    "prose.fusion.shared.separate": "分开执行",
    "prose.fusion.shared.fused": "SiLU 与乘法融合",
    "prose.fusion.fig.separate": "分开执行",
    "prose.fusion.fig.fused": "融合",
    "prose.fusion.fig.separate3": "分开执行（3 个 kernel）",
    "prose.fusion.fig.all_fused": "全融合",
    # ---- end of prose.fusion ------------------------------------------------------------------
    # ---- prose.attention: chapter 3's glued words and table headers ------------------------
    "prose.attention.col.tiles": "查询块数(K、V 读几遍)",
    "prose.attention.col.traffic": "流量 MiB",
    "prose.attention.col.block": "块大小",
    "prose.attention.col.result": "结果",
    "prose.attention.col.difference": "与整行计算之差",
    "prose.attention.col.causal": "因果",
    "prose.attention.col.vs_standard": "kernel 对标准实现",
    "prose.attention.col.vs_fp64": "kernel 对 fp64",
    "prose.attention.col.torch_fp64": "同 dtype 的 PyTorch 对 fp64",
    "prose.attention.no_running_max": "不减最大值",
    "prose.attention.where.interpreted": "在 Triton 解释器里",
    "prose.attention.where.gpu": "编译到 GPU 上",
    "prose.attention.rule.all": "每一行都满足",
    "prose.attention.rule.not_all": "并非每一行都满足",
    # ---- end of prose.attention ---------------------------------------------------------------
    # ---- prose.ladder: chapter 3's attention ladder --------------------------------------------
    "prose.ladder.not_measured": "尚未实测",
    "prose.ladder.fig_title": "{device}，{dtype}，L = {length}，非因果",
    "prose.ladder.none": "没有",
    "prose.ladder.col.rung": "阶",
    "prose.ladder.col.tile": "分块 (M×N×warps×stages)",
    "prose.ladder.col.registers": "每线程寄存器",
    "prose.ladder.col.spills": "溢出字节",
    "prose.ladder.col.smem": "共享内存 KiB（一个 SM 有 {kib}）",
    # ---- end of prose.ladder ------------------------------------------------------------------
    # ---- prose.bucketing: section 5.2's glued words and table headers -----------------------
    "prose.bucketing.calls_one": "{n} 次 {rows} 行",
    "prose.bucketing.calls_many": "{n} 次 {rows} 行",
    "prose.bucketing.col.rows": "行数",
    "prose.bucketing.col.calls": "调用次数",
    "prose.bucketing.col.bucket": "补齐到的桶",
    "prose.bucketing.col.executed": "分桶后执行行数",
    "prose.bucketing.col.strategy": "策略",
    "prose.bucketing.col.executed_pad": "执行行数（补齐）",
    "prose.bucketing.col.mfu": "执行利用率",
    "prose.bucketing.col.rate": "原文处理率 TFLOP/s",
    "prose.bucketing.col.time": "每组时间 ms",
    "prose.bucketing.col.prep": "准备时间 ms",
    "prose.bucketing.col.rate_over_mfu": "原文处理率 ÷ 利用率",
    "prose.bucketing.col.mfu_peak": "利用率 × 峰值 TFLOP/s",
    "prose.bucketing.col.time_peak": "每组时间 ms（利用率 × 峰值）",
    "prose.bucketing.col.useful_rate": "有用处理率 TFLOP/s",
    "prose.bucketing.col.useful_mfu": "有用 MFU",
    "prose.bucketing.rows_padding": "{rows}（{pad}）",
    "prose.bucketing.cost_gain": "补齐的代价 ×{cost}，利用率的收益 ÷{gain}",
    "prose.bucketing.time_ratio": "时间之比 {ratio}（= {bucketed} / {generic} ms）",
    "prose.bucketing.verdict.still_faster": "分桶仍更快",
    "prose.bucketing.verdict.now_slower": "分桶反而更慢",
    "prose.bucketing.verdict.already_slower": "分桶已经比通用慢",
    "prose.bucketing.verdict.above": "高于",
    "prose.bucketing.verdict.not_above": "不高于",
    # ---- end of prose.bucketing ---------------------------------------------------------------
    # ---- prose.preconditions: chapter 7's glued words and table headers --------------------
    "prose.preconditions.order.forward": "正序",
    "prose.preconditions.order.backward": "逆序",
    "prose.preconditions.order.sorted": "排序后",
    "prose.preconditions.order.pairwise": "两两成对",
    "prose.preconditions.exact_sum": "精确和 {exact}；fp32 下：",
    "prose.preconditions.one": "一个",
    "prose.preconditions.two": "两个",
    "prose.preconditions.separate": "分开",
    "prose.preconditions.fused": "silu+mul 融合",
    "prose.preconditions.col.consumers": "T 的消费者",
    "prose.preconditions.col.plan": "方案",
    "prose.preconditions.col.writes": "各 kernel 写回",
    "prose.preconditions.col.traffic": "读写总量 MiB",
    "prose.preconditions.col.peak": "峰值 MiB",
    "prose.preconditions.col.dtype": "dtype(输入、输出与分开执行时的 T)",
    "prose.preconditions.col.differ": "融合与分开执行结果不同的元素",
    "prose.preconditions.col.distinct": "不同结果数 / 次序数",
    "prose.preconditions.col.spread": "最大差",
    "prose.preconditions.col.exact": "精确和",
    "prose.preconditions.col.shift": "平移量",
    "prose.preconditions.col.no_max": "不减最大值 (without_running_max)",
    "prose.preconditions.col.online": "在线 softmax (online_softmax)",
    "prose.preconditions.col.strategy": "策略",
    "prose.preconditions.col.executed_pad": "执行行数（补齐）",
    "prose.preconditions.col.mfu": "执行利用率",
    "prose.preconditions.col.time": "每组时间 ms",
    "prose.preconditions.col.prep": "准备时间 ms",
    "prose.preconditions.rows_padding": "{rows}（{pad}）",
    "prose.preconditions.from_n": "{name}（自 n = {n} 起）",
    "prose.preconditions.edge.faster": "仍略快",
    "prose.preconditions.edge.slower": "已经更慢",
    # ---- end of prose.preconditions -----------------------------------------------------------
    # ---- prose.misconceptions: chapter 8's table of corrections ----------------------------
    "prose.misconceptions.col.myth": "误区",
    "prose.misconceptions.col.fix": "更正",
    "prose.misconceptions.myth.flops": "融合减少 FLOPs",
    "prose.misconceptions.fix.flops": (
        "对这条链 FLOPs 不变（两种方案各 {mc_elem_ops} 次逐元素运算）；"
        "少的是中间张量的写回与读回（{mc_traffic_sep} → {mc_traffic_fused} MiB）。"
        "重计算时融合反而多算，仍可更快"
    ),
    "prose.misconceptions.myth.peak": "融合也大幅降峰值显存",
    "prose.misconceptions.fix.peak": "读写 −{mc_traffic_saved} MiB，峰值只 −{mc_peak_saved} MiB",
    "prose.misconceptions.myth.replay": "图重放能减少 kernel",
    "prose.misconceptions.fix.replay": (
        "{mc_kernels} → {mc_kernels_graph} 个 kernel，只把 {mc_launch_eager} 次提交变成 "
        "{mc_launch_graph} 次"
    ),
    "prose.misconceptions.myth.bucketing": "分桶是浪费算力",
    "prose.misconceptions.fix.bucketing": (
        "多算 {mc_pad}；执行利用率 {mc_mfu_g} → {mc_mfu_b}，有用 MFU {mc_useful_g} → "
        "{mc_useful_b}；每组 {mc_ms_g} → {mc_ms_b} ms"
    ),
    "prose.misconceptions.myth.specialised": "特化总是最好",
    "prose.misconceptions.fix.specialised": (
        "少于约 {mc_gen_end} 组时通用最省；少于 {mc_spec_start} 组时逐形状特化都不是最省"
    ),
    # ---- end of prose.misconceptions ----------------------------------------------------------
    # ---- prose.recompute: chapter 6's comparison with the article --------------------------
    "prose.recompute.col.line": "行",
    "prose.recompute.col.content": "内容",
    "prose.recompute.col.numbers": "数字个数",
    "prose.recompute.col.match": "数字一致",
    "prose.recompute.col.whole": "整行一致",
    "prose.recompute.quote_sep": "”“",
    "prose.recompute.lines_same": "每一行都逐字相同",
    "prose.recompute.line_differs": (
        "逐字不同的只有“{lines}”这一行：本书的输出沿用正文表格里的策略名（逐形状特化）和本书的标点，"
        "原文的输出行写作“特化”"
    ),
    "prose.recompute.lines_differ": (
        "逐字不同的是“{lines}”这几行：本书的输出沿用正文表格里的策略名（逐形状特化）和本书的标点，"
        "原文的输出行写作“特化”"
    ),
    "prose.recompute.verdict.faster": "分桶更快",
    "prose.recompute.verdict.slower": "分桶更慢",
    "prose.recompute.verdict.still_faster": "分桶仍更快",
    "prose.recompute.verdict.now_slower": "分桶就比通用慢了",
    # ---- end of prose.recompute ---------------------------------------------------------------
    # ---- prose.audit: the audit appendix's table headers ----------------------------------
    "prose.audit.col.verdict": "判定",
    "prose.audit.col.claims": "条数",
    "prose.audit.total": "合计",
    "prose.audit.col.section": "节",
    "prose.audit.col.claim": "说法（概述）",
    "prose.audit.col.article_claim": "原文的说法",
    "prose.audit.col.article": "原文",
    "prose.audit.col.recomputed": "复算",
    "prose.audit.col.measured": "实测（{device}）",
    "prose.audit.note": "注",
    "prose.audit.col.device": "设备",
    "prose.audit.col.dram": "显存 TB/s",
    "prose.audit.col.sep_bound": "分开：下限 μs",
    "prose.audit.col.fused_bound": "融合：下限 μs",
    "prose.audit.col.fits": "工作集装得进 L2",
    # ---- end of prose.audit -------------------------------------------------------------------
    # ---- prose.decision: section 5.3's words and table headers -----------------------------
    "prose.decision.sep": "：",
    "prose.decision.cheapest_span": "n ∈ {span}：{name}最省",
    "prose.decision.version.a": "A：原文取整",
    "prose.decision.version.b": "B：原文处理率，不取整",
    "prose.decision.version.c": "C：利用率 × 峰值，不取整",
    "prose.decision.col.crossover": "交叉",
    "prose.decision.col.article": "原文",
    "prose.decision.col.version": "版本",
    "prose.decision.col.envelope": "下包络（最便宜的策略及其 n 区间）",
    "prose.decision.col.strategy": "策略",
    "prose.decision.col.total": "n = {n} 时的总时间 ms",
    "prose.decision.cheapest": "（最省）",
    # ---- end of prose.decision ----------------------------------------------------------------
    # ---- prose.compiler: chapter 4's words and table headers -------------------------------
    "prose.compiler.order.forward": "从左到右",
    "prose.compiler.order.backward": "从右到左",
    "prose.compiler.order.sorted": "排序后再加",
    "prose.compiler.order.pairwise": "两两配对(树形)",
    "prose.compiler.col.ops": "算子数",
    "prose.compiler.col.plans": "合法方案数",
    "prose.compiler.col.barrier": "中间一个算子不可融合时",
    "prose.compiler.col.order": "求和顺序",
    "prose.compiler.col.result": "fp32 结果",
    "prose.compiler.col.difference": "与精确值之差",
    "prose.compiler.exact": "精确值",
    "prose.compiler.exact_fp64": "精确值(以 fp64 表示)",
    "prose.compiler.col.schedule": "调度",
    "prose.compiler.col.map": "映射",
    "prose.compiler.col.legal": "合法",
    "prose.compiler.col.broken": "被破坏的依赖",
    "prose.compiler.schedule.unfused": "分开执行",
    "prose.compiler.schedule.fused": "融合",
    "prose.compiler.schedule.swapped": "融合，语句对调",
    "prose.compiler.same": "相同",
    "prose.compiler.different": "不同",
    # ---- end of prose.compiler ----------------------------------------------------------------
    # ---- prose.conclusion: chapter 1's two tables --------------------------------------------
    "prose.conclusion.col.plane": "平面",
    "prose.conclusion.col.counted": "计数对象",
    "prose.conclusion.col.plain": "普通执行",
    "prose.conclusion.col.optimised": "优化后",
    "prose.conclusion.col.technique": "手段",
    "prose.conclusion.data_plane": "数据面",
    "prose.conclusion.control_plane": "控制面",
    "prose.conclusion.traffic": "激活链读写（MiB）",
    "prose.conclusion.submissions": "三次 FFN 的主机提交",
    "prose.conclusion.fusion": "融合",
    "prose.conclusion.replay": "图重放",
    "prose.conclusion.bucketing": "分桶",
    "prose.conclusion.specialised": "逐形状特化",
    "prose.conclusion.col.mechanism": "机制",
    "prose.conclusion.col.reduces": "减少的",
    "prose.conclusion.col.keeps": "不减少的",
    "prose.conclusion.col.example": "本书例子",
    "prose.conclusion.utilisation_plane": "数据面（利用率）",
    "prose.conclusion.useful_time": "每单位有用工作的时间",
    "prose.conclusion.fusion_reduces": "kernel 数与中间张量的写回、重读",
    "prose.conclusion.fusion_keeps": "FLOP（本例）",
    "prose.conclusion.fusion_example": "激活链 {a} → {b} MiB",
    "prose.conclusion.replay_reduces": "主机提交（launch）次数",
    "prose.conclusion.replay_keeps": "kernel 数",
    "prose.conclusion.bucketing_keeps": "执行的行数（反而多算）",
    "prose.conclusion.bucketing_example": "多算 {p}%",
    "prose.conclusion.specialised_keeps": "准备时间（反而更长）",
    "prose.conclusion.specialised_example": "准备 {t} ms",
    # ---- end of prose.conclusion --------------------------------------------------------------
    # ---- prose.gpu_primer: chapter 1.5's table headers and words ---------------------------
    "prose.gpu_primer.col.device": "设备",
    "prose.gpu_primer.col.regs": "每 SM 寄存器 KiB",
    "prose.gpu_primer.col.smem": "每 SM 共享内存 KiB",
    "prose.gpu_primer.col.dram_gb": "显存 GB",
    "prose.gpu_primer.col.dram_tbs": "显存 TB/s",
    "prose.gpu_primer.col.bf16": "bf16 张量核心 TFLOP/s（稠密）",
    "prose.gpu_primer.col.fp32": "FP32 通用单元 TFLOP/s",
    "prose.gpu_primer.col.ratio": "倍数",
    "prose.gpu_primer.col.figure": "数字",
    "prose.gpu_primer.col.source": "出处",
    "prose.gpu_primer.field.regs_per_sm_kib": "寄存器",
    "prose.gpu_primer.field.smem_per_sm_kib": "共享内存",
    "prose.gpu_primer.field.dram_gb": "显存容量",
    "prose.gpu_primer.field.dram_tb_s": "显存带宽",
    "prose.gpu_primer.fits": "装得下",
    "prose.gpu_primer.does_not_fit": "装不下",
    # ---- end of prose.gpu_primer --------------------------------------------------------------
    # ---- prose.graph_replay: section 5.1's table headers -----------------------------------
    "prose.graph_replay.col.config": "配置",
    "prose.graph_replay.col.host": "主机提交",
    "prose.graph_replay.col.kernels": "设备 kernel",
    # ---- end of prose.graph_replay ------------------------------------------------------------
    # ---- prose.persistent: section 5.4's words and table headers ---------------------------
    "prose.persistent.col.device": "设备",
    "prose.persistent.col.sms": "SM 数",
    "prose.persistent.col.per_tile": "每块一个程序：程序数",
    "prose.persistent.col.persistent": "常驻：程序数",
    "prose.persistent.col.tiles": "每个常驻程序处理的块数",
    "prose.persistent.where.interpreted": "在 Triton 解释器里运行",
    "prose.persistent.where.gpu": "编译到 GPU 运行",
    "prose.persistent.schedule": "{how}：{r.programs} 个程序处理 {r.tiles} 块",
    "prose.persistent.per_tile": "每块一个程序",
    "prose.persistent.persistent": "常驻",
    "prose.persistent.bitwise": "逐位相等：",
    "prose.persistent.little.title": "利特尔定律：每种启动方式在途的字节，与它们推出的往返时间",
    "prose.persistent.little.col.variant": "变体",
    "prose.persistent.little.col.programs": "程序数",
    "prose.persistent.little.col.in_flight_programs": "最多同时驻留的程序",
    "prose.persistent.little.col.in_flight_mib": "在途 MiB",
    "prose.persistent.little.col.tb_s": "实测 TB/s",
    "prose.persistent.little.col.latency_us": "推出的往返 μs",
    # ---- end of prose.persistent --------------------------------------------------------------
    # ---- prose.self_test: chapter 9's traced softmax ---------------------------------------
    "prose.self_test.step": "第 {n} 个：r = {r}，m = {m}，ℓ = {l}，u = {u}",
    # ---- end of prose.self_test ---------------------------------------------------------------
    # ---- prose.site: the site appendix's table headers and verdicts ------------------------
    "prose.site.col.page": "页面",
    "prose.site.col.requests": "请求数",
    "prose.site.col.first": "首次打开（KB）",
    "prose.site.col.largest": "最大的两个文件（KB）",
    "prose.site.file": "{name}（{kb}）",
    "prose.site.met": "达到",
    "prose.site.missed": "未达到",
    # ---- end of prose.site --------------------------------------------------------------------
    # ---- prose.measure: the measure-yourself appendix's words and table headers ------------
    "prose.measure.col.event": "分析器事件",
    "prose.measure.col.eager": "普通执行",
    "prose.measure.col.timing": "计时方式",
    "prose.measure.col.median": "中位数 μs",
    "prose.measure.col.gb_s": "按字节模型折合 GB/s",
    "prose.measure.flushed": "每次之前清空缓存",
    "prose.measure.warm": "不清空",
    "prose.measure.overlap": (
        "中位数之比 {ratio}，但两组的 p20–p80 区间重叠：这次构建时机器太忙，分不出快慢"
    ),
    "prose.measure.apart": "清空后慢了 {ratio} 倍，两组的 p20–p80 区间不重叠",
    "prose.measure.fits": "装得下",
    "prose.measure.does_not_fit": "装不下",
    # ---- end of prose.measure -----------------------------------------------------------------
}


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
    KeyError: "no label 'no.such.key'; add it to infrabook/labels.py"
    """
    try:
        zh = LABELS[key]
    except KeyError:
        raise KeyError(f"no label {key!r}; add it to infrabook/labels.py") from None
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
