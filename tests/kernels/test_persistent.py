"""Persistent vs one-program-per-tile SwiGLU: same bits, fewer programs, same bytes."""

import math

import pytest
import torch

from infrabook.kernels import (
    CPU_PROGRAMS,
    INTERPRETED,
    NUM_WARPS,
    swiglu,
    swiglu_per_tile,
    swiglu_persistent,
    swiglu_pipelined,
    swiglu_reference,
)


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (37, 129)])
@pytest.mark.parametrize("num_programs", [1, 3, 4, 1000])
def test_same_results_fewer_programs(shape, num_programs, make_inputs):
    g, u = make_inputs(shape, torch.bfloat16)
    tiles = math.ceil(math.prod(shape) / 256)
    per_tile = swiglu_per_tile(g, u, block_size=256)
    persistent = swiglu_persistent(g, u, num_programs, block_size=256)
    assert (per_tile.programs, per_tile.tiles) == (tiles, tiles)
    assert (persistent.programs, persistent.tiles) == (min(num_programs, tiles), tiles)
    assert torch.equal(persistent.z, per_tile.z)
    assert torch.equal(per_tile.z, swiglu(g, u))


@pytest.mark.parametrize("shape", [(1, 1), (37, 129)])
@pytest.mark.parametrize(("num_programs", "stages"), [(1, 1), (3, 2), (4, 3), (1000, 4)])
def test_the_pipelined_loop_gives_the_same_bits(shape, num_programs, stages, make_inputs):
    g, u = make_inputs(shape, torch.bfloat16)
    tiles = math.ceil(math.prod(shape) / 256)
    per_tile = swiglu_per_tile(g, u, block_size=256)
    run = swiglu_pipelined(g, u, num_programs, stages=stages, block_size=256)
    assert (run.programs, run.tiles) == (min(num_programs, tiles), tiles)
    assert torch.equal(run.z, per_tile.z)
    ref = swiglu_reference(g, u).float()
    assert torch.allclose(run.z.float(), ref, rtol=1e-2, atol=1e-2)


def test_the_pipelined_loop_refuses_no_stages(make_inputs):
    g, u = make_inputs((3, 5), torch.float32)
    with pytest.raises(ValueError, match="stages"):
        swiglu_pipelined(g, u, stages=0)


def test_launches_what_it_reports(make_inputs, traffic):
    g, u = make_inputs((37, 129), torch.bfloat16)
    per_tile, (a,) = traffic(swiglu_per_tile, g, u, block_size=64)
    persistent, (b,) = traffic(swiglu_persistent, g, u, 4, block_size=64)
    assert (a.programs, b.programs) == (per_tile.programs, persistent.programs) == (75, 4)
    # Fewer programs, not fewer bytes: every tile is still read and written once.
    assert (a.read, a.written) == (b.read, b.written)


@pytest.mark.skipif(not INTERPRETED, reason="the CPU default applies to the interpreter")
def test_default_program_count_in_the_interpreter(make_inputs):
    g, u = make_inputs((64, 200), torch.bfloat16)
    assert swiglu_persistent(g, u).programs == CPU_PROGRAMS


@pytest.mark.gpu
@pytest.mark.skipif(INTERPRETED, reason="no CUDA GPU: the kernels run in the interpreter")
def test_default_program_count_is_what_the_gpu_holds_at_once(make_inputs):
    g, u = make_inputs((4096, 4096), torch.bfloat16)
    run = swiglu_persistent(g, u)
    props = torch.cuda.get_device_properties(0)
    per_sm = props.max_threads_per_multi_processor // (32 * NUM_WARPS)
    assert run.programs == min(run.tiles, props.multi_processor_count * per_sm)
    assert per_sm > 1
    assert torch.equal(run.z, swiglu(g, u))
