"""The shareable link of every page: read once when a page opens in a session, written as the visitor works.

A page's settings table (``ui/state.py``'s :func:`~ui.state.fields`) says which parameter carries each
setting. :func:`start` (every page's first call) reads the link the first time the page opens in a session
(:func:`open_page`) and names what it could not use (:func:`show_problems`); :func:`publish` writes the link from
the settings as the visitor works, shown in the sidebar with a copy button; :func:`stop` is every page's last call.

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

from urllib.parse import urlencode

import streamlit as st

from selfattn.display import share
from selfattn.i18n import Markdown
from ui.navigation import PAGE_NAMED
from ui.components.share_link import share_link as share_link_box
from ui.state import (GLOBAL, LANG_KEY, OPENED, PROJECTOR, REFUSED, STARTED, WRITTEN, current_lang, fields, put,
                      refuse_unfit_settings, require_frame, tr)

MAX_NAMED = 8  # ignored parameters named in the message

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



# ── Reading a link ───────────────────────────────────────────────────────────────────────

SHOWN_PAGE = "_shown_page"  # the page the last whole run showed (declared in FRAME_KEPT)
ENTERED = "_entered"  # True on a page's first run after another page (or none) was shown (declared in FRAME_KEPT)


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
        page: the page's name in :data:`ui.navigation.PAGES`.
        own: the page's parameters, encoded from its state (see :func:`params_for`).
        bulky: parameters dropped, with a word to the visitor, when the link would be too long.
    """
    link, params, too_long = share_link(page, own, bulky)
    if st.session_state.get(WRITTEN) and st.query_params.to_dict() != params:
        st.query_params.from_dict(params)
    with st.sidebar:
        st.caption(tr("share.caption"))
        share_link_box(link)
        if too_long:
            st.warning(tr("share.too_long", n=share.MAX_LINK_CHARS), icon=":material/link_off:")


def stop(page: str, **kwargs) -> None:
    """``st.stop()``, after writing the link (a page that stops early still shares its settings)."""
    publish(page, **kwargs)
    st.stop()
