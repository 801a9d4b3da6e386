"""The matrix editor: a Streamlit component (Components v2) for the Playground's small matrices.

Its JavaScript and CSS live beside this file (``matrix_editor.js``, ``matrix_editor.css``), read
as text and passed inline: no npm, no build step. Data goes in as JSON (:func:`editor_data`); the
state comes back as JSON, ``{"table": {"rev": int, "cells": [[str, ...], ...]}}``: the full
table of cell texts as typed, sent on Enter, Tab, blur and paste. Nothing here trusts that state:
the page checks it with :func:`selfattn.display.guard.matrix_editor_problem` before any work.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import streamlit as st

HERE = Path(__file__).parent
STATE = "table"  # the component's one state value

def compact_js(source: str) -> str:
    """``source`` without comment lines, trailing `` // `` comments, indentation and blank lines.

    Streamlit sends a component's inline JavaScript and CSS with every element it draws, so an
    edited editor carries them on every rerun (an unchanged one goes as a reference to the
    browser's copy): the comments stay in the file and out of the wire (12.0 -> 8.6 kB).
    """
    lines = (_code(line).strip() for line in source.splitlines())
    return "\n".join(line for line in lines if line)


def _code(line: str) -> str:
    """``line`` up to a ``//`` comment: one at its start or after a space, outside quotes."""
    quote = None
    for k, ch in enumerate(line):
        if quote:
            if ch == quote and line[k - 1] != "\\":
                quote = None
        elif ch in "\"'`":
            quote = ch
        elif line.startswith("//", k) and (k == 0 or line[k - 1] in " \t"):
            return line[:k]
    return line


def payload(data: dict) -> str:
    """A component's data as one JSON string, which the browser parses (``JSON.parse(component.data)``).

    Handed a dict, Streamlit asks of each of its keys whether it is a table to send as Arrow (0.4-0.7 ms a map,
    about a tenth of a page open on pages of a dozen maps and editors, measured in docs/benchmarks.md); a string it
    sends as it is."""
    return json.dumps(data, separators=(",", ":"))


def compact_css(source: str) -> str:
    """``source`` without comments, indentation and blank lines (2.7 -> 1.9 kB)."""
    bare = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    return "\n".join(line.strip() for line in bare.splitlines() if line.strip())


_mount = st.components.v2.component(
    "selfattn.matrix_editor",
    js=compact_js((HERE / "matrix_editor.js").read_text(encoding="utf-8")),
    css=compact_css((HERE / "matrix_editor.css").read_text(encoding="utf-8")),
)


def sent_table(value) -> tuple[int, list[list[str]]] | None:
    """The (revision, cells) of a checked component state, or None when nothing was sent yet."""
    if not value or STATE not in value:
        return None
    table = value[STATE]
    return int(table.get("rev", 0)), table["cells"]


def matrix_editor(key: str, *, name: str, matrix: str, rows: list[str], cols: list[str], cells: list[list[str]],
                  max_chars: list[int], labels: list[bool], rev: int, bad: tuple[int, int] | None,
                  texts: dict[str, str]) -> None:
    """Mount one matrix editor.

    Args:
        key: the instance's key (a new key rebuilds the table from ``cells``).
        name: the matrix's id ("x", "w_q", ...), under which the browser keeps what is typed for the
            step maps' preview (``heatmap.js``).
        matrix: the matrix's name, first word of every cell's accessible name ("X").
        rows, cols: the row and column headers (n,), (d,).
        cells: the cells as text (n, d).
        max_chars: the most characters each column takes (d,).
        labels: which columns hold labels rather than numbers (d,).
        rev: the last revision of the browser's table the server has read (0 before any).
        bad: the (row, col) of the cell that is not a finite number, or None.
        texts: the component's own texts in the current language (``pg.ed_*`` in the catalog).
    """
    _mount(key=key, data=payload({"instance": key, "name": name, "matrix": matrix, "rows": rows, "cols": cols, "cells": cells,
                          "max": max_chars, "labels": labels, "rev": rev, "bad": list(bad) if bad else None,
                          "texts": texts}),
           width="content", on_table_change=_nothing)


def _nothing() -> None:
    """The state's callback: the page reads the state itself on every run (AppTest calls no callback)."""
