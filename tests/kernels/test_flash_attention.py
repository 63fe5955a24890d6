"""FlashAttention forward: the authors' accuracy rule against two oracles, LSE, traffic."""

import math

import pytest
import torch
import torch.nn.functional as F

from infrabook.attention_sizes import flash_traffic
from infrabook.kernels import (
    BLOCK_M,
    BLOCK_N,
    INTERPRETED,
    attention_reference,
    flash_attention,
)

# (batch, heads, seq_len, head_dim): seq_len below, at and off multiples of the 64-row
# tiles, head dims at both ends of the range and two that are not powers of two.
SHAPES = [(1, 2, 77, 16), (1, 1, 130, 80), (2, 1, 33, 128), (1, 1, 1, 64), (1, 1, 64, 96)]

# The FlashAttention authors' rule: the kernel's max error against a high-precision
# reference may be at most twice that of the plain PyTorch path in the same dtype, plus
# an absolute term. The term is for fp32, where both errors are a few ulps (~1e-7 on
# outputs of size ~1), so their ratio is noise; 1e-5 is ~100 ulps there, yet a wrong
# mask or a missed rescale errs by 1e-2 or more. For fp16/bf16 it is negligible.
ATOL = 1e-5


def _qkv(shape, dtype, device, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(shape, generator=gen).to(device, dtype) for _ in range(3)]


def _plain(q, k, v, causal):
    # The "same dtype" PyTorch path: every step (QK^T, softmax, PV) rounds to q's dtype.
    s = (q @ k.transpose(-2, -1)) * q.shape[-1] ** -0.5
    if causal:
        n = q.shape[-2]
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1), -math.inf)
    return torch.softmax(s, dim=-1) @ v


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shape", SHAPES)
def test_accuracy_rule(dtype, shape, causal, device):
    q, k, v = _qkv(shape, dtype, device)
    o = flash_attention(q, k, v, causal=causal)
    assert o.shape == q.shape and o.dtype == dtype
    wide = [t.double() for t in (q, k, v)]
    plain = _plain(q, k, v, causal).double()
    # attention_reference in fp64, and PyTorch's own kernel as an independent second oracle.
    for oracle in (
        attention_reference(*wide, causal=causal),
        F.scaled_dot_product_attention(*wide, is_causal=causal),
    ):
        kernel_err = (o.double() - oracle).abs().max().item()
        plain_err = (plain - oracle).abs().max().item()
        assert kernel_err <= 2 * plain_err + ATOL, (kernel_err, plain_err)


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


@pytest.mark.parametrize(("block_m", "block_n"), [(16, 32), (128, 16)])
def test_other_tile_sizes(block_m, block_n, device):
    q, k, v = _qkv((1, 1, 77, 64), torch.float32, device)
    o = flash_attention(q, k, v, causal=True, block_m=block_m, block_n=block_n)
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
    q, k, v = _qkv((2, 4, 1000, 128), dtype, "cuda")
    o = flash_attention(q, k, v, causal=causal)
    oracle = F.scaled_dot_product_attention(*(t.double() for t in (q, k, v)), is_causal=causal)
    kernel_err = (o.double() - oracle).abs().max().item()
    plain_err = (_plain(q, k, v, causal).double() - oracle).abs().max().item()
    assert kernel_err <= 2 * plain_err + ATOL
