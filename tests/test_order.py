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
from selfattn.core.positions import match_order, match_text, reorder_check
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


def test_match_text_follows_the_text_typed_not_the_tokens_read():
    """MiniLM reads 狗咬人 as [UNK] [UNK] 人: by token, 人咬狗 matched [UNK] in turn (3 1 2); by text it is 3 2 1,
    and the [UNK] standing for 狗 and 咬 is named."""
    match = match_text(["狗", "咬", "人"], ["人", "咬", "狗"], ["[UNK]", "[UNK]", "人"], ["人", "[UNK]", "[UNK]"])
    assert match.order.tolist() == [2, 1, 0]
    assert match_order(["[UNK]", "[UNK]", "人"], ["人", "[UNK]", "[UNK]"]).tolist() == [2, 0, 1]  # the old answer
    assert match.merged == {"[UNK]": ("狗", "咬")} and not match.readable
    clear = match_text(["dog", "bites", "man"], ["man", "bites", "dog"], ["dog", "bites", "man"],
                       ["man", "bites", "dog"])
    assert clear.order.tolist() == [2, 1, 0] and clear.merged == {} and clear.readable
    one = match_text(["猫", "人"], ["人", "猫"], ["[UNK]", "人"], ["人", "[UNK]"])  # one text behind [UNK]: readable
    assert one.order.tolist() == [1, 0] and one.readable


def test_match_text_keeps_a_word_piece_apart_from_a_word_and_names_what_differs():
    """``pieces`` marks a later piece of a word (##s) so that it is never taken for the word s."""
    a, b = embed("tokenizers s", "minilm"), embed("s tokenizers", "minilm")
    assert a.tokens == ["token", "##izer", "##s", "s"] and a.originals == ["token", "izer", "s", "s"]
    match = match_text(a.pieces, b.pieces, a.read, b.read)
    assert match.order.tolist() == [3, 0, 1, 2] and match.readable
    assert b.tokens == [a.tokens[i] for i in match.order]  # each token paired with itself
    assert match_order(a.originals, b.originals).tolist() == [2, 0, 1, 3]  # bare text would pair ##s with s
    with pytest.raises(InputError) as caught:
        match_text(["dog", "bites"], ["dog", "bit"], ["dog", "bites"], ["dog", "bit"])
    assert caught.value.code == "order_not_same_tokens" and caught.value.params["only_second"] == "bit"
    with pytest.raises(InputError) as caught:
        match_text(["a", "b"], ["b", "a"], ["a"], ["b", "a"])
    assert caught.value.code == "order_bad"


@given(st.lists(st.sampled_from(list("abcde")), min_size=1, max_size=12), st.randoms())
def test_match_text_finds_any_shuffle_whatever_one_token_reads(texts, rnd):
    """All texts read as one token (every character [UNK]): the order still follows the text."""
    shuffled = list(texts)
    rnd.shuffle(shuffled)
    match = match_text(texts, shuffled, ["[UNK]"] * len(texts), ["[UNK]"] * len(texts))
    assert [texts[i] for i in match.order] == shuffled
    assert match.readable == (len(set(texts)) == 1)


def test_embeddings_match_the_default_pair_by_their_characters():
    a, b = embed("狗咬人", "minilm", kind="contextual"), embed("人咬狗", "minilm", kind="contextual")
    assert a.tokens == ["[UNK]", "[UNK]", "人"] and a.pieces == ["狗", "咬", "人"]
    match = match_text(a.pieces, b.pieces, a.read, b.read)
    assert match.order.tolist() == [2, 1, 0] and match.merged == {"[UNK]": ("狗", "咬")}
    c, d = embed("狗咬人", "charvec"), embed("人咬狗", "charvec")
    assert match_text(c.pieces, d.pieces, c.read, d.read).readable
