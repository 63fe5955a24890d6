"""Persistent vs one-program-per-tile SwiGLU: same bits, fewer programs, same bytes."""

import math

import pytest
import torch

from infrabook.kernels import (
    CPU_PROGRAMS,
    INTERPRETED,
    swiglu,
    swiglu_per_tile,
    swiglu_persistent,
)


def _inputs(shape, device, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(shape, generator=gen).to(device, torch.bfloat16) for _ in range(2)]


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (37, 129)])
@pytest.mark.parametrize("num_programs", [1, 3, 4, 1000])
def test_same_results_fewer_programs(shape, num_programs, device):
    g, u = _inputs(shape, device)
    tiles = math.ceil(math.prod(shape) / 256)
    per_tile = swiglu_per_tile(g, u, block_size=256)
    persistent = swiglu_persistent(g, u, num_programs, block_size=256)
    assert (per_tile.programs, per_tile.tiles) == (tiles, tiles)
    assert (persistent.programs, persistent.tiles) == (min(num_programs, tiles), tiles)
    assert torch.equal(persistent.z, per_tile.z)
    assert torch.equal(per_tile.z, swiglu(g, u))


def test_launches_what_it_reports(device, traffic):
    g, u = _inputs((37, 129), device)
    per_tile, (a,) = traffic(swiglu_per_tile, g, u, block_size=64)
    persistent, (b,) = traffic(swiglu_persistent, g, u, 4, block_size=64)
    assert (a.programs, b.programs) == (per_tile.programs, persistent.programs) == (75, 4)
    # Fewer programs, not fewer bytes: every tile is still read and written once.
    assert (a.read, a.written) == (b.read, b.written)


@pytest.mark.skipif(not INTERPRETED, reason="the CPU default applies to the interpreter")
def test_default_program_count_in_the_interpreter(device):
    g, u = _inputs((64, 200), device)
    assert swiglu_persistent(g, u).programs == CPU_PROGRAMS


@pytest.mark.gpu
@pytest.mark.skipif(INTERPRETED, reason="no CUDA GPU: the kernels run in the interpreter")
def test_default_program_count_is_the_sm_count():
    g, u = _inputs((4096, 4096), "cuda")
    run = swiglu_persistent(g, u)
    assert run.programs == torch.cuda.get_device_properties(0).multi_processor_count
    assert torch.equal(run.z, swiglu(g, u))
