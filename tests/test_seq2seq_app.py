"""The Encoder–decoder page in AppTest: it opens in both languages with its two check lines, every control changes
what is shown, an edit reaches the outputs and the link, the link opens the same view (settings, tables, ZIP), a
click on a cross-attention row picks that target token, and bad input is named while the last good result stays.
Generation plays (the toy's and the translator's): a step about every second to the last, then it stops; Pause
holds it; nothing plays faster or longer than that, whatever reruns or steps a client sends.
"""

from __future__ import annotations

import io
import zipfile

import pytest

from selfattn.i18n import t, t_plain
from selfattn.seq2seq import view as sv
from support.apptest import click_expander, editors, open_link, open_page, open_part, send_pick, step_maps
from tests import fuzz
from tests.seq2seqpage import (cells, checked, errors, forged_click, label, link, maps, maps_in_zip, ok, opened, pick,
                                send, zip_csvs)
from ui import play
from ui.play import SOONEST_S

ZIP = "selfattn-seq2seq.zip"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_opens_with_its_checks_in_both_languages(lang):
    at = open_page("seq2seq", lang)
    ok(at)
    assert at.title[0].value == t("s2s.title", lang)
    assert checked(at)
    shown = maps(at)
    assert {"s2s_memory", "s2s_d1_self1", "s2s_d1_self2", "s2s_d1_cross1", "s2s_d1_cross2", "s2s_outputs"} <= set(shown)
    assert len(shown["s2s_d1_cross1"]) == 3 and len(shown["s2s_d1_cross1"][0]) == 4  # m × n: 3 targets, 4 sources
    assert shown["s2s_d1_self1"][0][1] == "0" and step_maps(at)["s2s_d1_self1"]["mask"][0][1]  # weight 0, masked
    data = step_maps(at)["s2s_d1_cross1"]
    assert data["link"] == "cross:0" and data["group"] == "s2s"
    open_part(at, "seq2seq", "generation")
    assert checked(at) and {"s2s_cache_keys1", "s2s_step_cross"} <= set(maps(at))


def test_every_control_changes_what_is_shown_and_the_checks_stay():
    at = open_page("seq2seq")
    for do, what in ((lambda a: a.number_input(key="s2s_n").set_value(6).run(), "n"),
                     (lambda a: a.number_input(key="s2s_m").set_value(5).run(), "m"),
                     (lambda a: a.number_input(key="s2s_d").set_value(6).run(), "d"),
                     (lambda a: a.selectbox(key="s2s_heads").set_value(3).run(), "heads"),
                     (lambda a: a.number_input(key="s2s_dff").set_value(12).run(), "dff"),
                     (lambda a: a.number_input(key="s2s_enc").set_value(2).run(), "enc"),
                     (lambda a: a.number_input(key="s2s_dec").set_value(2).run(), "dec"),
                     (lambda a: a.selectbox(key="s2s_layer").set_value(1).run(), "layer"),
                     (lambda a: pick(a, "segmented_control", "s2s_norm", "pre"), "norm"),
                     (lambda a: pick(a, "selectbox", "s2s_act", "gelu_tanh"), "act"),
                     (lambda a: a.number_input(key="s2s_seed").set_value(4).run(), "seed"),
                     (lambda a: open_part(a, "seq2seq", "generation"), "the generation part"),
                     (lambda a: pick(a, "selectbox", "s2s_step", 3), "step"),
                     (lambda a: a.button(key="s2s_next").click().run(), "next step")):
        before = maps(at)
        do(at)
        ok(at)
        assert checked(at), what
        assert maps(at) != before, f"{what} changed nothing shown"
    assert at.session_state["s2s_step"] == 4
    at.button(key="s2s_next").click().run()
    assert at.session_state["s2s_step"] == 0  # after the last position, the first again
    click_expander(at, "s2s_weights")
    pick(at, "selectbox", "s2s_edit", "e2")
    assert label(at, "e2w1") in editors(at) and label(at, "d1cq") not in editors(at)


def test_the_weights_editors_are_made_only_while_their_expander_is_open_and_an_edit_outlives_closing_it():
    at = open_page("seq2seq")
    inputs = {label(at, "src"), label(at, "tgt")}
    decoder = {label(at, table) for table in sv.group_tables("d1")}
    assert len(decoder) == 14  # the layer's every weight matrix
    fuzz.weights_made_only_while_open(at, "s2s_weights", inputs, inputs | decoder,
                                      lambda a: send(a, "d1ck", 1, 2, "3"), "dd1ck", "1.2.3")
    ok(at)
    open_part(at, "seq2seq", "generation")  # open across parts, the edit with it
    assert set(editors(at)) == inputs | decoder and cells(at, "d1ck")[1][2] == "3"


def test_an_edit_reaches_the_outputs_and_the_link_and_a_click_picks_the_target_token():
    at = open_page("seq2seq", "zh")
    before = maps(at)
    send(at, "d1ck", 1, 2, "3")
    ok(at)
    assert link(at)["dd1ck"] == "1.2.3"
    after = maps(at)
    assert after["s2s_d1_cross2"] != before["s2s_d1_cross2"] and after["s2s_outputs"] != before["s2s_outputs"]
    assert after["s2s_d1_cross1"] == before["s2s_d1_cross1"]  # column 3 of W_k is head 2's (d_model 4, 2 heads)
    assert after["s2s_d1_self1"] == before["s2s_d1_self1"]  # a cross weight leaves the self-attention alone
    assert after["s2s_memory"] == before["s2s_memory"]  # and the encoder's memory
    assert t_plain("s2s.preset_edited", "zh") in "".join(c.value for c in at.caption)
    send_pick(at, "s2s_d1_cross2", 2)
    ok(at)
    assert at.session_state["s2s_focus"] == 2 and step_maps(at)["s2s_d1_cross1"]["focus"] == 2
    send_pick(at, "s2s_memory", 3)  # a source row picks nothing: the focus is a target token
    assert at.session_state["s2s_focus"] == 2
    send(at, "d1ck", 1, 2, sv.base_rows(sv.View(), "d1ck")[1][2])  # typed back: the link forgets it
    assert "dd1ck" not in link(at) and maps(at)["s2s_outputs"] == before["s2s_outputs"]


def test_the_link_opens_the_same_view_tables_and_zip(downloads):
    at = open_page("seq2seq")
    at.number_input(key="s2s_dec").set_value(2).run()
    at.number_input(key="s2s_d").set_value(6).run()
    at.selectbox(key="s2s_heads").set_value(3).run()
    pick(at, "segmented_control", "s2s_norm", "pre")
    send(at, "src", 2, 1, "-1.5")
    pick(at, "selectbox", "s2s_edit", "d2")
    send(at, "d2ln", 5, 0, "0.25")
    at.selectbox(key="s2s_layer").set_value(1).run()
    open_part(at, "seq2seq", "generation")
    pick(at, "selectbox", "s2s_step", 2)
    ok(at)
    params = link(at)
    assert {"dec", "d", "heads", "norm", "dsrc", "dd2ln", "edit", "layer", "step", "part"} <= set(params), params
    settings_before = {f.key: at.session_state[f.key] if f.key in at.session_state else f.default for f in sv.FIELDS}
    maps_before = maps(at)
    zipped = downloads.pop(ZIP)

    fresh = open_link("seq2seq", params)
    ok(fresh)
    assert not fuzz.ignored_warning(fresh)
    assert {f.key: fresh.session_state[f.key] if f.key in fresh.session_state else f.default
            for f in sv.FIELDS} == settings_before
    assert cells(fresh, "d2ln") == cells(at, "d2ln") and cells(fresh, "src") == cells(at, "src")
    assert maps(fresh) == maps_before and link(fresh) == params
    assert downloads[ZIP] == zipped
    with zipfile.ZipFile(io.BytesIO(zipped)) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    assert {"x.csv", "y.csv", "d2_ln.csv", "e1_wq.csv", "d1_cross_weights_all_heads.csv", "settings.txt"} <= set(members)
    assert all(data.startswith(b"\xef\xbb\xbf") for name, data in members.items() if name.endswith(".csv"))
    assert b"-1.5" in members["x.csv"] and b"0.25" in members["d2_ln.csv"]


def test_the_zip_holds_every_map_of_both_parts_with_the_numbers_the_page_draws(downloads):
    """The ZIP, the same from either part, holds a CSV of every map of the whole-sentence pass and of the generation
    step (at the layer and step chosen), each the numbers and labels its map draws, beside every weight."""
    at = open_page("seq2seq", part="generation")
    at.number_input(key="s2s_dec").set_value(2).run()
    at.selectbox(key="s2s_layer").set_value(1).run()
    at.button(key="s2s_next").click().run()
    csvs = zip_csvs(downloads.pop(ZIP))
    drawn = step_maps(at)
    open_part(at, "seq2seq", "pass")
    assert zip_csvs(downloads.pop(ZIP)) == csvs  # settings.txt differs: the link names the part
    drawn.update(step_maps(at))
    found = maps_in_zip(drawn, csvs)
    assert len(set(found.values())) == len(drawn) == 19  # 13 of the pass (src … outputs), 6 of the step
    assert {found["s2s_memory"], found["s2s_d2_cross2"], found["s2s_cache_values2"], found["s2s_step_self"]} == \
        {"memory", "d2_cross_head2", "step2_values_head2", "step2_self"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bad_input_is_named_and_the_last_good_result_stays(lang):
    at = open_page("seq2seq", lang)
    good = maps(at)
    kept = fuzz.kept_note(lang)
    send(at, "tgt", 1, 1, "inf")
    ok(at)
    assert any(kept in text and "Y" in text for text in errors(at)) and checked(at) and maps(at) == good
    send(at, "d1cv", 0, 0, "abc")
    assert errors(at) and checked(at) and maps(at) == good


@pytest.mark.parametrize("params, named", [({"n": "99"}, "n"), ({"dd1cq": "x.y.z"}, "dd1cq"),
                                           ({"te3wq": "1.2"}, "te3wq"), ({"step": "7"}, "step")])
def test_a_bad_link_is_named_and_the_page_still_shows_a_result(params, named):
    at = open_link("seq2seq", params)
    ok(at)
    warning = fuzz.ignored_warning(at)
    assert warning and named in warning
    assert checked(at)


def test_the_source_map_carries_what_the_browser_preview_needs_and_no_more_than_the_bound():
    """The preview's engine (ui/components/s2s.js) rides on the source map: the settings, the layers not in the
    editors as the server read them (the edited layer's None: the browser reads it from the editors; every layer
    while the weights' expander is closed and its editors are not made), the editors' instances; none while an edit
    is bad (the maps show another view's numbers), none past PREVIEW_NUMBERS."""
    from ui.seq2seq.page import PREVIEW_NUMBERS

    at = open_page("seq2seq")
    at.number_input(key="s2s_enc").set_value(2).run()
    engine = step_maps(at)["s2s_src"]["engine"]  # closed: every layer's numbers, the inputs' editors alone
    assert len(engine["decoder"]) == 1 and all(engine["encoder"]) and len(engine["encoder"]) == 2
    assert engine["decoder"][0] == {table: matrix.tolist() for table, matrix in
                                    sv.decoder_tables(sv.seeded_decoder(4, 8, 0, 0)).items()}
    assert set(engine["instances"]) == {"s2s_src", "s2s_tgt"}
    click_expander(at, "s2s_weights")
    engine = step_maps(at)["s2s_src"]["engine"]
    assert engine["decoder"] == [None] and len(engine["encoder"]) == 2
    assert engine["encoder"][1]["w1"] == sv.encoder_tables(sv.seeded_encoder(4, 8, 0, 1))["w1"].tolist()
    assert {k: engine[k] for k in ("norm_first", "activation", "heads", "n", "m", "d", "dff", "layer")} == {
        "norm_first": False, "activation": "relu", "heads": 2, "n": 4, "m": 3, "d": 4, "dff": 8, "layer": 0}
    assert set(engine["instances"]) == {f"s2s_{t}" for t in ("src", "tgt", *sv.group_tables("d1"))}
    pick(at, "selectbox", "s2s_edit", "e2")
    engine = step_maps(at)["s2s_src"]["engine"]
    assert engine["encoder"][1] is None and engine["decoder"][0]["cq"] == sv.decoder_tables(
        sv.seeded_decoder(4, 8, 0, 0))["cq"].tolist()
    send(at, "tgt", 0, 0, "abc")
    assert errors(at) and "engine" not in step_maps(at)["s2s_src"]

    big = open_link("seq2seq", {"n": "8", "m": "8", "d": "16", "heads": "4", "dff": "64", "enc": "4", "dec": "4"})
    ok(big)
    assert "engine" not in step_maps(big)["s2s_src"]
    carried = sum(m.size for k in range(4) for m in sv.encoder_tables(sv.seeded_encoder(16, 64, 0, k)).values()) + \
        sum(m.size for k in range(1, 4) for m in sv.decoder_tables(sv.seeded_decoder(16, 64, 0, k)).values())
    assert carried > PREVIEW_NUMBERS  # what it would send on every edit


NOW = [0.0]  # the clock a play is timed by in these tests (play_clock)


@pytest.fixture(autouse=True)
def play_clock(monkeypatch) -> None:
    """A play timed by a clock that only :func:`later` moves: how long a page run takes (longer on a loaded machine)
    never decides whether a move was due."""
    NOW[0] = 1000.0
    monkeypatch.setattr(play, "clock", lambda: NOW[0])


def later(at) -> None:
    """A run once the soonest next move is due (as the page's fragment timer asks for one every second)."""
    NOW[0] += SOONEST_S + 0.05
    at.run()


def playing(at, key: str) -> bool:
    return at.button(key=key).label == t_plain("s2s.pause", fuzz.lang_of(at))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_play_moves_the_step_on_once_a_second_to_the_last_then_stops_and_pause_holds_it(lang):
    at = open_page("seq2seq", lang, part="generation")  # m = 3: steps 1, 2, 3
    assert at.button(key="s2s_play").label == t_plain("s2s.play", lang) and not playing(at, "s2s_play")
    at.button(key="s2s_play").click().run()
    ok(at)
    assert playing(at, "s2s_play") and at.session_state["s2s_step"] == 0
    at.run()  # a rerun sooner than a second (asked for, or forged) moves nothing
    assert at.session_state["s2s_step"] == 0
    later(at)
    ok(at)
    assert at.session_state["s2s_step"] == 1 and link(at)["step"] == "2" and playing(at, "s2s_play")
    assert step_maps(at)["s2s_step_self"]["cols"] == ["y1", "y2"]  # the maps of step 2
    at.run()
    assert at.session_state["s2s_step"] == 1
    later(at)
    assert at.session_state["s2s_step"] == 2 and link(at)["step"] == "3"
    assert not playing(at, "s2s_play") and "s2s_playing" not in at.session_state  # the last step: it stopped
    later(at)
    assert at.session_state["s2s_step"] == 2

    at.button(key="s2s_play").click().run()  # Play at the last step plays from the first
    assert at.session_state["s2s_step"] == 0 and playing(at, "s2s_play")
    later(at)
    assert at.session_state["s2s_step"] == 1
    at.button(key="s2s_play").click().run()  # Pause
    ok(at)
    assert not playing(at, "s2s_play")
    later(at)
    later(at)
    assert at.session_state["s2s_step"] == 1 and link(at)["step"] == "2"


def test_a_client_cannot_make_generation_play_forever_and_one_step_has_nothing_to_play():
    """A play makes as many moves as there were steps to the last when it was pressed: a step sent back to the first
    while it plays (Next step past the last) does not start it over."""
    at = open_page("seq2seq", part="generation")
    at.button(key="s2s_play").click().run()  # from step 1 of 3: two moves
    later(at)
    assert at.session_state["s2s_step"] == 1
    at.button(key="s2s_next").click().run()
    at.button(key="s2s_next").click().run()  # 2 -> 3 -> back to 1
    assert at.session_state["s2s_step"] == 0 and playing(at, "s2s_play")
    later(at)
    assert at.session_state["s2s_step"] == 1 and not playing(at, "s2s_play")  # its two moves are spent
    later(at)
    assert at.session_state["s2s_step"] == 1
    at.number_input(key="s2s_m").set_value(1).run()
    ok(at)
    assert at.button(key="s2s_play").disabled
    forged_click(at, "s2s_play")
    ok(at)
    assert "s2s_playing" not in at.session_state and at.session_state["s2s_step"] == 0


@pytest.mark.parametrize("player, step, box", [("s2s_play", "s2s_step", "s2s.step"), ("s2s_tplay", "s2s_tstep", "tr.step")])
def test_a_timer_rerun_that_left_before_a_move_was_drawn_does_not_send_the_play_back(player, step, box):
    """The play's timer asks for a rerun every second with the browser's widgets as they are then: one that left just
    after a move, before the browser drew it, holds the step box at the step before (seen in Chromium on a loaded
    machine). The box is no pick of the visitor's: the play goes on to the last step."""
    at = opened("zh", part="generation") if player == "s2s_tplay" else open_page("seq2seq", part="generation")
    at.button(key=player).click().run()
    assert playing(at, player) and at.session_state[step] == 0
    last = len(next(b for b in at.selectbox if b.label == t_plain(box, "zh" if player == "s2s_tplay" else "en")).options) - 1
    while playing(at, player):
        before = at._tree.get_widget_states()  # the browser's widgets before the move reached it
        later(at)  # the move
        moved = at.session_state[step]
        NOW[0] += SOONEST_S + 0.05
        at._run(before)  # the timer's next rerun, holding the box at the step before
        ok(at)
        assert at.session_state[step] >= moved, "the play went back a step"
    assert at.session_state[step] == last and link(at)[step.removeprefix("s2s_")] == str(last + 1)


def test_the_translator_plays_its_generation_to_the_end_of_the_sentence():
    at = opened("zh", part="generation")
    words = len(at.selectbox(key=next(w.key for w in at.selectbox if w.key.startswith("s2s_tstep__"))).options)
    assert words >= 3
    at.button(key="s2s_tplay").click().run()
    ok(at)
    assert playing(at, "s2s_tplay")
    for step in range(1, words):
        later(at)
        ok(at)
        assert at.session_state["s2s_tstep"] == step and link(at)["tstep"] == str(step + 1)
    assert not playing(at, "s2s_tplay") and "s2s_tplaying" not in at.session_state
    at.button(key="s2s_tplay").click().run()
    later(at)
    at.button(key="s2s_tplay").click().run()  # Pause
    later(at)
    assert at.session_state["s2s_tstep"] == 1 and not playing(at, "s2s_tplay")
