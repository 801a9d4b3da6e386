"""Home: what each page teaches."""

import streamlit as st

from ui import state as settings
from ui.common import require_frame, tr

require_frame()
settings.open_page("home")
settings.show_problems("home")

st.title(tr("home.title"))
st.markdown(tr("home.intro"))
for page, name in (("pages/playground.py", "playground"), ("pages/embeddings.py", "embeddings"),
                   ("pages/heads.py", "heads")):
    with st.container(border=True):
        st.page_link(page, label=tr(f"nav.{name}"), icon=":material/arrow_forward:")
        st.markdown(tr(f"home.{name}"))
st.caption(tr("home.footer"))
settings.publish("home", "")
