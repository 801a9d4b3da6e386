"""Work in progress: replaced by the real page in this session."""

import streamlit as st

st.write("…")
