"""What a browser may send, checked before any work: a matrix editor's table and an uploaded CSV's shape.

The server trusts no message. A websocket client can send any widget state, not only what the
browser's widgets allow: rows added to a table of fixed size, a cell of megabytes, a row that does
not exist; and an upload within the size limit can still be a million fields. Each check here is
one pass over what was sent, costs microseconds to milliseconds, and says what is wrong
(``None`` when nothing is), so the page can drop the state before Streamlit or pandas work on it.
"""

from __future__ import annotations

import csv
import io
from typing import Mapping, Sequence

CSV_FIELD_CHARS = 1000  # one field of an uploaded matrix; a long float is 25, a label a few dozen
MAX_REV = 2**53  # a matrix editor's revision counter: a JavaScript number that stays whole
MAX_NAME_CHARS = 40  # an uploaded file's name as kept, stamped on every result record and drawn


def short_name(name) -> str:
    """An uploaded file's name as the app keeps and draws it: printable characters only, and at most
    :data:`MAX_NAME_CHARS` of them (its start, "…", its last 12, so the extension stays).

    A browser sends whatever name a file has (4,000 characters is a valid name on some systems);
    the results page stamps it on every record and draws it in charts and a table.
    """
    name = "".join(ch for ch in str(name) if ch.isprintable())
    if len(name) <= MAX_NAME_CHARS:
        return name
    return name[:MAX_NAME_CHARS - 13] + "…" + name[-12:]


def matrix_editor_problem(state, *, max_chars: Sequence[int], rows: int,
                          current: Sequence[Sequence[str]] | None = None) -> str | None:
    """Why a matrix editor's state cannot come from a visitor editing a fixed table, or None.

    Args:
        state: the component's state as Streamlit keeps it: ``{"table": {"rev": int, "cells":
            [[str, ...], ...]}}`` (None or ``{}`` before any edit), the full table as typed.
        max_chars: the most characters a cell of each column may hold (its length is the width).
        rows: the table's number of rows (none may be added or removed).
        current: the table as the server holds it; a cell equal to its current text may be longer
            than its column takes (an uploaded label), since the browser only sends it back.

    Returns:
        ``"format"`` (not this editor's state: other keys, a revision that is not a whole number,
        cells that are not lists), ``"rows"`` (another number of rows), ``"columns"`` (a row of
        another width), ``"cell"`` (a cell that is not text or longer than its column takes), or None.
    """
    if state is None:
        return None
    if not isinstance(state, Mapping) or not set(state) <= {"table"}:
        return "format"
    if "table" not in state:
        return None
    table = state["table"]
    if not isinstance(table, Mapping) or not set(table) <= {"rev", "cells"} or "cells" not in table:
        return "format"
    rev = table.get("rev", 0)
    if isinstance(rev, bool) or not isinstance(rev, int) or not 0 <= rev < MAX_REV:
        return "format"
    cells = table["cells"]
    if not isinstance(cells, list):
        return "format"
    if len(cells) != rows:
        return "rows"
    width = len(max_chars)
    for i, row in enumerate(cells):
        if not isinstance(row, list):
            return "format"
        if len(row) != width:
            return "columns"
        for j, value in enumerate(row):
            if not isinstance(value, str):
                return "cell"
            if len(value) > max_chars[j] and (current is None or value != current[i][j]):
                return "cell"
    return None


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
