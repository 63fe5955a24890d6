"""Attention: on the CPU (``attention_memory``), the peak memory of naive and blockwise
attention beside the calculator's; on a GPU, the Triton FlashAttention's TFLOP/s against
``scaled_dot_product_attention`` as torch picks its backend (``gpu_flash``) and against each
backend asked for alone, causal and not (``gpu_sdpa``)."""

from __future__ import annotations

import tracemalloc
import warnings
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np
import torch

from infrabook import config
from infrabook.attention_sizes import attention_flop, attention_sizes
from infrabook.bench.experiments.base import Measured, experiment, first_line, log
from infrabook.bench.measure.cuda import Rig, bf16
from infrabook.bench.records.entry import Target
from infrabook.bench.records.results.attention import (
    AttentionResults,
    AttentionRow,
    FlashResults,
    FlashRow,
    SdpaCase,
    SdpaKernel,
    SdpaResults,
)
from infrabook.bench.records.results.described import profile_for
from infrabook.checks import check_positive_int, check_sizes
from infrabook.reference_attention import blockwise_attention, naive_attention


def peak_bytes(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, int]:
    """``fn``'s result and the peak bytes it allocated above what was allocated before, as
    :mod:`tracemalloc` sees them (numpy reports every array buffer; BLAS scratch is not).

    >>> _, peak = peak_bytes(np.zeros, (1024, 1024))
    >>> peak >= 8 * 1024 * 1024
    True
    """
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        result = fn(*args, **kwargs)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        if started:
            tracemalloc.stop()
    return result, peak - base


@experiment(
    AttentionResults,
    full={"seq_lens": (1024, 2048, 4096, 8192), "head_dim": 128},
    quick={"seq_lens": (256, 512, 1024), "head_dim": 128},
)
def attention_memory(
    seq_lens: Sequence[int],
    head_dim: int,
    *,
    block_q: int | None = None,
    block_k: int | None = None,
) -> Measured:
    """Peak memory of naive (S, P materialised) and blockwise (online softmax) attention.

    One head, fp32 (numpy has no bf16), tiles from ``conf/scenarios.toml`` [attention]
    unless given. Beside each measurement, the calculator's prediction
    (:func:`infrabook.attention_sizes.attention_sizes`): S + P + O for naive; for blockwise
    O plus one tile's scores and two query-tile-sized buffers.
    """
    conf = config.scenarios().attention
    bq = conf.block_q if block_q is None else check_positive_int("block_q", block_q)
    bk = conf.block_k if block_k is None else check_positive_int("block_k", block_k)
    rng, per_len = np.random.default_rng(0), []
    for n in check_sizes("seq_lens", seq_lens):
        log.info("attention_memory: L=%d, d=%d: naive, then blockwise ...", n, head_dim)
        q, k, v = rng.standard_normal((3, n, head_dim), dtype=np.float32)
        sizes = attention_sizes(n, head_dim, "fp32", "fp32")
        tile_bytes = (bq * bk + 2 * bq * head_dim) * 4  # a tile's scores, two query-tile buffers
        model = (2 * sizes.score_bytes + sizes.qkvo_bytes, sizes.qkvo_bytes + tile_bytes)
        o_naive, naive_peak = peak_bytes(naive_attention, q, k, v)
        o_block, block_peak = peak_bytes(blockwise_attention, q, k, v, bq, bk)
        close = bool(np.allclose(o_block, o_naive, rtol=1e-4, atol=1e-5))
        diff = float(np.max(np.abs(o_block - o_naive)))
        per_len.append(AttentionRow(n, *model, naive_peak, block_peak, close, diff))
    return Measured(
        AttentionResults(tuple(per_len)),
        (Target.at_seq_len("blockwise_peak_8192", per_len, lambda r: 100 * r.ratio),),
        {"dtype": "fp32", "block_q": bq, "block_k": bk},
    )


def sdpa_backend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> str:
    """The backend ``scaled_dot_product_attention`` picks for these inputs, as
    :class:`torch.nn.attention.SDPBackend` names it: on sm_90 recent torch tries cuDNN
    attention (``CUDNN_ATTENTION``, a FlashAttention-3-class kernel) before
    ``FLASH_ATTENTION`` (FlashAttention-2), so the baseline depends on the machine.

    >>> q = torch.ones(1, 1, 4, 8)
    >>> sdpa_backend(q, q, q) in torch.nn.attention.SDPBackend.__members__
    True
    """
    from torch.nn.attention import SDPBackend

    return SDPBackend(torch._fused_sdp_choice(q, k, v)).name


_FLASH = {"heads": 16, "tokens": 16384, "head_dim": 128}


@experiment(
    FlashResults,
    full={"seq_lens": (1024, 2048, 4096, 8192, 16384), **_FLASH},
    quick={"seq_lens": (1024, 8192), **_FLASH},  # 8192: the target's length
    limit_s=100,  # 10.3 s on the H200 (2026-12-04)
)
def gpu_flash(
    rig: Rig, seq_lens: Sequence[int], heads: int, tokens: int, head_dim: int
) -> Measured:
    """Forward TFLOP/s of the Triton FlashAttention against ``scaled_dot_product_attention``.

    bf16, not causal, batch = tokens / L (at least 1), so each size processes about the same
    number of tokens. FLOP = 4 * batch * heads * L^2 * d.
    """
    from infrabook.kernels import flash_attention

    sdpa: Callable[..., torch.Tensor] = torch.nn.functional.scaled_dot_product_attention
    flash: Callable[..., Any] = flash_attention
    if profile_for(rig.info.name) is None:
        log.warning(
            "gpu_flash: conf/hardware.toml has no profile of %s: no %% of peak", rig.info.name
        )
    per_len = []
    for n in check_sizes("seq_lens", seq_lens):
        batch = max(1, tokens // n)
        log.info("gpu_flash: L=%d, batch=%d, heads=%d, d=%d ...", n, batch, heads, head_dim)
        q, k, v = bf16(rig, batch, heads, n, head_dim, n=3)
        diff = (flash(q, k, v).float() - sdpa(q, k, v).float()).abs().max().item()
        flop = batch * heads * attention_flop(n, head_dim)
        flash_t, sdpa_t = (rig.flushed(partial(f, q, k, v)) for f in (flash, sdpa))
        per_len.append(FlashRow(n, batch, flop, diff, flash_t, sdpa_t, sdpa_backend(q, k, v)))
    return Measured(
        FlashResults(tuple(per_len)),
        (Target.at_seq_len("gpu_flash_vs_sdpa_8192", per_len, lambda r: r.ratio),),
        {"dtype": "bf16", "causal": False},
    )


#: The SDPA backends ``gpu_sdpa`` asks for one at a time, by their SDPBackend names.
SDPA_BACKENDS = ("CUDNN_ATTENTION", "FLASH_ATTENTION", "EFFICIENT_ATTENTION")


def _one_backend(name: str, causal: bool) -> Callable[..., torch.Tensor]:
    """SDPA restricted to the backend called ``name``: calling it raises when that backend
    cannot run these inputs on this machine, instead of falling back to another."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    backend = getattr(SDPBackend, name)

    def attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        with sdpa_kernel([backend]):
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)

    return attend


def _why_not(err: BaseException, caught: Sequence[warnings.WarningMessage]) -> str:
    """Why a backend did not run: torch's error, then the warnings that say which of the
    backend's conditions failed (on a GPU the error alone says only that no kernel was
    available)."""
    said = [first_line(err)] + [
        first_line(m) for w in caught if isinstance(m := w.message, Warning)
    ]
    return f"failed: {'; '.join(said)}"[:300]


_SDPA = {"seq_len": 8192, "heads": 16, "tokens": 16384, "head_dim": 128}


@experiment(SdpaResults, full=_SDPA, limit_s=60)
def gpu_sdpa(
    rig: Rig,
    seq_len: int,
    heads: int,
    tokens: int,
    head_dim: int,
    backends: Sequence[str] = SDPA_BACKENDS,
) -> Measured:
    """The Triton FlashAttention beside each SDPA backend, non-causal and causal, bf16.

    Each backend is asked for alone (``torch.nn.attention.sdpa_kernel``), so a backend the
    machine or torch lacks is recorded with the reason, never timed as another. Shape as in
    ``gpu_flash``: batch = tokens / L (at least 1); FLOP = 4 * batch * heads * L^2 * d, half
    of it when causal. Times are stored; TFLOP/s are derived from the shape when read.
    """
    from torch.nn.attention import SDPBackend

    from infrabook.kernels import flash_attention

    check_positive_int("seq_len", seq_len)
    known = [n for n in SDPBackend.__members__ if n not in ("ERROR", "OVERRIDEABLE")]
    if not backends or any(n not in known for n in backends):
        raise ValueError(f"backends must name SDPA backends among {known}, got {backends!r}")
    batch = max(1, tokens // seq_len)
    q, k, v = bf16(rig, batch, heads, seq_len, head_dim, n=3)
    cases = []
    for causal in (False, True):
        log.info("gpu_sdpa: L=%d, causal=%s: triton, %s ...", seq_len, causal, ", ".join(backends))
        ours: Callable[..., Any] = partial(flash_attention, causal=causal)
        ref = ours(q, k, v).float()
        kernels = {"triton": SdpaKernel(rig.flushed(partial(ours, q, k, v)), 0.0)}
        for name in backends:
            attend = _one_backend(name, causal)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    diff = (attend(q, k, v).float() - ref).abs().max().item()
                except Exception as err:  # this backend cannot run here: record why
                    kernels[name] = SdpaKernel(reason=_why_not(err, caught))
                    continue
            kernels[name] = SdpaKernel(rig.flushed(partial(attend, q, k, v)), diff)
        flop = batch * heads * attention_flop(seq_len, head_dim, causal)
        cases.append(SdpaCase(causal, flop, kernels))
    return Measured(SdpaResults(tuple(cases)), params={"dtype": "bf16", "batch": batch})
