"""The Encoder–decoder page's translator source in AppTest: it opens in both languages and translates; a step, the
temperature and the training checkpoint each change what is shown, and the numbers shown are the ones worked out
here apart from the page (the cross-attention of ``translate``, softmax of its scores, the argmax of the weights, the
record's checkpoints); bad input is named while the last good translation stays; the page's own link opens the same
view.
"""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest

from selfattn.i18n import t_plain
from selfattn.translate import load, translate
from selfattn.translate.weights import RECORD_PATH
from support.apptest import assert_map_shows, send_pick, step_maps
from tests import fuzz
from tests.seq2seqpage import ok, opened, output



@pytest.fixture(scope="module")
def model():
    return load()








def chart(at, name: str) -> list[dict]:
    """The rows of the Vega-Lite chart ``name`` (its ``usermeta.chart``), as Streamlit sent them."""
    for element in at.get("vega_lite_chart"):
        spec = json.loads(element.proto.spec)
        if spec.get("usermeta", {}).get("chart") == name:
            return pa.ipc.open_stream(element.proto.data.data).read_pandas().to_dict("records")
    raise AssertionError(f"no chart {name!r}")


def softmax_written(logits: np.ndarray, vocabulary, temperature: float) -> dict[str, float]:
    """softmax(logits / T) over the words the decoder may write (not <pad>, <bos>), worked out here."""
    keep = [i for i, w in enumerate(vocabulary) if w not in ("<pad>", "<bos>")]
    z = np.asarray(logits, dtype=np.float64)[keep] / temperature
    e = np.exp(z - z.max())
    return {vocabulary[i]: float(p) for i, p in zip(keep, e / e.sum())}


def errors(at) -> list[str]:
    return [text for kind, text in fuzz.alerts(at.main) if kind == "error"]


def successes(at) -> list[str]:
    return [text for kind, text in fuzz.alerts(at.main) if kind == "success"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_both_languages_translate_good_morning_checked_against_torch(lang):
    at = opened(lang)
    assert output(at) == "good morning"
    start = t_plain("tr.checked_torch", lang, diff="0").split("`")[0]
    assert any(text.startswith(start) for text in successes(at)), successes(at)
    assert not errors(at)
    maps = step_maps(at)
    assert {"s2t_step_l1", "s2t_cross_l1h1", "s2t_memory", "s2t_rows", "s2t_ckpt_l2h4"} <= set(maps)
    assert maps["s2t_cross_l2h1"]["link"] == "cross:l2h1" and maps["s2t_memory"]["link"].startswith("src:")
    assert maps["s2t_rows"]["link"].startswith("row:") and maps["s2t_rows"]["rows"] == ["good", "morning"]
    assert {m["group"] for m in maps.values()} == {"s2t"}


def test_the_man_bites_the_dog(model):
    at = opened()
    at.text_input(key="s2s_text").set_value("人咬狗").run()
    ok(at)
    assert output(at) == "the man bites the dog" == translate(model, "人咬狗").output
    assert step_maps(at)["s2t_cross_l1h1"]["cols"] == ["人", "咬", "狗"]


def test_a_step_shows_that_step_s_cross_attention(model):
    at = opened()
    reference = translate(model, "早上好")
    first = step_maps(at)["s2t_step_l1"]["cells"]
    assert_map_shows(at, "s2t_step_l1", reference.decoder.steps[0].cross_weights[0])
    at.button(key="s2s_tnext").click().run()
    ok(at)
    assert at.session_state["s2s_tstep"] == 1
    assert step_maps(at)["s2t_step_l1"]["cells"] != first
    for layer in (0, 1):
        assert_map_shows(at, f"s2t_step_l{layer + 1}", reference.decoder.steps[1].cross_weights[layer])
    assert step_maps(at)["s2t_cross_l1h1"]["focus"] == 1
    at.button(key="s2s_tnext").click().run()  # the <eos> step, then back to the first
    assert at.session_state["s2s_tstep"] == 2
    assert_map_shows(at, "s2t_step_l2", reference.decoder.steps[2].cross_weights[1])
    at.button(key="s2s_tnext").click().run()
    assert at.session_state["s2s_tstep"] == 0 and step_maps(at)["s2t_step_l1"]["cells"] == first
    send_pick(at, "s2t_cross_l1h1", 1)  # a click on the word's row of a whole-translation map picks its step
    ok(at)
    assert at.session_state["s2s_tstep"] == 1


def test_the_temperature_reshapes_the_probabilities_softmax_of_the_scores(model):
    at = opened(tstep="2")
    reference = translate(model, "早上好")
    at_one = {row["word"]: row["p"] for row in chart(at, "next_words")}
    expected = softmax_written(reference.logits[1], reference.vocabulary, 1.0)
    assert max(at_one, key=at_one.get) == "morning"
    for word, p in at_one.items():
        assert p == pytest.approx(expected[word], abs=1e-12), word
    assert sorted(at_one, key=at_one.get, reverse=True) == sorted(expected, key=expected.get, reverse=True)[:8]
    at.select_slider(key="s2s_temp").set_value(250).run()
    ok(at)
    hot = {row["word"]: row["p"] for row in chart(at, "next_words")}
    hotter = softmax_written(reference.logits[1], reference.vocabulary, 2.5)
    for word, p in hot.items():
        assert p == pytest.approx(hotter[word], abs=1e-12), word
    assert hot["morning"] < at_one["morning"]  # spread out above T = 1; greedy still writes it
    assert [r["choice"] for r in chart(at, "next_words") if r["word"] == "morning"] == [t_plain("tr.chart_greedy", "en")]
    assert any(str(c.value).startswith(t_plain("tr.greedy_line", "en", word="morning", p="", temperature="2.50",
                                                vocab="")[:24]) and "T = 2.50" in str(c.value) for c in at.caption)


def test_the_alignment_note_says_what_the_weights_say(model):
    at = opened()
    reference = translate(model, "早上好")
    mean = reference.cross_weights.mean(axis=1)  # (layers, words, characters), averaged over the heads
    note = next(m.value for m in at.markdown if str(m.value).startswith("- “good”"))
    for s, word in enumerate(reference.tokens):
        parts = "; ".join(f"layer {layer + 1} → {reference.source[int(np.argmax(mean[layer, s]))]} "
                          f"({mean[layer, s].max():.2f})" for layer in range(len(mean)))
        assert f"- “{word}”: {parts}" in note, (word, note)
    assert "“good”: layer 1 → 好" in note  # the reordering of 早上好: "good" reads 好, the last character


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_unseen_characters_are_named_and_the_last_good_translation_kept(lang):
    at = opened(lang)
    at.text_input(key="s2s_text").set_value("早上坏蛋").run()
    ok(at)
    found = errors(at)
    assert len(found) == 1 and "坏 蛋" in found[0] and t_plain("common.kept_last_good", lang) in found[0], found
    assert found[0].startswith(t_plain("err.tr_unseen", lang, chars="", known="")[:8])
    assert output(at) == "good morning"
    at.text_input(key="s2s_text").set_value("").run()
    ok(at)
    assert errors(at)[0].startswith(t_plain("err.tr_empty", lang)[:10]) and output(at) == "good morning"
    at.text_input(key="s2s_text").set_value("狗咬人").run()
    ok(at)
    assert not errors(at) and output(at) == "the dog bites the man"


def test_bad_text_in_a_fresh_session_is_named_as_text_and_nothing_else_is_shown():
    at = opened(text="[x](http://e.example)")
    found = errors(at)
    assert len(found) == 1 and found[0].startswith(t_plain("err.tr_unseen", "en", chars="", known="")[:30]), found
    assert "\\[ x \\] (" in found[0]  # the characters named, escaped: shown as text, never a link
    assert t_plain("common.kept_last_good", "en") not in found[0]  # nothing was translated before
    assert not step_maps(at) and fuzz.settings_in_link(at)["text"] == "[x](http://e.example)"


def test_the_checkpoint_slider_moves_the_marker_and_the_recorded_cross_attention():
    record = json.loads(RECORD_PATH.read_text(encoding="utf-8"))
    checkpoints = record["checkpoints"]
    at = opened()
    marker = [row for row in chart(at, "loss") if row["kind"] == "mark"]
    assert [row["epoch"] for row in marker] == [checkpoints[-1]["epoch"]]
    last = record["checkpoints"][-1]["sentences"]["早上好"]
    assert_map_shows(at, "s2t_ckpt_l2h1", np.asarray(last["cross_weights"])[1, 0])
    assert f"{len(record['held_out']['results'])} of {len(record['held_out']['results'])}" in " ".join(
        m.value for m in at.markdown)
    at.select_slider(key="s2s_ckpt").set_value(0).run()
    ok(at)
    marker = [row for row in chart(at, "loss") if row["kind"] == "mark"]
    assert [row["epoch"] for row in marker] == [checkpoints[0]["epoch"]]
    first = np.asarray(checkpoints[0]["sentences"]["早上好"]["cross_weights"])  # (layers, heads, words, characters)
    assert_map_shows(at, "s2t_ckpt_l2h1", first[1, 0])
    assert step_maps(at)["s2t_ckpt_l2h1"]["rows"] == checkpoints[0]["sentences"]["早上好"]["tokens"]
    assert "0 of 10" in " ".join(m.value for m in at.markdown)
    # near-uniform before training, aligned after: the mean of each row's largest weight grows
    assert first.max(axis=-1).mean() < np.asarray(last["cross_weights"]).max(axis=-1).mean() - 0.2


def test_a_watched_sentence_typed_is_the_one_watched_learning():
    at = opened(text="马追狗")
    ok(at)
    assert step_maps(at)["s2t_ckpt_l1h1"]["cols"] == ["马", "追", "狗"]
    assert output(at) == "the horse chases the dog"  # held out of training, and still right


def test_the_page_s_own_link_opens_the_same_view():
    at = opened()
    at.text_input(key="s2s_text").set_value("人咬狗").run()
    at.button(key="s2s_tnext").click().run()
    at.button(key="s2s_tnext").click().run()
    at.select_slider(key="s2s_temp").set_value(150).run()
    at.select_slider(key="s2s_ckpt").set_value(5).run()
    ok(at)
    query = fuzz.link_query(at)
    assert {"text=%E4%BA%BA%E5%92%AC%E7%8B%97", "tstep=3", "temp=150", "ckpt=6", "source=translator"} <= set(
        query.split("&")), query
    fresh = fuzz.check_link(at, "seq2seq", title_key="s2s.title", exact=True)
    assert output(fresh) == "the man bites the dog"
    assert step_maps(fresh) == step_maps(at)
    assert chart(fresh, "next_words") == chart(at, "next_words") and chart(fresh, "loss") == chart(at, "loss")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_huge_text_is_cut_as_the_box_cuts_it_and_an_emoji_is_named_with_the_last_translation_kept(lang, model):
    at = opened(lang)
    at.session_state["s2s_text"] = "狗" * 10_000  # what a crafted message can send: Streamlit cuts it at the box's 40
    at.run()
    ok(at)
    assert at.session_state["s2s_text"] == "狗" * 40
    assert output(at) == translate(model, "狗" * 40).output  # what the model says to 40 dogs, no more work than that
    at.session_state["s2s_text"] = "狗咬🙂"
    at.run()
    ok(at)
    assert output(at) == translate(model, "狗" * 40).output  # the last good translation stays
    assert any("🙂" in text for text in fuzz.errors(at)), fuzz.errors(at)
