"""The Encoder–decoder page's Streamlit helpers: its declaration on the kit, and what is its own (the layer whose
weights the editors show, the names of its tables and their rows, what the browser's preview needs).

The page is an :class:`ui.editable_page.EditablePage` (:data:`PAGE`): ``st.session_state["s2s"]`` holds the tables
the visitor typed into (:data:`SLOTS`); the settings are the page's table (:data:`selfattn.seq2seq.view.FIELDS`),
read with the edits as one frozen :class:`~selfattn.seq2seq.view.View` (:func:`read`).
"""

from __future__ import annotations

from selfattn.i18n import t_plain
from selfattn.seq2seq import view as sv
from selfattn.seq2seq.compute import TABLE_NAMES, Result
from selfattn.seq2seq.link import decode
from selfattn.seq2seq.view import EPS, View
from ui import state as settings
from ui.editable_page import EditablePage
from ui.widgets import current_lang, tr
from ui.play import Player


def edited_group(shown: View) -> str:
    """The layer whose weights the editors show ("e1" … "d4"): the one chosen, if the model has it."""
    return shown.edit if shown.edit in sv.offered_groups(shown) else "d1"


def group_tables(shown: View) -> tuple[str, ...]:
    """The weights' editors drawn: the tables of the layer chosen for editing."""
    return sv.group_tables(edited_group(shown))


def table_label(table: str) -> str:
    side, layer, part = sv.split_id(table)
    if not side:
        return t_plain(f"s2s.table_{table}", current_lang())
    name = TABLE_NAMES[part].replace(" (cross)", "")
    if part in ("cq", "ck", "cv", "co"):
        name = t_plain("s2s.part_cross", current_lang(), name=name)
    return t_plain(f"s2s.table_{side}", current_lang(), name=name, layer=layer + 1)


def row_names(table: str, rows: int) -> list[str]:
    if table in ("src", "tgt"):
        return [f"{'x' if table == 'src' else 'y'}{i + 1}" for i in range(rows)]
    names = sv.row_names(table)
    return list(names) if names else [str(i + 1) for i in range(rows)]


def within(shown: View) -> None:
    """After a size change: the heads divide d_model, and the layer, token, step and layer to edit exist."""
    if shown.d % shown.heads:
        settings.put("s2s_heads", 1)
    for key, top in (("s2s_layer", shown.dec), ("s2s_focus", shown.m), ("s2s_step", shown.m)):
        if settings.value(key) >= top:
            settings.put(key, top - 1)
    if shown.edit not in sv.offered_groups(shown):
        settings.put("s2s_edit", "d1")


PREVIEW_NUMBERS = 20_000  # the most weights of layers not in the editors the preview's engine carries (else: none)


def engine(shown: View, result: Result, *, typed: bool = True) -> dict | None:
    """What the browser's preview of the page's maps (ui/components/s2s.js) needs besides the typed tables: the
    settings, every layer's weights as exact numbers but those of the layer in the editors (None in its place, read
    from the editors; with the weights' editors closed, not ``typed``, none is left out), the decoder layer shown.
    ``result`` must be this view's. None when those weights are too many numbers to send on every edit: the
    server's answer alone redraws the maps then."""
    group = edited_group(shown)
    given = [(f"{side}{k + 1}", tables_of(params)) for side, layers, tables_of in
             (("e", result.encoder, sv.encoder_tables), ("d", result.decoder, sv.decoder_tables))
             for k, params in enumerate(layers)]
    if sum(matrix.size for name, tables in given if name != group for matrix in tables.values()) > PREVIEW_NUMBERS:
        return None
    layers = {name: None if typed and name == group else {part: m.tolist() for part, m in tables.items()}
              for name, tables in given}
    return {"norm_first": shown.norm == "pre", "activation": shown.act, "eps": EPS, "heads": shown.heads,
            "n": shown.n, "m": shown.m, "d": shown.d, "dff": shown.dff,
            "layer": min(shown.layer, len(result.decoder) - 1),
            "encoder": [layers[f"e{k + 1}"] for k in range(len(result.encoder))],
            "decoder": [layers[f"d{k + 1}"] for k in range(len(result.decoder))]}


PAGE = EditablePage("s2s", sv.TABLES, decode=decode, inputs=("src", "tgt"), weights=group_tables, label=table_label,
                    row_names=row_names, csv_prefix="seq2seq-",
                    from_link=("s2s_focus", "s2s_step", "s2s_layer", "s2s_heads", "s2s_edit"),
                    on_preset={"s2s_layer": 0, "s2s_focus": 0, "s2s_step": 0, "s2s_edit": "d1"}, within=within,
                    option_name=lambda key: tr(key.replace("s2s_", "s2s.")), edited_note="s2s.preset_edited",
                    engine=engine)
SLOTS, EDITORS, MAPS = PAGE.slots, PAGE.editors, PAGE.maps
show_map = PAGE.show_map  # no CSV button a map: the part's ZIP holds them all
PLAYER = Player("s2s_playing", "s2s_step", "s2s_play", "seq2seq")  # generation's Play/Pause (ui/play.py)
# the declaration's callbacks and readers, by the names pages/seq2seq.py calls them
(state, current, setup, renewed, read, open_link, editor, shown_tables, load_preset, on_size, on_group, undo, divisors,
 follow_preset, preset_note, preview_engine, weights_panel) = (
    PAGE.state, PAGE.current, PAGE.setup, PAGE.renewed, PAGE.read, PAGE.open_link, PAGE.editor, PAGE.drawn,
    PAGE.load_preset, PAGE.on_size, PAGE.remount, PAGE.undo, PAGE.divisors, PAGE.follow_preset, PAGE.preset_note,
    PAGE.preview_engine, PAGE.weights_panel)


def enter_source(params: dict) -> None:
    """Entered from another page after the link was read once: a source the link names is taken (the home page's
    link to the translator); every other setting stays as the visitor left it."""
    if params.get("source") in sv.SOURCES:
        settings.put("s2s_source", params["source"])
