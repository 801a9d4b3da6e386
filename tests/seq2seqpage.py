"""Helpers for the Encoder–decoder page's AppTest and fuzz tests (tests/test_seq2seq_app.py,
tests/test_fuzz_seq2seq.py): test files import no other test file (tests/test_tiers.py), so what they share lives here.
"""

from __future__ import annotations

from selfattn.i18n import t, t_plain
from selfattn.seq2seq import view as sv
from support.apptest import choice_widget, editor_cells, editors, open_folded, type_cell
from tests import fuzz


def ok(at) -> None:
    assert not at.exception, [e.value for e in at.exception]
    fuzz.check_page(at, "s2s.title")


def lines(at) -> list[str]:
    """The success lines: the torch check and the cache's."""
    return [text for kind, text in fuzz.alerts(at.main) if kind == "success"]


def checked(at) -> bool:
    """The open part's check line: torch's in the whole-sentence pass, the cache's in generation."""
    lang = fuzz.lang_of(at)
    generation = at.session_state["s2s_part"] == "generation" if "s2s_part" in at.session_state else False
    starts = ((t("s2s.cache_same", lang, diff="0")[:12],) if generation else
              (t("s2s.checked_torch", lang, diff="0").split("`")[0],))
    found = lines(at)
    return all(any(text.startswith(start) for text in found) for start in starts)


errors, maps, link = fuzz.errors, fuzz.map_cells, fuzz.link_params  # the names the page's tests use


def label(at, table: str) -> str:
    lang = fuzz.lang_of(at)
    side, layer, part = sv.split_id(table)
    if not side:
        return t_plain(f"s2s.table_{table}", lang)
    names = {"wq": "W_q", "wk": "W_k", "wv": "W_v", "wo": "W_o", "cq": "W_q", "ck": "W_k", "cv": "W_v", "co": "W_o",
             "b": "b", "ln": "γ, β", "w1": "W_1", "b1": "b_1", "w2": "W_2", "b2": "b_2"}
    name = names[part]
    if part in ("cq", "ck", "cv", "co"):
        name = t_plain("s2s.part_cross", lang, name=name)
    return t_plain(f"s2s.table_{side}", lang, name=name, layer=layer + 1)


def shown(at, table: str) -> str:
    """The name of ``table``'s editor, the weights' expander opened first (as a click) where the editor is not drawn:
    a closed expander's editors are not made."""
    name = label(at, table)
    if name not in editors(at):
        open_weights(at)
    return name


def cells(at, table: str) -> list[list[str]]:
    """What an editor holds: what was sent to it, else what it was mounted with."""
    return editor_cells(at, shown(at, table))


def send(at, table: str, row: int, col: int, text: str) -> None:
    """The state an editor sends after one cell is typed, then a run (as Enter in the browser)."""
    type_cell(at, shown(at, table), row, col, text)


def open_weights(at) -> None:
    """The weights' expander opened (as a click) where it is closed: its editors and its layer box are made then."""
    open_folded(at, "s2s_weights")


def pick(at, kind: str, key: str, value) -> None:
    if key == "s2s_edit":  # the layer to edit: a box in the weights' expander
        open_weights(at)
    choice_widget(getattr(at, kind), key).set_value(value).run()


def opened(lang: str = "en", **params: str):
    """The page on its translator source, at a link with ``params``, checked."""
    from support.apptest import open_link

    at = open_link("seq2seq", {"source": "translator", "lang": lang, **params})
    ok(at)
    return at


def output(at) -> str:
    """The translation as the page shows it: the one heading under "The translation" that is not a section's."""
    lang = fuzz.lang_of(at)
    sections = {f"#### {t_plain(key, lang)}" for key in ("tr.probs_title", "tr.align_title")}
    found = [str(m.value) for m in at.markdown if str(m.value).startswith("#### ") and str(m.value) not in sections]
    assert len(found) == 1, found
    return found[0].removeprefix("#### ")


def forged_click(at, key: str) -> None:
    """Run the page as after a click on button ``key`` that a websocket client sends itself, though the page drew the
    button disabled (AppTest's own click refuses one, as a browser does)."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    states = at._tree.get_widget_states()
    states.widgets.append(WidgetState(id=at.button(key=key).id, trigger_value=True))
    at._run(states)


def zip_csvs(zipped: bytes) -> dict[str, tuple[list[str], list[str], list[list[float]]]]:
    """The page's ZIP read back: {CSV name without .csv: (row labels, column names, numbers)}."""
    import csv
    import io
    import zipfile

    from selfattn.display.export import from_csv_label

    out = {}
    with zipfile.ZipFile(io.BytesIO(zipped)) as archive:
        for name in archive.namelist():
            if name.endswith(".csv"):
                rows = list(csv.reader(io.StringIO(archive.read(name).decode("utf-8-sig"))))
                out[name.removesuffix(".csv")] = ([from_csv_label(r[0]) for r in rows[1:]],
                                                  [from_csv_label(c) for c in rows[0][1:]],
                                                  [[float(x) for x in r[1:]] for r in rows[1:]])
    return out


def maps_in_zip(drawn: dict[str, dict], csvs: dict) -> dict[str, str]:
    """Each drawn map (``support.apptest.step_maps``) matched to the CSV of the ZIP that holds its numbers: the same
    row labels, its column names first, and every cell shown the CSV's number written as a map writes it. Raises
    AssertionError naming a map no CSV holds."""
    from selfattn.display.numbers import map_text

    found = {}
    for key, data in drawn.items():
        k = len(data["cols"])
        for name, (rows, cols, numbers) in csvs.items():
            if rows == list(data["rows"]) and cols[:k] == list(data["cols"]) and \
                    [[map_text(v) for v in row[:k]] for row in numbers] == data["cells"]:
                found[key] = name
                break
        else:
            raise AssertionError(f"no CSV of the ZIP holds the map {key}: {data['rows']} × {data['cols']}")
    return found
