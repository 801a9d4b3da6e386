"""The Sentence embeddings page through AppTest: presets, both languages, model heads, bad input."""

import numpy as np
import pytest

from selfattn import embed, load_model, run_model
from selfattn.attention import raw_self_attention
from tests.apptest import choice_widget, open_page


@pytest.fixture(scope="module")
def minilm():
    return load_model("minilm")


@pytest.mark.parametrize("lang, title", [("en", "Sentence embeddings"), ("zh", "句子嵌入")])
def test_opens_with_zaoshanghao_in_both_languages(lang, title):
    at = open_page("embeddings", lang)
    assert title in at.title[0].value
    assert not at.error
    assert at.metric[0].value == "3" and at.metric[2].value == "100%"  # 早 上 好, all known
    assert len(at.get("vega_lite_chart")) >= 9


def test_raw_form_numbers_match_the_core(downloads):
    at = open_page("embeddings")
    emb = embed("早上好")
    expected = raw_self_attention(emb.vectors, scale=True)
    import io

    import pandas as pd

    weights = pd.read_csv(io.StringIO(downloads["raw1-xxt.csv"].decode()), index_col=0).to_numpy()
    np.testing.assert_allclose(weights, expected.scores, rtol=1e-15)
    out = pd.read_csv(io.StringIO(downloads["raw1-output.csv"].decode()), index_col=0).to_numpy()
    np.testing.assert_allclose(out, expected.outputs, rtol=1e-15)
    assert not at.exception


def test_english_preset_and_model_heads(minilm, downloads):
    at = open_page("embeddings")
    at.text_input(key="emb_text").set_value("The animal didn't cross the street because it was too tired").run()
    assert not at.exception and not at.error
    at.slider(key="emb_layer").set_value(4).run()
    at.slider(key="emb_head").set_value(7).run()
    assert not at.exception
    run = run_model(minilm, "The animal didn't cross the street because it was too tired")
    import io

    import pandas as pd

    shown = pd.read_csv(io.StringIO(downloads["attention-L5-H8.csv"].decode()), index_col=0).to_numpy()
    np.testing.assert_allclose(shown, run.attentions[4, 7], rtol=0, atol=1e-12)
    diff = float(at.metric[-1].value)
    assert diff <= 1e-5  # recomputed with selfattn equals the model's own attention


def test_pair_mode_shows_both_sentences():
    at = open_page("embeddings", "zh")
    choice_widget(at.segmented_control, "emb_mode").set_value("pair").run()
    assert not at.exception and not at.error
    assert at.text_input(key="emb_text_b").value == "Good morning"
    assert len(at.metric) >= 6  # three figures per sentence


@pytest.mark.parametrize("bad, code_text", [("", "empty"), ("   ", "empty"), ("，。！？", "punctuation")])
def test_bad_text_explains_and_keeps_the_last_view(bad, code_text):
    at = open_page("embeddings")
    charts_before = len(at.get("vega_lite_chart"))
    at.text_input(key="emb_text").set_value(bad).run()
    assert not at.exception
    assert at.error and code_text in at.error[0].value.lower()
    assert "last good result" in at.error[0].value
    assert len(at.get("vega_lite_chart")) >= charts_before - 6  # the raw-form view stays


def test_emoji_mixed_scripts_and_long_text_do_not_crash():
    at = open_page("embeddings")
    for text in ("早上好 👋 Good morning!", "🙂🙂🙂 hello", "天" * 600):
        at.text_input(key="emb_text").set_value(text).run()
        assert not at.exception, text
    assert any("cut" in i.value for i in at.info)


def test_missing_hub_model_is_a_clear_message_and_the_page_stays():
    at = open_page("embeddings")
    choice_widget(at.selectbox, "emb_source").set_value("hf").run()
    at.text_input(key="emb_model").set_value("no-such-org/no-such-model").run()
    assert not at.exception
    assert any("not downloaded" in e.value for e in at.error)
    assert len(at.get("vega_lite_chart")) >= 5


def test_local_folder_with_a_tiny_bert(tmp_path):
    from tests.test_models import make_tiny_bert

    folder = make_tiny_bert(tmp_path)
    at = open_page("embeddings")
    at.text_input(key="emb_text").set_value("good morning").run()
    choice_widget(at.selectbox, "emb_source").set_value("hf").run()
    at.text_input(key="emb_model").set_value(str(folder)).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert float(at.metric[-1].value) <= 1e-5


def test_hosted_mode_offers_only_the_allow_list(monkeypatch):
    from selfattn.models import HOSTED_ALLOWLIST

    monkeypatch.setenv("SELFATTN_HOSTED", "1")
    at = open_page("embeddings")
    choice_widget(at.selectbox, "emb_source").set_value("hf").run()
    assert not at.exception
    box = at.selectbox(key="emb_model")
    assert set(box.options) == set(HOSTED_ALLOWLIST)
    assert all(t.key != "emb_model" for t in at.text_input)


def test_all_heads_of_a_layer_download_as_csv(minilm, downloads):
    import io

    import pandas as pd

    at = open_page("embeddings")
    at.text_input(key="emb_text").set_value("Good morning").run()
    at.slider(key="emb_layer").set_value(2).run()
    table = pd.read_csv(io.StringIO(downloads["attention-L3-all-heads.csv"].decode()), index_col=[0, 1])
    run = run_model(minilm, "Good morning")
    assert table.shape == (minilm.num_heads * len(run.tokens), len(run.tokens))
    np.testing.assert_allclose(table.loc[5].to_numpy(), run.attentions[2, 4], atol=1e-12)
