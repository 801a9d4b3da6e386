"""selfattn.text.readout: word groups, word-to-word attention, rollout and head patterns.

References: merge_words against sums and means written out by hand, rollout against the
product of the layers' matrices computed directly, word groups against jieba's segmentation,
and the bundled all-MiniLM-L6-v2's own heads (a previous-token head and many [CLS] sinks).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from selfattn.text import models, readout
from selfattn.text.charvec import segment
from tests.fakehub import make_tiny_chinese_bert

SENTENCE = "The animal didn't cross the street because it was too tired"


pytestmark = pytest.mark.usefixtures("not_hosted")


@pytest.fixture(scope="module")
def chinese(tmp_path_factory):
    """A tiny random BERT with a character-level Chinese vocabulary, as bert-base-chinese tokenizes."""
    return models.load_model(str(make_tiny_chinese_bert(tmp_path_factory.mktemp("zh") / "tiny-zh")))


def hand_run(text, tokens, originals=(), unknown=()):
    """A ModelRun made by hand: [CLS]/[SEP] special, random attention."""
    n = len(tokens)
    special = np.array([t in ("[CLS]", "[SEP]") for t in tokens])
    weights = np.random.default_rng(0).dirichlet(np.ones(n), size=(1, 1, n))  # (1, 1, n, n)
    return models.ModelRun("hand", text, list(tokens), np.arange(n), special, list(unknown), False, weights,
                           np.zeros((2, n, 4)), list(originals))


def labels(run):
    return readout.word_labels(run, readout.word_groups(run))


# ---- merge_words ---------------------------------------------------------------------------------

def test_merge_words_by_hand():
    w = np.array([[0.1, 0.2, 0.3, 0.4],
                  [0.5, 0.1, 0.1, 0.3],
                  [0.0, 0.6, 0.2, 0.2],
                  [0.25, 0.25, 0.25, 0.25]])
    groups = [[0], [1, 2], [3]]
    expected = np.array([
        [0.1, 0.2 + 0.3, 0.4],  # one piece attending: its row, pieces of word 2 summed
        [(0.5 + 0.0) / 2, ((0.1 + 0.1) + (0.6 + 0.2)) / 2, (0.3 + 0.2) / 2],  # two pieces attending: mean
        [0.25, 0.25 + 0.25, 0.25],
    ])
    np.testing.assert_allclose(readout.merge_words(w, groups), expected, atol=1e-15)
    np.testing.assert_allclose(readout.merge_words(w, [[0], [1], [2], [3]]), w)  # one token per word: unchanged


def merge_by_loops(w, groups):
    out = np.zeros((len(groups), len(groups)))
    for a, rows in enumerate(groups):
        for b, cols in enumerate(groups):
            out[a, b] = np.mean([sum(w[i, j] for j in cols) for i in rows])
    return out


@st.composite
def rows_and_groups(draw):
    n = draw(st.integers(1, 9))
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=n - 1))) if n > 1 else []
    bounds = [0, *cuts, n]
    groups = [list(range(a, b)) for a, b in zip(bounds, bounds[1:])]
    seed = draw(st.integers(0, 2**32 - 1))
    w = np.random.default_rng(seed).dirichlet(np.ones(n), size=(2, 3, n))  # (2, 3, n, n) rows sum to 1
    return w, groups


@settings(max_examples=60, deadline=None)
@given(rows_and_groups())
def test_merge_words_rows_sum_to_one_and_agree_with_loops(case):
    w, groups = case
    merged = readout.merge_words(w, groups)  # (2, 3, m, m)
    assert merged.shape == (2, 3, len(groups), len(groups))
    np.testing.assert_allclose(merged.sum(axis=-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(merged[1, 2], merge_by_loops(w[1, 2], groups), atol=1e-12)


@pytest.mark.parametrize("groups", [[[0], [1]], [[0], [1], [1, 2]], [[0, 1, 2], []], [[0], [1], [3]]])
def test_merge_words_rejects_groups_that_are_not_a_split(groups):
    with pytest.raises(ValueError, match="cover tokens 0..2 once"):
        readout.merge_words(np.eye(3), groups)


# ---- word groups ---------------------------------------------------------------------------------

def test_wordpiece_pieces_join_on_minilm(minilm):
    run = models.run_model(minilm, "Tokenization of unbelievably long words")
    assert run.tokens[1:3] == ["token", "##ization"]
    assert readout.word_groups(run) == [[0], [1, 2], [3], [4, 5, 6, 7, 8], [9], [10], [11]]
    assert labels(run) == ["[CLS]", "Tokenization", "of", "unbelievably", "long", "words", "[SEP]"]


def test_chinese_characters_join_into_jieba_words(chinese):
    assert segment("我爱自然语言处理") == ["我", "爱", "自然语言", "处理"]  # jieba's default dictionary
    run = models.run_model(chinese, "我爱自然语言处理")
    assert run.tokens == ["[CLS]", *"我爱自然语言处理", "[SEP]"]  # one token per character
    assert readout.word_groups(run) == [[0], [1], [2], [3, 4, 5, 6], [7, 8], [9]]
    assert labels(run) == ["[CLS]", "我", "爱", "自然语言", "处理", "[SEP]"]


def test_unknown_characters_join_like_the_characters_they_stand_for(chinese, minilm):
    run = models.run_model(chinese, "他爱自然语言处理器")  # 他 and 器 are not in the tiny vocabulary
    assert run.tokens == ["[CLS]", "[UNK]", "爱", "自", "然", "语", "言", "处", "理", "[UNK]", "[SEP]"]
    # jieba: 他/爱/自然语言/处理器, labelled as the model has them: never with a character it did not see
    assert labels(run) == ["[CLS]", "[UNK]", "爱", "自然语言", "处理[UNK]", "[SEP]"]
    run = models.run_model(minilm, "早上好，今天天气很好")  # MiniLM knows 上 and 天 only
    assert run.tokens[1:4] == ["[UNK]", "上", "[UNK]"]
    assert labels(run) == ["[CLS]", "[UNK]上[UNK]", "，", "[UNK]天天[UNK]", "[UNK]", "[UNK]", "[SEP]"]
    run = models.run_model(minilm, "我爱自然语言处理")  # [CLS] 我 [UNK]×7 [SEP]
    assert labels(run) == ["[CLS]", "我", "[UNK]", "[UNK]×4", "[UNK]×2", "[SEP]"]


def test_contractions_and_hyphenated_words_are_one_word(minilm):
    """As a reader counts them: didn't is one word (MiniLM: didn ' t), so is state-of-the-art."""
    run = models.run_model(minilm, "The animal didn't cross the state-of-the-art street, 'quoted' - yes")
    assert run.tokens[3:6] == ["didn", "'", "t"]
    assert labels(run) == ["[CLS]", "The", "animal", "didn't", "cross", "the", "state-of-the-art", "street", ",",
                           "'", "quoted", "'", "-", "yes", "[SEP]"]
    groups = readout.word_groups(run)
    merged = readout.merge_words(run.attentions, groups)  # (L, H, m, m)
    token_sums = run.attentions.sum(axis=-1)  # (L, H, n): 1 to float32 rounding
    word_sums = np.stack([token_sums[..., g].mean(axis=-1) for g in groups], axis=-1)  # a word row: its pieces' mean
    np.testing.assert_allclose(merged.sum(axis=-1), word_sums, rtol=0, atol=1e-12)


def test_tokens_without_their_text_still_group():
    """A slow tokenizer gives no offsets: tokens are found in the text, an [UNK] takes one character."""
    run = hand_run("我爱自然 语言", ["[CLS]", "我", "[UNK]", "自", "然", "语", "言", "[SEP]"], unknown=[2])
    assert readout.token_spans(run) == [None, (0, 1), (1, 2), (2, 3), (3, 4), (5, 6), (6, 7), None]
    assert readout.word_groups(run) == [[0], [1], [2], [3, 4], [5, 6], [7]]  # no word across the space
    assert labels(run) == ["[CLS]", "我", "[UNK]", "自然", "语言", "[SEP]"]
    run = hand_run("un-believable", ["[CLS]", "un", "-", "believ", "##able", "[SEP]"])
    assert labels(run) == ["[CLS]", "un-believable", "[SEP]"]


def test_special_tokens_stay_alone():
    run = hand_run("ab", ["[CLS]", "##a", "##b", "[SEP]", "##c"])  # odd, but nothing joins a special token
    assert readout.word_groups(run) == [[0], [1, 2], [3], [4]]


LATIN = st.text(alphabet="abcdefgh", min_size=1, max_size=7)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(LATIN, st.integers(1, 3)), min_size=1, max_size=8))
def test_wordpiece_groups_are_the_words(words):
    """Words split into 1-3 pieces (the rest as ##...) group back into exactly those words."""
    tokens, originals = ["[CLS]"], [""]
    for word, pieces in words:
        cuts = sorted({min(len(word), k * len(word) // pieces) for k in range(1, pieces)} - {0, len(word)})
        parts = [word[a:b] for a, b in zip([0, *cuts], [*cuts, len(word)])]
        tokens += [parts[0], *("##" + p for p in parts[1:])]
        originals += parts
    run = hand_run(" ".join(w for w, _ in words), tokens + ["[SEP]"], originals + [""])
    groups = readout.word_groups(run)
    assert [i for g in groups for i in g] == list(range(len(run.tokens)))  # every token once, in order
    assert labels(run) == ["[CLS]", *(w for w, _ in words), "[SEP]"]


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="我爱自然语言处理早上好今天气很，。", min_size=1, max_size=16),
       st.sets(st.integers(0, 15)))
def test_chinese_groups_are_jieba_words(text, unknown_at):
    """One token per character (some [UNK]): the groups are jieba's words, punctuation on its own."""
    unknown_at = {i for i in unknown_at if i < len(text) and text[i] not in "，。"}  # characters, not punctuation
    tokens = ["[UNK]" if i in unknown_at else c for i, c in enumerate(text)]
    unknown = [i + 1 for i in range(len(text)) if i in unknown_at]
    for originals in (["", *text, ""], []):  # with offsets, and without (a slow tokenizer)
        run = hand_run(text, ["[CLS]", *tokens, "[SEP]"], originals, unknown)
        groups = readout.word_groups(run)
        assert [i for g in groups for i in g] == list(range(len(text) + 2))
        words = [piece for word in segment(text) for piece in ([word] if all("\u4e00" <= c <= "\u9fff" for c in word)
                                                                  else list(word))]
        starts = np.cumsum([0, *map(len, words)])
        expected = [re.sub(r"(?:\x00)+", lambda m: "[UNK]" + (f"×{len(m.group())}" if len(m.group()) > 1 else ""),
                           "".join("\x00" if start + k in unknown_at else c for k, c in enumerate(word)))
                    for word, start in zip(words, starts)]  # each run of unknown characters: [UNK] or [UNK]×k
        assert labels(run)[1:-1] == expected


# ---- rollout -------------------------------------------------------------------------------------

def test_rollout_order_by_hand():
    """Two layers, one head, two tokens, picked so that A2 @ A1 differs from A1 @ A2."""
    w1 = np.array([[1.0, 0.0], [1.0, 0.0]])  # layer 1: both tokens read token 0
    w2 = np.array([[0.0, 1.0], [0.0, 1.0]])  # layer 2: both tokens read token 1
    a1 = np.array([[1.0, 0.0], [0.5, 0.5]])  # 0.5 * w1 + 0.5 * I
    a2 = np.array([[0.5, 0.5], [0.0, 1.0]])
    attentions = np.stack([w1[None], w2[None]])  # (L=2, H=1, 2, 2)
    np.testing.assert_allclose(readout.rollout(attentions), [[0.75, 0.25], [0.5, 0.5]])  # a2 @ a1
    np.testing.assert_allclose(readout.rollout(attentions), a2 @ a1)
    assert not np.allclose(a1 @ a2, a2 @ a1)
    np.testing.assert_allclose(readout.rollout_layers(attentions)[0], a1)


def test_rollout_matches_the_formula_on_minilm(minilm):
    run = models.run_model(minilm, SENTENCE)
    n = len(run.tokens)
    expected = np.eye(n)
    for layer in run.attentions:  # first layer first
        a = 0.5 * layer.mean(axis=0) + 0.5 * np.eye(n)
        a = a / a.sum(axis=1, keepdims=True)
        expected = a @ expected
    r = readout.rollout(run.attentions)
    np.testing.assert_allclose(r, expected, atol=1e-12)
    np.testing.assert_allclose(r.sum(axis=1), 1.0, atol=1e-9)
    assert readout.rollout_layers(run.attentions).shape == (6, n, n)
    np.testing.assert_allclose(readout.rollout(run.attentions, residual=1.0), np.eye(n))
    no_skip = np.linalg.multi_dot([layer.mean(axis=0) for layer in run.attentions[::-1]])
    np.testing.assert_allclose(readout.rollout(run.attentions, residual=0.0), no_skip, atol=1e-9)


def test_rollout_of_words_keeps_rows_summing_to_one(minilm):
    run = models.run_model(minilm, "Tokenization of unbelievably long words")
    groups = readout.word_groups(run)
    words = readout.merge_words(readout.rollout(run.attentions), groups)
    assert words.shape == (len(groups), len(groups))
    np.testing.assert_allclose(words.sum(axis=1), 1.0, atol=1e-9)


# ---- head patterns -------------------------------------------------------------------------------

def synthetic_heads(n=6):
    """Heads whose pattern is known by construction, for [CLS] w w w w [SEP]."""
    eye = np.eye(n)
    previous = np.roll(eye, -1, axis=1)  # row i -> i - 1 (row 0 wraps to n-1: a special row, not counted)
    nxt = np.roll(eye, 1, axis=1)
    first = np.zeros((n, n))
    first[:, 0] = 1
    last = np.zeros((n, n))
    last[:, -1] = 1
    uniform = np.full((n, n), 1 / n)
    mixed = 0.4 * previous + 0.35 * nxt + 0.25 * first  # nothing reaches one half
    return np.stack([previous, nxt, eye, first, last, uniform, mixed])[None]  # (1, 7, n, n)


def test_head_patterns_on_heads_built_to_order():
    special = np.array([True, False, False, False, False, True])
    patterns = readout.head_patterns(synthetic_heads(), special)[0]
    assert [p.kind for p in patterns] == ["previous", "next", "self", "first", "last", "broad", "mixed"]
    assert [p.mass for p in patterns[:5]] == pytest.approx([1, 1, 1, 1, 1])
    assert patterns[5].mass == pytest.approx(1.0)  # uniform rows: normalised entropy 1
    # mixed: word 1's previous token is [CLS], so its previous weight is 0.4 + 0.25; the others' 0.4
    assert patterns[6].mass == pytest.approx((0.65 + 3 * 0.4) / 4) and patterns[6].scores["next"] == pytest.approx(0.35)
    assert set(readout.PATTERN_KINDS) == {p.kind for p in patterns}
    assert readout.HeadPattern("first", 0.7) == readout.HeadPattern("first", 0.7, {"first": 0.7})  # scores: extra


def test_thresholds_decide():
    special = np.array([True, False, False, False, False, True])
    previous, uniform = np.roll(np.eye(6), -1, axis=1), np.full((6, 6), 1 / 6)
    elsewhere = (np.roll(np.eye(6), 1, axis=1) + np.eye(6)) / 2  # half on the next token, half on itself

    def head(score, rest):  # score on the previous token, the rest on `rest`
        return (score * previous + (1 - score) * rest)[None, None]

    below = readout.head_patterns(head(readout.PATTERN_THRESHOLD - 0.01, elsewhere), special)[0][0]
    assert below.kind == "mixed" and below.mass == pytest.approx(readout.PATTERN_THRESHOLD - 0.01)
    above = readout.head_patterns(head(readout.PATTERN_THRESHOLD + 0.01, elsewhere), special)[0][0]
    assert above.kind == "previous" and above.mass == pytest.approx(readout.PATTERN_THRESHOLD + 0.01)
    spread = readout.head_patterns(head(0.1, uniform), special)[0][0]  # close to uniform
    assert spread.kind == "broad" and spread.mass >= readout.BROAD_THRESHOLD


def test_head_patterns_check_their_input():
    with pytest.raises(ValueError, match="special must be"):
        readout.head_patterns(synthetic_heads(), np.array([True, False]))
    with pytest.raises(ValueError, match="attentions must be"):
        readout.head_patterns(np.eye(3), np.array([True, False, True]))


def test_minilm_previous_token_head_and_cls_sinks(minilm):
    """all-MiniLM-L6-v2 on SENTENCE, as measured: layer 1 head 3 (1-based) attends to the previous
    token with mass ~1.0; 28 of the 72 heads put most of their word rows' weight on [CLS]; layer 2
    head 9 is a next-token head; none sinks into [SEP]."""
    run = models.run_model(minilm, SENTENCE)
    patterns = readout.head_patterns(run.attentions, run.special)
    assert len(patterns) == 6 and all(len(layer) == 12 for layer in patterns)
    prev = patterns[0][2]
    assert prev.kind == "previous" and prev.mass > 0.99
    assert [(l + 1, h + 1) for l, layer in enumerate(patterns) for h, p in enumerate(layer)
            if p.kind == "previous"] == [(1, 3)]
    sinks = [p for layer in patterns for p in layer if p.kind == "first"]
    assert 24 <= len(sinks) <= 32 and all(p.mass >= readout.PATTERN_THRESHOLD for p in sinks)
    assert max(p.mass for p in sinks) > 0.8
    assert patterns[1][8].kind == "next" and 0.5 < patterns[1][8].mass < 0.7
    assert not any(p.kind == "last" for layer in patterns for p in layer)
    assert sum(p.kind == "broad" for p in patterns[0]) >= 6  # the first layer mostly spreads out
