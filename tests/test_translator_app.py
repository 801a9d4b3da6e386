"""The Encoder–decoder page's translator source in AppTest: it opens in both languages and translates; a step, the
temperature and the training checkpoint each change what is shown, and the numbers shown are the ones worked out
here apart from the page (the cross-attention of ``translate``, softmax of its scores, the argmax of the weights, the
record's checkpoints); bad input is named while the last good translation stays; the page's own link opens the same
view.
"""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pyarrow as pa
import pytest

from selfattn.i18n import t_plain
from selfattn.translate import corpus, explain, load, translate
from selfattn.translate.weights import RECORD_PATH
from support.apptest import assert_map_shows, open_part, send_pick, shown, step_maps
from tests import fuzz
from tests.seq2seqpage import maps_in_zip, ok, opened, output, zip_csvs



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


def kept_for(at) -> str | None:
    """The sentence whose translation the page says it still shows after a refusal, or None when it says none."""
    lang = fuzz.lang_of(at)
    before, after = t_plain("tr.kept", lang, sentence="\0").split("\0")
    found = [text for kind, text in fuzz.alerts(at.main) if kind == "info" and text.startswith(before)]
    assert len(found) <= 1, found
    return found[0][len(before):-len(after)] if found else None


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
    assert {"s2t_cross_l1h1", "s2t_memory", "s2t_rows"} <= set(maps)
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
    at = opened(part="generation")
    reference = translate(model, "早上好")
    first = step_maps(at)["s2t_step_l1"]["cells"]
    assert_map_shows(at, "s2t_step_l1", reference.decoder.steps[0].cross_weights[0])
    at.button(key="s2s_tnext").click().run()
    ok(at)
    assert at.session_state["s2s_tstep"] == 1
    assert step_maps(at)["s2t_step_l1"]["cells"] != first
    for layer in (0, 1):
        assert_map_shows(at, f"s2t_step_l{layer + 1}", reference.decoder.steps[1].cross_weights[layer])
    at.button(key="s2s_tnext").click().run()  # the <eos> step, then back to the first
    assert at.session_state["s2s_tstep"] == 2
    assert_map_shows(at, "s2t_step_l2", reference.decoder.steps[2].cross_weights[1])
    at.button(key="s2s_tnext").click().run()
    assert at.session_state["s2s_tstep"] == 0 and step_maps(at)["s2t_step_l1"]["cells"] == first
    open_part(at, "seq2seq", "pass")
    send_pick(at, "s2t_cross_l1h1", 1)  # a click on the word's row of a whole-translation map picks its step
    ok(at)
    assert at.session_state["s2s_tstep"] == 1


def test_the_temperature_reshapes_the_probabilities_softmax_of_the_scores(model):
    at = opened(tstep="2", part="generation")
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
    assert len(found) == 1 and "坏 蛋" in found[0], found
    assert found[0].startswith(t_plain("err.tr_unseen", lang, chars="", known="")[:8])
    assert output(at) == "good morning" and kept_for(at) == "早上好"
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
    assert kept_for(at) is None  # nothing was translated before
    assert not step_maps(at) and fuzz.settings_in_link(at)["text"] == "[x](http://e.example)"


def test_the_checkpoint_slider_moves_the_marker_and_the_recorded_cross_attention():
    record = json.loads(RECORD_PATH.read_text(encoding="utf-8"))
    checkpoints = record["checkpoints"]
    at = opened(part="learned")
    marker = [row for row in chart(at, "loss") if row["kind"] == "mark"]
    assert [row["step"] for row in marker] == [checkpoints[-1]["step"]]
    last = record["checkpoints"][-1]["sentences"]["早上好"]
    assert_map_shows(at, "s2t_ckpt_l2h1", np.asarray(last["cross_weights"])[1, 0])
    assert f"{len(record['held_out']['results'])} of {len(record['held_out']['results'])}" in " ".join(
        m.value for m in at.markdown)
    at.select_slider(key="s2s_ckpt").set_value(0).run()
    ok(at)
    marker = [row for row in chart(at, "loss") if row["kind"] == "mark"]
    assert [row["step"] for row in marker] == [checkpoints[0]["step"]]
    first = np.asarray(checkpoints[0]["sentences"]["早上好"]["cross_weights"])  # (layers, heads, words, characters)
    assert_map_shows(at, "s2t_ckpt_l2h1", first[1, 0])
    tokens = checkpoints[0]["sentences"]["早上好"]["tokens"]  # a word written twice is told apart: man₁, man₂
    assert step_maps(at)["s2t_ckpt_l2h1"]["rows"] == list(explain.labels(tokens))
    assert "0 of 10" in " ".join(m.value for m in at.markdown)
    # near-uniform before training, aligned after: the mean of each row's largest weight grows
    assert first.max(axis=-1).mean() < np.asarray(last["cross_weights"]).max(axis=-1).mean() - 0.2


def test_a_watched_sentence_typed_is_the_one_watched_learning():
    at = opened(text="马追狗", part="learned")
    ok(at)
    assert step_maps(at)["s2t_ckpt_l1h1"]["cols"] == ["马", "追", "狗"]
    assert output(at) == "the horse chases the dog"  # held out of training, and still right


def test_the_page_s_own_link_opens_the_same_view():
    at = opened(part="generation")
    at.text_input(key="s2s_text").set_value("人咬狗").run()
    at.button(key="s2s_tnext").click().run()
    at.button(key="s2s_tnext").click().run()
    at.select_slider(key="s2s_temp").set_value(150).run()
    generation = step_maps(at), chart(at, "next_words")
    open_part(at, "seq2seq", "learned")
    at.select_slider(key="s2s_ckpt").set_value(5).run()
    ok(at)
    query = fuzz.link_query(at)
    assert {"text=%E4%BA%BA%E5%92%AC%E7%8B%97", "tstep=3", "temp=150", "ckpt=6", "source=translator",
            "part=learned"} <= set(query.split("&")), query
    fresh = fuzz.check_link(at, "seq2seq", title_key="s2s.title", exact=True)
    assert output(fresh) == "the man bites the dog"
    assert step_maps(fresh) == step_maps(at) and chart(fresh, "loss") == chart(at, "loss")
    open_part(fresh, "seq2seq", "generation")  # the other part's settings came with the link
    assert (step_maps(fresh), chart(fresh, "next_words")) == generation


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


# ── Issue 50: the alignment by position, what it knows, the decoder's self-attention and cache, steps that only draw,
# and how it learned in one unit ───────────────────────────────────────────────────────────────────────────────────

def note_lines(at) -> list[str]:
    """The lines of "What aligns with what", without their "- "."""
    lang = fuzz.lang_of(at)
    heading = f"#### {t_plain('tr.align_title', lang)}"
    found = [str(m.value) for m in at.markdown]
    return [line.removeprefix("- ") for line in found[found.index(heading) + 1].split("\n")]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_alignment_tells_repeated_characters_apart_and_judges_the_order_on_the_content_words(lang, model):
    """谢谢: the two 谢 are 谢₁ and 谢₂, in the maps' columns and in the note; 人咬狗: the two "the" rows (articles, which
    no character stands for) are left out of the verdict, said so, and the content words man, bites, dog read 人, 咬,
    狗 at positions 1, 2, 3 in both layers: the source's order (the old note said "not in the source's order")."""
    at = opened(lang, text="人咬狗")
    reference = translate(model, "人咬狗")
    mean = reference.cross_weights.mean(axis=1)  # (layers, words, characters), worked out here
    maps = step_maps(at)
    assert maps["s2t_cross_l1h1"]["rows"] == ["the₁", "man", "bites", "the₂", "dog"]
    assert maps["s2t_cross_l1h1"]["cols"] == ["人", "咬", "狗"]
    lines = note_lines(at)
    sep = t_plain("tr.align_sep", lang)
    for layer in range(len(mean)):
        content = [(s, w) for s, w in enumerate(reference.tokens) if w != "the"]
        positions = [int(np.argmax(mean[layer, s])) for s, _ in content]
        assert positions == [0, 1, 2]  # man → 人, bites → 咬, dog → 狗, as the weights say
        chain = sep.join(f"{w} → {reference.source[p]}" for (_, w), p in zip(content, positions))
        assert t_plain("tr.align_in_order", lang, layer=layer + 1, chain=chain, positions="1 → 2 → 3") in lines
    assert not any(line.startswith(t_plain("tr.align_reordered", lang, layer=1, chain="", positions="")[:8])
                   and "→" in line and "1 → 2 → 3" not in line for line in lines)
    assert t_plain("tr.align_left_out", lang, words="“the₁” “the₂”") in lines
    assert any(line.startswith(t_plain("tr.align_function_word", lang, word="the₂", parts="")) for line in lines)

    at.text_input(key="s2s_text").set_value("谢谢").run()
    ok(at)
    reference = translate(model, "谢谢")
    mean = reference.cross_weights.mean(axis=1)
    assert step_maps(at)["s2t_cross_l1h1"]["cols"] == ["谢₁", "谢₂"] == step_maps(at)["s2t_memory"]["rows"]
    lines = note_lines(at)
    for layer in range(len(mean)):
        positions = [int(np.argmax(mean[layer, s])) for s in range(len(reference.tokens))]
        chain = sep.join(f"{w} → 谢{'₁₂'[p]}" for w, p in zip(reference.tokens, positions))
        key = "tr.align_in_order" if positions == sorted(positions) else "tr.align_reordered"
        line = t_plain(key, lang, layer=layer + 1, chain=chain, positions=" → ".join(str(p + 1) for p in positions))
        assert line in lines, (line, lines)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_says_whether_the_sentence_was_in_its_training_set(lang, model):
    at = opened(lang)
    infos = [text for kind, text in fuzz.alerts(at.main) if kind == "info"]
    assert t_plain("tr.in_training", lang, count=158) in infos
    assert not fuzz.errors(at)
    at.text_input(key="s2s_text").set_value("天气很好").run()  # every character known, the sentence never seen
    ok(at)
    assert output(at) == translate(model, "天气很好").output == "see you tomorrow"  # confident, and wrong
    warnings = [text for kind, text in fuzz.alerts(at.main) if kind == "warning"]
    assert warnings == [t_plain("tr.not_in_training", lang, count=158)]
    assert any(text.startswith(t_plain("tr.checked_torch", lang, diff="").split("`")[0]) for text in successes(at))
    at.text_input(key="s2s_text").set_value("马追狗").run()  # held out: never trained on, its right answer known
    ok(at)
    infos = [text for kind, text in fuzz.alerts(at.main) if kind == "info"]
    assert t_plain("tr.held_out_right", lang, reference="the horse chases the dog", count=158) in infos
    assert not fuzz.errors(at)


@pytest.mark.parametrize("typed", ["早上好！", "早上好!", "早上好。", "早上好？"])
def test_punctuation_a_chinese_keyboard_types_is_left_out_not_refused(typed):
    at = opened("zh", text=typed)
    assert not errors(at) and output(at) == "good morning"
    assert t_plain("tr.left_out", "zh", chars=typed[-1]) in [shown(str(c.value)) for c in at.caption]
    assert t_plain("tr.in_training", "zh", count=158) in [text for kind, text in fuzz.alerts(at.main) if kind == "info"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_after_a_refusal_the_kept_translation_is_labelled_with_its_own_sentence(lang):
    at = opened(lang, text="谢谢")
    assert kept_for(at) is None
    assert at.subheader[0].value == t_plain("tr.output_title_of", lang, sentence="谢谢")
    at.text_input(key="s2s_text").set_value("我爱你").run()  # 爱 unknown: refused
    ok(at)
    assert len(errors(at)) == 1 and "爱" in errors(at)[0]
    assert kept_for(at) == "谢谢" and output(at) == "thank you"
    assert at.subheader[0].value == t_plain("tr.output_title_of", lang, sentence="谢谢")
    assert "我爱你" not in "".join(str(h.value) for h in at.subheader)


def test_the_sentences_offered_are_corpus_sentences_and_a_click_translates_one(model):
    from ui.seq2seq.translator import HELD_OUT_EXAMPLES, TRAINED_EXAMPLES

    assert all(corpus.in_training(zh) for zh in TRAINED_EXAMPLES)
    assert all(corpus.find(zh) is not None and corpus.find(zh).held_out for zh in HELD_OUT_EXAMPLES)
    at = opened()
    trained, held = at.button_group(key="s2s_tex_trained"), at.button_group(key="s2s_tex_held")
    assert trained.options and list(trained.options) == list(TRAINED_EXAMPLES)
    assert list(held.options) == list(HELD_OUT_EXAMPLES)
    trained.set_value("人咬狗").run()
    ok(at)
    assert at.session_state["s2s_text"] == "人咬狗" and output(at) == "the man bites the dog"
    assert at.button_group(key="s2s_tex_trained").value in (None, [])  # none stays picked
    at.button_group(key="s2s_tex_held").set_value("马追人").run()
    ok(at)
    assert at.session_state["s2s_text"] == "马追人" and output(at) == translate(model, "马追人").output
    assert fuzz.settings_in_link(at)["text"] == "马追人"


def test_the_decoder_s_masked_self_attention_and_kv_cache_are_shown_in_the_flow_s_order(model):
    """Source → memory → the decoder (each layer: masked self-attention, then cross-attention) → generation with the
    cache. The maps' numbers are worked out here from the core's own full pass (teacher forcing), apart from the page:
    each head's masked self-attention, and at a step, each layer's cached keys and values (the full pass's rows up to
    the step) and the new row's self-attention."""
    from selfattn.core.decoder import encoder_decoder
    from selfattn.core.heads import merge_heads
    from selfattn.seq2seq.text import masked

    at = opened(text="人咬狗", tstep="3")
    ok(at)
    whole = step_maps(at)
    t = translate(model, "人咬狗")
    full = encoder_decoder(model.rows(model.src_embed, list(t.source_ids)), model.rows(model.tgt_embed,
                           list(t.decoder_input)), model.encoder, model.decoder, **model.settings)
    inputs = ["<bos>", "the₁", "man", "bites", "the₂", "dog"]
    for layer, lt in enumerate(full.decoder_layers):
        for h in range(lt.self_weights.shape[0]):
            key = f"s2t_self_l{layer + 1}h{h + 1}"
            assert whole[key]["rows"] == inputs == whole[key]["cols"] and whole[key]["link"].startswith("self:")
            assert_map_shows(at, key, masked(lt.self_weights, lt.self_attention.allowed)[h])
    open_part(at, "seq2seq", "generation")
    maps = step_maps(at)
    for layer, lt in enumerate(full.decoder_layers):
        step = 2  # tstep=3: the decoder has read <bos> the man and writes "bites"
        assert maps[f"s2t_cache_k_l{layer + 1}"]["rows"] == [*inputs[:step], t_plain("tr.cache_new", "en",
                                                                                   token=inputs[step])]
        assert_map_shows(at, f"s2t_cache_k_l{layer + 1}", merge_heads(lt.self_attention.keys[:, : step + 1])[:, :8])
        assert_map_shows(at, f"s2t_cache_v_l{layer + 1}", merge_heads(lt.self_attention.values[:, : step + 1])[:, :8])
        assert_map_shows(at, f"s2t_step_self_l{layer + 1}", lt.self_weights[:, step, : step + 1])
        assert_map_shows(at, f"s2t_step_l{layer + 1}", lt.cross_weights[:, step])
    start = t_plain("tr.cache_same", "en", diff="").split(":")[0]
    assert any(text.startswith(start) for text in successes(at)), successes(at)
    order = list(whole)
    assert (order.index("s2t_memory") < order.index("s2t_self_l1h1") < order.index("s2t_cross_l1h1")
            < order.index("s2t_self_l2h1") < order.index("s2t_cross_l2h1")), order
    assert list(step_maps(at)).index("s2t_cache_k_l1") < list(step_maps(at)).index("s2t_step_l1")
    open_part(at, "seq2seq", "pass")
    titles = [str(h.value) for h in at.subheader]
    assert titles.index(t_plain("tr.memory_title", "en")) < titles.index(t_plain("tr.decoder_title", "en"))


def test_a_step_play_or_the_temperature_only_draws_the_translation_and_torch_s_check_are_worked_out_once(monkeypatch):
    """A step once reran the translation and torch's check (0.1–3 s of the 2-core VM) on every run: now each is worked
    out once per model and sentence, and a step, Play, the temperature and the checkpoint only draw."""
    import ui.seq2seq.translator as page
    from selfattn import memo

    memo.cache("seq2seq.result").clear()
    calls = {"translate": 0, "torch_check": 0}

    def counted(name, function):
        def run(*args, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)
        return run

    monkeypatch.setattr(page, "translate", counted("translate", page.translate))
    monkeypatch.setattr(page, "torch_check", counted("torch_check", page.torch_check))
    at = opened(text="马追鸟", part="generation")  # a sentence no other test opens (the cache is the process's)
    for _ in range(3):
        at.button(key="s2s_tnext").click().run()
        ok(at)
    at.select_slider(key="s2s_temp").set_value(150).run()
    open_part(at, "seq2seq", "learned")
    at.select_slider(key="s2s_ckpt").set_value(3).run()
    open_part(at, "seq2seq", "generation")
    ok(at)
    assert at.session_state["s2s_tstep"] == 3
    assert calls == {"translate": 1, "torch_check": 1}, calls
    # what Play says is what it does: a step a second where the server can, and it says when it cannot
    assert at.button(key="s2s_tplay").help == t_plain("tr.play_help", "en") != t_plain("s2s.play_help", "en")


def test_the_training_slider_and_the_loss_chart_count_in_the_same_training_steps():
    """20 unevenly spaced checkpoints: the slider names each by its step, the chart's x is training steps too (each
    checkpoint a dot at its step, the epochs' losses at each epoch's last step), and the sentence about the watched
    sentence's attention states the figures measured (step 0's 0.47 is not "near-uniform": 3 characters give 0.33)."""
    record = explain.load_record()
    at = opened(part="learned")
    slider = at.select_slider(key="s2s_ckpt")
    assert [str(o) for o in slider.options] == [str(c.step) for c in record.checkpoints]
    rows = chart(at, "loss")
    per = record.steps_per_epoch
    assert per == 10
    assert sorted({r["step"] for r in rows if r["kind"] == "checkpoint"}) == [c.step for c in record.checkpoints]
    assert [r["step"] for r in rows if r["kind"] == "curve"] == [(i + 1) * per for i in range(len(record.loss_curve))]
    spec = next(json.loads(e.proto.spec) for e in at.get("vega_lite_chart")
                if json.loads(e.proto.spec)["usermeta"]["chart"] == "loss")
    assert {layer["encoding"]["x"]["field"] for layer in spec["layer"]} == {"step"}
    assert spec["layer"][0]["encoding"]["x"]["title"] == t_plain("tr.loss_axis_step", "en", per=per)
    captions = " ".join(str(c.value) for c in at.caption)
    assert "near-uniform" not in captions and ", ".join(str(c.step) for c in record.checkpoints) in captions  # in English
    first = record.checkpoints[0].sentences["早上好"].cross_weights.max(axis=-1).mean()
    last = record.checkpoints[-1].sentences["早上好"].cross_weights.max(axis=-1).mean()
    assert t_plain("tr.learn_peaks", "en", sentence="早上好", first=f"{first:.2f}", last=f"{last:.2f}", first_step=0,
                   last_step=record.checkpoints[-1].step, n=3, uniform="0.33") in captions
    assert f"{first:.2f}" == "0.47"
    at.select_slider(key="s2s_ckpt").set_value(2).run()
    ok(at)
    assert [r["step"] for r in chart(at, "loss") if r["kind"] == "mark"] == [record.checkpoints[2].step]
    assert t_plain("tr.ckpt_line", "en", k=3, count=20, step=13, epoch="1.3", train="", held="", right="",
                   total="").split(":")[0] in " ".join(str(m.value) for m in at.markdown)


def test_one_zip_holds_every_map_of_every_part_with_the_numbers_the_page_draws(downloads):
    """Each map carries no CSV button of its own: one ZIP, offered on every part and the same from each, holds every
    map of the translation (the whole sentence's 18, the step's 8, the checkpoint's 8), each CSV the numbers and
    labels its map draws, and settings.txt."""
    at = opened(text="狗咬人", tstep="2")
    zipped = downloads.pop("selfattn-translator.zip")
    csvs, drawn = zip_csvs(zipped), {}
    for part in ("pass", "generation", "learned"):
        open_part(at, "seq2seq", part)
        drawn.update(step_maps(at))
        assert zip_csvs(downloads.pop("selfattn-translator.zip")) == csvs, part  # settings.txt names the part
    assert not [name for name in downloads if name.startswith("translator-")]  # no CSV button a map
    found = maps_in_zip(drawn, csvs)
    assert len(drawn) == 34 and sorted(found.values()) == sorted(csvs), sorted(set(csvs) - set(found.values()))
    assert found["s2t_memory"] == "memory" and found["s2t_cross_l2h3"] == "cross_layer2_head3"
    assert found["s2t_step_l1"] == "step2_cross_layer1" and found["s2t_ckpt_l2h4"].endswith("_cross_layer2_head4")
    assert len(csvs["memory"][1]) == 32  # the CSV holds all d_model columns where the map draws the first 8
    with zipfile.ZipFile(io.BytesIO(zipped)) as archive:
        assert "狗咬人" in archive.read("settings.txt").decode()
