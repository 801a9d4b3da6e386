"""Every key the app keeps in session state, in one place: the mechanism, no page's knowledge.

A page's table (:func:`fields`) says for every setting it keeps: the session-state key, the URL parameter, its codec
with its limits, and its default. The same table keeps each widget's value across pages and hidden runs, with its
default (:func:`keep`), fills and writes the link (``ui/link.py``), and drives the fuzz tests.

Each table is declared with its page (``ui/navigation.py``'s ``declared_in``: a plain-Python module), with what
else the page keeps (last good results, typed tables) in its ``KEPT`` and the widget keys no code reads back in
its ``WIDGETS``; the frame's own keys (the link's bookkeeping) are :data:`FRAME_KEPT` and :data:`FRAME_WIDGETS`
(tests/test_session_keys.py holds every page to them). This module imports no page.
:func:`last_good` keeps a result and falls back to it on bad input. :func:`keep` and :func:`put` refuse a key no
table has, :func:`kept` and :func:`last_good` one that no KEPT names (``KeyError``), and tests/test_state.py checks
every key the code names.
"""
from __future__ import annotations

import functools
import importlib
import re
from typing import Callable, Sequence, TypeVar

import streamlit as st

from selfattn.display.share import Bool, Choice, Field
from selfattn.errors import InputError
from selfattn.hosting import is_hosted
from selfattn.i18n import DEFAULT_LANG, LANGS, Markdown, t
from ui import streamlit_hooks as hooks
from ui.navigation import PAGE_NAMED

T = TypeVar("T")
LANG_KEY = "lang"  # the visitor's language (the sidebar's switch, app.py)
FOLDED = "_folded"  # ui.widgets.folded's boxes, open or not
REFUSED = "_refused"  # the settings refused in this run (:func:`refuse_unfit_settings`), shown by :func:`show_problems`
OPENED = "_link_opened"  # pages whose link has been read in this session
STARTED = "_link_started"  # set as the session's first run starts (begin_run)
WRITTEN = "_link_written"  # this run may write the link: an earlier run of the session started (begin_run)
LANG = Field(LANG_KEY, "lang", Choice(tuple(LANGS)), "en")
PROJECTOR = Field("projector", "big", Bool(), False)  # the projector view (ui/projector.py), on every page's link
GLOBAL = (LANG, PROJECTOR)  # what every page's link carries besides its own table (read in app.py)

# ── The language, and the frame every page runs in ─────────────────────────────────────

def current_lang() -> str:
    """The language chosen in the sidebar (English until one is chosen)."""
    lang = st.session_state.get(LANG_KEY, DEFAULT_LANG)
    return lang if lang in LANGS else DEFAULT_LANG


def tr(key: str, **fmt) -> Markdown:
    """The UI string ``key`` in the current language, as safe markdown (``str`` parameters escaped)."""
    return t(key, current_lang(), **fmt)


def require_frame() -> None:
    """Make sure the page runs inside app.py's frame (language switch, translated navigation).

    Because the app has a ``pages/`` folder, Streamlit starts in its older multipage mode and,
    on the first visit to a deep link such as ``/playground`` after the server starts, runs
    the page script alone. Switching that mode off and rerunning sends the visitor through
    ``app.py``'s ``st.navigation`` to the same page.
    """
    if hooks.leave_pages_directory_mode():
        st.rerun()


# ── The tables, each declared with its page ──────────────────────────────────────────────

@functools.cache
def _declaration(page: str):
    """The module that declares ``page``'s settings and keys (``ui/navigation.py``'s ``declared_in``), or None."""
    name = PAGE_NAMED[page].declared_in
    return importlib.import_module(name) if name else None


def fields(page: str) -> tuple[Field, ...]:
    """The settings ``page`` keeps (every page's link also carries the language)."""
    return _fields(page, is_hosted())  # hosted mode offers fewer models and smaller benchmarks


@functools.cache
def _fields(page: str, hosted: bool) -> tuple[Field, ...]:
    declared = _declaration(page)
    if declared is None:
        return ()
    return tuple(declared.settings(hosted)) if hasattr(declared, "settings") else tuple(declared.FIELDS)


def field(key: str) -> Field:
    return _by_key(is_hosted())[key]  # KeyError for a key no table has


@functools.cache
def _by_key(hosted: bool) -> dict[str, Field]:
    """Every page's settings by key, the first page's where two share one (as a walk of the pages finds it): a
    page run asks for a setting's field a few hundred times (every :func:`value`)."""
    return {f.key: f for page in reversed(PAGE_NAMED) for f in _fields(page, hosted)}


def default(key: str):
    """A setting's default, from its page's table."""
    value = field(key).default
    return list(value) if isinstance(value, list) else value


# ── Everything else in session state ─────────────────────────────────────────────────────
# What the frame keeps beyond the settings (and the language, LANG), and what it holds; each page adds its own
# KEPT and WIDGETS where it is declared (ui/navigation.py). A name ending in "*" is a family: one key per page, matrix,
# panel or editor. Widgets whose value no code reads back from session state (buttons, downloads) are not listed,
# nor the keys derived from a listed one (``choice``'s widget keys, ``key__<names' checksum>``).
FRAME_KEPT: dict[str, str] = {
    OPENED: "the pages whose link has been read in this session",
    "_shown_page": "the page the last whole run showed (begin)",
    "_entered": "True on a page's first run after another page, until the page reads it (begin)",
    STARTED: "set as the session's first run starts, after the history script is sent (begin_run)",
    WRITTEN: "this run may write the link: an earlier run of this session started (begin_run)",
    "_link_bad_*": "per page: the link's parameters that were not used, with why, until the page says so",
    "_keep_*": "a setting's value while its widget is not drawn (shadow)",
    "_choice_widgets": "per setting, the widget keys ui.widgets.choice made for it in this session (put sets them)",
    FOLDED: "{folded box's key: whether it is open}, as the visitor left each (ui.widgets.folded)",
    REFUSED: "the settings whose values from the browser were refused in this run (refuse_unfit_settings)",
}
# Widgets whose state no code reads back as a setting or result (buttons, downloads, uploaders, the maps' click
# triggers): declared so that every key a session holds is named somewhere.
FRAME_WIDGETS: dict[str, str] = {
    "dl_*": "each CSV, JSON or ZIP download button",
    "map_*": "the Playground's and the Transformer block's maps (a click on a token's row sends its trigger)",
    "maps_*": "maps side by side as one element (ui.components.heatmap.MapRow: a click sends its map's key and row)",
    "heatmap_library": "the maps' drawing code, sent once a page run",
    "outdated_*": "the boxes the server writes that dim while the browser's preview is newer (ui/components/outdated.py)",
    "share_link": "the page's link in the sidebar with its copy button (ui/components/share_link.py)",
}


@functools.cache
def kept_keys() -> dict[str, str]:
    """Every key kept beyond the settings: the frame's and each page's ``KEPT``."""
    return {**FRAME_KEPT, **{k: v for page in PAGE_NAMED for k, v in getattr(_declaration(page), "KEPT", {}).items()}}


@functools.cache
def widget_keys() -> dict[str, str]:
    """Every widget key no code reads back: the frame's and each page's ``WIDGETS``."""
    return {**FRAME_WIDGETS,
            **{k: v for page in PAGE_NAMED for k, v in getattr(_declaration(page), "WIDGETS", {}).items()}}


_ABSENT = object()  # no value in session state (a stored None is a value)
SHADOW = "_keep_"  # + a setting's key: its shadow (:func:`shadow`)
CHOICE = re.compile(r"(.+)__[0-9a-f]{8}")  # a setting's key + its names' checksum: ui.widgets.choice's widget
CHOICE_WIDGETS = "_choice_widgets"  # {setting: [its CHOICE widget keys]}, noted by ui.widgets.choice, read by put


def _setting(key: str) -> bool:
    try:
        field(key)
    except KeyError:
        return key in {f.key for f in GLOBAL}
    return True


def declared(key: str) -> bool:
    """True when ``key`` is a setting (of a table, or the language), named in :func:`kept_keys` or
    :func:`widget_keys`, or one of their families; a shadow or a choice widget only of a setting, the
    link's bad parameters only of a page."""
    if key.startswith(SHADOW):
        return _setting(key[len(SHADOW):])
    if key.startswith("_link_bad_"):
        return key[len("_link_bad_"):] in PAGE_NAMED
    if _setting(key) or key in kept_keys() or key in widget_keys():
        return True
    choice_of = CHOICE.fullmatch(key)
    if choice_of and _setting(choice_of.group(1)):
        return True
    families = [name[:-1] for name in (*kept_keys(), *widget_keys()) if name.endswith("*") and name not in (SHADOW + "*", "_link_bad_*")]
    return any(key.startswith(stem) for stem in families)


# ── Keeping settings and results ─────────────────────────────────────────────────────────

def shadow(key: str) -> str:
    """Where a setting's value waits while its widget is not drawn (Streamlit drops the widget's own)."""
    return f"{SHADOW}{key}"


def value(key: str):
    """A setting's value as :func:`keep` would give it (its widget's, else its shadow's, else the
    default), without writing anything: safe after its widget is drawn.

    Raises:
        KeyError: no table has ``key``.
    """
    start = default(key)  # KeyError for a key no table has
    state = st.session_state
    found = state.get(key, _ABSENT)  # one look-up, not "in" then [] (each walks Streamlit's session state)
    return state.get(shadow(key), start) if found is _ABSENT else found


def keep(key: str, options: Sequence | None = None, *, fallback=None):
    """A setting's value, kept across pages and runs where its widget is not drawn.

    Call before drawing the widget with ``key=key``. Streamlit forgets the state of widgets that were not drawn; a
    shadow copy (:func:`shadow`) brings it back, else the table's default. The value is also written back under
    ``key`` on every run: a widget drawn only some of the time (the pair's second sentence, the model box) would
    otherwise, on its first run undrawn, fall back to its default, and the visitor's text would be lost (found by
    tests/test_fuzz_embeddings.py); a value Streamlit kept under the key from before the widget first ran is dropped.

    Args:
        options: what the widget offers now, when that can change (a smaller model, another
            device): a number outside a ``range`` goes to its nearest end; a list setting keeps
            only the values offered; another value no longer offered becomes ``fallback``.
        fallback: what a value no longer offered becomes; by default the table's default when
            offered, else the first option.

    Returns:
        The value, also under ``st.session_state[key]``.

    Raises:
        KeyError: no table has ``key``.
    """
    kept_value = value(key)  # KeyError for a key no table has
    if options is not None:
        kept_value = _offered(kept_value, options, default(key) if fallback is None else fallback)
    hooks.drop_value_under_key(key)  # a value put while the widget was not drawn (tests/test_parts_app.py)
    put(key, kept_value)
    return kept_value


def _offered(value, options: Sequence, fallback):
    """``value`` brought within ``options`` (see :func:`keep`)."""
    if isinstance(options, range):
        return min(max(int(value), options.start), options.stop - 1)
    if isinstance(value, list):
        return value if all(v in options for v in value) else [v for v in value if v in options]
    if value in options:
        return value
    return fallback if fallback in options else options[0]


def put(key: str, value) -> None:
    """Set a setting (and its shadow), from a callback or a link, as if the visitor had chosen it.

    Raises:
        KeyError: no table has ``key``.
    """
    field(key)
    st.session_state[key] = value
    st.session_state[shadow(key)] = value
    # The boxes of ui.widgets.choice showing it (Undo puts a preset back): the widget keys it
    # noted under CHOICE_WIDGETS, not a scan of the whole session (that cost ~35 ms a page run).
    for widget_key in st.session_state.get(CHOICE_WIDGETS, {}).get(key, ()):
        if widget_key in st.session_state:  # Streamlit drops a widget's state when it is not drawn
            st.session_state[widget_key] = value


def refuse_unfit_settings(table: Sequence[Field]) -> list[str]:
    """Put back each setting whose value (a widget's, sent by the browser) its codec cannot hold.

    The first of the checks of :mod:`ui.guard` (the server trusts no message): it runs at the top
    of every page run, before anything reads a setting.

    Args:
        table: the page's table (:func:`fields`).

    Returns:
        The URL parameter names of the settings put back (also kept under :data:`REFUSED`).
    """
    refused = []
    session = st.session_state
    for f in table:
        if f.key not in session:
            continue
        try:
            fits = f.codec.fits(session[f.key])
        except Exception:  # a state Streamlit itself cannot read back
            fits = False
        if fits:
            continue
        before = session.get(shadow(f.key), f.default)
        put(f.key, before if f.codec.fits(before) else default(f.key))
        refused.append(f.param)
    if refused:
        session[REFUSED] = refused
    return refused


def _result_key(key: str) -> str:
    if key not in kept_keys():
        raise KeyError(f"{key!r} is not declared in a KEPT (ui/state.py's, or its page's: ui/navigation.py)")
    return key


def kept(key: str, slot: str | None = None):
    """The result :func:`last_good` keeps under ``key`` (one ``slot`` of it, or every slot), or None."""
    value = st.session_state.get(_result_key(key))
    return value if slot is None or value is None else value.get(slot)


def last_good(key: str, compute: Callable[[], T], slot: str | None = None) -> tuple[T | None, InputError | None]:
    """Compute a result and keep it; on bad input, fall back to the one kept last time.

    Args:
        key: a key of :func:`kept_keys`.
        compute: makes the result, or raises InputError saying why not.
        slot: one of several results kept under ``key`` (a dict), such as a pair's second sentence.

    Returns:
        (the new result, None), or (the last good result, or None when there is none, the error).
        Other exceptions are not caught.
    """
    _result_key(key)
    try:
        value = compute()
    except InputError as exc:
        return kept(key, slot), exc
    if slot is None:
        st.session_state[key] = value
    else:
        st.session_state.setdefault(key, {})[slot] = value
    return value, None
