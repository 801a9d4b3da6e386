"""Playground state: the editable matrices, their matrix editors, resizing, presets and uploads.

Every matrix lives in ``st.session_state["pg"]["frames"]`` as a DataFrame of text: what the
visitor sees now, bad cells included, so nothing typed is lost. ``frames`` is the truth.

Each matrix has a matrix editor (``ui.components.matrix_editor``), whose state is the full table of
cell texts as typed, with a revision number. The page reads that state on every run (after
``setup`` has checked it) and, when it differs from ``frames``, it becomes ``frames``: an edit back
to the original value is a table like any other, so it never vanishes (the data editor's diff
against its seed lost it, streamlit issue 7749).

An editor is re-created (its key carries ``version``) only when the matrices change from
outside it: a preset, a resize, an upload, an undo, a link, a refused state, or a language switch
that relabels the tutorial's "Input i" tokens. A new editor is drawn from ``frames``, so no edit is
lost; within one editor the browser's typed text is the truth until it is sent.
"""

from __future__ import annotations

import functools
import re

import numpy as np
import pandas as pd
import streamlit as st

from selfattn.core.presets import PRESETS, preset
from selfattn.display import share
from selfattn.display.grid import (MAX_DIM, MAX_LABEL_CHARS, MAX_TOKENS, Sizes,
                                   read_csv_matrix)
from selfattn.display.numbers import editor_text
from selfattn.errors import InputError
from selfattn.i18n import Markdown
from selfattn.playground import link as codec
from selfattn.playground.link import CELL_CHARS, CELL_PARAMS
from selfattn.playground.frames import fit_frames, frames_from_example, translate_label, w_frame, x_frame
from selfattn.playground.inputs import TOKEN_COL, parse_rows
from selfattn.playground import text as words
from selfattn.playground.text import TOGGLES
from selfattn.playground.view import BIASES, FIELDS, MATRICES, NAMES, Tables, View, natural_sizes, tables, view
from ui.editing import Editors, Maps, editor_texts
from ui.components import matrix_editor as editor_component
from ui import state as settings
from ui.widgets import current_lang, error_text, tr, uploaded

STATE = "pg"
# What ``st.session_state["pg"]`` holds, one slot each (tests/test_session_keys.py holds the page to it).
# The settings are not here: they are the page's table (selfattn.playground.view.FIELDS), read as one View.
SLOTS = {
    "frames": "every matrix as the visitor sees it, text as typed (the truth): {name: DataFrame}",
    "version": "the editors' generation: a new one re-creates every editor from frames",
    "lang": "the language the tutorial's labels were last written in",
    "notice": "(kind, catalog key, parameters) a callback leaves for the page to say once",
    "upload_notice": "the uploaded file's name, or the InputError that refused it, said once",
    "undo": "(frames, settings, 'preset'/'resize'/'upload'): what the last such change replaced, or None",
    "note_edited": "whether the preset's note said 'edited' (the fragment reruns the page when that changes)",
    "revs": "{name: [editor key, revision]} the maps of this run were computed from (heatmap.js)",
    "mounted": "the cells each editor of this version was mounted with",
    "cells": "{name: (frame, rows of text)}: each table as text, kept with the frame it was read from",
    "tables": "(frames, Tables): the tables as the View holds them, kept with the frames",
}


def _as_text(frames: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    return {name: frame.map(editor_text) for name, frame in frames.items()}


LIMITS = {"n": MAX_TOKENS, "d_in": MAX_DIM, "d_k": MAX_DIM, "d_v": MAX_DIM}
UNDONE = (*TOGGLES, "pg_preset", "pg_seed")  # the settings an undo puts back with the tables
SIZE_KEYS = {"n": "pg_n", "d_in": "pg_d_in", "d_k": "pg_d_k", "d_v": "pg_d_v"}  # the size boxes (declared in the view's KEPT)


def state() -> dict:
    """The Playground's state, created with the tutorial preset on first open.

    A language switch relabels the tutorial's "Input i" tokens (hand-typed labels stay) and
    re-creates the editors from the current tables, so every edit survives it.
    """
    if STATE not in st.session_state:
        example = preset("tutorial")
        frames = dict(base_frames("tutorial", 0, Sizes(), current_lang()))  # shared, never changed in place
        st.session_state[STATE] = {"frames": frames, "version": 0, "notice": None,
                                   "undo": None, "lang": current_lang()}
        settings.put("pg_scale", example.scale)
    pg = st.session_state[STATE]
    if pg["lang"] != current_lang():
        pg["lang"] = current_lang()
        x = pg["frames"]["x"]
        labels = [translate_label(label, current_lang()) for label in x[TOKEN_COL]]
        if labels != list(x[TOKEN_COL]):
            pg["frames"]["x"] = x.assign(**{TOKEN_COL: labels})
            EDITORS.renew()
    return pg


EDITORS = Editors(STATE, "ed_")  # the editors' protocol, from the kit (ui/editing.py)
MAPS = Maps("pg", "", "", "pg_focus", EDITORS)  # the linked step maps: MAPS.show(...)
show_map = MAPS.show


def editor_key(name: str) -> str:
    return EDITORS.key(name)


def _limits(name: str, frame: pd.DataFrame) -> list[int]:
    """The most characters each column of ``name``'s editor takes (X: its label column first)."""
    return [MAX_LABEL_CHARS if name == "x" and c == TOKEN_COL else CELL_CHARS for c in frame.columns]


def setup() -> dict:
    """The Playground's state, with every editor's table checked before anything reads it.

    A table no visitor could have sent from these fixed tables (another number of rows or
    columns, a cell that is not text or longer than its column takes: ``ui.guard``) is dropped
    before anything works on it; the editors start again from the tables as they were, and the
    page says what was refused (the kit's :meth:`ui.editing.Editors.check`).
    """
    pg = state()
    EDITORS.check(((name, _cells(name), _limits(name, pg["frames"][name]), NAMES[name]) for name in (*MATRICES, *BIASES)),
                  cell_chars=CELL_CHARS, label_chars=MAX_LABEL_CHARS)
    return pg


def replace_frames(frames: dict[str, pd.DataFrame], *, undo: str | None = None, before: dict | None = None) -> None:
    """Replace matrices from outside the editors (preset, resize, upload) and reset the editors.

    Args:
        undo: what replaced them ("preset", "resize", "upload"): the tables before it are kept
            so that one click brings them back. None for the undo itself.
        before: settings as they were before the change, where they already changed (the preset box).
    """
    pg = state()
    if undo is not None:  # the kit's one-click undo: (tables, settings, what replaced them)
        kept = {key: settings.value(key) for key in UNDONE}
        EDITORS.keep_undo((dict(pg["frames"]), {**kept, **(before or {})}, undo))
    pg["frames"] = {**pg["frames"], **_as_text(frames)}
    EDITORS.renew()


def undo() -> None:
    """Callback: bring back the tables, the switches, the preset box and its seed from before the last preset,
    resize or upload (the kit's :meth:`ui.editing.Editors.undo_edits`)."""
    if EDITORS.undo_edits("pg.undone", tables="frames"):
        sync_size_widgets()


def current_sizes() -> Sizes:
    frames = state()["frames"]
    return Sizes(n=len(frames["x"]), d_in=frames["x"].shape[1] - 1, d_k=frames["w_q"].shape[1],
                 d_v=frames["w_v"].shape[1])


def load_preset(name: str, seed: int, before: dict | None = None) -> None:
    """Load a preset (random uses the current sizes and the chosen seed); one click undoes it."""
    sizes = current_sizes()
    example = preset(name, seed=seed, n=sizes.n, d_in=sizes.d_in, d_k=sizes.d_k, d_v=sizes.d_v)
    toggles_before = {key: bool(st.session_state.get(key, False)) for key in TOGGLES}
    replace_frames(frames_from_example(example, current_lang()), undo="preset", before=before)
    after = words.preset_toggles(example)
    for key, value in after.items():
        settings.put(key, value)
    sync_size_widgets()
    changed = {key: value for key, value in after.items() if value != toggles_before[key]}
    EDITORS.say("success", "pg.preset_loaded_changed" if changed else "pg.preset_loaded",
                name=tr(f"pg.preset_{name}"), changes=words.toggle_words(changed, current_lang()))


def caption(tables_edited: bool) -> Markdown:
    """The preset box's caption: what the chosen preset is and sets, and whether the page still shows it."""
    toggles = {key: bool(st.session_state.get(key, False)) for key in TOGGLES}
    return words.preset_caption(st.session_state["pg_preset"], tables_edited, toggles, current_lang())


def edited() -> bool:
    """Whether the tables on screen differ from the chosen preset's (at its sizes and seed)."""
    return bool(_table_params())


def load_chosen_preset(before: str | None = None) -> None:
    """Callback of the preset box (given the preset chosen ``before``) and of the reload button:
    load the chosen preset with the seed."""
    load_preset(st.session_state.get("pg_preset", "tutorial"), int(st.session_state.get("pg_seed", 0)),
                before={"pg_preset": before} if before is not None else None)


def on_seed() -> None:
    """Callback of the seed box: a new seed makes new random numbers at once."""
    if st.session_state.get("pg_preset") == "random":
        load_chosen_preset()


def sync_size_widgets() -> None:
    sizes = current_sizes()
    for field in ("n", "d_in", "d_k", "d_v"):
        st.session_state[SIZE_KEYS[field]] = float(getattr(sizes, field))


def resize_to_widgets() -> None:
    """Callback: apply the size widgets, keeping the numbers that still fit."""
    now = current_sizes()
    for field, top in LIMITS.items():  # the boxes have no limits of their own: a typed 40 would stay there
        value = st.session_state[SIZE_KEYS[field]]
        if value is not None and 1 <= value <= top and value != int(value):  # 2.5 is no size: keep the old one
            st.session_state[SIZE_KEYS[field]] = float(getattr(now, field))
            EDITORS.say("warning", "pg.size_not_whole", name=field, value=f"{value:g}", kept=getattr(now, field))
        elif value is None or not 1 <= value <= top:
            fixed = top if value is not None and value > top else 1
            st.session_state[SIZE_KEYS[field]] = float(fixed)
            EDITORS.say("warning", "pg.size_clamped", name=field, top=top, fixed=fixed)
    sizes = Sizes(*(int(st.session_state[SIZE_KEYS[field]]) for field in LIMITS))
    if sizes != current_sizes():
        replace_frames(fit_frames(state()["frames"], sizes, current_lang()), undo="resize")


def size_widgets() -> None:
    """Number inputs for n, d_in, d_k, d_v; a change resizes every matrix at once."""
    sizes = current_sizes()
    for field in ("n", "d_in", "d_k", "d_v"):  # numbers with a fraction, so that 2.5 is seen and refused, not cut to 2
        st.session_state.setdefault(SIZE_KEYS[field], float(getattr(sizes, field)))
    cols = st.columns(4, vertical_alignment="bottom")  # a label that wraps (d_k at 1024 px) keeps the boxes in line
    for col, field in zip(cols, LIMITS):
        col.number_input(tr(f"pg.size_{field}"), step=1.0, format="%g", key=SIZE_KEYS[field], on_change=resize_to_widgets,
                         help=tr(f"pg.size_{field}_help"))


def _cells(name: str) -> list[list[str]]:
    """The current table of ``name`` as rows of text, kept with the table it was read from."""
    pg = state()
    frame = pg["frames"][name]
    kept = pg.setdefault("cells", {}).get(name)
    if kept is None or kept[0] is not frame:
        kept = pg["cells"][name] = (frame, [[_text(v) for v in row] for row in frame.to_numpy(dtype=object)])
    return kept[1]


def _take_sent(name: str) -> int:
    """Make the table the editor sent (checked by ``setup``) the current one; return its revision."""
    pg = state()
    sent = EDITORS.sent(name, name)
    if sent is None:
        return 0
    rev, cells = sent
    if cells != _cells(name):
        frame = pg["frames"][name]
        new = pd.DataFrame(cells, index=frame.index, columns=frame.columns)
        pg["frames"][name] = new
        pg["cells"][name] = (new, [list(row) for row in cells])
    return rev


def _bad_cell(name: str, problem: InputError | None) -> tuple[int, int] | None:
    """Where the cell ``problem`` names sits in ``name``'s editor, as (row, column)."""
    if problem is None or not problem.code.startswith("cell_"):
        return None
    frame = state()["frames"][name]
    columns = [str(c) for c in frame.columns]
    row, col = str(problem.params.get("row", "")), str(problem.params.get("col", ""))
    if col not in columns:
        return None
    if name == "x":
        i = int(row.split(" ", 1)[0]) - 1 if re.fullmatch(r"[0-9]{1,3}", row.split(" ", 1)[0]) else -1
    elif name in BIASES:
        i = 0
    else:
        i = [str(r) for r in frame.index].index(row) if row in [str(r) for r in frame.index] else -1
    return (i, columns.index(col)) if 0 <= i < len(frame) else None


def editor(name: str) -> pd.DataFrame:
    """Draw the matrix editor for one matrix, mark its bad cell, and return its table.

    What the editor sent (the full table as typed) becomes the matrix's current table. A bad cell
    is outlined where it sits and named right under its editor, so the visitor sees it where they
    typed; the results further down keep the last good numbers.
    """
    pg = state()
    key = editor_key(name)
    rev = _take_sent(name)  # noted for the maps of this run (EDITORS.revs, heatmap.js)
    frame = pg["frames"][name]
    problem = matrix_error(name)
    columns = [str(c) for c in frame.columns]
    if name == "x":
        rows = [str(i + 1) for i in range(len(frame))]
        columns[0] = tr("pg.token_col")
    else:
        rows = [str(r) for r in frame.index]
    bad = _bad_cell(name, problem)
    editor_component.matrix_editor(key, name=name, matrix=NAMES[name], rows=rows, cols=columns, cells=EDITORS.mounted(name, _cells(name)),
                         max_chars=_limits(name, frame), labels=[name == "x" and j == 0 for j in range(len(columns))],
                         rev=rev if bad else 0, bad=bad, texts=editor_texts())
    if name == "x":
        long = [str(v) for v in frame[TOKEN_COL] if isinstance(v, str) and len(v.strip()) > MAX_LABEL_CHARS]
        if long:  # an upload may bring longer labels than the editor lets one type
            st.info(tr("pg.labels_cut", n=MAX_LABEL_CHARS, first=long[0]), icon=":material/content_cut:")
    if problem is not None:
        st.error(error_text(problem), icon=":material/error:")
    return frame


def _parse(name: str) -> np.ndarray:
    """One matrix as numbers (X: its numeric columns), or InputError naming row and column: the table as it
    stands, read as the page's computation reads it (``selfattn.playground.inputs.parse_rows``, kept per table)."""
    cells = _cells(name)
    if name == "x":
        return parse_rows(name, [row[1:] for row in cells], [row[0] for row in cells])
    return parse_rows(name, cells)


def matrix_error(name: str) -> InputError | None:
    """Why one matrix cannot be used as it is, or None when every cell is a finite number."""
    try:
        _parse(name)
    except InputError as exc:
        return exc
    return None


def on_upload(uploader_key: str, target_key: str) -> None:
    """Callback of the CSV uploader: apply the file, or keep everything and say why not."""
    pg = state()
    try:
        upload = uploaded(st.session_state.get(uploader_key))
        if upload is None:
            return
        name, data = upload
        apply_upload(st.session_state[target_key], data)
        pg["upload_notice"] = name
    except InputError as exc:
        pg["upload_notice"] = exc


def apply_upload(target: str, data: bytes) -> None:
    """Replace one matrix with an uploaded CSV, or raise InputError and change nothing.

    X may bring any number of tokens (1-32) but must have d_in columns; a weight must be
    exactly (d_in, d_k) or (d_in, d_v).
    """
    sizes = current_sizes()
    if target == "x":
        values, labels = read_csv_matrix(data, "X", cols=sizes.d_in)
        tokens = labels or [f"t{i + 1}" for i in range(len(values))]
        frame = x_frame(tokens, values)
        replace_frames({"x": frame}, undo="upload")
    else:
        width = sizes.d_v if target == "w_v" else sizes.d_k
        values, _ = read_csv_matrix(data, NAMES[target], cols=width, rows=sizes.d_in)
        replace_frames({target: w_frame(values, target)}, undo="upload")
    sync_size_widgets()


# ── The shareable link: encoded from the page's View (selfattn.playground.link) ──────────

def _text(value) -> str:
    """A cell as text ("" for an emptied one)."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    return editor_text(value)


def _rows(frame: pd.DataFrame, name: str) -> list[list[str]]:
    """The cells of one table as text, row by row (X without its token column)."""
    cells = frame.to_numpy(dtype=object)  # (rows, cols), X with its token column first
    return [[_text(v) for v in row] for row in (cells[:, 1:] if name == "x" else cells)]


def _tables_of(frames: dict[str, pd.DataFrame]) -> Tables:
    return tables([_text(v) for v in frames["x"][TOKEN_COL]], {m: _rows(frames[m], m) for m in CELL_PARAMS})


@functools.lru_cache(maxsize=64)
def base_frames(name: str, seed: int, sizes: Sizes, lang: str) -> dict[str, pd.DataFrame]:
    """The tables the preset ``name`` gives at ``sizes`` (random: drawn at those sizes), as text.

    ``lang``: the language of the tutorial's "Input i" labels (the visitor's).
    """
    if name == "random":
        example = preset(name, seed=seed, n=sizes.n, d_in=sizes.d_in, d_k=sizes.d_k, d_v=sizes.d_v)
    else:
        example = preset(name, seed=seed)
    return fit_frames(_as_text(frames_from_example(example, lang)), sizes, lang)


@functools.lru_cache(maxsize=64)
def _base_tables(name: str, seed: int, sizes: Sizes, lang: str) -> Tables:
    return _tables_of(base_frames(name, seed, sizes, lang))


def base(name: str, seed: int, sizes: Sizes) -> Tables:
    """What the preset ``name`` gives at ``sizes``, in the visitor's language (the link's ``Base``)."""
    return _base_tables(name, seed, sizes, current_lang())


def _preset_and_seed() -> tuple[str, int]:
    name = st.session_state.get("pg_preset", "tutorial")
    return (name if name in PRESETS else "tutorial"), int(st.session_state.get("pg_seed", 0) or 0)


def shown_tables() -> Tables:
    """The tables on screen as text, kept with the tables they were read from (most reruns change none)."""
    pg = state()
    frames = list(pg["frames"].values())
    kept = pg.get("tables")
    if kept is None or len(kept[0]) != len(frames) or any(a is not b for a, b in zip(kept[0], frames)):
        kept = pg["tables"] = (frames, _tables_of(pg["frames"]))
    return kept[1]


def read() -> View:
    """The page's state: every setting of its table and the tables on screen, as one frozen View.

    Reads without writing (the page's widgets above may be drawn already); a focus that names no
    token of the tables is the first token, as the page shows it.
    """
    name, seed = _preset_and_seed()
    now = shown_tables()
    values = {f.key: settings.value(f.key) for f in FIELDS}
    return view({**values, "pg_preset": name, "pg_seed": seed, "pg_focus": focus(now.sizes.n)}, now)


def link_params(shown: View | None = None) -> dict[str, str]:
    """The link's parameters for ``shown`` (by default what is on screen): settings, sizes, labels, cells."""
    return codec.encode(shown or read(), base)


def _table_params() -> dict[str, str]:
    """The link's parameters for the tables alone: sizes, labels and cells that differ from the preset."""
    name, seed = _preset_and_seed()
    tables_now = shown_tables()
    return codec.encode_tables(tables_now, base(name, seed, tables_now.sizes), natural_sizes(name, seed))


def open_link(params: dict[str, str]) -> dict[str, share.BadValue]:
    """Set the tables from a link (the preset and seed are already in session state).

    Returns:
        The parameters that could not be used, with why; the rest is applied.
    """
    name, seed = _preset_and_seed()
    opened, bad = codec.decode_tables(params, name, seed, base)
    frames = dict(base_frames(name, seed, opened.sizes, current_lang()))
    was = base(name, seed, opened.sizes)
    for matrix in (*MATRICES, *BIASES):
        frame = frames[matrix]
        if opened.rows(matrix) == was.rows(matrix) and (matrix != "x" or opened.tokens == was.tokens):
            continue
        numbers = frame.drop(columns=[TOKEN_COL]) if matrix == "x" else frame
        cells = pd.DataFrame([list(row) for row in opened.rows(matrix)], index=numbers.index, columns=numbers.columns)
        frames[matrix] = (pd.concat([frame[[TOKEN_COL]].assign(**{TOKEN_COL: list(opened.tokens)}), cells], axis=1)
                          if matrix == "x" else cells)
    pg = state()
    pg["frames"] = frames
    EDITORS.renew()
    sync_size_widgets()
    focus_now = {"pg_focus": st.session_state.get("pg_focus", 0)}
    why = codec.check_focus(focus_now, opened.sizes.n)
    if why:
        settings.put("pg_focus", focus_now["pg_focus"])
    bad.update(why)
    return bad


def focus(n: int) -> int:
    """The focus token of steps 4-7 (its row is marked in every map): ``pg_focus`` when it names one of ``n``."""
    chosen = st.session_state.get("pg_focus", 0)
    return chosen if isinstance(chosen, int) and not isinstance(chosen, bool) and 0 <= chosen < n else 0
