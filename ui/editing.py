"""The kit for pages with editable tables (the Playground, the Transformer block; the next ones): the editors'
protocol and the linked step maps, once.

:class:`Editors` keeps, in a page's state dict (``st.session_state[slot]``), the editors' generation (``version``:
a new one mounts every editor again from the tables), the cells each instance was mounted with (``mounted``: an
edit then re-sends nothing of the editor, Streamlit passes a reference to the browser's copy), and the revision of
the table each editor last sent (``revs``, fed to every map, so that the browser keeps a preview of newer typing
over an older answer: ``heatmap.js``). :class:`Maps` draws one step's matrix: its name and shape, its caption, the
map (linked with the page's other maps, a click on a row making that token the page's focus) and its CSV.

:class:`Editors` also holds what every editable page does around its editors, once: the check of every sent table
before anything reads it (:meth:`Editors.check`, ``ui.guard``), a notice a callback leaves for the page to say once
(:meth:`Editors.say`), the one-click undo of the last change that replaced typed tables (:meth:`Editors.keep_undo`,
:meth:`Editors.take_undo`), and the two drawn together under the page's controls (:meth:`Editors.notices`).

Every page keeps its truth the same way, the tables typed into by table id against the tables it seeds
(``state()["edits"]``), and says how it seeds them; the kit never calls back into a page.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import streamlit as st

from selfattn.display.export import labelled, zip_tables
from selfattn.i18n import t_plain
from ui import guard, links
from ui import map_sizes as fit
from ui import state as settings
from ui.widgets import csv_button, tr
from ui.components import matrix_editor as editor_component
from ui.components.heatmap import MapRow, heatmap, map_data, picked
from ui.state import current_lang

EDITOR_TEXTS = ("cell", "row", "pasted", "pasted_left", "pasted_cut", "copied", "copied_block")


def editor_texts() -> dict[str, str]:
    """The matrix editor's own texts in the current language, with {placeholders} it fills in the browser."""
    return {part: t_plain(f"pg.ed_{part}", current_lang()) for part in EDITOR_TEXTS}


@dataclass(frozen=True)
class Editors:
    """One page's editors: ``slot`` is the page's state dict in session state, ``prefix`` its editors' keys."""

    slot: str  # "pg", "tb"
    prefix: str  # "ed_", "tbed_": an editor's key is <prefix><table>_<version>

    def state(self) -> dict:
        return st.session_state[self.slot]

    def key(self, table: str) -> str:
        return self.generation_key(self.prefix + table)

    def generation_key(self, name: str) -> str:
        """A widget key new in each generation (``<name>_<version>``): the editors', and a widget that must start
        empty when the tables change from outside (the Playground's CSV uploader)."""
        return f"{name}_{self.state()['version']}"

    def renew(self) -> None:
        """A new generation: every editor mounts again from the tables (they changed from outside the editors)."""
        self.state()["version"] += 1

    def renewed_by(self, setup) -> bool:
        """Whether ``setup()`` (the page's check of every sent table, at the top of its fragment) started a new
        generation: the whole page then runs again, for the controls above the fragment draw from the tables too."""
        before = self.state()["version"]
        setup()
        return self.state()["version"] != before

    def mounted(self, table: str, rows) -> list[list[str]]:
        """The cells ``table``'s editor instance was mounted with (a new instance: ``rows``, the current ones).

        An instance keeps what is typed in the browser and never reads its cells again, so they stay as at its
        mount: an edit then sends the editor exactly as before, which Streamlit passes as a reference to the
        browser's copy instead of its kilobytes again.
        """
        page = self.state()
        mounted = page.get("mounted")
        if mounted is None or mounted["version"] != page["version"]:
            mounted = page["mounted"] = {"version": page["version"]}
        return mounted.setdefault(table, [list(row) for row in rows])

    def sent(self, table: str, name: str) -> tuple[int, list[list[str]]] | None:
        """(revision, cells) of the table ``table``'s editor sent (checked by ``ui.guard`` in the page's setup),
        or None; the revision is noted under the editor's ``name`` for the maps (:meth:`revs`)."""
        key = self.key(table)
        sent = editor_component.sent_table(st.session_state.get(key))
        self.state().setdefault("revs", {})[name] = [key, sent[0] if sent else 0]
        return sent

    def revs(self) -> dict:
        """{editor name: [editor key, revision]}: the tables this run's maps were computed from."""
        return self.state().get("revs", {})

    def take(self, table: str, name: str, base) -> bool:
        """For a page whose truth is its typed tables by id (``state()["edits"]``, the block page's, the
        Encoder–decoder's): make the table ``table``'s editor sent the one typed, or drop it again when it equals the
        seeded table ``base``. Whether that changed the edits."""
        sent = self.sent(table, name)
        if sent is None:
            return False
        rows = tuple(tuple(row) for row in sent[1])
        edits = self.state()["edits"]
        if rows == base:
            return edits.pop(table, None) is not None
        if rows != edits.get(table):
            edits[table] = rows
            return True
        return False

    def undo_edits(self, what: str) -> tuple | None:
        """The Undo button's callback for such a page: the typed tables and settings kept by :meth:`keep_undo` as
        (edits, {setting: value}, what else the page kept) come back, and the notice ``what`` says so. Returns what
        was kept (the page puts back what else it kept), or None when there was nothing to undo."""
        saved = self.take_undo()
        if not saved:
            return None
        edits, values = saved[:2]
        for key, value in values.items():
            settings.put(key, value)
        self.state()["edits"] = dict(edits)
        self.renew()
        self.say("success", what)
        return saved

    def check(self, tables, *, cell_chars: int, label_chars: int) -> None:
        """Before anything reads an editor: drop a sent table no visitor editing these tables could have sent.

        ``tables``: (table id, its cells now as rows of text, the most characters per column, its name for the
        notice), one per editor drawn this run. The first refused one starts a new generation (every editor mounts
        again from the page's tables, nothing typed before is lost) and leaves a notice saying what was refused.
        A page's first run after another page also starts a new generation (the browser dropped its editors).
        """
        if st.session_state.pop(links.ENTERED, False):
            self.renew()
        for table, rows, max_chars, label in tables:
            why = guard.refuse_matrix_editor(self.key(table), rows=len(rows), max_chars=max_chars, current=rows)
            if why is not None:
                self.renew()
                reason = tr(f"guard.editor_why.{why}", n=cell_chars, labels=label_chars)
                self.say("warning", "guard.editor", matrix=label, why=reason)
                return

    def check_view(self, shown, tables, label, cell_chars: int, max_chars, label_chars: int | None = None) -> None:
        """:meth:`check` for a page of typed tables by id (``shown.rows(table)``, ``max_chars(table, columns)`` the
        most characters of each column: a cell's, the Playground's labels fewer), ``label(table)`` naming each in the
        notice; a table the view cannot size is skipped."""
        drawn = []
        for table in tables:
            try:
                rows = shown.rows(table)
            except (KeyError, ValueError):
                continue
            cols = len(rows[0])
            drawn.append((table, rows, max_chars(table, cols), label(table)))
        self.check(drawn, cell_chars=cell_chars, label_chars=label_chars or cell_chars)

    def say(self, kind: str, what: str, **params) -> None:
        """Leave a notice for the page to say once: ``kind`` "success" or "warning", ``what`` a catalog key."""
        self.state()["notice"] = (kind, what, params)

    def keep_undo(self, saved) -> None:
        """What the change about to happen replaces (the page's tables and settings before it), for one undo click;
        None when it replaces nothing typed."""
        self.state()["undo"] = saved

    def take_undo(self):
        """What the last change replaced (once: the undo is spent), or None."""
        page = self.state()
        saved, page["undo"] = page.get("undo"), None
        return saved

    def notices(self, undo_note: str, on_undo, undo_key: str) -> None:
        """The notice a callback left (said once), and the undo button with what it brings back, when there is one."""
        notice = self.state().pop("notice", None)
        if notice:
            kind, what, params = notice
            icon = ":material/check_circle:" if kind == "success" else ":material/warning:"
            getattr(st, kind)(tr(what, **params), icon=icon)
        if self.state().get("undo"):
            u1, u2 = st.columns([3, 1], vertical_alignment="center")
            u1.caption(undo_note)
            u2.button(tr("common.undo"), on_click=on_undo, icon=":material/undo:", key=undo_key, width="stretch")


def map_frame(matrix, row_labels, col_labels, full=None, full_cols=None) -> partial:
    """The labelled DataFrame a step map's CSV holds, built when called: ``full`` (the whole matrix, when the map draws
    its first columns), else the map's numbers (a masked array's weights)."""
    whole = np.asarray(np.ma.getdata(matrix) if full is None else full, dtype=float)
    return partial(labelled, whole, list(row_labels), list(full_cols if full_cols is not None else col_labels))


@dataclass(frozen=True)
class Maps:
    """One page's linked step maps: their ``group`` (maps that light up together), key and CSV prefixes, the setting
    a click on a row picks (the focus token), and the page's editors (whose revisions every map carries)."""

    group: str
    key_prefix: str  # a map's widget key is map_<key_prefix><key>, its CSV button dl_<key_prefix><key>
    csv_prefix: str  # the CSV's file name: <csv_prefix><key>.csv
    focus_setting: str  # "pg_focus", "tb_focus"
    editors: Editors

    def show(self, title: str, matrix, row_labels, col_labels, *, key: str, link: str | None, focus: int | None,
             caption: str = "", role: str = "values", domain=None, full=None, full_cols=None, engine=None,
             csv: bool = True, framed: bool = False, width: int | str = "content", into: MapRow | None = None):
        """One step's matrix: its name and shape, its map and a CSV (``csv``; else the page's ZIP alone holds it).

        Args:
            matrix: numbers, or weights with their mask (:func:`selfattn.display.charts.masked_weights`): the map
                draws the masked cells as masked, the CSV holds the weights.
            link: its place among the linked maps (``ui.components.heatmap.LINKS``, ``row:<step>``, ``att:<head>``),
                or None; a click on a row of a map whose rows are tokens makes that token the focus.
            full: the whole matrix when the map shows only its first columns (a real model's 384); the CSV holds it.
            framed: the map draws its name, shape and caption itself (plain text: ``title`` and ``caption`` are
                written as they are), ``width`` wide (pixels, "content", "stretch", or "fit": as wide as the map
                draws, :func:`ui.map_sizes.box_width`), as one element instead of three; else they are Streamlit's
                markdown above it.
            into: the row (:func:`ui.components.heatmap.map_row`) the map is drawn in, as one element with the others.

        Returns:
            A function that builds the labelled DataFrame offered for download (built when asked for).
        """
        values = matrix if np.ma.isMaskedArray(matrix) else np.asarray(matrix, dtype=float)
        frame = map_frame(values, row_labels, col_labels, full, full_cols)
        whole = frame.args[0]
        cut = whole.shape[1] > values.shape[1]
        map_key = f"map_{self.key_prefix}{key}"
        data = map_data(values, row_labels, col_labels, name=str(title).replace("$", ""), role=role, domain=domain,
                        link=link, group=self.group, focus=focus, engine=engine)
        if framed:  # the map says it itself, as wide as asked ("fit": from its cells as written, not written again)
            data["head"] = {"title": str(title), "shape": " × ".join(str(s) for s in whole.shape),
                            "note": t_plain("tb.first_columns", current_lang(), k=values.shape[1]) if cut else "",
                            "caption": str(caption)}
            width = fit.box_width(values, row_labels, col_labels, cells=data["cells"]) if width == "fit" else width
        else:
            fit.map_header(title, whole.shape, tr("tb.first_columns", k=values.shape[1]) if cut else "")
            if caption:
                st.caption(caption)
            width = "content"
        data["revs"] = self.editors.revs()  # an answer older than what is typed since waits (heatmap.js)
        rows = len(values) if link is not None and link != "wv" and not link.startswith("src:") else 0  # wv's and
        # src's rows are keys (the source), not the queries a click picks
        heatmap(map_key, data, on_pick=partial(self.on_pick, rows), width=width, into=into)
        if csv:
            csv_button(frame, f"{self.csv_prefix}{key}", key=f"dl_{self.key_prefix}{key}")
        return frame

    def zip_button(self, label: str, tables: dict, made: dict, *, file_name: str, key: str) -> None:
        """Every table of the page (``tables``: name → a function building its labelled DataFrame) as CSVs in one
        ZIP, with the files ``made`` for it (settings.txt), written only when the button is clicked."""
        st.download_button(label, partial(zip_tables, tables, made), file_name=file_name, mime="application/zip",
                           key=key, on_click="ignore", icon=":material/folder_zip:", type="primary")

    def on_pick(self, rows: int, value) -> None:
        """A click on a token's row of a map makes it the focus. The trigger is a widget state, read as anything a
        visitor may send: only a whole number naming one of ``rows`` rows is used."""
        row = picked(value, rows)
        if row is not None:
            settings.put(self.focus_setting, row)
