"""The reader's tools on the SwiGLU chain: profiler counts against the operators the chain
calls, and Inductor's generated code against what fusion means (one kernel, no buffer for
the intermediate), its result against eager PyTorch."""

from __future__ import annotations

import pytest
import torch

import infrabook.kernels  # noqa: F401  (decides Triton's mode before torch.compile imports it)
from infrabook import own_tools


@pytest.fixture(scope="module")
def seen() -> own_tools.Seen:
    return own_tools.look(8, 32, runs=3)


def test_eager_profile_lists_each_operator_once_per_run(seen):
    assert seen.eager == {"aten::silu": 3, "aten::mul": 3}


def test_compiled_profile_has_no_aten_operator_and_one_graph_call_per_run(seen):
    assert own_tools.aten_count(seen.compiled) == 0
    assert seen.compiled["## Call CompiledFxGraph ##"] == seen.runs


def test_generated_module_has_one_fused_kernel_and_allocates_only_the_output(seen):
    assert seen.module.count("cpp_pybinding(") == 1
    assert "silu" in seen.module and "mul" in seen.module
    call = seen.call
    # one buffer allocated in call(): Z; T never gets one
    assert call.count("empty_strided") == 1
    assert f"(({seen.rows}, {seen.cols})" in call
    kernel = seen.kernel
    assert kernel.count(".store(") == 1 or kernel.count("out_ptr0[") == 1
    assert "exp" in kernel


def test_compiled_output_matches_a_float64_reference(seen):
    # The compiled loop computes silu as x / (1 + exp(-x)) in fp32 vectors: each of its four
    # roundings is within half an fp32 ulp, so a few fp32 epsilons of relative error bound it.
    g, u = own_tools.inputs(seen.rows, seen.cols)
    ref = torch.nn.functional.silu(g.double()) * u.double()
    torch.testing.assert_close(seen.z.double(), ref, rtol=8 * 2**-23, atol=1e-30)


def test_operator_events_refuses_zero_runs():
    with pytest.raises(ValueError, match="runs"):
        own_tools.operator_events(lambda: None, runs=0)


def test_helpers_refuse_modules_without_kernel_or_call():
    with pytest.raises(ValueError, match="no call function"):
        own_tools.call_source("x = 1")
