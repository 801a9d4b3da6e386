"""Reading the heads on the Sentence embeddings page (AppTest): words, mean/max/rollout, patterns, head view.

Every number is checked against the model's own ``output_attentions`` (``run_model``), merged or
rolled out here by hand, independently of ``selfattn.text.readout``.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from selfattn import run_model
from support.apptest import choice_widget, heatmap_specs, open_page, texts
from ui.embeddings import readout as readout_ui

SENTENCE = "Tokenization is unbelievable fun"


def table(downloads, name: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(downloads[name].decode()), index_col=0)


def by_hand_groups(tokens: list[str]) -> list[list[int]]:
    """Pieces starting with ## join the piece before them."""
    groups: list[list[int]] = []
    for i, tok in enumerate(tokens):
        if tok.startswith("##") and groups:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def by_hand_merge(weights: np.ndarray, groups) -> np.ndarray:
    """Sum over the pieces attended to, mean over the pieces attending."""
    return np.array([[weights[np.ix_(a, b)].sum(axis=1).mean() for b in groups] for a in groups])


def by_hand_rollout(attentions: np.ndarray) -> np.ndarray:
    n = attentions.shape[-1]
    rolled = np.eye(n)
    for layer in attentions:  # (H, n, n), first layer first
        a = 0.5 * layer.mean(axis=0) + 0.5 * np.eye(n)
        a = a / a.sum(axis=1, keepdims=True)
        rolled = a @ rolled
    return rolled


def page_with(sentence: str, **choices) -> object:
    at = open_page("embeddings", part="model")
    at.text_input(key="emb_text").set_value(sentence).run()
    for key, value in choices.items():
        widgets = at.selectbox if key == "emb_view" else at.segmented_control  # the map is a selectbox
        choice_widget(widgets, key).set_value(value).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def test_words_rollout_matches_the_formula_on_the_models_own_attention(minilm, downloads):
    at = page_with(SENTENCE, emb_units="words", emb_view="rollout")
    run = run_model(minilm, SENTENCE)
    assert any(tok.startswith("##") for tok in run.tokens)  # the sentence really has pieces to join
    groups = by_hand_groups(run.tokens)
    want = by_hand_merge(by_hand_rollout(run.attentions.astype(float)), groups)
    got = table(downloads, "attention-rollout-words.csv")
    np.testing.assert_allclose(got.to_numpy(), want, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.to_numpy().sum(axis=1), 1.0, atol=1e-12)  # rows are still distributions
    assert "1·Tokenization" in list(got.index) and "Attention rollout through all 6 layers" in texts(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_rollout_view_shows_only_what_belongs_to_it(lang):
    """No layer or head sliders, no check of one head, no √d of a head, no maps of layer 1 under it."""
    at = page_with(SENTENCE, emb_view="rollout")
    if lang == "zh":
        at.session_state["lang"] = "zh"
        at.run()
    assert [s.key for s in at.slider] == ["emb_dims"]  # above the parts (Q, K and V's columns), no layer or head
    assert not [m for m in at.metric if "recomputed" in m.label or "重算" in m.label]
    page = texts(at)
    for gone in ("Every head of layer", "第 1 层的所有头", "Head view", "头视图", "What each head does", "每个头在做什么",
                 r"\sqrt{32}", "Queries, keys and values", "查询、键和值"):
        assert gone not in page, gone
    assert ("Attention rollout through all 6 layers" if lang == "en" else "贯穿全部 6 层的注意力逐层累积") in page
    assert len(heatmap_specs(at)) == 1  # the rollout alone: part 1's maps and the same-words part's are closed


@pytest.mark.parametrize("view", ["mean", "max"])
def test_mean_and_max_show_the_layer_but_no_single_head(view):
    at = page_with(SENTENCE, emb_view=view)
    assert [s.key for s in at.slider] == ["emb_dims", "emb_layer"]
    assert not [m for m in at.metric if "recomputed" in m.label]
    assert "Every head of layer 1" in texts(at) and "Head view" not in texts(at)


@pytest.mark.parametrize("view, reduce", [("mean", np.mean), ("max", np.max)])
def test_mean_and_max_of_a_layers_heads(minilm, downloads, view, reduce):
    at = page_with(SENTENCE, emb_view=view)
    at.slider(key="emb_layer").set_value(2).run()
    run = run_model(minilm, SENTENCE)
    got = table(downloads, f"attention-L2-{view}.csv")
    np.testing.assert_allclose(got.to_numpy(), reduce(run.attentions[1], axis=0), rtol=0, atol=1e-12)


def test_every_head_of_the_layer_in_words(minilm, downloads):
    page_with(SENTENCE, emb_units="words")
    run = run_model(minilm, SENTENCE)
    groups = by_hand_groups(run.tokens)
    got = table(downloads, "attention-L1-all-heads-words.csv")  # rows: (head, query)
    for h in range(run.attentions.shape[1]):
        np.testing.assert_allclose(got.iloc[h * len(groups):(h + 1) * len(groups), 1:].to_numpy(dtype=float),
                                   by_hand_merge(run.attentions[0, h], groups), rtol=0, atol=1e-12)


def test_pattern_overview_names_minilms_previous_token_head(downloads):
    at = page_with("The animal didn't cross the street because it was too tired")
    patterns = table(downloads, "head-patterns-all-MiniLM-L6-v2.csv")
    row = patterns.loc[1][patterns.loc[1]["head"] == 3].iloc[0]  # layer 1, head 3
    assert row["pattern"] == "previous" and row["mass"] > 0.99
    assert (patterns["pattern"] == "first").sum() >= 20  # many heads park their weight on [CLS]
    grid = [json.loads(c.proto.spec) for c in at.get("vega_lite_chart") if '"pick"' in c.proto.spec]
    assert len(grid) == 1  # a clickable grid (a point selection named pick)
    assert "What to look for" in texts(at)


def test_a_click_on_the_grid_selects_that_layer_and_head():
    assert readout_ui.pick_head({"selection": {"pick": [{"layer": 4, "head": 7}]}}) == (4, 7)
    assert readout_ui.pick_head({"selection": {"pick": []}}) is None  # a click beside the cells
    assert readout_ui.pick_head(None) is None
    # what a crafted message can send: huge, fractional, negative, not numbers, too many points
    for layer in (1e999, float("nan"), 2.5, -3, 0, 65, True, "4", None, [4], 10**400):
        assert readout_ui.pick_head({"selection": {"pick": [{"layer": layer, "head": 1}]}}) is None, layer
    assert readout_ui.pick_head({"selection": {"pick": [{"layer": 2.0, "head": 3}] * 100_000}}) == (2, 3)
    assert readout_ui.pick_head({"selection": {"pick": "abc"}}) is None


def test_head_view_shows_only_the_picked_tokens_lines(minilm):
    at = page_with(SENTENCE)
    choice_widget(at.selectbox, "emb_pick").set_value(3).run()
    assert not at.exception
    view = next(json.loads(c.proto.spec) for c in at.get("vega_lite_chart") if '"rule"' in c.proto.spec)
    lines = view["layer"][0]["data"]["values"]
    assert lines and {row["i"] for row in lines} == {2}  # the third token's lines only
    run = run_model(minilm, SENTENCE)
    for row in lines:
        assert row["w"] == pytest.approx(float(run.attentions[0, 0][2, row["j"]]), abs=1e-12)


def test_the_readout_choices_are_in_the_link():
    at = page_with(SENTENCE, emb_units="words")
    choice_widget(at.selectbox, "emb_pick").set_value(2).run()
    choice_widget(at.selectbox, "emb_view").set_value("rollout").run()
    params = dict(at.query_params)
    assert params["units"] == "words" and params["map"] == "rollout" and params["pick"] == "2"
