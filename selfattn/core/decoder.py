"""A Transformer decoder layer, the encoder–decoder, and generation with a key/value cache, in numpy, float64.

Conventions are :mod:`selfattn.core.block`'s: rows are tokens, weights multiply from the right (``y @ W``). A
decoder layer has three sub-layers, as ``torch.nn.TransformerDecoderLayer`` computes them (dropout off):

* post-LN (``norm_first=False``; Vaswani et al. 2017)::

      h₁ = LayerNorm₁(y + MaskedSelfAttention(y))
      h₂ = LayerNorm₂(h₁ + CrossAttention(h₁, memory))
      out = LayerNorm₃(h₂ + FF(h₂))

* pre-LN (``norm_first=True``)::

      h₁ = y + MaskedSelfAttention(LayerNorm₁(y))
      h₂ = h₁ + CrossAttention(LayerNorm₂(h₁), memory)
      out = h₂ + FF(LayerNorm₃(h₂))

Cross-attention is the same :func:`selfattn.core.attention.attend` as self-attention, with its queries from the
decoder (m rows) and its keys and values from the encoder's output, the memory (n rows): its weights are m × n.
It is not masked by position (every target token may read the whole source), only by the memory's padding; the
decoder's own self-attention is causal, so a token cannot read the tokens after it, which it has to predict.

:func:`decode_with_cache` computes the same decoder one target position at a time, as generation does: at step t
each layer computes the keys and values of row t only and appends them to its cache, and the memory's keys and
values are computed once. Row t of its output equals row t of the full causal pass (everything but attention is
row by row, and attention at row t reads rows 0..t only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from selfattn.core.block import (LayerParams, LayerSizes, StackTrace, check_activation, check_eps, check_key_padding,
                                 layer_mask, transformer_stack)
from selfattn.core.checks import as_bias, as_matrix, check_overflow, check_square_weights
# AttentionTrace was this module's before sublayers.py, and stays importable here
from selfattn.core.sublayers import (AttentionTrace, NormTrace, add_and_norm, attention, feed_forward, head_rows,
                                     layer_norm)
from selfattn.errors import InputError

SELF = ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o")  # the masked self-attention's weights
CROSS = ("c_w_q", "c_w_k", "c_w_v", "c_w_o", "c_b_q", "c_b_k", "c_b_v", "c_b_o")  # the cross-attention's


# ── Weights ─────────────────────────────────────────────────────────────────────────

@dataclass(frozen=True, eq=False)
class DecoderLayerParams(LayerSizes):
    """One decoder layer's weights in the core's convention (``y @ W``), float64: an encoder layer's (self-attention,
    two LayerNorms, feed-forward) plus the cross-attention's four projections and a third LayerNorm."""

    w_q: np.ndarray  # (d, d) masked self-attention
    w_k: np.ndarray
    w_v: np.ndarray
    w_o: np.ndarray
    b_q: np.ndarray  # (d,)
    b_k: np.ndarray
    b_v: np.ndarray
    b_o: np.ndarray
    c_w_q: np.ndarray  # (d, d) cross-attention: queries from the decoder
    c_w_k: np.ndarray  # (d, d) keys from the memory
    c_w_v: np.ndarray  # (d, d) values from the memory
    c_w_o: np.ndarray  # (d, d)
    c_b_q: np.ndarray  # (d,)
    c_b_k: np.ndarray
    c_b_v: np.ndarray
    c_b_o: np.ndarray
    ln1_gamma: np.ndarray  # (d,) around the self-attention
    ln1_beta: np.ndarray
    ln2_gamma: np.ndarray  # (d,) around the cross-attention
    ln2_beta: np.ndarray
    ln3_gamma: np.ndarray  # (d,) around the feed-forward
    ln3_beta: np.ndarray
    w_1: np.ndarray  # (d, d_ff)
    b_1: np.ndarray  # (d_ff,)
    w_2: np.ndarray  # (d_ff, d)
    b_2: np.ndarray  # (d,)
    num_heads: int

    @classmethod
    def checked(cls, **values: Any) -> "DecoderLayerParams":
        """Build from arrays, lists or tensors, each converted to float64 and checked as
        :meth:`selfattn.core.block.LayerParams.checked` checks an encoder layer's (biases and β may be None: zeros;
        γ None: ones)."""
        encoder_part = LayerParams.checked(**{k: values.get(k) for k in (*SELF, "ln1_gamma", "ln1_beta", "ln2_gamma",
                                                                       "ln2_beta", "w_1", "b_1", "w_2", "b_2")},
                                           num_heads=values["num_heads"])
        d = encoder_part.d_model
        c_w_q, c_w_k, c_w_v, c_w_o = check_square_weights(
            d, W_q=as_matrix(values["c_w_q"], "W_q (cross)"), W_k=values["c_w_k"], W_v=values["c_w_v"],
            W_o=values["c_w_o"])

        def vector(name: str, label: str, default: float) -> np.ndarray:
            value = values.get(name)
            return np.full(d, default) if value is None else as_bias(value, label, d)

        return cls(**{k: v for k, v in encoder_part.arrays().items()}, num_heads=encoder_part.num_heads,
                   c_w_q=c_w_q, c_w_k=c_w_k, c_w_v=c_w_v, c_w_o=c_w_o,
                   c_b_q=vector("c_b_q", "b_q (cross)", 0.0), c_b_k=vector("c_b_k", "b_k (cross)", 0.0),
                   c_b_v=vector("c_b_v", "b_v (cross)", 0.0), c_b_o=vector("c_b_o", "b_o (cross)", 0.0),
                   ln3_gamma=vector("ln3_gamma", "γ₃", 1.0), ln3_beta=vector("ln3_beta", "β₃", 0.0))

    @classmethod
    def random(cls, d_model: int, num_heads: int, d_ff: int, seed: int = 0) -> "DecoderLayerParams":
        """A reproducible layer with short numbers (two decimals): the self-attention, LayerNorms and feed-forward
        of :meth:`LayerParams.random` with this seed, the cross-attention from the next seed's projections."""
        own = LayerParams.random(d_model, num_heads, d_ff, seed)
        other = LayerParams.random(d_model, num_heads, d_ff, seed + 1)
        return cls.checked(**own.arrays(), num_heads=own.num_heads,
                           **{f"c_{name}": getattr(other, name) for name in SELF})

    @classmethod
    def from_torch(cls, layer: Any) -> "DecoderLayerParams":
        """Read a ``torch.nn.TransformerDecoderLayer`` (its settings: :func:`selfattn.core.block.torch_settings`)."""

        def arr(t: Any) -> np.ndarray | None:
            return None if t is None else t.detach().cpu().double().numpy().copy()

        def projections(attn: Any, prefix: str) -> dict[str, np.ndarray | None]:
            if not getattr(attn, "_qkv_same_embed_dim", True) or attn.in_proj_weight is None:
                raise ValueError("only attention with one in_proj_weight (kdim = vdim = d_model) is read")
            w_q, w_k, w_v = np.split(arr(attn.in_proj_weight), 3, axis=0)  # torch: y = x Wᵀ
            b = np.split(arr(attn.in_proj_bias), 3) if attn.in_proj_bias is not None else (None, None, None)
            return {f"{prefix}w_q": w_q.T, f"{prefix}w_k": w_k.T, f"{prefix}w_v": w_v.T,
                    f"{prefix}w_o": arr(attn.out_proj.weight).T, f"{prefix}b_q": b[0], f"{prefix}b_k": b[1],
                    f"{prefix}b_v": b[2], f"{prefix}b_o": arr(attn.out_proj.bias)}

        return cls.checked(
            **projections(layer.self_attn, ""), **projections(layer.multihead_attn, "c_"),
            ln1_gamma=arr(layer.norm1.weight), ln1_beta=arr(layer.norm1.bias),
            ln2_gamma=arr(layer.norm2.weight), ln2_beta=arr(layer.norm2.bias),
            ln3_gamma=arr(layer.norm3.weight), ln3_beta=arr(layer.norm3.bias),
            w_1=arr(layer.linear1.weight).T, b_1=arr(layer.linear1.bias),
            w_2=arr(layer.linear2.weight).T, b_2=arr(layer.linear2.bias),
            num_heads=int(layer.self_attn.num_heads),
        )


# ── Traces ──────────────────────────────────────────────────────────────────────────

@dataclass(frozen=True, eq=False)
class DecoderLayerTrace:
    """Every step of one decoder layer, as float64 numpy arrays."""

    y: np.ndarray  # (m, d) the layer's input (the target so far, or the layer below's output)
    memory: np.ndarray  # (n, d) the encoder's output
    self_attention: AttentionTrace  # masked: queries, keys and values all from the target
    residual1: np.ndarray  # (m, d) y + self-attention
    norm1: NormTrace  # post-LN: of residual1; pre-LN: of y
    after_self: np.ndarray  # (m, d) h₁
    cross_attention: AttentionTrace  # queries from the decoder, keys and values from the memory
    residual2: np.ndarray  # (m, d) h₁ + cross-attention
    norm2: NormTrace  # post-LN: of residual2; pre-LN: of h₁
    after_cross: np.ndarray  # (m, d) h₂
    ff_input: np.ndarray  # (m, d) h₂ (post-LN) or norm3.outputs (pre-LN)
    ff_pre: np.ndarray  # (m, d_ff)
    ff_act: np.ndarray  # (m, d_ff)
    ff_out: np.ndarray  # (m, d)
    residual3: np.ndarray  # (m, d) h₂ + ff_out
    norm3: NormTrace  # post-LN: of residual3; pre-LN: of h₂
    outputs: np.ndarray  # (m, d)
    norm_first: bool
    activation: str
    eps: float

    @property
    def self_weights(self) -> np.ndarray:
        """(h, m, m) the masked self-attention's weights over the target so far."""
        return self.self_attention.weights

    @property
    def cross_weights(self) -> np.ndarray:
        """(h, m, n) the cross-attention's weights: target rows, source columns."""
        return self.cross_attention.weights


@dataclass(frozen=True, eq=False)
class EncoderDecoderTrace:
    """A whole encoder–decoder: the encoder stack, its memory, and the decoder layers over it."""

    src: np.ndarray  # (n, d)
    tgt: np.ndarray  # (m, d)
    encoder: StackTrace  # its outputs: the memory before the encoder's final norm, if any
    memory: np.ndarray  # (n, d) what every decoder layer's cross-attention reads
    decoder_layers: tuple[DecoderLayerTrace, ...]
    decoder_final_norm: NormTrace | None
    outputs: np.ndarray  # (m, d)


@dataclass(frozen=True, eq=False)
class CacheStep:
    """One step of cached decoding: target row t through every layer."""

    t: int
    queries: tuple[np.ndarray, ...]  # per layer: (h, 1, head_dim) the new query row of the self-attention
    cached_keys: tuple[np.ndarray, ...]  # per layer: (h, t + 1, head_dim) the cache after this step (row t is new)
    cached_values: tuple[np.ndarray, ...]  # per layer: (h, t + 1, head_dim)
    self_weights: tuple[np.ndarray, ...]  # per layer: (h, t + 1) this row's self-attention weights
    cross_weights: tuple[np.ndarray, ...]  # per layer: (h, n) this row's cross-attention weights
    output: np.ndarray  # (d,) row t of the decoder's output


@dataclass(frozen=True, eq=False)
class CacheTrace:
    """Decoding one position at a time, each layer keeping the keys and values of the rows before."""

    memory_keys: tuple[np.ndarray, ...]  # per layer: (h, n, head_dim) computed once, before step 0
    memory_values: tuple[np.ndarray, ...]
    steps: tuple[CacheStep, ...]
    outputs: np.ndarray  # (m, d) row t computed at step t


# ── The maths ───────────────────────────────────────────────────────────────────────

def check_memory(memory: Any, d_model: int) -> np.ndarray:
    """The memory as an (n, d_model) float64 matrix, or InputError ``memory_width`` naming both widths."""
    memory = as_matrix(memory, "memory")
    if memory.shape[1] != d_model:
        raise InputError("memory_width", f"The memory has {memory.shape[1]} columns but the decoder's d_model is "
                         f"{d_model}.", got=memory.shape[1], d_model=d_model)
    return memory


def cross_mask(m: int, memory_pad: np.ndarray) -> np.ndarray:
    """(m, n) bool: every target row may read every source position that is not padding."""
    if memory_pad.all():
        raise InputError("mask_empty_row", "The mask leaves token 1 with nothing to attend to.", row=1)
    return np.ascontiguousarray(np.broadcast_to(~memory_pad[None, :], (m, len(memory_pad))))


def _self_w(p: DecoderLayerParams) -> tuple[np.ndarray, ...]:
    return tuple(getattr(p, name) for name in SELF)


def _cross_w(p: DecoderLayerParams) -> tuple[np.ndarray, ...]:
    return tuple(getattr(p, name) for name in CROSS)


def decoder_layer(y: Any, memory: Any, params: DecoderLayerParams, *, norm_first: bool = False,
                  activation: str = "relu", eps: float = 1e-5, causal: bool = True, key_padding: Any = None,
                  memory_key_padding: Any = None) -> DecoderLayerTrace:
    """One decoder layer, as ``torch.nn.TransformerDecoderLayer`` (dropout off) computes it.

    Args:
        y: (m, d_model) the target's vectors so far.
        memory: (n, d_model) the encoder's output.
        causal: the self-attention's mask: target token i reads tokens 0..i only (True in a decoder).
        key_padding: (m,) bool, True where a target position is padding (no query reads it).
        memory_key_padding: (n,) bool, True where a source position is padding (cross-attention reads none).

    Raises:
        InputError: bad numbers or shapes (``weight_shape`` naming Y), ``memory_width``, ``eps_bad``,
            ``activation_unknown``, ``padding_shape`` (a mask of the wrong length), ``mask_empty_row``, ``overflow``.
    """
    y = as_matrix(y, "Y")
    m, d = y.shape
    if d != params.d_model:
        raise InputError("weight_shape", f"Y has {d} columns but the layer's d_model is {params.d_model}.",
                         name="Y", expected=f"(m, {params.d_model})", got=str(y.shape))
    memory = check_memory(memory, params.d_model)
    eps = check_eps(eps)
    activation = check_activation(activation)
    self_allowed = layer_mask(m, bool(causal), check_key_padding(key_padding, m))
    allowed_cross = cross_mask(m, check_key_padding(memory_key_padding, len(memory)))
    h = params.num_heads

    same = {"norm_first": norm_first, "eps": eps}
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported below, in one sentence
        sa, add1 = add_and_norm(y, lambda a: attention(a, a, _self_w(params), h, self_allowed), params.ln1_gamma,
                                params.ln1_beta, **same)
        ca, add2 = add_and_norm(add1.outputs, lambda a: attention(a, memory, _cross_w(params), h, allowed_cross),
                                params.ln2_gamma, params.ln2_beta, **same)
        ff, add3 = feed_forward(add2.outputs, params, params.ln3_gamma, params.ln3_beta, activation=activation, **same)
    check_overflow(sa.scores, ca.scores, sa.outputs, ca.outputs, ff.act, add3.outputs, add1.norm.variance,
                   add2.norm.variance, add3.norm.variance)
    return DecoderLayerTrace(y=y, memory=memory, self_attention=sa, residual1=add1.residual, norm1=add1.norm,
                             after_self=add1.outputs, cross_attention=ca, residual2=add2.residual, norm2=add2.norm,
                             after_cross=add2.outputs, ff_input=add3.sub_input, ff_pre=ff.pre, ff_act=ff.act,
                             ff_out=ff.outputs, residual3=add3.residual, norm3=add3.norm, outputs=add3.outputs,
                             norm_first=bool(norm_first), activation=activation, eps=eps)


def _final(state: np.ndarray, norm: Any, eps: float, label: str) -> tuple[np.ndarray, NormTrace | None]:
    if norm is None:
        return state, None
    d = state.shape[1]
    trace = layer_norm(state, as_bias(norm[0], f"γ_{label}", d), as_bias(norm[1], f"β_{label}", d), eps)
    check_overflow(trace.variance)
    return trace.outputs, trace


def _decoder_layers(layers: Any) -> tuple[DecoderLayerParams, ...]:
    layers = tuple(layers)
    if not layers:
        raise InputError("no_layers", "A stack needs at least one layer.")
    return layers


def encoder_decoder(src: Any, tgt: Any, encoder_layers: Any, decoder_layers: Any, *, norm_first: bool = False,
                    activation: str = "relu", eps: float = 1e-5, encoder_final_norm: Any = None,
                    decoder_final_norm: Any = None, src_key_padding: Any = None,
                    tgt_key_padding: Any = None) -> EncoderDecoderTrace:
    """An encoder–decoder, as ``torch.nn.Transformer`` computes it (its two final norms given as (γ, β)): the source
    through the encoder stack (and its final norm) is the memory; the target through the decoder layers, each
    causal over the target and reading the memory, then the decoder's final norm.

    ``src_key_padding`` masks padded source positions in the encoder and in every cross-attention;
    ``tgt_key_padding`` padded target positions in the decoder's self-attention.
    """
    same = {"norm_first": norm_first, "activation": activation, "eps": eps}
    encoder = transformer_stack(src, encoder_layers, final_norm=encoder_final_norm, key_padding=src_key_padding,
                                **same)
    memory = encoder.outputs
    traces: list[DecoderLayerTrace] = []
    state = tgt
    for params in _decoder_layers(decoder_layers):
        traces.append(decoder_layer(state, memory, params, causal=True, key_padding=tgt_key_padding,
                                    memory_key_padding=src_key_padding, **same))
        state = traces[-1].outputs
    outputs, closing = _final(state, decoder_final_norm, traces[-1].eps, "dec")
    return EncoderDecoderTrace(src=encoder.x, tgt=traces[0].y, encoder=encoder, memory=memory,
                               decoder_layers=tuple(traces), decoder_final_norm=closing, outputs=outputs)


def decode_with_cache(tgt: Any, memory: Any, decoder_layers: Any, *, norm_first: bool = False,
                      activation: str = "relu", eps: float = 1e-5, decoder_final_norm: Any = None,
                      memory_key_padding: Any = None) -> CacheTrace:
    """The decoder computed one target row at a time, as generation computes it.

    At step t, each layer takes row t of its input, computes that row's query, key and value, appends the key and
    value to its cache (rows 0..t−1 are reused, not recomputed), attends over the cache (which is the causal mask,
    kept by construction) and over the memory's keys and values (computed once, before step 0), and finishes the
    row (Add & Norm, feed-forward: row by row). Row t of :attr:`CacheTrace.outputs` equals row t of
    :func:`encoder_decoder`'s decoder for the same memory.
    """
    layers = _decoder_layers(decoder_layers)
    d = layers[0].d_model
    tgt = as_matrix(tgt, "Y")
    if tgt.shape[1] != d:
        raise InputError("weight_shape", f"Y has {tgt.shape[1]} columns but the layer's d_model is {d}.",
                         name="Y", expected=f"(m, {d})", got=str(tgt.shape))
    memory = check_memory(memory, d)
    eps = check_eps(eps)
    activation = check_activation(activation)
    allowed_cross = cross_mask(1, check_key_padding(memory_key_padding, len(memory)))
    memory_kv = []
    for p in layers:
        if p.d_model != d:
            raise InputError("weight_shape", f"Every layer must have d_model {d}, got {p.d_model}.",
                             name="W_q", expected=f"({d}, {d})", got=str(p.w_q.shape))
        memory_kv.append((head_rows(memory, p.c_w_k, p.c_b_k, p.num_heads),
                          head_rows(memory, p.c_w_v, p.c_b_v, p.num_heads)))  # (h, n, head_dim) each, made once
    caches: list[tuple[list[np.ndarray], list[np.ndarray]]] = [([], []) for _ in layers]
    steps: list[CacheStep] = []
    same = {"norm_first": norm_first, "eps": eps}

    def cached(a: np.ndarray, p: DecoderLayerParams, k_cache: list, v_cache: list):
        """Row t's self-attention: its key and value appended to the cache, its query over the whole cache (the
        causal mask, kept by construction)."""
        k_cache.append(head_rows(a, p.w_k, p.b_k, p.num_heads))  # (h, 1, head_dim)
        v_cache.append(head_rows(a, p.w_v, p.b_v, p.num_heads))
        return attention(a, a, _self_w(p), p.num_heads, None, keys=np.concatenate(k_cache, axis=1),
                         values=np.concatenate(v_cache, axis=1))  # over (h, t + 1, head_dim)

    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(len(tgt)):
            row = tgt[t:t + 1]  # (1, d)
            queries, keys, values, self_w, cross_w = [], [], [], [], []
            for p, (mk, mv), (k_cache, v_cache) in zip(layers, memory_kv, caches):
                sa, add1 = add_and_norm(row, lambda a: cached(a, p, k_cache, v_cache), p.ln1_gamma, p.ln1_beta, **same)
                ca, add2 = add_and_norm(add1.outputs, lambda a: attention(a, memory, _cross_w(p), p.num_heads,
                                                                          allowed_cross, keys=mk, values=mv),
                                        p.ln2_gamma, p.ln2_beta, **same)
                _, add3 = feed_forward(add2.outputs, p, p.ln3_gamma, p.ln3_beta, activation=activation, **same)
                row = add3.outputs
                queries.append(sa.queries)
                keys.append(sa.keys)
                values.append(sa.values)
                self_w.append(sa.weights[:, 0, :])
                cross_w.append(ca.weights[:, 0, :])
            out, _ = _final(row, decoder_final_norm, eps, "dec")
            check_overflow(out)
            steps.append(CacheStep(t=t, queries=tuple(queries), cached_keys=tuple(keys), cached_values=tuple(values),
                                   self_weights=tuple(self_w), cross_weights=tuple(cross_w), output=out[0]))
    return CacheTrace(memory_keys=tuple(k for k, _ in memory_kv), memory_values=tuple(v for _, v in memory_kv),
                      steps=tuple(steps), outputs=np.stack([s.output for s in steps]))
