"""The tiny poet's page through AppTest: it opens in both languages with a poem of the form, in parts (only the open
one runs, ``part=`` in the link); the step view's probabilities add up to 1, Play walks the characters with the step in
the link, the K and V cache grows a row a step and equals a full pass; bad input is named with the last good poem
kept; the link brings the view back; one ZIP holds every table with settings.txt."""

from __future__ import annotations

import re

import pytest

from selfattn.i18n import t
from support.apptest import choice_widget, open_link, open_page, shown, texts


def open_part(at, part: str):
    """Open ``part`` of the poet (ui/parts.py) in the session ``at``, as a click on its tab does."""
    at.session_state["po_part"] = part
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def errors(at) -> str:
    return "\n".join(shown(e.value) for e in at.error)


def link_of(at) -> dict:
    params = at.query_params.to_dict() if hasattr(at.query_params, "to_dict") else dict(at.query_params)
    return {k: v[0] if isinstance(v, list) else v for k, v in params.items()}


def poem_of(at):
    """The poem the session ``at`` shows: the one its last good request writes (the session keeps the request)."""
    from selfattn.poet import generate
    from ui.poet.page import OWN, shipped_poem

    request = at.session_state["po_good"]
    try:
        run = at.session_state[OWN]  # the visitor's own trained run, while the page writes with it
    except KeyError:
        run = None
    return shipped_poem(request) if run is None else generate(run.poet, **request)


def assert_form(poem, lines: int | None = None) -> None:
    assert len(poem.lines) in (4, 8) and all(len(line) == 5 for line in poem.lines), poem.text
    if lines is not None:
        assert len(poem.lines) == lines
    for i, line in enumerate(poem.lines):
        assert f"{line}{'，' if i % 2 == 0 else '。'}" in poem.text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_opens_with_a_poem_of_the_form(lang):
    at = open_page("poet", lang)
    assert t("po.title", lang) in at.title[0].value
    assert not at.exception and not at.error, errors(at)
    poem = poem_of(at)
    assert_form(poem, 4)
    assert [line[0] for line in poem.lines] == list("春夏秋冬")  # the default acrostic
    assert poem.lines[0] in texts(at)
    from selfattn.poet.charts import nats_per_character

    assert [m.value for m in at.metric] == ["16", "4", f"{nats_per_character(poem):.2f}"]  # drawn, given, nats
    successes = [s.value for s in at.success]
    assert len(successes) == 2  # the cache check and the torch check, both tiny
    assert all(float(re.findall(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?", s)[-1]) < 1e-9 for s in successes), successes


def test_a_session_keeps_its_request_not_its_poem_and_another_seed_writes_another():
    """A poem's steps hold 4 MB: a class whose visitors each kept their own grew the server 9-12 MB a visitor. A
    session keeps its last good request (a few settings); the poem is the process's, shared or written again."""
    from selfattn.poet import Poem

    first, second = open_page("poet", "en"), open_page("poet", "zh")
    for at in (first, second):
        held = [key for key in at.session_state.keys() if isinstance(at.session_state[key], Poem)]
        assert not held, held
    assert first.session_state["po_good"] == second.session_state["po_good"]
    assert poem_of(first) is poem_of(second)  # one poem in the process for both
    other = open_link("poet", {"seed": "7"})
    assert other.session_state["po_good"]["seed"] == 7 and poem_of(other).text != poem_of(first).text
    assert poem_of(other).lines[0][0] == "春"  # the same acrostic, drawn with another seed
    assert poem_of(other).lines[0] in texts(other)


def test_the_step_view_shows_probabilities_adding_up_to_one():
    at = open_part(open_page("poet"), "step")
    at.button(key="po_next").click().run()  # the 2nd character: drawn, not given
    assert at.session_state["po_step"] == 1
    text = texts(at)
    assert "Character 2 of 20" in text
    total = float(re.search(r"probabilities add up to (\d+\.\d+)", text).group(1))
    assert abs(total - 1.0) < 1e-6
    assert "Drawn with the uniform number" in text
    table = at.dataframe[0].value
    assert len(table) == 12 and (table.iloc[:, 2] <= 1).all()
    at.button(key="po_back").click().run()
    assert at.session_state["po_step"] == 0 and "Given by you" in texts(at)


@pytest.mark.parametrize("typed, words", [("鑫花春夏", "鑫: not in the poems it learned from"),
                                          ("春夏秋冬😀", "😀: the poet writes Chinese characters only"),
                                          ("", "The acrostic is empty"),
                                          ("春" * 80, "An acrostic needs 4 or 8 characters, one a line; this one has 80")],
                         ids=["unknown", "emoji", "empty", "long"])
def test_bad_input_is_named_and_the_last_good_poem_kept(typed, words):
    at = open_page("poet")
    good = poem_of(at).text
    at.text_input(key="po_acrostic").set_value(typed).run()
    assert not at.exception
    assert words in errors(at), errors(at)
    assert at.text_input(key="po_acrostic").value == typed  # kept visible, as typed
    assert poem_of(at).text == good and good.split("，")[0] in texts(at)


def test_ten_thousand_characters_are_refused_by_name_and_the_last_good_poem_kept():
    at = open_page("poet")
    good = poem_of(at).text
    at.text_input(key="po_acrostic").set_value("春" * 10_000).run()
    assert not at.exception
    assert "`acrostic`" in "\n".join(w.value for w in at.warning)  # the guard names the setting put back
    assert poem_of(at).text == good


def test_unknown_characters_are_named_in_chinese():
    at = open_page("poet", "zh")
    at.text_input(key="po_acrostic").set_value("鑫花春夏").run()
    assert "鑫：它学过的诗里没有" in errors(at)


def test_the_link_brings_the_view_back():
    at = open_page("poet")
    at.text_input(key="po_acrostic").set_value("山水花鸟").run()
    at.number_input(key="po_seed").set_value(7).run()
    at.number_input(key="po_top_k").set_value(20).run()
    at.select_slider(key="po_temp").set_value(120).run()
    at.select_slider(key="po_top_p").set_value(90).run()
    at.button(key="po_part_next").click().run()  # to "One step": the settings above are kept
    choice_widget(at.selectbox, "po_step").set_value(3).run()
    assert not at.error, errors(at)
    params = link_of(at)
    assert params == {"acrostic": "山水花鸟", "seed": "7", "topk": "20", "temp": "120", "topp": "90", "step": "4",
                      "part": "step"}
    poem = poem_of(at)
    back = open_link("poet", params)
    assert not back.exception and not back.warning and not back.error
    assert poem_of(back).text == poem.text
    assert back.session_state["po_step"] == 3 and back.session_state["po_seed"] == 7
    assert "Character 4 of 20" in texts(back)
    first = open_link("poet", {"mode": "first", "first": "白日依山尽", "greedy": "1", "lang": "zh"})
    assert not first.exception and not first.error
    poem = poem_of(first)
    assert poem.lines[0] == "白日依山尽" and poem.settings.greedy
    assert_form(poem)


def test_a_bad_link_is_named_and_the_page_still_writes():
    at = open_link("poet", {"temp": "9999", "acrostic": "鑫花春夏"})
    assert not at.exception
    assert at.warning  # temp refused by name
    assert "鑫" in errors(at)


def test_hosted_mode_bounds_the_sampling_and_offers_no_training(monkeypatch):
    from selfattn.hosting import HOSTED_ENV

    monkeypatch.setenv(HOSTED_ENV, "1")
    at = open_part(open_page("poet"), "learned")
    assert "Training is off on this shared demo" in texts(at)
    open_part(at, "write")
    at.number_input(key="po_top_k").set_value(500).run()
    assert "top-k must be a whole number from 1 to 200" in errors(at)
    at.text_input(key="po_acrostic").set_value("春夏秋冬" * 5).run()
    assert "at most 16" in errors(at)


def test_the_checkpoints_write_the_same_seed_from_noise_to_form():
    at = open_part(open_page("poet"), "learned")
    options = at.select_slider(key="po_ckpt").options
    assert len(options) >= 3
    at.select_slider(key="po_ckpt").set_value(options[0]).run()
    assert not at.exception and not at.error, errors(at)
    assert "At step 0 of" in texts(at)


def test_a_link_to_a_checkpoint_and_a_step_past_the_end_opens_within_the_poem():
    at = open_link("poet", {"ckpt": "31", "step": "999", "part": "step"})
    assert not at.exception and not at.error, errors(at)
    assert at.session_state["po_step"] == 19 and "Character 20 of 20" in texts(at)  # 20 characters: the last
    open_part(at, "learned")
    assert not at.error, errors(at)
    assert at.session_state["po_ckpt"] == 31 and "At step 31 of" in texts(at)


PART_TITLES = {"write": "po.poem_title", "step": "po.step_title", "learned": "po.learn_title",
               "words": "po.words_title"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_part_opens_alone_and_the_next_part_button_walks_them(lang):
    from selfattn.poet.view import PARTS

    at = open_page("poet", lang)
    for i, part in enumerate(PARTS):
        assert at.session_state["po_part"] == part
        assert not at.exception and not at.error, errors(at)
        assert (link_of(at).get("part") or PARTS[0]) == part
        assert t(PART_TITLES[part], lang) in texts(at)
        if part != "write":  # only the open part runs: the settings' boxes are the write part's
            assert not [w for w in at.text_input if w.key == "po_acrostic"]
        at.button(key="po_part_next").click().run()
    assert at.session_state["po_part"] == PARTS[0]  # after the last: back to the first


def cache_rows(at) -> list[int]:
    return [int(n) for n in re.findall(r"K cache, (\d+) rows", texts(at))]


def test_the_k_and_v_cache_grows_a_row_a_step_and_equals_the_full_pass():
    at = open_link("poet", {"part": "step", "step": "1"})
    poem = poem_of(at)
    seen = []
    for k in range(4):
        assert not at.error, errors(at)
        text = texts(at)
        seen.append(cache_rows(at))
        check = re.search(r"equal one full pass over the (\d+) positions read: largest difference "
                          r"(\d+(?:\.\d+)?(?:e[-+]?\d+)?)", text)
        assert check, text
        assert int(check.group(1)) == k + 1 and float(check.group(2)) < 1e-9
        at.button(key="po_next").click().run()
    assert seen == [[1, 1], [2, 2], [3, 3], [4, 4]]  # per layer: <bos>, then a row more each step
    assert poem_of(at).text == poem.text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_play_walks_the_characters_one_a_second_with_the_step_in_the_link(monkeypatch, lang):
    from selfattn.i18n import t_plain
    from ui import play

    now = [1000.0]
    monkeypatch.setattr(play, "clock", lambda: now[0])
    at = open_link("poet", {"part": "step", "step": "17", "lang": lang})  # 20 characters: 3 moves to the last
    assert at.button(key="po_play").label == t_plain("po.play", lang)
    at.button(key="po_play").click().run()
    assert not at.exception and at.button(key="po_play").label == t_plain("po.pause", lang)
    at.run()  # sooner than a second: nothing moves
    assert at.session_state["po_step"] == 16
    for step in (17, 18, 19):
        now[0] += play.SOONEST_S + 0.05
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.session_state["po_step"] == step and link_of(at)["step"] == str(step + 1)
    assert "po_playing" not in at.session_state  # the last character: it stopped
    at.button(key="po_play").click().run()  # Play at the last plays from the first
    assert at.session_state["po_step"] == 0
    open_part(at, "write")  # another part: the play stops
    assert "po_playing" not in at.session_state


def test_one_zip_holds_every_table_of_the_step_and_the_settings(downloads):
    import io
    import zipfile

    import numpy as np
    import pandas as pd

    from selfattn.core.heads import merge_heads
    from selfattn.poet.charts import character_steps

    at = open_link("poet", {"part": "step", "step": "6", "seed": "3"})
    assert not at.error, errors(at)
    poem = poem_of(at)
    step = character_steps(poem)[5]
    archive = zipfile.ZipFile(io.BytesIO(downloads["selfattn-poet.zip"]))
    names = set(archive.namelist())
    layers = len(step.attention)
    expected = {"step6_candidates.csv", "loss.csv", "settings.txt",
                *(f"step6_{m}_layer{i}.csv" for m in ("attention", "k_cache", "v_cache") for i in range(1, layers + 1))}
    assert names == expected, names
    for i in range(layers):
        k = pd.read_csv(io.BytesIO(archive.read(f"step6_k_cache_layer{i + 1}.csv")), index_col=0, encoding="utf-8-sig")
        assert np.array_equal(k.to_numpy(), merge_heads(step.read.cache.keys[i]))  # full precision
        weights = pd.read_csv(io.BytesIO(archive.read(f"step6_attention_layer{i + 1}.csv")), index_col=0,
                              encoding="utf-8-sig")
        assert np.allclose(weights.to_numpy().sum(axis=1), 1.0) and weights.shape[1] == step.position
    note = archive.read("settings.txt").decode("utf-8")
    assert poem.text in note and "seed=3" in note and "step=6" in note and f"6: {step.token}" in note
    # every CSV button of the part is one of the ZIP's tables
    assert {f"poet-step6-{n}.csv" for n in ("candidates",)} <= set(downloads)


def test_locally_a_run_of_one_s_own_trains_one_at_a_time_and_the_page_writes_with_it(monkeypatch):
    """The page's side of "train your own" (selfattn.poet.train.train_live is tested in tests/test_poet_model.py):
    the run's progress is drawn, the page then writes with it and says so, a second run at once is refused while
    one trains, and the visitor goes back to the shipped model."""
    import selfattn.poet.train as training
    from selfattn.poet import checkpoint_poets, generate, load_poet
    from selfattn.poet.train import LiveRun
    import ui.poet.page as page

    early = checkpoint_poets(load_poet())[0]  # another model: the weights at step 0
    asked = []

    def fake(epochs, seed, on_step=None, *, poems=None):
        asked.append((epochs, seed))
        for step in range(1, 4):
            on_step(step, 3, 9.0 - step)
        return LiveRun(poet=early, epochs=epochs, seed=seed, steps=3, seconds=0.5, last_loss=7.0)

    monkeypatch.setattr(training, "train_live", fake)
    at = open_link("poet", {"part": "learned", "seed": "2"})
    shipped = poem_of(at).text
    at.select_slider(key="po_train_epochs").set_value(0.1).run()
    at.button(key="po_train").click().run()
    assert not at.exception and not at.error, errors(at)
    assert asked == [(0.1, 2)]
    own = generate(early, acrostic="春夏秋冬", temperature=0.8, top_k=40, seed=2).text
    assert poem_of(at).text == own != shipped
    assert "The page writes with your own run: 0.1 passes from seed 2, 3 steps in 0.5 s" in texts(at)
    open_part(at, "write")
    assert own.split("，")[0] in texts(at) and len(at.success) == 2  # its own cache and torch checks pass
    open_part(at, "learned")
    assert page.training.TRAINING.acquire(blocking=False)  # a run going on in another session (any page's)
    try:
        at.button(key="po_train").click().run()
        assert "Another run is training in this app now" in "\n".join(w.value for w in at.warning)
        assert asked == [(0.1, 2)]
    finally:
        page.training.TRAINING.release()
    at.button(key="po_train_back").click().run()
    assert poem_of(at).text == shipped
