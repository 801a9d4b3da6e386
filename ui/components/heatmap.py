"""The Playground's step maps: a Streamlit component (Components v2) that draws a matrix as a
table of coloured cells with their values written in them, and lights up linked cells across maps.

Its JavaScript and CSS live beside this file (``heatmap.js``, ``heatmap.css``), sent without
comments like the matrix editor's, together with ``attention.js``: the browser's preview of the
steps, a second implementation of :func:`selfattn.core.attention.attend` that redraws the maps on
Enter before the server answers (held to the core by ``tests/test_preview_browser.py``). Each map
goes to the browser as a little JSON (the cells as the text shown, the colour scale as nine
stops), so an edit sends a few hundred bytes a map instead of a Vega-Lite spec, and the browser
draws it as one table (no Vega view to update).

Hovering a cell lights up, in every map of the same group, the rows and cells that made it or
that it made (see ``heatmap.js``): in the browser, with no message to the server. A click on a
query's row sends one trigger, ``pick``, which the page checks with :func:`picked`.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
import streamlit as st

from selfattn.display import colours
from selfattn.display.numbers import map_text
from selfattn.i18n import t_plain
from ui.state import current_lang
from ui.components.matrix_editor import compact_css, compact_js, payload

HERE = Path(__file__).parent
LINKS = ("q", "k", "v", "scores", "scaled", "weights", "wv", "out")  # a map's place in the linked steps
# Families of linked maps (heatmap.js): rows are tokens (the block page; the Encoder–decoder's target), a head's
# weights; the Encoder–decoder's source rows, a head's masked self-attention and its cross-attention.
LINK_KINDS = ("row:", "att:", "src:", "self:", "cross:")
PICK = "pick"  # the trigger a click on a query's row sends: the row's number

# The drawing code and its style, sent once a page (see library); each map carries only its loader.
# One script: the arithmetic the previews share (maths.js), the previews' engines (attention.js, the second
# implementation of the Playground's steps; block.js, the third, of a Transformer layer; s2s.js, the fourth, of the
# Encoder–decoder page's model), each registering itself for its group of maps, then the maps (heatmap.js), which
# only draw what an engine returns.
SCRIPTS = ("maths.js", "attention.js", "block.js", "s2s.js", "heatmap.js")
LIBRARY_JS = ("const STYLE = " + json.dumps(compact_css((HERE / "heatmap.css").read_text(encoding="utf-8"))) + ";\n"
              + "\n".join(compact_js((HERE / name).read_text(encoding="utf-8")) for name in SCRIPTS))
_library = st.components.v2.component("selfattn.heatmap_library", js=LIBRARY_JS)
_mount = st.components.v2.component(
    "selfattn.heatmap", js=compact_js((HERE / "heatmap_loader.js").read_text(encoding="utf-8")))


def library() -> None:
    """The maps' drawing code, once on a page and outside its fragment: an edit redraws the maps
    without sending it again (a map element carries a loader of a few lines)."""
    _library(key="heatmap_library", data=None, height=0)


def map_data(matrix, row_labels: Sequence, col_labels: Sequence, *, name: str, role: str = "values",
             domain: tuple[float, float] | None = None, link: str | None = None, group: str = "pg",
             focus: int | None = None, engine: dict | None = None) -> dict:
    """The JSON a map is drawn from (pure: tests read the same data the browser gets).

    Args:
        matrix: (n, d) numbers; −∞ marks a masked score (drawn grey, written −∞). Weights under a mask come as a
            masked array (:func:`selfattn.display.charts.masked_weights`): each cell is written as its weight (0 under
            the mask) and the masked ones are drawn as masked (grey, hatched), with a note under the map saying so.
        name: the map's accessible name.
        role: its colour role (:data:`selfattn.display.colours.SCHEMES`).
        domain: a fixed (low, high) for the colours, e.g. (0, 1) for weights; else the finite extent.
        link: its place in the linked steps (:data:`LINKS`), or None for a map that links to nothing; the
            Transformer block's maps are ``row:<step>`` (row i is token i) and ``att:<head>`` (a head's weights); the
            Encoder–decoder's also ``src:<step>`` (source rows), ``self:<head>`` and ``cross:<head>``.
        group: the maps that light up together.
        focus: the focus token's row, marked in bold.
        engine: on the outputs map, the options the browser's preview works the steps out with
            (``scale``, ``causal``, ``bias``, and ``pe``: the position vectors added to X, exact,
            or None; see ``attention.js``); on the block page's input map, its layer's (``block.js``); on the
            Encoder–decoder's source map, its model's (``s2s.js``, from ``ui.seq2seq.page.preview_engine``).
    """
    mask = np.ma.getmaskarray(matrix) if np.ma.isMaskedArray(matrix) else None
    values = np.asarray(np.ma.getdata(matrix), dtype=float)
    if link is not None and link not in LINKS and not link.startswith(LINK_KINDS):
        raise ValueError(f"link {link!r} is not one of {', '.join(LINKS)}, or {', '.join(k + '<name>' for k in LINK_KINDS)}")
    lo, hi = domain if domain else colours.finite_extent(values)
    return {"name": name, "rows": [str(r) for r in row_labels], "cols": [str(c) for c in col_labels],
            "cells": [[map_text(float(v)) for v in row] for row in values],
            "lo": lo, "hi": hi, "low_text": map_text(lo), "high_text": map_text(hi),
            "stops": list(colours.stops(role)), "masked": colours.MASKED_GREY,
            "fixed": domain is not None, "link": link, "group": group, "focus": focus,
            **({"mask": [[int(m) for m in row] for row in mask]} if mask is not None and mask.any() else {}),
            **({"engine": engine} if engine else {})}


@functools.cache  # two catalog strings, the same for every map of a run: formatted once per language
def scroll_notes(lang: str) -> dict:
    """The notes a map shows when it is wider or taller than its box, with ``{hidden}`` and ``{total}`` left for
    the browser to fill in (it counts the columns and rows out of view as the box scrolls or resizes)."""
    keep = {"hidden": "{hidden}", "total": "{total}"}
    return {"cols": t_plain("common.map_hidden_cols", lang, **keep),
            "rows": t_plain("common.map_hidden_rows", lang, **keep)}


def heatmap(key: str, data: dict, on_pick: Callable[[object], None] | None = None, width: int | str = "content",
            into: MapRow | None = None) -> None:
    """Mount one map drawn from ``data`` (:func:`map_data`) under ``key``, ``width`` wide (pixels, "content" or
    "stretch"), or add it to the row ``into`` (:func:`map_row`), which mounts it with the others. ``on_pick`` runs
    after a click on a row, with the map's state as a visitor sent it (``{"pick": row}``, read with :func:`picked`).
    A map with masked cells says under it what they are (``common.map_masked``)."""
    if "mask" in data:
        data = {**data, "mask_note": t_plain("common.map_masked", current_lang())}
    if into is not None:
        into.add(key, data, on_pick, width)
        return
    data = {**data, "scroll": dict(scroll_notes(current_lang()))}
    _mount(key=key, data=payload(data), width=width,
           on_pick_change=partial(_pick, key, on_pick) if on_pick else _nothing)


@dataclass
class MapRow:
    """Maps side by side, wrapping as the window narrows, mounted as one element (``row``: one component where each
    map was one: each costs the server a component's registration, its two widgets and a message, about 0.2 ms an
    open; docs/benchmarks.md). A click on a row of one of its maps sends ``{"pick": {"map": key, "row": i}}``; the
    row hands ``{"pick": i}`` to that map's ``on_pick``."""

    key: str
    maps: list = field(default_factory=list)  # {"key", "width", "data"} each, in the order drawn
    picks: dict = field(default_factory=dict)  # map key -> its on_pick

    def add(self, key: str, data: dict, on_pick: Callable[[object], None] | None, width: int | str) -> None:
        if not isinstance(width, int) and width not in ("content", "stretch"):
            raise ValueError(f"a map's width is pixels, 'content' or 'stretch', not {width!r}")
        self.maps.append({"key": key, "width": width, "data": data})
        if on_pick:
            self.picks[key] = on_pick

    def mount(self) -> None:
        _mount(key=self.key, data=payload({"maps": self.maps, "scroll": scroll_notes(current_lang())}),
               width="stretch", on_pick_change=self.on_pick)

    def on_pick(self) -> None:
        """A click on a map of the row: the map it names (a key of this row, or nothing is done) and the row, sent on
        to that map's ``on_pick`` as its own state would be (checked there, with :func:`picked`)."""
        sent = _sent(st.session_state.get(self.key))
        which = sent.get("map") if isinstance(sent, dict) else None
        if isinstance(which, str) and which in self.picks:
            self.picks[which]({PICK: sent.get("row")})


@contextlib.contextmanager
def map_row(key: str, *, together: bool = True):
    """Maps drawn inside side by side, wrapping as the window narrows: with ``together``, as one element (yields the
    :class:`MapRow` the maps go ``into``; only maps may be drawn inside), else as Streamlit's horizontal container of
    one element a map (yields None: for a row with other elements among its maps, e.g. a chart)."""
    if not together:
        with st.container(horizontal=True, wrap=True, gap="medium"):
            yield None
        return
    row = MapRow(key)
    yield row
    row.mount()


def _sent(value):
    """The ``pick`` trigger in a component state as a visitor may have written it, or None."""
    try:
        return value[PICK]
    except (KeyError, TypeError, IndexError):
        return None


def _pick(key: str, on_pick: Callable[[object], None]) -> None:
    on_pick(st.session_state.get(key))


def picked(value, rows: int) -> int | None:
    """The row a click picked, from a component state a visitor may have written: a whole number
    naming one of ``rows`` rows, or None."""
    row = _sent(value)
    if isinstance(row, bool):
        return None
    if isinstance(row, int):  # compared as it is: a float of a 400-digit number would overflow
        return row if 0 <= row < rows else None
    if isinstance(row, float) and math.isfinite(row) and row.is_integer() and 0 <= row < rows:
        return int(row)
    return None


def _nothing() -> None:
    """A trigger needs a callback to be kept; the page reads the trigger itself."""
