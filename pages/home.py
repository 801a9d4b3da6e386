"""Home: where to start, and what each page teaches."""

import streamlit as st

from selfattn.seq2seq.link import translator_params
from ui.widgets import tr
from ui.navigation import HOME, PAGE_NAMED, PAGES
from ui import links

# The first path through the app, in order: (page, the link's parameters, its name's catalog key, icon).
START = (("playground", None, "nav.playground", ":material/looks_one:"),
         ("block", None, "nav.block", ":material/looks_two:"),
         ("seq2seq", None, "nav.seq2seq", ":material/looks_3:"),
         ("seq2seq", translator_params(), "home.translator", ":material/looks_4:"))

links.start("home")
links.show_problems("home")

st.title(tr("home.title"))
st.markdown(tr("home.intro"))
with st.container(border=True):
    st.markdown(tr("home.start"))
    with st.container(horizontal=True, wrap=True, gap="small"):
        for name, params, label, icon in START:
            st.page_link(PAGE_NAMED[name].script, label=tr(label), icon=icon, query_params=params)
for page in PAGES:
    if page is HOME:
        continue
    with st.container(border=True):
        st.page_link(page.script, label=tr(f"nav.{page.name}"), icon=":material/arrow_forward:")
        st.markdown(tr(f"home.{page.name}"))
        if page.name == "seq2seq":
            st.page_link(page.script, label=tr("home.translator"), icon=":material/arrow_forward:",
                         query_params=translator_params())
st.caption(tr("home.footer"))
links.publish("home")
