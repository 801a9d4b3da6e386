"""selfattn.core.block against torch.nn.TransformerEncoderLayer in float64, intermediate by intermediate.

torch is the independent reference: its layer's own modules (norm1, self_attn, linear1, activation, linear2,
norm2) give every step, and the whole layer's forward gives the output. Layers run in ``train()`` mode with
dropout 0.0, so torch takes its slow, step-by-step path: in torch 2.13 the fused fast path (``eval()`` under
``no_grad``) computes the erf GELU even for ``nn.GELU(approximate="tanh")``, and through nn.TransformerEncoder's
nested tensors it writes zeros in padded query rows, so it is not the reference a layer written from the
formulas should match.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch import nn

from selfattn import LayerParams, transformer_layer, transformer_stack
from selfattn.core.block import (ACTIVATIONS, activate, layer_norm, pad_batch, torch_settings, transformer_batch)
from selfattn.errors import InputError

D, HEADS, D_FF, N = 12, 3, 20, 6
LENGTHS = (6, 4)  # the second sequence of a padded batch has two padded positions at the end
TOL = 1e-12

ACTS = {  # id: (what nn.TransformerEncoderLayer is given, the core's name)
    "relu": (lambda: "relu", "relu"),
    "gelu": (lambda: "gelu", "gelu"),
    "gelu_tanh": (lambda: nn.GELU(approximate="tanh"), "gelu_tanh"),
}


def torch_layer(norm_first: bool, activation, seed: int, eps: float = 1e-5) -> nn.TransformerEncoderLayer:
    """A float64 layer with every parameter re-drawn (γ and β too), in train mode (the slow path)."""
    torch.manual_seed(seed)
    layer = nn.TransformerEncoderLayer(D, HEADS, D_FF, dropout=0.0, activation=activation, layer_norm_eps=eps,
                                       batch_first=True, norm_first=norm_first, dtype=torch.float64)
    redraw(layer)
    return layer.train()


def redraw(module: nn.Module) -> None:
    with torch.no_grad():
        for p in module.parameters():
            p.normal_(0.0, 0.4)


def inputs(padded: bool, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor | None]:
    """(2, N, D) inputs and, when padded, the key-padding mask (True = padded) with junk in the padded rows."""
    g = torch.Generator().manual_seed(100 + seed)
    x = torch.randn(2, N, D, generator=g, dtype=torch.float64) * 1.5
    if not padded:
        return x, None
    pad = torch.zeros(2, N, dtype=torch.bool)
    pad[1, LENGTHS[1]:] = True
    x[1, LENGTHS[1]:] = 7.0  # padding is a value too; it must not reach the real tokens
    return x, pad


def causal_mask(causal: bool) -> torch.Tensor | None:
    """nn.Transformer's mask as a boolean (True = not allowed), so it matches the boolean padding mask's type."""
    return torch.isinf(nn.Transformer.generate_square_subsequent_mask(N, dtype=torch.float64)) if causal else None


def torch_steps(layer: nn.TransformerEncoderLayer, x, mask, pad) -> dict[str, torch.Tensor]:
    """Every intermediate of the layer, computed from its own modules in the order its forward uses them."""
    def attention(z):
        return layer.self_attn(z, z, z, attn_mask=mask, key_padding_mask=pad, need_weights=True,
                               average_attn_weights=False)

    s: dict[str, torch.Tensor] = {}
    if layer.norm_first:
        s["norm1"] = layer.norm1(x)
        s["attention_input"] = s["norm1"]
        s["projected"], s["weights"] = attention(s["norm1"])
        s["residual1"] = x + s["projected"]
        s["after_attention"] = s["residual1"]
        s["norm2"] = layer.norm2(s["after_attention"])
        ff_input = s["norm2"]
    else:
        s["attention_input"] = x
        s["projected"], s["weights"] = attention(x)
        s["residual1"] = x + s["projected"]
        s["norm1"] = layer.norm1(s["residual1"])
        s["after_attention"] = s["norm1"]
        ff_input = s["after_attention"]
    s["ff_pre"] = layer.linear1(ff_input)
    s["ff_act"] = layer.activation(s["ff_pre"])
    s["ff_out"] = layer.linear2(s["ff_act"])
    s["residual2"] = s["after_attention"] + s["ff_out"]
    if not layer.norm_first:
        s["norm2"] = layer.norm2(s["residual2"])
    s["outputs"] = s["norm2"] if not layer.norm_first else s["residual2"]
    return {k: v.detach() for k, v in s.items()}


def trace_steps(trace) -> dict[str, np.ndarray]:
    return {"attention_input": trace.attention_input, "weights": trace.weights, "projected": trace.projected,
            "residual1": trace.residual1, "norm1": trace.norm1.outputs, "after_attention": trace.after_attention,
            "ff_pre": trace.ff_pre, "ff_act": trace.ff_act, "ff_out": trace.ff_out, "residual2": trace.residual2,
            "norm2": trace.norm2.outputs, "outputs": trace.outputs}


def max_diff(a, b) -> float:
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))))


# ── One layer against torch, every step ─────────────────────────────────────────────

@pytest.mark.parametrize("padded", [False, True], ids=["full", "padded"])
@pytest.mark.parametrize("causal", [False, True], ids=["bidir", "causal"])
@pytest.mark.parametrize("act", list(ACTS))
@pytest.mark.parametrize("norm_first", [False, True], ids=["post_ln", "pre_ln"])
def test_every_intermediate_equals_torch(norm_first, act, causal, padded):
    """Each step of transformer_layer (attention input, per-head weights, W_o output, both residuals, both
    LayerNorms, the feed-forward before and after the activation, the output) equals torch's, for the real
    rows; the padded rows equal torch's slow path too, since both compute them."""
    make, name = ACTS[act]
    layer = torch_layer(norm_first, make(), seed=7)
    x, pad = inputs(padded)
    mask = causal_mask(causal)
    settings = torch_settings(layer)
    assert settings == {"norm_first": norm_first, "activation": name, "eps": 1e-5}
    params = LayerParams.from_torch(layer)
    steps = torch_steps(layer, x, mask, pad)
    whole = layer(x, src_mask=mask, src_key_padding_mask=pad, is_causal=causal).detach()
    np.testing.assert_allclose(steps["outputs"].numpy(), whole.numpy(), atol=TOL, rtol=0)  # the chain is torch's
    for b in range(2):
        n = LENGTHS[b] if padded else N
        trace = transformer_layer(x[b].numpy(), params, causal=causal,
                                  key_padding=None if pad is None else pad[b].numpy(), **settings)
        ours = trace_steps(trace)
        for key, theirs in steps.items():
            theirs_b = theirs[b].numpy()
            if key == "weights":  # (h, n, n): real query rows; padded keys are 0 in both
                assert max_diff(ours[key][:, :n], theirs_b[:, :n]) < TOL, key
            else:
                assert max_diff(ours[key][:n], theirs_b[:n]) < TOL, key
            assert max_diff(ours[key], theirs_b) < TOL, f"{key} (padded rows)"
        assert not np.allclose(trace.outputs, trace.x)  # the layer did something
        if padded and b == 1:
            assert np.all(trace.weights[:, :, n:] == 0.0) and trace.key_padding.tolist() == [False] * n + [True] * 2
        if causal:
            assert np.all(trace.weights[:, np.triu_indices(N, 1)[0], np.triu_indices(N, 1)[1]] == 0.0)


def test_the_inner_steps_are_consistent():
    """The attention steps inside a trace fit together: q, k, v split the projections into heads; scaled scores
    are q·k / √head_dim; the concat through W_o is the projection; LayerNorm's μ and σ² are the row's."""
    p = LayerParams.random(D, HEADS, D_FF, seed=3)
    x = np.random.default_rng(0).normal(size=(N, D))
    t = transformer_layer(x, p, causal=True)
    hd = D // HEADS
    assert t.queries.shape == (HEADS, N, hd) and t.scale_factor == math.sqrt(hd) and t.num_heads == HEADS
    np.testing.assert_allclose(t.queries[1], (x @ p.w_q + p.b_q)[:, hd:2 * hd], atol=TOL)
    np.testing.assert_allclose(t.scores, t.queries @ t.keys.transpose(0, 2, 1), atol=TOL)
    allowed = np.tril(np.ones((N, N), dtype=bool))
    np.testing.assert_allclose(t.scaled_scores[:, allowed], (t.scores / math.sqrt(hd))[:, allowed], atol=TOL)
    assert np.all(np.isneginf(t.scaled_scores[:, ~allowed]))
    np.testing.assert_allclose(t.head_outputs, t.weights @ t.values, atol=TOL)
    np.testing.assert_allclose(t.projected, t.concat @ p.w_o + p.b_o, atol=TOL)
    np.testing.assert_allclose(t.norm1.mean, t.residual1.mean(axis=1), atol=TOL)
    np.testing.assert_allclose(t.norm1.variance, t.residual1.var(axis=1), atol=TOL)
    assert t.ff_input is t.after_attention


def test_layer_norm_eps_is_the_one_given():
    """A large ε (0.3) changes the answer, and the core with torch's ε still equals torch."""
    layer = torch_layer(False, "relu", seed=2, eps=0.3)
    x, _ = inputs(False)
    settings = torch_settings(layer)
    assert settings["eps"] == 0.3
    expected = layer(x).detach()[0].numpy()
    params = LayerParams.from_torch(layer)
    assert max_diff(transformer_layer(x[0].numpy(), params, **settings).outputs, expected) < TOL
    assert max_diff(transformer_layer(x[0].numpy(), params, **{**settings, "eps": 1e-5}).outputs, expected) > 1e-3


def test_activations_equal_torch_functions():
    """relu, erf GELU and tanh GELU, elementwise, equal torch's on a wide range."""
    z = np.linspace(-8, 8, 401)
    tz = torch.from_numpy(z)
    expected = {"relu": torch.relu(tz), "gelu": nn.functional.gelu(tz),
                "gelu_tanh": nn.functional.gelu(tz, approximate="tanh")}
    assert set(expected) == set(ACTIVATIONS)
    for name, want in expected.items():
        assert max_diff(activate(z, name), want.numpy()) < 1e-14, name
    assert max_diff(activate(z, "gelu"), activate(z, "gelu_tanh")) > 1e-4  # the two GELUs are told apart


def test_layer_norm_equals_torch():
    """layer_norm equals F.layer_norm with γ and β, and keeps the biased variance."""
    rng = np.random.default_rng(1)
    z, g, b = rng.normal(size=(5, 9)) * 3, rng.normal(size=9), rng.normal(size=9)
    t = layer_norm(z, g, b, 1e-5)
    want = nn.functional.layer_norm(torch.from_numpy(z), (9,), torch.from_numpy(g), torch.from_numpy(b), 1e-5)
    assert max_diff(t.outputs, want.numpy()) < TOL
    np.testing.assert_allclose(t.variance, z.var(axis=1), atol=TOL)


# ── Stacks ──────────────────────────────────────────────────────────────────────────

@pytest.mark.parametrize("causal", [False, True], ids=["bidir", "causal"])
@pytest.mark.parametrize("norm_first", [False, True], ids=["post_ln", "pre_ln"])
def test_stack_equals_three_different_torch_layers_in_turn(norm_first, causal):
    """transformer_stack of three different layers equals the three torch layers applied one after another,
    and each layer's input is the previous one's output."""
    layers = [torch_layer(norm_first, "gelu", seed=s) for s in (11, 12, 13)]
    x, pad = inputs(True)
    mask = causal_mask(causal)
    state = x
    for layer in layers:
        state = layer(state, src_mask=mask, src_key_padding_mask=pad, is_causal=causal)
    params = [LayerParams.from_torch(l) for l in layers]
    assert max_diff(params[0].w_q, params[1].w_q) > 0.1 and max_diff(params[1].w_2, params[2].w_2) > 0.1
    for b in range(2):
        stack = transformer_stack(x[b].numpy(), params, norm_first=norm_first, activation="gelu", causal=causal,
                                  key_padding=pad[b].numpy())
        n = LENGTHS[b]
        assert len(stack.layers) == 3
        assert max_diff(stack.outputs[:n], state.detach()[b, :n].numpy()) < TOL
        for a, c in zip(stack.layers, stack.layers[1:]):
            assert np.array_equal(c.x, a.outputs)
        assert stack.final_norm is None and stack.outputs is stack.layers[-1].outputs


@pytest.mark.parametrize("norm_first", [False, True], ids=["post_ln", "pre_ln"])
def test_stack_equals_torch_transformer_encoder_with_its_final_norm(norm_first):
    """nn.TransformerEncoder(layer, 3) with a closing LayerNorm equals transformer_stack with final_norm.

    nn.TransformerEncoder deep-copies the one layer it is given, so its three layers start identical: they are
    re-drawn here so that each differs. enable_nested_tensor=False and train mode keep torch on the slow path.
    """
    torch.manual_seed(21)
    final = nn.LayerNorm(D, eps=1e-5, dtype=torch.float64)
    enc = nn.TransformerEncoder(torch_layer(norm_first, "gelu", seed=20), num_layers=3, norm=final,
                                enable_nested_tensor=False)
    redraw(enc)
    enc.train()
    x, pad = inputs(True, seed=1)
    out = enc(x, src_key_padding_mask=pad).detach()
    without = enc.layers[2](enc.layers[1](enc.layers[0](x, src_key_padding_mask=pad), src_key_padding_mask=pad),
                            src_key_padding_mask=pad).detach()
    params = [LayerParams.from_torch(l) for l in enc.layers]
    assert max_diff(params[0].w_1, params[2].w_1) > 0.1
    gamma, beta = final.weight.detach().numpy(), final.bias.detach().numpy()
    settings = torch_settings(enc.layers[0])
    for b in range(2):
        n = LENGTHS[b]
        plain = transformer_stack(x[b].numpy(), params, key_padding=pad[b].numpy(), **settings)
        closed = transformer_stack(x[b].numpy(), params, key_padding=pad[b].numpy(), final_norm=(gamma, beta),
                                   **settings)
        assert max_diff(plain.outputs[:n], without[b, :n].numpy()) < TOL
        assert max_diff(closed.outputs[:n], out[b, :n].numpy()) < TOL
        extra = final(torch.from_numpy(plain.outputs)).detach().numpy()  # the final norm is one more nn.LayerNorm
        assert max_diff(closed.outputs, extra) < TOL and max_diff(closed.final_norm.inputs, plain.outputs) == 0
        assert max_diff(closed.outputs, plain.outputs) > 1e-3


def test_stack_similarity_starts_with_the_input():
    """similarity() has one value for the input and one per layer, the first the input's own mean cosine."""
    p = [LayerParams.random(D, HEADS, D_FF, seed=s) for s in range(2)]
    x = np.random.default_rng(5).normal(size=(N, D))
    sims = transformer_stack(x, p).similarity()
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos = unit @ unit.T
    assert sims.shape == (3,) and sims[0] == pytest.approx((cos.sum() - N) / (N * (N - 1)), abs=1e-12)


# ── Weights ─────────────────────────────────────────────────────────────────────────

def test_a_layer_s_tables_round_trip():
    """The tables the pages edit and LayerParams are inverses (tables, from_tables)."""
    params = LayerParams.random(6, 3, 10, seed=2).replace(b_k=np.arange(6.0), ln2_beta=np.full(6, 0.5))
    again = LayerParams.from_tables(params.tables(), num_heads=3)
    assert all(np.array_equal(arr, again.arrays()[name]) for name, arr in params.arrays().items())
    assert {part: m.shape for part, m in params.tables().items()} == {
        "wq": (6, 6), "wk": (6, 6), "wv": (6, 6), "wo": (6, 6), "b": (4, 6), "ln": (4, 6), "w1": (6, 10),
        "b1": (1, 10), "w2": (10, 6), "b2": (1, 6)}


def test_random_params_are_reproducible_and_shaped():
    """The same sizes and seed give the same numbers, another seed others; shapes, two decimals and the
    documented starting values (attention biases 0, γ 1, β 0)."""
    a, b, c = (LayerParams.random(8, 2, 32, seed=s) for s in (4, 4, 5))
    for name, arr in a.arrays().items():
        assert np.array_equal(arr, b.arrays()[name]), name
    assert not np.array_equal(a.w_q, c.w_q) and not np.array_equal(a.w_2, c.w_2)
    shapes = {"w_q": (8, 8), "w_k": (8, 8), "w_v": (8, 8), "w_o": (8, 8), "b_q": (8,), "b_k": (8,), "b_v": (8,),
              "b_o": (8,), "ln1_gamma": (8,), "ln1_beta": (8,), "ln2_gamma": (8,), "ln2_beta": (8,),
              "w_1": (8, 32), "b_1": (32,), "w_2": (32, 8), "b_2": (8,)}
    assert {k: v.shape for k, v in a.arrays().items()} == shapes and list(a.arrays()) == list(shapes)
    assert (a.d_model, a.d_ff, a.num_heads, a.head_dim) == (8, 32, 2, 4)
    for arr in a.arrays().values():
        assert arr.dtype == np.float64 and np.array_equal(np.round(arr, 2), arr)
    for name in ("b_q", "b_k", "b_v", "b_o", "ln1_beta", "ln2_beta"):
        assert np.all(a.arrays()[name] == 0), name
    assert np.all(a.ln1_gamma == 1) and np.all(a.ln2_gamma == 1)
    assert np.std(a.w_1) == pytest.approx(1 / math.sqrt(8), rel=0.3)  # N(0, 1/fan_in)
    assert np.std(a.w_2) == pytest.approx(1 / math.sqrt(32), rel=0.3)
    assert a.ln1 == (a.ln1_gamma, a.ln1_beta) and a.ln2 == (a.ln2_gamma, a.ln2_beta)
    one_head = LayerParams.random(8, 1, 32, seed=4)  # the heads only split the same weights
    assert one_head.num_heads == 1 and all(np.array_equal(v, a.arrays()[k]) for k, v in one_head.arrays().items())
    assert not np.array_equal(LayerParams.random(8, 2, 16, seed=4).w_q, a.w_q)  # d_ff is part of the seed


def load_into_torch(params: LayerParams, settings: dict) -> nn.TransformerEncoderLayer:
    """A torch layer holding ``params`` (W is torch's weight transposed)."""
    act = {"relu": "relu", "gelu": "gelu", "gelu_tanh": nn.GELU(approximate="tanh")}[settings["activation"]]
    layer = nn.TransformerEncoderLayer(params.d_model, params.num_heads, params.d_ff, dropout=0.0, activation=act,
                                       layer_norm_eps=settings["eps"], batch_first=True,
                                       norm_first=settings["norm_first"], dtype=torch.float64)
    t = torch.from_numpy
    with torch.no_grad():
        layer.self_attn.in_proj_weight.copy_(t(np.concatenate([params.w_q.T, params.w_k.T, params.w_v.T])))
        layer.self_attn.in_proj_bias.copy_(t(np.concatenate([params.b_q, params.b_k, params.b_v])))
        layer.self_attn.out_proj.weight.copy_(t(params.w_o.T))
        layer.self_attn.out_proj.bias.copy_(t(params.b_o))
        for norm, (g, b) in ((layer.norm1, params.ln1), (layer.norm2, params.ln2)):
            norm.weight.copy_(t(g))
            norm.bias.copy_(t(b))
        layer.linear1.weight.copy_(t(params.w_1.T))
        layer.linear1.bias.copy_(t(params.b_1))
        layer.linear2.weight.copy_(t(params.w_2.T))
        layer.linear2.bias.copy_(t(params.b_2))
    return layer.train()


@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("norm_first", [False, True], ids=["post_ln", "pre_ln"])
def test_params_and_settings_round_trip_through_torch(norm_first, activation):
    """LayerParams and settings written into a torch layer read back identical (from_torch, torch_settings),
    and that torch layer computes what the core computes."""
    rng = np.random.default_rng(9)
    params = LayerParams.random(D, HEADS, D_FF, seed=8).replace(
        b_q=rng.normal(size=D), b_o=rng.normal(size=D), ln1_gamma=rng.normal(size=D), ln2_beta=rng.normal(size=D))
    settings = {"norm_first": norm_first, "activation": activation, "eps": 1e-6}
    layer = load_into_torch(params, settings)
    assert torch_settings(layer) == settings
    back = LayerParams.from_torch(layer)
    assert back.num_heads == HEADS
    for name, arr in params.arrays().items():
        assert np.array_equal(back.arrays()[name], arr), name
    x = rng.normal(size=(N, D))
    want = layer(torch.from_numpy(x)[None]).detach()[0].numpy()
    assert max_diff(transformer_layer(x, params, **settings).outputs, want) < TOL


def test_torch_settings_refuses_another_activation():
    layer = nn.TransformerEncoderLayer(D, HEADS, D_FF, activation=torch.tanh)
    with pytest.raises(ValueError, match="activation"):
        torch_settings(layer)


def test_checked_defaults_and_replace():
    """None biases are zeros and None γ ones; replace changes one weight and checks it again."""
    p = LayerParams.random(4, 2, 6, seed=0)
    q = LayerParams.checked(w_q=p.w_q, w_k=p.w_k, w_v=p.w_v, w_o=p.w_o, w_1=p.w_1.tolist(),
                            w_2=torch.from_numpy(p.w_2), num_heads=2)
    assert np.all(q.b_1 == 0) and np.all(q.ln2_gamma == 1) and np.array_equal(q.w_2, p.w_2)
    r = p.replace(b_2=[1, 2, 3, 4])
    assert r.b_2.tolist() == [1.0, 2.0, 3.0, 4.0] and np.array_equal(r.w_q, p.w_q) and not np.array_equal(p.b_2, r.b_2)
    with pytest.raises(InputError) as err:
        p.replace(b_2=[1, 2, 3])
    assert err.value.code == "bias_len"


# ── Bad input ───────────────────────────────────────────────────────────────────────

def code_of(call) -> str:
    with pytest.raises(InputError) as err:
        call()
    assert str(err.value)  # an English sentence for the CLI and logs
    return err.value.code


@pytest.mark.parametrize("eps", [0, 0.0, -1, float("nan"), float("inf"), "abc", True])
def test_bad_eps_is_refused(eps):
    p = LayerParams.random(4, 2, 6)
    assert code_of(lambda: transformer_layer(np.ones((2, 4)), p, eps=eps)) == "eps_bad"


def test_bad_input_raises_input_error_with_its_code():
    p = LayerParams.random(4, 2, 6)
    x = np.arange(8.0).reshape(2, 4)
    assert code_of(lambda: LayerParams.random(10, 3, 8)) == "heads_not_divisible"
    assert code_of(lambda: p.replace(num_heads=3)) == "heads_not_divisible"
    assert code_of(lambda: LayerParams.random(4, 2, 0)) == "size_not_positive"
    assert code_of(lambda: LayerParams.random(4, 2, 6, seed=-1)) == "seed_bad"
    bad_x = x.copy()
    bad_x[1, 2] = np.nan
    assert code_of(lambda: transformer_layer(bad_x, p)) == "not_finite"
    bad_w = p.w_v.copy()
    bad_w[0, 0] = np.nan
    assert code_of(lambda: p.replace(w_v=bad_w)) == "not_finite"
    assert code_of(lambda: p.replace(b_1=np.full(6, np.inf))) == "not_finite"
    assert code_of(lambda: transformer_layer(np.ones((2, 5)), p)) == "weight_shape"
    assert code_of(lambda: transformer_layer(x, p, activation="swish")) == "activation_unknown"
    assert code_of(lambda: transformer_layer(x, p, activation=None)) == "activation_unknown"
    assert code_of(lambda: p.replace(w_2=np.ones((5, 4)))) == "ff_shape"  # d_ff 6 against 5
    assert code_of(lambda: p.replace(w_2=np.ones((6, 3)))) == "ff_shape"  # does not return to d_model
    assert code_of(lambda: p.replace(w_1=np.ones((3, 6)))) == "ff_shape"  # does not read d_model
    assert code_of(lambda: transformer_layer(x, p, key_padding=[False, False, False])) == "padding_shape"
    assert code_of(lambda: transformer_layer(x, p, key_padding=[0, 1])) == "padding_shape"  # not boolean
    assert code_of(lambda: transformer_stack(x, [])) == "no_layers"


@pytest.mark.parametrize("norm_first", [False, True], ids=["post_ln", "pre_ln"])
def test_huge_numbers_overflow_in_one_sentence(norm_first):
    """Numbers whose squares overflow raise ``overflow``, in both orders: a pre-LN layer's first step is a
    LayerNorm whose σ² would be infinite, and silently 0 rows come out of it unless it is caught."""
    p = LayerParams.random(4, 2, 6)
    x = np.arange(1.0, 9.0).reshape(2, 4) * 1e200
    assert code_of(lambda: transformer_layer(x, p, norm_first=norm_first)) == "overflow"
    rng = np.random.default_rng(0)
    huge_ff = p.replace(w_1=rng.normal(size=(4, 6)) * 1e200, w_2=rng.normal(size=(6, 4)) * 1e200)
    assert code_of(lambda: transformer_layer(rng.normal(size=(2, 4)), huge_ff, norm_first=norm_first)) == "overflow"


def test_final_norm_overflow_is_refused():
    """A pre-LN stack's residual stream that is finite but too large for the closing LayerNorm's σ²."""
    p = LayerParams.random(4, 2, 6).replace(w_o=np.zeros((4, 4)), w_2=np.zeros((6, 4)), b_2=np.zeros(4))
    x = np.arange(1.0, 9.0).reshape(2, 4)
    assert transformer_stack(x, [p], norm_first=True).outputs.tolist() == x.tolist()  # fine without final_norm
    with pytest.raises(InputError) as err:
        transformer_stack(x * 1e200, [p.replace(ln1_gamma=np.zeros(4))], norm_first=True,
                          final_norm=(np.ones(4), np.zeros(4)))
    assert err.value.code == "overflow"


# ── Batches ─────────────────────────────────────────────────────────────────────────

def test_pad_batch_lengths_truncation_and_mask():
    rng = np.random.default_rng(3)
    seqs = [rng.normal(size=(n, 4)) for n in (5, 2, 7)]
    inputs_, pad, lengths, truncated = pad_batch(seqs, pad_value=-3.0)
    assert inputs_.shape == (3, 7, 4) and lengths == (5, 2, 7) and truncated == (False, False, False)
    assert pad.dtype == bool and pad.sum(axis=1).tolist() == [2, 5, 0]
    assert np.array_equal(inputs_[1, :2], seqs[1]) and np.all(inputs_[1, 2:] == -3.0)
    assert pad[0].tolist() == [False] * 5 + [True] * 2
    inputs_, pad, lengths, truncated = pad_batch(seqs, max_len=4)
    assert inputs_.shape == (3, 4, 4) and lengths == (4, 2, 4) and truncated == (True, False, True)
    assert np.array_equal(inputs_[2], seqs[2][:4]) and pad.sum() == 2
    assert code_of(lambda: pad_batch([])) == "no_sequences"
    assert code_of(lambda: pad_batch([np.ones((2, 4)), np.ones((2, 3))])) == "batch_widths"
    for bad in (0, -1, 2.5, True):
        assert code_of(lambda: pad_batch(seqs, max_len=bad)) == "max_len_bad"


@pytest.mark.parametrize("norm_first", [False, True], ids=["post_ln", "pre_ln"])
@pytest.mark.parametrize("causal", [False, True], ids=["bidir", "causal"])
def test_batch_rows_equal_each_sequence_alone(causal, norm_first):
    """Every real row of every padded sequence equals the stack run on that sequence alone, unpadded."""
    rng = np.random.default_rng(4)
    seqs = [rng.normal(size=(n, D)) for n in (3, 6, 1, 8)]
    layers = [LayerParams.random(D, HEADS, D_FF, seed=s) for s in (1, 2)]
    batch = transformer_batch(seqs, layers, max_len=7, pad_value=5.0, causal=causal, norm_first=norm_first,
                              activation="gelu", final_norm=(np.ones(D), np.zeros(D)))
    assert batch.lengths == (3, 6, 1, 7) and batch.truncated == (False, False, False, True)
    assert batch.outputs.shape == (4, 7, D) and batch.key_padding[2].sum() == 6
    for b, seq in enumerate(seqs):
        n = batch.lengths[b]
        alone = transformer_stack(seq[:n], layers, causal=causal, norm_first=norm_first, activation="gelu",
                                  final_norm=(np.ones(D), np.zeros(D)))
        assert max_diff(batch.outputs[b, :n], alone.outputs) < 1e-12
        assert max_diff(batch.stacks[b].layers[1].weights[:, :n, :n], alone.layers[1].weights) < 1e-12
    with pytest.raises(TypeError):
        transformer_batch(seqs, layers, key_padding=np.zeros(8, dtype=bool))
