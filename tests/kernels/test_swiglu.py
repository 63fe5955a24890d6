"""Fused and unfused SwiGLU: accuracy against PyTorch, and bytes moved against the model."""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from infrabook.dataflow import account, fully_fused, unfused
from infrabook.ffn_chain import activation_chain
from infrabook.kernels import swiglu, swiglu_reference, swiglu_unfused

# (rtol, atol) of the fused kernel against swiglu_reference. Both compute silu(g) * u in
# fp32, a few fp32 ulps apart (the kernel's exp and division are not torch's), then round
# once to the output dtype, so at worst they land on neighbouring values: one ulp apart.
TOLERANCE = {
    # 24 significant bits: a few ulps of 2**-23 each, with headroom -> 1e-6 relative; the
    # atol only matters for outputs that are themselves around 1e-6 or smaller.
    torch.float32: (1e-6, 1e-9),
    # 8 significant bits: one ulp is at most 2**-7 of the value.
    torch.bfloat16: (2**-7, 1e-30),
    # 11 significant bits: one ulp is at most 2**-10 of the value; below 2**-14 fp16 is
    # subnormal with a fixed spacing of 2**-24, which the atol covers.
    torch.float16: (2**-10, 2**-24),
}


def test_fused_matches_reference(shape, dtype, make_inputs):
    g, u = make_inputs(shape, dtype)
    z = swiglu(g, u)
    assert z.shape == shape and z.dtype == dtype
    rtol, atol = TOLERANCE[dtype]
    torch.testing.assert_close(z, swiglu_reference(g, u), rtol=rtol, atol=atol)


def test_unfused_matches_reference(shape, dtype, make_inputs):
    g, u = make_inputs(shape, dtype)
    z = swiglu_unfused(g, u)
    if dtype == torch.float32:
        # Storing T in fp32 rounds nothing, so both paths do the same arithmetic.
        assert torch.equal(z, swiglu(g, u))
    # T is rounded to the dtype before the multiply: a second rounding, so twice the bound.
    rtol, atol = TOLERANCE[dtype]
    torch.testing.assert_close(z, swiglu_reference(g, u), rtol=2 * rtol, atol=2 * atol)


def test_extreme_inputs_stay_finite(device):
    g = torch.tensor([[-1e30, -1e4, -100.0, -20.0, 0.0, 20.0, 100.0, 1e4]], device=device)
    u = torch.full_like(g, 3.0)
    z = swiglu(g, u)
    assert torch.isfinite(z).all()
    # silu(-100) * 3 is about -1e-41, below fp32's normal range: one side may flush it to 0.
    torch.testing.assert_close(z, swiglu_reference(g, u), rtol=1e-6, atol=1e-37)


@settings(max_examples=8, deadline=None)
@given(
    rows=st.integers(1, 9),
    cols=st.integers(1, 70),
    seed=st.integers(0, 2**16),
)
def test_any_shape(rows, cols, seed, dtype, make_inputs):
    g, u = make_inputs((rows, cols), dtype, seed)
    rtol, atol = TOLERANCE[dtype]
    torch.testing.assert_close(swiglu(g, u), swiglu_reference(g, u), rtol=rtol, atol=atol)


def test_fused_moves_what_the_model_says(dtype, model_dtype, make_inputs, traffic):
    rows, cols = 37, 129
    g, u = make_inputs((rows, cols), dtype)
    _, launches = traffic(swiglu, g, u)
    graph = activation_chain(rows, cols, model_dtype)
    (model,) = account(graph, fully_fused(graph)).kernels
    (kernel,) = launches
    assert (kernel.bytes_read, kernel.bytes_written) == (model.bytes_read, model.bytes_written)
    # The model's three tensors, each moved exactly once.
    assert kernel.read == {"g_ptr": g.nbytes, "u_ptr": u.nbytes}
    assert kernel.written == {"z_ptr": g.nbytes}


def test_unfused_moves_what_the_model_says(dtype, model_dtype, make_inputs, traffic):
    rows, cols = 37, 129
    g, u = make_inputs((rows, cols), dtype)
    _, launches = traffic(swiglu_unfused, g, u)
    graph = activation_chain(rows, cols, model_dtype)
    model = account(graph, unfused(graph)).kernels
    assert [k.name for k in launches] == ["_silu_kernel", "_mul_kernel"]
    for kernel, step in zip(launches, model, strict=True):
        assert (kernel.bytes_read, kernel.bytes_written) == (step.bytes_read, step.bytes_written)
    silu, mul = launches
    assert silu.read == {"g_ptr": g.nbytes} and silu.written == {"t_ptr": g.nbytes}
    assert mul.read == {"t_ptr": g.nbytes, "u_ptr": u.nbytes}
    assert mul.written == {"z_ptr": g.nbytes}
