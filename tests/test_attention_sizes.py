"""Attention sizes and traffic against the article and a brute-force tile count."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from infrabook.attention_sizes import (
    article_attention,
    attention_flop,
    attention_sizes,
    flash_traffic,
)
from infrabook.units import GiB, MiB


def test_article_case():
    a = article_attention()
    assert a.qkvo_bytes == 2 * MiB
    assert a.score_bytes == 256 * MiB
    assert a.io_traffic == 8 * MiB
    assert a.intermediate_traffic == 1 * GiB


def test_flash_at_article_size_with_128_row_tiles():
    f = flash_traffic(8192, 128, "bf16", block_q=128, block_k=64)
    # Q read once + O written once (4 MiB) + K and V read by each of 64 query tiles
    assert f.total == 4 * MiB + 64 * 4 * MiB


def _brute_force_kv_rows(seq_len, block_q, block_k, causal):
    rows = 0
    for q0 in range(0, seq_len, block_q):
        q_last = min(q0 + block_q, seq_len) - 1
        for k0 in range(0, seq_len, block_k):
            if causal and k0 > q_last:
                continue
            rows += min(k0 + block_k, seq_len) - k0
    return rows


@given(
    seq_len=st.integers(1, 600),
    d=st.sampled_from([16, 64, 128]),
    bq=st.sampled_from([16, 32, 64, 128]),
    bk=st.sampled_from([16, 32, 64]),
    causal=st.booleans(),
)
def test_flash_traffic_matches_tile_enumeration(seq_len, d, bq, bk, causal):
    f = flash_traffic(seq_len, d, "fp16", bq, bk, causal)
    row = d * 2
    assert f.kv_bytes == 2 * row * _brute_force_kv_rows(seq_len, bq, bk, causal)
    assert f.q_bytes == f.o_bytes == seq_len * row
    assert f.query_tiles == math.ceil(seq_len / bq)


@given(seq_len=st.integers(1, 10_000), d=st.integers(1, 256))
def test_one_query_tile_is_the_ideal(seq_len, d):
    assert (
        flash_traffic(seq_len, d, "bf16", block_q=seq_len).total
        == attention_sizes(seq_len, d).io_traffic
    )


def test_flop_count():
    assert attention_flop(8192, 128) == 4 * 8192 * 8192 * 128
    assert attention_flop(8192, 128, causal=True) == 2 * 8192 * 8192 * 128


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, 128), "seq_len must be a positive integer, got 0"),
        ((8192, -1), "head_dim must be a positive integer, got -1"),
        ((8192, 128, "bf17"), "unknown dtype 'bf17'"),
    ],
)
def test_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        attention_sizes(*args)


def test_bad_tile():
    with pytest.raises(ValueError, match="block_q must be a positive integer, got 0"):
        flash_traffic(8192, 128, block_q=0)
