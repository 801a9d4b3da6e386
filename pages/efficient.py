"""Efficient attention: FlashAttention's tiles and online softmax, traffic, grouped-query heads, sliding windows and
rotary positions, each checked against PyTorch on screen."""

import streamlit as st

from selfattn.efficient.view import PARTS
from ui.efficient import page as ef
from ui import links
from ui.widgets import choice, tr, tr_plain

links.start("efficient")
st.title(tr("ef.title"))
st.caption(tr("ef.intro"))
links.show_problems("efficient")
part = choice(st.segmented_control, tr("ef.part"), PARTS, "ef_part", {p: tr_plain(f"ef.part_{p}") for p in PARTS})
st.header(tr(f"ef.part_{part}"))
ef.draw_part(part)  # the part, then the link (the tiles' own, inside their fragment while playing)
