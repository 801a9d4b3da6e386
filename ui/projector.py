"""How the app looks beyond Streamlit's theme: text every visitor can read, and a projector view.

One style element a run (``st.html`` with only a style sheet is added to the page, not drawn):

- **Readable captions.** Streamlit draws captions (the help lines under every step, the formulas
  in them, the preset note) at 60 % of the text colour: 3.9:1 against the page, under WCAG AA's
  4.5:1. Here they are drawn at 80 % (about 7:1), so they stay a step quieter than body text.
- **Worked-out lines** (``ui.widgets.worked_lines``, Streamlit's plain text element, the only one the pages draw):
  in a box of their own, in a fixed-width font, as a code box drew them without its highlighter.
- **Titles and size badges.** A map's size badge ("3 × 3", the code span after its bold name) never breaks
  inside; titles wrap in balanced lines (a Chinese title left one character alone on its last line at 1024 px).
  (The sidebar's link and its copy button, always shown beside it, are drawn by ui/components/share_link.py.)
- **The navigation** names every page whole: a name wider than the sidebar wraps onto a second line instead of
  ending in "…" (the projector view's 210 px sidebar showed "Sentence embe…").
- **Projector view** (the sidebar switch, kept in the link as ``big=1``): the main area is drawn
  larger (CSS ``zoom``, so text, step maps, charts, axis labels and legends all grow together),
  for a class reading a projector at 1024 × 768 from the back of the room; the head view's lines
  are drawn strong (ui/embeddings/readout.py). To make room for the larger text, the sidebar narrows to
  :data:`PROJECTOR_SIDEBAR_PX` and the main area's side margins shrink from 5 rem to 1.25 rem: at
  1024 px the main area holds 586 px of (zoomed) page instead of 397.

  A chart under the zoom: Streamlit sizes a Vega-Lite chart to its box as ``getBoundingClientRect`` measures it,
  which in Chromium counts the zoom (a box of 586 px reads 762), and Vega then draws that many px inside the zoom:
  every chart ran 30 % past its column (176 px at 1024). The chart's own box is held to 1/zoom of its column, so
  the width Streamlit measures is the column's, and the drawing, zoomed, fills the column exactly.
"""

from __future__ import annotations

import streamlit as st

PROJECTOR_KEY = "projector"  # the switch's session-state key (the link's parameter is ``big``)
PROJECTOR_ZOOM = 1.3  # at 1024 px a 14 px caption reads as 18 px, an 11 px axis label as 14 px
PROJECTOR_SIDEBAR_PX = 210  # the sidebar's 300 px left 724 of 1,024 for the main area; its texts still fit at 210
CAPTION_OPACITY = 0.8  # Streamlit's own is 0.6 (3.9:1); 0.8 gives about 7:1 on the light theme

_READABLE = f"""
[data-testid="stCaptionContainer"] {{ opacity: {CAPTION_OPACITY}; color: inherit; }}
[data-testid="stCaptionContainer"] code {{ color: inherit; }}
[data-testid="stMain"] h1, [data-testid="stMain"] h2, [data-testid="stMain"] h3 {{ text-wrap: balance; }}
[data-testid="stMain"] [data-testid="stMarkdownContainer"] strong + code {{ white-space: nowrap; }}
[data-testid="stMain"] [data-testid="stText"] {{ padding: 0.75rem 1rem; border-radius: 0.5rem;
  background: rgba(128, 128, 128, 0.1); overflow-wrap: anywhere; }}
[data-testid="stMain"] [data-testid="stText"] > * {{ font-family: "Source Code Pro", monospace; font-size: 0.875rem;
  line-height: 1.6; }}
[data-testid="stSidebarNavLink"] {{ height: auto; min-height: 2rem; }}
[data-testid="stSidebarNavLink"] > span:last-child, [data-testid="stSidebarNavLink"] > span:last-child * {{
  white-space: normal; height: auto; line-height: 1.3; }}
"""
_PROJECTOR = f"""
[data-testid="stMain"] {{ zoom: {PROJECTOR_ZOOM}; }}
[data-testid="stSidebar"] {{ width: {PROJECTOR_SIDEBAR_PX}px !important; min-width: {PROJECTOR_SIDEBAR_PX}px !important;
  max-width: {PROJECTOR_SIDEBAR_PX}px !important; }}
[data-testid="stMainBlockContainer"] {{ padding-left: 1.25rem; padding-right: 1.25rem; max-width: none; }}
[data-testid="stMain"] [data-testid="stVegaLiteChart"] {{ max-width: calc(100% / {PROJECTOR_ZOOM}); overflow: visible; }}
"""


def projector_on() -> bool:
    """Whether the projector view is switched on in this session."""
    return st.session_state.get(PROJECTOR_KEY) is True


def style_sheet(projector: bool) -> str:
    """The app's style element: readable captions, and the projector view when ``projector``."""
    return "<style>" + _READABLE + (_PROJECTOR if projector else "") + "</style>"


def apply() -> None:
    """Add the style element for this run (app.py, every run, before the page)."""
    st.html(style_sheet(projector_on()))
