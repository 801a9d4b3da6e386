"""Scaled dot-product attention in numpy: the kernel :func:`attend`, and single-head self-attention
that returns every intermediate step.

Conventions follow the tutorials: rows of ``x`` are tokens and weights multiply from the
right (``queries = x @ w_q``), so ``x`` is (n, d_in) and ``w_q`` is (d_in, d_k).
Checking what callers pass lives in :mod:`selfattn.core.checks`; the maths here trusts it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from selfattn.core.checks import Mask, as_bias, as_matrix, causal_mask, check_overflow, check_projections, resolve_mask

# Mask, as_matrix, causal_mask and resolve_mask were this module's before checks.py, and stay importable here.
__all__ = [
    "Attended", "AttentionTrace", "Mask", "Projections", "as_matrix", "attend", "causal_mask", "cosine_similarity",
    "raw_self_attention", "resolve_mask", "score_scale", "self_attention", "stable_softmax", "unit_rows",
]


@dataclass(frozen=True)
class Attended:
    """What :func:`attend` computed, for n_q queries and n_k keys (leading dims broadcast)."""

    scores: np.ndarray  # (..., n_q, n_k) raw q_i . k_j
    scaled_scores: np.ndarray  # (..., n_q, n_k) scores / scale, -inf where masked
    weights: np.ndarray  # (..., n_q, n_k) row-wise softmax of scaled_scores
    outputs: np.ndarray  # (..., n_q, d_v) weights @ v


@dataclass(frozen=True)
class Projections:
    """One head's weights and biases, x @ W convention: queries = x @ w_q + b_q, and so on."""

    w_q: np.ndarray  # (d_in, d_k)
    w_k: np.ndarray  # (d_in, d_k)
    w_v: np.ndarray  # (d_in, d_v)
    b_q: np.ndarray  # (d_k,)
    b_k: np.ndarray  # (d_k,)
    b_v: np.ndarray  # (d_v,)


@dataclass(frozen=True)
class AttentionTrace:
    """Every step of one self-attention call, as float64 numpy arrays."""

    x: np.ndarray  # (n, d_in) inputs
    queries: np.ndarray  # (n, d_k) x @ w_q (+ b_q)
    keys: np.ndarray  # (n, d_k) x @ w_k (+ b_k)
    values: np.ndarray  # (n, d_v) x @ w_v (+ b_v)
    scores: np.ndarray  # (n, n) raw q_i . k_j
    scaled_scores: np.ndarray  # (n, n) after scaling and masking (-inf where masked)
    weights: np.ndarray  # (n, n) row-wise softmax of scaled_scores
    weighted_values: np.ndarray  # (n, n, d_v) [i, j] = weights[i, j] * values[j]
    outputs: np.ndarray  # (n, d_v) sum over j of weighted_values[i, j]
    scale_factor: float  # what scores were divided by (1.0 when unscaled)
    allowed: np.ndarray  # (n, n) bool, True where token i may attend to token j


def stable_softmax(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """Softmax that subtracts the row maximum first, so large scores (1e4) stay finite.

    Entries equal to ``-inf`` get weight exactly 0. Every row must have a finite entry.
    """
    peak = np.max(scores, axis=axis, keepdims=True)
    exp = np.exp(scores - peak)
    return exp / np.sum(exp, axis=axis, keepdims=True)


def score_scale(d_k: int, scale: bool = True) -> float:
    """What scaled dot-product attention divides scores by: sqrt(d_k), or 1.0 when unscaled."""
    return float(np.sqrt(d_k)) if scale else 1.0


def attend(q: np.ndarray, k: np.ndarray, v: np.ndarray, *, scale: float = 1.0,
           mask: np.ndarray | None = None) -> Attended:
    """softmax(q @ kᵀ / scale) @ v, keeping every step; queries and keys may differ in number.

    Nothing is checked here (see :mod:`selfattn.core.checks`).

    Args:
        q: (..., n_q, d_k) queries.
        k: (..., n_k, d_k) keys.
        v: (..., n_k, d_v) values.
        scale: what the scores are divided by, e.g. :func:`score_scale` (d_k).
        mask: (n_q, n_k) bool, True where query i may attend to key j, the same for every
            leading index; every row needs a True. None: every query sees every key.

    Returns:
        Attended with scores, scaled_scores and weights (..., n_q, n_k), outputs (..., n_q, d_v).
    """
    scores = q @ k.swapaxes(-1, -2)  # (..., n_q, n_k)
    scaled = scores / scale
    if mask is not None:
        scaled = np.where(mask, scaled, -np.inf)  # a masked key gets weight exactly 0
    weights = stable_softmax(scaled)  # (..., n_q, n_k), rows sum to 1
    return Attended(scores=scores, scaled_scores=scaled, weights=weights, outputs=weights @ v)


def self_attention(
    x: Any,
    w_q: Any,
    w_k: Any,
    w_v: Any,
    *,
    b_q: Any = None,
    b_k: Any = None,
    b_v: Any = None,
    scale: bool = True,
    mask: Mask = None,
) -> AttentionTrace:
    """Scaled dot-product self-attention, returning every intermediate.

    Args:
        x: (n, d_in) inputs, one row per token.
        w_q: (d_in, d_k) query weights.
        w_k: (d_in, d_k) key weights.
        w_v: (d_in, d_v) value weights; d_v may differ from d_k.
        b_q, b_k, b_v: optional (d_k,), (d_k,), (d_v,) biases added after the projection.
        scale: divide scores by sqrt(d_k) before the softmax.
        mask: None, "causal", or a boolean (n, n) array where True means "may attend".

    Returns:
        AttentionTrace with queries (n, d_k), keys (n, d_k), values (n, d_v), scores (n, n),
        scaled_scores (n, n), weights (n, n), weighted_values (n, n, d_v), outputs (n, d_v).

    Raises:
        InputError: on non-numeric or non-finite input, mismatched shapes, a bad mask, or
            scores that overflow.
    """
    x, w_q, w_k, w_v = check_projections(x, w_q, w_k, w_v)
    d_k, d_v = w_q.shape[1], w_v.shape[1]
    b_q, b_k, b_v = as_bias(b_q, "b_q", d_k), as_bias(b_k, "b_k", d_k), as_bias(b_v, "b_v", d_v)
    allowed = resolve_mask(mask, len(x))  # (n, n)
    scale_factor = score_scale(d_k, scale)

    with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported just below
        q, k, v = x @ w_q + b_q, x @ w_k + b_k, x @ w_v + b_v  # (n, d_k), (n, d_k), (n, d_v)
        att = attend(q, k, v, scale=scale_factor, mask=allowed)
    check_overflow(att.scores, v)
    weighted_values = att.weights[:, :, None] * v[None, :, :]  # (n, n, d_v)
    return AttentionTrace(
        x=x,
        queries=q,
        keys=k,
        values=v,
        scores=att.scores,
        scaled_scores=att.scaled_scores,
        weights=att.weights,
        weighted_values=weighted_values,
        # The Playground's last step sums its weighted values; att.outputs (weights @ v) is the
        # same sum in another order and can differ in the last bit.
        outputs=weighted_values.sum(axis=1),  # (n, d_v)
        scale_factor=scale_factor,
        allowed=allowed,
    )


def raw_self_attention(x: Any, *, scale: bool = True) -> AttentionTrace:
    """Softmax(XXᵀ/√d)X: self-attention with identity weights, so queries = keys = values = X.

    Args:
        x: (n, d) token vectors.
        scale: divide XXᵀ by √d (False gives the rawest form, Softmax(XXᵀ)X).

    Returns:
        AttentionTrace whose ``scores`` are XXᵀ (n, n) and ``outputs`` (n, d).
    """
    x = as_matrix(x, "X")
    eye = np.eye(x.shape[1])
    return self_attention(x, eye, eye, eye, scale=scale)


def unit_rows(x: np.ndarray) -> np.ndarray:
    """``x`` with every non-zero row scaled to length 1; all-zero rows stay zero."""
    norms = np.linalg.norm(x, axis=1, keepdims=True)  # (n, 1)
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)


def cosine_similarity(x: Any) -> np.ndarray:
    """(n, n) cosine of the angle between every pair of rows; 0 where a row is all zeros."""
    unit = unit_rows(as_matrix(x, "X"))
    return unit @ unit.T
