"""selfattn.core.decoder against torch.nn.TransformerDecoderLayer and torch.nn.Transformer in float64 (issue 39).

torch is the independent reference. Modules run in ``train()`` mode with dropout 0.0 (torch's slow, step-by-step
path, as tests/test_block_core.py explains), every parameter re-drawn (γ and β too). Padded positions hold junk:
it must not reach a real token. Cached decoding is held to the full causal pass row for row.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from selfattn import DecoderLayerParams, LayerParams, decode_with_cache, decoder_layer, encoder_decoder
from selfattn.core.block import torch_settings
from selfattn.errors import InputError
from selfattn.i18n import t_plain

D, HEADS, D_FF, N, M = 12, 3, 20, 7, 5  # source length N, target length M
TOL = 1e-9
ACTS = {"relu": (lambda: "relu", "relu"), "gelu": (lambda: "gelu", "gelu"),
        "gelu_tanh": (lambda: nn.GELU(approximate="tanh"), "gelu_tanh")}


def redraw(module: nn.Module, seed: int) -> None:
    torch.manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.normal_(0.0, 0.4)


def torch_decoder_layer(norm_first: bool, activation, seed: int) -> nn.TransformerDecoderLayer:
    layer = nn.TransformerDecoderLayer(D, HEADS, D_FF, dropout=0.0, activation=activation, batch_first=True,
                                       norm_first=norm_first, dtype=torch.float64)
    redraw(layer, seed)
    return layer.train()


def data(seed: int = 0, pad_target: bool = False, pad_memory: bool = False):
    g = torch.Generator().manual_seed(200 + seed)
    src = torch.randn(1, N, D, generator=g, dtype=torch.float64) * 1.3
    tgt = torch.randn(1, M, D, generator=g, dtype=torch.float64) * 1.3
    src_pad = torch.zeros(1, N, dtype=torch.bool)
    tgt_pad = torch.zeros(1, M, dtype=torch.bool)
    if pad_memory:
        src_pad[0, N - 2:] = True
        src[0, N - 2:] = 9.0  # junk in the padded memory rows
    if pad_target:
        tgt_pad[0, M - 1:] = True
        tgt[0, M - 1:] = -8.0
    return src, tgt, src_pad, tgt_pad


def diff(a, b) -> float:
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))))


@pytest.mark.parametrize("tgt_pad,mem_pad", [(False, False), (True, False), (False, True), (True, True)],
                         ids=["plain", "tgt_pad", "mem_pad", "both_pad"])
@pytest.mark.parametrize("act", list(ACTS))
@pytest.mark.parametrize("norm_first", [False, True], ids=["post_ln", "pre_ln"])
def test_a_decoder_layer_equals_torch_step_by_step(norm_first, act, tgt_pad, mem_pad):
    layer = torch_decoder_layer(norm_first, ACTS[act][0](), seed=3)
    _, y, src_pad, tpad = data(1, tgt_pad, mem_pad)
    memory = torch.randn(1, N, D, generator=torch.Generator().manual_seed(9), dtype=torch.float64)
    causal = nn.Transformer.generate_square_subsequent_mask(M, dtype=torch.float64)
    out = layer(y, memory, tgt_mask=causal, tgt_key_padding_mask=tpad, memory_key_padding_mask=src_pad).detach()
    params = DecoderLayerParams.from_torch(layer)
    settings = torch_settings(layer)
    assert settings == {"norm_first": norm_first, "activation": ACTS[act][1], "eps": 1e-5}
    ours = decoder_layer(y[0].numpy(), memory[0].numpy(), params, causal=True, key_padding=tpad[0].numpy(),
                         memory_key_padding=src_pad[0].numpy(), **settings)
    real = ~tpad[0].numpy()
    assert diff(ours.outputs[real], out[0].numpy()[real]) < TOL
    # the two attentions' weights, from torch's own modules on the same inputs
    sa_in = layer.norm1(y) if norm_first else y
    _, sa_w = layer.self_attn(sa_in, sa_in, sa_in, attn_mask=causal, key_padding_mask=tpad, need_weights=True,
                              average_attn_weights=False)
    assert diff(ours.self_weights[:, real], sa_w[0].detach().numpy()[:, real]) < TOL
    ca_in = torch.from_numpy(ours.cross_attention.query_input)[None]
    _, ca_w = layer.multihead_attn(ca_in, memory, memory, key_padding_mask=src_pad, need_weights=True,
                                   average_attn_weights=False)
    assert ours.cross_weights.shape == (HEADS, M, N)
    assert diff(ours.cross_weights, ca_w[0].detach().numpy()) < TOL
    if mem_pad:
        assert np.all(ours.cross_weights[:, :, N - 2:] == 0.0)  # no query reads a padded source position
    assert np.all(np.triu(ours.self_weights[0][:, :], 1) == 0.0)  # nor a later target position


def torch_transformer(norm_first: bool, activation, layers: int, seed: int) -> nn.Transformer:
    """nn.Transformer in float64, train mode, every parameter re-drawn.

    Found here: given an activation *module* (``nn.GELU(approximate="tanh")``), torch 2.13's nn.TransformerDecoder
    computes ReLU in every layer but the one it was given: it deep-copies that layer, and the decoder layer's
    ``__setstate__`` writes ``F.relu`` into the copy's ``__dict__`` (the module lives in ``_modules``), which
    attribute lookup finds first. The encoder's layers keep their GELU. The stale entry is removed here, so the
    reference computes what it was built to; the test below says so.
    """
    model = nn.Transformer(D, HEADS, num_encoder_layers=layers, num_decoder_layers=layers, dim_feedforward=D_FF,
                           dropout=0.0, activation=activation, batch_first=True, norm_first=norm_first,
                           dtype=torch.float64)
    for layer in model.decoder.layers:
        if isinstance(layer._modules.get("activation"), nn.Module):
            layer.__dict__.pop("activation", None)
    redraw(model, seed)
    return model.train()


def test_torch_s_decoder_copies_lose_an_activation_module():
    """The torch quirk torch_transformer works around, as it stands in the pinned torch."""
    import torch.nn.functional as F

    model = nn.Transformer(D, HEADS, 1, 2, D_FF, dropout=0.0, activation=nn.GELU(approximate="tanh"),
                           batch_first=True, dtype=torch.float64)
    assert isinstance(model.encoder.layers[0].activation, nn.GELU)
    assert model.decoder.layers[0].activation is F.relu


def ours_of(model: nn.Transformer):
    enc = [LayerParams.from_torch(l) for l in model.encoder.layers]
    dec = [DecoderLayerParams.from_torch(l) for l in model.decoder.layers]
    norms = {name: (getattr(model, name).norm.weight.detach().numpy(), getattr(model, name).norm.bias.detach().numpy())
             for name in ("encoder", "decoder")}
    return enc, dec, norms


@pytest.mark.parametrize("act", list(ACTS))
@pytest.mark.parametrize("norm_first", [False, True], ids=["post_ln", "pre_ln"])
def test_the_encoder_decoder_equals_torch_transformer_with_both_final_norms(norm_first, act):
    model = torch_transformer(norm_first, ACTS[act][0](), layers=2, seed=11)
    src, tgt, src_pad, tgt_pad = data(2, pad_target=True, pad_memory=True)
    causal = nn.Transformer.generate_square_subsequent_mask(M, dtype=torch.float64)
    out = model(src, tgt, tgt_mask=causal, src_key_padding_mask=src_pad, tgt_key_padding_mask=tgt_pad,
                memory_key_padding_mask=src_pad).detach()[0].numpy()
    memory = model.encoder(src, src_key_padding_mask=src_pad).detach()[0].numpy()
    enc, dec, norms = ours_of(model)
    assert diff(dec[0].c_w_q, dec[1].c_w_q) > 0.1  # the layers differ (torch deep-copies one layer: re-drawn)
    settings = torch_settings(model.decoder.layers[0])
    s = encoder_decoder(src[0].numpy(), tgt[0].numpy(), enc, dec, encoder_final_norm=norms["encoder"],
                        decoder_final_norm=norms["decoder"], src_key_padding=src_pad[0].numpy(),
                        tgt_key_padding=tgt_pad[0].numpy(), **settings)
    real_src, real_tgt = ~src_pad[0].numpy(), ~tgt_pad[0].numpy()
    assert diff(s.memory[real_src], memory[real_src]) < TOL
    assert diff(s.outputs[real_tgt], out[real_tgt]) < TOL
    assert len(s.decoder_layers) == 2 and s.decoder_layers[1].y is s.decoder_layers[0].outputs
    assert s.decoder_layers[0].memory is s.memory


@pytest.mark.parametrize("final", [False, True], ids=["no_final_norm", "final_norm"])
@pytest.mark.parametrize("act", list(ACTS))
@pytest.mark.parametrize("norm_first", [False, True], ids=["post_ln", "pre_ln"])
def test_cached_decoding_equals_the_full_causal_pass_row_for_row(norm_first, act, final):
    dec = [DecoderLayerParams.random(D, HEADS, D_FF, seed=s) for s in (0, 5, 9)]
    rng = np.random.default_rng(4)
    tgt, memory = rng.normal(size=(M, D)), rng.normal(size=(N, D))
    pad = np.zeros(N, dtype=bool)
    pad[-1] = True
    norm = (rng.normal(size=D), rng.normal(size=D)) if final else None
    same = {"norm_first": norm_first, "activation": act, "eps": 1e-5}
    full_state = tgt
    layers = []
    for p in dec:
        layers.append(decoder_layer(full_state, memory, p, causal=True, memory_key_padding=pad, **same))
        full_state = layers[-1].outputs
    if final:
        from selfattn.core.block import layer_norm
        full_state = layer_norm(full_state, norm[0], norm[1], 1e-5).outputs
    cached = decode_with_cache(tgt, memory, dec, decoder_final_norm=norm, memory_key_padding=pad, **same)
    assert cached.outputs.shape == (M, D) and len(cached.steps) == M
    assert diff(cached.outputs, full_state) < TOL
    for t, step in enumerate(cached.steps):
        assert step.t == t and diff(step.output, full_state[t]) < TOL
        for layer, trace in enumerate(layers):
            assert step.cached_keys[layer].shape == (HEADS, t + 1, D // HEADS)
            assert diff(step.cached_keys[layer], trace.self_attention.keys[:, :t + 1]) < TOL  # rows 0..t, reused
            assert diff(step.self_weights[layer], trace.self_weights[:, t, :t + 1]) < TOL
            assert diff(step.cross_weights[layer], trace.cross_weights[:, t]) < TOL
    for layer, trace in enumerate(layers):  # the memory's keys and values, computed once
        assert diff(cached.memory_keys[layer], trace.cross_attention.keys) < TOL
    # an earlier step's cache is a prefix of a later one's: nothing recomputed differently
    assert np.array_equal(cached.steps[1].cached_keys[0], cached.steps[3].cached_keys[0][:, :2])


def test_cached_decoding_equals_torch_transformer_decoder():
    model = torch_transformer(True, "gelu", layers=2, seed=17)
    src, tgt, _, _ = data(3)
    memory = model.encoder(src).detach()
    causal = nn.Transformer.generate_square_subsequent_mask(M, dtype=torch.float64)
    out = model.decoder(tgt, memory, tgt_mask=causal).detach()[0].numpy()
    _, dec, norms = ours_of(model)
    cached = decode_with_cache(tgt[0].numpy(), memory[0].numpy(), dec, decoder_final_norm=norms["decoder"],
                               **torch_settings(model.decoder.layers[0]))
    assert diff(cached.outputs, out) < TOL


def test_random_params_are_reproducible_and_round_trip_through_torch():
    a, b = DecoderLayerParams.random(8, 2, 32, seed=0), DecoderLayerParams.random(8, 2, 32, seed=0)
    assert all(np.array_equal(x, y) for x, y in zip(a.arrays().values(), b.arrays().values()))
    assert a.c_w_q.shape == (8, 8) and a.w_1.shape == (8, 32) and a.d_ff == 32 and a.head_dim == 4
    assert diff(a.w_q, a.c_w_q) > 0.1 and np.all(a.ln3_gamma == 1.0)
    layer = torch_decoder_layer(False, "relu", seed=5)
    read = DecoderLayerParams.from_torch(layer)
    assert diff(read.c_w_k.T, layer.multihead_attn.in_proj_weight.detach().numpy()[D:2 * D]) == 0.0
    assert diff(read.ln3_gamma, layer.norm3.weight.detach().numpy()) == 0.0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bad_input_is_named_in_both_languages(lang):
    p = DecoderLayerParams.random(8, 2, 16, seed=1)
    y, memory = np.ones((3, 8)), np.ones((4, 8))
    cases = [
        (lambda: decoder_layer(y, np.ones((4, 6)), p), "memory_width"),
        (lambda: decode_with_cache(y, np.ones((4, 6)), [p]), "memory_width"),
        (lambda: decoder_layer(y, memory, p, memory_key_padding=np.zeros(3, dtype=bool)), "padding_shape"),
        (lambda: decoder_layer(y, memory, p, key_padding=np.zeros(5, dtype=bool)), "padding_shape"),
        (lambda: decoder_layer(y, memory, p, memory_key_padding=np.ones(4, dtype=bool)), "mask_empty_row"),
        (lambda: decoder_layer(np.ones((3, 6)), memory, p), "weight_shape"),
        (lambda: decoder_layer(y, memory, p, eps=0), "eps_bad"),
        (lambda: encoder_decoder(memory, y, [LayerParams.random(8, 2, 16)], []), "no_layers"),
    ]
    for call, code in cases:
        with pytest.raises(InputError) as caught:
            call()
        assert caught.value.code == code
        text = t_plain(f"err.{code}", lang, **{k: v for k, v in caught.value.params.items()})
        assert text and "{" not in text
        if lang == "zh":
            assert any("\u4e00" <= ch <= "\u9fff" for ch in text), text
