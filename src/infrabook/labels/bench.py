"""The benchmark records: tables, verdicts, figure labels and how each experiment
measured (:mod:`infrabook.bench`, :mod:`infrabook.plots.measured`).

Keys: ``bench.``.
Chinese only; the English is the catalogue's.
"""

NAMESPACES = ("bench",)

LABELS: dict[str, str] = {
    "bench.title.fusion": "CPU 上的融合：silu(g) * u，分开执行与融合",
    "bench.title.fusion_sweep": "CPU 上的尺寸扫描：融合、eager 与复制，冲与不冲缓存",
    "bench.title.attention_memory": "注意力的内存峰值：物化 S 与 P，还是在线 softmax",
    "bench.title.launches": "三次 FFN 运行的派发次数：eager 与融合",
    "bench.title.shapes": "形状：矩阵乘速率随行数变化，通用与分桶",
    "bench.title.gpu_fusion_sweep": "GPU 上的尺寸扫描：融合、eager 与复制，冲与不冲 L2",
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
    "bench.method.fusion_sweep": (
        "融合 = torch.compile 一次编译、任意大小的 C++ 循环；输出预先分配；"
        "GB/s = 模型字节数 ÷ 中位时间；复制读写与融合路径相同的字节"
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
    "bench.method.gpu_fusion_sweep": (
        "do_bench 中位数（p20–p80），每次调用前清零 256 MB 冲掉 L2；“不冲”= do_bench_cudagraph；"
        "GB/s = 模型字节数 ÷ 中位时间；复制读写与融合路径相同的字节"
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
    "bench.sweep.table.cpu": "silu(g) * u，[行数, {cols}] fp32：时间与带宽随大小的变化",
    "bench.sweep.table.cuda": "SwiGLU [行数, {cols}] bf16：时间与带宽随大小的变化",
    "bench.sweep.no_fused": "（没有融合路径：{reason}）",
    "bench.sweep.skipped": "（有的大小没有运行：{reason}）",
    "bench.sweep.flushed": "冲掉",
    "bench.sweep.unflushed": "不冲",
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
    "bench.col.cache": "缓存",
    "bench.col.copy_gb_s": "复制 GB/s",
    "bench.col.copy_us": "复制 μs",
    "bench.col.eager_us": "eager μs",
    "bench.col.fused_gb_s": "融合 GB/s",
    "bench.col.fused_mib": "融合的字节 MiB",
    "bench.col.fused_us": "融合 μs",
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
}
