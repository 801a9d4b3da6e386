"""Home: what each page teaches."""

import streamlit as st

from ui.common import tr
from ui.pages import HOME, PAGES
from ui import links

links.start("home")
links.show_problems("home")

st.title(tr("home.title"))
st.markdown(tr("home.intro"))
for page in PAGES:
    if page is HOME:
        continue
    with st.container(border=True):
        st.page_link(page.script, label=tr(f"nav.{page.name}"), icon=":material/arrow_forward:")
        st.markdown(tr(f"home.{page.name}"))
st.caption(tr("home.footer"))
links.publish("home")
