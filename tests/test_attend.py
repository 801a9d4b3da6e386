"""The kernel ``attend`` against PyTorch, rectangular masks, and the one place the maths goes through."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from selfattn.core.attention import attend, causal_mask, resolve_mask, score_scale, self_attention
from selfattn.core.checks import as_bias, check_heads, check_overflow
from selfattn.core.heads import (MISTAKE_STEPS, MISTAKES, attend_scaling_after_softmax, multi_head_attention,
                                 multi_head_attention_with_mistake)
from selfattn.core.torch_attention import build_attention
from selfattn.errors import InputError


def qkv(rng, lead, n_q, n_k, d_k, d_v):
    """Random q (*lead, n_q, d_k), k (*lead, n_k, d_k), v (*lead, n_k, d_v)."""
    return (rng.standard_normal((*lead, n_q, d_k)), rng.standard_normal((*lead, n_k, d_k)),
            rng.standard_normal((*lead, n_k, d_v)))


def some_mask(rng, n_q, n_k):
    """A random (n_q, n_k) bool mask in which every query keeps at least one key."""
    mask = rng.random((n_q, n_k)) < 0.5
    mask[np.arange(n_q), rng.integers(0, n_k, n_q)] = True
    return mask


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("lead", [(), (3,), (2, 4)])  # one matrix, heads, batch x heads
def test_agrees_with_torch_sdpa_on_rectangular_batched_inputs(seed, masked, lead):
    rng = np.random.default_rng(seed)
    n_q, n_k = 1 + seed % 4, 2 + 2 * seed  # more keys than queries, and (seed 0, 1) fewer
    d_k, d_v = rng.integers(1, 7, 2)
    q, k, v = qkv(rng, lead, n_q, n_k, d_k, d_v)
    mask = some_mask(rng, n_q, n_k) if masked else None
    got = attend(q, k, v, scale=score_scale(d_k), mask=mask)

    tq, tk, tv = (torch.from_numpy(a) for a in (q, k, v))
    tmask = None if mask is None else torch.from_numpy(mask)  # True = may attend, as ours
    expected = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=tmask).numpy()
    scores = (tq @ tk.transpose(-2, -1) / np.sqrt(d_k))
    if tmask is not None:
        scores = scores.masked_fill(~tmask, float("-inf"))
    assert got.outputs.shape == (*lead, n_q, d_v)
    np.testing.assert_allclose(got.outputs, expected, atol=1e-12, rtol=0)
    np.testing.assert_allclose(got.weights, torch.softmax(scores, dim=-1).numpy(), atol=1e-12, rtol=0)
    np.testing.assert_allclose(got.weights.sum(axis=-1), 1.0, atol=1e-12)
    if mask is not None:  # the same mask for every leading index
        assert np.all(got.weights[..., ~mask] == 0) and np.all(np.isneginf(got.scaled_scores[..., ~mask]))


def test_keeps_its_steps():
    rng = np.random.default_rng(0)
    q, k, v = qkv(rng, (2,), 3, 5, 4, 2)
    mask = some_mask(rng, 3, 5)
    got = attend(q, k, v, scale=2.0, mask=mask)
    np.testing.assert_array_equal(got.scores, q @ k.transpose(0, 2, 1))
    np.testing.assert_array_equal(got.scaled_scores, np.where(mask, got.scores / 2.0, -np.inf))
    np.testing.assert_array_equal(got.outputs, got.weights @ v)
    unmasked = attend(q, k, v)
    np.testing.assert_array_equal(unmasked.scaled_scores, unmasked.scores)  # scale 1, nothing hidden


def test_one_key_gets_all_the_weight():
    rng = np.random.default_rng(1)
    q, k, v = qkv(rng, (), 4, 1, 3, 2)
    got = attend(q, k, v)
    np.testing.assert_array_equal(got.weights, np.ones((4, 1)))
    np.testing.assert_allclose(got.outputs, np.repeat(v, 4, axis=0), rtol=1e-15)


# ── resolve_mask ────────────────────────────────────────────────────────────────────

def test_resolve_mask_rectangular():
    assert resolve_mask(None, 2, 5).shape == (2, 5) and resolve_mask(None, 2, 5).all()
    mask = np.array([[True, False, False], [False, False, True]])
    np.testing.assert_array_equal(resolve_mask(mask, 2, 3), mask)
    np.testing.assert_array_equal(resolve_mask(torch.from_numpy(mask), 2, 3), mask)
    np.testing.assert_array_equal(resolve_mask("causal", 4), causal_mask(4))  # n_k defaults to n_q
    np.testing.assert_array_equal(resolve_mask("causal", 4, 4), causal_mask(4))


@pytest.mark.parametrize("mask, n_q, n_k, code, params", [
    (np.ones((3, 2), bool), 2, 3, "mask_shape", {"n": 2, "shape": "(3, 2)"}),  # transposed
    (np.ones((2, 2), bool), 2, 3, "mask_shape", {"n": 2, "shape": "(2, 2)"}),
    (np.ones((3, 3), bool), 3, None, None, None),
    (np.ones((3, 3), bool), 2, None, "mask_shape", {"n": 2, "shape": "(3, 3)"}),
    ("causal", 2, 3, "mask_shape", {"n": 2, "shape": "(2, 3)"}),  # causal needs as many queries as keys
    ("sideways", 2, 3, "mask_kind", {}),
    (np.ones((2, 3), int), 2, 3, "mask_kind", {}),
    (np.array([[True, True, False], [False, False, False]]), 2, 3, "mask_empty_row", {"row": 2}),
])
def test_resolve_mask_errors(mask, n_q, n_k, code, params):
    if code is None:
        assert resolve_mask(mask, n_q, n_k).shape == (n_q, n_q)
        return
    with pytest.raises(InputError) as info:
        resolve_mask(mask, n_q, n_k)
    assert (info.value.code, info.value.params) == (code, params)
    assert str(info.value)


def test_a_rectangular_mask_works_end_to_end():
    """What a cross-attention page would do: 2 queries over 4 keys, with a (2, 4) mask."""
    rng = np.random.default_rng(5)
    q, k, v = qkv(rng, (), 2, 4, 3, 3)
    allowed = resolve_mask(np.array([[True, True, False, False], [False, True, True, True]]), 2, 4)
    got = attend(q, k, v, scale=score_scale(3), mask=allowed)
    assert got.weights.shape == (2, 4) and np.all(got.weights[~allowed] == 0)
    np.testing.assert_allclose(got.weights.sum(axis=1), 1.0, atol=1e-15)


# ── The pages' maths goes through attend ───────────────────────────────────────────

@pytest.mark.parametrize("mask", [None, "causal"])
@pytest.mark.parametrize("scale", [True, False])
def test_self_attention_is_attend_on_the_projections(mask, scale):
    rng = np.random.default_rng(2)
    x, w_q, w_k, w_v = rng.standard_normal((5, 4)), *(rng.standard_normal((4, d)) for d in (3, 3, 2))
    b_q, b_k, b_v = rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal(2)
    trace = self_attention(x, w_q, w_k, w_v, b_q=b_q, b_k=b_k, b_v=b_v, scale=scale, mask=mask)
    q, k, v = x @ w_q + b_q, x @ w_k + b_k, x @ w_v + b_v
    direct = attend(q, k, v, scale=np.sqrt(3) if scale else 1.0, mask=resolve_mask(mask, 5))
    np.testing.assert_array_equal(trace.queries, q)
    for name in ("scores", "scaled_scores", "weights"):
        np.testing.assert_array_equal(getattr(trace, name), getattr(direct, name), err_msg=name)
    # The trace sums its weighted values (the Playground's last step); attend multiplies.
    np.testing.assert_allclose(trace.outputs, direct.outputs, rtol=1e-14, atol=1e-15)


def test_no_bias_adds_nothing_not_even_to_the_sign_of_a_zero():
    a = np.array([[-0.0, 0.0, -1.5, 2.0]])
    assert (a + as_bias(None, "b_q", 4)).tobytes() == a.tobytes()
    assert (a + np.zeros(4)).tobytes() != a.tobytes()  # why no bias is not zeros: -0.0 + 0.0 is +0.0
    with pytest.raises(InputError) as info:
        as_bias([1.0, 2.0], "b_v", 3)
    assert (info.value.code, info.value.params) == ("bias_len", {"name": "b_v", "width": 3, "got": 2})


@pytest.mark.parametrize("mistake", [None, *MISTAKES])
def test_multi_head_is_attend_batched_over_heads(mistake):
    rng = np.random.default_rng(3)
    x, w_q, w_k, w_v, w_o = rng.standard_normal((6, 8)), *(rng.standard_normal((8, 8)) / 3 for _ in range(4))
    args = (x, w_q, w_k, w_v, w_o, 4)
    if mistake is None:
        trace = multi_head_attention(*args, mask="causal")
        kernel = attend
    else:
        trace = multi_head_attention_with_mistake(*args, mistake=mistake, mask="causal")
        kernel = MISTAKE_STEPS[mistake].attend
    direct = kernel(trace.queries, trace.keys, trace.values, scale=np.sqrt(2), mask=causal_mask(6))
    for ours, theirs in (("head_scores", "scores"), ("head_scaled_scores", "scaled_scores"),
                         ("head_weights", "weights"), ("head_outputs", "outputs")):
        np.testing.assert_array_equal(getattr(trace, ours), getattr(direct, theirs), err_msg=ours)
    for i in range(4):  # the batched call is the per-head call
        one = kernel(trace.queries[i], trace.keys[i], trace.values[i], scale=np.sqrt(2), mask=causal_mask(6))
        np.testing.assert_allclose(trace.head_outputs[i], one.outputs, rtol=0, atol=1e-14)


def test_the_mistakes_table():
    assert MISTAKES == ("bare_reshape", "scale_after_softmax")  # pages show MISTAKES[0] first
    assert MISTAKE_STEPS["bare_reshape"].attend is attend
    assert MISTAKE_STEPS["scale_after_softmax"].attend is attend_scaling_after_softmax
    rng = np.random.default_rng(4)
    q, k, v = qkv(rng, (2,), 4, 4, 3, 3)
    wrong, unscaled = attend_scaling_after_softmax(q, k, v, scale=4.0), attend(q, k, v)
    np.testing.assert_array_equal(wrong.weights, unscaled.weights / 4.0)
    np.testing.assert_allclose(wrong.weights.sum(axis=-1), 0.25, atol=1e-15)
    np.testing.assert_array_equal(wrong.outputs, wrong.weights @ v)


# ── One heads check, one overflow check ────────────────────────────────────────────

@pytest.mark.parametrize("num_heads, code, params", [
    (4, None, None),
    (np.int64(2), None, None),
    (3, "heads_not_divisible", {"d_model": 8, "num_heads": 3}),
    (0, "heads_not_positive", {"num_heads": "0"}),
    (True, "heads_not_positive", {"num_heads": "True"}),
    (2.0, "heads_not_positive", {"num_heads": "2.0"}),
])
def test_one_heads_check_for_numpy_and_torch(num_heads, code, params):
    if code is None:
        assert check_heads(8, num_heads) == num_heads and type(check_heads(8, num_heads)) is int
        return
    for call in (lambda: check_heads(8, num_heads), lambda: build_attention("naive", 8, num_heads),
                 lambda: multi_head_attention(np.ones((2, 8)), *np.eye(8)[None].repeat(4, 0), num_heads)):
        with pytest.raises(InputError) as info:
            call()
        assert (info.value.code, info.value.params) == (code, params)


def test_one_overflow_check():
    check_overflow(np.ones(3), np.zeros((2, 2)))
    for bad in (np.inf, -np.inf, np.nan):
        with pytest.raises(InputError) as info:
            check_overflow(np.ones(3), np.array([[1.0, bad]]))
        assert info.value.code == "overflow" and info.value.params == {}
    zeros, eye = np.zeros((2, 2)), np.eye(2)
    with pytest.raises(InputError) as info:  # scores and values finite; only concat @ W_o overflows
        multi_head_attention(np.full((2, 2), 1e300), zeros, zeros, eye, eye * 1e10, 1)
    assert info.value.code == "overflow"
