"""Single-head scaled dot-product self-attention that returns every intermediate step.

Conventions follow the tutorials: rows of ``x`` are tokens and weights multiply from the
right (``queries = x @ w_q``), so ``x`` is (n, d_in) and ``w_q`` is (d_in, d_k).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from selfattn.errors import InputError

Mask = None | str | np.ndarray


@dataclass(frozen=True)
class AttentionConfig:
    """Options of one self-attention call, passed whole from the UI to the core."""

    scale: bool = True  # divide scores by sqrt(d_k)
    causal: bool = False  # token i may attend only to tokens 0..i
    use_bias: bool = False  # add b_q, b_k, b_v after the projections


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


def as_matrix(value: Any, name: str, ndim: int = 2) -> np.ndarray:
    """Convert a list, numpy array or torch tensor to a finite float64 array of ``ndim`` dims.

    Raises:
        ValueError: naming ``name`` when the value is not numeric, has the wrong number of
            dimensions, is empty, or holds NaN or infinity.
    """
    if hasattr(value, "detach"):  # torch tensor, possibly on a GPU or requiring grad
        value = value.detach().cpu().double().numpy()
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError("not_numeric", f"{name} must contain only numbers ({exc}).", name=name) from None
    if array.ndim != ndim:
        raise InputError(
            "wrong_ndim", f"{name} must have {ndim} dimension(s), got shape {array.shape}.",
            name=name, ndim=ndim, shape=str(array.shape),
        )
    if array.size == 0:
        raise InputError("empty", f"{name} is empty; it needs at least one row and one column.", name=name)
    bad = np.argwhere(~np.isfinite(array))
    if len(bad):
        where = ", ".join(str(int(i) + 1) for i in bad[0])
        value = array[tuple(bad[0])]
        raise InputError(
            "not_finite", f"{name} holds {value} at position ({where}); only finite numbers are allowed.",
            name=name, value=str(value), where=where,
        )
    return array


def stable_softmax(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """Softmax that subtracts the row maximum first, so large scores (1e4) stay finite.

    Entries equal to ``-inf`` get weight exactly 0. Every row must have a finite entry.
    """
    peak = np.max(scores, axis=axis, keepdims=True)
    exp = np.exp(scores - peak)
    return exp / np.sum(exp, axis=axis, keepdims=True)


def causal_mask(n: int) -> np.ndarray:
    """(n, n) boolean mask, True on and below the diagonal: token i sees tokens 0..i."""
    return np.tril(np.ones((n, n), dtype=bool))


def resolve_mask(mask: Mask, n: int) -> np.ndarray:
    """Turn ``None``, ``"causal"`` or a boolean (n, n) array into a boolean (n, n) array."""
    if mask is None:
        return np.ones((n, n), dtype=bool)
    if isinstance(mask, str):
        if mask != "causal":
            raise InputError("mask_kind", f'mask must be None, "causal" or a boolean array, got "{mask}".')
        return causal_mask(n)
    if hasattr(mask, "detach"):
        mask = mask.detach().cpu().numpy()
    allowed = np.asarray(mask)
    if allowed.shape != (n, n):
        raise InputError(
            "mask_shape", f"mask must have shape ({n}, {n}) for {n} tokens, got {allowed.shape}.",
            n=n, shape=str(allowed.shape),
        )
    if allowed.dtype != bool:
        raise InputError("mask_kind", "mask must be boolean (True = may attend).")
    empty = np.flatnonzero(~allowed.any(axis=1))
    if len(empty):
        raise InputError(
            "mask_empty_row",
            f"mask leaves token {int(empty[0]) + 1} with nothing to attend to; every row needs at least one True.",
            row=int(empty[0]) + 1,
        )
    return allowed


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
        ValueError: on non-numeric or non-finite input, mismatched shapes, or a mask that
            leaves a token with nothing to attend to.
    """
    x = as_matrix(x, "X")
    w_q, w_k, w_v = as_matrix(w_q, "W_q"), as_matrix(w_k, "W_k"), as_matrix(w_v, "W_v")
    n, d_in = x.shape
    for name, w in (("W_q", w_q), ("W_k", w_k), ("W_v", w_v)):
        if w.shape[0] != d_in:
            raise InputError(
                "rows_mismatch", f"{name} has {w.shape[0]} rows but X has {d_in} columns; they must match (x @ W).",
                name=name, rows=w.shape[0], d_in=d_in,
            )
    if w_q.shape[1] != w_k.shape[1]:
        raise InputError(
            "dk_mismatch", f"W_q has {w_q.shape[1]} columns but W_k has {w_k.shape[1]}; queries and keys need the same d_k.",
            q=w_q.shape[1], k=w_k.shape[1],
        )
    d_k, d_v = w_q.shape[1], w_v.shape[1]

    with np.errstate(over="ignore", invalid="ignore"):
        queries = x @ w_q  # (n, d_k)
        keys = x @ w_k  # (n, d_k)
        values = x @ w_v  # (n, d_v)
    for name, bias, width in (("b_q", b_q, d_k), ("b_k", b_k, d_k), ("b_v", b_v, d_v)):
        if bias is None:
            continue
        vec = as_matrix(bias, name, ndim=1)
        if vec.shape != (width,):
            raise InputError(
                "bias_len", f"{name} must have {width} entries, got {vec.shape[0]}.", name=name, width=width, got=vec.shape[0]
            )
        if name == "b_q":
            queries = queries + vec
        elif name == "b_k":
            keys = keys + vec
        else:
            values = values + vec

    allowed = resolve_mask(mask, n)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported just below
        scores = queries @ keys.T  # (n, n)
    scale_factor = float(np.sqrt(d_k)) if scale else 1.0
    scaled = np.where(allowed, scores / scale_factor, -np.inf)  # (n, n)
    if not (np.all(np.isfinite(scores)) and np.all(np.isfinite(values))):
        raise InputError("overflow", "Scores overflowed to infinity; the numbers in X or W are too large.")
    weights = stable_softmax(scaled)  # (n, n)
    weighted_values = weights[:, :, None] * values[None, :, :]  # (n, n, d_v)
    outputs = weighted_values.sum(axis=1)  # (n, d_v)
    return AttentionTrace(
        x=x,
        queries=queries,
        keys=keys,
        values=values,
        scores=scores,
        scaled_scores=scaled,
        weights=weights,
        weighted_values=weighted_values,
        outputs=outputs,
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
