"""Helpers for the Transformer block page's AppTest and fuzz tests (tests/test_block_app.py, tests/test_fuzz_block.py):
test files import no other test file (tests/test_tiers.py), so what they share lives here.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from selfattn.block import view as tbv
from selfattn.i18n import t, t_plain
from support.apptest import choice_widget, editors, step_maps
from tests import fuzz

def ok(at) -> None:
    assert not at.exception, [e.value for e in at.exception]
    fuzz.check_page(at, "tb.title")


def check_line(at) -> str | None:
    """The "checked against torch" (toy) or "against the model's own hidden state" (real) line, if shown."""
    lang = fuzz.lang_of(at)
    starts = (t("tb.checked_torch", lang, layers=0, diff="0").split("`")[0],
              t("tb.checked_model", lang, model="M", layer=0, diff="0", wdiff="0").split("M")[0])
    return next((text for kind, text in fuzz.alerts(at.main) if kind == "success" and text.startswith(starts)), None)


def errors(at) -> list[str]:
    return [text for kind, text in fuzz.alerts(at.main) if kind in ("error", "warning")]


def maps(at) -> dict:
    """Every map's cells, by key (the focus line of the norms is not a map)."""
    return {key: data["cells"] for key, data in step_maps(at).items()}


def link(at) -> dict[str, str]:
    return dict(parse_qsl(fuzz.link_query(at), keep_blank_values=True))


def label(at, table: str) -> str:
    layer, part = tbv.split_id(table)
    return "X" if table == "x" else t_plain(f"tb.table_{part}", fuzz.lang_of(at), layer=layer + 1)


def cells(at, table: str) -> list[list[str]]:
    """What an editor holds: what was sent to it, else what it was mounted with."""
    data = editors(at)[label(at, table)]
    sent = at.session_state[data["instance"]] if data["instance"] in at.session_state else None
    return [list(r) for r in (sent["table"]["cells"] if sent and "table" in sent else data["cells"])]


def send(at, table: str, row: int, col: int, text: str) -> None:
    """The state an editor sends after one cell is typed, then a run (as Enter in the browser)."""
    data = editors(at)[label(at, table)]
    rev = 0
    if data["instance"] in at.session_state and at.session_state[data["instance"]]:
        rev = at.session_state[data["instance"]]["table"]["rev"]
    table_cells = cells(at, table)
    table_cells[row][col] = text
    at.session_state[data["instance"]] = {"table": {"rev": rev + 1, "cells": table_cells}}
    at.run()


def number(at, key: str, value) -> None:
    at.number_input(key=key).set_value(value).run()


def pick(at, kind: str, key: str, value) -> None:
    choice_widget(getattr(at, kind), key).set_value(value).run()
