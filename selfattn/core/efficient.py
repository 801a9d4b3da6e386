"""Attention as efficient kernels compute it, in numpy, with every intermediate kept: FlashAttention's tiles and
online softmax, grouped-query heads, the causal sliding window and rotary positions.

Conventions: one head's queries ``q`` are (n_q, d), keys ``k`` (n_k, d), values ``v`` (n_k, d_v); scores are
scaled by √d. ``causal`` keeps key j for query i when j ≤ i (torch's ``is_causal``: the top-left diagonal);
``window=w`` is the causal sliding window, i − w < j ≤ i. Traffic is counted in numbers moved between slow memory
(HBM) and fast memory (SRAM), as the FlashAttention paper's model does (its Algorithms 0 and 1; the tiled loop in
the order FlashAttention-2 runs it: a query block at a time).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from selfattn.core.checks import as_matrix
from selfattn.errors import InputError

__all__ = ["GroupedTrace", "Tile", "TiledTrace", "attention_traffic", "grouped_query_attention", "kv_head_of",
           "pairing_permutation", "paper_blocks", "rotary", "rotary_angles", "tiled_attention", "visible"]


# ── Which keys a query sees ──────────────────────────────────────────────────────────────────

def visible(n_q: int, n_k: int, causal: bool = False, window: int | None = None) -> np.ndarray:
    """(n_q, n_k) bool: True where query i may read key j (all; j ≤ i when causal; i − w < j ≤ i for a window)."""
    i, j = np.arange(n_q)[:, None], np.arange(n_k)[None, :]
    keep = np.ones((n_q, n_k), dtype=bool)
    if causal or window is not None:
        keep &= j <= i
    if window is not None:
        keep &= j > i - window
    return keep


def _check_mask_options(n_q: int, n_k: int, causal: bool, window: Any) -> int | None:
    if window is not None:
        if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 1:
            raise InputError("bad_window", f"The window must be a whole number of at least 1, got {window!r}.",
                             value=str(window))
        window = int(window)
    blind = np.flatnonzero(~visible(n_q, n_k, causal, window).any(axis=1))
    if len(blind):
        raise InputError("blind_query", f"Query {blind[0] + 1} sees no key under this mask: its softmax is undefined.",
                         row=int(blind[0]) + 1)
    return window


def _check_block(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError("bad_block", f"{name} must be a whole number of at least 1, got {value!r}.",
                         name=name, value=str(value))
    return int(value)


def _check_qkv(q: Any, k: Any, v: Any, ndim: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    q, k, v = as_matrix(q, "Q", ndim), as_matrix(k, "K", ndim), as_matrix(v, "V", ndim)
    if q.shape[-1] != k.shape[-1]:
        raise InputError("qk_width", f"Q and K need the same width to be multiplied: {q.shape[-1]} and {k.shape[-1]}.",
                         q=q.shape[-1], k=k.shape[-1])
    if k.shape[-2] != v.shape[-2]:
        raise InputError("kv_rows", f"K and V need one row per key: {k.shape[-2]} and {v.shape[-2]} rows.",
                         k=k.shape[-2], v=v.shape[-2])
    return q, k, v


# ── FlashAttention's tiles ───────────────────────────────────────────────────────────────────

@dataclass(frozen=True)
class Tile:
    """One tile of the score matrix as the tiled loop meets it: the query rows and key columns it covers, its
    scaled scores, and the running statistics of those query rows after it."""

    query_block: int  # which block of queries (0-based)
    key_block: int  # which block of keys
    rows: tuple[int, int]  # the queries [start, stop)
    cols: tuple[int, int]  # the keys [start, stop)
    scores: np.ndarray  # (b_q, b_k) q kᵀ / √d, -inf where masked
    row_max_before: np.ndarray  # (b_q,) m before this tile (-inf at a block's first tile)
    row_max: np.ndarray  # (b_q,) m after it: the largest score seen so far in each row
    rescale: np.ndarray  # (b_q,) exp(m_before − m): what ℓ and the accumulator are multiplied by
    row_sum: np.ndarray  # (b_q,) ℓ after it: Σ exp(s − m) over the keys seen so far
    acc: np.ndarray  # (b_q, d_v) Σ exp(s − m)·v over the keys seen so far, not yet divided by ℓ


@dataclass(frozen=True)
class TiledTrace:
    """What :func:`tiled_attention` computed: the outputs, every tile in the order computed, the tiles skipped
    (every cell masked) and the traffic of both algorithms."""

    outputs: np.ndarray  # (n_q, d_v) softmax(q kᵀ / √d + mask) v
    tiles: tuple[Tile, ...]
    skipped: tuple[tuple[int, int], ...]  # (query block, key block) of tiles never computed
    traffic: dict  # {"standard": {"reads", "writes"}, "tiled": {"reads", "writes", "row_stats"}}
    block_q: int
    block_k: int
    never_stored: int  # scores the tiled loop never wrote to slow memory (the standard one writes all n_q·n_k)


def _plan(n_q: int, n_k: int, block_q: int, block_k: int, causal: bool,
          window: int | None) -> Iterator[tuple[int, int, tuple[int, int], tuple[int, int], bool]]:
    """The tiled loop's order: each query block, then each key block; and whether the tile is all masked."""
    for qb, r0 in enumerate(range(0, n_q, block_q)):
        r1 = min(r0 + block_q, n_q)
        for kb, c0 in enumerate(range(0, n_k, block_k)):
            c1 = min(c0 + block_k, n_k)
            # the tile's corners decide it: under a causal or banded mask a tile is all masked when its nearest
            # corner to the diagonal is
            masked = (causal or window is not None) and c0 > r1 - 1 or window is not None and c1 - 1 <= r0 - window
            yield qb, kb, (r0, r1), (c0, c1), bool(masked)


def attention_traffic(n_q: int, n_k: int, d: int, d_v: int | None = None, block_q: int = 64, block_k: int = 64,
                      causal: bool = False, window: int | None = None) -> dict:
    """Numbers moved between slow and fast memory by standard attention and by the tiled loop, without computing.

    Standard (Algorithm 0): read Q, K; write S; read S; write P; read P, V; write O. Tiled: each query block reads
    its Q once and the K and V of every tile not skipped, and writes its O once; ``row_stats`` counts m and ℓ
    (2 numbers a query) written for the backward pass, apart from ``writes``.
    """
    d_v = d if d_v is None else d_v
    standard = {"reads": n_q * d + n_k * d + n_q * n_k + n_q * n_k + n_k * d_v,
                "writes": n_q * n_k + n_q * n_k + n_q * d_v}
    reads = writes = 0
    for _, kb, (r0, r1), (c0, c1), masked in _plan(n_q, n_k, block_q, block_k, causal, window):
        if kb == 0:
            reads += (r1 - r0) * d  # Q_i, once a query block
        if not masked:
            reads += (c1 - c0) * (d + d_v)  # K_j and V_j
        if c1 == n_k:
            writes += (r1 - r0) * d_v  # O_i, once
    return {"standard": standard, "tiled": {"reads": reads, "writes": writes, "row_stats": 2 * n_q}}


def paper_blocks(sram_numbers: int, d: int) -> tuple[int, int]:
    """(block_q, block_k) from a fast memory of ``sram_numbers`` numbers, as FlashAttention chooses them:
    B_c = ⌈M / 4d⌉, B_r = min(B_c, d)."""
    block_k = max(1, math.ceil(sram_numbers / (4 * d)))
    return min(block_k, d), block_k


def tiled_attention(q: Any, k: Any, v: Any, block_q: int = 2, block_k: int = 3, causal: bool = False,
                    window: int | None = None) -> TiledTrace:
    """Attention a tile at a time with the online softmax: never the whole score matrix, and exact.

    Args:
        q: (n_q, d) queries; k: (n_k, d) keys; v: (n_k, d_v) values.
        block_q, block_k: queries and keys a tile (the last block of each may be smaller).
        causal: query i reads keys j ≤ i. window: the causal sliding window i − w < j ≤ i.

    Returns:
        A :class:`TiledTrace`: outputs (n_q, d_v), the tiles in the order computed, the ones skipped, the traffic.
    """
    q, k, v = _check_qkv(q, k, v)
    block_q, block_k = _check_block(block_q, "block_q"), _check_block(block_k, "block_k")
    (n_q, d), n_k, d_v = q.shape, k.shape[0], v.shape[1]
    window = _check_mask_options(n_q, n_k, causal, window)
    keep = visible(n_q, n_k, causal, window)
    outputs = np.zeros((n_q, d_v))
    tiles, skipped = [], []
    m = l = acc = None
    for qb, kb, (r0, r1), (c0, c1), masked in _plan(n_q, n_k, block_q, block_k, causal, window):
        if kb == 0:
            m, l, acc = np.full(r1 - r0, -np.inf), np.zeros(r1 - r0), np.zeros((r1 - r0, d_v))
        if masked:
            skipped.append((qb, kb))
        else:
            s = np.where(keep[r0:r1, c0:c1], q[r0:r1] @ k[c0:c1].T / math.sqrt(d), -np.inf)  # (b_q, b_k)
            m_new = np.maximum(m, s.max(axis=1))
            seen = np.isfinite(m_new)  # a row that has met no visible key yet keeps ℓ = 0 and acc = 0
            rescale = np.exp(np.where(seen, m, 0.0) - np.where(seen, m_new, 0.0))  # 0 at a row's first keys
            p = np.exp(s - np.where(seen, m_new, 0.0)[:, None])  # exp(-inf) = 0 where masked
            l = l * rescale + p.sum(axis=1)
            acc = acc * rescale[:, None] + p @ v[c0:c1]
            tiles.append(Tile(qb, kb, (r0, r1), (c0, c1), s, m, m_new, rescale, l, acc))
            m = m_new
        if c1 == n_k:
            outputs[r0:r1] = acc / l[:, None]
    traffic = attention_traffic(n_q, n_k, d, d_v, block_q, block_k, causal, window)
    return TiledTrace(outputs, tuple(tiles), tuple(skipped), traffic, block_q, block_k, never_stored=n_q * n_k)


# ── Heads that share keys and values ─────────────────────────────────────────────────────────

@dataclass(frozen=True)
class GroupedTrace:
    """What :func:`grouped_query_attention` computed for h query heads over g key/value heads."""

    kv_head: tuple[int, ...]  # (h,) the key/value head each query head read
    weights: np.ndarray  # (h, n_q, n_k)
    outputs: np.ndarray  # (h, n_q, d_v)


def kv_head_of(h: int, g: int, mistake: str | None = None) -> tuple[int, ...]:
    """The key/value head each of h query heads reads: i // (h / g), as ``repeat_interleave`` (and torch's
    ``enable_gqa``) lay them out; ``mistake="tile"`` gives i % g, what repeating the g heads with ``tile`` does."""
    if mistake not in (None, "tile"):
        raise InputError("bad_mistake", f"Unknown mistake {mistake!r}: the only one offered is 'tile'.",
                         value=str(mistake))
    return tuple((i % g) if mistake == "tile" else i // (h // g) for i in range(h))


def grouped_query_attention(q: Any, k: Any, v: Any, causal: bool = False, window: int | None = None,
                            mistake: str | None = None) -> GroupedTrace:
    """Grouped-query attention: h query heads, g key/value heads, g dividing h (g = h: multi-head; g = 1: multi-query).

    Args:
        q: (h, n_q, d); k: (g, n_k, d); v: (g, n_k, d_v).
        mistake: None, or "tile" to repeat the key/value heads in the wrong order.
    """
    q, k, v = _check_qkv(q, k, v, ndim=3)
    h, g = q.shape[0], k.shape[0]
    if v.shape[0] != g:
        raise InputError("kv_heads", f"K and V need the same number of heads: {g} and {v.shape[0]}.", k=g, v=v.shape[0])
    if h % g:
        raise InputError("gqa_groups", f"The {g} key/value heads must divide the {h} query heads.", h=h, g=g)
    n_q, n_k = q.shape[1], k.shape[1]
    window = _check_mask_options(n_q, n_k, causal, window)
    owner = kv_head_of(h, g, mistake)
    k_h, v_h = k[list(owner)], v[list(owner)]  # (h, n_k, d), (h, n_k, d_v)
    scores = np.where(visible(n_q, n_k, causal, window), q @ k_h.transpose(0, 2, 1) / math.sqrt(q.shape[2]), -np.inf)
    weights = np.exp(scores - scores.max(axis=2, keepdims=True))
    weights /= weights.sum(axis=2, keepdims=True)
    return GroupedTrace(owner, weights, weights @ v_h)


# ── Rotary positions ─────────────────────────────────────────────────────────────────────────

def rotary_angles(n_or_positions: Any, d: int, base: float = 10000.0) -> np.ndarray:
    """(n, d/2) angles m·θ_i with θ_i = base^(−2i/d), for positions m (0…n−1 when given a count)."""
    positions = np.arange(n_or_positions) if np.isscalar(n_or_positions) else np.asarray(n_or_positions, float)
    theta = base ** (-np.arange(0, d, 2) / d)  # (d/2,)
    return positions[:, None] * theta[None, :]


def rotary(x: Any, positions: Any = None, base: float = 10000.0, pairing: str = "half") -> np.ndarray:
    """Rotary position embedding: each pair of dimensions of row m turned by the angle m·θ_i.

    Args:
        x: (…, n, d) with d even. positions: (n,) the rows' positions (0…n−1 by default).
        pairing: "half" pairs dimension i with i + d/2 (GPT-NeoX; transformers' Llama ``rotate_half``);
            "interleaved" pairs 2i with 2i + 1 (GPT-J, Meta's original Llama).
    """
    if pairing not in ("half", "interleaved"):
        raise InputError("bad_pairing", f"pairing must be 'half' or 'interleaved', got {pairing!r}.", value=str(pairing))
    x = as_matrix(x, "x", max(2, np.ndim(x)))
    n, d = x.shape[-2:]
    if d % 2:
        raise InputError("odd_width", f"Rotary positions turn pairs of dimensions: d must be even, got {d}.", d=d)
    positions = np.arange(n) if positions is None else as_matrix(positions, "positions", 1)
    if len(positions) != n:
        raise InputError("positions_rows", f"One position a row: {len(positions)} positions for {n} rows.",
                         positions=len(positions), n=n)
    angles = rotary_angles(positions, d, base)  # (n, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    if pairing == "half":
        a, b = x[..., : d // 2], x[..., d // 2:]
        return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = a * cos - b * sin, b * cos + a * sin
    return out


def pairing_permutation(d: int) -> np.ndarray:
    """The order of dimensions that turns interleaved pairs into half pairs: rotary(x[..., p], pairing="half")
    equals rotary(x, pairing="interleaved")[..., p], with p = [0, 2, 4, …, 1, 3, 5, …]."""
    return np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])
