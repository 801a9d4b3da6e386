"""The server trusts no message: every widget state a page reads is checked before any work.

A websocket client can send any widget state, not only what the browser's widgets allow (a 4 MB
text, a number outside a slider, 10,000 rows sent for a fixed table). Streamlit keeps whatever
arrives; these checks run at the top of every page run, before anything is computed or drawn:

- ``ui.state.refuse_unfit_settings``: every setting of the page's table, against its codec (a whole
  number in range, an offered choice, a text of at most so many characters);
- :func:`refuse_matrix_editor`: a matrix editor's table, against the table it edits
  (:func:`selfattn.display.guard.matrix_editor_problem`);
- uploads are scanned before they are parsed (``selfattn.display.grid``, ``selfattn.bench.results``).

A state that does not fit is dropped, the widget starts again from the last good value, and the
page says what was refused; nothing the visitor had before is lost. Streamlit's own cap on one
message (``server.maxWidgetStateSize`` in .streamlit/config.toml, 1 MB) bounds what reaches here.
"""

from __future__ import annotations

from typing import Sequence

import streamlit as st

from selfattn.display import guard

def refuse_matrix_editor(key: str, *, rows: int, max_chars: Sequence[int],
                         current: Sequence[Sequence[str]]) -> str | None:
    """Drop a matrix editor's state that no visitor editing this table could have sent.

    Call before drawing the editor. When the state is dropped, the caller re-creates the
    editor (a new key) from its last table.

    Returns:
        Why it was dropped (a :func:`selfattn.display.guard.matrix_editor_problem` reason), or None.
    """
    session = st.session_state
    if key not in session:
        return None
    try:
        problem = guard.matrix_editor_problem(session[key], rows=rows, max_chars=max_chars, current=current)
    except Exception:  # a state Streamlit itself cannot read back
        problem = "format"
    if problem is not None:
        del session[key]
    return problem
