"""Attention in numpy, two ways: materialised scores, and the online softmax over tiles (section 3).

:func:`naive_attention` materialises S = QK^T/sqrt(d) and P = softmax(S), both L x L in
fp32, before O = PV. :func:`blockwise_attention` is the same computation as FlashAttention
organises it: query tiles of ``block_q`` rows stream the keys and values in blocks of
``block_k`` rows, keeping per query row only the running maximum ``m``, the exponential sum
``l`` and the weighted value sum ``acc`` (the article's m, l, u; the rescaling is
:func:`infrabook.online_softmax.merge` applied to every row at once). Only one tile's scores
ever exist, so the L x L matrices never do.

These are reference algorithms (the benchmark measures their peak memory), not fast kernels.
"""

from __future__ import annotations

import math

import numpy as np

from infrabook.checks import check_positive_int


def _check(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> None:
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.ndim != 2:
            raise ValueError(f"{name} must be 2-D (seq_len, head_dim), got shape {t.shape}")
    if k.shape != v.shape or q.shape[1] != k.shape[1]:
        raise ValueError(
            f"k and v must have the same shape and q the same head_dim, got q {q.shape}, "
            f"k {k.shape}, v {v.shape}"
        )


def naive_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Standard attention for one head: S and P are both materialised, L x L.

    The softmax is computed in place in P (``P = S - max``, then ``exp``, then a division
    by the row sums), so the arrays alive at the peak are exactly S, P and O.

    >>> q = k = v = np.eye(2, dtype=np.float32)
    >>> naive_attention(q, k, v).round(4)
    array([[0.6698, 0.3302],
           [0.3302, 0.6698]], dtype=float32)
    """
    _check(q, k, v)
    s = q @ k.T
    s *= s.dtype.type(1.0 / math.sqrt(q.shape[1]))
    p = s - s.max(axis=1, keepdims=True)
    np.exp(p, out=p)
    p /= p.sum(axis=1, keepdims=True)
    return p @ v


def blockwise_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, block_q: int = 128, block_k: int = 64
) -> np.ndarray:
    """Attention with the online softmax over tiles: FlashAttention's order in numpy.

    For each query tile: m = -inf, l = 0, acc = 0; for each key/value block, with the
    tile's scores s: m_new = max(m, rowmax(s)), r = exp(m - m_new), p = exp(s - m_new),
    l = l * r + rowsum(p), acc = acc * r + p @ V_block. Finally O = acc / l.

    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.standard_normal((3, 10, 4)).astype(np.float32)
    >>> np.allclose(blockwise_attention(q, k, v, block_q=4, block_k=3),
    ...             naive_attention(q, k, v), rtol=1e-5, atol=1e-6)
    True

    One query row against the article's example 5-6 (scores [0, ln 2], values [1, 3],
    one key per block): scale the query so that q.k / sqrt(d) are those scores.

    >>> from infrabook.online_softmax import online_softmax
    >>> qr = np.array([[math.log(2.0)]], dtype=np.float32)
    >>> kr = np.array([[0.0], [1.0]], dtype=np.float32)
    >>> vr = np.array([[1.0], [3.0]], dtype=np.float32)
    >>> out = blockwise_attention(qr, kr, vr, block_q=1, block_k=1)
    >>> round(float(out[0, 0]), 4), round(float(online_softmax([0.0, math.log(2)], [1.0, 3.0])), 4)
    (2.3333, 2.3333)
    """
    _check(q, k, v)
    check_positive_int("block_q", block_q)
    check_positive_int("block_k", block_k)
    n, d = q.shape
    n_kv = k.shape[0]
    scale = np.result_type(q, k).type(1.0 / math.sqrt(d))
    out = np.empty_like(q)
    for qs in range(0, n, block_q):
        qt = q[qs : qs + block_q]
        rows = qt.shape[0]
        m = np.full(rows, -np.inf, dtype=q.dtype)
        l = np.zeros(rows, dtype=q.dtype)  # noqa: E741 - the article's name
        acc = np.zeros((rows, d), dtype=q.dtype)
        for ks in range(0, n_kv, block_k):
            s = qt @ k[ks : ks + block_k].T
            s *= scale
            m_new = np.maximum(m, s.max(axis=1))
            r = np.exp(m - m_new)
            s -= m_new[:, None]
            np.exp(s, out=s)  # s now holds this tile's p
            l = l * r + s.sum(axis=1)  # noqa: E741
            acc *= r[:, None]
            acc += s @ v[ks : ks + block_k]
            m = m_new
        out[qs : qs + rows] = acc / l[:, None]
    return out
