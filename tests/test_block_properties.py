"""Properties of selfattn.core.block that hold for any numbers, checked with hypothesis (derandomized).

LayerNorm normalises each row exactly as its formula says; a pre-LN layer whose sub-layers write zeros is the
identity; a stack without positions is permutation-equivariant; padding changes no real token; attention
weights are rows of probabilities with masked keys at exactly 0.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from selfattn.core.block import ACTIVATIONS, LayerParams, layer_norm, transformer_layer, transformer_stack

SETTINGS = settings(max_examples=80, deadline=None, derandomize=True)
MACHINE_EPS = np.finfo(np.float64).eps


@st.composite
def layers(draw, max_layers: int = 1):
    """(list of LayerParams, d_model): small random layers, with random γ, β and attention biases too."""
    d = draw(st.sampled_from([4, 6, 8, 12]))
    heads = draw(st.sampled_from([h for h in (1, 2, 3, 4) if d % h == 0]))
    d_ff = draw(st.sampled_from([3, 8, 16]))
    count = draw(st.integers(1, max_layers))
    seed = draw(st.integers(0, 2**20))
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        base = LayerParams.random(d, heads, d_ff, seed=seed + i)
        out.append(base.replace(b_q=rng.normal(size=d), b_v=rng.normal(size=d) * 0.3,
                                ln1_gamma=1 + rng.normal(size=d) * 0.3, ln1_beta=rng.normal(size=d) * 0.3,
                                ln2_gamma=1 + rng.normal(size=d) * 0.3, ln2_beta=rng.normal(size=d) * 0.3))
    return out, d


def rows(n_min: int, n_max: int, d: int):
    return hnp.arrays(np.float64, st.tuples(st.integers(n_min, n_max), st.just(d)),
                      elements=st.floats(-10, 10, allow_nan=False, allow_infinity=False, width=64))


def layer_settings():
    return st.fixed_dictionaries({"norm_first": st.booleans(), "activation": st.sampled_from(ACTIVATIONS),
                                  "eps": st.sampled_from([1e-12, 1e-5, 0.1])})


@SETTINGS
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(2, 16)),
                  elements=st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)),
       st.sampled_from([1e-12, 1e-5, 0.1, 1.0]))
def test_layer_norm_rows_have_mean_zero_and_the_exact_variance(z, eps):
    """Before γ and β, each normalised row has mean 0 and variance σ²/(σ² + ε): about 1 unless the row is
    nearly constant (σ² not far above ε), exactly 0 for a constant row."""
    gamma, beta = np.full(z.shape[1], 2.0), np.full(z.shape[1], -1.0)
    t = layer_norm(z, gamma, beta, eps)
    np.testing.assert_allclose(t.mean, z.mean(axis=1), rtol=0, atol=1e-12)
    np.testing.assert_allclose(t.variance, z.var(axis=1), rtol=1e-9, atol=1e-9)
    d = z.shape[1]
    # Rounding in μ leaves each centred entry off by about |z|·machine-ε; after the division that is the bound.
    slack = 4 * d * MACHINE_EPS * np.abs(z).max(axis=1) / np.sqrt(t.variance + eps)
    assert np.all(np.abs(t.normalised.mean(axis=1)) <= slack + 1e-15)
    expected = t.variance / (t.variance + eps)
    assert np.all(np.abs(t.normalised.var(axis=1) - expected) <= 1e-12 + 2 * slack * np.sqrt(d) + 1e-9 * expected)
    wide = t.variance > 1e4 * eps
    np.testing.assert_allclose(t.normalised.var(axis=1)[wide], 1.0, atol=1e-4)
    np.testing.assert_allclose(t.outputs, t.normalised * 2.0 - 1.0, atol=1e-12)


@SETTINGS
@given(layers(), st.data(), layer_settings(), st.booleans())
def test_pre_ln_layer_with_silent_sub_layers_is_the_identity(stack, data, same, causal):
    """With W_o = 0, b_o = 0, W_2 = 0 and b_2 = 0 neither sub-layer adds anything to the residual stream, so
    a pre-LN layer returns its input exactly, whatever the attention and the feed-forward compute inside."""
    (params,), d = stack
    silent = params.replace(w_o=np.zeros((d, d)), b_o=np.zeros(d), w_2=np.zeros((params.d_ff, d)), b_2=np.zeros(d))
    x = data.draw(rows(1, 6, d))
    t = transformer_layer(x, silent, causal=causal, **{**same, "norm_first": True})
    assert np.array_equal(t.outputs, x)
    assert np.all(t.projected == 0) and np.all(t.ff_out == 0)


@SETTINGS
@given(layers(max_layers=3), st.data(), layer_settings())
def test_a_stack_without_positions_is_permutation_equivariant(stack, data, same):
    """Permuting the rows of X permutes the stack's outputs and both axes of every layer's weights."""
    params, d = stack
    x = data.draw(rows(2, 7, d))
    perm = np.array(data.draw(st.permutations(range(len(x)))))
    plain = transformer_stack(x, params, **same)
    permuted = transformer_stack(x[perm], params, **same)
    np.testing.assert_allclose(permuted.outputs, plain.outputs[perm], rtol=0, atol=1e-9)
    for a, b in zip(plain.layers, permuted.layers):
        np.testing.assert_allclose(b.weights, a.weights[:, perm][:, :, perm], rtol=0, atol=1e-12)


@st.composite
def padding_masks(draw, n_real_max: int = 5, n_pad_max: int = 4, causal: bool = False):
    """A boolean key-padding mask with at least one real position; the first position is real when causal,
    since a padded first query would have nothing to attend to."""
    n_real = draw(st.integers(1, n_real_max))
    n_pad = draw(st.integers(1, n_pad_max))
    order = draw(st.permutations([False] * n_real + [True] * n_pad))
    pad = np.array(order, dtype=bool)
    if causal and pad[0]:
        first_real = int(np.argmin(pad))
        pad[0], pad[first_real] = False, True
    return pad


@SETTINGS
@given(layers(max_layers=2), st.data(), layer_settings(), st.booleans())
def test_padding_rows_change_no_real_token(stack, data, same, causal):
    """Padding rows with any values, anywhere (after a real first token when causal) and marked in key_padding,
    leave every real token's output what it is without them."""
    params, d = stack
    pad = data.draw(padding_masks(causal=causal))
    real = data.draw(rows(int((~pad).sum()), int((~pad).sum()), d))
    junk = data.draw(hnp.arrays(np.float64, (int(pad.sum()), d), elements=st.floats(-1e3, 1e3)))
    x = np.empty((len(pad), d))
    x[~pad], x[pad] = real, junk
    alone = transformer_stack(real, params, causal=causal, **same)
    padded = transformer_stack(x, params, causal=causal, key_padding=pad, **same)
    np.testing.assert_allclose(padded.outputs[~pad], alone.outputs, rtol=0, atol=1e-9)
    for a, b in zip(alone.layers, padded.layers):
        np.testing.assert_allclose(b.weights[:, ~pad][:, :, ~pad], a.weights, rtol=0, atol=1e-12)


@SETTINGS
@given(layers(), st.data(), layer_settings(), st.booleans())
def test_attention_rows_are_probabilities_with_masked_keys_at_zero(stack, data, same, causal):
    """Every query row (padded ones too) sums to 1; a padded key, and a later key when causal, gets exactly 0."""
    (params,), d = stack
    pad = data.draw(padding_masks(causal=causal))
    x = data.draw(rows(len(pad), len(pad), d))
    t = transformer_layer(x, params, causal=causal, key_padding=pad, **same)
    n = len(pad)
    allowed = ~pad[None, :] & (np.tril(np.ones((n, n), dtype=bool)) if causal else np.ones((n, n), dtype=bool))
    assert np.array_equal(t.allowed, allowed)
    np.testing.assert_allclose(t.weights.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    assert np.all(t.weights[:, ~allowed] == 0.0) and np.all(t.weights >= 0)
