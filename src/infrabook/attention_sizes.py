"""Attention sizes and memory traffic: standard attention against FlashAttention's tiles.

Standard attention (section 3) writes S = QK^T/sqrt(d) and P = softmax(S) to memory and reads
each back once, so its intermediate traffic grows as L**2. FlashAttention keeps S and P on
chip; what it cannot avoid is re-reading K and V once per query tile (Dao et al. 2022,
Theorem 2), so the article's ideal "read Q, K, V once, write O once" is a lower bound that
real tiles exceed by a factor of about L / block_q on K and V.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from infrabook import config
from infrabook.checks import check_positive_int
from infrabook.units import dtype_bytes


@dataclass(frozen=True)
class AttentionSizes:
    """Bytes of one head's tensors and the traffic of standard attention."""

    seq_len: int
    head_dim: int
    dtype: str
    score_dtype: str

    def __post_init__(self) -> None:
        check_positive_int("seq_len", self.seq_len)
        check_positive_int("head_dim", self.head_dim)
        dtype_bytes(self.dtype)
        dtype_bytes(self.score_dtype)

    @property
    def qkvo_bytes(self) -> int:
        """Bytes of each of Q, K, V and O: L x d elements."""
        return self.seq_len * self.head_dim * dtype_bytes(self.dtype)

    @property
    def score_bytes(self) -> int:
        """Bytes of each of S and P: L x L elements at the score dtype."""
        return self.seq_len * self.seq_len * dtype_bytes(self.score_dtype)

    @property
    def io_traffic(self) -> int:
        """Read Q, K, V once and write O once: the unavoidable traffic."""
        return 4 * self.qkvo_bytes

    @property
    def intermediate_traffic(self) -> int:
        """Standard attention writes S and P once and reads each back once."""
        return 4 * self.score_bytes

    @property
    def standard_traffic(self) -> int:
        """Total traffic of the standard (materialising) implementation."""
        return self.io_traffic + self.intermediate_traffic


def attention_sizes(
    seq_len: int, head_dim: int, dtype: str = "bf16", score_dtype: str = "fp32"
) -> AttentionSizes:
    """Sizes for one head. The article's case, L=8192, d=128, bf16 inputs, fp32 scores:

    >>> a = attention_sizes(8192, 128, "bf16", "fp32")
    >>> a.qkvo_bytes / 2**20, a.score_bytes / 2**20, a.io_traffic / 2**20
    (2.0, 256.0, 8.0)
    >>> a.intermediate_traffic / 2**30
    1.0
    """
    return AttentionSizes(seq_len, head_dim, dtype, score_dtype)


@dataclass(frozen=True)
class FlashTraffic:
    """FlashAttention forward traffic for one head at given tiles, split by tensor."""

    q_bytes: int
    kv_bytes: int
    o_bytes: int
    query_tiles: int

    @property
    def total(self) -> int:
        """All bytes read and written."""
        return self.q_bytes + self.kv_bytes + self.o_bytes


def _floor_sum(n: int, m: int, a: int, b: int) -> int:
    """sum(floor((a*i + b) / m) for i in range(n)) for n, a, b >= 0 and m > 0, exactly.

    Euclid-like reduction (the lattice points under a line): each pass swaps the roles of
    ``a`` and ``m``, so it takes O(log m) passes however large ``n`` is.

    >>> _floor_sum(5, 3, 2, 1), sum((2 * i + 1) // 3 for i in range(5))
    (7, 7)
    """
    total = 0
    while True:
        if a >= m:
            total += n * (n - 1) // 2 * (a // m)
            a %= m
        if b >= m:
            total += n * (b // m)
            b %= m
        top = a * n + b
        if top < m:
            return total
        n, b = top // m, top % m
        m, a = a, m


def _causal_kv_rows(seq_len: int, block_q: int, block_k: int) -> int:
    """K/V rows the causal query tiles read: tile k (1-based) reads the K tiles up to its
    last row, ceil(k * block_q / block_k) * block_k rows, capped at ``seq_len``.

    The cap applies exactly when k * block_q exceeds the last full K tile's end, which
    splits the sum into a floor-sum and a constant tail; no loop over the tiles, so a
    sequence of 2**63 rows costs as little as one of 8192.

    >>> _causal_kv_rows(8192, 128, 64) == sum(min(k * 128, 8192) for k in range(1, 65))
    True
    """
    tiles = -(-seq_len // block_q)
    full_k_end = seq_len // block_k * block_k
    uncapped = min(tiles - 1, full_k_end // block_q)
    # ceil(k*bq/bk) for k = 1..uncapped, written as floor((bq*i + bq + bk - 1) / bk), i from 0
    below = _floor_sum(uncapped, block_k, block_q, block_q + block_k - 1)
    return block_k * below + (tiles - uncapped) * seq_len


def flash_traffic(
    seq_len: int,
    head_dim: int,
    dtype: str = "bf16",
    block_q: int = 128,
    block_k: int = 64,
    causal: bool = False,
) -> FlashTraffic:
    """Bytes FlashAttention's forward pass moves when each query tile streams K and V.

    Every query tile of ``block_q`` rows reads Q once, writes O once and reads the K and V
    tiles it needs: all ``ceil(L / block_k)`` of them, or with ``causal`` only those at or
    before its last row. ``block_k`` therefore matters only for the causal count.

    At the article's size with 128-row query tiles, K and V are read 64 times:

    >>> f = flash_traffic(8192, 128, "bf16", block_q=128, block_k=64)
    >>> f.query_tiles, f.kv_bytes / 2**20, f.total / 2**20
    (64, 256.0, 260.0)

    One query tile covering the whole sequence is the article's ideal of 8 MiB:

    >>> flash_traffic(8192, 128, "bf16", block_q=8192).total / 2**20
    8.0
    """
    check_positive_int("seq_len", seq_len)
    check_positive_int("head_dim", head_dim)
    check_positive_int("block_q", block_q)
    check_positive_int("block_k", block_k)
    row = head_dim * dtype_bytes(dtype)
    query_tiles = -(-seq_len // block_q)
    kv_rows = _causal_kv_rows(seq_len, block_q, block_k) if causal else query_tiles * seq_len
    return FlashTraffic(
        q_bytes=seq_len * row,
        kv_bytes=2 * kv_rows * row,
        o_bytes=seq_len * row,
        query_tiles=query_tiles,
    )


@dataclass(frozen=True)
class StandardTiledTraffic:
    """Standard attention's traffic for one head when its two GEMMs run in tiles, split by
    tensor: the same no-L2 model as :func:`flash_traffic` (every tile a kernel loads comes
    from DRAM)."""

    q_bytes: int
    k_bytes: int
    v_bytes: int
    o_bytes: int
    score_bytes: int

    @property
    def total(self) -> int:
        """All bytes read and written."""
        return self.q_bytes + self.k_bytes + self.v_bytes + self.o_bytes + self.score_bytes


def standard_tiled_traffic(
    seq_len: int,
    head_dim: int,
    dtype: str = "bf16",
    score_dtype: str = "fp32",
    block_m: int = 128,
    block_n: int = 128,
) -> StandardTiledTraffic:
    """Bytes the three-kernel standard attention moves when its GEMMs are tiled.

    ``S = Q K^T`` is computed in ``block_m x block_n`` output tiles (``head_dim`` fits one
    tile's reduction): each tile loads its ``block_m`` rows of Q and ``block_n`` rows of K, so
    Q is read ``ceil(L / block_n)`` times and K ``ceil(L / block_m)`` times; S is written
    once. Softmax reads S and writes P once. ``O = P V`` runs in ``block_m x head_dim``
    output tiles looping over the keys: P is read once, V once per row tile, O written once.
    This is the fair partner of :func:`flash_traffic`, which charges FlashAttention's K/V
    re-reads under the same model.

    At the article's size with 128 x 128 tiles: 1410 MiB, against FlashAttention's 260 MiB:

    >>> t = standard_tiled_traffic(8192, 128, "bf16", "fp32", 128, 128)
    >>> t.q_bytes / 2**20, t.k_bytes / 2**20, t.v_bytes / 2**20, t.total / 2**20
    (128.0, 128.0, 128.0, 1410.0)

    With one tile spanning the sequence it is the ideal standard traffic, 1032 MiB:

    >>> standard_tiled_traffic(8192, 128, "bf16", "fp32", 8192, 8192).total / 2**20
    1032.0
    """
    check_positive_int("seq_len", seq_len)
    check_positive_int("head_dim", head_dim)
    check_positive_int("block_m", block_m)
    check_positive_int("block_n", block_n)
    tensor = seq_len * head_dim * dtype_bytes(dtype)
    row_tiles = math.ceil(seq_len / block_m)
    return StandardTiledTraffic(
        q_bytes=tensor * math.ceil(seq_len / block_n),
        k_bytes=tensor * row_tiles,
        v_bytes=tensor * row_tiles,
        o_bytes=tensor,
        score_bytes=4 * seq_len * seq_len * dtype_bytes(score_dtype),
    )


def article_attention() -> AttentionSizes:
    """The article's attention case from ``conf/scenarios.toml``.

    >>> article_attention().seq_len
    8192
    """
    s = config.scenarios().attention
    return attention_sizes(s.seq_len, s.head_dim, s.dtype, s.score_dtype)


def attention_flop(seq_len: int, head_dim: int, causal: bool = False) -> int:
    """Forward FLOP of one head: two L x L x d matmuls at 2 FLOP per multiply-add.

    Causal masking skips about half, counted here as exactly half as is customary.

    >>> attention_flop(8192, 128) / 1e9
    34.359738368
    """
    check_positive_int("seq_len", seq_len)
    check_positive_int("head_dim", head_dim)
    flop = 4 * seq_len * seq_len * head_dim
    return flop // 2 if causal else flop
