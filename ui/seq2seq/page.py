"""The Encoder–decoder page's Streamlit helpers: its state, editors, presets and undo, from the kit.

``st.session_state["s2s"]`` holds the tables the visitor typed into (:data:`SLOTS`); the settings are the page's
table (:data:`selfattn.seq2seq.view.FIELDS`), read with the edits as one frozen :class:`~selfattn.seq2seq.view.View`
(:func:`read`). Editors, notices, undo and maps come from the kit (``ui/editing.py``).
"""

from __future__ import annotations

import streamlit as st

from selfattn.display.share import BadValue
from selfattn.i18n import t_plain
from selfattn.seq2seq import view as sv
from selfattn.seq2seq.compute import TABLE_NAMES, Result
from selfattn.seq2seq.link import decode
from selfattn.seq2seq.view import CELL_CHARS, EPS, PRESET_SETTINGS, View
from ui import state as settings
from ui.widgets import current_lang, listed, tr
from ui.components import matrix_editor as editor_component
from ui.editing import Editors, Maps, editor_texts
from ui.play import Player

STATE = "s2s"
SLOTS = {
    "edits": "{table id: rows of text}: the tables typed into, as typed (the truth); the others are seeded",
    "version": "the editors' generation: a new one re-creates every editor from the tables",
    "undo": "(edits, settings) before the last preset or size change that replaced typed tables, or None",
    "note_edited": "whether the preset's note, drawn above the fragment, said the tables are edited",
    "notice": "(kind, catalog key, parameters) a callback leaves for the page to say once",
    "mounted": "{version, table id: rows}: the cells each editor of this version was mounted with",
    "revs": "{editor name: [editor key, revision]} the maps of this run were computed from (heatmap.js)",
}
SIZE_KEYS = ("s2s_n", "s2s_m", "s2s_d", "s2s_heads", "s2s_dff", "s2s_enc", "s2s_dec", "s2s_seed")
EDITORS = Editors(STATE, "s2sed_")
MAPS = Maps("s2s", "s2s_", "seq2seq-", "s2s_focus", EDITORS)
show_map = MAPS.show
PLAYER = Player("s2s_playing", "s2s_step", "s2s_play", "seq2seq")  # generation's Play/Pause (ui/play.py)


def state() -> dict:
    if STATE not in st.session_state:
        st.session_state[STATE] = {"edits": {}, "version": 0, "undo": None, "notice": None}
    return st.session_state[STATE]


def _values() -> dict:
    return {f.key: settings.value(f.key) for f in sv.FIELDS}


def current() -> View:
    """The view from the settings as they stand and the edits (without reading the editors)."""
    return sv.view(_values(), state()["edits"])


def edited_group(shown: View) -> str:
    """The layer whose weights the editors show ("e1" … "d4"): the one chosen, if the model has it."""
    return shown.edit if shown.edit in sv.offered_groups(shown) else "d1"


def shown_tables(shown: View) -> tuple[str, ...]:
    """The editors drawn: X, Y and the tables of the layer chosen for editing."""
    return ("src", "tgt", *sv.group_tables(edited_group(shown)))


def table_label(table: str) -> str:
    side, layer, part = sv.split_id(table)
    if not side:
        return t_plain(f"s2s.table_{table}", current_lang())
    name = TABLE_NAMES[part].replace(" (cross)", "")
    if part in ("cq", "ck", "cv", "co"):
        name = t_plain("s2s.part_cross", current_lang(), name=name)
    return t_plain(f"s2s.table_{side}", current_lang(), name=name, layer=layer + 1)


def setup() -> dict:
    """The page's state, each editor's sent table checked before anything reads it (the kit's check)."""
    page = state()
    shown = current()
    EDITORS.check_view(shown, shown_tables(shown), table_label, CELL_CHARS)
    return page


def open_link(params: dict) -> dict[str, BadValue]:
    """Take the tables a link names (its settings were put in by ``links.open_page``)."""
    shown, bad = decode(params)
    state()["edits"] = dict(shown.edits)
    EDITORS.renew()
    for key in ("s2s_focus", "s2s_step", "s2s_layer", "s2s_heads", "s2s_edit"):
        settings.put(key, shown.settings()[key])
    return bad


def enter_source(params: dict) -> None:
    """Entered from another page after the link was read once: a source the link names is taken (the home page's
    link to the translator); every other setting stays as the visitor left it."""
    if params.get("source") in sv.SOURCES:
        settings.put("s2s_source", params["source"])


def take_sent(table: str, shown: View) -> bool:
    """Make the table an editor sent the table typed (the kit's :meth:`ui.editing.Editors.take`)."""
    return EDITORS.take(table, f"s2s_{table}", sv.base_rows(shown, table))


def read() -> View:
    """The page's state as one frozen View: every setting and every drawn editor's table as typed (each taken once
    a run, here)."""
    values = _values()
    shown = sv.view(values, state()["edits"])
    changed = [take_sent(table, shown) for table in shown_tables(shown)]
    return sv.view(values, state()["edits"]) if any(changed) else shown


def editor(table: str, shown: View) -> None:
    rows = shown.rows(table)
    names = sv.row_names(table)
    if table in ("src", "tgt"):
        row_names = [f"{'x' if table == 'src' else 'y'}{i + 1}" for i in range(len(rows))]
    else:
        row_names = list(names) if names else [str(i + 1) for i in range(len(rows))]
    editor_component.matrix_editor(EDITORS.key(table), name=f"s2s_{table}", matrix=table_label(table),
                                   rows=row_names, cols=[str(j + 1) for j in range(len(rows[0]))],
                                   cells=EDITORS.mounted(table, rows), max_chars=[CELL_CHARS] * len(rows[0]),
                                   labels=[False] * len(rows[0]), rev=0, bad=None, texts=editor_texts())


# ── Presets, sizes, undo ─────────────────────────────────────────────────────────────────────

def _snapshot() -> dict:
    return {key: settings.value(key) for key in (*PRESET_SETTINGS["vaswani"], "s2s_seed", "s2s_preset")}


def load_preset(before: str | None = None) -> None:
    """Callback of the preset box and the reload button: the preset's settings and seeded tables; undoable where it
    replaced tables the visitor typed into."""
    page = state()
    values = _snapshot()
    if before is not None:
        values["s2s_preset"] = before
    EDITORS.keep_undo((dict(page["edits"]), values) if page["edits"] else None)
    name = st.session_state.get("s2s_preset", "vaswani")
    if name not in PRESET_SETTINGS:  # reloaded while the settings are no preset's: the nearest one
        name = sv.preset_shown(_values())[1]
    settings.put("s2s_preset", name)
    for key, value in PRESET_SETTINGS[name].items():
        settings.put(key, value)
    for key in ("s2s_layer", "s2s_focus", "s2s_step"):
        settings.put(key, 0)
    settings.put("s2s_edit", "d1")
    page["edits"] = {}
    EDITORS.renew()
    EDITORS.say("success", "s2s.preset_loaded", name=tr(f"s2s.preset_{name}"))


def on_size() -> None:
    """Callback of a size box or the seed: tables that no longer fit are dropped (one click undoes it), and the
    layer, token and step shown stay within the new sizes."""
    page = state()
    shown = current()
    kept, dropped = sv.fit_edits(shown)
    if shown.d % shown.heads:
        settings.put("s2s_heads", 1)
    for key, top in (("s2s_layer", shown.dec), ("s2s_focus", shown.m), ("s2s_step", shown.m)):
        if settings.value(key) >= top:
            settings.put(key, top - 1)
    if shown.edit not in sv.offered_groups(shown):
        settings.put("s2s_edit", "d1")
    if dropped:
        EDITORS.keep_undo((dict(page["edits"]), _snapshot()))
        page["edits"] = kept
    EDITORS.renew()


def on_group() -> None:
    """Callback of the layer-to-edit box: that layer's editors mount anew, from the tables as they are."""
    EDITORS.renew()


def undo() -> None:
    """Callback of the Undo button: the typed tables and settings from before the last preset or size change."""
    EDITORS.undo_edits("s2s.undone")


def divisors(d: int) -> list[int]:
    """The heads offered: divisors of d_model, at most :data:`selfattn.seq2seq.view.MAX_HEADS`."""
    return [h for h in range(1, min(d, sv.MAX_HEADS) + 1) if d % h == 0]


def follow_preset() -> tuple[str, ...]:
    """Before the preset box is drawn: the box says the preset the settings are, else custom (from the settings
    alone: :func:`selfattn.seq2seq.view.preset_shown`). Returns the presets the box offers (custom only while it
    is custom: it cannot be loaded)."""
    shown = sv.preset_shown(_values())[0]
    settings.put("s2s_preset", shown)
    return (*sv.PRESETS, sv.CUSTOM) if shown == sv.CUSTOM else sv.PRESETS


def preset_note(edited: bool) -> str:
    """The preset's note as the settings stand: what the preset is, or, once a setting differs from every preset's,
    which preset is nearest and what differs from it; and whether tables are edited."""
    shown, nearest, changed = sv.preset_shown(_values())
    if shown == sv.CUSTOM:
        note = tr("s2s.preset_custom_note", preset=tr(f"s2s.preset_{nearest}"),
                  names=listed(tr(key.replace("s2s_", "s2s.")) for key in changed))
    else:
        note = tr(f"s2s.preset_{shown}_note")
    return note + (" " + tr("s2s.preset_edited") if edited else "")


# ── The browser's preview ────────────────────────────────────────────────────────────────────

PREVIEW_NUMBERS = 20_000  # the most weights of layers not in the editors the preview's engine carries (else: none)


def preview_engine(shown: View, result: Result) -> dict | None:
    """What the browser's preview of the page's maps (ui/components/s2s.js) needs besides the typed tables: the
    settings, every layer's weights as exact numbers but those of the layer in the editors (None in its place, read
    from the editors), the decoder layer shown, and which editor instance holds each table now (an older instance's
    typed table is not this view's). ``result`` must be this view's. None when those weights are too many numbers
    to send on every edit: the server's answer alone redraws the maps then."""
    group = edited_group(shown)
    given = [(f"{side}{k + 1}", tables_of(params)) for side, layers, tables_of in
             (("e", result.encoder, sv.encoder_tables), ("d", result.decoder, sv.decoder_tables))
             for k, params in enumerate(layers)]
    if sum(matrix.size for name, tables in given if name != group for matrix in tables.values()) > PREVIEW_NUMBERS:
        return None
    layers = {name: None if name == group else {part: m.tolist() for part, m in tables.items()} for name, tables in given}
    return {"norm_first": shown.norm == "pre", "activation": shown.act, "eps": EPS, "heads": shown.heads,
            "n": shown.n, "m": shown.m, "d": shown.d, "dff": shown.dff,
            "layer": min(shown.layer, len(result.decoder) - 1),
            "encoder": [layers[f"e{k + 1}"] for k in range(len(result.encoder))],
            "decoder": [layers[f"d{k + 1}"] for k in range(len(result.decoder))],
            "instances": {f"s2s_{table}": EDITORS.key(table) for table in shown_tables(shown)}}
