"""selfattn: the Self-Attention Explorer. The frame: page config, language switch, navigation."""

import contextlib

import streamlit as st

from selfattn.i18n import LANGS
from ui import links, server_limits, warmup
from ui import projector as look
from ui.widgets import tr, tr_plain
from ui.state import LANG_KEY
from ui.navigation import HOME, PAGES

server_limits.install()  # one message, one upload: bounded however the app is served (ui/server_limits.py)
links.begin_run()  # before any other call: whether this run may write the link, and the history script (ui/state.py)
st.set_page_config(page_icon="🔍", layout="wide")  # the tab's title is set below, once the page is known
warmup.start()  # the English model loads in the background while the visitor reads

# A shared link may carry ?lang=zh; the sidebar choice wins after that. Each page writes the
# language into its link with its own settings (ui/state.py), and names a bad ?lang= there.
if LANG_KEY not in st.session_state:
    requested = st.query_params.get("lang", "en")
    st.session_state[LANG_KEY] = requested if requested in LANGS else "en"
st.session_state[LANG_KEY] = st.session_state[LANG_KEY]  # keep the choice across pages
st.sidebar.radio("Language / 语言", list(LANGS), format_func=LANGS.get, key=LANG_KEY, horizontal=True)
# The projector view (ui/projector.py): ?big=1 in a shared link turns it on; the sidebar switch after that.
if look.PROJECTOR_KEY not in st.session_state:
    st.session_state[look.PROJECTOR_KEY] = st.query_params.get("big") == "1"
st.session_state[look.PROJECTOR_KEY] = st.session_state[look.PROJECTOR_KEY] is True  # kept across pages
st.sidebar.toggle(tr("common.projector"), key=look.PROJECTOR_KEY, help=tr("common.projector_help"))
look.apply()

pages = [st.Page(p.script, title=tr(f"nav.{p.name}"), icon=p.icon, default=p is HOME, url_path=p.url_path or None)
         for p in PAGES]
page = st.navigation(pages)
st.set_page_config(page_title=tr_plain("nav.tab_title", page=page.title))  # "Playground · selfattn", "动手实验 · selfattn"
if any(p.heavy and p.url_path == page.url_path for p in PAGES):  # waits its turn (one at a time a process), says so
    queue_note = st.empty()
    turn = server_limits.heavy_turn(lambda n: queue_note.info(tr("common.queue", n=n), icon=":material/hourglass:")
                                    if n else queue_note.empty())
else:
    turn = contextlib.nullcontext()
with turn:
    page.run()
server_limits.sweep_session()  # uploads no uploader holds any more are dropped
