"""Positional encodings and word order: the formula written again here, torch, and hypothesis properties.

Self-attention without positions is permutation-equivariant (shuffle the tokens, the outputs move
with them); with positions added, or with a causal mask, it is not.
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from selfattn import positional_encoding, self_attention, shuffle_check
from selfattn.core.positions import inverse, parse_order, random_order
from selfattn.errors import InputError
from selfattn.i18n import CATALOG


def formula(n: int, d: int) -> list[list[float]]:
    """Vaswani et al. 2017, one number at a time with the math module: no numpy, no vectors."""
    rows = []
    for pos in range(n):
        row = []
        for col in range(d):
            i = col // 2
            angle = pos / 10000 ** (2 * i / d)
            row.append(math.sin(angle) if col % 2 == 0 else math.cos(angle))
        rows.append(row)
    return rows


@pytest.mark.parametrize("n, d", [(1, 1), (3, 4), (7, 5), (32, 16), (50, 127), (64, 384)])
def test_sinusoidal_matches_the_formula_written_out(n, d):
    pe = positional_encoding(n, d)
    assert pe.dtype == np.float64 and pe.shape == (n, d)
    # numpy's and libm's powers may differ in the last bit of the angle, which is up to n: a few ulps of n
    np.testing.assert_allclose(pe, formula(n, d), rtol=0, atol=4 * np.spacing(float(n)))


def test_sinusoidal_matches_the_torch_recipe():
    """The usual torch recipe (exp of -log(10000)·2i/d, as in PyTorch's tutorials), in float64."""
    n, d = 40, 16
    position = torch.arange(n, dtype=torch.float64).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d, 2, dtype=torch.float64) * (-math.log(10000.0) / d))
    want = torch.zeros(n, d, dtype=torch.float64)
    want[:, 0::2] = torch.sin(position * div_term)
    want[:, 1::2] = torch.cos(position * div_term)
    np.testing.assert_allclose(positional_encoding(n, d), want.numpy(), rtol=0, atol=1e-13)


def test_the_first_position_and_known_values():
    pe = positional_encoding(3, 4)
    assert pe[0].tolist() == [0.0, 1.0, 0.0, 1.0]  # sin 0, cos 0
    assert pe[1, 0] == math.sin(1.0) and pe[1, 1] == math.cos(1.0)
    assert pe[2, 2] == pytest.approx(math.sin(2 / 100), abs=1e-16)  # 10000^(2/4) = 100


def test_odd_width_ends_with_a_sine():
    pe = positional_encoding(5, 3)
    np.testing.assert_allclose(pe[:, 2], np.sin(np.arange(5) / 10000 ** (2 / 3)), atol=1e-16)


def test_learned_style_is_seeded_standard_normal_rounded():
    a, b, c = positional_encoding(6, 4, "learned", seed=7), positional_encoding(6, 4, "learned", seed=7), \
        positional_encoding(6, 4, "learned", seed=8)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    np.testing.assert_array_equal(a, np.round(np.random.default_rng(7).standard_normal((6, 4)), 3))
    np.testing.assert_array_equal(positional_encoding(2, 3, "none"), np.zeros((2, 3)))


@pytest.mark.parametrize("args, code", [((0, 4), "pos_whole"), ((3, 0), "pos_whole"), ((2.5, 4), "pos_whole"),
                                        ((True, 4), "pos_whole"), (("3", 4), "pos_whole"),
                                        ((3, 4, "cosine"), "pos_kind"), ((3, 4, "learned", -1), "pos_whole"),
                                        ((10_000, 10_000), "pos_too_big")])
def test_bad_arguments_raise_input_errors_the_catalog_explains(args, code):
    with pytest.raises(InputError) as caught:
        positional_encoding(*args)
    assert caught.value.code == code
    for lang in ("en", "zh"):
        CATALOG[f"err.{code}"][lang].format(**caught.value.params)


# ── Orders ───────────────────────────────────────────────────────────────────────────

def test_parse_order_reads_every_separator_and_counts_from_one():
    assert parse_order("3 1 2", 3).tolist() == [2, 0, 1]
    assert parse_order("3,1,2", 3).tolist() == [2, 0, 1]
    assert parse_order(" 3，1、2 ", 3).tolist() == [2, 0, 1]
    assert parse_order("", 4).tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("text, code", [("3 1", "order_length"), ("1 2 2", "order_repeat"), ("0 1 2", "order_range"),
                                        ("1 2 4", "order_range"), ("a b c", "order_not_numbers"),
                                        ("1 2 ３", "order_not_numbers"), ("1.0 2 3", "order_not_numbers"),
                                        ("1 " * 300, "order_too_long")])
def test_parse_order_says_what_is_wrong(text, code):
    with pytest.raises(InputError) as caught:
        parse_order(text, 3)
    assert caught.value.code == code
    for lang in ("en", "zh"):
        CATALOG[f"err.{code}"][lang].format(**caught.value.params)


def test_repeat_names_the_missing_token():
    with pytest.raises(InputError) as caught:
        parse_order("2 2 3", 3)
    assert caught.value.params == {"value": 2, "missing": 1}


@given(st.integers(1, 40), st.integers(0, 2**31 - 1))
def test_random_order_is_a_real_shuffle_and_inverse_undoes_it(n, seed):
    order = random_order(n, seed)
    assert sorted(order.tolist()) == list(range(n))
    assert n == 1 or order.tolist() != list(range(n))
    np.testing.assert_array_equal(order[inverse(order)], np.arange(n))
    np.testing.assert_array_equal(random_order(n, seed), order)


# ── Permutation equivariance ───────────────────────────────────────────────────────────

@st.composite
def problems(draw, min_n=1):
    """Random sizes, matrices, biases or none, scaling on or off, and an order of the tokens."""
    n = draw(st.integers(min_n, 12))
    d_in, d_k, d_v = draw(st.integers(1, 8)), draw(st.integers(1, 8)), draw(st.integers(1, 8))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kwargs = {"w_q": rng.normal(size=(d_in, d_k)), "w_k": rng.normal(size=(d_in, d_k)),
              "w_v": rng.normal(size=(d_in, d_v)), "scale": draw(st.booleans())}
    if draw(st.booleans()):
        kwargs.update(b_q=rng.normal(size=d_k), b_k=rng.normal(size=d_k), b_v=rng.normal(size=d_v))
    x = rng.normal(size=(n, d_in))
    order = np.array(draw(st.permutations(range(n))), dtype=int)
    return x, order, kwargs


@settings(max_examples=200, deadline=None)
@given(problems())
def test_without_positions_every_output_row_moves_with_its_token(problem):
    x, order, kwargs = problem
    before = self_attention(x, **kwargs).outputs
    after = self_attention(x[order], **kwargs).outputs
    np.testing.assert_allclose(after, before[order], rtol=0, atol=1e-12 * max(1.0, np.abs(before).max()))
    check = shuffle_check(x, order, **kwargs)
    assert check.equivariant and check.max_diff <= check.tolerance
    for i in range(len(x)):  # old token i's output is in new row where[i]
        np.testing.assert_allclose(check.after.outputs[check.where[i]], before[i], rtol=0,
                                   atol=1e-12 * max(1.0, np.abs(before).max()))
    np.testing.assert_array_equal(check.after.outputs, after)


@settings(max_examples=100, deadline=None)
@given(problems(min_n=2), st.sampled_from(["sinusoidal", "learned"]), st.integers(0, 1000))
def test_with_positions_a_swap_changes_the_outputs(problem, kind, seed):
    x, _, kwargs = problem
    n, d_in = x.shape
    swap = np.arange(n)
    swap[[0, 1]] = [1, 0]  # the first two tokens trade places
    pe = positional_encoding(n, d_in, kind, seed)
    if np.allclose(pe[0], pe[1]):  # d_in = 1, learned: two draws may round alike; sinusoidal never does
        return
    check = shuffle_check(x, swap, pe=pe, **kwargs)
    assert not check.equivariant
    assert check.max_diff > 1e-9  # a real difference, far above rounding
    np.testing.assert_array_equal(check.before.x, x + pe)
    np.testing.assert_array_equal(check.after.x, x[swap] + pe)  # positions stay, tokens move


@settings(max_examples=100, deadline=None)
@given(problems(min_n=2))
def test_a_causal_mask_is_not_equivariant(problem):
    """Token 1 sees only itself; after a swap it is second and sees the other token too."""
    x, _, kwargs = problem
    n = len(x)
    swap = np.arange(n)
    swap[[0, 1]] = [1, 0]
    check = shuffle_check(x, swap, mask="causal", **kwargs)
    v, w = check.before.values, check.before.weights
    # Before, token 2 mixed v1 and v2 with weights w[1, 0] and w[1, 1]; now first, it sees only itself: its
    # output is v2, off from before by exactly w[1, 0]·|v2 − v1| (the weight it gave token 1).
    np.testing.assert_allclose(check.after.outputs[0], v[1], rtol=1e-12, atol=1e-12)
    gap = w[1, 0] * np.abs(v[1] - v[0]).max()
    assert check.row_diff[0] == pytest.approx(gap, rel=1e-9, abs=1e-12)
    if gap > 1e-9:  # token 2 gave token 1 a weight that matters (a saturated softmax may give it ~0)
        # the difference of two nearly equal rows carries ~1e-16 of rounding whatever its size: absolute slack too
        assert not check.equivariant and check.max_diff >= gap * (1 - 1e-9) - 1e-12


def test_the_causal_mask_is_equivariant_only_for_the_order_as_it_is():
    rng = np.random.default_rng(3)
    x, w = rng.normal(size=(4, 3)), rng.normal(size=(3, 3))
    assert shuffle_check(x, np.arange(4), w_q=w, w_k=w, w_v=w, mask="causal").equivariant
    assert not shuffle_check(x, np.array([3, 2, 1, 0]), w_q=w, w_k=w, w_v=w, mask="causal").equivariant


def test_shuffle_check_agrees_with_torch_sdpa_with_positions():
    rng = np.random.default_rng(5)
    n, d = 6, 8
    x, w_q, w_k = rng.normal(size=(n, d)), rng.normal(size=(d, 4)), rng.normal(size=(d, 4))
    w_v = rng.normal(size=(d, 5))
    pe, order = positional_encoding(n, d), np.array([5, 3, 1, 0, 2, 4])
    check = shuffle_check(x, order, pe=pe, w_q=w_q, w_k=w_k, w_v=w_v, scale=True)
    for rows, trace in ((x + pe, check.before), (x[order] + pe, check.after)):
        t = torch.from_numpy(rows)
        q, k, v = t @ torch.from_numpy(w_q), t @ torch.from_numpy(w_k), t @ torch.from_numpy(w_v)
        want = torch.nn.functional.scaled_dot_product_attention(q[None], k[None], v[None])[0]
        np.testing.assert_allclose(trace.outputs, want.numpy(), rtol=0, atol=1e-13)
    assert check.max_diff == pytest.approx(np.abs(check.after.outputs - check.before.outputs[order]).max(), abs=0)


def test_shuffle_check_refuses_what_is_not_an_order():
    x = np.ones((3, 2))
    for bad in ([0, 1], [0, 0, 1], [0.0, 1.0, 2.0], [1, 2, 3]):
        with pytest.raises(InputError) as caught:
            shuffle_check(x, np.array(bad), w_q=np.eye(2), w_k=np.eye(2), w_v=np.eye(2))
        assert caught.value.code == "order_bad"
    with pytest.raises(InputError) as caught:
        shuffle_check(x, np.arange(3), pe=np.zeros((3, 3)), w_q=np.eye(2), w_k=np.eye(2), w_v=np.eye(2))
    assert caught.value.code == "pos_shape"
