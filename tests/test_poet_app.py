"""The tiny poet's page through AppTest: it opens in both languages with a poem of the form, the step view's
probabilities add up to 1, bad input is named with the last good poem kept, and the link brings the view back."""

from __future__ import annotations

import re

import pytest

from selfattn.i18n import t
from support.apptest import open_link, open_page, shown, texts


def errors(at) -> str:
    return "\n".join(shown(e.value) for e in at.error)


def link_of(at) -> dict:
    params = at.query_params.to_dict() if hasattr(at.query_params, "to_dict") else dict(at.query_params)
    return {k: v[0] if isinstance(v, list) else v for k, v in params.items()}


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
    poem = at.session_state["po_good"]
    assert_form(poem, 4)
    assert [line[0] for line in poem.lines] == list("春夏秋冬")  # the default acrostic
    assert poem.lines[0] in texts(at)
    successes = [s.value for s in at.success]
    assert len(successes) == 2  # the cache check and the torch check, both tiny
    assert all(float(re.findall(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?", s)[-1]) < 1e-9 for s in successes), successes


def test_the_step_view_shows_probabilities_adding_up_to_one():
    at = open_page("poet")
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
    good = at.session_state["po_good"].text
    at.text_input(key="po_acrostic").set_value(typed).run()
    assert not at.exception
    assert words in errors(at), errors(at)
    assert at.text_input(key="po_acrostic").value == typed  # kept visible, as typed
    assert at.session_state["po_good"].text == good and good.split("，")[0] in texts(at)


def test_ten_thousand_characters_are_refused_by_name_and_the_last_good_poem_kept():
    at = open_page("poet")
    good = at.session_state["po_good"].text
    at.text_input(key="po_acrostic").set_value("春" * 10_000).run()
    assert not at.exception
    assert "`acrostic`" in "\n".join(w.value for w in at.warning)  # the guard names the setting put back
    assert at.session_state["po_good"].text == good


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
    at.select_slider(key="po_step").set_value(3).run()
    assert not at.error, errors(at)
    params = link_of(at)
    assert params == {"acrostic": "山水花鸟", "seed": "7", "topk": "20", "temp": "120", "topp": "90", "step": "4"}
    poem = at.session_state["po_good"]
    back = open_link("poet", params)
    assert not back.exception and not back.warning and not back.error
    assert back.session_state["po_good"].text == poem.text
    assert back.session_state["po_step"] == 3 and back.session_state["po_seed"] == 7
    first = open_link("poet", {"mode": "first", "first": "白日依山尽", "greedy": "1", "lang": "zh"})
    assert not first.exception and not first.error
    poem = first.session_state["po_good"]
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
    at = open_page("poet")
    assert "Training is off on this shared demo" in texts(at)
    at.number_input(key="po_top_k").set_value(500).run()
    assert "top-k must be a whole number from 1 to 200" in errors(at)
    at.text_input(key="po_acrostic").set_value("春夏秋冬" * 5).run()
    assert "at most 16" in errors(at)


def test_the_checkpoints_write_the_same_seed_from_noise_to_form():
    at = open_page("poet")
    options = at.select_slider(key="po_ckpt").options
    assert len(options) >= 3
    at.select_slider(key="po_ckpt").set_value(options[0]).run()
    assert not at.exception and not at.error, errors(at)
    assert "At step 0 of" in texts(at)


def test_a_link_to_a_checkpoint_and_a_step_past_the_end_opens_within_the_poem():
    at = open_link("poet", {"ckpt": "31", "step": "999"})
    assert not at.exception and not at.error, errors(at)
    assert at.session_state["po_ckpt"] == 31 and at.session_state["po_step"] == 19  # 20 characters: the last
    assert "At step 31 of" in texts(at) and "Character 20 of 20" in texts(at)
