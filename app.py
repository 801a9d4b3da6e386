"""selfattn: the Self-Attention Explorer. The frame: page config, language switch, navigation."""

import streamlit as st

from selfattn.i18n import LANGS
from ui import warmup
from ui.common import LANG_KEY, tr

st.set_page_config(page_icon="🔍", layout="wide")  # the tab's title is set below, once the page is known
warmup.start()  # the English model loads in the background while the visitor reads

# A shared link may carry ?lang=zh; the sidebar choice wins after that. Each page writes the
# language into its link with its own settings (ui/state.py), and names a bad ?lang= there.
if LANG_KEY not in st.session_state:
    requested = st.query_params.get("lang", "en")
    st.session_state[LANG_KEY] = requested if requested in LANGS else "en"
st.session_state[LANG_KEY] = st.session_state[LANG_KEY]  # keep the choice across pages
st.sidebar.radio("Language / 语言", list(LANGS), format_func=LANGS.get, key=LANG_KEY, horizontal=True)

pages = [
    st.Page("pages/home.py", title=tr("nav.home"), icon=":material/home:", default=True),
    st.Page("pages/playground.py", title=tr("nav.playground"), icon=":material/grid_on:",
            url_path="playground"),
    st.Page("pages/embeddings.py", title=tr("nav.embeddings"), icon=":material/translate:",
            url_path="embeddings"),
    st.Page("pages/heads.py", title=tr("nav.heads"), icon=":material/speed:", url_path="heads"),
]
page = st.navigation(pages)
st.set_page_config(page_title=tr("nav.tab_title", page=page.title))  # "Playground · selfattn", "动手实验 · selfattn"
page.run()
