"""self_attention against the tutorial's printed numbers, PyTorch's own attention, and invariants."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from selfattn import self_attention
from selfattn.core.presets import preset, raw_example, tutorial_example
from selfattn.errors import InputError


def run_example(example, **kw):
    return self_attention(example.x, example.w_q, example.w_k, example.w_v, **kw)


def test_tutorial_worked_example_unscaled():
    trace = run_example(tutorial_example(), scale=False)
    np.testing.assert_array_equal(trace.keys, [[0, 1, 1], [4, 4, 0], [2, 3, 1]])
    np.testing.assert_array_equal(trace.queries, [[1, 0, 2], [2, 2, 2], [2, 1, 3]])
    np.testing.assert_array_equal(trace.values, [[1, 2, 3], [2, 8, 0], [2, 6, 3]])
    np.testing.assert_array_equal(trace.scores, [[2, 4, 4], [4, 16, 12], [4, 12, 10]])
    np.testing.assert_allclose(trace.weights[0], [0.0633789, 0.4683105, 0.4683105], atol=5e-8)
    # The pure-Python version in seed 000 prints these to 16 digits.
    printed = [[1.9366210616669624, 6.683105308334811, 1.5950684074995565],
               [1.9999939663351456, 7.9639915951322156, 0.0539764053125496],
               [1.9997046127769653, 7.759892254657784, 0.3583892946751152]]
    np.testing.assert_allclose(trace.outputs, printed, rtol=1e-14)
    np.testing.assert_allclose(trace.outputs, [[1.936621, 6.683105, 1.595068],
                                               [1.999994, 7.963992, 0.053976],
                                               [1.999705, 7.759892, 0.358389]], atol=5e-7)
    # Step 6 for input 1: weight_j * value_j, and step 7 sums them.
    np.testing.assert_allclose(trace.weighted_values[0, 1], 0.4683105 * np.array([2, 8, 0]), atol=1e-6)
    np.testing.assert_allclose(trace.weighted_values.sum(axis=1), trace.outputs, rtol=1e-15)


def test_raw_form_is_softmax_of_xxt_times_x():
    ex = raw_example()
    trace = run_example(ex, scale=False)
    xxt = ex.x @ ex.x.T
    expected = np.exp(xxt) / np.exp(xxt).sum(axis=1, keepdims=True) @ ex.x
    np.testing.assert_allclose(trace.outputs, expected, rtol=1e-13)


def sdpa(trace_inputs, scale, mask):
    """PyTorch's scaled_dot_product_attention in float64 on the same projections."""
    x, w_q, w_k, w_v, b_q, b_k, b_v = (torch.tensor(a, dtype=torch.float64) for a in trace_inputs)
    q, k, v = x @ w_q + b_q, x @ w_k + b_k, x @ w_v + b_v
    attn_mask = None if mask is None else torch.as_tensor(mask)
    return F.scaled_dot_product_attention(q[None], k[None], v[None], attn_mask=attn_mask,
                                          scale=None if scale else 1.0)[0].numpy()


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("scale", [True, False])
@pytest.mark.parametrize("mask_kind", ["none", "causal", "bool"])
@pytest.mark.parametrize("bias", [False, True])
def test_agrees_with_torch_sdpa(seed, scale, mask_kind, bias):
    rng = np.random.default_rng(seed)
    n, d_in, d_k, d_v = rng.integers(1, 9), rng.integers(1, 9), rng.integers(1, 9), rng.integers(1, 9)
    x = rng.standard_normal((n, d_in))
    w_q, w_k, w_v = (rng.standard_normal((d_in, d)) for d in (d_k, d_k, d_v))
    b = [rng.standard_normal(d) if bias else np.zeros(d) for d in (d_k, d_k, d_v)]
    if mask_kind == "none":
        mask = None
    elif mask_kind == "causal":
        mask = np.tril(np.ones((n, n), dtype=bool))
    else:
        mask = rng.random((n, n)) < 0.6
        mask[np.arange(n), rng.integers(0, n, n)] = True  # every row keeps something
    trace = self_attention(x, w_q, w_k, w_v, b_q=b[0] if bias else None, b_k=b[1] if bias else None,
                           b_v=b[2] if bias else None, scale=scale,
                           mask="causal" if mask_kind == "causal" else mask)
    expected = sdpa((x, w_q, w_k, w_v, *b), scale, mask)
    assert trace.outputs.shape == (n, d_v)
    np.testing.assert_allclose(trace.outputs, expected, atol=1e-10, rtol=0)
    np.testing.assert_allclose(trace.weights.sum(axis=1), 1.0, atol=1e-12)


def test_causal_mask_zeroes_the_upper_triangle():
    ex = preset("random", seed=3, n=6, d_in=4, d_k=3, d_v=2)
    trace = run_example(ex, mask="causal")
    assert np.all(trace.weights[np.triu_indices(6, k=1)] == 0)
    assert np.all(np.isneginf(trace.scaled_scores[np.triu_indices(6, k=1)]))
    np.testing.assert_allclose(trace.outputs[0], trace.values[0], rtol=1e-14)  # token 1 sees only itself


def test_scaling_divides_scores_by_sqrt_dk():
    ex = preset("random", seed=1, n=4, d_in=5, d_k=9, d_v=3)
    trace = run_example(ex, scale=True)
    assert trace.scale_factor == 3.0
    np.testing.assert_allclose(trace.scaled_scores, trace.scores / 3.0, rtol=1e-15)


def test_huge_scores_stay_finite():
    x = np.array([[100.0, 0.0], [0.0, 100.0]])
    trace = self_attention(x, np.eye(2), np.eye(2), np.eye(2), scale=False)  # scores of 1e4
    assert np.all(np.isfinite(trace.weights))
    np.testing.assert_allclose(trace.weights, np.eye(2), atol=1e-300)


def test_accepts_lists_numpy_and_torch():
    ex = tutorial_example()
    as_torch = [torch.tensor(a, dtype=torch.float32) for a in (ex.x, ex.w_q, ex.w_k, ex.w_v)]
    a = self_attention(*as_torch, scale=False)
    b = self_attention(ex.x.tolist(), ex.w_q.tolist(), ex.w_k.tolist(), ex.w_v.tolist(), scale=False)
    np.testing.assert_allclose(a.outputs, b.outputs, rtol=1e-12)
    assert a.outputs.dtype == np.float64


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 7), st.integers(1, 6), st.integers(1, 6), st.integers(0, 10_000), st.booleans())
def test_permuting_tokens_permutes_outputs(n, d, d_v, seed, scale):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d))
    w_q, w_k, w_v = rng.standard_normal((d, d)), rng.standard_normal((d, d)), rng.standard_normal((d, d_v))
    perm = rng.permutation(n)
    out = self_attention(x, w_q, w_k, w_v, scale=scale).outputs
    out_perm = self_attention(x[perm], w_q, w_k, w_v, scale=scale).outputs
    np.testing.assert_allclose(out_perm, out[perm], atol=1e-10)


@pytest.mark.parametrize("args, kwargs, code", [
    (([[1, 2]], [[1], [1]], [[1], [1], [1]], [[1], [1]]), {}, "rows_mismatch"),
    (([[1, 2]], [[1, 2], [1, 2]], [[1], [1]], [[1], [1]]), {}, "dk_mismatch"),
    (([[1, np.nan]], np.eye(2), np.eye(2), np.eye(2)), {}, "not_finite"),
    (([[1, np.inf]], np.eye(2), np.eye(2), np.eye(2)), {}, "not_finite"),
    (([["a", 1]], np.eye(2), np.eye(2), np.eye(2)), {}, "not_numeric"),
    (([1, 2], np.eye(2), np.eye(2), np.eye(2)), {}, "wrong_ndim"),
    ((np.zeros((0, 2)), np.eye(2), np.eye(2), np.eye(2)), {}, "empty"),
    ((np.eye(2), np.eye(2), np.eye(2), np.eye(2)), {"mask": np.array([[True, False], [False, False]])},
     "mask_empty_row"),
    ((np.eye(2), np.eye(2), np.eye(2), np.eye(2)), {"mask": np.ones((3, 3), bool)}, "mask_shape"),
    ((np.eye(2), np.eye(2), np.eye(2), np.eye(2)), {"mask": "upper"}, "mask_kind"),
    ((np.eye(2), np.eye(2), np.eye(2), np.eye(2)), {"b_q": [1, 2, 3]}, "bias_len"),
    ((np.eye(2) * 1e200, np.eye(2) * 1e200, np.eye(2), np.eye(2)), {}, "overflow"),
])
def test_bad_input_raises_a_clear_error(args, kwargs, code):
    with pytest.raises(InputError) as info:
        self_attention(*args, **kwargs)
    assert info.value.code == code
    assert str(info.value)  # a sentence a person can read
