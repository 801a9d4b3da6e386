"""Helpers for the Transformer block page's AppTest and fuzz tests (tests/test_block_app.py, tests/test_fuzz_block.py):
test files import no other test file (tests/test_tiers.py), so what they share lives here.
"""

from __future__ import annotations

from selfattn.block import view as tbv
from selfattn.i18n import t, t_plain
from support.apptest import choice_widget, click_expander, editor_cells, editors, type_cell
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


errors, maps, link = fuzz.errors, fuzz.map_cells, fuzz.link_params  # the names the page's tests use


def label(at, table: str) -> str:
    layer, part = tbv.split_id(table)
    return "X" if table == "x" else t_plain(f"tb.table_{part}", fuzz.lang_of(at), layer=layer + 1)


def shown(at, table: str) -> str:
    """The name of ``table``'s editor, the weights' expander opened first (as a click) where the editor is not drawn:
    a closed expander's editors are not made."""
    name = label(at, table)
    if name not in editors(at) and any(e.proto.id.endswith("-tb_weights") for e in at.main.expander):
        click_expander(at, "tb_weights")
    return name


def cells(at, table: str) -> list[list[str]]:
    """What an editor holds: what was sent to it, else what it was mounted with."""
    return editor_cells(at, shown(at, table))


def send(at, table: str, row: int, col: int, text: str) -> None:
    """The state an editor sends after one cell is typed, then a run (as Enter in the browser)."""
    type_cell(at, shown(at, table), row, col, text)


def number(at, key: str, value) -> None:
    at.number_input(key=key).set_value(value).run()


def pick(at, kind: str, key: str, value) -> None:
    choice_widget(getattr(at, kind), key).set_value(value).run()
