"""Shareable links through AppTest: a fresh session opened on a page's link shows exactly the same page.

Each test changes several controls (a hand edit of a matrix editor's cell included), copies the link's
parameters into a brand-new AppTest, as a visitor who opens the link in a new tab, and compares
every table, chart, metric and code block. Mangled links open with a message naming what was
not used, and no traceback.
"""

from __future__ import annotations

import json
import random
from urllib.parse import parse_qsl, urlencode

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from selfattn.core.heads import MISTAKES
from selfattn.display import share
from support import apptest
from support.apptest import open_folded, choice_widget, edit, heatmap_specs, open_page, open_part, sidebar_link
from ui import state as settings


def open_link(page: str, params: dict[str, str]) -> AppTest:
    """A new session that opens ``/<page>?<params>`` directly, as a new browser tab does."""
    at = apptest.open_link(page, params)
    assert not at.exception, [e.value for e in at.exception]
    return at


def page_link(at: AppTest) -> str:
    """The link the sidebar offers to copy."""
    return sidebar_link(at)


def shown(at: AppTest) -> dict:
    """Everything the main area shows that comes from the numbers: tables, charts, step maps, metrics, worked-out lines."""
    return {"tables": [f.value.to_csv() for f in at.dataframe if f.proto.editing_mode == 0],
            "cells": apptest.playground_tables(at) if "pg" in at.session_state else {},  # as typed, edits included
            "charts": json.dumps(heatmap_specs(at), sort_keys=True, default=str),  # specs with their cells
            "maps": json.dumps(apptest.step_maps(at), sort_keys=True),  # the Playground's step maps, as drawn
            "metrics": [(m.label, m.value) for m in at.metric],
            "text": [c.value for c in at.main.text],
            "markdown": [m.value for m in at.main.markdown]}


def assert_same_page(a: AppTest, b: AppTest) -> None:
    left, right = shown(a), shown(b)
    for part in left:
        assert left[part] == right[part], part
    assert page_link(a).split("?")[-1] == page_link(b).split("?")[-1]


def reopened(at: AppTest, page: str) -> AppTest:
    params = dict(at.query_params)
    assert page_link(at).endswith(f"/{page}?{urlencode(params)}")
    return open_link(page, params)


def test_playground_link_brings_back_preset_toggles_focus_labels_and_hand_edits():
    at = open_page("playground")
    at.number_input(key="pg_n").set_value(5).run()
    choice_widget(at.selectbox, "pg_preset").set_value("random").run()  # drawn at the sizes chosen
    at.number_input(key="pg_seed").set_value(7).run()
    at.toggle(key="pg_causal").set_value(True).run()
    at.toggle(key="pg_bias").set_value(True).run()
    edit(at, "x", 1, "x2", "0.1")  # a hand edit, the shortest text of 0.1
    edit(at, "x", 3, "token", "早_~!")  # a label with the link's own separators
    edit(at, "b_v", 0, "v1", "1e-3")
    choice_widget(at.selectbox, "pg_focus").set_value(3).run()
    assert not at.exception and not at.error
    params = dict(at.query_params)
    assert params["preset"] == "random" and params["seed"] == "7" and params["focus"] == "4"
    assert params["dx"] == "1.1.0.1"  # only the edited cell
    assert params["bv"] == "1e-3_0_0"  # a one-row table is as short written in full
    fresh = reopened(at, "playground")
    assert_same_page(at, fresh)
    assert apptest.playground_tables(fresh)["tokens"][3] == "早_~!"
    assert {m["focus"] for m in apptest.step_maps(fresh).values()} == {3}  # every map marks the focus token
    assert apptest.step_maps(fresh)["queries"]["rows"][3] == "早_~!"


def test_playground_link_keeps_a_bad_cell_as_typed_and_the_last_good_numbers_stay_unlinked():
    at = open_page("playground")
    edit(at, "w_q", 0, "q1", "2")
    edit(at, "w_k", 2, "k3", "abc")
    fresh = open_link("playground", dict(at.query_params))
    assert apptest.playground_tables(fresh)["w_k"][2][2] == "abc"
    assert "W_k" in apptest.shown(fresh.error[0].value)  # named under its editor, as in the session that made the link
    assert apptest.playground_tables(fresh)["w_q"][0][0] == "2"


def test_the_largest_playground_opens_from_its_link_with_every_cell_typed():
    at = open_page("playground")
    for field, value in (("pg_n", 32), ("pg_d_in", 16), ("pg_d_k", 16), ("pg_d_v", 16)):
        at.number_input(key=field).set_value(value).run()
    rng = np.random.default_rng(0)
    tables = apptest.playground_tables(at)
    for name in ("x", "w_q", "w_k", "w_v"):  # every cell a 17-digit float, as an upload of long floats gives
        rows, cols = len(tables[name]), len(tables[name][0])
        tables[name] = tuple(tuple(repr(float(v)) for v in row) for row in rng.standard_normal((rows, cols)))
    apptest.set_playground_tables(at, tables)  # new editors drawn from these tables
    at.run()
    query = urlencode(dict(at.query_params))
    assert 20_000 < len(query) <= share.MAX_LINK_CHARS, len(query)
    assert_same_page(at, open_link("playground", dict(at.query_params)))


def test_an_uploaded_label_longer_than_a_link_takes_opens_with_the_same_tables():
    """An upload may bring a 60-character label (the tables use its first 24): the link carries it as
    the tables show it, instead of one the page refuses (found by tests/test_fuzz_playground.py)."""
    at = open_page("playground")
    open_folded(at, "pg_import_panel").selectbox(key="pg_upload_target").set_value("x").run()
    open_folded(at, "pg_import_panel").get("file_uploader")[0].set_value(("x.csv", (",x1,x2,x3,x4\n" + "L" * 60 + ",1,0,0,1\n狗,0,1,1,0\n").encode(),
                                          "text/csv")).run()
    fresh = reopened(at, "playground")
    assert not fresh.warning  # nothing in the link was ignored
    assert shown(fresh)["tables"] == shown(at)["tables"] and shown(fresh)["charts"] == shown(at)["charts"]
    assert shown(at)["maps"] != "{}" and shown(fresh)["maps"] == shown(at)["maps"]


@pytest.mark.parametrize("page, chooser, shown, hidden, box, typed, param", [
    ("heads", "hd_input", "sentence", "random", "hd_text", "猫坐在垫子上", "text"),
    ("embeddings", "emb_source", "hf", "auto", "emb_model", "/tmp", "model"),
])
def test_a_setting_whose_box_is_hidden_stays_in_the_link(page, chooser, shown, hidden, box, typed, param):
    """The Heads sentence while the input is random, the model name while another source is chosen:
    still in the link runs later (they once dropped out after one run; found by the fuzz tests)."""
    at = open_page(page)
    choice_widget(at.selectbox, chooser).set_value(shown).run()
    at.text_input(key=box).set_value(typed).run()
    choice_widget(at.selectbox, chooser).set_value(hidden).run()
    at.run()
    assert dict(at.query_params)[param] == typed


def test_embeddings_link_brings_back_sentence_source_toggles_and_the_head():
    at = open_page("embeddings")
    choice_widget(at.segmented_control, "emb_mode").set_value("pair").run()
    at.text_input(key="emb_text").set_value("猫坐在垫子上").run()
    at.text_input(key="emb_text_b").set_value("The weather is good").run()
    choice_widget(at.selectbox, "emb_source").set_value("minilm").run()
    choice_widget(at.radio, "emb_kind").set_value("contextual").run()
    at.slider(key="emb_dims").set_value(8).run()
    at.toggle(key="emb_unit").set_value(False).run()
    at.toggle(key="emb_scale").set_value(True).run()
    open_part(at, "embeddings", "model")  # the layer and head are part 2's (ui/parts.py)
    at.slider(key="emb_layer").set_value(3).run()
    at.slider(key="emb_head").set_value(2).run()
    assert not at.exception
    fresh = reopened(at, "embeddings")
    assert_same_page(at, fresh)
    assert fresh.session_state["emb_text"] == "猫坐在垫子上"


def test_heads_link_brings_back_input_heads_mask_panels_and_benchmark_settings():
    at = open_page("heads")
    at.number_input(key="hd_seed").set_value(3).run()
    at.number_input(key="hd_n").set_value(9).run()
    at.selectbox(key="hd_d").set_value(32).run()
    at.select_slider(key="hd_heads").set_value(8).run()
    at.toggle(key="hd_causal").set_value(True).run()
    open_part(at, "heads", "check")  # the mistake panels' part (ui/parts.py)
    at.session_state[f"hd_open_{MISTAKES[0]}"] = False
    at.session_state[f"hd_open_{MISTAKES[1]}"] = True
    at.session_state["hd_open"] = [MISTAKES[1]]
    at.run()
    assert_same_page(at, reopened(at, "heads"))  # the check part, its panels, for the input of the first
    open_part(at, "heads", "bench")
    at.multiselect(key="hd_bench_lens").set_value([64]).run()
    at.selectbox(key="hd_dtype").set_value("bfloat16").run()
    params = dict(at.query_params)
    assert params["open"] == MISTAKES[1] and params["bn"] == "64" and params["heads"] == "8"
    assert params["part"] == "bench"
    assert_same_page(at, reopened(at, "heads"))


def test_language_is_part_of_every_link():
    at = open_page("heads", lang="zh")
    at.toggle(key="hd_causal").set_value(True).run()
    fresh = open_link("heads", dict(at.query_params))
    assert fresh.session_state["lang"] == "zh" and fresh.title[0].value == at.title[0].value


def test_defaults_make_a_bare_link_and_the_first_run_writes_nothing():
    at = open_page("playground")
    assert dict(at.query_params) == {}
    assert page_link(at).endswith("/playground")


MANGLED = {
    "seed": "abc", "scale": "yes", "preset": "../../etc/passwd", "size": "99.99.99.99", "focus": "0",
    "x": "1_2~3", "dwq": "0.99.5", "tok": "a_b", "lang": "xx", "nope": "1", "x" * 10_000: "1",
}


@pytest.mark.parametrize("page", ["playground", "embeddings", "heads", "home"])
def test_a_mangled_link_opens_with_a_message_naming_what_was_ignored(page):
    params = dict(MANGLED)
    params.update({"text": "x" * 10_000, "n": "nan", "d": "17", "model": "/etc/passwd", "dims": "1e400",
                   "heads": "-3", "open": "everything", "bn": "64~64"})
    at = open_link(page, params)
    assert not at.exception
    message = at.warning[0].value
    assert "more" in message and len(message) < 2_000  # a hostile link makes no endless message
    if page == "playground":
        assert "seed" in message and "size" in message
        assert at.session_state["pg_n"] == 3  # nothing beyond the limits


def test_unknown_names_are_listed_short():
    at = open_link("heads", {"nope": "1", "x" * 10_000: "1", "`**bold**": "1", "seed": "4"})
    message = at.warning[0].value
    assert "`nope`" in message and "x" * 22 + "…" in message and "x" * 30 not in message
    assert "`?**bold**`" in message  # a backtick cannot break out of the name's code span
    assert at.session_state["hd_seed"] == 4  # the rest is applied


def test_a_hosted_demo_refuses_a_local_path_as_model(monkeypatch):
    monkeypatch.setenv("SELFATTN_HOSTED", "1")
    at = open_link("embeddings", {"source": "hf", "model": "/etc/passwd"})
    assert "model" in at.warning[0].value
    assert at.session_state["emb_model"] in settings.field("emb_model").codec.options


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_truncated_and_shuffled_links_open_cleanly(seed):
    """A link cut anywhere, or with characters swapped, opens without a traceback (seed printed by pytest)."""
    at = open_page("playground")
    choice_widget(at.selectbox, "pg_preset").set_value("random").run()
    edit(at, "x", 0, "x1", "2.5")
    at.toggle(key="pg_scale").set_value(False).run()
    query = urlencode(dict(at.query_params))
    rng = random.Random(seed)
    for _ in range(4):
        cut = query[: rng.randrange(len(query))]
        chars = list(query)
        i, j = rng.randrange(len(chars)), rng.randrange(len(chars))
        chars[i], chars[j] = chars[j], chars[i]
        for mangled in (cut, "".join(chars)):
            params = dict(parse_qsl(mangled, keep_blank_values=True))
            fresh = open_link("playground", params)
            assert not fresh.exception, (seed, mangled)
