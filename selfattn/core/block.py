"""A Transformer encoder layer in numpy, float64, with every intermediate: attention, W_o, Add & Norm, feed-forward.

Conventions are the rest of the core's: rows of ``x`` are tokens and weights multiply from the right
(``x @ W``), so ``x`` is (n, d_model), W_q/W_k/W_v/W_o are (d_model, d_model), W_1 is (d_model, d_ff) and
W_2 is (d_ff, d_model). Heads split the columns as :func:`selfattn.core.heads.split_heads` does.

The two orders of a layer, as ``torch.nn.TransformerEncoderLayer`` computes them:

* post-LN (``norm_first=False``; Vaswani et al. 2017, BERT)::

      h = LayerNorm₁(x + MHA(x))
      y = LayerNorm₂(h + FF(h))

* pre-LN (``norm_first=True``; GPT-2, nanoGPT)::

      h = x + MHA(LayerNorm₁(x))
      y = h + FF(LayerNorm₂(h))

with ``FF(z) = act(z @ W_1 + b_1) @ W_2 + b_2`` and ``LayerNorm(z) = (z − μ) / √(σ² + ε) · γ + β`` per row
(σ² the biased variance, as torch computes it). A pre-LN stack usually ends with one more LayerNorm
(GPT-2's ``ln_f``): ``transformer_stack(..., final_norm=(γ, β))``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from selfattn.core.attention import score_scale
from selfattn.core.checks import as_bias, as_matrix, check_heads, check_overflow, check_square_weights, resolve_mask
# the sub-layers' maths (and LayerNorm, the activations) live in sublayers.py, shared with the decoder; they stay
# importable from here
from selfattn.core.sublayers import NormTrace, activate, add_and_norm, attention, feed_forward, layer_norm
from selfattn.errors import InputError

ACTIVATIONS = ("relu", "gelu", "gelu_tanh")  # gelu: x·Φ(x) with the error function; gelu_tanh: GPT-2's tanh form
NORM_ORDERS = (False, True)  # norm_first: post-LN, pre-LN


# ── Weights ─────────────────────────────────────────────────────────────────────────

class LayerSizes:
    """The sizes a layer's weights give (W_q: d_model, W_1: d_ff), shared by encoder and decoder layers."""

    w_q: np.ndarray
    w_1: np.ndarray
    num_heads: int

    @property
    def d_model(self) -> int:
        return int(self.w_q.shape[0])

    @property
    def d_ff(self) -> int:
        return int(self.w_1.shape[1])

    @property
    def head_dim(self) -> int:
        return self.d_model // self.num_heads

    def arrays(self) -> dict[str, np.ndarray]:
        """Every weight by field name, in field order (``num_heads`` left out)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "num_heads"}


@dataclass(frozen=True, eq=False)
class LayerParams(LayerSizes):
    """One encoder layer's weights in the core's convention (``x @ W``), float64."""

    w_q: np.ndarray  # (d_model, d_model)
    w_k: np.ndarray  # (d_model, d_model)
    w_v: np.ndarray  # (d_model, d_model)
    w_o: np.ndarray  # (d_model, d_model) output projection of the concatenated heads
    b_q: np.ndarray  # (d_model,)
    b_k: np.ndarray  # (d_model,)
    b_v: np.ndarray  # (d_model,)
    b_o: np.ndarray  # (d_model,)
    ln1_gamma: np.ndarray  # (d_model,) the first LayerNorm's scale γ
    ln1_beta: np.ndarray  # (d_model,) its shift β
    ln2_gamma: np.ndarray  # (d_model,)
    ln2_beta: np.ndarray  # (d_model,)
    w_1: np.ndarray  # (d_model, d_ff) feed-forward, first linear map
    b_1: np.ndarray  # (d_ff,)
    w_2: np.ndarray  # (d_ff, d_model) feed-forward, second linear map
    b_2: np.ndarray  # (d_model,)
    num_heads: int

    @property
    def ln1(self) -> tuple[np.ndarray, np.ndarray]:
        """(γ, β) of the first LayerNorm."""
        return self.ln1_gamma, self.ln1_beta

    @property
    def ln2(self) -> tuple[np.ndarray, np.ndarray]:
        """(γ, β) of the second LayerNorm."""
        return self.ln2_gamma, self.ln2_beta

    def replace(self, **changes: Any) -> "LayerParams":
        """A copy with some weights changed, checked as :meth:`checked` does."""
        values = {**self.arrays(), "num_heads": self.num_heads, **changes}
        return LayerParams.checked(**values)

    @classmethod
    def checked(cls, **values: Any) -> "LayerParams":
        """Build from arrays, lists or tensors, each converted to float64 and checked.

        ``b_*``, ``ln*_beta`` may be None (zeros) and ``ln*_gamma`` None (ones).

        Raises:
            InputError: as :mod:`selfattn.core.checks` (``not_numeric``, ``not_finite``, ``weight_shape``,
                ``bias_len``, ``heads_not_divisible``, ...), or ``ff_shape`` when W_1 and W_2 do not fit.
        """
        w_q = as_matrix(values["w_q"], "W_q")
        d = w_q.shape[0]
        w_q, w_k, w_v, w_o = check_square_weights(d, W_q=w_q, W_k=values["w_k"], W_v=values["w_v"], W_o=values["w_o"])
        heads = check_heads(d, values["num_heads"])
        w_1, w_2 = as_matrix(values["w_1"], "W_1"), as_matrix(values["w_2"], "W_2")
        if w_1.shape[0] != d or w_2.shape != (w_1.shape[1], d):
            raise InputError(
                "ff_shape",
                f"W_1 must be ({d}, d_ff) and W_2 (d_ff, {d}) with the same d_ff, got {w_1.shape} and {w_2.shape}.",
                d_model=d, w_1=str(w_1.shape), w_2=str(w_2.shape),
            )
        d_ff = w_1.shape[1]

        def vector(name: str, label: str, width: int, default: float) -> np.ndarray:
            value = values.get(name)
            return np.full(width, default) if value is None else as_bias(value, label, width)

        return cls(
            w_q=w_q, w_k=w_k, w_v=w_v, w_o=w_o,
            b_q=vector("b_q", "b_q", d, 0.0), b_k=vector("b_k", "b_k", d, 0.0), b_v=vector("b_v", "b_v", d, 0.0),
            b_o=vector("b_o", "b_o", d, 0.0),
            ln1_gamma=vector("ln1_gamma", "γ₁", d, 1.0), ln1_beta=vector("ln1_beta", "β₁", d, 0.0),
            ln2_gamma=vector("ln2_gamma", "γ₂", d, 1.0), ln2_beta=vector("ln2_beta", "β₂", d, 0.0),
            w_1=w_1, b_1=vector("b_1", "b_1", d_ff, 0.0), w_2=w_2, b_2=vector("b_2", "b_2", d, 0.0),
            num_heads=heads,
        )

    @classmethod
    def random(cls, d_model: int, num_heads: int, d_ff: int, seed: int = 0) -> "LayerParams":
        """A reproducible layer with short numbers (two decimals) a learner can read and edit.

        Weights are drawn from N(0, 1/fan_in) as torch's default initialisations roughly are, so a stack keeps
        its scale; the attention biases start at 0, γ at 1 and β at 0 (as ``nn.LayerNorm`` starts), and the
        feed-forward biases small. The same (d_model, d_ff, seed) always gives the same numbers, whatever the
        number of heads, so one head and several can be compared over the same weights.
        """
        for name, value in (("d_model", d_model), ("d_ff", d_ff)):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
                raise InputError("size_not_positive", f"{name} must be a whole number of at least 1, got {value!r}.",
                                 name=name, value=str(value))
        check_heads(d_model, num_heads)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise InputError("seed_bad", f"The seed must be a whole number of at least 0, got {seed!r}.", value=str(seed))
        rng = np.random.default_rng([int(seed), d_model, d_ff])  # not the heads: 1 or 2 heads over the same weights

        def draw(rows: int, cols: int | None = None, spread: float = 1.0) -> np.ndarray:
            shape = (rows,) if cols is None else (rows, cols)
            return np.round(rng.normal(0.0, spread, size=shape), 2) + 0.0  # + 0.0: no -0.0 in an editor

        root_d, root_ff = math.sqrt(d_model), math.sqrt(d_ff)
        return cls.checked(
            w_q=draw(d_model, d_model, 1 / root_d), w_k=draw(d_model, d_model, 1 / root_d),
            w_v=draw(d_model, d_model, 1 / root_d), w_o=draw(d_model, d_model, 1 / root_d),
            w_1=draw(d_model, d_ff, 1 / root_d), b_1=draw(d_ff, spread=0.1),
            w_2=draw(d_ff, d_model, 1 / root_ff), b_2=draw(d_model, spread=0.1),
            num_heads=int(num_heads),
        )

    @classmethod
    def from_tables(cls, part: dict[str, Any], num_heads: int) -> "LayerParams":
        """Build from the tables the pages edit: ``wq wk wv wo`` (d × d), ``b`` (b_q, b_k, b_v, b_o as rows),
        ``ln`` (γ₁, β₁, γ₂, β₂ as rows), ``w1``, ``b1`` (one row), ``w2``, ``b2`` (one row)."""
        b, ln = part["b"], part["ln"]
        return cls.checked(w_q=part["wq"], w_k=part["wk"], w_v=part["wv"], w_o=part["wo"],
                           b_q=b[0], b_k=b[1], b_v=b[2], b_o=b[3],
                           ln1_gamma=ln[0], ln1_beta=ln[1], ln2_gamma=ln[2], ln2_beta=ln[3],
                           w_1=part["w1"], b_1=part["b1"][0], w_2=part["w2"], b_2=part["b2"][0], num_heads=num_heads)

    def tables(self) -> dict[str, np.ndarray]:
        """The tables the pages edit, by part (the inverse of :meth:`from_tables`)."""
        return {"wq": self.w_q, "wk": self.w_k, "wv": self.w_v, "wo": self.w_o,
                "b": np.stack([self.b_q, self.b_k, self.b_v, self.b_o]),
                "ln": np.stack([self.ln1_gamma, self.ln1_beta, self.ln2_gamma, self.ln2_beta]),
                "w1": self.w_1, "b1": self.b_1[None, :], "w2": self.w_2, "b2": self.b_2[None, :]}

    @classmethod
    def from_torch(cls, layer: Any) -> "LayerParams":
        """Read a ``torch.nn.TransformerEncoderLayer`` (its settings: :func:`torch_settings`)."""
        attn = layer.self_attn
        if not getattr(attn, "_qkv_same_embed_dim", True) or attn.in_proj_weight is None:
            raise ValueError("only a self-attention layer with one in_proj_weight (kdim = vdim = d_model) is read")

        def arr(t: Any) -> np.ndarray | None:
            return None if t is None else t.detach().cpu().double().numpy().copy()

        w_q, w_k, w_v = np.split(arr(attn.in_proj_weight), 3, axis=0)  # each (d, d) as torch's weight: y = x Wᵀ
        biases = np.split(arr(attn.in_proj_bias), 3) if attn.in_proj_bias is not None else (None, None, None)
        return cls.checked(
            w_q=w_q.T, w_k=w_k.T, w_v=w_v.T, w_o=arr(attn.out_proj.weight).T,
            b_q=biases[0], b_k=biases[1], b_v=biases[2], b_o=arr(attn.out_proj.bias),
            ln1_gamma=arr(layer.norm1.weight), ln1_beta=arr(layer.norm1.bias),
            ln2_gamma=arr(layer.norm2.weight), ln2_beta=arr(layer.norm2.bias),
            w_1=arr(layer.linear1.weight).T, b_1=arr(layer.linear1.bias),
            w_2=arr(layer.linear2.weight).T, b_2=arr(layer.linear2.bias),
            num_heads=int(attn.num_heads),
        )


def torch_settings(layer: Any) -> dict[str, Any]:
    """``norm_first``, ``activation`` and ``eps`` of a ``torch.nn.TransformerEncoderLayer``, as keywords of
    :func:`transformer_layer`."""
    import torch.nn.functional as F
    from torch import nn

    act = layer.activation
    if act is F.relu or isinstance(act, nn.ReLU):
        name = "relu"
    elif act is F.gelu:
        name = "gelu"
    elif isinstance(act, nn.GELU):
        name = "gelu_tanh" if act.approximate == "tanh" else "gelu"
    else:
        raise ValueError(f"activation {act!r} is not one of {ACTIVATIONS}")
    return {"norm_first": bool(layer.norm_first), "activation": name, "eps": float(layer.norm1.eps)}


# ── Traces ──────────────────────────────────────────────────────────────────────────

@dataclass(frozen=True, eq=False)
class LayerTrace:
    """Every step of one encoder layer, as float64 numpy arrays."""

    x: np.ndarray  # (n, d) the layer's input
    attention_input: np.ndarray  # (n, d) what attention reads: x (post-LN) or norm1.outputs (pre-LN)
    queries: np.ndarray  # (h, n, head_dim)
    keys: np.ndarray  # (h, n, head_dim)
    values: np.ndarray  # (h, n, head_dim)
    scores: np.ndarray  # (h, n, n) raw q · k
    scaled_scores: np.ndarray  # (h, n, n) divided by √head_dim, −inf where a key is masked
    weights: np.ndarray  # (h, n, n) softmax of each row
    head_outputs: np.ndarray  # (h, n, head_dim) weights @ values
    concat: np.ndarray  # (n, d) heads side by side
    projected: np.ndarray  # (n, d) concat @ W_o + b_o: the attention sub-layer's output
    residual1: np.ndarray  # (n, d) x + projected (post-LN) or x + projected (pre-LN, from the raw x)
    norm1: NormTrace  # post-LN: of residual1; pre-LN: of x
    after_attention: np.ndarray  # (n, d) h: norm1.outputs (post-LN) or residual1 (pre-LN)
    ff_input: np.ndarray  # (n, d) h (post-LN) or norm2.outputs (pre-LN)
    ff_pre: np.ndarray  # (n, d_ff) ff_input @ W_1 + b_1
    ff_act: np.ndarray  # (n, d_ff) the activation of ff_pre
    ff_out: np.ndarray  # (n, d) ff_act @ W_2 + b_2
    residual2: np.ndarray  # (n, d) h + ff_out
    norm2: NormTrace  # post-LN: of residual2; pre-LN: of h
    outputs: np.ndarray  # (n, d) norm2.outputs (post-LN) or residual2 (pre-LN)
    allowed: np.ndarray  # (n, n) bool, True where query i may attend to key j
    key_padding: np.ndarray  # (n,) bool, True for a padded position
    norm_first: bool
    activation: str
    eps: float
    scale_factor: float  # √head_dim

    @property
    def num_heads(self) -> int:
        return int(self.weights.shape[0])


@dataclass(frozen=True, eq=False)
class StackTrace:
    """Layers applied in turn: ``layers[i].outputs`` is ``layers[i + 1].x``."""

    x: np.ndarray  # (n, d) the first layer's input
    layers: tuple[LayerTrace, ...]
    final_norm: NormTrace | None  # the stack's closing LayerNorm (pre-LN stacks, as GPT-2's ln_f), or None
    outputs: np.ndarray  # (n, d)

    def similarity(self) -> np.ndarray:
        """(L + 1,) mean cosine similarity between distinct real tokens: of the input, then after each layer.

        What stacking does to a sentence: the token vectors grow alike layer by layer.
        """
        real = ~self.layers[0].key_padding
        states = [self.x] + [layer.outputs for layer in self.layers]
        if self.final_norm is not None:
            states[-1] = self.outputs
        return np.array([mean_similarity(state[real]) for state in states])


def mean_similarity(x: np.ndarray) -> float:
    """The mean cosine similarity between distinct rows of ``x`` (1.0 for a single row)."""
    from selfattn.core.attention import cosine_similarity

    cos = cosine_similarity(x)
    k = len(cos)
    return float((cos.sum() - np.trace(cos)) / (k * (k - 1))) if k > 1 else 1.0


# ── The maths ───────────────────────────────────────────────────────────────────────

def check_eps(eps: Any) -> float:
    """ε as a float, or InputError ``eps_bad`` unless it is a finite number above 0."""
    try:
        value = float(eps)
    except (TypeError, ValueError):
        value = math.nan
    if isinstance(eps, bool) or not math.isfinite(value) or value <= 0:
        raise InputError("eps_bad", f"ε must be a finite number above 0, got {eps!r}.", eps=str(eps))
    return value


def check_activation(activation: Any) -> str:
    if activation not in ACTIVATIONS:
        raise InputError("activation_unknown", f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}.",
                         activation=str(activation)[:40])
    return activation


def check_key_padding(key_padding: Any, n: int) -> np.ndarray:
    """A boolean (n,) padding mask (True = padded), or all False for None."""
    if key_padding is None:
        return np.zeros(n, dtype=bool)
    if hasattr(key_padding, "detach"):
        key_padding = key_padding.detach().cpu().numpy()
    pad = np.asarray(key_padding)
    if pad.shape != (n,) or pad.dtype != bool:
        raise InputError("padding_shape", f"key_padding must be a boolean array of {n} entries, got {pad.dtype} {pad.shape}.",
                         n=n, shape=str(pad.shape))
    return pad


def layer_mask(n: int, causal: bool, key_padding: np.ndarray) -> np.ndarray:
    """(n, n) bool, True where query i may attend to key j: not a padded key, and j ≤ i when causal."""
    allowed = np.broadcast_to(~key_padding[None, :], (n, n))
    if causal:
        allowed = allowed & np.tril(np.ones((n, n), dtype=bool))
    return resolve_mask(np.ascontiguousarray(allowed), n)  # every row needs a key it may see


def transformer_layer(x: Any, params: LayerParams, *, norm_first: bool = False, activation: str = "relu",
                      eps: float = 1e-5, causal: bool = False, key_padding: Any = None) -> LayerTrace:
    """One encoder layer, as ``torch.nn.TransformerEncoderLayer`` (dropout off) computes it.

    Args:
        x: (n, d_model) token vectors.
        params: the layer's weights (:class:`LayerParams`).
        norm_first: False for post-LN (Add & Norm after each sub-layer), True for pre-LN.
        activation: "relu", "gelu" (erf) or "gelu_tanh".
        eps: ε added to the variance in both LayerNorms.
        causal: token i attends to tokens 0..i only.
        key_padding: (n,) bool, True where a position is padding: no query attends to it. Its own query row is
            computed all the same (as Hugging Face does) and should be ignored.

    Returns:
        LayerTrace with every intermediate; ``.weights`` (h, n, n), ``.outputs`` (n, d_model).

    Raises:
        InputError: bad numbers or shapes (``not_finite``, ``weight_shape`` naming X), ``eps_bad``,
            ``activation_unknown``, ``padding_shape``, ``mask_empty_row``, or ``overflow``.
    """
    x = as_matrix(x, "X")
    n, d = x.shape
    if d != params.d_model:
        raise InputError("weight_shape", f"X has {d} columns but the layer's d_model is {params.d_model}.",
                         name="X", expected=f"(n, {params.d_model})", got=str(x.shape))
    eps = check_eps(eps)
    activation = check_activation(activation)
    pad = check_key_padding(key_padding, n)
    allowed = layer_mask(n, bool(causal), pad)
    h = params.num_heads
    scale = score_scale(params.head_dim)

    w = (params.w_q, params.w_k, params.w_v, params.w_o, params.b_q, params.b_k, params.b_v, params.b_o)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported below, in one sentence
        att, add1 = add_and_norm(x, lambda a: attention(a, a, w, h, allowed), params.ln1_gamma, params.ln1_beta,
                                 norm_first=norm_first, eps=eps)
        ff, add2 = feed_forward(add1.outputs, params, params.ln2_gamma, params.ln2_beta, norm_first=norm_first,
                                activation=activation, eps=eps)
    check_overflow(att.scores, att.outputs, ff.act, add2.outputs, add1.norm.variance, add2.norm.variance)  # σ² = inf: a silent 0
    return LayerTrace(
        x=x, attention_input=add1.sub_input, queries=att.queries, keys=att.keys, values=att.values, scores=att.scores,
        scaled_scores=att.scaled_scores, weights=att.weights, head_outputs=att.head_outputs, concat=att.concat,
        projected=att.outputs, residual1=add1.residual, norm1=add1.norm, after_attention=add1.outputs,
        ff_input=add2.sub_input, ff_pre=ff.pre, ff_act=ff.act, ff_out=ff.outputs, residual2=add2.residual,
        norm2=add2.norm, outputs=add2.outputs, allowed=allowed, key_padding=pad, norm_first=bool(norm_first),
        activation=activation, eps=eps, scale_factor=scale,
    )


def transformer_stack(x: Any, layers: Any, *, final_norm: Any = None, **same: Any) -> StackTrace:
    """Layers applied in turn, each to the last one's outputs, with the same settings.

    Args:
        x: (n, d_model) token vectors.
        layers: a sequence of :class:`LayerParams` (at least one, all of the same d_model).
        final_norm: None, or (γ, β) of a closing LayerNorm, as pre-LN stacks end (GPT-2's ln_f).
        **same: the keywords of :func:`transformer_layer` (norm_first, activation, eps, causal, key_padding).

    Returns:
        StackTrace with one LayerTrace per layer and ``.outputs`` (n, d_model).
    """
    layers = tuple(layers)
    if not layers:
        raise InputError("no_layers", "A stack needs at least one layer.")
    traces: list[LayerTrace] = []
    state = x
    for params in layers:
        traces.append(transformer_layer(state, params, **same))
        state = traces[-1].outputs
    closing = None
    if final_norm is not None:
        d = state.shape[1]
        gamma, beta = as_bias(final_norm[0], "γ_f", d), as_bias(final_norm[1], "β_f", d)
        closing = layer_norm(state, gamma, beta, traces[-1].eps)
        check_overflow(closing.variance)
        state = closing.outputs
    return StackTrace(x=traces[0].x, layers=tuple(traces), final_norm=closing, outputs=state)


# ── Batches ─────────────────────────────────────────────────────────────────────────

@dataclass(frozen=True, eq=False)
class BatchTrace:
    """A batch of sequences of different lengths, padded to the longest and run through one stack."""

    lengths: tuple[int, ...]  # each sequence's real length, after truncation
    truncated: tuple[bool, ...]  # whether a sequence was cut to max_len
    inputs: np.ndarray  # (B, n, d) padded inputs
    key_padding: np.ndarray  # (B, n) bool, True for padding
    stacks: tuple[StackTrace, ...]  # one per sequence, each over all n positions

    @property
    def outputs(self) -> np.ndarray:
        """(B, n, d); rows of padded positions are computed but mean nothing."""
        return np.stack([s.outputs for s in self.stacks])


def pad_batch(sequences: Any, max_len: int | None = None, pad_value: float = 0.0
              ) -> tuple[np.ndarray, np.ndarray, tuple[int, ...], tuple[bool, ...]]:
    """Cut each (n_i, d) sequence to ``max_len`` rows and pad them all to the longest with ``pad_value``.

    Returns:
        (inputs (B, n, d), key_padding (B, n) bool, lengths, truncated).
    """
    seqs = [as_matrix(s, f"sequence {i + 1}") for i, s in enumerate(sequences)]
    if not seqs:
        raise InputError("no_sequences", "A batch needs at least one sequence.")
    widths = {s.shape[1] for s in seqs}
    if len(widths) != 1:
        raise InputError("batch_widths", f"Every sequence of a batch needs the same d_model, got {sorted(widths)}.",
                         widths=str(sorted(widths)))
    if max_len is not None:
        if isinstance(max_len, bool) or not isinstance(max_len, (int, np.integer)) or max_len < 1:
            raise InputError("max_len_bad", f"The maximum length must be a whole number of at least 1, got {max_len!r}.",
                             value=str(max_len))
        truncated = tuple(len(s) > max_len for s in seqs)
        seqs = [s[:max_len] for s in seqs]
    else:
        truncated = tuple(False for _ in seqs)
    lengths = tuple(len(s) for s in seqs)
    n, d = max(lengths), widths.pop()
    inputs = np.full((len(seqs), n, d), float(pad_value))
    key_padding = np.ones((len(seqs), n), dtype=bool)
    for b, s in enumerate(seqs):
        inputs[b, :len(s)] = s
        key_padding[b, :len(s)] = False
    return inputs, key_padding, lengths, truncated


def transformer_batch(sequences: Any, layers: Any, *, max_len: int | None = None, pad_value: float = 0.0,
                      final_norm: Any = None, **same: Any) -> BatchTrace:
    """Pad a batch (:func:`pad_batch`) and run each padded sequence through the stack with its key-padding mask
    (combined with the causal one when ``causal=True``)."""
    if "key_padding" in same:
        raise TypeError("transformer_batch makes the key-padding mask itself")
    inputs, key_padding, lengths, truncated = pad_batch(sequences, max_len, pad_value)
    stacks = tuple(transformer_stack(inputs[b], layers, final_norm=final_norm, key_padding=key_padding[b], **same)
                   for b in range(len(inputs)))
    return BatchTrace(lengths=lengths, truncated=truncated, inputs=inputs, key_padding=key_padding, stacks=stacks)
