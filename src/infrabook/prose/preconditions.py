"""Chapter 7 (preconditions of fusion): the values its prose glues and the tables it shows.

Text is formatted the way the page prints it, in the build's language; the arithmetic is
:mod:`infrabook.dataflow`, :mod:`infrabook.float_order`, :mod:`infrabook.online_softmax` and
:mod:`infrabook.bucketing`'s.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from infrabook import config
from infrabook.bucketing import StrategyCost, article_bucketing, cost_lines
from infrabook.crossover import regimes
from infrabook.dataflow import Accounting, account, unfused
from infrabook.ffn_chain import shared_intermediate_chain
from infrabook.float_order import OrderComparison, compare_orders
from infrabook.labels import group, text
from infrabook.online_softmax import online_softmax, without_running_max
from infrabook.tables import Table
from infrabook.units import mib

# The plan that fuses SiLU with the multiply while a later op (keep) still reads T.
SHARED_FUSED = (("silu", "mul"), ("keep",))
# Shifts added to every score of the softmax example, to push exp past each float's range.
SHIFTS = (0.0, 1e2, 1e3, 1e4)


def order_names(lang: str | None = None) -> dict[str, str]:
    """The reader's words for the summation orders of :func:`compare_orders`, in ``lang``
    (the build's language by default).

    >>> order_names(lang="en")["pairwise"]
    'pairwise'
    """
    return group("prose.preconditions.order", lang)


def _columns(*keys: str) -> tuple[str, ...]:
    return tuple(text(f"prose.preconditions.col.{k}") for k in keys)


def consumers(cases: Sequence[tuple[str, str, Accounting]]) -> tuple[Table, dict[str, str]]:
    """The one-consumer and two-consumer chains, separate and fused (``cases``: who
    consumes T, the plan's name, its accounting, in the order one/separate, one/fused,
    two/separate, two/fused): a table of what each kernel writes back, and the savings.

    >>> from infrabook.ffn_chain import article_chain
    >>> from infrabook.dataflow import fully_fused
    >>> one = article_chain()
    >>> two = shared_intermediate_chain(1024, 12288, "bf16")
    >>> cases = [("1", "s", account(one, unfused(one))), ("1", "f", account(one, fully_fused(one))),
    ...          ("2", "s", account(two, unfused(two))), ("2", "f", account(two, SHARED_FUSED))]
    >>> table, v = consumers(cases)
    >>> v["pc_saved_single"], v["pc_saved_shared"], v["pc_fused_writes"]
    ('48', '24', 'T、Z')
    """
    sep = text("prose.list_sep")
    rows = tuple(
        (
            who,
            plan,
            text("word.list_sep").join(
                text("word.named", name=k.name, value=sep.join(k.writes)) for k in acc.kernels
            ),
            f"{mib(acc.traffic):g}",
            f"{mib(acc.peak_live_bytes):g}",
        )
        for who, plan, acc in cases
    )
    table = Table("", _columns("consumers", "plan", "writes", "traffic", "peak"), rows)
    single_sep, single_fused, shared_sep, shared_fused = (acc for _, _, acc in cases)
    fused_kernel = shared_fused.kernels[0]
    if "T" not in fused_kernel.writes:
        raise ValueError(f"the fused kernel writes {fused_kernel.writes}, expected T among them")
    chain = config.scenarios().ffn_chain
    shared = shared_intermediate_chain(chain.rows, chain.cols, chain.dtype)
    return table, {
        "pc_saved_single": f"{mib(single_sep.traffic - single_fused.traffic):g}",
        "pc_saved_shared": f"{mib(shared_sep.traffic - shared_fused.traffic):g}",
        "pc_t_mib": f"{mib(shared.tensor('T').nbytes):g}",
        "pc_fused_writes": sep.join(fused_kernel.writes),
        "pc_peak_shared_unfused": f"{mib(shared_sep.peak_live_bytes):g}",
        "pc_peak_shared_fused": f"{mib(shared_fused.peak_live_bytes):g}",
    }


def fused_differences(shape: tuple[int, int] = (64, 200)) -> tuple[Table, dict[str, str]]:
    """How many elements the fused and separate SwiGLU kernels disagree on, in fp32, fp16
    and bf16, on random inputs of ``shape`` (seed 0).

    >>> table, v = fused_differences((4, 8))
    >>> v["pc_fuse_numel"], v["pc_fuse_differ_float32"]
    ('32', '0')
    """
    import torch

    from infrabook.kernels import swiglu, swiglu_unfused

    gen = torch.Generator().manual_seed(0)
    differ = {}
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        g, u = (torch.randn(*shape, generator=gen).to(dtype) for _ in range(2))
        differ[str(dtype).removeprefix("torch.")] = (
            (swiglu(g, u) != swiglu_unfused(g, u)).sum().item()
        )
    if differ["float32"] != 0:
        raise ArithmeticError(f"fused and separate fp32 differ in {differ['float32']} elements")
    numel = shape[0] * shape[1]
    table = Table(
        "",
        _columns("dtype", "differ"),
        tuple((name, f"{n:,} / {numel:,}") for name, n in differ.items()),
    )
    return table, {"pc_fuse_numel": f"{numel:,}"} | {
        f"pc_fuse_differ_{name}": f"{n:,}" for name, n in differ.items()
    }


def order_sums(tiny: OrderComparison, n: int = 4096) -> tuple[Table, dict[str, str]]:
    """The four-term example ``tiny``, and ``n`` standard-normal fp32 values (seed 0) summed
    in each order in fp32 and fp16: how many results differ, by how much.

    >>> tiny = compare_orders([1e8, 1.0, -1e8, 1.0], "fp32")
    >>> table, v = order_sums(tiny, 64)
    >>> v["pc_tiny_exact"], v["pc_n_orders"], [row[0] for row in table.rows], table.columns[0]
    ('2', '4', ['fp32', 'fp16'], 'dtype')
    """
    import numpy as np

    values = np.random.default_rng(0).standard_normal(n).astype(np.float32).tolist()
    rows = []
    for dtype in ("fp32", "fp16"):
        c = compare_orders(values, dtype)
        spread = max(c.orders.values()) - min(c.orders.values())
        rows.append(
            (
                dtype,
                f"{c.distinct_results} / {len(c.orders)}",
                f"{spread:.3g}",
                f"{float(c.exact):.6f}",
            )
        )
    table = Table("", ("dtype", *_columns("distinct", "spread", "exact")), tuple(rows))
    return table, {
        "pc_tiny_fwd": f"{tiny.orders['forward']:g}",
        "pc_tiny_bwd": f"{tiny.orders['backward']:g}",
        "pc_tiny_exact": str(tiny.exact),
        "pc_n_orders": str(len(tiny.orders)),
        "pc_rand_distinct": str(compare_orders(values, "fp32").distinct_results),
    }


def shifted_softmax() -> tuple[Table, dict[str, str]]:
    """The article's softmax example with every score shifted by each of :data:`SHIFTS`,
    without and with a running max; glued, where exp overflows in each float.

    >>> table, v = shifted_softmax()
    >>> v["pc_exp_limit_fp16"], table.rows[-1][1]
    ('11.1', 'nan')
    """
    import numpy as np

    sm = config.scenarios().online_softmax
    base = [math.log(w) for w in sm.score_exps]
    vals = [float(v) for v in sm.values]
    rows = []
    for shift in SHIFTS:
        scores = [s + shift for s in base]
        rows.append(
            (
                f"{shift:g}",
                f"{without_running_max(scores, vals):.6g}",
                f"{float(online_softmax(scores, vals, sm.block)):.6g}",
            )
        )
    limits = {
        name: math.log(float(np.finfo(t).max))
        for name, t in (("fp16", np.float16), ("fp32", np.float32), ("fp64", np.float64))
    }
    table = Table("", _columns("shift", "no_max", "online"), tuple(rows))
    return table, {f"pc_exp_limit_{name}": f"{lim:.1f}" for name, lim in limits.items()} | {
        "pc_online_result": f"{float(online_softmax(base, vals, sm.block)):.4f}"
    }


def skewed(costs: Sequence[StrategyCost]) -> tuple[Table, dict[str, Any]]:
    """The article's calls all one row over the small bucket (``costs``: the three
    strategies' costs there): a table, the lower envelope, and the padding sweep figure.

    >>> sc = article_bucketing()
    >>> n = sum(k for _, k in sc.calls)
    >>> table, v = skewed(replace(sc, calls=((sc.buckets[0] + 1, n),)).costs("article"))
    >>> v["pc_skew_padding"], "bucketed" in v["pc_skew_envelope"]
    ('299%', False)
    """
    from infrabook.plots.runtime import padding_sweep_figure

    sc = article_bucketing()
    rows = tuple(
        (
            c.strategy.label,
            text(
                "prose.preconditions.rows_padding",
                rows=f"{c.executed_rows:,}",
                pad=f"{c.padding_fraction:+.1%}",
            ),
            f"{c.strategy.mfu:.0%}",
            f"{c.time_ms:.2f}",
            f"{c.strategy.prep_ms:g}",
        )
        for c in costs
    )
    table = Table("", _columns("strategy", "executed_pad", "mfu", "time", "prep"), rows)
    generic, bucketed, specialised = costs
    if not bucketed.time_ms > generic.time_ms > specialised.time_ms:
        raise ValueError("expected bucketed slower than generic, slower than specialised")
    envelope = regimes(cost_lines(costs))
    labels = {s.name: s.label for s in sc.strategies}
    return table, {
        "pc_skew_envelope": " → ".join(
            text("prose.preconditions.from_n", name=labels[g.best], n=f"{g.start:.1f}")
            for g in envelope
        ),
        "pc_skew_rows": f"{sc.buckets[0] + 1:,}",
        "pc_skew_calls": str(sum(n for _, n in sc.calls)),
        "pc_skew_bucket": f"{sc.buckets[1]:,}",
        "pc_skew_padding": f"{bucketed.padding_fraction:.0%}",
        "pc_skew_limit": f"{bucketed.strategy.mfu / generic.strategy.mfu - 1:.0%}",
        "pc_skew_b_ms": f"{bucketed.time_ms:.2f}",
        "pc_skew_g_ms": f"{generic.time_ms:.2f}",
        "pc_skew_s_ms": f"{specialised.time_ms:.2f}",
        "pc_sweep_fig": padding_sweep_figure(sc, range(sc.buckets[0] // 4, sc.buckets[-1] + 1)),
    }


def _two_consumer_saving(dtype: str) -> tuple[int, int]:
    chain = config.scenarios().ffn_chain
    g = shared_intermediate_chain(chain.rows, chain.cols, dtype)
    saved = account(g, unfused(g)).traffic - account(g, SHARED_FUSED).traffic
    return g.tensor("T").nbytes, saved


def exercises() -> dict[str, str]:
    """The answers of the chapter's exercises: the two-consumer chain in fp32, calls just
    over half the big bucket, and where exp overflows in bf16.

    >>> v = exercises()
    >>> v["pc_ex1_scale"], v["pc_ex3_bf16"]
    ('2', '88.7')
    """
    import torch

    chain = config.scenarios().ffn_chain
    sc = article_bucketing()
    t_bytes, wide_saved = _two_consumer_saving("fp32")
    _, base_saved = _two_consumer_saving(chain.dtype)
    edge = sc.buckets[1] // 2 + 1  # one row over half the big bucket
    n_calls = sum(n for _, n in sc.calls)
    generic, bucketed, _ = replace(sc, calls=((edge, n_calls),)).costs("article")
    faster = bucketed.time_ms < generic.time_ms
    return {
        "pc_ex1_saved": f"{mib(wide_saved):g}",
        "pc_ex1_t": f"{mib(t_bytes):g}",
        "pc_ex1_dtype": chain.dtype.upper(),
        "pc_ex1_scale": f"{wide_saved / base_saved:g}",
        "pc_ex2_rows": f"{edge:,}",
        "pc_ex2_pad": f"{bucketed.padding_fraction:.1%}",
        "pc_ex2_ratio": f"{bucketed.time_ms / generic.time_ms:.4f}",
        "pc_ex2_verdict": text(f"prose.preconditions.edge.{'faster' if faster else 'slower'}"),
        "pc_ex3_bf16": f"{math.log(float(torch.finfo(torch.bfloat16).max)):.1f}",
    }
