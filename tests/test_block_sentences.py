"""Issue 37: every sentence of the Transformer block page says what its numbers say, in both languages."""

from __future__ import annotations

import numpy as np
import pytest

from selfattn.block.compute import compute_toy
from selfattn.block.text import flow_steps, similarity_change
from selfattn.block.view import View
from selfattn.core.block import LayerParams, transformer_layer
from selfattn.i18n import t_plain
from support.apptest import open_link, texts

LANGS = ("en", "zh")
MORE_ALIKE = {"en": "more alike", "zh": "更相似"}
LESS_ALIKE = {"en": "less alike", "zh": "更不相似"}


def test_the_direction_of_the_change_is_read_from_the_numbers():
    assert similarity_change(np.array([0.06, 0.2, 0.5])) == "up"
    assert similarity_change(np.array([0.060752, -0.05, -0.116945])) == "down"  # the review's case
    assert similarity_change(np.array([0.3, 0.9, 0.305])) == "flat"


@pytest.mark.parametrize("lang", LANGS)
def test_each_direction_has_its_own_sentence_and_none_claims_the_opposite(lang):
    up, down, flat = (t_plain(f"tb.similarity_{k}", lang, first="0.1", last="0.2") for k in ("up", "down", "flat"))
    assert MORE_ALIKE[lang] in up and LESS_ALIKE[lang] not in up
    assert LESS_ALIKE[lang] in down and MORE_ALIKE[lang] not in down.replace(LESS_ALIKE[lang], "")
    assert MORE_ALIKE[lang] not in flat and LESS_ALIKE[lang] not in flat
    for text in (up, down, flat):
        assert "grow alike" not in text and "越来越相似" not in text  # today's sentence, whatever the numbers


@pytest.mark.parametrize("lang", LANGS)
def test_the_page_says_the_tiny_causal_stack_grew_less_alike(lang):
    """The review: tiny preset, causal on, 3 layers: 0.060752 -> -0.116945, and the page said "grow alike"."""
    shown = View(causal=True, layers=3)
    similarity = compute_toy(shown, check=False).stack.similarity()
    assert similarity_change(similarity) == "down", similarity
    page = texts(open_link("block", {"causal": "1", "layers": "3", "lang": lang, "part": "stack"}))
    assert LESS_ALIKE[lang] in page
    assert t_plain("tb.similarity_causal", lang) in page


def _layer(causal: bool, activation: str = "relu"):
    params = LayerParams.random(d_model=4, num_heads=2, d_ff=8, seed=0)
    x = np.random.default_rng(0).normal(size=(3, 4))
    return transformer_layer(x, params, norm_first=False, activation=activation, eps=1e-5, causal=causal)


@pytest.mark.parametrize("lang", LANGS)
def test_the_heads_formula_writes_the_mask_term_when_there_is_one(lang):
    heads = {causal: next(s for s in flow_steps(_layer(causal), lang) if s.key == "heads") for causal in (True, False)}
    assert "+ M" in heads[True].formula and "M = −∞" in heads[True].caption
    assert "+ M" not in heads[False].formula and "M" not in heads[False].caption.replace("softmax", "")


@pytest.mark.parametrize("lang", LANGS)
def test_each_box_formula_names_the_boxes_it_uses(lang):
    steps = {s.key: s for s in flow_steps(_layer(False), lang)}
    qkv, heads = steps["qkv"].number, steps["heads"].number
    assert steps["concat"].formula.startswith(f"{steps['concat'].number} = {heads} × V of {qkv}")
    assert f"of {qkv}" in steps["heads"].formula


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("activation", ["relu", "gelu", "gelu_tanh"])
def test_no_box_claims_to_be_the_only_non_linear_part(lang, activation):
    step = next(s for s in flow_steps(_layer(False, activation), lang) if s.key == "ff_act")
    for claim in ("the one part of the layer that is not linear", "唯一的非线性"):
        assert claim not in step.caption
    assert "softmax" in step.caption  # and names the others
    assert ")(" not in step.formula  # "GELU (tanh form)(⑧)" read awkwardly: now GELU_tanh(⑧)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("hosted, allowed, where", [(True, False, "local"), (True, True, "download"),
                                                    (False, False, "download")])
def test_the_unk_advice_says_what_this_server_offers_and_rows_name_their_characters(monkeypatch, lang, hosted,
                                                                                   allowed, where):
    """The review: hosted, the advice pointed to a Chinese model the Embeddings page said it could not download,
    and rows read "3 [UNK]" … "8 [UNK]"."""
    from selfattn.text import prefetch

    monkeypatch.setattr(prefetch, "cached_folder", lambda spec: None)  # bert-base-chinese is not on this machine
    monkeypatch.delenv("SELFATTN_HOSTED", raising=False)
    monkeypatch.delenv(prefetch.ALLOW_DOWNLOADS_ENV, raising=False)
    if hosted:
        monkeypatch.setenv("SELFATTN_HOSTED", "1")
    if allowed:
        monkeypatch.setenv(prefetch.ALLOW_DOWNLOADS_ENV, "1")
    at = open_link("block", {"source": "real", "text": "我喜欢机器学习", "lang": lang})
    assert not at.exception, [e.value for e in at.exception]
    page = texts(at)
    advice = t_plain(f"tb.real_unknown_{where}", lang, chinese="google-bert/bert-base-chinese")
    assert advice.split("google")[0] in page
    others = {"local", "download", "installed"} - {where}
    assert not any(t_plain(f"tb.real_unknown_{o}", lang, chinese="google-bert/bert-base-chinese").split("google")[0]
                   in page for o in others)
    focus = next(s for s in at.selectbox if str(s.key).startswith("tb_focus"))
    assert "2 我 [UNK]" in focus.options or any(o.startswith("2 我") for o in focus.options), focus.options


@pytest.mark.parametrize("lang", LANGS)
def test_the_block_zip_holds_its_settings_as_the_playgrounds_does(downloads, lang):
    import io
    import zipfile

    at = open_link("block", {"causal": "1", "layers": "3", "seed": "5", "act": "gelu", "lang": lang})
    assert not at.exception
    with zipfile.ZipFile(io.BytesIO(downloads["selfattn-block.zip"])) as archive:
        text = archive.read("settings.txt").decode("utf-8")
    colon = "：" if lang == "zh" else ": "
    assert "seed=5" in text and "causal=1" in text  # the link
    for name, value in (("tb.settings_seed", "5"), ("tb.causal", t_plain("common.settings_on", lang)),
                        ("tb.act", t_plain("tb.act_gelu", lang)), ("tb.eps", "1e-05")):
        assert f"{t_plain(name, lang)}{colon}{value}" in text, (name, text)
    assert t_plain("tb.settings_preset_tables", lang) in text
    assert t_plain("tb.settings_sizes", lang, n=4, d=4, h=2, d_ff=8, layers=3) in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_preset_note_follows_the_state_and_undo_is_offered_only_for_typed_tables(lang):
    """The review: GPT-2 then Post-LN, the note still said "LayerNorm before each sub-layer"; a fresh session's
    preset load said "replaced tables you typed into" when nothing was typed."""
    from tests.blockpage import pick

    at = open_link("block", {"lang": lang})
    pick(at, "selectbox", "tb_preset", "gpt2")
    page = texts(at)
    assert t_plain("tb.preset_gpt2_note", lang) in page
    assert t_plain("tb.preset_custom_note", lang, preset="x", names="x").split("x")[0] not in page  # nothing changed
    assert t_plain("tb.undo_note", lang) not in page and not [b for b in at.button if b.key == "tb_undo"]
    pick(at, "segmented_control", "tb_norm", "post")
    page = texts(at)
    assert t_plain("tb.preset_custom_note", lang, preset=t_plain("tb.preset_gpt2", lang),
                   names=t_plain("tb.norm", lang)) in page, page


def test_an_edit_of_x_is_said_in_the_preset_note_at_once():
    from tests.blockpage import send

    at = open_link("block", {})
    assert t_plain("tb.edited", "en") not in texts(at)
    send(at, "x", 0, 0, "2.5")
    assert t_plain("tb.edited", "en") in texts(at)


def test_one_name_for_one_head_and_one_word_for_block_across_pages():
    """The review: "第 1 个头" here and "头 1" on Heads & devices; "可编辑的小模块" beside "Transformer 块"."""
    one = {key: t_plain(key, "zh", h=1, i=1) for key in ("tb.head", "hd.head_n", "emb.head_n")}
    assert len(set(one.values())) == 1, one
    assert "块" in t_plain("tb.source_toy", "zh") and "模块" not in t_plain("tb.source_toy", "zh")
