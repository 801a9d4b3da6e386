"""The Playground's link, as the page writes it, opens the View the page shows (AppTest, the page's own preset tables)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from selfattn.playground import link
from selfattn.playground.seeded import seeded_tables
from selfattn.playground.tables import Tables
from support.apptest import playground_tables, choice_widget, edit, open_page, setting, sidebar_link


def english_base(name, seed, sizes):
    return seeded_tables(name, seed, sizes, "en")


def test_the_link_the_page_writes_decodes_into_the_view_on_screen():
    at = open_page("playground")
    at.toggle(key="pg_causal").set_value(True).run()
    at.number_input(key="pg_n").set_value(4.0).run()
    edit(at, "w_k", 1, "k2", "2.5")
    choice_widget(at.selectbox, "pg_focus").set_value(3).run()
    assert not at.exception, [e.value for e in at.exception]
    address = sidebar_link(at)
    params = dict(parse_qsl(urlsplit(address).query))
    assert set(params) == {"causal", "focus", "size", "dwk"}, params
    opened, bad = link.decode(params, english_base)
    assert bad == {}
    assert opened.causal and opened.focus == 3 and opened.tables.sizes.n == 4
    assert opened.tables == Tables(**playground_tables(at))  # every cell as on screen
    assert opened.edits == tuple(sorted(at.session_state["pg"]["edits"].items()))  # the page's typed tables, no more
    assert opened.settings() == {key: setting(at, key) for key in opened.settings()}
