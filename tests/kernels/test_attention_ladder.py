"""The attention ladder's rungs: the same numbers as rung 0 in the interpreter, their
checks, and what each compiles to for sm_90."""

import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from infrabook import config
from infrabook.kernels import INTERPRETED, flash_attention
from infrabook.kernels import attention_ladder as ladder
from infrabook.kernels.attention_ladder import RUNG_TILES, RUNGS, ladder_attention
from infrabook.kernels.compiled import compile_rung, compile_rungs

from .test_flash_attention import SHAPES, _assert_accuracy_rule, _qkv

LADDER = [r.number for r in RUNGS if r.number > 0]


@pytest.mark.skipif(not INTERPRETED, reason="on a GPU the rungs' tiles and dot order differ")
@pytest.mark.parametrize("rung", LADDER)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shape", SHAPES)
def test_every_rung_computes_rung_0s_numbers(shape, causal, rung, device):
    # Each rung changes how tiles move and which program runs them, never the arithmetic:
    # in the interpreter, at the same tiles, its output is rung 0's bit for bit (a tile row
    # past seq_len read from the next head, or zero-filled, enters with weight exactly 0).
    q, k, v = _qkv((2, *shape[1:]), torch.bfloat16, device)
    expected = flash_attention(q, k, v, causal=causal)
    assert torch.equal(ladder_attention(q, k, v, causal=causal, rung=rung), expected)


@pytest.mark.gpu
@pytest.mark.skipif(INTERPRETED, reason="no CUDA GPU: the kernels run in the interpreter")
@pytest.mark.parametrize("rung", LADDER)
@pytest.mark.parametrize("causal", [False, True])
def test_native_rungs(dtype, causal, rung):
    # As test_native_long_sequence for rung 0: 1000 rows is a multiple of no tile, so every
    # config runs both loops, and the autotuner keeps one of the rung's own tiles.
    q, k, v = _qkv((2, 4, 1000, 128), dtype, "cuda")
    o = ladder_attention(q, k, v, causal=causal, rung=rung)
    assert ladder.tuned_tile(rung) in RUNG_TILES[rung]
    oracle = F.scaled_dot_product_attention(*(t.double() for t in (q, k, v)), is_causal=causal)
    _assert_accuracy_rule(o, q, k, v, causal, oracle)


@pytest.mark.parametrize("rung", [-1, 5, True, 1.0, "1"])
def test_an_unknown_rung_is_refused(rung, device):
    q, k, v = _qkv((1, 1, 8, 16), torch.float32, device)
    with pytest.raises(ValueError, match=f"rung must be one of 0, 1, 2, 3, 4, got {rung!r}"):
        ladder_attention(q, k, v, rung=rung)


def test_the_inputs_are_checked_like_rung_0s(device):
    q, k, v = _qkv((1, 1, 8, 8), torch.float32, device)
    with pytest.raises(ValueError, match="ladder_attention: head_dim must be from 16 to 128"):
        ladder_attention(q, k, v, rung=1)
    q, k, v = _qkv((1, 1, 8, 16), torch.float32, device)
    with pytest.raises(ValueError, match="ladder_attention: block_n must be a power of two"):
        ladder_attention(q, k, v, rung=2, block_n=48)
    q, k, v = _qkv((1, 1, 8, 20), torch.bfloat16, device)
    with pytest.raises(ValueError, match=r"head_dim \* 2 bytes to be a multiple of 16, got .* 20"):
        ladder_attention(q, k, v, rung=1)
    ladder_attention(q, k, v, rung=0)


@pytest.mark.parametrize(("missing", "rung"), [("HAS_DESCRIPTORS", 1), ("HAS_WARP_SPECIALIZE", 2)])
def test_a_triton_without_the_feature_says_so(missing, rung, monkeypatch, device):
    monkeypatch.setattr(ladder, missing, False)
    q, k, v = _qkv((1, 1, 8, 16), torch.float32, device)
    with pytest.raises(RuntimeError, match=f"rung {rung} needs tl\\."):
        ladder_attention(q, k, v, rung=rung)
    ladder_attention(q, k, v, rung=rung - 1)


def test_the_tile_tables_are_valid_configs():
    for rung, tiles in RUNG_TILES.items():
        assert tiles and len(set(tiles)) == len(tiles), rung
        for block_m, block_n, warps, stages in tiles:
            assert all(16 <= b <= 128 and b & (b - 1) == 0 for b in (block_m, block_n))
            assert warps in (4, 8) and 1 <= stages <= 4


# What each rung's idea leaves in the PTX for sm_90, compiled at a tile where the idea
# applies (warp specialization needs 4 warps): rung 1's descriptors become TMA bulk copies,
# rung 2's warp specialization warp-group register reallocation; rung 0 has neither. Every
# rung's dots are wgmma.
EVIDENCE = {
    0: (RUNG_TILES[0][0], False, False),
    1: (RUNG_TILES[1][0], True, False),
    2: ((128, 32, 4, 2), True, True),
    3: ((128, 16, 4, 2), True, True),
    4: ((128, 16, 4, 2), True, True),
}


@pytest.mark.slow
@pytest.mark.parametrize("rung", [r.number for r in RUNGS])
def test_every_rung_compiles_for_sm90_with_its_evidence(rung):
    tile, tma, setmaxnreg = EVIDENCE[rung]
    assert tile in RUNG_TILES[rung]
    compiled = compile_rung(rung, "bf16", causal=True, tile=tile)
    assert (compiled.evidence["tma"] > 0) == tma
    assert (compiled.evidence["setmaxnreg"] > 0) == setmaxnreg
    assert compiled.evidence["wgmma"] > 0
    assert 0 < compiled.registers <= 255 and compiled.spill_bytes >= 0
    assert compiled.shared_bytes > 0


# A block on sm_90 may take at most 227 KiB of shared memory: the SM's 228 KiB less the 1 KiB
# the system reserves per block (CUDA C++ Programming Guide, compute capability 9.0).
_HOPPER_BLOCK_SMEM = (config.device("h200").smem_per_sm_kib.value - 1) * 1024


@pytest.mark.slow
def test_every_rungs_tiles_fit_hopper_without_spills():
    # Every tile the autotuner may choose, causal and not, compiled for sm_90 in bf16 at
    # head_dim 128 in one child process: a tile over the limit would fail to launch on an
    # H100 or H200 and a spill would cost local-memory traffic in the inner loop.
    specs = [
        (rung, "bf16", causal, tile)
        for rung, tiles in RUNG_TILES.items()
        for tile in tiles
        for causal in (False, True)
    ]
    too_big = [
        (c.rung, c.tile, c.causal, c.shared_bytes, c.spill_bytes)
        for c in compile_rungs(specs)
        if c.shared_bytes > _HOPPER_BLOCK_SMEM or c.spill_bytes
    ]
    assert not too_big


def test_compile_rung_refuses_what_it_cannot_compile():
    with pytest.raises(ValueError, match="rung must be one of \\[0, 1, 2, 3, 4\\], got 7"):
        compile_rung(7)
    with pytest.raises(ValueError, match="dtype must be bf16, fp16 or fp32, got 'fp64'"):
        compile_rung(1, "fp64")


TOOL = Path(__file__).parents[2] / "tools" / "attention_ladder.py"


@pytest.mark.skipif(torch.cuda.is_available(), reason="a CUDA device: the tool would measure")
def test_the_timing_tool_without_cuda_says_so_and_writes_nothing(tmp_path):
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, TOOL, out], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "no CUDA device, so nothing was timed and nothing written" in done.stdout
    assert not out.exists()
    (tmp_path / "file\x01").write_text("")
    done = subprocess.run(
        [sys.executable, TOOL, tmp_path / "file\x01"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].endswith(r"file\x01' is not a folder")
