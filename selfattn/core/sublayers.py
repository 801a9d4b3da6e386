"""The two sub-layers every Transformer layer is made of, written once: multi-head attention and the position-wise
feed-forward network, each with its residual connection and LayerNorm (Add & Norm) placed as post-LN or pre-LN.

The encoder layer (:mod:`selfattn.core.block`), the decoder layer and the cached decoder
(:mod:`selfattn.core.decoder`) are these composed; the browser's previews mirror them in
``ui/components/maths.js`` (``attentionSublayer``, ``feedForward``)::

    post-LN:  out = LayerNorm(x + sublayer(x))
    pre-LN:   out = x + sublayer(LayerNorm(x))

Rows are tokens and weights multiply from the right (``x @ W``); heads split the columns as
:func:`selfattn.core.heads.split_heads` does. The callers check their inputs; the maths here trusts them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from selfattn.core.attention import attend, score_scale
from selfattn.core.heads import merge_unchecked, split_unchecked

__all__ = ["AttentionTrace", "FeedForwardTrace", "NormTrace", "Residual", "activate", "add_and_norm",
           "attention", "feed_forward", "head_rows", "layer_norm", "position_wise"]

T = TypeVar("T")


@dataclass(frozen=True, eq=False)
class NormTrace:
    """One LayerNorm over the rows of its input, step by step."""

    inputs: np.ndarray  # (n, d) z
    mean: np.ndarray  # (n,) μ of each row
    variance: np.ndarray  # (n,) σ², the mean squared distance from μ (biased, as torch)
    normalised: np.ndarray  # (n, d) (z − μ) / √(σ² + ε): each row has mean 0 and variance σ²/(σ² + ε)
    gamma: np.ndarray  # (d,)
    beta: np.ndarray  # (d,)
    eps: float
    outputs: np.ndarray  # (n, d) normalised · γ + β


def layer_norm(z: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> NormTrace:
    """LayerNorm of each row of ``z`` (n, d), keeping μ, σ² and the normalised rows."""
    mean = z.mean(axis=1)  # (n,)
    centred = z - mean[:, None]
    variance = (centred * centred).mean(axis=1)  # (n,) biased, as torch
    normalised = centred / np.sqrt(variance + eps)[:, None]
    return NormTrace(inputs=z, mean=mean, variance=variance, normalised=normalised, gamma=gamma, beta=beta, eps=eps,
                     outputs=normalised * gamma + beta)


def activate(z: np.ndarray, activation: str) -> np.ndarray:
    """relu, gelu (x·Φ(x), Φ by the error function) or gelu_tanh (GPT-2's approximation), elementwise."""
    if activation == "relu":
        return np.maximum(z, 0.0)
    if activation == "gelu":
        from scipy.special import erf

        return 0.5 * z * (1.0 + erf(z / math.sqrt(2.0)))
    inner = math.sqrt(2.0 / math.pi) * (z + 0.044715 * z ** 3)
    return 0.5 * z * (1.0 + np.tanh(inner))


# ── Multi-head attention ─────────────────────────────────────────────────────────────────────

@dataclass(frozen=True, eq=False)
class AttentionTrace:
    """One multi-head attention: queries from one place, keys and values from another (or the same)."""

    query_input: np.ndarray  # (m, d) what the queries are made from
    key_input: np.ndarray  # (n, d) what the keys and values are made from (the memory, for cross-attention)
    queries: np.ndarray  # (h, m, head_dim)
    keys: np.ndarray  # (h, n, head_dim)
    values: np.ndarray  # (h, n, head_dim)
    scores: np.ndarray  # (h, m, n)
    scaled_scores: np.ndarray  # (h, m, n) ÷ √head_dim, −∞ where masked
    weights: np.ndarray  # (h, m, n) rows sum to 1
    head_outputs: np.ndarray  # (h, m, head_dim)
    concat: np.ndarray  # (m, d)
    outputs: np.ndarray  # (m, d) concat @ W_o + b_o
    allowed: np.ndarray | None  # (m, n) bool, or None: every key


def head_rows(x: np.ndarray, w: np.ndarray, b: np.ndarray, num_heads: int) -> np.ndarray:
    """(h, n, head_dim): the rows of ``x @ w + b`` cut into ``num_heads`` heads (queries, keys or values)."""
    return split_unchecked(x @ w + b, num_heads)


def attention(query_input: np.ndarray, key_input: np.ndarray, w: tuple[np.ndarray, ...], num_heads: int,
              allowed: np.ndarray | None, *, keys: np.ndarray | None = None,
              values: np.ndarray | None = None) -> AttentionTrace:
    """Multi-head attention, ``w`` = (W_q, W_k, W_v, W_o, b_q, b_k, b_v, b_o).

    Args:
        query_input: (m, d) rows the queries are made from.
        key_input: (n, d) rows the keys and values are made from.
        allowed: (m, n) bool, True where query i may read key j; None for every key.
        keys, values: (h, n, head_dim) heads already made (a cache, or the memory's, made once) instead of
            from ``key_input``.
    """
    w_q, w_k, w_v, w_o, b_q, b_k, b_v, b_o = w
    q = head_rows(query_input, w_q, b_q, num_heads)  # (h, m, head_dim)
    k = head_rows(key_input, w_k, b_k, num_heads) if keys is None else keys  # (h, n, head_dim)
    v = head_rows(key_input, w_v, b_v, num_heads) if values is None else values
    att = attend(q, k, v, scale=score_scale(q.shape[-1]), mask=allowed)
    concat = merge_unchecked(att.outputs)  # (m, d)
    return AttentionTrace(query_input=query_input, key_input=key_input, queries=q, keys=k, values=v,
                          scores=att.scores, scaled_scores=att.scaled_scores, weights=att.weights,
                          head_outputs=att.outputs, concat=concat, outputs=concat @ w_o + b_o, allowed=allowed)


# ── The feed-forward network ─────────────────────────────────────────────────────────────────

@dataclass(frozen=True, eq=False)
class FeedForwardTrace:
    """FF(z) = act(z W_1 + b_1) W_2 + b_2, row by row."""

    inputs: np.ndarray  # (n, d)
    pre: np.ndarray  # (n, d_ff) z W_1 + b_1
    act: np.ndarray  # (n, d_ff)
    outputs: np.ndarray  # (n, d)


def position_wise(z: np.ndarray, w_1: np.ndarray, b_1: np.ndarray, w_2: np.ndarray, b_2: np.ndarray,
                  activation: str) -> FeedForwardTrace:
    """The position-wise feed-forward network on the rows of ``z``."""
    pre = z @ w_1 + b_1
    act = activate(pre, activation)
    return FeedForwardTrace(inputs=z, pre=pre, act=act, outputs=act @ w_2 + b_2)


# ── Add & Norm ─────────────────────────────────────────────────────────────────────────────

@dataclass(frozen=True, eq=False)
class Residual:
    """A sub-layer's residual connection and LayerNorm."""

    sub_input: np.ndarray  # (n, d) what the sub-layer read: x (post-LN) or LayerNorm(x) (pre-LN)
    residual: np.ndarray  # (n, d) x + sublayer
    norm: NormTrace  # post-LN: of the residual; pre-LN: of x
    outputs: np.ndarray  # (n, d) LayerNorm(residual) (post-LN) or the residual (pre-LN)


def add_and_norm(x: np.ndarray, sublayer: Callable[[np.ndarray], T], gamma: np.ndarray, beta: np.ndarray, *,
                 norm_first: bool, eps: float) -> tuple[T, Residual]:
    """``sublayer`` (which returns a trace with ``.outputs``) with its Add & Norm around it: post-LN
    LayerNorm(x + sublayer(x)), pre-LN x + sublayer(LayerNorm(x)). Returns (the sub-layer's trace, the residual's)."""
    pre = layer_norm(x, gamma, beta, eps) if norm_first else None
    sub_input = pre.outputs if norm_first else x
    trace = sublayer(sub_input)
    residual = x + trace.outputs
    norm = pre if norm_first else layer_norm(residual, gamma, beta, eps)
    return trace, Residual(sub_input=sub_input, residual=residual, norm=norm,
                           outputs=residual if norm_first else norm.outputs)


def feed_forward(h: np.ndarray, params: Any, gamma: np.ndarray, beta: np.ndarray, *, norm_first: bool,
                 activation: str, eps: float) -> tuple[FeedForwardTrace, Residual]:
    """A layer's feed-forward sub-layer with its Add & Norm on h (the sub-layer before's output); ``params`` holds
    w_1, b_1, w_2, b_2."""
    return add_and_norm(h, lambda z: position_wise(z, params.w_1, params.b_1, params.w_2, params.b_2, activation),
                        gamma, beta, norm_first=norm_first, eps=eps)
