"""The Sentence embeddings page through AppTest: presets, both languages, model heads, bad input."""

import io
import json
import re

import numpy as np
import pandas as pd
import pytest

from selfattn import embed, run_model
from selfattn.core.attention import raw_self_attention
from selfattn.i18n import escape_markdown, t
from selfattn.text import models
from selfattn.text.embeddings import REGISTRY, SOURCES
from support.apptest import (assert_fits, assert_placeholders_speak, choice_widget, heatmap_specs, open_link, open_page,
                           open_part, texts)
from ui import map_sizes as fit


def chart_specs(at) -> list[dict]:
    """The Vega-Lite spec of every heatmap on the page, in page order."""
    specs = [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]
    return [spec for spec in specs if "usermeta" in spec]  # the maps of ui.map_sizes, not the Altair charts


def column_labels(spec: dict) -> list[str]:
    """A heatmap's column labels, read back from its x axis (Streamlit moves the data elsewhere)."""
    return json.loads(spec["encoding"]["x"]["axis"]["labelExpr"].removesuffix("[datum.value]"))


def matrix_width(spec: dict) -> int:
    """Pixels taken by a heatmap's cells: one step per column."""
    return spec["width"]["step"] * len(column_labels(spec))


def x_charts(at) -> list[dict]:
    """The heatmaps of X and of the output (columns d1, d2, ...)."""
    return [spec for spec in chart_specs(at) if "encoding" in spec and column_labels(spec)[0] == "d1"]


def colour_scale(spec: dict) -> dict:
    """A heatmap's colour scale (its scheme and, when fixed, its domain)."""
    return spec["layer"][0]["encoding"]["color"]["scale"]


def statuses(at) -> list:
    return list(at.get("status"))


@pytest.mark.parametrize("lang, title", [("en", "Sentence embeddings"), ("zh", "句子嵌入")])
def test_opens_with_zaoshanghao_in_both_languages(lang, title):
    at = open_page("embeddings", lang)
    assert title in at.title[0].value
    assert not at.error
    assert at.metric[0].value == "3" and at.metric[2].value == "100%"  # 早 上 好, all known
    assert len(at.get("vega_lite_chart")) >= 4  # the first part alone: X, XXᵀ, the weights, the output


def test_raw_form_numbers_match_the_core(downloads):
    at = open_page("embeddings")
    emb = embed("早上好")
    unit = emb.vectors / np.linalg.norm(emb.vectors, axis=1, keepdims=True)  # the page's defaults: unit length, no ÷√d
    expected = raw_self_attention(unit, scale=False)
    import io

    import pandas as pd

    weights = pd.read_csv(io.StringIO(downloads["raw1-xxt.csv"].decode()), index_col=0).to_numpy()
    np.testing.assert_allclose(weights, expected.scores, rtol=1e-15)
    out = pd.read_csv(io.StringIO(downloads["raw1-output.csv"].decode()), index_col=0).to_numpy()
    np.testing.assert_allclose(out, expected.outputs, rtol=1e-15)
    assert not at.exception


def test_the_default_weights_are_not_one_hot_and_the_text_says_why():
    """The character vectors are ~20 long: raw, Softmax(XXᵀ/√d) is one-hot; the page starts with unit length."""
    at = open_page("embeddings")
    assert at.toggle(key="emb_unit").value and not at.toggle(key="emb_scale").value
    emb = embed("早上好")
    unit = emb.vectors / np.linalg.norm(emb.vectors, axis=1, keepdims=True)
    assert raw_self_attention(unit, scale=False).weights.max() < 0.5  # every token sees the others
    assert raw_self_attention(emb.vectors, scale=True).weights.max() > 0.999  # what ÷√d alone would give
    assert r"$\div\sqrt{64} = \div 8$" in texts(at)


def stated_facts(page_text: str) -> dict[str, float]:
    """The numbers the raw-form paragraph states, read back from the English text."""
    found = re.search(r"\$d = (\d+)\$; their rows are ([\d.e+-]+) to ([\d.e+-]+) long\. As they are, the largest "
                      r"entry of \$XX\^\\top\$ is ([\d.e+-]+); \$\\div\\sqrt\{\d+\} = \\div ([\d.e+-]+)\$ brings it to "
                      r"([\d.e+-]+), .* keeps on average ([\d.]+)% of each token", page_text)
    assert found, page_text[:3000]
    return dict(zip(("d", "shortest", "longest", "top", "root", "top_scaled", "self"), map(float, found.groups())))


@pytest.mark.parametrize("text, d", [("早上好", 64), ("The animal didn't cross the street because it was too tired", 384)])
def test_the_raw_form_paragraph_states_these_vectors_numbers(text, d):
    """Not "about 20 long, ÷√64 = ÷8" for every sentence: MiniLM's rows are about 1 long and d = 384."""
    at = open_page("embeddings")
    at.text_input(key="emb_text").set_value(text).run()
    x = embed(text).vectors  # numpy, independently of selfattn.text.rawform
    lengths = np.sqrt((x * x).sum(axis=1))
    dots = x @ x.T
    scaled = dots / np.sqrt(d)
    soft = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    soft /= soft.sum(axis=1, keepdims=True)
    facts = stated_facts(texts(at))
    assert facts["d"] == d == x.shape[1]
    for key, value, digits in (("shortest", lengths.min(), 3), ("longest", lengths.max(), 3),
                               ("top", np.abs(dots).max(), 4), ("root", np.sqrt(d), 4),
                               ("top_scaled", np.abs(dots).max() / np.sqrt(d), 4)):
        assert facts[key] == float(f"{value:.{digits}g}"), key
    assert facts["self"] == round(100 * np.diag(soft).mean(), 1)
    unit = x / lengths[:, None]  # the map drawn by default: unit rows, no ÷√d
    drawn = np.exp(unit @ unit.T - (unit @ unit.T).max(axis=1, keepdims=True))
    drawn /= drawn.sum(axis=1, keepdims=True)
    stated = re.search(r"In the map drawn, each token keeps on average ([\d.]+)% of its weight", texts(at))
    assert stated and float(stated.group(1)) == round(100 * np.diag(drawn).mean(), 1)
    if d == 384:  # English: no "20 long", no √64
        assert "√64" not in texts(at) and r"\sqrt{64}" not in texts(at)


def test_headings_follow_the_scale_toggle_and_unit_length_draws_xxt_once():
    at = open_page("embeddings")
    page = texts(at)
    assert r"$\mathrm{Softmax}(XX^\top)$: attention weights" in page  # ÷√d off: no "/ 1"
    assert "/ 1)" not in page and r"\sqrt" not in page.split("Output")[0].split("attention weights")[-1]
    assert "Cosine similarity" not in page and "= cosine similarity" in page  # drawn once
    assert len([spec for spec in chart_specs(at) if colour_scale(spec).get("domain") == [-1.0, 1.0]]) == 1
    at.toggle(key="emb_scale").set_value(True).run()
    at.toggle(key="emb_unit").set_value(False).run()
    page = texts(at)
    assert r"$\mathrm{Softmax}(XX^\top/\sqrt{64})$: attention weights" in page
    assert r"Output $\mathrm{Softmax}(XX^\top/\sqrt{64})X$" in page
    assert r"1 · The raw form: $\mathrm{Softmax}(XX^\top/\sqrt{d})X$" in [h.value for h in at.header][0]
    assert "Cosine similarity" in page and "$XX^\\top$: dot products" in page  # two different maps now
    at.session_state["lang"] = "zh"
    at.run()
    assert r"$\mathrm{Softmax}(XX^\top/\sqrt{64})$：注意力权重" in texts(at)


def test_english_preset_and_model_heads(minilm, downloads):
    at = open_page("embeddings", part="model")
    at.text_input(key="emb_text").set_value("The animal didn't cross the street because it was too tired").run()
    assert not at.exception and not at.error
    layer, head = at.slider(key="emb_layer"), at.slider(key="emb_head")
    assert (layer.min, layer.max, layer.value) == (1, minilm.num_layers, 1)  # numbered as in the headings
    assert (head.min, head.max, head.value) == (1, minilm.num_heads, 1)
    layer.set_value(5).run()
    at.slider(key="emb_head").set_value(8).run()
    assert not at.exception
    assert "Layer 5, head 8" in texts(at) and "Every head of layer 5" in texts(at)
    run = run_model(minilm, "The animal didn't cross the street because it was too tired")
    import io

    import pandas as pd

    shown = pd.read_csv(io.StringIO(downloads["attention-L5-H8.csv"].decode()), index_col=0).to_numpy()
    np.testing.assert_allclose(shown, run.attentions[4, 7], rtol=0, atol=1e-12)
    diff = float(at.metric[-1].value)
    assert diff <= 1e-5  # recomputed with selfattn equals the model's own attention


def test_pair_mode_shows_both_sentences():
    at = open_page("embeddings", "zh")
    wide_x = matrix_width(x_charts(at)[0])
    choice_widget(at.segmented_control, "emb_mode").set_value("pair").run()
    assert not at.exception and not at.error
    assert at.text_input(key="emb_text_b").value == "Good morning"
    assert len(at.metric) >= 6  # three figures per sentence
    assert len(x_charts(at)) == 4  # X and the output, for each sentence
    half = fit.column_px([1, 1])[0]
    assert wide_x > half  # one sentence uses the page's width...
    assert all(spec["usermeta"]["fit_px"] == half for spec in x_charts(at))  # ...two share it
    at.slider(key="emb_dims").set_value(64).run()
    drawn = len(column_labels(x_charts(at)[0]))
    assert 16 < drawn < 64 and all(matrix_width(spec) <= half for spec in x_charts(at))
    assert f"$X$：词元向量（64 维中的前 {drawn} 维）" in texts(at)  # the title says how many columns are drawn


def test_a_pair_shows_model_heads_for_both_sentences_checked_against_the_model(minilm, downloads):
    """Not only the first (Chinese, [UNK]) sentence: the translation's heads too, each the model's own map."""
    at = open_page("embeddings", part="model")
    choice_widget(at.segmented_control, "emb_mode").set_value("pair").run()
    at.slider(key="emb_layer").set_value(2).run()
    at.slider(key="emb_head").set_value(5).run()
    assert not at.exception and not at.error
    page = texts(at)
    assert "“早上好”" in page and "“Good morning”" in page
    assert page.count("Layer 2, head 5: the model's own attention") == 2
    assert len([m for m in at.metric if m.label == "Max |recomputed − model|"]) == 2
    for name, text in (("attention-L2-H5.csv", "早上好"), ("attention-L2-H5-2.csv", "Good morning")):
        shown_map = pd.read_csv(io.StringIO(downloads[name].decode()), index_col=0).to_numpy()
        np.testing.assert_allclose(shown_map, run_model(minilm, text).attentions[1, 4], rtol=0, atol=1e-12)
    assert all(float(m.value) < 1e-5 for m in at.metric if m.label == "Max |recomputed − model|")


def test_text_typed_in_a_box_shown_only_some_of_the_time_survives_while_it_is_hidden():
    """The pair's second sentence and the model name outlive a switch away and back (they once
    fell back to their defaults on the second run without their box; found by the fuzz test)."""
    at = open_page("embeddings")
    choice_widget(at.segmented_control, "emb_mode").set_value("pair").run()
    at.text_input(key="emb_text_b").set_value("hello there").run()
    choice_widget(at.segmented_control, "emb_mode").set_value("single").run()
    at.run()
    assert at.session_state["emb_text_b"] == "hello there"
    assert dict(at.query_params)["text2"] == "hello there"  # the link keeps it too
    choice_widget(at.segmented_control, "emb_mode").set_value("pair").run()
    assert at.text_input(key="emb_text_b").value == "hello there"
    choice_widget(at.selectbox, "emb_source").set_value("hf").run()
    at.text_input(key="emb_model").set_value("minilm").run()
    choice_widget(at.selectbox, "emb_source").set_value("auto").run()
    at.run()
    choice_widget(at.selectbox, "emb_source").set_value("hf").run()
    assert at.text_input(key="emb_model").value == "minilm"
    assert not at.exception


def kind_switch(at):
    """The one static/contextual switch on the page (a source with one kind draws it switched off, without a key)."""
    switches = [r for r in at.radio if r.label in (t("emb.kind", "en"), t("emb.kind", "zh"))]
    assert len(switches) == 1, [r.label for r in at.radio]
    return switches[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_character_vectors_switch_shows_static_with_the_reason_and_keeps_the_choice(lang):
    """Character vectors have no context: the switched-off control shows static (what is drawn), says why beside
    it, and the visitor's contextual stays for a source that has it, and in the link."""
    reason = t("emb.static_fallback", lang, hf=t("emb.source_hf", lang), pick=t("emb.source_pick", lang))
    at = open_page("embeddings", lang)
    choice_widget(at.selectbox, "emb_source").set_value("minilm").run()
    choice_widget(at.radio, "emb_kind").set_value("contextual").run()
    assert reason not in [c.value for c in at.caption]
    choice_widget(at.selectbox, "emb_source").set_value("charvec").run()
    assert not at.exception and not at.error
    switch = kind_switch(at)
    assert switch.proto.disabled and switch.value == "static"
    assert reason in [c.value for c in at.caption]
    assert at.metric[1].value == "64"  # the static character vectors are what part 1 draws
    link = dict(at.query_params)
    assert link["source"] == "charvec" and link["kind"] == "contextual"  # the visitor's choice, kept
    again = open_link("embeddings", link)  # the link round-trips: the same page, the same words
    assert not again.exception and not again.error
    assert not [w for w in again.warning if t("share.ignored", lang)[:12] in w.value]
    assert kind_switch(again).proto.disabled and kind_switch(again).value == "static"
    assert reason in [c.value for c in again.caption] and dict(again.query_params) == link
    choice_widget(again.selectbox, "emb_source").set_value("minilm").run()  # a source with context: it is back
    assert not kind_switch(again).proto.disabled and kind_switch(again).value == "contextual"
    assert again.metric[1].value == "384"


def test_the_source_picker_and_what_it_shows_come_from_the_registry(monkeypatch):
    """Every registered source is offered by its label, in order; its object decides the model box,
    the kinds offered and the part 1 caption."""
    from tests.fuzz import NO_HUB

    monkeypatch.setenv("HF_ENDPOINT", NO_HUB)  # the default model id, not on this machine, is looked up nowhere
    at = open_page("embeddings", "zh")
    assert choice_widget(at.selectbox, "emb_source").options == [t(REGISTRY[name].label, "zh") for name in SOURCES]
    at.text_input(key="emb_text").set_value("早上好 good").run()
    for name in SOURCES:
        source = REGISTRY[name]
        choice_widget(at.selectbox, "emb_source").set_value(name).run()
        assert not at.exception, name
        assert any(w.key == "emb_model" for w in at.text_input) == source.asks_model, name
        assert kind_switch(at).proto.disabled == (len(source.kinds) == 1), name
        if source.vectors_label:  # part 1 names the source's vectors (no model box failing above it)
            assert f"向量：{t(source.vectors_label, 'zh')}" in texts(at), name
    choice_widget(at.selectbox, "emb_source").set_value("minilm").run()
    choice_widget(at.radio, "emb_kind").set_value("contextual").run()
    choice_widget(at.selectbox, "emb_source").set_value("charvec").run()  # static only: the page asks for static
    assert not at.exception and not at.error and at.metric[0].value == "4"  # 早 上 好 good


LONG_ZH = "今天早上我和朋友一起去公园散步，看见很多人在跑步、打太极拳，还有小朋友在放风筝，天气非常好，我们都很开心"


@pytest.mark.parametrize("mode, text", [("single", "早上好"), ("single", LONG_ZH), ("pair", LONG_ZH),
                                        ("single", "The animal didn't cross the street because it was too tired")])
def test_every_heatmap_fits_its_column_with_readable_labels(mode, text):
    at = open_page("embeddings")
    choice_widget(at.segmented_control, "emb_mode").set_value(mode).run()
    at.text_input(key="emb_text").set_value(text).run()
    at.slider(key="emb_dims").set_value(64).run()
    assert not at.exception and not at.error
    specs = heatmap_specs(at)  # part 1: the raw form (X, XXᵀ = cosine, weights, output per sentence)
    assert len(specs) >= (8 if mode == "pair" else 4)
    open_part(at, "embeddings", "model")
    assert not at.error
    heads = heatmap_specs(at)  # part 2: the head map (per sentence), the layer's grid, Q, K, V
    assert len(heads) >= (6 if mode == "pair" else 5)
    for spec in specs + heads:
        assert_fits(spec, f"{mode} {text[:8]}")


def test_every_chart_speaks_the_language():
    at = open_page("embeddings", "zh")
    specs = chart_specs(at)  # part 1's, then part 2's
    specs += chart_specs(open_part(at, "embeddings", "model"))
    assert len(specs) >= 9
    english = {"row", "column", "value", "weight", "head", "query", "key"}
    for spec in specs:
        layer = spec["spec"] if "spec" in spec else spec["layer"][0]
        titles = {t["title"] for t in layer["encoding"]["tooltip"]} | {layer["encoding"]["color"].get(
            "title", layer["encoding"]["color"].get("condition", {}).get("title"))}
        assert not titles & english, titles


def test_chinese_page_shows_no_internal_names_and_short_captions():
    at = open_page("embeddings", "zh", part="model")
    shown = texts(at)
    assert "minilm" not in shown.lower().replace("all-minilm-l6-v2", "")  # the readable name only
    assert "模型：**all-MiniLM-L6-v2**" in shown
    shown = texts(open_part(at, "embeddings", "raw"))
    assert "minilm" not in shown.lower().replace("all-minilm-l6-v2", "")
    assert "向量：由 jieba 词表构建的 64 维 PPMI-SVD 汉字向量" in shown
    assert "jieba-dict" not in shown and "character vectors" not in shown
    at.text_input(key="emb_text").set_value("天气" * 300).run()  # 300 jieba words
    words = [c.value for c in at.caption if c.value.startswith("jieba 分词")]
    assert words == ["jieba 分词：" + " / ".join(["天气"] * 20) + " ……（另有 230 个）"]  # 500 characters: 250 words
    assert "文本过长，只保留了前 64 个词元。" in texts(at)


def test_zaoshanghao_names_the_characters_minilm_does_not_know():
    at = open_page("embeddings", "en", part="model")
    warnings = [w.value for w in at.warning if "does not know" in w.value]
    assert len(warnings) == 1
    assert ("all-MiniLM-L6-v2 does not know most of this sentence: only 1 of its 3 tokens are in its vocabulary; "
            "the others (早、好) all became the same token [UNK]") in warnings[0]
    assert "[UNK]、" not in warnings[0]
    open_part(at, "embeddings", "raw")  # part 1 uses the character vectors, which know all three
    assert not [w.value for w in at.warning if "does not know" in w.value]
    choice_widget(at.selectbox, "emb_source").set_value("minilm").run()  # part 1 with MiniLM too
    assert sum("does not know" in w.value and "早、好" in w.value for w in at.warning) == 1


def test_a_chinese_learner_is_led_to_what_works(monkeypatch):
    """早上好 is [UNK] 上 [UNK] in MiniLM: say so, point to the character vectors and to a Chinese model."""
    from selfattn.text import prefetch

    monkeypatch.setattr(prefetch, "cached_folder", lambda spec: None)  # bert-base-chinese is not on this machine
    monkeypatch.delenv(models.HOSTED_ENV, raising=False)
    at = open_page("embeddings", "zh", part="model")
    guide = [i.value for i in at.info if "处理中文" in i.value]
    assert len(guide) == 1 and "第 1 部分使用汉字向量" in guide[0]
    assert "约 412.0 MB" in guide[0] and "约需 41 秒" in guide[0] and "约需 7 分钟" in guide[0]  # size and time first
    assert "点击下载按钮之前不会下载任何东西" in guide[0]
    button = next(b for b in at.button if str(b.key).startswith("use_chinese_"))
    assert button.label == "改用 google-bert/bert-base-chinese"
    button.click().run()
    assert at.session_state["emb_source"] == "hf"
    assert at.session_state["emb_model"] == "google-bert/bert-base-chinese"
    assert not at.exception


def test_a_chinese_model_that_cannot_be_had_is_said_honestly(monkeypatch):
    monkeypatch.setenv(models.HOSTED_ENV, "1")
    monkeypatch.delenv("SELFATTN_ALLOW_DOWNLOADS", raising=False)
    from selfattn.text import prefetch

    monkeypatch.setattr(prefetch, "cached_folder", lambda spec: None)
    at = open_page("embeddings", part="model")
    guide = [i.value for i in at.info if "For Chinese, what works" in i.value]
    assert len(guide) == 1 and "downloading models is switched off here" in guide[0]
    assert not [b for b in at.button if str(b.key).startswith("use_chinese_")]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_contextual_vectors_of_a_chinese_sentence_fall_back_with_an_explanation(lang):
    """Not a red error and an empty column: the static character vectors, and what would give context."""
    at = open_page("embeddings", lang)
    choice_widget(at.radio, "emb_kind").set_value("contextual").run()
    assert not at.exception and not at.error
    assert any("`bert-base-chinese`" in i.value for i in at.info)
    assert at.metric[0].value == "3" and at.metric[1].value == "64"  # 早 上 好 as character vectors
    assert at.metric[2].value == "100%"


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


@pytest.mark.parametrize("lang, failed, previous", [
    ("en", "Could not load foo/bar", "Model: **all-MiniLM-L6-v2**, the previous model, because foo/bar could not be"),
    ("zh", "无法加载 foo/bar", "模型：**all-MiniLM-L6-v2**（沿用上一个模型，因为无法加载 foo/bar）"),
])
def test_missing_hub_model_is_one_clear_message_and_the_page_stays(lang, failed, previous):
    at = open_page("embeddings", lang, part="model")
    choice_widget(at.selectbox, "emb_source").set_value("hf").run()
    at.text_input(key="emb_model").set_value("foo/bar").run()
    assert not at.exception
    assert [(s.label, s.state) for s in statuses(at)] == [(failed, "error")]
    assert len(at.error) == 1 and "foo/bar" in at.error[0].value
    assert statuses(at)[0].error[0].value == at.error[0].value  # the reason sits in the red box
    if lang == "en":
        assert "is not on this machine yet" in at.error[0].value
        assert "check the model id" in at.error[0].value and "huggingface-cli" not in at.error[0].value
    shown = texts(at)
    assert previous in shown and "**foo/bar**" not in shown  # the heads are MiniLM's, and say so
    assert len(at.get("vega_lite_chart")) >= 5
    at.text_input(key="emb_text").set_value("Good morning").run()  # the previous model reads the new sentence
    assert previous in texts(at) and len(at.error) == 1
    maps = [column_labels(spec) for spec in chart_specs(at) if "encoding" in spec]
    assert ["[CLS]", "1·good", "2·morning", "[SEP]"] in maps  # numbered from 1 as in part 1


def test_empty_model_field_asks_for_one_without_a_loading_box():
    at = open_page("embeddings")
    choice_widget(at.selectbox, "emb_source").set_value("hf").run()
    at.text_input(key="emb_model").set_value("  ").run()
    assert not at.exception and not statuses(at)
    assert len(at.error) == 1 and at.error[0].value.startswith("Type a model id or folder.")


def test_unreadable_model_folder_is_explained_without_parser_text(tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "config.json").write_text("{ not json")
    (folder / "model.safetensors").write_bytes(b"not weights")
    at = open_page("embeddings", "zh")
    choice_widget(at.selectbox, "emb_source").set_value("hf").run()
    at.text_input(key="emb_model").set_value(str(folder)).run()
    assert not at.exception and len(at.error) == 1
    message = at.error[0].value
    assert message.startswith(f"无法加载“{escape_markdown(str(folder))}”：") and "config.json" in message
    assert not any(word in message for word in ("Expecting", "JSON", "line 1", "Error"))


def test_a_bad_sentence_is_explained_once():
    at = open_page("embeddings", part="model")
    at.text_input(key="emb_text").set_value("Good morning").run()
    at.text_input(key="emb_text").set_value("?!").run()
    assert not at.exception and len(at.error) == 1  # part 1 explains it; part 2 keeps its last view
    assert "Shown for the last good sentence: “Good morning”." in texts(at)


def test_local_folder_with_a_tiny_bert(tmp_path):
    from tests.fakehub import make_tiny_bert

    folder = make_tiny_bert(tmp_path)
    at = open_page("embeddings", part="model")
    at.text_input(key="emb_text").set_value("good morning").run()
    choice_widget(at.selectbox, "emb_source").set_value("hf").run()
    at.text_input(key="emb_model").set_value(str(folder)).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert float(at.metric[-1].value) <= 1e-5


def test_hosted_mode_offers_only_the_allow_list(monkeypatch):
    from selfattn.text.models import HOSTED_ALLOWLIST

    monkeypatch.setenv("SELFATTN_HOSTED", "1")
    at = open_page("embeddings")
    choice_widget(at.selectbox, "emb_source").set_value("hf").run()
    assert not at.exception
    box = at.selectbox(key="emb_model")
    assert set(box.options) == set(HOSTED_ALLOWLIST)
    assert all(t.key != "emb_model" for t in at.text_input)
    at.session_state["lang"] = "zh"
    at.run()
    assert at.selectbox(key="emb_model").proto.placeholder == "请选择"


def test_all_heads_of_a_layer_download_as_csv(minilm, downloads):
    import io

    import pandas as pd

    at = open_page("embeddings", part="model")
    at.text_input(key="emb_text").set_value("Good morning").run()
    at.slider(key="emb_layer").set_value(3).run()
    table = pd.read_csv(io.StringIO(downloads["attention-L3-all-heads.csv"].decode()), index_col=[0, 1])
    run = run_model(minilm, "Good morning")
    assert table.shape == (minilm.num_heads * len(run.tokens), len(run.tokens))
    np.testing.assert_allclose(table.loc[5].to_numpy(), run.attentions[2, 4], atol=1e-12)


def test_one_layer_one_head_model_and_singular_counts(tmp_path):
    from tests.fakehub import make_tiny_bert

    folder = make_tiny_bert(tmp_path / "one", num_layers=1, num_heads=1)
    at = open_page("embeddings", part="model")
    at.text_input(key="emb_text").set_value("good morning").run()
    choice_widget(at.selectbox, "emb_source").set_value("hf").run()
    at.text_input(key="emb_model").set_value(str(folder)).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert [s.label for s in statuses(at)] == [f"Loaded {escape_markdown(str(folder))}: 1 layer × 1 head, d = 32"]
    assert all(s.key not in ("emb_layer", "emb_head") for s in at.slider)  # a slider needs two ends
    assert "Layer: 1 (the model has only one)" in texts(at) and "Head: 1 (the model has only one)" in texts(at)
    assert float(at.metric[-1].value) <= 1e-5


def test_chinese_page_has_no_english_placeholder_of_ours():
    at = open_page("embeddings", "zh")
    assert_placeholders_speak(at, "zh")
    assert at.text_input(key="emb_text").proto.placeholder == "输入一句话"
    choice_widget(at.selectbox, "emb_source").set_value("hf").run()
    assert_placeholders_speak(at, "zh")
    assert "bert-base-chinese" in at.text_input(key="emb_model").proto.placeholder


def test_known_count_and_token_limit_leave_out_cls_and_sep():
    at = open_page("embeddings", part="model")
    at.text_input(key="emb_text").set_value("good morning 早上好").run()  # MiniLM knows 2 of the 5 tokens
    part2 = [w.value for w in at.warning if "does not know" in w.value]
    assert part2 and "Known: 3 of 5 tokens, not counting [CLS] and [SEP]" in part2[-1]
    at.text_input(key="emb_text").set_value("word " * 100).run()  # 100 tokens: both parts keep 64
    cuts = [i.value for i in at.info if "cut" in i.value]
    assert cuts == ["The text was cut to its first 64 tokens; the model adds [CLS] before them and [SEP] after."]
    assert [i.value for i in open_part(at, "embeddings", "raw").info if "cut" in i.value] == [
        "The text was cut to its first 64 tokens."]
    at.session_state["lang"] = "zh"
    open_part(at, "embeddings", "model")
    assert [i.value for i in at.info if "文本过长" in i.value][0].startswith("文本过长，只保留了前 64 个词元；")


def test_qkv_headers_say_how_many_columns_are_drawn(minilm):
    at = open_page("embeddings", part="model")
    at.text_input(key="emb_text").set_value("Good morning").run()
    cut = f"`4 × {minilm.head_dim}` · first 16 columns shown; the CSV has all {minilm.head_dim}"
    assert all(f"**${name}$** &nbsp; {cut}" in texts(at) for name in "QKV"), texts(at)
    at.slider(key="emb_dims").set_value(minilm.head_dim).run()
    assert f"**$Q$** &nbsp; `4 × {minilm.head_dim}`\n" in texts(at) + "\n" and "columns shown" not in texts(at)


def strings_in(spec, key=""):
    """(key, text) of every string in a Vega-Lite spec, with the key it sits under."""
    if isinstance(spec, dict):
        for k, v in spec.items():
            yield from strings_in(v, k)
    elif isinstance(spec, list):
        for v in spec:
            yield from strings_in(v, key)
    elif isinstance(spec, str):
        yield key, spec


@pytest.mark.parametrize("params", [
    {"source": "charvec"}, {"units": "words"}, {"source": "minilm", "mode": "pair", "text2": "a\u2028b\u2029c d"}])
def test_separators_and_overrides_in_a_sentence_leave_every_chart_drawn(params):
    """A U+2028 in a label once blanked every chart (Vega: "Expression parse error"); a direction override
    turns a label around. Whatever the sentence holds, labels are one line of plain text."""
    from selfattn.i18n import one_line

    text = "早上\u2028好\u2029 Good\u0085morning \u202eevil\u202c ok\u200b!"
    at = open_link("embeddings", {"text": text, **params})
    assert not at.exception and not at.error, [e.value for e in at.error]
    specs = [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]  # part 1's, then part 2's
    open_part(at, "embeddings", "model")
    assert not at.error, [e.value for e in at.error]
    specs += [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]
    assert len(specs) >= 10
    labels = [s for spec in specs for key, s in strings_in(spec)
              if key in ("labelExpr", "expr", "test", "label", "from", "to", "row", "col")]
    assert any("evil" in s for s in labels)  # the labels were looked at
    bad = [s for s in labels if one_line(s) != s or "\u2028" in s or "\u2029" in s]
    assert bad == [], bad[:3]



@pytest.mark.parametrize("lang, words", [("en", ("rows ↓", "(queries)", "columns →", "(keys)")),
                                         ("zh", ("行 ↓", "（查询）", "列 →", "（键）"))])
def test_the_small_maps_of_every_head_name_their_axes(lang, words):
    at = open_page("embeddings", lang, part="model")
    grids = [spec for spec in chart_specs(at) if "grid" in spec["usermeta"]]
    assert len(grids) == 1
    assert all(word in grids[0]["title"]["text"] for word in words), grids[0]["title"]


def test_a_pair_compares_on_shared_colour_scales():
    """Two sentences side by side: the same kind of map has one scale, so one colour is one number in both."""
    at = open_page("embeddings")
    choice_widget(at.segmented_control, "emb_mode").set_value("pair").run()
    at.toggle(key="emb_unit").set_value(False).run()
    pair = [embed(text) for text in ("早上好", "Good morning")]
    dots = [e.vectors @ e.vectors.T for e in pair]  # numpy, as the page should draw them
    specs = [spec for spec in chart_specs(at) if "encoding" in spec and column_labels(spec)[0].startswith("1·")][:6]
    domains = [colour_scale(spec).get("domain") for spec in specs]
    expected = [min(d.min() for d in dots), max(d.max() for d in dots)]
    shared = [d for d in domains if d not in ([-1.0, 1.0], [0.0, 1.0])]  # XXᵀ of both (the others are fixed)
    assert len(shared) == 2 and shared[0] == shared[1], domains  # on one scale...
    np.testing.assert_allclose(shared[0], expected, rtol=1e-14)  # ...from the lowest to the highest of both
    assert "$X$ and outputs come from different vectors" in texts(at)
    choice_widget(at.selectbox, "emb_source").set_value("minilm").run()  # both from MiniLM: X and outputs too
    x_domains = [colour_scale(spec).get("domain") for spec in x_charts(at)]  # X, output, X, output
    assert x_domains[0] == x_domains[2] and x_domains[1] == x_domains[3] and None not in x_domains
    assert "one colour is one number in both" in texts(at)


def test_a_pair_of_two_chinese_sentences_offers_the_chinese_model_once():
    at = open_page("embeddings", part="model")
    choice_widget(at.segmented_control, "emb_mode").set_value("pair").run()
    at.text_input(key="emb_text_b").set_value("早上好").run()  # both sentences mostly [UNK] in MiniLM
    assert not at.exception and not at.error
    assert sum("does not know most of this sentence" in w.value for w in at.warning) == 2
    assert len([b for b in at.button if str(b.key).startswith("use_chinese_")]) == 1
    assert sum("For Chinese, what works" in i.value for i in at.info) == 1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_pair_shows_the_heads_details_of_the_sentence_the_model_reads(lang):
    """早上好 / Good morning with MiniLM: 早 and 好 are [UNK], Good morning is read whole. The pattern grid, head
    view and the layer's grid are of Good morning, and the page says so; the chosen heads' map shows both."""
    at = open_page("embeddings", lang, part="model")
    choice_widget(at.segmented_control, "emb_mode").set_value("pair").run()
    assert not at.exception and not at.error
    said = t("emb.details_read", lang, text="Good morning", name="all-MiniLM-L6-v2", known=2, n=2, other="早上好",
             other_known=1, other_n=3)
    assert said in [c.value for c in at.caption]
    assert t("emb.details_first", lang, text="早上好") not in [c.value for c in at.caption]
    axes = t("emb.grid_axes", lang)
    grids = [json.dumps(spec, ensure_ascii=False) for spec in heatmap_specs(at)
             if isinstance(spec.get("title"), dict) and spec["title"].get("text") == axes]
    assert len(grids) == 1 and "1·good" in grids[0] and "2·morning" in grids[0] and "早" not in grids[0]
    heads_of = [m.value for m in at.markdown if m.value in (t("emb.heads_of", lang, text="早上好"),
                                                            t("emb.heads_of", lang, text="Good morning"))]
    assert len(heads_of) == 2  # the map of the chosen heads: both sentences, in their order
    at.text_input(key="emb_text_b").set_value("Good evening").run()  # both read whole: the first, said so
    at.text_input(key="emb_text").set_value("Good morning").run()
    assert t("emb.details_first", lang, text="Good morning") in [c.value for c in at.caption]

