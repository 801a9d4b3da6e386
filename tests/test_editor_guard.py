"""A sent table no visitor editing a fixed table could have sent is refused by name, on every editable page.

Every editable page checks its editors' sent tables through one function, the kit's :meth:`ui.editing.Editors.check`
(``ui.guard``, ``selfattn.display.guard.matrix_editor_problem``), before anything reads them. So the crafted states
are tried here once, as plain calls of that function with the very tables each page hands it (recorded from one
AppTest run of the page), against every table of every page: the state is dropped, the editors start a new
generation, and the notice names the table and the reason. One crafted state a page also goes over a hosted
server's websocket, where the cost and the page's words are measured (tests/test_hostile.py,
tests/test_hostile_block.py, tests/test_hostile_seq2seq.py).
"""

from __future__ import annotations

import copy
import json

import pytest
import streamlit

from selfattn.i18n import t
from support.apptest import open_page, shown
from ui import links
from ui.editing import Editors

PAGES = ("playground", "block", "seq2seq")


def with_cell(rows, row: int, col: int, value) -> list:
    cells = [list(r) for r in rows]
    cells[row][col] = value
    return cells


def sent(cells, rev=1, **more) -> dict:
    """A matrix editor's state as Streamlit keeps it: the full table as typed."""
    return {"table": {"rev": rev, "cells": cells}, **more}


# name: (the crafted state, from the table's rows and each column's most characters; the reason named)
CRAFTED = {
    "10,000 rows": (lambda rows, chars: sent([rows[0]] * 10_000), "fixed size"),
    "a row more": (lambda rows, chars: sent([*rows, rows[0]]), "fixed size"),
    "a column more": (lambda rows, chars: sent([[*r, "1"] for r in rows]), "column this table does not have"),
    "a megabyte in a cell": (lambda rows, chars: sent(with_cell(rows, 0, -1, "1" * 900_000)),
                             "longer than its column takes"),
    "one character past its column": (lambda rows, chars: sent(with_cell(rows, 0, 0, "y" * (chars[0] + 1))),
                                      "longer than its column takes"),
    "an object in a cell": (lambda rows, chars: sent(with_cell(rows, 0, -1, {"nested": [1, 2]})),
                            "longer than its column takes"),
    "a number in a cell": (lambda rows, chars: sent(with_cell(rows, 0, -1, 5)), "longer than its column takes"),
    "a revision as text": (lambda rows, chars: sent(rows, rev="1"), "not an edit of a table"),
    "text for the table": (lambda rows, chars: sent("1,0,1,0"), "not an edit of a table"),
    "a key more": (lambda rows, chars: sent(rows, extra="x" * 1000), "not an edit of a table"),
}


@pytest.fixture(scope="module")
def checked():
    """{page: (its Editors, the tables it hands Editors.check on opening, check's keyword arguments)}, from one
    AppTest run of each page (the pages build these from their own tables, sizes and limits)."""
    calls = {}
    real = Editors.check

    def spy(self, tables, **limits):
        tables = list(tables)
        calls.setdefault(self.slot, (self, copy.deepcopy(tables), limits))
        return real(self, tables, **limits)

    found = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Editors, "check", spy)
        for page in PAGES:
            calls.clear()
            open_page(page)
            assert len(calls) == 1, (page, list(calls))
            found[page] = next(iter(calls.values()))
    return found


def check(editors: Editors, tables, limits, table: str, state) -> dict:
    """Editors.check with ``state`` as ``table``'s editor sent it; the session as it is afterwards."""
    session = {editors.slot: {"version": 0}}
    if state is not None:
        session[f"{editors.prefix}{table}_0"] = state
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(streamlit, "session_state", session)
        editors.check(tables, **limits)
    return session


@pytest.mark.parametrize("name", list(CRAFTED))
@pytest.mark.parametrize("page", PAGES)
def test_a_crafted_table_is_dropped_and_named_on_every_table_of_every_page(checked, page, name):
    editors, tables, limits = checked[page]
    craft, why = CRAFTED[name]
    assert tables
    for table, rows, max_chars, label in tables:
        session = check(editors, tables, limits, table, craft(rows, max_chars))
        assert f"{editors.prefix}{table}_0" not in session, (page, table)  # dropped: nothing reads it
        state = session[editors.slot]
        assert state["version"] == 1, (page, table)  # every editor mounts again from the page's tables
        kind, what, params = state["notice"]
        said = shown(t(what, "en", **params))  # as a reader sees the markdown
        assert kind == "warning" and f"A change to {label} was not used" in said and why in said, (page, table, said)


@pytest.mark.parametrize("page", PAGES)
def test_an_edit_a_visitor_can_make_is_taken(checked, page):
    """The check could fail: a cell typed within its column, in every table, is left for the page to read."""
    editors, tables, limits = checked[page]
    for table, rows, max_chars, label in tables:
        typed = sent(with_cell(rows, 0, len(max_chars) - 1, "7"))
        session = check(editors, tables, limits, table, json.loads(json.dumps(typed)))
        assert session[f"{editors.prefix}{table}_0"] == typed, (page, table)
        assert session[editors.slot] == {"version": 0}, (page, table)  # no new generation, no notice


def test_a_page_opened_from_another_starts_a_new_generation(checked):
    editors, tables, limits = checked["playground"]
    session = {editors.slot: {"version": 3}, links.ENTERED: True}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(streamlit, "session_state", session)
        editors.check(tables, **limits)
    assert session[editors.slot]["version"] == 4 and links.ENTERED not in session
