"""Efficient attention: FlashAttention's tiles and online softmax, traffic, grouped-query heads, sliding windows and
rotary positions, each checked against PyTorch on screen."""

import streamlit as st

from functools import partial

from selfattn.efficient.view import PARTS
from ui.efficient import page as ef
from ui import links, parts
from ui.widgets import tr

links.start("efficient")
st.title(tr("ef.title"))
st.caption(tr("ef.intro"))
links.show_problems("efficient")


def body(part: str) -> None:
    st.header(tr(f"ef.part_{part}"))
    ef.draw_part(part)  # the part, then the link (the tiles' own, inside their fragment while playing)


parts.show("efficient", "ef_part", "ef", {part: partial(body, part) for part in PARTS})
