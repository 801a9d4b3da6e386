"""Every key a session holds is declared (ui/state.py): run each page through AppTest, then name
every key of ``st.session_state`` that no table, ``KEPT``, ``WIDGETS`` or declared family holds.

The static check in tests/test_state.py reads the keys written as literals; this one sees what the
pages really write, f-string keys and widget keys included. A family (``dl_*``) is declared
explicitly; a shadow (``_keep_<key>``) or a choice widget (``<key>__<checksum>``) only of a setting.
"""

from __future__ import annotations

import pytest

from support.apptest import choice_widget, open_folded, open_page
from ui.playground import page as pg
from ui import state as settings


def undeclared(at) -> list[str]:
    return sorted(str(key) for key in at.session_state.keys() if not settings.declared(str(key)))


def test_declared_is_exact_for_shadows_choices_and_families():
    assert settings.declared("_keep_pg_scale") and not settings.declared("_keep_pg_scales")
    assert settings.declared("pg_focus__c00bbd55") and not settings.declared("pg_nope__c00bbd55")
    assert settings.declared("_link_bad_heads") and not settings.declared("_link_bad_nowhere")
    assert settings.declared("dl_outputs") and settings.declared("pged_x_3") and settings.declared("_shown_page")
    assert not settings.declared("pg_plant") and not settings.declared("pg_")


def test_the_playground_writes_only_declared_keys():
    at = open_page("playground")
    at.toggle(key="pg_scale").set_value(True).run()
    choice_widget(at.selectbox, "pg_preset").set_value("random").run()
    at.button(key="pg_undo").click().run()
    at.number_input(key="pg_n").set_value(5.0).run()
    choice_widget(at.selectbox, "pg_focus").set_value(2).run()
    choice_widget(at.button_group, "pg_pos").set_value("learned").run()
    open_folded(at, "pg_order_panel").text_input(key="pg_order").set_value("2 1 3 5 4").run()
    at.button(key="pg_order_draw").click().run()
    at.switch_page("pages/home.py").run()
    at.session_state["lang"] = "zh"
    at.switch_page("pages/playground.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert undeclared(at) == []
    assert sorted(set(at.session_state["pg"]) - set(pg.SLOTS)) == []  # the page's own dict: its slots only


@pytest.mark.parametrize("page", ["home", "embeddings", "heads", "block", "seq2seq", "efficient", "poet"])
def test_every_other_page_writes_only_declared_keys(page):
    at = open_page(page)
    at.session_state["lang"] = "zh"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert undeclared(at) == []


def test_the_block_page_writes_only_declared_keys():
    from support.apptest import editors
    from ui.block import page as tb

    at = open_page("block")
    at.number_input(key="tb_layers").set_value(2).run()
    at.selectbox(key="tb_layer").set_value(1).run()
    data = editors(at)["X"]
    cells = [list(r) for r in data["cells"]]
    cells[0][0] = "2"
    at.session_state[data["instance"]] = {"table": {"rev": 1, "cells": cells}}
    at.run()
    at.session_state["tb_part"] = "batch"  # each part, by its tab and the next-part button
    at.run()
    at.toggle(key="tb_batch").set_value(True).run()
    at.button(key="tb_part_next").click().run()  # the last part's button: back to the first
    choice_widget(at.selectbox, "tb_preset").set_value("gpt2").run()
    at.button(key="tb_undo").click().run()
    choice_widget(at.selectbox, "tb_focus").set_value(2).run()
    at.session_state["tb_part"] = "stack"
    at.run()
    at.number_input(key="tb_layers").set_value(1).run()
    at.button(key="tb_stack_make").click().run()
    choice_widget(at.segmented_control, "tb_source").set_value("real").run()
    at.switch_page("pages/home.py").run()
    at.session_state["lang"] = "zh"
    at.switch_page("pages/block.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert undeclared(at) == []
    assert sorted(set(at.session_state["tb"]) - set(tb.SLOTS)) == []  # the page's own dict: its slots only


def test_the_poet_writes_only_declared_keys_in_every_part():
    from selfattn.poet.view import PARTS

    at = open_page("poet")
    at.text_input(key="po_acrostic").set_value("山水花鸟").run()
    for part in PARTS[1:]:
        at.session_state["po_part"] = part
        at.run()
        if part == "step":
            at.button(key="po_next").click().run()
            choice_widget(at.selectbox, "po_step").set_value(3).run()
            at.button(key="po_play").click().run()  # while it plays, the step box is read-only
        if part == "learned":
            at.select_slider(key="po_ckpt").set_value(at.select_slider(key="po_ckpt").options[0]).run()
            at.select_slider(key="po_train_epochs").set_value(0.1).run()
    at.switch_page("pages/home.py").run()
    at.session_state["lang"] = "zh"
    at.switch_page("pages/poet.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert undeclared(at) == []


def test_a_key_asked_alone_is_in_the_session_exactly_when_the_whole_copy_holds_it():
    """support/apptest.py's ``ask_one_key`` (installed for every test by tests/conftest.py) answers ``key in
    at.session_state`` from that key alone; it must answer as AppTest's copy of the whole session state does, for
    every key the Playground holds after an edit (settings, its page slot, widgets' keys, maps' and editors' keys),
    for keys it never held, and for a widget's id, which the copy leaves out."""
    from streamlit.testing.v1.app_test import _AppTestSessionState

    whole = _AppTestSessionState.__contains__.asked_of_the_copy
    at = open_page("playground")
    at.toggle(key="pg_scale").set_value(True).run()
    held = list(at.session_state._state.filtered_state)
    widget_ids = [k for k in at.session_state._state._state._keys() if k.startswith("$$ID")]
    assert len(held) > 20 and widget_ids
    for key in [*held, *widget_ids, "pg_nope", "lang_", "", "$$STREAMLIT_INTERNAL_KEY_x"]:
        assert (key in at.session_state) == whole(at.session_state, key), key
