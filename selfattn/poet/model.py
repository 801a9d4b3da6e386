"""The poet on our numpy core, float64: the full causal pass and the cached step.

A character's row is ``E[id] + P[position]`` (learned positions: the form puts every mark at a fixed place, which
an absolute position says directly); the rows go through :func:`selfattn.core.block.transformer_stack` (pre-LN,
causal, GELU, with GPT-2's closing LayerNorm), and the logits of the next token are ``h · Eᵀ`` (the output layer
is the token table, as torch's twin ties them).

:func:`step` computes the same model one position at a time, as generation does: the new row's query, key and
value in each layer, its key and value appended to that layer's cache (the rows before are reused, not
recomputed), attention over the cache (which is the causal mask, kept by construction), then the row's
feed-forward. Its logits equal the full pass's at that position (:func:`selfattn.poet.generate.cache_check`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from selfattn.core.block import LayerParams, StackTrace, layer_norm, transformer_stack
from selfattn.core.sublayers import add_and_norm, attention, feed_forward, head_rows
from selfattn.poet.weights import Config, Vocab, Weights


def _layer(a: dict[str, np.ndarray], prefix: str, num_heads: int) -> LayerParams:
    """One ``nn.TransformerEncoderLayer``'s arrays (torch: ``y = x Wᵀ``) as the core's layer (``y = x W``)."""
    w_q, w_k, w_v = np.split(a[f"{prefix}self_attn.in_proj_weight"], 3, axis=0)  # each (d, d)
    b_q, b_k, b_v = np.split(a[f"{prefix}self_attn.in_proj_bias"], 3)
    return LayerParams.checked(
        w_q=w_q.T, w_k=w_k.T, w_v=w_v.T, w_o=a[f"{prefix}self_attn.out_proj.weight"].T, b_q=b_q, b_k=b_k, b_v=b_v,
        b_o=a[f"{prefix}self_attn.out_proj.bias"], ln1_gamma=a[f"{prefix}norm1.weight"],
        ln1_beta=a[f"{prefix}norm1.bias"], ln2_gamma=a[f"{prefix}norm2.weight"], ln2_beta=a[f"{prefix}norm2.bias"],
        w_1=a[f"{prefix}linear1.weight"].T, b_1=a[f"{prefix}linear1.bias"], w_2=a[f"{prefix}linear2.weight"].T,
        b_2=a[f"{prefix}linear2.bias"], num_heads=num_heads)


@dataclass(frozen=True, eq=False)
class Poet:
    """The trained model in the core's convention, float64."""

    config: Config
    vocab: Vocab
    embed: np.ndarray  # (V, d) token vectors; also the output layer
    positions: np.ndarray  # (max_positions, d) learned position vectors
    layers: tuple[LayerParams, ...]
    final_norm: tuple[np.ndarray, np.ndarray]  # (γ, β) of the closing LayerNorm, each (d,)
    weights: Weights  # the arrays as the files hold them (for the torch check)
    record: dict | None = None  # the training run's record.json, when loaded from the committed files

    @classmethod
    def from_weights(cls, weights: Weights, record: dict | None = None) -> "Poet":
        a, c = weights.arrays, weights.config
        return cls(config=c, vocab=weights.vocab, embed=a["embed.weight"], positions=a["positions.weight"],
                   layers=tuple(_layer(a, f"blocks.{i}.", c.num_heads) for i in range(c.layers)),
                   final_norm=(a["norm.weight"], a["norm.bias"]), weights=weights, record=record)

    @property
    def parameters(self) -> int:
        return int(sum(np.size(v) for v in self.weights.arrays.values()))

    @property
    def settings(self) -> dict:
        """The keywords every layer of the core takes."""
        return {"norm_first": True, "activation": self.config.activation, "eps": self.config.eps}


@dataclass(frozen=True, eq=False)
class FullPass:
    """A whole sequence through the model at once."""

    ids: tuple[int, ...]
    stack: StackTrace  # every layer's intermediates; .layers[i].weights (h, n, n) causal
    logits: np.ndarray  # (n, V) row t: the next token's logits after reading ids 0..t


def forward(poet: Poet, ids: list[int] | tuple[int, ...]) -> FullPass:
    """The causal pass over ``ids`` (``<bos>`` first), as torch's twin computes it."""
    ids = tuple(int(i) for i in ids)
    x = poet.embed[list(ids)] + poet.positions[: len(ids)]  # (n, d)
    stack = transformer_stack(x, poet.layers, final_norm=poet.final_norm, causal=True, **poet.settings)
    return FullPass(ids=ids, stack=stack, logits=stack.outputs @ poet.embed.T)


@dataclass(frozen=True, eq=False)
class Cache:
    """Each layer's keys and values of the positions read so far."""

    keys: tuple[np.ndarray, ...]  # per layer: (h, t, head_dim)
    values: tuple[np.ndarray, ...]  # per layer: (h, t, head_dim)

    @property
    def length(self) -> int:
        return int(self.keys[0].shape[1]) if self.keys else 0


def empty_cache(poet: Poet) -> Cache:
    h, hd = poet.config.num_heads, poet.config.d_model // poet.config.num_heads
    blank = tuple(np.zeros((h, 0, hd)) for _ in poet.layers)
    return Cache(keys=blank, values=blank)


@dataclass(frozen=True, eq=False)
class CachedStep:
    """One position through every layer, reading the cache of the positions before."""

    position: int  # t: the row computed
    token_id: int  # the token read at t
    queries: tuple[np.ndarray, ...]  # per layer: (h, head_dim) the new row's query
    weights: tuple[np.ndarray, ...]  # per layer: (h, t + 1) its attention over positions 0..t
    cache: Cache  # the cache after this step: row t of every layer's keys and values is new
    logits: np.ndarray  # (V,) the next token's


def step(poet: Poet, cache: Cache, token_id: int) -> CachedStep:
    """Read ``token_id`` at position ``cache.length`` and return the next token's logits and the grown cache."""
    t, eps = cache.length, poet.config.eps
    if t >= poet.config.max_positions:
        raise ValueError(f"the model reads at most {poet.config.max_positions} positions")
    x = poet.embed[[token_id]] + poet.positions[[t]]  # (1, d)
    queries, weights, keys, values = [], [], [], []
    for p, k_cache, v_cache in zip(poet.layers, cache.keys, cache.values):
        w = (p.w_q, p.w_k, p.w_v, p.w_o, p.b_q, p.b_k, p.b_v, p.b_o)

        def over_cache(a: np.ndarray, p=p, k_cache=k_cache, v_cache=v_cache, w=w):
            """Row t's key and value appended to the layer's cache, its query over the whole cache (0..t: causal)."""
            k = np.concatenate([k_cache, head_rows(a, p.w_k, p.b_k, p.num_heads)], axis=1)  # (h, t + 1, head_dim)
            v = np.concatenate([v_cache, head_rows(a, p.w_v, p.b_v, p.num_heads)], axis=1)
            return attention(a, a, w, p.num_heads, None, keys=k, values=v)

        att, add1 = add_and_norm(x, over_cache, p.ln1_gamma, p.ln1_beta, norm_first=True, eps=eps)
        _, add2 = feed_forward(add1.outputs, p, p.ln2_gamma, p.ln2_beta, norm_first=True,
                               activation=poet.config.activation, eps=eps)
        x = add2.outputs
        queries.append(att.queries[:, 0])
        weights.append(att.weights[:, 0])
        keys.append(att.keys)
        values.append(att.values)
    out = layer_norm(x, *poet.final_norm, eps).outputs  # (1, d)
    return CachedStep(position=t, token_id=int(token_id), queries=tuple(queries), weights=tuple(weights),
                      cache=Cache(keys=tuple(keys), values=tuple(values)), logits=(out @ poet.embed.T)[0])
