"""Playground state: the editable matrices, their matrix editors, resizing, presets and uploads.

Every matrix lives in ``st.session_state["pg"]["tables"]`` as rows of text by name (X's labels as
``tokens``), as the kit's pages keep their typed tables: what the visitor sees now, bad cells included,
so nothing typed is lost. ``tables`` is the truth (read as one :class:`~selfattn.playground.view.Tables`).

Each matrix has a matrix editor (``ui.components.matrix_editor``), whose state is the full table of
cell texts as typed, with a revision number. The page reads that state on every run (after
``setup`` has checked it) and, when it differs from ``tables``, it becomes ``tables``: an edit back
to the original value is a table like any other, so it never vanishes (the data editor's diff
against its seed lost it, streamlit issue 7749).

An editor is re-created (its key carries ``version``) only when the matrices change from
outside it: a preset, a resize, an upload, an undo, a link, a refused state, or a language switch
that relabels the tutorial's "Input i" tokens. A new editor is drawn from ``tables``, so no edit is
lost; within one editor the browser's typed text is the truth until it is sent.
"""

from __future__ import annotations

import functools
import re

import numpy as np
import streamlit as st

from selfattn.core.presets import PRESETS, preset
from selfattn.display import share
from selfattn.display.grid import (MAX_DIM, MAX_LABEL_CHARS, MAX_TOKENS, Sizes,
                                   read_csv_matrix)
from selfattn.display.edits import text_rows
from selfattn.errors import InputError
from selfattn.i18n import Markdown
from selfattn.playground import link as codec
from selfattn.playground.link import CELL_CHARS, CELL_PARAMS
from selfattn.playground.inputs import TOKEN_COL, parse_rows
from selfattn.playground.seeded import as_state, columns, example_tables, fit_tables, row_names, translate_label
from selfattn.playground import text as words
from selfattn.playground.text import TOGGLES
from selfattn.playground.view import BIASES, FIELDS, MATRICES, NAMES, Tables, View, natural_sizes, view
from ui.editing import Editors, Maps, editor_texts
from ui.components import matrix_editor as editor_component
from ui import state as settings
from ui.widgets import current_lang, error_text, tr, uploaded

STATE = "pg"
# What ``st.session_state["pg"]`` holds, one slot each (tests/test_session_keys.py holds the page to it).
# The settings are not here: they are the page's table (selfattn.playground.view.FIELDS), read as one View.
SLOTS = {
    "tables": "every matrix as the visitor sees it, text as typed (the truth): {name: rows, 'tokens': X's labels}",
    "version": "the editors' generation: a new one re-creates every editor from the tables",
    "lang": "the language the tutorial's labels were last written in",
    "notice": "(kind, catalog key, parameters) a callback leaves for the page to say once",
    "upload_notice": "the uploaded file's name, or the InputError that refused it, said once",
    "upload_target": "the matrix the CSV import fills, as last chosen (its chooser is made only while the box is open)",
    "undo": "(tables, settings, 'preset'/'resize'/'upload'): what the last such change replaced, or None",
    "note_edited": "whether the preset's note said 'edited' (the fragment reruns the page when that changes)",
    "revs": "{name: [editor key, revision]} the maps of this run were computed from (heatmap.js)",
    "mounted": "the cells each editor of this version was mounted with",
}


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
        tables = as_state(base_tables("tutorial", 0, Sizes(), current_lang()))
        st.session_state[STATE] = {"tables": tables, "version": 0, "notice": None,
                                   "undo": None, "lang": current_lang()}
        settings.put("pg_scale", example.scale)
    pg = st.session_state[STATE]
    if pg["lang"] != current_lang():
        pg["lang"] = current_lang()
        labels = tuple(translate_label(label, current_lang()) for label in pg["tables"]["tokens"])
        if labels != pg["tables"]["tokens"]:
            pg["tables"]["tokens"] = labels
            EDITORS.renew()
    return pg


EDITORS = Editors(STATE, "ed_")  # the editors' protocol, from the kit (ui/editing.py)
MAPS = Maps("pg", "", "", "pg_focus", EDITORS)  # the linked step maps: MAPS.show(...)
show_map = MAPS.show


def editor_key(name: str) -> str:
    return EDITORS.key(name)


def _limits(name: str) -> list[int]:
    """The most characters each column of ``name``'s editor takes (X: its label column first)."""
    width = len(state()["tables"][name][0])
    return [MAX_LABEL_CHARS, *[CELL_CHARS] * width] if name == "x" else [CELL_CHARS] * width


def setup() -> dict:
    """The Playground's state, with every editor's table checked before anything reads it.

    A table no visitor could have sent from these fixed tables (another number of rows or
    columns, a cell that is not text or longer than its column takes: ``ui.guard``) is dropped
    before anything works on it; the editors start again from the tables as they were, and the
    page says what was refused (the kit's :meth:`ui.editing.Editors.check`).
    """
    pg = state()
    EDITORS.check(((name, _cells(name), _limits(name), NAMES[name]) for name in (*MATRICES, *BIASES)),
                  cell_chars=CELL_CHARS, label_chars=MAX_LABEL_CHARS)
    return pg


def replace_tables(tables: dict, *, undo: str | None = None, before: dict | None = None) -> None:
    """Replace tables from outside the editors (preset, resize, upload) and reset the editors.

    Args:
        undo: what replaced them ("preset", "resize", "upload"): the tables before it are kept
            so that one click brings them back. None for the undo itself.
        before: settings as they were before the change, where they already changed (the preset box).
    """
    pg = state()
    if undo is not None:  # the kit's one-click undo: (tables, settings, what replaced them)
        kept = {key: settings.value(key) for key in UNDONE}
        EDITORS.keep_undo((dict(pg["tables"]), {**kept, **(before or {})}, undo))
    pg["tables"] = {**pg["tables"], **tables}
    EDITORS.renew()


def undo() -> None:
    """Callback: bring back the tables, the switches, the preset box and its seed from before the last preset,
    resize or upload (the kit's :meth:`ui.editing.Editors.undo_edits`)."""
    if EDITORS.undo_edits("pg.undone", tables="tables"):
        sync_size_widgets()


def current_sizes() -> Sizes:
    return shown_tables().sizes


def load_preset(name: str, seed: int, before: dict | None = None) -> None:
    """Load a preset (random uses the current sizes and the chosen seed); one click undoes it."""
    sizes = current_sizes()
    example = preset(name, seed=seed, n=sizes.n, d_in=sizes.d_in, d_k=sizes.d_k, d_v=sizes.d_v)
    toggles_before = {key: bool(st.session_state.get(key, False)) for key in TOGGLES}
    replace_tables(as_state(example_tables(example, current_lang())), undo="preset", before=before)
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
        replace_tables(as_state(fit_tables(shown_tables(), sizes, current_lang())), undo="resize")


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
    """The current table of ``name`` as its editor holds it, rows of text (X: each row's label first)."""
    tables = state()["tables"]
    if name == "x":
        return [[label, *row] for label, row in zip(tables["tokens"], tables["x"])]
    return [list(row) for row in tables[name]]


def _take_sent(name: str) -> int:
    """Make the table the editor sent (checked by ``setup``) the current one; return its revision."""
    tables = state()["tables"]
    sent = EDITORS.sent(name, name)
    if sent is None:
        return 0
    rev, cells = sent
    if cells != _cells(name):
        if name == "x":
            tables["tokens"] = tuple(row[0] for row in cells)
        tables[name] = tuple(tuple(row[1:] if name == "x" else row) for row in cells)
    return rev


def _bad_cell(name: str, problem: InputError | None) -> tuple[int, int] | None:
    """Where the cell ``problem`` names sits in ``name``'s editor, as (row, column)."""
    if problem is None or not problem.code.startswith("cell_"):
        return None
    rows = state()["tables"][name]
    names = columns(name, len(rows[0]))
    row, col = str(problem.params.get("row", "")), str(problem.params.get("col", ""))
    if col not in names:
        return None
    if name == "x":
        i = int(row.split(" ", 1)[0]) - 1 if re.fullmatch(r"[0-9]{1,3}", row.split(" ", 1)[0]) else -1
    elif name in BIASES:
        i = 0
    else:
        i = row_names(name, len(rows)).index(row) if row in row_names(name, len(rows)) else -1
    return (i, names.index(col)) if 0 <= i < len(rows) else None


def editor(name: str) -> None:
    """Draw the matrix editor for one matrix and mark its bad cell.

    What the editor sent (the full table as typed) becomes the matrix's current table. A bad cell
    is outlined where it sits and named right under its editor, so the visitor sees it where they
    typed; the results further down keep the last good numbers.
    """
    key = editor_key(name)
    rev = _take_sent(name)  # noted for the maps of this run (EDITORS.revs, heatmap.js)
    tables = state()["tables"]
    problem = matrix_error(name)
    cols = columns(name, len(tables[name][0]))
    if name == "x":
        rows = [str(i + 1) for i in range(len(tables[name]))]
        cols[0] = tr("pg.token_col")
    else:
        rows = row_names(name, len(tables[name]))
    bad = _bad_cell(name, problem)
    editor_component.matrix_editor(key, name=name, matrix=NAMES[name], rows=rows, cols=cols, cells=EDITORS.mounted(name, _cells(name)),
                         max_chars=_limits(name), labels=[name == "x" and j == 0 for j in range(len(cols))],
                         rev=rev if bad else 0, bad=bad, texts=editor_texts())
    if name == "x":
        long = [str(v) for v in tables["tokens"] if isinstance(v, str) and len(v.strip()) > MAX_LABEL_CHARS]
        if long:  # an upload may bring longer labels than the editor lets one type
            st.info(tr("pg.labels_cut", n=MAX_LABEL_CHARS, first=long[0]), icon=":material/content_cut:")
    if problem is not None:
        st.error(error_text(problem), icon=":material/error:")


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
        replace_tables({"tokens": tuple(tokens), "x": text_rows(values)}, undo="upload")
    else:
        width = sizes.d_v if target == "w_v" else sizes.d_k
        values, _ = read_csv_matrix(data, NAMES[target], cols=width, rows=sizes.d_in)
        replace_tables({target: text_rows(values)}, undo="upload")
    sync_size_widgets()


# ── The shareable link: encoded from the page's View (selfattn.playground.link) ──────────

@functools.lru_cache(maxsize=64)
def base_tables(name: str, seed: int, sizes: Sizes, lang: str) -> Tables:
    """The tables the preset ``name`` gives at ``sizes`` (random: drawn at those sizes), as text.

    ``lang``: the language of the tutorial's "Input i" labels (the visitor's).
    """
    if name == "random":
        example = preset(name, seed=seed, n=sizes.n, d_in=sizes.d_in, d_k=sizes.d_k, d_v=sizes.d_v)
    else:
        example = preset(name, seed=seed)
    return fit_tables(example_tables(example, lang), sizes, lang)


def base(name: str, seed: int, sizes: Sizes) -> Tables:
    """What the preset ``name`` gives at ``sizes``, in the visitor's language (the link's ``Base``)."""
    return base_tables(name, seed, sizes, current_lang())


def _preset_and_seed() -> tuple[str, int]:
    name = st.session_state.get("pg_preset", "tutorial")
    return (name if name in PRESETS else "tutorial"), int(st.session_state.get("pg_seed", 0) or 0)


def shown_tables() -> Tables:
    """The tables on screen as text."""
    return Tables(**state()["tables"])


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
    state()["tables"] = as_state(opened)
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
