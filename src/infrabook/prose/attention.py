"""Chapter 3 (FlashAttention): the values its prose glues and the tables it shows.

Text is formatted the way the page prints it, in the build's language; the arithmetic is
:mod:`infrabook.attention_sizes` and :mod:`infrabook.online_softmax`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from infrabook import config
from infrabook.attention_sizes import (
    FlashTraffic,
    StandardTiledTraffic,
    article_attention,
    attention_sizes,
    flash_traffic,
    standard_tiled_traffic,
)
from infrabook.labels import text
from infrabook.online_softmax import Ln, Step, one_pass, online_softmax, trace, without_running_max
from infrabook.prose import figure as figure_of
from infrabook.tables import Table
from infrabook.units import GiB, mib

# The exercise's three scores (as e^s) and values, traced one element at a time.
EXERCISE_EXPS = (1, 4, 2)
EXERCISE_VALUES = (2, 0, 4)


def _flash(
    seq_len: int | None = None, head_dim: int | None = None, block_q: int | None = None
) -> FlashTraffic:
    a = article_attention()
    att = config.scenarios().attention
    return flash_traffic(
        seq_len or a.seq_len,
        head_dim or a.head_dim,
        a.dtype,
        block_q or att.block_q,
        att.block_k,
    )


def _standard(seq_len: int) -> StandardTiledTraffic:
    a = article_attention()
    st = config.scenarios().attention_standard_tiles
    return standard_tiled_traffic(
        seq_len, a.head_dim, a.dtype, a.score_dtype, st.block_m, st.block_n
    )


def sizes() -> dict[str, str]:
    """The article's attention case: tensor sizes and the standard path's traffic.

    >>> v = sizes()
    >>> v["c3_L"], v["c3_d"]
    ('8192', '128')
    """
    a = article_attention()
    return {
        "c3_L": f"{a.seq_len}",
        "c3_d": f"{a.head_dim}",
        "c3_qkvo_mib": f"{mib(a.qkvo_bytes):.0f}",
        "c3_score_mib": f"{mib(a.score_bytes):.0f}",
        "c3_io_mib": f"{mib(a.io_traffic):.0f}",
        "c3_inter_gib": f"{a.intermediate_traffic / GiB:.1f}",
        "c3_inter_mib": f"{mib(a.intermediate_traffic):.0f}",
        "c3_std_mib": f"{mib(a.standard_traffic):.0f}",
        "c3_inter_over_io": f"{a.intermediate_traffic / a.io_traffic:.0f}",
        "c3_ideal_ratio": f"{a.standard_traffic / a.io_traffic:.0f}",
        "c3_row_kib": f"{a.score_bytes / a.seq_len / 1024:g}",
    }


def block_table() -> Table:
    """FlashAttention's traffic for a few query block sizes: half, the configured one,
    double, and the whole sequence.

    >>> [row[0] for row in block_table().rows][-1]
    '8192'
    """
    a = article_attention()
    bq = config.scenarios().attention.block_q
    rows = []
    for b in (bq // 2, bq, 2 * bq, a.seq_len):
        t = _flash(block_q=b)
        rows.append((str(b), t.query_tiles, f"{mib(t.total):.0f}"))
    return Table(
        "",
        ("block_q", text("prose.attention.col.tiles"), text("prose.attention.col.traffic")),
        tuple(rows),
    )


def flash_values() -> dict[str, str]:
    """FlashAttention's traffic against the ideal and the tiled standard path.

    >>> v = flash_values()
    >>> float(v["c3_stdt_over_flash"]) > 1
    True
    """
    a = article_attention()
    att = config.scenarios().attention
    st = config.scenarios().attention_standard_tiles
    f = _flash()
    fc = flash_traffic(a.seq_len, a.head_dim, a.dtype, att.block_q, att.block_k, causal=True)
    std_t = _standard(a.seq_len)
    return {
        "c3_block_q": f"{att.block_q}",
        "c3_block_k": f"{att.block_k}",
        "c3_tiles": f"{f.query_tiles}",
        "c3_flash_mib": f"{mib(f.total):.0f}",
        "c3_flash_kv_mib": f"{mib(f.kv_bytes):.0f}",
        "c3_flash_causal_mib": f"{mib(fc.total):.0f}",
        "c3_flash_over_ideal": f"{f.total / a.io_traffic:.1f}",
        "c3_std_bm": str(st.block_m),
        "c3_std_bn": str(st.block_n),
        "c3_stdt_mib": f"{mib(std_t.total):.0f}",
        "c3_stdt_qkv_mib": f"{mib(std_t.q_bytes + std_t.k_bytes + std_t.v_bytes):.0f}",
        "c3_stdt_over_flash": f"{std_t.total / f.total:.1f}",
        "c3_std_ideal_over_flash": f"{a.standard_traffic / f.total:.1f}",
        "c3_tiling_q": str(att.block_q),
        "c3_tiling_k": str(att.block_k),
        "c3_tiling_reads": f"{f.query_tiles}",
    }


def figures() -> dict[str, Any]:
    """The chapter's model figures (matplotlib), keyed by the names the page glues.

    >>> sorted(figures())
    ['fig_attention_traffic', 'fig_flash_tiling']
    """
    from infrabook.plots.attention import traffic_plot
    from infrabook.plots.guides import flash_tiling

    a = article_attention()
    att = config.scenarios().attention
    st = config.scenarios().attention_standard_tiles
    lengths = [2**k for k in range(9, 17)]
    return {
        "fig_attention_traffic": traffic_plot(
            lengths,
            a.head_dim,
            a.dtype,
            a.score_dtype,
            att.block_q,
            att.block_k,
            (st.block_m, st.block_n),
            mark=a.seq_len,
        ),
        "fig_flash_tiling": flash_tiling(a.seq_len, att.block_q, att.block_k),
    }


def trace_values(steps: Sequence[Step], exact: Any) -> dict[str, str]:
    """The online softmax trace's first and last states, and the one-pass result ``exact``.

    >>> s = trace([Ln(1), Ln(2)], [Fraction(1), Fraction(3)], block=1)
    >>> v = trace_values(s, one_pass([Ln(1), Ln(2)], [Fraction(1), Fraction(3)]))
    >>> v["c31_result"], v["c31_one_pass"]
    ('7/3', '7/3')
    """
    first, last = steps[0].state, steps[-1].state
    return {
        "c31_first_l": str(first.l),
        "c31_first_u": str(first.u),
        "c31_r": str(steps[-1].r),
        "c31_l": f"{float(last.l):g}",
        "c31_u": f"{float(last.u):g}",
        "c31_result": str(last.result),
        "c31_one_pass": str(exact),
    }


def stability(
    s: Sequence[float], v: Sequence[float], blocks: Sequence[int]
) -> tuple[Table, dict[str, str]]:
    """Online softmax of scores ``s`` and values ``v`` in floats, block by block for each of
    ``blocks``, against the whole row at once, and the sum without a running max: a table,
    and the worst difference glued (also as a multiple of float64's eps).

    >>> table, v = stability([1000.0, 999.0, 0.0], [1.0, 2.0, 3.0], [1, 3])
    >>> table.rows[-1][1], v["c31_worst"]
    ('nan', '0.0e+00')
    """
    import numpy as np

    ref = one_pass(s, v)
    diffs = [abs(online_softmax(s, v, block=b) - ref) for b in blocks]
    rows: list[tuple[object, ...]] = [
        (b, f"{online_softmax(s, v, block=b):.17g}", f"{d:.1e}")
        for b, d in zip(blocks, diffs, strict=True)
    ]
    rows.append((text("prose.attention.no_running_max"), f"{without_running_max(s, v)}", "-"))
    table = Table(
        "",
        tuple(text(f"prose.attention.col.{k}") for k in ("block", "result", "difference")),
        tuple(rows),
    )
    worst = max(diffs)
    return table, {
        "c31_worst": f"{worst:.1e}",
        "c31_eps_multiple": f"{worst / np.finfo(np.float64).eps / abs(ref):.1f}",
    }


def kernel_values(o: Any, q: Any, k: Any, v: Any, interpreted: bool) -> dict[str, str]:
    """The FlashAttention kernel's first run (causal, output ``o`` of ``q``, ``k``, ``v``):
    its block, its traffic on the article's case, its error against the standard path,
    and how it ran this build.

    >>> import torch
    >>> from infrabook.kernels import attention_reference
    >>> q = k = v = torch.ones(1, 1, 3, 4)
    >>> kernel_values(attention_reference(q, k, v, True), q, k, v, True)["c3_k_first_err"]
    '0.0e+00'
    """
    from infrabook.kernels import attention_reference
    from infrabook.kernels.flash_attention import BLOCK_M

    kt = _flash(block_q=BLOCK_M)
    batch, heads, seq_len, head_dim = q.shape
    err = (o - attention_reference(q, k, v, causal=True)).abs().max().item()
    return {
        "c3_kernel_bm": str(BLOCK_M),
        "c3_kernel_tiles": str(kt.query_tiles),
        "c3_kernel_mib": f"{mib(kt.total):.0f}",
        "c3_k_batch": f"{batch}",
        "c3_k_heads": f"{heads}",
        "c3_k_len": f"{seq_len}",
        "c3_k_dim": f"{head_dim}",
        "c3_k_where": text(f"prose.attention.where.{'interpreted' if interpreted else 'gpu'}"),
        "c3_k_first_err": f"{err:.1e}",
    }


def _same_dtype(q: Any, k: Any, v: Any, causal: bool) -> Any:
    """Attention with every step rounded to q's dtype: the authors' yardstick."""
    import torch

    s = (q @ k.transpose(-2, -1)) * q.shape[-1] ** -0.5
    if causal:
        s = s.masked_fill(torch.ones(s.shape[-2:], dtype=torch.bool).triu(1), float("-inf"))
    return torch.softmax(s, dim=-1) @ v


def kernel_errors(shape: tuple[int, int, int, int]) -> tuple[Table, dict[str, str]]:
    """The kernel's errors on random inputs of ``shape`` (seed 0, drawn in fp64) in fp32 and
    bf16, causal or not: against the standard path, against fp64, and same-dtype PyTorch
    against fp64; glued, whether every row meets the rule kernel-vs-fp64 ≤ 2 × PyTorch's.

    >>> table, v = kernel_errors((1, 1, 5, 16))
    >>> [row[:2] for row in table.rows]
    [('float32', '否'), ('float32', '是'), ('bfloat16', '否'), ('bfloat16', '是')]
    """
    import torch

    from infrabook.kernels import attention_reference, flash_attention

    gen = torch.Generator().manual_seed(0)
    qkv64 = [torch.randn(*shape, generator=gen, dtype=torch.float64) for _ in range(3)]
    rows, ok = [], True
    for dtype in (torch.float32, torch.bfloat16):
        q, k, v = (t.to(dtype) for t in qkv64)
        for causal in (False, True):
            oracle = attention_reference(q.double(), k.double(), v.double(), causal=causal)
            out = torch.as_tensor(flash_attention(q, k, v, causal=causal)).double()
            pairs = (
                (out, attention_reference(q, k, v, causal=causal).double()),
                (out, oracle),
                (_same_dtype(q, k, v, causal), oracle),
            )
            e = [(x.double() - y).abs().max().item() for x, y in pairs]
            ok &= e[1] <= 2 * e[2] + 1e-5
            rows.append(
                (
                    str(dtype).removeprefix("torch."),
                    text("word.yes" if causal else "word.no"),
                    *(f"{x:.2e}" for x in e),
                )
            )
    columns = (
        "dtype",
        *(
            text(f"prose.attention.col.{c}")
            for c in ("causal", "vs_standard", "vs_fp64", "torch_fp64")
        ),
    )
    return Table("", columns, tuple(rows)), {
        "c3_rule": text(f"prose.attention.rule.{'all' if ok else 'not_all'}")
    }


def exercises() -> dict[str, str]:
    """The answers of the chapter's exercises: four times the sequence, a traced softmax
    of three elements, and a doubled head dimension with half the query block.

    >>> v = exercises()
    >>> v["ex3_L_factor"], v["ex3_result"], v["ex3_exps"]
    ('4', '10/7', 'ln 1、ln 4、ln 2')
    """
    a = article_attention()
    bq = config.scenarios().attention.block_q
    long_len = 4 * a.seq_len
    factor = long_len // a.seq_len
    al = attention_sizes(long_len, a.head_dim, a.dtype, a.score_dtype)
    f, fl, sl = _flash(), _flash(seq_len=long_len), _standard(long_len)
    std_t = _standard(a.seq_len)
    scores = [Ln(Fraction(w)) for w in EXERCISE_EXPS]
    values = [Fraction(x) for x in EXERCISE_VALUES]
    steps = trace(scores, values, block=1)
    if steps[-1].state.result != one_pass(scores, values):
        raise ArithmeticError("the traced softmax differs from the one-pass result")
    sep = text("prose.list_sep")
    out = {
        "ex3_L": f"{long_len}",
        "ex3_L_factor": str(factor),
        "ex3_L_factor_sq": str(factor**2),
        "ex3_score_mib": f"{mib(al.score_bytes):,.0f}",
        "ex3_std_mib": f"{mib(sl.total):,.0f}",
        "ex3_flash_mib": f"{mib(fl.total):,.0f}",
        "ex3_ratio": f"{sl.total / fl.total:.1f}",
        "ex3_std_growth": f"{sl.total / std_t.total:.1f}",
        "ex3_flash_growth": f"{fl.total / f.total:.1f}",
        "ex3_exps": sep.join(f"ln {w}" for w in EXERCISE_EXPS),
        "ex3_vals": sep.join(str(x) for x in EXERCISE_VALUES),
        "ex3_result": str(steps[-1].state.result),
    }
    for i, step in enumerate(steps):
        out |= {
            f"ex3_r{i}": str(step.r),
            f"ex3_l{i}": str(step.state.l),
            f"ex3_u{i}": str(step.state.u),
        }
    fd = _flash(head_dim=2 * a.head_dim, block_q=bq // 2)
    return out | {
        "ex3_d": str(2 * a.head_dim),
        "ex3_d_bq": str(bq // 2),
        "ex3_d_mib": f"{mib(fd.total):.0f}",
        "ex3_d_tiles": str(fd.query_tiles),
        "ex3_d_kv_growth": f"{fd.kv_bytes / f.kv_bytes:g}",
    }


def gpu_values(folder: Any = None) -> dict[str, str]:
    """The reference GPU's FlashAttention record against its target and the roofline: the
    SDPA backend it was compared with, the ratio at the target's length, and the fastest
    SDPA run beside the bound with every K/V re-read from DRAM.

    >>> v = gpu_values()
    >>> v["c3g_backend"], v["c3g_ratio"], v["c3g_verdict"], v["c3g_bound"], v["c3g_fastest_tflops"]
    ('CUDNN_ATTENTION', '0.80', '未达到', '605', '612')
    """
    from infrabook.bench.records.results.described import profile_for
    from infrabook.prose import reference_entry
    from infrabook.roofline import attention_workloads

    entry = reference_entry("gpu_flash", folder)
    goal = config.bench_targets()["gpu_flash_vs_sdpa_8192"]
    rows = entry.results.per_seq_len
    at = next(r for r in rows if r.seq_len == goal.seq_len)
    fastest = max(rows, key=lambda r: r.tflop_s("sdpa"))
    spec = profile_for(entry.provenance.device.name)
    if spec is None:
        raise LookupError(f"gpu_flash: {entry.provenance.device.name!r} has no profile")
    att = config.scenarios().attention
    _, flash = attention_workloads(
        att.seq_len, att.head_dim, att.dtype, att.score_dtype, att.block_q
    )
    bound = flash.attainable_tflops(spec)
    return {
        "c3g_dev": entry.provenance.device.name,
        "c3g_backend": at.sdpa_backend,
        "c3g_L": f"{at.seq_len:,}",
        "c3g_flash_tflops": f"{at.tflop_s('flash'):.0f}",
        "c3g_sdpa_tflops": f"{at.tflop_s('sdpa'):.0f}",
        "c3g_ratio": f"{at.ratio:.2f}",
        "c3g_threshold": f"{goal.threshold:g}",
        "c3g_verdict": text("bench.met" if at.ratio >= goal.threshold else "bench.missed"),
        "c3g_fastest_L": f"{fastest.seq_len:,}",
        "c3g_fastest_tflops": f"{fastest.tflop_s('sdpa'):.0f}",
        "c3g_intensity": f"{flash.intensity:.0f}",
        "c3g_dram": f"{figure_of(spec, 'dram_tb_s'):g}",
        "c3g_bound": f"{bound:.0f}",
        "c3g_flash_pct_bound": f"{100 * at.tflop_s('flash') / bound:.0f}",
    }
