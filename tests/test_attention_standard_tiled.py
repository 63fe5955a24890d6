"""Standard attention under the tiled traffic model, against an independent tile-by-tile count."""

from __future__ import annotations

import math

import pytest

from infrabook.attention_sizes import attention_sizes, flash_traffic, standard_tiled_traffic
from infrabook.units import dtype_bytes


def _count(seq_len: int, d: int, dtype: str, score: str, bm: int, bn: int) -> int:
    # Walk every output tile of both GEMMs and add what it loads and stores.
    e, s = dtype_bytes(dtype), dtype_bytes(score)
    total = 0
    for i in range(0, seq_len, bm):
        rows = min(bm, seq_len - i)
        for j in range(0, seq_len, bn):
            cols = min(bn, seq_len - j)
            total += (rows + cols) * d * e + rows * cols * s  # load Q, K; store S
    total += 2 * seq_len * seq_len * s  # softmax: read S, write P
    for i in range(0, seq_len, bm):
        rows = min(bm, seq_len - i)
        total += rows * seq_len * s + seq_len * d * e + rows * d * e  # load P, V; store O
    return total


@pytest.mark.parametrize(
    ("seq_len", "bm", "bn"), [(8192, 128, 128), (1000, 64, 128), (777, 128, 32), (256, 256, 256)]
)
@pytest.mark.parametrize(("dtype", "score"), [("bf16", "fp32"), ("fp32", "fp32")])
def test_matches_a_tile_by_tile_count(
    seq_len: int, bm: int, bn: int, dtype: str, score: str
) -> None:
    t = standard_tiled_traffic(seq_len, 64, dtype, score, bm, bn)
    assert t.total == _count(seq_len, 64, dtype, score, bm, bn)


def test_whole_sequence_tiles_give_the_ideal_and_flash_is_cheaper_under_the_same_model() -> None:
    a = attention_sizes(8192, 128)
    assert standard_tiled_traffic(8192, 128, block_m=8192, block_n=8192).total == a.standard_traffic
    tiled = standard_tiled_traffic(8192, 128)
    assert tiled.total > a.standard_traffic
    assert flash_traffic(8192, 128).total < tiled.total
    assert tiled.k_bytes == flash_traffic(8192, 128, block_q=128).kv_bytes // 2
    assert math.isclose(tiled.total / 2**20, 1410)


def test_bad_tile_is_named() -> None:
    with pytest.raises(ValueError, match="block_n"):
        standard_tiled_traffic(8192, 128, block_n=0)
