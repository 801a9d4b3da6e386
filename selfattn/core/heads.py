"""Multi-head self-attention in numpy, with every intermediate, plus the two classic mistakes.

Conventions match :mod:`selfattn.core.attention`: rows of ``x`` are tokens and weights multiply
from the right, so ``x`` is (n, d_model) and every weight is (d_model, d_model). Head ``i``
owns columns ``[i * head_dim, (i + 1) * head_dim)`` of the projected queries, keys and values,
where ``head_dim = d_model // num_heads``; its scores are divided by ``sqrt(head_dim)``.

The mistakes are the two bugs readers found in a popular tutorial's PyTorch code:

* ``"bare_reshape"``: splitting (n, d_model) into heads with one reshape to
  (h, n, head_dim) instead of reshape to (n, h, head_dim) and then transpose. Each "head"
  then sees a strip of the flattened matrix, so rows mix tokens (and the merge undoes the
  mix only after attention ran on the wrong rows). It changes nothing when ``num_heads`` is
  1 or ``n`` is 1.
* ``"scale_after_softmax"``: multiplying the attention weights by ``1/sqrt(head_dim)`` after
  the softmax instead of dividing the scores before it. Rows no longer sum to 1 and the
  softmax stays as peaked as without scaling. With ``scale=False`` it changes nothing.

Each mistake is a step of its own (a split and merge pair, an attention kernel) that
:data:`MISTAKE_STEPS` swaps into the right answer; the right answer has no mistake flags.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, NamedTuple

import numpy as np

from selfattn.core.attention import Attended, attend, score_scale
from selfattn.core.checks import Mask, as_matrix, check_heads, check_overflow, check_square_weights, resolve_mask
from selfattn.errors import InputError


@dataclass(frozen=True)
class MultiHeadTrace:
    """Every step of one multi-head self-attention call, as float64 numpy arrays."""

    x: np.ndarray  # (n, d_model) inputs
    queries: np.ndarray  # (h, n, head_dim) x @ w_q, split into heads
    keys: np.ndarray  # (h, n, head_dim) x @ w_k, split into heads
    values: np.ndarray  # (h, n, head_dim) x @ w_v, split into heads
    head_scores: np.ndarray  # (h, n, n) raw q_i . k_j per head
    head_scaled_scores: np.ndarray  # (h, n, n) after scaling and masking (-inf where masked)
    head_weights: np.ndarray  # (h, n, n) row-wise softmax per head
    head_outputs: np.ndarray  # (h, n, head_dim) head_weights @ values
    concat: np.ndarray  # (n, d_model) heads merged side by side
    outputs: np.ndarray  # (n, d_model) concat @ w_o
    num_heads: int  # h
    head_dim: int  # d_model // h
    scale_factor: float  # what scores were divided by (1.0 when unscaled)
    allowed: np.ndarray  # (n, n) bool, True where token i may attend to token j
    mistake: str | None = None  # None for the right answer, else one of MISTAKES


# ── The right way ───────────────────────────────────────────────────────────────────

def split_heads(x: Any, num_heads: int) -> np.ndarray:
    """Split the columns of ``x`` into ``num_heads`` heads: reshape, then transpose.

    Args:
        x: (n, d_model) projected queries, keys or values.
        num_heads: h, which must divide d_model.

    Returns:
        (h, n, head_dim) array; head i holds columns [i * head_dim, (i + 1) * head_dim) of x.
    """
    x = as_matrix(x, "X")
    return split_unchecked(x, check_heads(x.shape[1], num_heads))


def split_unchecked(x: np.ndarray, h: int) -> np.ndarray:
    """:func:`split_heads` for a caller that has checked ``x`` (finite float64, h dividing its columns)."""
    n, d_model = x.shape
    per_token = x.reshape(n, h, d_model // h)  # (n, h, head_dim): each token's row cut into h pieces
    return per_token.transpose(1, 0, 2).copy()  # (h, n, head_dim)


def merge_heads(x: Any) -> np.ndarray:
    """Put heads back side by side, the inverse of :func:`split_heads`.

    Args:
        x: (h, n, head_dim) per-head vectors.

    Returns:
        (n, h * head_dim) array whose columns [i * head_dim, (i + 1) * head_dim) come from head i.
    """
    return merge_unchecked(as_matrix(x, "heads", ndim=3))


def merge_unchecked(x: np.ndarray) -> np.ndarray:
    """:func:`merge_heads` for a caller that has checked ``x``."""
    h, n, head_dim = x.shape
    return x.transpose(1, 0, 2).reshape(n, h * head_dim)  # (n, h, head_dim) -> (n, d_model)


def combine_heads(weights: Any, how: str) -> np.ndarray:
    """One (n, n) map of a layer's heads: their ``"mean"`` or their ``"max"``, entry by entry.

    Args:
        weights: (h, n, n) the heads' attention weights.
    """
    stack = np.asarray(weights, dtype=float)
    if how == "mean":
        return stack.mean(axis=0)
    if how == "max":
        return stack.max(axis=0)
    raise ValueError(f"how must be 'mean' or 'max', not {how!r}")


def stack_heads(weights: Any) -> np.ndarray:
    """(h, n, m) per-head maps as one (h·n, m) table: head 1's rows first (a CSV of every head)."""
    stack = np.asarray(weights, dtype=float)
    return stack.reshape(-1, stack.shape[-1])


# ── The two mistakes ────────────────────────────────────────────────────────────────

def split_heads_bare_reshape(x: Any, num_heads: int) -> np.ndarray:
    """The classic mistake: reshape (n, d_model) straight to (h, n, head_dim), no transpose.

    Args:
        x: (n, d_model) projected queries, keys or values.
        num_heads: h, which must divide d_model.

    Returns:
        (h, n, head_dim) array, the same shape as :func:`split_heads` but with rows that mix
        pieces of different tokens whenever h > 1 and n > 1.
    """
    x = as_matrix(x, "X")
    return _bare_split(x, check_heads(x.shape[1], num_heads))


def _bare_split(x: np.ndarray, h: int) -> np.ndarray:
    n, d_model = x.shape
    return x.reshape(h, n, d_model // h).copy()  # (h, n, head_dim), rows cut across tokens


def merge_heads_bare_reshape(x: Any) -> np.ndarray:
    """The mistake's own merge: reshape (h, n, head_dim) straight back to (n, d_model).

    Args:
        x: (h, n, head_dim) per-head vectors.

    Returns:
        (n, h * head_dim) array; it inverts :func:`split_heads_bare_reshape`, not :func:`split_heads`.
    """
    return _bare_merge(as_matrix(x, "heads", ndim=3))


def _bare_merge(x: np.ndarray) -> np.ndarray:
    h, n, head_dim = x.shape
    return x.reshape(n, h * head_dim)  # (n, d_model)


def attend_scaling_after_softmax(q: np.ndarray, k: np.ndarray, v: np.ndarray, *, scale: float = 1.0,
                                 mask: np.ndarray | None = None) -> Attended:
    """The other mistake: softmax of the unscaled scores, then the weights multiplied by 1/scale.

    Takes and returns what :func:`selfattn.core.attention.attend` does; the weights' rows now
    sum to 1/scale instead of 1.
    """
    unscaled = attend(q, k, v, mask=mask)  # the mistake: no division before the softmax
    weights = unscaled.weights / scale  # (..., n_q, n_k)
    return replace(unscaled, weights=weights, outputs=weights @ v)


class HeadSteps(NamedTuple):
    """The three steps in which a version of multi-head attention can go right or wrong."""

    split: Callable[[np.ndarray, int], np.ndarray]  # (n, d_model), h -> (h, n, head_dim)
    attend: Callable[..., Attended]  # q, k, v, *, scale, mask, as selfattn.core.attention.attend
    merge: Callable[[np.ndarray], np.ndarray]  # (h, n, head_dim) -> (n, d_model)


RIGHT_STEPS = HeadSteps(split_unchecked, attend, merge_unchecked)
MISTAKE_STEPS = {  # each mistake swaps its own steps into the right answer
    "bare_reshape": HeadSteps(_bare_split, attend, _bare_merge),
    "scale_after_softmax": HeadSteps(split_unchecked, attend_scaling_after_softmax, merge_unchecked),
}
MISTAKES = tuple(MISTAKE_STEPS)  # ("bare_reshape", "scale_after_softmax")


def weight_row_sums(trace: MultiHeadTrace) -> np.ndarray:
    """(h, n) sum of each row of each head's attention weights: 1 for the right answer, 1/sqrt(head_dim) for
    ``scale_after_softmax``."""
    return trace.head_weights.sum(axis=-1)


# ── Multi-head attention ────────────────────────────────────────────────────────────

def _multi_head(
    x: Any, w_q: Any, w_k: Any, w_v: Any, w_o: Any, num_heads: int, *,
    scale: bool, mask: Mask, mistake: str | None,
) -> MultiHeadTrace:
    """Validate, project, split, attend per head, merge, project: with the steps of ``mistake``."""
    x = as_matrix(x, "X")
    n, d_model = x.shape
    w_q, w_k, w_v, w_o = check_square_weights(d_model, W_q=w_q, W_k=w_k, W_v=w_v, W_o=w_o)
    h = check_heads(d_model, num_heads)
    allowed = resolve_mask(mask, n)  # (n, n), the same for every head
    head_dim = d_model // h
    scale_factor = score_scale(head_dim, scale)
    split, attend_heads, merge = RIGHT_STEPS if mistake is None else MISTAKE_STEPS[mistake]

    with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported just below
        q, k, v = split(x @ w_q, h), split(x @ w_k, h), split(x @ w_v, h)  # (h, n, head_dim) each
        att = attend_heads(q, k, v, scale=scale_factor, mask=allowed)  # batched over the head axis
    check_overflow(att.scores, v)
    concat = merge(att.outputs)  # (n, d_model)
    with np.errstate(over="ignore", invalid="ignore"):
        outputs = concat @ w_o  # (n, d_model)
    check_overflow(outputs)
    return MultiHeadTrace(
        x=x, queries=q, keys=k, values=v,
        head_scores=att.scores, head_scaled_scores=att.scaled_scores, head_weights=att.weights,
        head_outputs=att.outputs, concat=concat, outputs=outputs,
        num_heads=h, head_dim=head_dim, scale_factor=scale_factor, allowed=allowed, mistake=mistake,
    )


def multi_head_attention(
    x: Any, w_q: Any, w_k: Any, w_v: Any, w_o: Any, num_heads: int, *, scale: bool = True, mask: Mask = None
) -> MultiHeadTrace:
    """Multi-head scaled dot-product self-attention, returning every intermediate.

    With ``num_heads=1`` this is :func:`selfattn.core.attention.self_attention` followed by ``@ w_o``.

    Args:
        x: (n, d_model) inputs, one row per token.
        w_q, w_k, w_v: (d_model, d_model) projections; head i uses columns
            [i * head_dim, (i + 1) * head_dim).
        w_o: (d_model, d_model) output projection applied to the merged heads.
        num_heads: h, a positive divisor of d_model.
        scale: divide each head's scores by sqrt(head_dim) before the softmax.
        mask: None, "causal", or a boolean (n, n) array where True means "may attend";
            the same mask applies to every head.

    Returns:
        MultiHeadTrace with queries/keys/values (h, n, head_dim), head_scores,
        head_scaled_scores and head_weights (h, n, n), head_outputs (h, n, head_dim),
        concat (n, d_model) and outputs (n, d_model).

    Raises:
        InputError: on non-numeric or non-finite input, weights that are not
            (d_model, d_model), a head count that does not divide d_model, or a bad mask.
    """
    return _multi_head(x, w_q, w_k, w_v, w_o, num_heads, scale=scale, mask=mask, mistake=None)


def multi_head_attention_with_mistake(
    x: Any, w_q: Any, w_k: Any, w_v: Any, w_o: Any, num_heads: int, *,
    mistake: str, scale: bool = True, mask: Mask = None,
) -> MultiHeadTrace:
    """Multi-head attention computed with one classic mistake, to show beside the right answer.

    Args:
        x, w_q, w_k, w_v, w_o, num_heads, scale, mask: as in :func:`multi_head_attention`.
        mistake: ``"bare_reshape"`` (split and merge heads by reshape alone) or
            ``"scale_after_softmax"`` (multiply the weights by 1/sqrt(head_dim) after the softmax).

    Returns:
        MultiHeadTrace with the same shapes as the right answer and ``mistake`` set.

    Raises:
        InputError: ``unknown_mistake`` for any other name, else as :func:`multi_head_attention`.
    """
    if mistake not in MISTAKES:
        raise InputError(
            "unknown_mistake", f"mistake must be one of {', '.join(MISTAKES)}, got {mistake!r}.",
            mistake=str(mistake), allowed=", ".join(MISTAKES),
        )
    return _multi_head(x, w_q, w_k, w_v, w_o, num_heads, scale=scale, mask=mask, mistake=mistake)
