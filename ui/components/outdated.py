"""Boxes the server writes from the editors' tables, marked out of date while newer tables are typed.

The step maps are redrawn in the browser the moment an edit is committed (the previews, ``heatmap.js``); a box the
server writes (worked-out lines of a sum, a check's difference, maps no preview draws) keeps its numbers
until the server answers, a second or more later. :func:`served` wraps such a box: while the editors hold a table
typed since the run that wrote it, the browser dims it and says it is being updated (``outdated.js``), so old numbers
are never shown unmarked beside new ones.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import streamlit as st

from selfattn.i18n import t_plain
from ui.components.matrix_editor import compact_js, payload
from ui.state import current_lang

HERE = Path(__file__).parent
_mount = st.components.v2.component("selfattn.outdated", js=compact_js((HERE / "outdated.js").read_text(encoding="utf-8")))


@contextlib.contextmanager
def served(key: str, revs: dict, **container):
    """A container (``st.container(key=key, **container)``) whose contents the server worked out from the editors'
    tables at ``revs`` ({editor name: [instance, revision]}, ``ui.editing.Editors.revs``); the marker that dims it
    while newer tables are typed comes last in it, after what it marks."""
    with st.container(key=key, **container):
        yield
        _mount(key=f"outdated_{key}", data=payload({"box": key, "revs": revs,
                                                    "note": t_plain("common.updating", current_lang())}), height=0)
