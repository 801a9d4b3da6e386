"""A page of typed tables, declared once (the Playground, the Transformer block, the Encoder–decoder; the next
ones): the wiring every such page repeats, written here, the page passing what differs as data.

:class:`EditablePage` owns the page's state dict (``st.session_state[slot]``, :data:`SLOTS`), its View as the
settings and the editors stand (:meth:`~EditablePage.current`, and :meth:`~EditablePage.read`, which takes each
editor's sent table once a run), a link's tables (:meth:`~EditablePage.open_link`), the editors
(:meth:`~EditablePage.editor`, their generation through :class:`ui.editing.Editors`: no page touches it), the presets
with their note, size changes that refit the tables, undo, and the browser preview's payload
(:meth:`~EditablePage.preview_engine`). What a page's View, settings table, presets and tables are comes from its
core declaration (:class:`selfattn.display.edits.Editable`), and what else its seeded tables depend on from the page's
``context`` (the Playground's sizes and language); what is the page's own (its flow's drawing, its words, the row
names of its tables; the Playground's sizes, uploads and labels) stays in its ui module.

Names follow the slot: the settings are ``<slot>_…``, the editors' keys ``<slot>ed_<table>_<version>``, their names
``<slot>_<table>``, the maps' ``map_<slot>_…``, and the page's words ``<slot>.…`` in the catalog (``preset_loaded``,
``undone``, ``preset_<name>``, ``preset_<name>_note``, ``preset_custom_note``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from selfattn.display.edits import CUSTOM, Editable
from selfattn.display.share import BadValue
from ui import state as settings
from ui.components import matrix_editor as editor_component
from ui.editing import Editors, Maps, editor_texts
from ui.widgets import choice, listed, tr

PRESET_PX, SEED_PX = 340, 150  # the preset box holds its longest name in Chinese in the projector view
SLOTS = {
    "edits": "{table id: rows of text}: the tables typed into, as typed (the truth); the others are seeded",
    "version": "the editors' generation: a new one re-creates every editor from the tables",
    "undo": "(edits, settings) before the last preset or size change that replaced typed tables, or None",
    "note_edited": "whether the preset's note, drawn above the fragment, said the tables are edited",
    "notice": "(kind, catalog key, parameters) a callback leaves for the page to say once",
    "mounted": "{version, table id: rows}: the cells each editor of this version was mounted with",
    "revs": "{editor name: [editor key, revision]} the maps of this run were computed from (heatmap.js)",
    "weights_open": "whether the weights' expander is open (its editors are made only then)",
}


@dataclass(frozen=True)
class EditablePage:
    """One page of typed tables: ``slot`` names its state and keys, ``tables`` is its core declaration."""

    slot: str  # "pg", "tb", "s2s"
    tables: Editable  # the View, settings table, presets, table ids and shapes (selfattn/<page>/view.py TABLES)
    inputs: tuple[str, ...]  # the editors always drawn (X; the source and the target; the Playground's X and W's)
    weights: Callable[[Any], tuple[str, ...]]  # the weights' editors drawn besides, for a View
    label: Callable[[str], str]  # a table's name, in the current language
    row_names: Callable[[str, int], list[str]] | None = None  # a table's row names, given its rows
    decode: Callable | None = None  # the link's decode(params) -> (View, {parameter: BadValue})
    csv_prefix: str = ""  # a map's CSV is <csv_prefix><key>.csv
    from_link: tuple[str, ...] = ()  # settings a link's View puts back (those links.open_page cannot check alone)
    on_preset: Mapping[str, Any] = field(default_factory=dict)  # what a loaded preset also sets (the layer, ...)
    within: Callable[[Any], None] | None = None  # after a size change: keeps what is shown within the sizes
    option_name: Callable[[str], str] = str  # a setting's name (by session key) in the preset's note
    edited_note: str = ""  # the catalog key of the note's sentence saying the tables are edited
    engine: Callable[..., dict | None] | None = None  # the browser preview's payload (the page's own numbers)
    extra_slots: Mapping[str, str] = field(default_factory=dict)  # the page's own entries in its state dict
    context: Callable[[], dict] = dict  # the View's fields besides settings and edits (the Playground's sizes, language)
    max_chars: Callable[[str, int], list[int]] | None = None  # a table's most characters a column (default: a cell's)
    label_chars: int | None = None  # the most characters of a label, in the check's notice (default: a cell's)
    folded: bool = True  # whether the weights' editors sit in a folded box (the Playground draws every table)

    # ── State and View ───────────────────────────────────────────────────────────────────────────

    @property
    def slots(self) -> dict[str, str]:
        """Every entry of the page's state dict, with what it holds (tests/test_session_keys.py holds it to them)."""
        return {**SLOTS, **self.extra_slots}

    @property
    def editors(self) -> Editors:
        return Editors(self.slot, f"{self.slot}ed_")

    @property
    def maps(self) -> Maps:
        return Maps(self.slot, f"{self.slot}_", self.csv_prefix, f"{self.slot}_focus", self.editors)

    def show_map(self, *args, **kwargs):
        """One step map (:meth:`ui.editing.Maps.show`) with no CSV button of its own: the part's ZIP, at its end, holds
        every map the part drew (one button instead of one a map: 13-16 download buttons fewer an open, each a deferred
        file Streamlit registers). The map says its name, shape and caption itself (``framed``: one element where a
        box, a title and a caption were four; ``title`` and ``caption`` plain text), ``width`` wide (default: its
        content's). Returns the function that builds the map's table, for that ZIP."""
        return self.maps.show(*args, csv=False, framed=True, **kwargs)

    def state(self) -> dict:
        if self.slot not in st.session_state:
            st.session_state[self.slot] = {"edits": {}, "version": 0, "undo": None, "notice": None}
        return st.session_state[self.slot]

    def values(self) -> dict:
        """Every setting as it stands, by session key."""
        return {f.key: settings.value(f.key) for f in self.tables.fields}

    def current(self):
        """The View from the settings as they stand and the edits (without reading the editors)."""
        return self.tables.view(self.values(), self.state()["edits"], **self.context())

    def drawn(self, shown) -> tuple[str, ...]:
        """The editors drawn for ``shown``: the inputs, then the weights while their expander is open."""
        return (*self.inputs, *self.weights(shown)) if not self.folded or self.weights_open() else self.inputs

    def setup(self) -> dict:
        """The page's state, each editor's sent table checked before anything reads it (the kit's
        :meth:`ui.editing.Editors.check`)."""
        page = self.state()
        shown = self.current()
        try:
            tables = self.drawn(shown)
        except Exception:  # noqa: BLE001 -- settings a fragment puts back (refuse_unfit_settings) before reading
            tables = self.inputs
        self.editors.check_view(shown, tables, self.label, self.tables.cell_chars, self.column_chars, self.label_chars)
        return page

    def renewed(self) -> bool:
        """:meth:`setup` at the top of the page's fragment: whether it started a new generation of editors (the
        whole page then runs again, for the controls above the fragment draw from the tables too)."""
        self.state()
        return self.editors.renewed_by(self.setup)

    def read(self):
        """The page's state as one frozen View: every setting and every drawn editor's table as typed (each taken
        once a run: this is the only place that takes them)."""
        values, context = self.values(), self.context()
        shown = self.tables.view(values, self.state()["edits"], **context)
        self.state()["revs"] = {}  # this run's editors alone: a closed expander's sent nothing the maps wait for
        changed = [self.take_sent(table, shown) for table in self.drawn(shown)]
        return self.tables.view(values, self.state()["edits"], **context) if any(changed) else shown

    def take_sent(self, table: str, shown) -> bool:
        """Make the table an editor sent the table typed (the kit's :meth:`ui.editing.Editors.take`)."""
        return self.editors.take(table, self.editor_name(table), shown.base(table))

    def editor_name(self, table: str) -> str:
        """A table's editor's name (``<slot>_<table>``): what the browser's preview and the maps' revisions know it by."""
        return f"{self.slot}_{table}"

    def sent_rev(self, table: str) -> int:
        """The revision of the table ``table``'s editor sent this run (noted by :meth:`read`; 0 when none)."""
        return self.editors.revs().get(self.editor_name(table), [None, 0])[1]

    def column_chars(self, table: str, cols: int) -> list[int]:
        """The most characters each of a table's ``cols`` columns takes (``max_chars``, else a cell's)."""
        return self.max_chars(table, cols) if self.max_chars else [self.tables.cell_chars] * cols

    def open_link(self, params: dict) -> dict[str, BadValue]:
        """Take the tables a link names (its settings were put in by ``links.open_page``)."""
        shown, bad = self.decode(params)
        self.state()["edits"] = dict(shown.edits)
        self.editors.renew()
        for key in self.from_link:
            settings.put(key, shown.settings()[key])
        return bad

    # ── Editors ──────────────────────────────────────────────────────────────────────────────────

    def editor(self, table: str, shown) -> None:
        """One table's editor (the Playground's matrix editor), mounted with its cells as typed."""
        rows = shown.rows(table)
        cols = len(rows[0])
        editor_component.matrix_editor(self.editors.key(table), name=self.editor_name(table), matrix=self.label(table),
                                       rows=self.row_names(table, len(rows)), cols=[str(j + 1) for j in range(cols)],
                                       cells=self.editors.mounted(table, rows), max_chars=self.column_chars(table, cols),
                                       labels=[False] * cols, rev=0, bad=None, texts=editor_texts())

    def weights_open(self) -> bool:
        """Whether the weights' expander is open (kept in the page's state dict while the expander is not drawn)."""
        return bool(self.state().get("weights_open", False))

    def weights_panel(self, label: str):
        """The weights' expander (key ``<slot>_weights``), collapsed until the visitor opens it: its body (the
        weights' editors) is drawn only while it is open (the caller asks ``.open``), for a closed one would cost
        every open of the page the editors of every weight matrix. Whether it is open outlives parts and pages."""
        key = f"{self.slot}_weights"
        st.session_state[key] = self.weights_open()  # the kept state, before the widget is made
        return st.expander(label, key=key, icon=":material/edit:", on_change=self.on_weights, args=(key,))

    def on_weights(self, key: str) -> None:
        """Callback of the weights' expander: keep whether it is open; opened, every editor mounts anew from the
        tables as they are (an editor mounted earlier in this generation would show its cells as at that mount)."""
        opened = bool(st.session_state.get(key))
        self.state()["weights_open"] = opened
        if opened:
            self.editors.renew()

    def remount(self, *_before) -> None:
        """Callback of a box that shows other tables (the layer to edit): their editors mount anew, from the tables
        as they are."""
        self.editors.renew()

    def preview_engine(self, shown, result, *args) -> dict | None:
        """What the browser's preview needs besides the typed tables: the page's payload (``engine``, None when too
        many numbers to send on every edit; ``typed``: whether the weights' editors are drawn, else the payload
        carries the weights they would hold) and which editor instance holds each table now (an older instance's
        typed table is not this view's)."""
        payload = self.engine(shown, result, *args, typed=self.weights_open())
        if payload is None:
            return None
        return {**payload, "instances": {self.editor_name(table): self.editors.key(table) for table in self.drawn(shown)}}

    # ── Presets, sizes, undo ─────────────────────────────────────────────────────────────────────

    def _snapshot(self) -> dict:
        first = next(iter(self.tables.presets.values()))
        return {key: settings.value(key) for key in (*first, f"{self.slot}_seed", f"{self.slot}_preset")}

    def load_preset(self, before: str | None = None) -> None:
        """Callback of the preset box and the reload button: the preset's settings and seeded tables; undoable where
        it replaced tables the visitor typed into."""
        page = self.state()
        values = self._snapshot()
        key = f"{self.slot}_preset"
        if before is not None:
            values[key] = before
        self.editors.keep_undo((dict(page["edits"]), values) if page["edits"] else None)
        name = st.session_state.get(key, next(iter(self.tables.presets)))
        if name not in self.tables.presets:  # reloaded while the settings are no preset's: the nearest one
            name = self.tables.preset_shown(self.values())[1]
        settings.put(key, name)
        for setting, value in (*self.tables.presets[name].items(), *self.on_preset.items()):
            settings.put(setting, value)
        page["edits"] = {}
        self.editors.renew()
        self.editors.say("success", f"{self.slot}.preset_loaded", name=tr(f"{self.slot}.preset_{name}"))

    def on_size(self, *_key) -> None:
        """Callback of a size box or the seed: tables that no longer fit are dropped (one click undoes it), and what
        is shown stays within the new sizes."""
        page = self.state()
        shown = self.current()
        kept, dropped = self.tables.fit_edits(shown)
        self.within(shown)
        if dropped:
            self.editors.keep_undo((dict(page["edits"]), self._snapshot()))
            page["edits"] = kept
        self.editors.renew()

    def undo(self):
        """Callback of the Undo button: the typed tables and settings from before the last preset or size change
        (returns what was kept, :meth:`ui.editing.Editors.undo_edits`)."""
        return self.editors.undo_edits(f"{self.slot}.undone")

    def divisors(self, d: int) -> list[int]:
        """The heads offered: divisors of d_model (:meth:`selfattn.display.edits.Editable.divisors`)."""
        return self.tables.divisors(d)

    def preset_row(self, max_seed: int, load: str, load_help: str | None = None) -> None:
        """The preset box, the seed and the reload button (``load``, ``load_help``: catalog keys), in a row that
        wraps on a narrow screen, each as wide as it needs (three columns cut the preset's name and the button's
        at 1024 px and in the projector view, in both languages)."""
        slot = self.slot
        with st.container(horizontal=True, wrap=True, vertical_alignment="bottom"):
            with st.container(width=PRESET_PX):
                presets = self.follow_preset()  # the box says what the settings are: a preset, or custom
                choice(st.selectbox, tr(f"{slot}.preset"), presets, f"{slot}_preset",
                       {p: tr(f"{slot}.preset_{p}") for p in presets}, on_pick=self.load_preset)
            settings.keep(f"{slot}_seed")
            st.container(width=SEED_PX).number_input(tr(f"{slot}.seed"), min_value=0, max_value=max_seed, step=1,
                                                     key=f"{slot}_seed", help=tr(f"{slot}.seed_help"),
                                                     on_change=self.on_size)
            st.button(tr(load), on_click=self.load_preset, icon=":material/restart_alt:", width="content",
                      key=f"{slot}_load", help=tr(load_help) if load_help else None)

    def follow_preset(self) -> tuple[str, ...]:
        """Before the preset box is drawn: the box says the preset the settings are, else custom (from the settings
        alone). Returns the presets the box offers (custom only while it is custom: it cannot be loaded)."""
        shown = self.tables.preset_shown(self.values())[0]
        settings.put(f"{self.slot}_preset", shown)
        presets = tuple(self.tables.presets)
        return (*presets, CUSTOM) if shown == CUSTOM else presets

    def preset_note(self, edited: bool) -> str:
        """The preset's note as the settings stand: what the preset is, or, once a setting differs from every
        preset's, which preset is nearest and what differs from it; and whether tables are edited."""
        shown, nearest, changed = self.tables.preset_shown(self.values())
        if shown == CUSTOM:
            note = tr(f"{self.slot}.preset_custom_note", preset=tr(f"{self.slot}.preset_{nearest}"),
                      names=listed(self.option_name(key) for key in changed))
        else:
            note = tr(f"{self.slot}.preset_{shown}_note")
        return note + (" " + tr(self.edited_note) if edited else "")
