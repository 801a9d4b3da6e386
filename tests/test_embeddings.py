"""embed(): every source, the unknown-token bookkeeping, and the text rules."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from selfattn.core.attention import unit_rows
from selfattn.errors import InputError
from selfattn.i18n import CATALOG, LANGS
from selfattn.text import charvec, models, sources
from selfattn.text.embedding_text import check_text
from selfattn.text.embeddings import MAX_CHARS, REGISTRY, SOURCES, TokenEmbeddings, embed, get_source, pick_source


@pytest.fixture(scope="module", autouse=True)
def _isolated(tmp_path_factory):
    """Char-vector cache in a temp folder (holding a link to a table already built, if any: tests/test_charvec.py
    tests the build itself), hosted mode off, MiniLM loaded once."""
    folder = tmp_path_factory.mktemp("selfattn-cache")
    for table in charvec.cache_dir().glob("charvec-*.npz"):
        shutil.copyfile(table, folder / table.name)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(charvec.CACHE_ENV, str(folder))
        patch.delenv(models.HOSTED_ENV, raising=False)
        models.load_model("minilm")
        yield


def test_auto_on_chinese_uses_charvec():
    emb = embed("早上好")
    assert emb.source == "charvec" and emb.kind == "static"
    assert emb.tokens == ["早", "上", "好"] and emb.unknown == [] and emb.coverage == 1.0
    assert emb.vectors.shape == (3, 64) and emb.vectors.dtype == np.float64
    assert emb.words == ["早上好"] and not emb.truncated
    table = charvec.load_char_vectors()
    np.testing.assert_array_equal(emb.vectors[1], table.vector("上"))


def test_auto_on_english_uses_minilm():
    emb = embed("Good morning")
    assert emb.source == "minilm" and emb.model == models.MINILM
    assert emb.tokens == ["good", "morning"] and emb.unknown == []
    assert emb.vectors.shape == (2, 384) and emb.words == []


def test_pick_source():
    assert pick_source("hello 世界") == "charvec" and pick_source("hello, world") == "minilm"


def test_minilm_static_is_the_embedding_table():
    bundle = models.load_model("minilm")
    emb = embed("Good morning", source="minilm", special_tokens=True)
    assert emb.tokens == ["[CLS]", "good", "morning", "[SEP]"] and emb.special == [0, 3]
    table = bundle.model.get_input_embeddings().weight.detach().double().numpy()  # (vocab, 384)
    ids = bundle.tokenizer.convert_tokens_to_ids(emb.tokens)
    np.testing.assert_array_equal(emb.vectors, table[ids])


def test_static_and_contextual_differ():
    static = embed("Good morning", source="minilm")
    last = embed("Good morning", source="minilm", kind="contextual")
    first = embed("Good morning", source="minilm", kind="contextual", layer=0)
    assert last.layer == 6 and first.layer == 0 and static.layer is None
    assert last.vectors.shape == static.vectors.shape == (2, 384)
    assert not np.allclose(static.vectors, last.vectors)
    assert not np.allclose(first.vectors, last.vectors)


def test_only_contextual_vectors_depend_on_the_sentence():
    a, b = "I sat by the river bank", "I opened a bank account"
    static = [embed(t, source="minilm") for t in (a, b)]
    context = [embed(t, source="minilm", kind="contextual") for t in (a, b)]
    bank = [e.vectors[e.tokens.index("bank")] for e in static]
    np.testing.assert_array_equal(bank[0], bank[1])
    bank = [e.vectors[e.tokens.index("bank")] for e in context]
    cosine = bank[0] @ bank[1] / np.linalg.norm(bank[0]) / np.linalg.norm(bank[1])
    assert cosine < 0.95


def test_minilm_cannot_read_most_chinese():
    emb = embed("早上好，今天天气很好", source="minilm")
    unk = [i for i, token in enumerate(emb.tokens) if token == "[UNK]"]
    assert emb.unknown == unk and len(unk) >= len(emb.tokens) // 2
    assert emb.coverage < 0.6 and {"上", "天"} <= set(emb.tokens)
    assert emb.words == ["早上好", "，", "今天天气", "很", "好"]


def test_charvec_marks_punctuation_unknown():
    emb = embed("早上好，今天天气很好")
    assert emb.source == "charvec" and len(emb.tokens) == 10
    assert emb.unknown == [3] and emb.tokens[3] == "，"
    assert not emb.vectors[3].any() and emb.known.tolist().count(False) == 1
    assert emb.coverage == pytest.approx(0.9)


def test_hf_source_with_the_bundled_model():
    emb = embed("Good morning", source="hf", model="sentence-transformers/all-MiniLM-L6-v2")
    assert emb.source == "hf" and emb.vectors.shape == (2, 384)
    np.testing.assert_array_equal(emb.vectors, embed("Good morning", source="minilm").vectors)


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_empty_text(text):
    with pytest.raises(InputError) as err:
        embed(text)
    assert err.value.code == "empty_text"


@pytest.mark.parametrize("text, source", [("!!! ？。…", "auto"), ("🙂🙂 ❤️", "auto"), ("?!", "minilm"), ("，。", "charvec")])
def test_only_punctuation(text, source):
    with pytest.raises(InputError) as err:
        embed(text, source=source)
    assert err.value.code == "only_punctuation"


@pytest.mark.parametrize("kwargs, code", [
    ({"source": "word2vec"}, "bad_source"),
    ({"kind": "dynamic"}, "bad_kind"),
    ({"source": "charvec", "kind": "contextual"}, "static_only"),
    ({"source": "hf"}, "model_required"),
    ({"source": "minilm", "kind": "contextual", "layer": 7}, "hidden_layer_out_of_range"),
    ({"max_tokens": 0}, "bad_max_tokens"),
    ({"source": "hf", "model": "selfattn-tests/not-here"}, "offline"),
])
def test_bad_arguments(kwargs, code):
    text = "早上好" if kwargs.get("source") == "charvec" else "Good morning"
    with pytest.raises(InputError) as err:
        embed(text, **kwargs)
    assert err.value.code == code


def test_not_a_string():
    with pytest.raises(InputError) as err:
        embed(None)
    assert err.value.code == "not_text"


def test_long_english_text_is_cut():
    emb = embed("word " * 200)
    assert emb.truncated and len(emb.tokens) == 64 and len(emb.text) <= MAX_CHARS
    short = embed("word " * 10, max_tokens=3)
    assert short.truncated and short.tokens == ["word"] * 3


def test_long_chinese_text_is_cut():
    emb = embed("天" * 600)
    assert emb.truncated and len(emb.tokens) == 64 and len(emb.text) == MAX_CHARS
    assert not embed("天" * 64).truncated


@pytest.mark.parametrize("text", ["I love 🍕 and 北京 👨‍👩‍👧!", "Café naïve 🇨🇳 résumé", "东京 Tokyo 도쿄 Токио",
                                  "e\u0301\u200b🙂 ok", "𠀀𪚥 字"])
@pytest.mark.parametrize("source", ["auto", "minilm"])
def test_emoji_and_mixed_scripts(text, source):
    emb = embed(text, source=source)
    assert emb.vectors.shape == (len(emb.tokens), emb.dim) and np.all(np.isfinite(emb.vectors))
    assert all(0 <= i < len(emb.tokens) for i in emb.unknown) and 0 <= emb.coverage <= 1


def test_emoji_is_unknown_for_charvec():
    emb = embed("我爱🍕 AI")
    assert emb.tokens == ["我", "爱", "🍕", "AI"] and emb.unknown == [2, 3]


def test_normalize():
    emb = embed("早上好，世界", normalize=True)
    norms = np.linalg.norm(emb.vectors, axis=1)
    np.testing.assert_allclose(norms[emb.known], 1.0)
    assert not norms[~emb.known].any()
    np.testing.assert_array_equal(emb.vectors, unit_rows(embed("早上好，世界").vectors))  # the page's unit rows, bit for bit


@pytest.mark.parametrize("value", [0, -3, True, 2.5, "3", None])
def test_bad_max_tokens_names_the_value(value):
    with pytest.raises(InputError) as err:
        embed("Good morning", max_tokens=value)
    assert err.value.code == "bad_max_tokens" and err.value.params == {"value": str(value)}


# ── The registry of sources ────────────────────────────────────────────────────────────

def test_sources_are_one_registry_in_the_pages_order():
    assert SOURCES == tuple(REGISTRY) == ("auto", "charvec", "minilm", "hf")
    for name in SOURCES:
        source = get_source(name)
        assert source.name == name and set(source.kinds) <= {"static", "contextual"} and source.kinds
        for key in filter(None, (source.label, source.vectors_label)):
            assert set(CATALOG[key]) == set(LANGS), key


@pytest.mark.parametrize("name", ["word2vec", "", "AUTO", None, 3, ["hf"]])
def test_an_unknown_source_names_the_choices_in_the_pages_order(name):
    with pytest.raises(InputError) as err:
        embed("Good morning", source=name)
    assert err.value.code == "bad_source"
    assert err.value.params == {"source": str(name), "choices": "auto, charvec, minilm, hf"}


def test_what_each_source_asks_for():
    auto, chars, minilm, hf = (REGISTRY[name] for name in ("auto", "charvec", "minilm", "hf"))
    assert [s.asks_model for s in (auto, chars, minilm, hf)] == [False, False, False, True]
    assert [s.model_spec("my/bert") for s in (auto, chars, minilm, hf)] == [None, None, "minilm", "my/bert"]
    assert [s.loads_model for s in (auto, chars, minilm, hf)] == [False, False, True, True]
    assert chars.kinds == ("static",) and minilm.kinds == hf.kinds == ("static", "contextual")
    assert not chars.unk and minilm.unk and hf.unk  # no vector (a zero row) versus the [UNK] token's vector
    assert chars.vectors_label == "emb.charvec_name" and minilm.vectors_label is hf.vectors_label is None
    assert auto.resolve("hello 世界") is chars and auto.resolve("hello") is minilm
    assert all(REGISTRY[name].resolve("hello 世界") is REGISTRY[name] for name in ("charvec", "minilm", "hf"))


def test_auto_embeds_as_the_source_it_resolves_to():
    for text in ("早上好", "Good morning"):
        direct = REGISTRY["auto"].embed(text, "static", None, None, False, 64)
        assert direct.source == pick_source(text)
        np.testing.assert_array_equal(direct.vectors, embed(text, pick_source(text)).vectors)


class Hashed(sources.Source):
    """A made-up source for the test below: every character gets a pseudo-random 8-d vector, digits none."""

    def embed(self, text, kind, layer, model, special_tokens, max_tokens):
        text, truncated = check_text(text)
        tokens = [char for char in text if not char.isspace()][:max_tokens]
        vectors = np.stack([np.random.default_rng(ord(c)).standard_normal(8) * (not c.isdigit()) for c in tokens])
        unknown = [i for i, c in enumerate(tokens) if c.isdigit()]
        return TokenEmbeddings(tokens, vectors, self.name, unknown, truncated, kind, "hashed", text=text,
                               originals=list(tokens))


def test_a_new_source_is_its_object_in_the_registry(monkeypatch):
    """embed reads everything from the object: no list of names to extend anywhere else."""
    monkeypatch.setitem(REGISTRY, "hashed", Hashed("hashed", "emb.source_auto", kinds=("static",), unk=False))
    emb = embed("早上好 42", source="hashed", normalize=True)
    assert emb.source == "hashed" and emb.tokens == list("早上好42") and emb.unknown == [3, 4]
    assert emb.words == ["早上好", "42"] and emb.unknown_text == ["4", "2"]
    np.testing.assert_allclose(np.linalg.norm(emb.vectors[:3], axis=1), 1.0)
    with pytest.raises(InputError) as err:
        embed("早上好", source="hashed", kind="contextual")
    assert (err.value.code, err.value.params) == ("static_only", {"source": "hashed"})


def test_mean_vector_skips_unknown_and_special():
    emb = embed("Good morning", source="minilm", special_tokens=True)
    np.testing.assert_allclose(emb.mean_vector(), emb.vectors[1:3].mean(axis=0))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=80), source=st.sampled_from(["auto", "minilm", "charvec"]))
def test_any_text_gives_a_result_or_an_input_error(text, source):
    """Whatever a user types (surrogates, controls, any script), the answer is a result or an
    InputError with a code, never another exception."""
    try:
        emb = embed(text, source=source)
    except InputError as err:
        assert err.code in {"empty_text", "only_punctuation"}
        return
    assert len(emb.tokens) == emb.vectors.shape[0] >= 1 and np.all(np.isfinite(emb.vectors))
    assert 1 <= len(emb.tokens) <= 64


@pytest.mark.parametrize("text", ["hi\ud800 there", "a\x00b\x07c", "早\ud83d上"])
def test_broken_unicode_and_control_characters(text):
    emb = embed(text)
    assert emb.tokens and np.all(np.isfinite(emb.vectors))
