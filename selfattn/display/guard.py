"""What a browser may send, checked before any work: an editor's edits and an uploaded CSV's shape.

The server trusts no message. A websocket client can send any widget state, not only what the
browser's widgets allow: rows added to a table of fixed size, a cell of megabytes, a row that does
not exist; and an upload within the size limit can still be a million fields. Each check here is
one pass over what was sent, costs microseconds to milliseconds, and says what is wrong
(``None`` when nothing is), so the page can drop the state before Streamlit or pandas work on it.
"""

from __future__ import annotations

import csv
import io
from typing import Mapping

EDITOR_KEYS = frozenset({"edited_rows", "added_rows", "deleted_rows"})
CSV_FIELD_CHARS = 1000  # one field of an uploaded matrix; a long float is 25, a label a few dozen


def editor_problem(state, *, rows: int, max_chars: Mapping[str, int]) -> str | None:
    """Why a data editor's state cannot come from a visitor editing a fixed table, or None.

    Args:
        state: the editor's state as Streamlit keeps it: ``{"edited_rows": {row: {column: value}},
            "added_rows": [...], "deleted_rows": [...]}`` (None before any edit).
        rows: the table's number of rows (no row may be added or deleted).
        max_chars: each editable column's name and the most characters a cell of it may hold.

    Returns:
        ``"format"`` (not an editor's state), ``"rows"`` (rows added or deleted, or a row that does
        not exist), ``"columns"`` (a column the table does not have), ``"cell"`` (a value that is
        not text or a number, or longer than its column takes), or None.
    """
    if state is None:
        return None
    if not isinstance(state, Mapping) or not set(state) <= EDITOR_KEYS:
        return "format"
    if state.get("added_rows") or state.get("deleted_rows"):
        return "rows"
    edited = state.get("edited_rows") or {}
    if not isinstance(edited, Mapping) or len(edited) > rows:
        return "rows" if isinstance(edited, Mapping) else "format"
    for row, cells in edited.items():
        if not _row_index(row, rows):
            return "rows"
        if not isinstance(cells, Mapping):
            return "format"
        for column, value in cells.items():
            if column not in max_chars:
                return "columns"
            if not _cell_fits(value, max_chars[column]):
                return "cell"
    return None


def _row_index(row, rows: int) -> bool:
    text = str(row)
    return text.isascii() and text.isdigit() and len(text) <= 6 and int(text) < rows


def _cell_fits(value, max_chars: int) -> bool:
    if value is None or isinstance(value, bool):
        return value is None
    if isinstance(value, (int, float)):
        return len(repr(value)) <= max_chars
    return isinstance(value, str) and len(value) <= max_chars


def csv_problem(text: str, *, max_rows: int, max_fields: int) -> tuple[int, int] | None:
    """The first sign that ``text`` holds more than ``max_rows`` rows or ``max_fields`` fields in a row.

    Reads with the ``csv`` module, one row at a time, and stops at the first row over a limit, so a
    file of one row and half a million columns costs what its first ``max_fields`` fields cost,
    not a table of half a million columns. Blank lines are not rows (as pandas reads them).

    Returns:
        None when the file fits; else (rows read, fields in the widest row read) at the point it
        stopped, for the message.

    Raises:
        csv.Error: the text is not CSV (a stray quote inside a field, a NUL character).
    """
    reader = csv.reader(io.StringIO(text))
    count, widest = 0, 0
    for row in reader:
        if not row:
            continue
        count += 1
        widest = max(widest, len(row))
        if count > max_rows or widest > max_fields or any(len(field) > CSV_FIELD_CHARS for field in row):
            return count, widest
    return None
