"""Multi-head attention in numpy: agreement with torch.nn.MultiheadAttention, invariants, mistakes."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from selfattn.core.attention import self_attention
from selfattn.core.heads import (MISTAKES, merge_heads, merge_heads_bare_reshape, multi_head_attention,
                                 multi_head_attention_with_mistake, split_heads, split_heads_bare_reshape)
from selfattn.core.torch_attention import TorchMHAAttention, causal_attn_mask, set_projection_weights
from selfattn.errors import InputError


def random_case(n: int = 5, d_model: int = 8, seed: int = 0):
    """x (n, d_model) and four (d_model, d_model) weights scaled so scores stay moderate."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d_model))
    w_q, w_k, w_v, w_o = (rng.normal(size=(d_model, d_model)) / np.sqrt(d_model) for _ in range(4))
    return x, w_q, w_k, w_v, w_o


@pytest.mark.parametrize("num_heads", [1, 2, 4, 8])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("bias", [False, True])  # bias=True (zeroed) sends even head counts down MHA's fast path
def test_matches_torch_multihead_attention(num_heads, causal, bias):
    n, d_model = 6, 16
    x, w_q, w_k, w_v, w_o = random_case(n, d_model, seed=num_heads)
    trace = multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, mask="causal" if causal else None)

    mha = torch.nn.MultiheadAttention(d_model, num_heads, bias=bias, batch_first=True, dtype=torch.float64).eval()
    with torch.no_grad():
        # MHA stores in_proj_weight as (3 d, d) and applies x @ W.T, so it holds our weights transposed.
        mha.in_proj_weight.copy_(torch.from_numpy(np.concatenate([w_q.T, w_k.T, w_v.T])))
        mha.out_proj.weight.copy_(torch.from_numpy(w_o.T))
        if bias:
            mha.in_proj_bias.zero_()
            mha.out_proj.bias.zero_()
        xt = torch.from_numpy(x)[None]  # (1, n, d_model)
        mask = causal_attn_mask(n) if causal else None  # True = may NOT attend, the opposite of ours
        out, weights = mha(xt, xt, xt, attn_mask=mask, need_weights=True, average_attn_weights=False)
        fast, _ = mha(xt, xt, xt, attn_mask=mask, need_weights=False)
    assert np.abs(trace.outputs - out[0].numpy()).max() <= 1e-10
    assert np.abs(trace.outputs - fast[0].numpy()).max() <= 1e-10
    assert np.abs(trace.head_weights - weights[0].numpy()).max() <= 1e-10  # (h, n, n) per head


def test_set_projection_weights_loads_the_same_convention():
    x, w_q, w_k, w_v, w_o = random_case(4, 8, seed=3)
    module = TorchMHAAttention(8, 2, dtype=torch.float64).eval()
    set_projection_weights(module, w_q, w_k, w_v, w_o)
    with torch.no_grad():
        got = module(torch.from_numpy(x)[None])[0].numpy()
    assert np.abs(got - multi_head_attention(x, w_q, w_k, w_v, w_o, 2).outputs).max() <= 1e-10


@pytest.mark.parametrize("mask", [None, "causal"])
@pytest.mark.parametrize("scale", [True, False])
def test_one_head_is_self_attention_then_output_projection(mask, scale):
    x, w_q, w_k, w_v, w_o = random_case(5, 6, seed=1)
    trace = multi_head_attention(x, w_q, w_k, w_v, w_o, 1, scale=scale, mask=mask)
    single = self_attention(x, w_q, w_k, w_v, scale=scale, mask=mask)
    np.testing.assert_allclose(trace.head_weights[0], single.weights, rtol=0, atol=1e-12)
    np.testing.assert_allclose(trace.concat, single.outputs, rtol=0, atol=1e-12)
    np.testing.assert_allclose(trace.outputs, single.outputs @ w_o, rtol=0, atol=1e-12)
    assert trace.scale_factor == single.scale_factor


def test_each_head_is_self_attention_on_its_own_columns():
    x, w_q, w_k, w_v, w_o = random_case(5, 12, seed=2)
    trace = multi_head_attention(x, w_q, w_k, w_v, w_o, 3, mask="causal")
    for i in range(3):
        cols = slice(4 * i, 4 * (i + 1))
        head = self_attention(x, w_q[:, cols], w_k[:, cols], w_v[:, cols], mask="causal")
        np.testing.assert_allclose(trace.head_weights[i], head.weights, rtol=0, atol=1e-12)
        np.testing.assert_allclose(trace.head_outputs[i], head.outputs, rtol=0, atol=1e-12)
        np.testing.assert_allclose(trace.concat[:, cols], head.outputs, rtol=0, atol=1e-12)


def test_trace_shapes_and_invariants():
    x, w_q, w_k, w_v, w_o = random_case(7, 8, seed=4)
    t = multi_head_attention(x, w_q, w_k, w_v, w_o, 4, mask="causal")
    assert (t.num_heads, t.head_dim, t.scale_factor) == (4, 2, np.sqrt(2))
    for name, shape in [("queries", (4, 7, 2)), ("keys", (4, 7, 2)), ("values", (4, 7, 2)),
                        ("head_scores", (4, 7, 7)), ("head_weights", (4, 7, 7)), ("head_outputs", (4, 7, 2)),
                        ("concat", (7, 8)), ("outputs", (7, 8))]:
        assert getattr(t, name).shape == shape, name
    np.testing.assert_allclose(t.head_weights.sum(axis=-1), 1.0, atol=1e-12)
    assert np.all(t.head_weights[:, ~np.tril(np.ones((7, 7), dtype=bool))] == 0)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 6), seed=st.integers(0, 10_000))
def test_permutation_equivariance(n, seed):
    x, w_q, w_k, w_v, w_o = random_case(n, 8, seed=seed)
    perm = np.random.default_rng(seed).permutation(n)
    a = multi_head_attention(x, w_q, w_k, w_v, w_o, 2).outputs
    b = multi_head_attention(x[perm], w_q, w_k, w_v, w_o, 2).outputs
    np.testing.assert_allclose(b, a[perm], atol=1e-10)


shapes = st.tuples(st.integers(1, 6), st.integers(1, 5), st.integers(1, 5))  # n, h, head_dim


@settings(max_examples=60, deadline=None)
@given(shape=shapes, seed=st.integers(0, 10_000))
def test_split_merge_round_trip(shape, seed):
    n, h, head_dim = shape
    x = np.random.default_rng(seed).normal(size=(n, h * head_dim))
    heads = split_heads(x, h)
    assert heads.shape == (h, n, head_dim)
    for i in range(h):  # head i owns columns [i * head_dim, (i + 1) * head_dim)
        np.testing.assert_array_equal(heads[i], x[:, i * head_dim:(i + 1) * head_dim])
    np.testing.assert_array_equal(merge_heads(heads), x)
    np.testing.assert_array_equal(split_heads(merge_heads(heads), h), heads)


@settings(max_examples=60, deadline=None)
@given(shape=shapes)
def test_bare_reshape_has_the_right_shape_but_mixes_tokens(shape):
    n, h, head_dim = shape
    x = np.arange(n * h * head_dim, dtype=float).reshape(n, h * head_dim)
    wrong = split_heads_bare_reshape(x, h)
    assert wrong.shape == split_heads(x, h).shape
    np.testing.assert_array_equal(merge_heads_bare_reshape(wrong), x)  # it only inverts itself
    same = np.array_equal(wrong, split_heads(x, h))
    assert same == (h == 1 or n == 1)


@pytest.mark.parametrize("mistake", MISTAKES)
def test_mistakes_change_the_answer_but_not_the_shapes(mistake):
    x, w_q, w_k, w_v, w_o = random_case(6, 8, seed=5)
    right = multi_head_attention(x, w_q, w_k, w_v, w_o, 4)
    wrong = multi_head_attention_with_mistake(x, w_q, w_k, w_v, w_o, 4, mistake=mistake)
    assert wrong.mistake == mistake and right.mistake is None
    for name in ("head_weights", "head_outputs", "concat", "outputs"):
        assert getattr(wrong, name).shape == getattr(right, name).shape
    assert np.abs(wrong.outputs - right.outputs).max() > 0.05


def test_scale_after_softmax_weights_sum_to_one_over_sqrt_head_dim():
    x, w_q, w_k, w_v, w_o = random_case(5, 8, seed=6)
    wrong = multi_head_attention_with_mistake(x, w_q, w_k, w_v, w_o, 2, mistake="scale_after_softmax")
    np.testing.assert_allclose(wrong.head_weights.sum(axis=-1), 1 / np.sqrt(4), atol=1e-12)
    unscaled = multi_head_attention(x, w_q, w_k, w_v, w_o, 2, scale=False)
    np.testing.assert_allclose(wrong.head_weights * 2, unscaled.head_weights, atol=1e-12)


def test_bare_reshape_is_harmless_with_one_head():
    case = random_case(5, 6, seed=7)
    right = multi_head_attention(*case, 1)
    wrong = multi_head_attention_with_mistake(*case, 1, mistake="bare_reshape")
    np.testing.assert_allclose(wrong.outputs, right.outputs, atol=1e-12)


@pytest.mark.parametrize(
    "call, code, params",
    [
        (lambda c: multi_head_attention(*c, 3), "heads_not_divisible", {"d_model": 8, "num_heads": 3}),
        (lambda c: multi_head_attention(*c, 0), "heads_not_positive", {"num_heads": "0"}),
        (lambda c: multi_head_attention(*c, 2.5), "heads_not_positive", {"num_heads": "2.5"}),
        (lambda c: multi_head_attention(c[0], c[1][:, :4], *c[2:], 2), "weight_shape",
         {"name": "W_q", "expected": "(8, 8)", "got": "(8, 4)"}),
        (lambda c: multi_head_attention_with_mistake(*c, 2, mistake="typo"), "unknown_mistake",
         {"mistake": "typo", "allowed": "bare_reshape, scale_after_softmax"}),
        (lambda c: split_heads(c[0], 3), "heads_not_divisible", {"d_model": 8, "num_heads": 3}),
        (lambda c: multi_head_attention(c[0] * 1e155, *c[1:], 2), "overflow", {}),
        (lambda c: multi_head_attention(c[0], *c[1:], 2, mask="sideways"), "mask_kind", {}),
        (lambda c: merge_heads(c[0]), "wrong_ndim", {"name": "heads", "ndim": 3, "shape": "(4, 8)"}),
    ],
)
def test_bad_input_raises_input_error_with_code(call, code, params):
    with pytest.raises(InputError) as info:
        call(random_case(4, 8))
    assert info.value.code == code
    assert info.value.params == params
