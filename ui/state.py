"""Every key the app keeps in session state, in one place, and the shareable link built on them.

A page's table (:func:`fields`) says for every setting it keeps: the session-state key, the
URL parameter, its codec with its limits, and its default. The same table

- fills session state from a link the first time a page opens in a session (:func:`open_page`),
- keeps each widget's value across pages and hidden runs, with its default (:func:`keep`),
- writes the link as the visitor works (:func:`publish`), shown in the sidebar with a copy button,
- and drives the fuzz tests.

Everything else the pages keep (last good results, the Playground's tables, the link's own
bookkeeping) is declared in :data:`KEPT`, and the widget keys no code reads back in
:data:`WIDGETS` (tests/test_session_keys.py holds every page to both); :func:`last_good` keeps a
result and falls back to it on bad input. :func:`keep` and :func:`put` refuse a key no table has, :func:`kept` and
:func:`last_good` one that KEPT does not name (``KeyError``), and tests/test_state.py checks
every key the code names.

History: Streamlit turns every change of ``st.query_params`` into a new browser history entry,
so each keystroke, and each language switch, would be a step that Back has to undo. A small
script (:data:`HISTORY_SCRIPT`) makes a history push that keeps the same page a replacement:
a page change is one history entry, an edit is none. The script is every run's first element
(:func:`begin_run`, called by app.py before anything slow). The first run of a session does not
write the link at all (the script is not in the browser yet), so opening the app adds no
duplicate entry; the link as opened stays until the first change. Every later run writes it,
whether or not the first run finished: a visitor who clicks before the first run is over (which
interrupts it) gets a link that follows the click.
"""

from __future__ import annotations

import functools
import re
from typing import Callable, Sequence, TypeVar
from urllib.parse import urlencode

import streamlit as st

from selfattn.display import share
from selfattn.display.share import Bool, Choice, Choices, Field, Int, Text
from selfattn.errors import InputError
from selfattn.hosting import is_hosted
from selfattn.i18n import DEFAULT_LANG, LANGS, Markdown, t
from selfattn.block import view as block
from selfattn.playground import view as playground
from selfattn.playground.view import MAX_SEED
from ui.pages import PAGE_NAMED

T = TypeVar("T")
LANG_KEY = "lang"  # the visitor's language (the sidebar's switch, app.py)
REFUSED = "_refused"  # the settings refused in this run (:func:`refuse_unfit_settings`), shown by :func:`show_problems`
OPENED = "_link_opened"  # pages whose link has been read in this session
STARTED = "_link_started"  # set as the session's first run starts (begin_run)
WRITTEN = "_link_written"  # this run may write the link: an earlier run of the session started (begin_run)
MAX_NAMED = 8  # ignored parameters named in the message
LANG = Field(LANG_KEY, "lang", Choice(tuple(LANGS)), "en")
PROJECTOR = Field("projector", "big", Bool(), False)  # the projector view (ui/look.py), on every page's link
GLOBAL = (LANG, PROJECTOR)  # what every page's link carries besides its own table (read in app.py)

HISTORY_SCRIPT = """<script>
(() => {
  const h = window.history;
  if (h.__selfattnReplace) return;
  h.__selfattnReplace = true;
  const push = h.pushState.bind(h);
  h.pushState = (data, unused, url) => {
    const target = new URL(url ?? window.location.href, window.location.href);
    return target.pathname === window.location.pathname ? h.replaceState(data, unused, url) : push(data, unused, url);
  };
})();
</script>"""


def begin_run() -> None:
    """Every run's first call (app.py): send the history script, and say whether this run may write the link.

    The first run of a session may not (the script is not in the browser yet); every later run may,
    even when the first was interrupted before it reached :func:`publish`: a click during a slow first
    open starts a new run, which must write the link the click changed. The flag is set as the first
    run starts, not as it ends, for that reason.
    """
    st.session_state[WRITTEN] = st.session_state.get(STARTED, False)
    st.session_state[STARTED] = True
    with st.sidebar:
        st.html(HISTORY_SCRIPT, unsafe_allow_javascript=True)


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
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


# ── The tables ───────────────────────────────────────────────────────────────────────────

def _embeddings() -> tuple[Field, ...]:
    from selfattn.text import models
    from selfattn.text.embedding_text import MAX_CHARS
    from selfattn.text.embeddings import KINDS, SOURCES
    if is_hosted():  # the allow-list, and the old ids of its models (a link may say bert-base-chinese)
        allowed = tuple(sorted(models.HOSTED_ALLOWLIST))
        old_ids = tuple(sorted(old for old, new in models.LEGACY_IDS.items() if new in models.HOSTED_ALLOWLIST))
        model = Field("emb_model", "model", Choice(allowed + old_ids), allowed[0])
    else:
        model = Field("emb_model", "model", Text(300), "bert-base-chinese")
    return (Field("emb_mode", "mode", Choice(("single", "pair")), "single"),
            Field("emb_text", "text", Text(MAX_CHARS), "早上好"),
            Field("emb_text_b", "text2", Text(MAX_CHARS), "Good morning"),
            Field("emb_source", "source", Choice(SOURCES), "auto"),
            model,
            Field("emb_kind", "kind", Choice(KINDS), "static"),
            Field("emb_dims", "dims", Int(4, 64), 16),
            Field("emb_scale", "scale", Bool(), False),  # with unit-length vectors ÷√d would flatten every row
            Field("emb_unit", "unit", Bool(), True),  # the character vectors are ~20 long: raw, the softmax is one-hot
            Field("emb_layer", "layer", Int(1, 64), 1),
            Field("emb_head", "head", Int(1, 64), 1),
            Field("emb_units", "units", Choice(("tokens", "words")), "tokens"),
            Field("emb_view", "map", Choice(("head", "mean", "max", "rollout")), "head"),
            Field("emb_pick", "pick", Int(0, 600), 0),  # head view: 0 all tokens, i the i-th
            Field("emb_order_a", "oa", Text(MAX_CHARS), "狗咬人"),  # issue 24: same words, another order
            Field("emb_order_b", "ob", Text(MAX_CHARS), "人咬狗"))


def _heads() -> tuple[Field, ...]:
    from selfattn import bench
    from selfattn.core.heads import MISTAKES
    from selfattn.bench import choices as hd

    offer = hd.bench_choices(bench.limits_for())
    devices = tuple(hd.devices())
    return (Field("hd_input", "input", Choice(("random", "sentence")), "random"),
            Field("hd_seed", "seed", Int(0, MAX_SEED), 0),
            Field("hd_n", "n", Int(1, hd.MAX_N), 6),
            Field("hd_d", "d", Choice(hd.D_CHOICES), 16),
            Field("hd_text", "text", Text(200), "早上好，今天天气很好"),
            Field("hd_causal", "causal", Bool(), False),
            Field("hd_heads", "heads", Int(1, hd.MAX_HEADS), 4),
            Field("hd_open", "open", Choices(tuple(MISTAKES)), [MISTAKES[0]]),
            Field("hd_device", "device", Choice(devices), devices[0]),
            Field("hd_dtype", "dtype", Choice(tuple(bench.DTYPES)), "float32"),
            Field("hd_batch", "batch", Int(1, offer["batch"]), 1),
            Field("hd_bench_d", "bd", Choice(tuple(offer["d_model"])), 512),
            Field("hd_bench_heads", "bh", Choices(tuple(offer["heads"])), [1, 8]),
            Field("hd_bench_lens", "bn", Choices(tuple(offer["seq_len"])), [128, 256, 512]),
            Field("hd_bench_impls", "bi", Choices(tuple(offer["impls"])), list(offer["impls"])),
            Field("hd_bundled", "results", Choices(tuple(hd.bundled_results())), list(hd.bundled_results())))


TABLES: dict[str, Callable[[], tuple[Field, ...]]] = {
    "home": tuple, "playground": lambda: playground.FIELDS, "embeddings": _embeddings, "heads": _heads,
    "block": lambda: block.FIELDS}


def fields(page: str) -> tuple[Field, ...]:
    """The settings ``page`` keeps (every page's link also carries the language)."""
    return _fields(page, is_hosted())  # hosted mode offers fewer models and smaller benchmarks


@functools.cache
def _fields(page: str, hosted: bool) -> tuple[Field, ...]:
    del hosted  # part of the cache key only
    return TABLES[page]()


def field(key: str) -> Field:
    for page in TABLES:
        for f in fields(page):
            if f.key == key:
                return f
    raise KeyError(key)


def default(key: str):
    """A setting's default, from its page's table."""
    value = field(key).default
    return list(value) if isinstance(value, list) else value


# ── Everything else in session state ─────────────────────────────────────────────────────
# What the pages keep beyond the settings in the tables (and the language, LANG), and what it
# holds. A name ending in "*" is a family: one key per page, matrix, panel or editor. Widgets
# whose value no code reads back from session state (buttons, downloads) are not listed, nor
# the keys derived from a listed one (``choice``'s widget keys, ``key__<names' checksum>``).
KEPT: dict[str, str] = {
    OPENED: "the pages whose link has been read in this session",
    "_shown_page": "the page the last whole run showed (begin)",
    "_entered": "True on a page's first run after another page, until the page reads it (begin)",
    STARTED: "set as the session's first run starts, after the history script is sent (begin_run)",
    WRITTEN: "this run may write the link: an earlier run of this session started (begin_run)",
    "_link_bad_*": "per page: the link's parameters that were not used, with why, until the page says so",
    "_keep_*": "a setting's value while its widget is not drawn (shadow)",
    "_choice_widgets": "per setting, the widget keys ui.common.choice made for it in this session (put sets them)",
    REFUSED: "the settings whose values from the browser were refused in this run (refuse_unfit_settings)",
    "pg": "the Playground's tables, editors, undo and notices (ui/playground.py)",
    "pg_good": "last_good: the Playground's (inputs, trace, biases shown)",
    "pg_n": "the Playground's number of tokens (its size box)",
    "pg_d_in": "the Playground's d_in (its size box)",
    "pg_d_k": "the Playground's d_k (its size box)",
    "pg_d_v": "the Playground's d_v (its size box)",
    "pg_upload_*": "the Playground's CSV uploader (one per editor version) and which matrix it fills",
    "ed_*": "the Playground's matrix editors, one per matrix and version",
    "pg_order_good": "last_good: the Playground's last good order of the tokens, 0-based (ui/positions.py)",
    "pg_order_undo": "the Playground's earlier orders of the tokens, for its Undo button (ui/positions.py)",
    "emb_good": "last_good: each sentence slot's embeddings ({mode}{index} -> TokenEmbeddings)",
    "emb_model_good": "last_good: (spec, bundle, run) of the model's heads last shown",
    "emb_download": "the model whose download button was clicked, until the download runs",
    "emb_order_good": "last_good: {kind: ui.order.Compared} of the same words in another order (ui/order.py)",
    "emb_patterns": "the pattern grid's selection (a click picks a layer and head)",
    "hd_good": "last_good: (x, tokens, weights, single, multi) of the head comparison",
    "hd_bench": "last_good: the records of this session's benchmark run",
    "hd_uploaded": "last_good: (file name, records) of the uploaded results",
    "hd_run_requested": "set by the Run button, until the benchmark runs",
    "hd_open_*": "each mistake panel's expander",
    "tb": "the Transformer block page's typed tables, editors' generation, undo and notice (ui/block.py SLOTS)",
    "tb_good": "last_good: the Transformer block page's toy result (selfattn.block.compute.ToyResult)",
    "tb_real_good": "last_good: the Transformer block page's real layer (selfattn.block.compute.RealResult)",
    "tbed_*": "the Transformer block page's matrix editors, one per table and version",
}


# Widgets whose state no code reads back as a setting or result (buttons, downloads, uploaders,
# the maps' click triggers): declared so that every key a session holds is named somewhere.
WIDGETS: dict[str, str] = {
    "dl_*": "each CSV, JSON or ZIP download button",
    "map_*": "the Playground's and the Transformer block's maps (a click on a token's row sends its trigger)",
    "heatmap_library": "the maps' drawing code, sent once a page run",
    "pg_undo": "the Playground's Undo button",
    "pg_upload_target": "the matrix the Playground's CSV upload fills",
    "pg_order_draw": "the Playground's button that draws a new order",
    "pg_order_reset": "the Playground's button that puts the tokens back in order",
    "pg_order_undo_button": "the Playground's button that brings back the order before",
    "preset_*": "the Sentence embeddings page's example sentences, one button each",
    "use_chinese_model": "the Sentence embeddings page's switch to the real Chinese model",
    "order_pair_*": "the word-order section's example pairs, one button each",
    "order_use_chinese_model": "the word-order section's switch to the real Chinese model",
    "hd_run": "the Heads page's Run button",
    "hd_upload": "the Heads page's results uploader",
    "tb_undo": "the Transformer block page's Undo button",
    "tb_load": "the Transformer block page's button that reloads the preset",
}
SHADOW = "_keep_"  # + a setting's key: its shadow (:func:`shadow`)
CHOICE = re.compile(r"(.+)__[0-9a-f]{8}")  # a setting's key + its names' checksum: ui.common.choice's widget
CHOICE_WIDGETS = "_choice_widgets"  # {setting: [its CHOICE widget keys]}, noted by ui.common.choice, read by put


def _setting(key: str) -> bool:
    try:
        field(key)
    except KeyError:
        return key in {f.key for f in GLOBAL}
    return True


def declared(key: str) -> bool:
    """True when ``key`` is a setting (of a table, or the language), named in :data:`KEPT` or
    :data:`WIDGETS`, or one of their families; a shadow or a choice widget only of a setting, the
    link's bad parameters only of a page."""
    if key.startswith(SHADOW):
        return _setting(key[len(SHADOW):])
    if key.startswith("_link_bad_"):
        return key[len("_link_bad_"):] in TABLES
    if _setting(key) or key in KEPT or key in WIDGETS:
        return True
    choice_of = CHOICE.fullmatch(key)
    if choice_of and _setting(choice_of.group(1)):
        return True
    families = [name[:-1] for name in (*KEPT, *WIDGETS) if name.endswith("*") and name not in (SHADOW + "*", "_link_bad_*")]
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
    return state[key] if key in state else state.get(shadow(key), start)


def keep(key: str, options: Sequence | None = None, *, fallback=None):
    """A setting's value, kept across pages and runs where its widget is not drawn.

    Call before drawing the widget with ``key=key``. Streamlit forgets the state of widgets
    that were not drawn; a shadow copy (:func:`shadow`) brings it back, else the table's
    default. The value is also written back under ``key`` on every run: a widget drawn only
    some of the time (the pair's second sentence, the model box) would otherwise, on its first
    run undrawn, fall back to its default, and the visitor's text would be lost (found by
    tests/test_fuzz_embeddings.py).

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
    # The boxes of ui.common.choice showing it (Undo puts a preset back): the widget keys it
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
    if key not in KEPT:
        raise KeyError(f"{key!r} is not declared in ui/state.py's KEPT")
    return key


def kept(key: str, slot: str | None = None):
    """The result :func:`last_good` keeps under ``key`` (one ``slot`` of it, or every slot), or None."""
    value = st.session_state.get(_result_key(key))
    return value if slot is None or value is None else value.get(slot)


def last_good(key: str, compute: Callable[[], T], slot: str | None = None) -> tuple[T | None, InputError | None]:
    """Compute a result and keep it; on bad input, fall back to the one kept last time.

    Args:
        key: a key of :data:`KEPT`.
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


# ── Reading a link ───────────────────────────────────────────────────────────────────────

SHOWN_PAGE = "_shown_page"  # the page the last whole run showed (declared in KEPT)
ENTERED = "_entered"  # True on a page's first run after another page (or none) was shown (declared in KEPT)


def start(page: str) -> None:
    """Every page's first call: run inside app.py's frame, check the settings, then read the link.

    A page with state of its own besides its table (the Playground's tables) calls the three
    steps itself: :func:`begin`, makes its state, then :func:`open_page`.
    """
    begin(page)
    open_page(page)


def begin(page: str) -> None:
    """Run inside app.py's frame; note whether the page was just entered; put back unfit settings."""
    require_frame()
    st.session_state[ENTERED] = st.session_state.get(SHOWN_PAGE) != page  # read (and cleared) by the page
    st.session_state[SHOWN_PAGE] = page
    refuse_unfit_settings(fields(page))  # before anything reads a setting


def open_page(page: str, own: tuple[str, ...] = ()) -> dict[str, str] | None:
    """The first time ``page`` opens in this session, take its settings from the link.

    Settings that are fine go into session state; each other one is named in a message, in
    plain words, with the reason. Runs once per page per session: later runs (and Back or
    Forward, which bring back a link this session wrote) keep what the visitor has on screen.

    Args:
        own: the page's own parameters beyond its table (the Playground's cells), which the page
            reads itself, so they are not called unknown.

    Returns:
        The link's parameters when it was read now (the page reads ``own`` from them and names
        the bad ones with :func:`note_bad`); None on later runs or without parameters.
    """
    opened = st.session_state.setdefault(OPENED, set())
    if page in opened:
        return None
    opened.add(page)
    params = st.query_params.to_dict()
    if not params:
        return None
    table = fields(page)
    values, bad = share.decode_fields(table, params)
    for key, value in values.items():
        put(key, value)
    _, bad_global = share.decode_fields(GLOBAL, params)  # app.py applies them; here only what was not used
    bad.update(bad_global)
    known = {f.param for f in table} | set(own) | {f.param for f in GLOBAL}
    for name in params:
        if name not in known:
            bad[name] = share.BadValue("unknown")
    note_bad(page, bad)
    return params


def note_bad(page: str, bad: dict[str, share.BadValue]) -> None:
    """Name these parameters of the link, with why, in :func:`show_problems`: after the page's
    settings named already, before the language, the projector and the unknown ones."""
    if not bad:
        return
    named = st.session_state.get(_bad_key(page), {})
    table = {f.param for f in fields(page)}
    ordered = {name: why for name, why in named.items() if name in table}
    ordered.update(bad)
    ordered.update({name: why for name, why in named.items() if name not in ordered})
    st.session_state[_bad_key(page)] = ordered


def _bad_key(page: str) -> str:
    return f"_link_bad_{page}"


def show_problems(page: str) -> None:
    """Say which settings of the opened link were not used, and why (once, right after opening), and
    which values sent by the browser were refused (:mod:`ui.guard`)."""
    refused = st.session_state.pop(REFUSED, None)
    if refused:
        names = ", ".join(f"`{_shown(name)}`" for name in refused[:MAX_NAMED])
        st.warning(tr("guard.settings", names=Markdown(names)), icon=":material/block:")
    bad = st.session_state.pop(_bad_key(page), None)
    if not bad:
        return
    unknown = [name for name, exc in bad.items() if exc.reason == "unknown"]
    known = [(name, exc) for name, exc in bad.items() if exc.reason != "unknown"]
    lines = [f"- `{_shown(name)}`: {tr(f'share.why_{exc.reason}', **exc.params)}" for name, exc in known[:MAX_NAMED]]
    if len(known) > MAX_NAMED:
        lines.append("- " + tr("share.more", n=len(known) - MAX_NAMED))
    if unknown:
        names = ", ".join(f"`{_shown(name)}`" for name in unknown[:MAX_NAMED])
        if len(unknown) > MAX_NAMED:
            names += ", " + tr("share.more", n=len(unknown) - MAX_NAMED)
        lines.append(f"- {names}: {tr('share.why_unknown')}")
    st.warning(tr("share.ignored") + "\n\n" + "\n".join(lines), icon=":material/link_off:")


def _shown(name: str) -> str:
    """A parameter name as the message shows it: short, and nothing that breaks out of the code span."""
    name = "".join(ch if ch.isprintable() and ch != "`" else "?" for ch in name)
    return name if len(name) <= 24 else name[:23] + "…"


# ── Writing the link ─────────────────────────────────────────────────────────────────────

def params_for(page: str, own: dict[str, str] | None = None) -> dict[str, str]:
    """The link's parameters for what ``page`` shows now (defaults left out).

    Args:
        own: the page's parameters, encoded from its state by the page (the Playground's); by
            default its table's settings as they stand in session state.
    """
    params = share.encode_fields(GLOBAL, {LANG_KEY: current_lang(), PROJECTOR.key: st.session_state.get(PROJECTOR.key) is True})
    params.update(share.encode_fields(fields(page), st.session_state) if own is None else own)
    return params


def share_link(page: str, own: dict[str, str] | None = None,
               bulky: tuple[str, ...] = ()) -> tuple[str, dict[str, str], bool]:
    """The link to what ``page`` shows now, as :func:`publish` shows it (arguments as there).

    Returns:
        (the link, its parameters, whether the ``bulky`` ones were dropped to keep it short).
    """
    params = params_for(page, own)
    query = urlencode(params)
    too_long = len(query) > share.MAX_LINK_CHARS
    if too_long:
        params = {k: v for k, v in params.items() if k not in bulky}
        query = urlencode(params)
    base = st.context.url or f"/{PAGE_NAMED[page].url_path}"  # AppTest has no URL
    return base.split("?")[0] + (f"?{query}" if query else ""), params, too_long


def publish(page: str, own: dict[str, str] | None = None, bulky: tuple[str, ...] = ()) -> None:
    """Write the page's settings into the URL and show the link, with a copy button, in the sidebar.

    Every page ends with this (or :func:`stop`), as it starts with :func:`start`.

    Args:
        page: the page's name in :data:`ui.pages.PAGES`.
        own: the page's parameters, encoded from its state (see :func:`params_for`).
        bulky: parameters dropped, with a word to the visitor, when the link would be too long.
    """
    link, params, too_long = share_link(page, own, bulky)
    if st.session_state.get(WRITTEN) and st.query_params.to_dict() != params:
        st.query_params.from_dict(params)
    with st.sidebar:
        st.caption(tr("share.caption"))
        st.code(link, language=None, wrap_lines=False)
        if too_long:
            st.warning(tr("share.too_long", n=share.MAX_LINK_CHARS), icon=":material/link_off:")


def stop(page: str, **kwargs) -> None:
    """``st.stop()``, after writing the link (a page that stops early still shares its settings)."""
    publish(page, **kwargs)
    st.stop()
