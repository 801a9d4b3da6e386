"""The page's link in the sidebar, with a button that copies it (``share_link.js``, ``share_link.css``).

Streamlit's code box (``st.code``) drew it before and loads Streamlit's code highlighter into every page for this one
line: 0.15-0.5 s of Chromium's CPU a page load on the pages with no code of their own (docs/benchmarks.md).
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from selfattn.i18n import t_plain
from ui.components.matrix_editor import compact_css, compact_js, payload
from ui.state import current_lang

HERE = Path(__file__).parent
KEY = "share_link"
_mount = st.components.v2.component(
    "selfattn.share_link", js=compact_js((HERE / "share_link.js").read_text(encoding="utf-8")),
    css=compact_css((HERE / "share_link.css").read_text(encoding="utf-8")))


def share_link(link: str) -> None:
    """Draw ``link`` (text, never markdown) and its copy button where the caller is (the sidebar)."""
    lang = current_lang()
    _mount(key=KEY, data=payload({"link": link, "copy": t_plain("share.copy", lang),
                                  "copied": t_plain("share.copied", lang)}))
