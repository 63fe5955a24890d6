"""Every wrapper rejects bad input with an error that names the problem."""

import pytest
import torch

from infrabook.kernels import (
    INTERPRETED,
    flash_attention,
    swiglu,
    swiglu_per_tile,
    swiglu_persistent,
    swiglu_quant,
    swiglu_unfused,
)

ELEMENTWISE = [swiglu, swiglu_unfused, swiglu_quant, swiglu_per_tile, swiglu_persistent]


def _ones(shape, device, dtype=torch.float32):
    return torch.ones(shape, dtype=dtype, device=device)


# Each case builds (g, u) from a device and names the error and a phrase of its message.
ELEMENTWISE_CASES = {
    "shapes differ": (
        lambda d: (_ones((3, 5), d), _ones((3, 4), d)),
        ValueError,
        r"g and u must have the same shape, got g \(3, 5\) and u \(3, 4\)",
    ),
    "float64": (
        lambda d: (_ones((3, 5), d, torch.float64),) * 2,
        TypeError,
        "g has dtype torch.float64, expected one of",
    ),
    "int32": (lambda d: (_ones((3, 5), d, torch.int32),) * 2, TypeError, "g has dtype"),
    "dtypes differ": (
        lambda d: (_ones((3, 5), d), _ones((3, 5), d, torch.bfloat16)),
        TypeError,
        "must have the same dtype",
    ),
    "1-D": (lambda d: (_ones(5, d),) * 2, ValueError, "g must have 2 dimensions, got 1"),
    "3-D": (lambda d: (_ones((1, 3, 5), d),) * 2, ValueError, "must have 2 dimensions, got 3"),
    "empty": (lambda d: (_ones((0, 5), d),) * 2, ValueError, r"g is empty \(shape \(0, 5\)\)"),
    "transposed": (
        lambda d: (_ones((5, 3), d).t(), _ones((3, 5), d)),
        ValueError,
        "g must be contiguous",
    ),
    "not a tensor": (lambda d: ([[1.0]], _ones((1, 1), d)), TypeError, "g must be a torch.Tensor"),
    # The meta device holds no data: it stands in for a second device on any machine.
    "devices differ": (
        lambda d: (_ones((3, 5), d), _ones((3, 5), "meta")),
        ValueError,
        "must be on the same device",
    ),
}


@pytest.mark.parametrize("case", ELEMENTWISE_CASES)
@pytest.mark.parametrize("fn", ELEMENTWISE, ids=lambda f: f.__name__)
def test_elementwise_rejects(fn, case, device):
    make, error, message = ELEMENTWISE_CASES[case]
    with pytest.raises(error, match=message):
        fn(*make(device))


def test_quant_rejects_out_dtype_and_block(device):
    g = _ones((3, 40), device)
    with pytest.raises(TypeError, match=r"out_dtype must be torch\.int8 or torch\.float8_e4m3fn"):
        swiglu_quant(g, g, out_dtype=torch.float16)
    for block in (8, 48, 2**15, True):
        with pytest.raises(ValueError, match="block_cols must be a power of two"):
            swiglu_quant(g, g, block_cols=block)


@pytest.mark.parametrize("fn", [swiglu_per_tile, swiglu_persistent], ids=lambda f: f.__name__)
def test_tiled_rejects_block_size(fn, device):
    g = _ones((3, 5), device)
    with pytest.raises(ValueError, match="block_size must be a power of two"):
        fn(g, g, block_size=100)


@pytest.mark.parametrize("num_programs", [0, -2, 2.5, True])
def test_persistent_rejects_program_count(num_programs, device):
    g = _ones((3, 5), device)
    with pytest.raises(ValueError, match="num_programs must be a positive integer"):
        swiglu_persistent(g, g, num_programs)


def _qkv(shape, device, dtype=torch.float32):
    return [torch.zeros(shape, dtype=dtype, device=device) for _ in range(3)]


@pytest.mark.parametrize(
    ("q", "error", "message"),
    [
        ((1, 1, 8, 8), ValueError, "head_dim must be from 16 to 128, got 8"),
        ((1, 1, 8, 160), ValueError, "head_dim must be from 16 to 128, got 160"),
        ((1, 8, 16), ValueError, "q must have 4 dimensions, got 3"),
        ((1, 1, 0, 16), ValueError, "q is empty"),
    ],
)
def test_attention_rejects_shapes(q, error, message, device):
    with pytest.raises(error, match=message):
        flash_attention(*_qkv(q, device))


def test_attention_rejects_more_heads_than_the_grid_holds(device):
    # 65536 (batch, head) pairs of one 16-wide row: 2 MiB per fp16 tensor, and the error
    # comes before the launch, so the interpreter never runs 65536 programs.
    with pytest.raises(ValueError, match=r"batch \* heads must be at most 65535 .* = 65536"):
        flash_attention(*_qkv((65536, 1, 1, 16), device, torch.float16))


def test_attention_rejects_mismatches(device):
    q, k, v = _qkv((1, 2, 8, 16), device)
    with pytest.raises(ValueError, match=r"q and k must have the same shape"):
        flash_attention(q, k[:, :1].contiguous(), v)
    with pytest.raises(TypeError, match="q and v must have the same dtype"):
        flash_attention(q, k, v.half())
    with pytest.raises(TypeError, match=r"k has dtype torch\.float64"):
        flash_attention(q, k.double(), v)
    with pytest.raises(ValueError, match="k must be contiguous"):
        flash_attention(q, k.transpose(1, 2), v)
    with pytest.raises(ValueError, match="q and v must be on the same device"):
        flash_attention(q, k, v.to("meta"))


@pytest.mark.skipif(INTERPRETED, reason="in the interpreter the kernels take CPU tensors")
def test_compiled_kernels_reject_cpu_tensors():
    g = _ones((3, 5), "cpu")
    with pytest.raises(ValueError, match="g is on cpu, but the kernels were compiled for CUDA"):
        swiglu(g, g)
    with pytest.raises(ValueError, match="q is on cpu, but the kernels were compiled for CUDA"):
        flash_attention(*_qkv((1, 1, 8, 16), "cpu"))


def test_attention_rejects_flags_and_tiles(device):
    q, k, v = _qkv((1, 1, 8, 16), device)
    with pytest.raises(TypeError, match="causal must be a bool, got 1"):
        flash_attention(q, k, v, causal=1)
    with pytest.raises(TypeError, match="return_lse must be a bool"):
        flash_attention(q, k, v, return_lse="yes")
    with pytest.raises(ValueError, match="block_m must be a power of two between 16 and 128"):
        flash_attention(q, k, v, block_m=8)
    with pytest.raises(ValueError, match="block_n must be a power of two between 16 and 128"):
        flash_attention(q, k, v, block_n=96)


def test_importing_triton_first_on_cpu_is_a_clear_error():
    # Without CUDA the kernels must be interpreted, which Triton only supports when the
    # variable is set before triton itself is imported; a late choice must fail loudly.
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["CUDA_VISIBLE_DEVICES"] = ""
    run = subprocess.run(
        [sys.executable, "-c", "import triton, infrabook.kernels"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode != 0
    assert "triton was imported before TRITON_INTERPRET was set" in run.stderr
