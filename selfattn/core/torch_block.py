"""The same block in torch: ``torch.nn.TransformerEncoderLayer`` built from :class:`~selfattn.core.block.LayerParams`,
the independent reference the Transformer block page checks itself against on every run.

Layers run in float64 on torch's slow path (training mode, dropout 0): in torch 2.13 the fused fast path
(eval + no_grad) computes the erf GELU even for ``nn.GELU(approximate="tanh")``, and ``nn.TransformerEncoder`` on
that path packs a padded batch as a nested tensor and returns zeros in the pad rows; the slow path computes what
the module's own code says.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from selfattn.core.block import LayerParams


def torch_layer(params: LayerParams, *, norm_first: bool, activation: str, eps: float) -> Any:
    """A float64 ``nn.TransformerEncoderLayer`` (batch_first, dropout 0, training mode) holding ``params``."""
    import torch
    from torch import nn

    act = {"relu": "relu", "gelu": "gelu", "gelu_tanh": nn.GELU(approximate="tanh")}[activation]
    layer = nn.TransformerEncoderLayer(params.d_model, params.num_heads, params.d_ff, dropout=0.0, activation=act,
                                       layer_norm_eps=eps, batch_first=True, norm_first=norm_first,
                                       dtype=torch.float64)

    def put(target: Any, value: np.ndarray) -> None:
        target.copy_(torch.from_numpy(np.ascontiguousarray(value)))

    with torch.no_grad():
        attn = layer.self_attn
        put(attn.in_proj_weight, np.concatenate([params.w_q.T, params.w_k.T, params.w_v.T]))
        put(attn.in_proj_bias, np.concatenate([params.b_q, params.b_k, params.b_v]))
        put(attn.out_proj.weight, params.w_o.T)
        put(attn.out_proj.bias, params.b_o)
        put(layer.norm1.weight, params.ln1_gamma)
        put(layer.norm1.bias, params.ln1_beta)
        put(layer.norm2.weight, params.ln2_gamma)
        put(layer.norm2.bias, params.ln2_beta)
        put(layer.linear1.weight, params.w_1.T)
        put(layer.linear1.bias, params.b_1)
        put(layer.linear2.weight, params.w_2.T)
        put(layer.linear2.bias, params.b_2)
    return layer.train()  # the slow path: see the module's docstring


def torch_stack(x: np.ndarray, layers: tuple[LayerParams, ...], *, final_norm: Any = None, norm_first: bool,
                activation: str, eps: float, causal: bool = False, key_padding: np.ndarray | None = None
                ) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray | None]:
    """Run ``x`` (n, d) through torch's layers in turn.

    Returns:
        (each layer's outputs (n, d), each layer's per-head weights (h, n, n) from
        ``self_attn(..., need_weights=True, average_attn_weights=False)``, the closing LayerNorm's outputs or None).
    """
    import torch
    from torch import nn

    n = len(x)
    mask = torch.from_numpy(~np.tril(np.ones((n, n), dtype=bool))) if causal else None  # True = may not attend
    pad = None if key_padding is None else torch.from_numpy(np.asarray(key_padding, dtype=bool))[None, :]
    state = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float64))[None]
    outputs, weights = [], []
    with torch.no_grad():  # the layers are in training mode (slow path) with dropout 0: no_grad changes no number
        for params in layers:
            layer = torch_layer(params, norm_first=norm_first, activation=activation, eps=eps)
            att_in = layer.norm1(state) if norm_first else state
            _, att = layer.self_attn(att_in, att_in, att_in, attn_mask=mask, key_padding_mask=pad, need_weights=True,
                                     average_attn_weights=False)
            state = layer(state, src_mask=mask, src_key_padding_mask=pad)
            outputs.append(state[0].numpy().copy())
            weights.append(att[0].numpy().copy())
        closing = None
        if final_norm is not None:
            norm = nn.LayerNorm(x.shape[1], eps=eps, dtype=torch.float64)
            norm.weight.copy_(torch.from_numpy(np.asarray(final_norm[0], dtype=np.float64)))
            norm.bias.copy_(torch.from_numpy(np.asarray(final_norm[1], dtype=np.float64)))
            closing = norm(state)[0].numpy().copy()
    return outputs, weights, closing


def torch_transformer(encoder: tuple[LayerParams, ...], decoder: tuple[Any, ...], *, norm_first: bool,
                      activation: str, eps: float) -> Any:
    """A float64 ``nn.Transformer`` (batch_first, dropout 0, training mode) holding these encoder and decoder layers
    (:class:`~selfattn.core.decoder.DecoderLayerParams`), its two final norms at γ = 1, β = 0 as torch makes them.

    torch 2.13's ``nn.TransformerDecoder`` deep-copies its layer, and a copy given an activation *module* (the tanh
    GELU) computes ReLU: the copy's ``__setstate__`` writes ``F.relu`` into its ``__dict__``, found before the module.
    The stale entry is removed, so the reference computes what it is built to (tests/test_decoder_core.py pins it).
    """
    import warnings

    import torch
    from torch import nn

    first, d = encoder[0], encoder[0].d_model
    act = {"relu": "relu", "gelu": "gelu", "gelu_tanh": nn.GELU(approximate="tanh")}[activation]
    with warnings.catch_warnings():  # "enable_nested_tensor ... norm_first": the fast path this reference never takes
        warnings.simplefilter("ignore", UserWarning)
        model = nn.Transformer(d, first.num_heads, num_encoder_layers=len(encoder), num_decoder_layers=len(decoder),
                               dim_feedforward=first.d_ff, dropout=0.0, activation=act, layer_norm_eps=eps,
                               batch_first=True, norm_first=norm_first, dtype=torch.float64)

    def put(target: Any, value: np.ndarray) -> None:
        target.copy_(torch.from_numpy(np.array(value, dtype=np.float64)))  # a copy: the core's arrays are read-only

    def attention(module: Any, w_q, w_k, w_v, w_o, b_q, b_k, b_v, b_o) -> None:
        put(module.in_proj_weight, np.concatenate([w_q.T, w_k.T, w_v.T]))
        put(module.in_proj_bias, np.concatenate([b_q, b_k, b_v]))
        put(module.out_proj.weight, w_o.T)
        put(module.out_proj.bias, b_o)

    with torch.no_grad():
        for layer, p in zip(model.encoder.layers, encoder):
            attention(layer.self_attn, p.w_q, p.w_k, p.w_v, p.w_o, p.b_q, p.b_k, p.b_v, p.b_o)
            for norm, gamma, beta in ((layer.norm1, p.ln1_gamma, p.ln1_beta), (layer.norm2, p.ln2_gamma, p.ln2_beta)):
                put(norm.weight, gamma)
                put(norm.bias, beta)
            put(layer.linear1.weight, p.w_1.T), put(layer.linear1.bias, p.b_1)
            put(layer.linear2.weight, p.w_2.T), put(layer.linear2.bias, p.b_2)
        for layer, p in zip(model.decoder.layers, decoder):
            if isinstance(layer._modules.get("activation"), nn.Module):
                layer.__dict__.pop("activation", None)
            attention(layer.self_attn, p.w_q, p.w_k, p.w_v, p.w_o, p.b_q, p.b_k, p.b_v, p.b_o)
            attention(layer.multihead_attn, p.c_w_q, p.c_w_k, p.c_w_v, p.c_w_o, p.c_b_q, p.c_b_k, p.c_b_v, p.c_b_o)
            for norm, gamma, beta in ((layer.norm1, p.ln1_gamma, p.ln1_beta), (layer.norm2, p.ln2_gamma, p.ln2_beta),
                                      (layer.norm3, p.ln3_gamma, p.ln3_beta)):
                put(norm.weight, gamma)
                put(norm.bias, beta)
            put(layer.linear1.weight, p.w_1.T), put(layer.linear1.bias, p.b_1)
            put(layer.linear2.weight, p.w_2.T), put(layer.linear2.bias, p.b_2)
    return model.train()  # the slow path, as torch_layer's


def torch_encoder_decoder(src: np.ndarray, tgt: np.ndarray, model: Any) -> tuple[np.ndarray, np.ndarray]:
    """(memory, outputs) of ``model`` (:func:`torch_transformer`) for one source and target, the target causal."""
    import torch
    from torch import nn

    s = torch.from_numpy(np.array(src, dtype=np.float64))[None]  # copies: the core's arrays are read-only
    t = torch.from_numpy(np.array(tgt, dtype=np.float64))[None]
    mask = nn.Transformer.generate_square_subsequent_mask(len(tgt), dtype=torch.float64)
    with torch.no_grad():
        memory = model.encoder(s)
        outputs = model.decoder(t, memory, tgt_mask=mask, tgt_is_causal=True)
    return memory[0].numpy().copy(), outputs[0].numpy().copy()
