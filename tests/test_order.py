"""Same words, another order: matching the tokens of two sentences, and attention over static and contextual vectors.

The contextual vectors are checked against the model run by transformers directly (its own
tokenizer and ``output_hidden_states``); the attention against torch's softmax.
"""

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from selfattn import embed, raw_self_attention
from selfattn.core.attention import unit_rows
from selfattn.core.positions import match_order, reorder_check
from selfattn.errors import InputError
from selfattn.text import models


def test_match_order_maps_the_second_sentence_onto_the_first():
    assert match_order(["dog", "bites", "man"], ["man", "bites", "dog"]).tolist() == [2, 1, 0]
    assert match_order(["狗", "咬", "人"], ["人", "咬", "狗"]).tolist() == [2, 1, 0]
    assert match_order(["a", "b", "a"], ["a", "a", "b"]).tolist() == [0, 2, 1]  # repeats matched in turn


@given(st.lists(st.sampled_from(list("abcde")), min_size=1, max_size=12), st.randoms())
def test_match_order_finds_any_shuffle(tokens, rnd):
    shuffled = list(tokens)
    rnd.shuffle(shuffled)
    order = match_order(tokens, shuffled)
    assert [tokens[i] for i in order] == shuffled and sorted(order.tolist()) == list(range(len(tokens)))


@pytest.mark.parametrize("first, second, only_first, only_second", [
    (["dog", "bites", "man"], ["man", "bites", "cat"], "dog", "cat"),
    (["a", "a", "b"], ["a", "b"], "a", "—"),
    (["a"], ["a", "a"], "—", "a")])
def test_not_the_same_tokens_is_named(first, second, only_first, only_second):
    with pytest.raises(InputError) as caught:
        match_order(first, second)
    assert caught.value.code == "order_not_same_tokens"
    assert caught.value.params == {"only_first": only_first, "only_second": only_second}


def softmax_weights(x: np.ndarray) -> np.ndarray:
    """Softmax(XXᵀ) by torch, row by row."""
    t = torch.from_numpy(x)
    return torch.softmax(t @ t.T, dim=-1).numpy()


@pytest.mark.parametrize("first, second, source", [("狗咬人", "人咬狗", "charvec"),
                                                   ("dog bites man", "man bites dog", "minilm")])
def test_static_vectors_give_the_same_attention_permuted(first, second, source):
    a, b = embed(first, source, kind="static"), embed(second, source, kind="static")
    order = match_order(a.tokens, b.tokens)
    np.testing.assert_array_equal(b.vectors, a.vectors[order])  # a lookup table: the same rows, moved
    check = reorder_check(unit_rows(a.vectors), unit_rows(b.vectors), order, raw_self_attention)
    assert check.same and check.weights_diff <= 1e-15 and check.outputs_diff <= 1e-15
    scaled = unit_rows(a.vectors) / a.vectors.shape[1] ** 0.25  # Softmax(XXᵀ/√d): (X/d^¼)(X/d^¼)ᵀ = XXᵀ/√d
    np.testing.assert_allclose(check.first.weights, softmax_weights(scaled), rtol=0, atol=1e-15)
    np.testing.assert_allclose(check.cosines, 1.0, rtol=0, atol=1e-15)


def test_contextual_vectors_carry_the_order():
    from transformers import AutoModel, AutoTokenizer

    _, folder, _ = models.resolve_model("minilm")
    tokenizer, model = AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).double().eval()
    vectors = {}
    for text in ("dog bites man", "man bites dog"):
        with torch.no_grad():
            out = model(**tokenizer(text, return_tensors="pt"), output_hidden_states=True)
        vectors[text] = out.hidden_states[-1][0, 1:-1].numpy()  # (3, 384) without [CLS] and [SEP]
        ours = embed(text, "minilm", kind="contextual").vectors
        np.testing.assert_allclose(ours, vectors[text], rtol=0, atol=2e-5)  # float32 model, run by us in float32
    a, b = embed("dog bites man", "minilm", kind="contextual"), embed("man bites dog", "minilm", kind="contextual")
    order = match_order(a.tokens, b.tokens)
    check = reorder_check(a.vectors, b.vectors, order, raw_self_attention)
    assert not check.same
    moved = check.first.weights[order][:, order]
    assert check.weights_diff == np.abs(check.second.weights - moved).max() > 1e-3
    assert np.all(check.cosines < 0.999)  # every token's vector changed with its place
    d = a.vectors.shape[1]
    np.testing.assert_allclose(check.second.weights, softmax_weights(b.vectors / d ** 0.25), rtol=0, atol=1e-12)


def test_reorder_check_refuses_mismatched_input():
    x = np.ones((3, 2))
    with pytest.raises(InputError) as caught:
        reorder_check(x, np.ones((2, 2)), np.arange(3), raw_self_attention)
    assert caught.value.code == "pos_shape"
    with pytest.raises(InputError) as caught:
        reorder_check(x, x, np.array([0, 0, 1]), raw_self_attention)
    assert caught.value.code == "order_bad"
