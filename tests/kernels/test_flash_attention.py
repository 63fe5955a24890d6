"""FlashAttention forward: the authors' accuracy rule against two oracles, LSE, traffic."""

import math

import pytest
import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from infrabook.attention_sizes import flash_traffic
from infrabook.kernels import (
    BLOCK_M,
    BLOCK_N,
    INTERPRETED,
    attention_reference,
    flash_attention,
)
from infrabook.kernels.attention_ladder import RUNGS, ladder_attention
from infrabook.kernels.flash_attention import GPU_TILES, _flash_attention_tuned, fitting_tiles

# (batch, heads, seq_len, head_dim): seq_len below, at and off multiples of the 64-row
# tiles (130 is a multiple of no tile size, so causal programs past the first run both the
# unmasked and the masked loop), head dims at both ends of the range and two that are not
# powers of two.
SHAPES = [(1, 2, 77, 16), (1, 1, 130, 80), (2, 1, 33, 128), (1, 1, 1, 64), (1, 1, 64, 96)]


def _qkv(shape, dtype, device, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(shape, generator=gen).to(device, dtype) for _ in range(3)]


def _plain(q, k, v, causal):
    # The "same dtype" PyTorch path: every step (QK^T, softmax, PV) rounds to q's dtype. It
    # runs on the CPU wherever the kernel runs, so that the rule's bound is one number on
    # every machine. In fp32 the kernel's error is that of rounding a head_dim-long dot
    # product (an error d in a score is a relative error d in its exponential): at shape
    # (1, 1, 64, 96) it is 5.803659157699315e-07 both in the interpreter and compiled on an
    # H200 (input_precision="ieee": no TF32), while this path erred 4.0e-07 with the CPU's
    # matmul and 1.9e-07 with cuBLAS's, whose summation order differs. The bound moved with
    # the device's BLAS, not with the kernel.
    q, k, v = (t.cpu() for t in (q, k, v))
    s = (q @ k.transpose(-2, -1)) * q.shape[-1] ** -0.5
    if causal:
        n = q.shape[-2]
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1), -math.inf)
    return torch.softmax(s, dim=-1) @ v


def _assert_accuracy_rule(o, q, k, v, causal, oracle):
    # The FlashAttention authors' rule: the kernel's max error against a high-precision
    # oracle may be at most twice that of the plain PyTorch path in the same dtype, plus
    # an absolute term. As in their newer tests the term comes from the data: the error of
    # adding and taking away 0.3 in the output dtype, i.e. a rounding or two at the
    # outputs' magnitude. That scales with dtype and data, unlike one fixed constant, and
    # it matters where the plain error is itself a few roundings (fp32, or seq_len 1 where
    # both errors are 0) and their ratio is noise; a wrong mask or a missed rescale errs
    # by far more.
    ref = oracle.to(o.dtype)
    atol = 2 * (ref + 0.3 - 0.3 - ref).abs().max().item()
    kernel_err = (o.double() - oracle).abs().max().item()
    plain_err = (_plain(q, k, v, causal).double() - oracle.cpu()).abs().max().item()
    assert kernel_err <= 2 * plain_err + atol, (kernel_err, plain_err, atol)


# Every rung of the attention ladder is held to the same rule (rung 0 is flash_attention).
# The rule's tolerance is per dtype by construction: both of its terms are measured in the
# output dtype's own roundings.
@pytest.mark.parametrize("rung", [r.number for r in RUNGS])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shape", SHAPES)
def test_accuracy_rule(dtype, shape, causal, rung, device):
    q, k, v = _qkv(shape, dtype, device)
    o = ladder_attention(q, k, v, causal=causal, rung=rung)
    assert o.shape == q.shape and o.dtype == dtype
    wide = [t.double() for t in (q, k, v)]
    # attention_reference in fp64, and PyTorch's own kernel as an independent second oracle.
    for oracle in (
        attention_reference(*wide, causal=causal),
        F.scaled_dot_product_attention(*wide, is_causal=causal),
    ):
        _assert_accuracy_rule(o, q, k, v, causal, oracle)


@pytest.mark.parametrize("causal", [False, True])
def test_log_sum_exp(causal, device):
    q, k, v = _qkv((1, 2, 77, 80), torch.bfloat16, device)
    o, lse = flash_attention(q, k, v, causal=causal, return_lse=True)
    assert lse.shape == (1, 2, 77) and lse.dtype == torch.float32
    assert torch.equal(o, flash_attention(q, k, v, causal=causal))
    s = q.double() @ k.double().transpose(-2, -1) / math.sqrt(80)
    if causal:
        s = s.masked_fill(torch.ones(77, 77, dtype=torch.bool, device=device).triu(1), -math.inf)
    # bf16 products are exact in fp32 and the LSE is ~5 in size: fp32 ulps there are ~5e-7.
    torch.testing.assert_close(lse.double(), torch.logsumexp(s, dim=-1), rtol=0.0, atol=1e-5)


# Query tiles narrower than, wider than and far narrower than the key tiles: the split of
# the causal loop must not depend on one being a multiple of the other.
@pytest.mark.parametrize("rung", [r.number for r in RUNGS])
@pytest.mark.parametrize(("block_m", "block_n"), [(16, 32), (128, 16), (32, 128)])
def test_other_tile_sizes(block_m, block_n, rung, device):
    if rung >= 2 and not INTERPRETED:
        pytest.skip("warp specialization compiles for sm_90 only with 128-row tiles")
    q, k, v = _qkv((1, 1, 77, 64), torch.float32, device)
    o = ladder_attention(q, k, v, causal=True, rung=rung, block_m=block_m, block_n=block_n)
    torch.testing.assert_close(o, attention_reference(q, k, v, causal=True), rtol=0, atol=1e-5)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("block_m", [BLOCK_M, 16])
def test_traffic(causal, block_m, device, traffic):
    batch, heads, seq_len, head_dim = 1, 2, 77, 80
    q, k, v = _qkv((batch, heads, seq_len, head_dim), torch.bfloat16, device)
    _, (kernel,) = traffic(flash_attention, q, k, v, causal=causal, block_m=block_m)
    # flash_traffic counts one head, and its K and V rows are the ones the kernel reads:
    # each query tile walks the key tiles up to its last row (causal) or to the end, the
    # last one masked at seq_len. The padding of head_dim 80 to 128 lanes is never moved.
    model = flash_traffic(
        seq_len, head_dim, "bf16", block_q=block_m, block_k=BLOCK_N, causal=causal
    )
    n = batch * heads
    kv = n * model.kv_bytes // 2
    assert kernel.read == {"q_ptr": n * model.q_bytes, "k_ptr": kv, "v_ptr": kv}
    assert kernel.written == {"o_ptr": n * model.o_bytes, "lse_ptr": n * seq_len * 4}
    # Without causal, K and V are read once per query tile, seq_len / BLOCK_M times in all:
    # the FlashAttention paper's N^2 d / M term.
    if not causal:
        assert kv == math.ceil(seq_len / block_m) * k.nbytes


@pytest.mark.gpu
@pytest.mark.skipif(INTERPRETED, reason="no CUDA GPU: the kernels run in the interpreter")
@pytest.mark.parametrize("causal", [False, True])
def test_native_long_sequence(dtype, causal):
    # 1000 is a multiple of no tile size in GPU_TILES, so every config runs both loops.
    q, k, v = _qkv((2, 4, 1000, 128), dtype, "cuda")
    tuned = len(_flash_attention_tuned.cache)
    o = flash_attention(q, k, v, causal=causal)
    # The default call went through the autotuner, which timed a new key and kept a config.
    assert len(_flash_attention_tuned.cache) == tuned + 1
    best = _flash_attention_tuned.best_config
    tiles = best.kwargs["BLOCK_M"], best.kwargs["BLOCK_N"], best.num_warps, best.num_stages
    assert tiles in GPU_TILES
    oracle = F.scaled_dot_product_attention(*(t.double() for t in (q, k, v)), is_causal=causal)
    _assert_accuracy_rule(o, q, k, v, causal, oracle)


@pytest.mark.parametrize("seq_len", [1, 77, 128, 1000])
def test_the_autotuner_skips_query_tiles_taller_than_the_sequence(seq_len):
    configs = _flash_attention_tuned.configs
    q = torch.empty(1, dtype=torch.bfloat16)
    kept = fitting_tiles(configs, {"q_ptr": q, "seq_len": seq_len})
    assert kept[0] is configs[0]
    assert kept[1:] == [c for c in configs[1:] if c.kwargs["BLOCK_M"] <= seq_len]
    if seq_len >= max(t[0] for t in GPU_TILES):
        assert kept == configs
    assert fitting_tiles(configs, {"q_ptr": q.float(), "seq_len": seq_len}) == configs[:1]


@triton.jit
def _dot_kernel(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(c_ptr + offs, tl.dot(tl.load(a_ptr + offs), tl.load(b_ptr + offs)))


@pytest.mark.skipif(not INTERPRETED, reason="checks a defect of Triton's interpreter")
def test_the_interpreter_bf16_dot_defect_is_still_there():
    # The reason for _dot(WIDEN) in _tiles.py. If this starts failing, Triton's interpreter
    # multiplies bf16 correctly and the attention kernels can drop the widening.
    eye = torch.eye(16, dtype=torch.bfloat16)
    c = torch.empty(16, 16)
    _dot_kernel[(1,)](eye, eye, c, N=16)
    # 1.0 in bf16 is the bit pattern 0x3F80: the diagonal holds that pattern squared.
    assert eye.view(torch.int16)[0, 0].item() == 0x3F80
    assert torch.equal(c, torch.eye(16) * 0x3F80**2)
