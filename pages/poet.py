"""写诗 / A tiny poet: a decoder-only Transformer trained here on Tang poems writes a five-character poem, one
character at a time, its candidates, attention and cache on screen, checked against a full pass and PyTorch."""

import streamlit as st

from ui import links
from ui.components.heatmap import library
from ui.poet import page as po
from ui.widgets import tr

links.start("poet")
st.title(tr("po.title"))
links.show_problems("poet")
library()  # the linked maps' drawing code, once a page run, outside the fragment
po.PLAYER.run(po.draw_page, always=False)  # while playing, a fragment rerun every second (ui/play.py)
