"""The Playground's Streamlit helpers: its declaration on the kit, and what is its own (sizes that follow its
tables, presets that set its switches, CSV uploads, X's token labels, its editors' bad cells).

The page is an :class:`ui.editable_page.EditablePage` (:data:`PAGE`), as the block and Encoder–decoder pages are:
``st.session_state["pg"]`` holds the tables the visitor typed into by id (``edits``, against the preset's tables at
the page's sizes), the sizes, and the kit's editors, undo and notices (:data:`SLOTS`); the settings are the page's
table (:data:`selfattn.playground.view.FIELDS`), read with the edits as one frozen
:class:`~selfattn.playground.view.View` (:func:`read`). What is its own: its sizes follow its tables (a size box
cuts or zero-pads every table, keeping what still fits; an upload brings its own number of tokens), a preset sets
the switches it names, X's editor holds the tokens' labels (the tutorial's "Input i" in the visitor's language),
and a bad cell is marked where it sits in its editor.
"""

from __future__ import annotations

import re
from dataclasses import replace

import streamlit as st

from selfattn.core.presets import preset
from selfattn.display import share
from selfattn.display.grid import MAX_DIM, MAX_LABEL_CHARS, MAX_TOKENS, Sizes, read_csv_matrix
from selfattn.display.edits import text_rows
from selfattn.errors import InputError
from selfattn.i18n import Markdown
from selfattn.playground import link as codec
from selfattn.playground import text as words
from selfattn.playground.inputs import parse_rows
from selfattn.playground.link import CELL_CHARS
from selfattn.playground.seeded import columns, fit_tables, row_names, seeded_tables, translate_label
from selfattn.playground.text import TOGGLES
from selfattn.playground.tables import BIASES, MATRICES, NAMES, Tables
from selfattn.playground.view import TABLES, View, natural_sizes, view
from ui import state as settings
from ui.components import matrix_editor as editor_component
from ui.editable_page import EditablePage
from ui.editing import Maps, editor_texts
from ui.widgets import current_lang, error_text, tr, uploaded

LIMITS = {"n": MAX_TOKENS, "d_in": MAX_DIM, "d_k": MAX_DIM, "d_v": MAX_DIM}
UNDONE = (*TOGGLES, "pg_preset", "pg_seed")  # the settings an undo puts back with the tables
SIZE_KEYS = {"n": "pg_n", "d_in": "pg_d_in", "d_k": "pg_d_k", "d_v": "pg_d_v"}  # the size boxes (declared in KEPT)


def _context() -> dict:
    """The View's fields besides its settings and edits: the tables' sizes, and the language of the tutorial's
    labels."""
    return {"size": state()["size"], "lang": current_lang()}


def _max_chars(table: str, cols: int) -> list[int]:
    """The most characters each column of ``table``'s editor takes (X: its label column first)."""
    return [MAX_LABEL_CHARS, *[CELL_CHARS] * (cols - 1)] if table == "x" else [CELL_CHARS] * cols


PAGE = EditablePage("pg", TABLES, inputs=MATRICES, weights=lambda shown: BIASES if shown.bias else (),
                    label=NAMES.get, context=_context, max_chars=_max_chars, label_chars=MAX_LABEL_CHARS,
                    folded=False, extra_slots={
                        "size": "the tables' sizes (Sizes): what the preset's tables are seeded at",
                        "lang": "the language the tutorial's labels were last written in",
                        "upload_notice": "the uploaded file's name, or the InputError that refused it, said once",
                        "upload_target": "the matrix the CSV import fills, as last chosen (its chooser is made only "
                                         "while the box is open)"})
SLOTS, EDITORS = PAGE.slots, PAGE.editors
MAPS = Maps("pg", "", "", "pg_focus", EDITORS)  # the linked step maps, each with its CSV: MAPS.show(...)
show_map = MAPS.show


def state() -> dict:
    """The Playground's state, with the tutorial preset on first open.

    A language switch relabels the tutorial's "Input i" tokens of a typed X (hand-typed labels stay; an X as seeded
    follows the language by itself) and mounts the editors again from the tables, so every edit survives it.
    """
    page, lang = PAGE.state(), current_lang()
    if "size" not in page:
        page.update(size=natural_sizes("tutorial", 0), lang=lang)
        settings.put("pg_scale", preset("tutorial").scale)
    if page["lang"] != lang:
        page["lang"] = lang
        typed = page["edits"].pop("x", None)
        if typed is not None:  # kept while it still differs from X as seeded in this language
            relabelled = tuple((translate_label(row[0], lang), *row[1:]) for row in typed)
            if relabelled != TABLES.view(PAGE.values(), size=page["size"], lang=lang).base("x"):
                page["edits"]["x"] = relabelled
        EDITORS.renew()
    return page


def setup() -> dict:
    """The Playground's state, every editor's sent table checked before anything reads it (the kit's
    :meth:`ui.editing.Editors.check`: another number of rows or columns, a cell that is not text or longer than its
    column takes is dropped, the editors start again from the tables, and the page says what was refused)."""
    state()
    return PAGE.setup()


def current() -> View:
    """The page's View from the settings and the tables as they stand (without reading the editors)."""
    state()
    return PAGE.current()


def read() -> View:
    """The page's state as one frozen View: every setting and every editor's table as typed (each taken once a run);
    a focus that names no token of the tables is the first token, as the page shows it."""
    state()
    shown = PAGE.read()
    return replace(shown, focus=focus(shown.size.n))


def shown_tables() -> Tables:
    """The tables on screen as text."""
    return current().tables


def current_sizes() -> Sizes:
    return state()["size"]


def _replace(tables: Tables, kind: str, before: dict | None = None) -> None:
    """Make ``tables`` the page's (from outside the editors: a preset, a size, an upload), one click undoing it.

    Args:
        kind: what replaced them ("preset", "resize", "upload"), for the undo's note.
        before: settings as they were before the change, where they already changed (the preset box).
    """
    page = state()
    kept = {key: settings.value(key) for key in UNDONE}
    EDITORS.keep_undo((dict(page["edits"]), {**kept, **(before or {})}, kind, page["size"]))
    shown = view(PAGE.values(), tables, current_lang())
    page["edits"], page["size"] = dict(shown.edits), shown.size
    EDITORS.renew()
    sync_size_widgets()


def undo() -> None:
    """Callback: bring back the tables, their sizes, the switches, the preset box and its seed from before the last
    preset, resize or upload (the kit's :meth:`ui.editing.Editors.undo_edits`)."""
    saved = PAGE.undo()
    if saved:
        state()["size"] = saved[3]
        sync_size_widgets()


def load_preset(name: str, seed: int, before: dict | None = None) -> None:
    """Load a preset (random: at the current sizes, with the chosen seed); one click undoes it."""
    sizes = current_sizes()
    toggles_before = {key: bool(st.session_state.get(key, False)) for key in TOGGLES}
    _replace(seeded_tables(name, seed, sizes if name == "random" else natural_sizes(name, seed), current_lang()),
             "preset", before)
    after = words.preset_toggles(preset(name, seed=seed))
    for key, value in after.items():
        settings.put(key, value)
    changed = {key: value for key, value in after.items() if value != toggles_before[key]}
    EDITORS.say("success", "pg.preset_loaded_changed" if changed else "pg.preset_loaded",
                name=tr(f"pg.preset_{name}"), changes=words.toggle_words(changed, current_lang()))


def caption(tables_edited: bool) -> Markdown:
    """The preset box's caption: what the chosen preset is and sets, and whether the page still shows it."""
    toggles = {key: bool(st.session_state.get(key, False)) for key in TOGGLES}
    return words.preset_caption(st.session_state["pg_preset"], tables_edited, toggles, current_lang())


def edited(shown: View | None = None) -> bool:
    """Whether the tables of ``shown`` (by default on screen) differ from the chosen preset's: cells, labels or
    sizes."""
    shown = shown or current()
    return bool(shown.edits) or shown.size != natural_sizes(shown.preset, shown.seed)


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
    if sizes != now:
        _replace(fit_tables(shown_tables(), sizes, current_lang()), "resize")


def size_widgets() -> None:
    """Number inputs for n, d_in, d_k, d_v; a change resizes every matrix at once."""
    sizes = current_sizes()
    for field in ("n", "d_in", "d_k", "d_v"):  # numbers with a fraction, so that 2.5 is seen and refused, not cut to 2
        st.session_state.setdefault(SIZE_KEYS[field], float(getattr(sizes, field)))
    cols = st.columns(4, vertical_alignment="bottom")  # a label that wraps (d_k at 1024 px) keeps the boxes in line
    for col, field in zip(cols, LIMITS):
        col.number_input(tr(f"pg.size_{field}"), step=1.0, format="%g", key=SIZE_KEYS[field], on_change=resize_to_widgets,
                         help=tr(f"pg.size_{field}_help"))


def _bad_cell(name: str, rows, problem: InputError | None) -> tuple[int, int] | None:
    """Where the cell ``problem`` names sits in ``name``'s editor (``rows``: as it holds them), as (row, column)."""
    if problem is None or not problem.code.startswith("cell_"):
        return None
    names = columns(name, len(rows[0]) - (name == "x"))
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


def editor(name: str, shown: View) -> None:
    """Draw the matrix editor for one matrix of ``shown`` (the page's View, read this run) and mark its bad cell.

    A bad cell is outlined where it sits and named right under its editor, so the visitor sees it where they
    typed; the results further down keep the last good numbers.
    """
    rows = shown.rows(name)
    problem = matrix_error(name, rows)
    cols = columns(name, len(rows[0]) - (name == "x"))
    if name == "x":
        cols[0] = tr("pg.token_col")
    bad = _bad_cell(name, rows, problem)
    rev = PAGE.sent_rev(name)  # noted when the run read the editors (PAGE.read)
    editor_component.matrix_editor(EDITORS.key(name), name=PAGE.editor_name(name), matrix=NAMES[name],
                                   rows=[str(i + 1) for i in range(len(rows))] if name == "x" else
                                   row_names(name, len(rows)), cols=cols, cells=EDITORS.mounted(name, rows),
                                   max_chars=PAGE.column_chars(name, len(cols)), labels=[name == "x" and j == 0 for j in
                                                                                 range(len(cols))],
                                   rev=rev if bad else 0, bad=bad, texts=editor_texts())
    if name == "x":
        long = [str(row[0]) for row in rows if isinstance(row[0], str) and len(row[0].strip()) > MAX_LABEL_CHARS]
        if long:  # an upload may bring longer labels than the editor lets one type
            st.info(tr("pg.labels_cut", n=MAX_LABEL_CHARS, first=long[0]), icon=":material/content_cut:")
    if problem is not None:
        st.error(error_text(problem), icon=":material/error:")


def matrix_error(name: str, rows) -> InputError | None:
    """Why one matrix (``rows`` as its editor holds them) cannot be used as it is, or None when every cell is a
    finite number (read as the page's computation reads it: ``selfattn.playground.inputs.parse_rows``)."""
    try:
        if name == "x":
            parse_rows(name, tuple(tuple(row[1:]) for row in rows), tuple(row[0] for row in rows))
        else:
            parse_rows(name, rows)
    except InputError as exc:
        return exc
    return None


def on_upload(uploader_key: str, target_key: str) -> None:
    """Callback of the CSV uploader: apply the file, or keep everything and say why not."""
    page = state()
    try:
        upload = uploaded(st.session_state.get(uploader_key))
        if upload is None:
            return
        name, data = upload
        apply_upload(st.session_state[target_key], data)
        page["upload_notice"] = name
    except InputError as exc:
        page["upload_notice"] = exc


def apply_upload(target: str, data: bytes) -> None:
    """Replace one matrix with an uploaded CSV, or raise InputError and change nothing.

    X may bring any number of tokens (1-32) but must have d_in columns; a weight must be
    exactly (d_in, d_k) or (d_in, d_v).
    """
    sizes, now = current_sizes(), shown_tables()
    if target == "x":
        values, labels = read_csv_matrix(data, "X", cols=sizes.d_in)
        tokens = labels or [f"t{i + 1}" for i in range(len(values))]
        _replace(replace(now, tokens=tuple(tokens), x=text_rows(values)), "upload")
    else:
        width = sizes.d_v if target == "w_v" else sizes.d_k
        values, _ = read_csv_matrix(data, NAMES[target], cols=width, rows=sizes.d_in)
        _replace(now.with_rows(target, text_rows(values)), "upload")


# ── The shareable link: encoded from the page's View (selfattn.playground.link) ──────────

def base(name: str, seed: int, sizes: Sizes) -> Tables:
    """What the preset ``name`` gives at ``sizes``, in the visitor's language (the link's ``Base``)."""
    return seeded_tables(name, seed, sizes, current_lang())


def link_params(shown: View | None = None) -> dict[str, str]:
    """The link's parameters for ``shown`` (by default what is on screen): settings, sizes, labels, cells."""
    return codec.encode(shown or read(), base)


def open_link(params: dict[str, str]) -> dict[str, share.BadValue]:
    """Set the tables from a link (its settings are already in session state).

    Returns:
        The parameters that could not be used, with why; the rest is applied.
    """
    page = state()
    opened, bad = codec.decode(params, base, current_lang())
    page["edits"], page["size"] = dict(opened.edits), opened.size
    EDITORS.renew()
    sync_size_widgets()
    focus_now = {"pg_focus": st.session_state.get("pg_focus", 0)}
    why = codec.check_focus(focus_now, opened.size.n)
    if why:
        settings.put("pg_focus", focus_now["pg_focus"])
    bad.update(why)
    return bad


def focus(n: int) -> int:
    """The focus token of steps 4-7 (its row is marked in every map): ``pg_focus`` when it names one of ``n``."""
    chosen = st.session_state.get("pg_focus", 0)
    return chosen if isinstance(chosen, int) and not isinstance(chosen, bool) and 0 <= chosen < n else 0
