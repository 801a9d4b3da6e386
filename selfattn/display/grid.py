"""Turning edited tables and uploaded CSV files into matrices, with errors that name the cell.

Everything a visitor types or uploads passes through here before it reaches the maths, so
this is where sizes are limited and where a bad cell is reported as "X, row 2, column d3".
"""

from __future__ import annotations

import csv
import io
import math
import unicodedata
from dataclasses import dataclass

import numpy as np
import pandas as pd

from selfattn.display import guard
from selfattn.display.export import from_csv_label
from selfattn.errors import InputError
from selfattn.i18n import one_line

MAX_TOKENS = 32  # rows of X
MAX_DIM = 16  # d_in, d_k, d_v
MAX_UPLOAD_BYTES = 1024 * 1024  # 1 MB, as the uploader says; a 32 x 16 matrix of long floats is about 20 KB
MAX_LABEL_CHARS = 24


@dataclass(frozen=True)
class Sizes:
    """The Playground's matrix sizes."""

    n: int = 3  # tokens (rows of X)
    d_in: int = 4  # input dimension (columns of X, rows of every W)
    d_k: int = 3  # query/key dimension
    d_v: int = 3  # value dimension, may differ from d_k


def parse_cell(value, matrix: str, row: str, col: str) -> float:
    """One table cell as a finite float, or InputError naming the matrix, row and column.

    Text is read with Python's ``float`` after NFKC normalisation, so full-width digits typed
    with a Chinese input method (``１．５``) and the typographic minus sign work; a decimal
    comma (``1,5``) is refused rather than guessed.
    """
    where = {"matrix": matrix, "row": row, "col": col}
    if isinstance(value, str):
        text = unicodedata.normalize("NFKC", value).strip().replace("−", "-")
        if not text:
            raise InputError("cell_empty", f"{matrix}, row {row}, column {col} is empty.", **where)
        try:
            number = float(text)
        except ValueError:
            raise InputError("cell_not_number", f"{matrix}, row {row}, column {col}: "
                             f"'{value}' is not a number.", value=value, **where) from None
    else:
        if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
            raise InputError("cell_empty", f"{matrix}, row {row}, column {col} is empty.", **where)
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise InputError("cell_not_number", f"{matrix}, row {row}, column {col}: "
                             f"'{value}' is not a number.", value=str(value), **where) from None
    if math.isinf(number) and isinstance(value, str) and "inf" not in text.lower():  # 1e400: a number, too large
        raise InputError("cell_too_large", f"{matrix}, row {row}, column {col}: {text} is too large to compute "
                         "with; numbers must stay within ±1.8e308.", value=text, **where)
    if not math.isfinite(number):
        raise InputError("cell_not_finite", f"{matrix}, row {row}, column {col} is {number}; "
                         "only finite numbers are allowed.", value=str(number), **where)
    return number


def frame_to_matrix(frame: pd.DataFrame, matrix: str, row_labels=None) -> np.ndarray:
    """The numeric cells of an edited table as a float64 (rows, cols) array.

    Args:
        frame: the table, one column per matrix column (a text "token" column is left out
            by the caller).
        matrix: the matrix's name, used in error messages ("X", "W_q", ...).
        row_labels: names of the rows for messages; defaults to 1, 2, 3, ...
    """
    labels = list(row_labels) if row_labels is not None else [str(i + 1) for i in range(len(frame))]
    cells = frame.to_numpy(dtype=object)  # one pass over plain objects: iterrows costs 13x more
    columns = [str(col) for col in frame.columns]
    out = np.empty(cells.shape, dtype=np.float64)
    for i, row in enumerate(cells):
        for j, value in enumerate(row):
            out[i, j] = parse_cell(value, matrix, labels[i], columns[j])
    return out


def parse_labels(values, n: int) -> list[str]:
    """Token labels from an edited column: blanks become t1, t2, ...; long ones are cut."""
    labels = []
    for i in range(n):
        raw = values[i] if i < len(values) else None
        text = "" if raw is None or (isinstance(raw, float) and math.isnan(raw)) else str(raw)
        # control characters (a pasted tab, a line or paragraph separator) become spaces: a label is one line
        text = one_line(text).strip()
        labels.append(text[:MAX_LABEL_CHARS] or f"t{i + 1}")
    seen: dict[str, int] = {}
    unique = []
    for label in labels:  # heatmap axes need distinct names
        seen[label] = seen.get(label, 0) + 1
        unique.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return unique


def resize(matrix: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """``matrix`` cut or zero-padded to (rows, cols), keeping every number that still fits."""
    out = np.zeros((rows, cols))
    r, c = min(rows, matrix.shape[0]), min(cols, matrix.shape[1])
    out[:r, :c] = matrix[:r, :c]
    return out


def _scan(text: str, matrix: str, *, cols: int, rows: int | None, max_rows: int) -> None:
    """Refuse a file that holds more rows or fields than the matrix can take, before pandas reads it.

    pandas parses the whole file before its shape can be checked: a 1 MB file of one row and
    524,288 columns cost 17 s of CPU and 1.2 GB that stayed. The scan stops at the first row
    over the limits (a header row and a label column are allowed for).
    """
    try:
        over = guard.csv_problem(text, max_rows=(rows or max_rows) + 1, max_fields=cols + 1)
    except csv.Error as exc:
        raise InputError("upload_not_csv", f"The file could not be read as CSV ({exc}).", detail=str(exc)) from None
    if over is not None:
        want_rows = str(rows) if rows is not None else f"1–{max_rows}"
        got_rows, got_cols = over
        raise InputError("upload_shape", f"{matrix} needs {want_rows} rows and {cols} columns; the file has at "
                         f"least {got_rows} rows and {got_cols} columns.", matrix=matrix, want_rows=want_rows,
                         want_cols=cols, rows=got_rows, cols=got_cols)


def read_csv_matrix(data: bytes, matrix: str, *, cols: int, rows: int | None = None,
                    max_rows: int = MAX_TOKENS) -> tuple[np.ndarray, list[str] | None]:
    """Parse an uploaded CSV into a matrix and, if its first column is text, row labels.

    A first row without any number is a header; one column more than ``cols`` means the
    first column holds row labels. Files written by our own CSV export therefore read back
    unchanged.

    Args:
        data: the file's bytes.
        matrix: the matrix's name for messages.
        cols: the number of numeric columns required.
        rows: the number of rows required, or None for any count from 1 to ``max_rows``.

    Returns:
        (values (rows, cols), labels or None).

    Raises:
        InputError: too big, not UTF-8 text, not CSV, wrong shape or a bad cell.
    """
    if len(data) > MAX_UPLOAD_BYTES:
        size_kb = -(-len(data) // 1024)  # rounded up: a file one byte over the limit is not "1024 KB" of 1024
        raise InputError("upload_too_big", f"The file is {size_kb} KB; the limit is "
                         f"{MAX_UPLOAD_BYTES // 1024} KB.", size_kb=size_kb,
                         limit_kb=MAX_UPLOAD_BYTES // 1024)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("upload_not_text", "The file is not UTF-8 text; save it as CSV.") from None
    _scan(text, matrix, cols=cols, rows=rows, max_rows=max_rows)
    try:
        table = pd.read_csv(io.StringIO(text), header=None, dtype=str, keep_default_na=False,
                            skip_blank_lines=True)
    except pd.errors.EmptyDataError:
        table = pd.DataFrame()
    except pd.errors.ParserError as exc:
        raise InputError("upload_not_csv", f"The file could not be read as CSV ({exc}).",
                         detail=str(exc).splitlines()[0] if str(exc) else "") from None
    if table.empty:
        raise InputError("upload_empty", "The file is empty.")

    def numeric(cell: str) -> bool:
        try:
            float(cell.replace("−", "-"))
            return True
        except ValueError:
            return False

    first = list(table.iloc[0])
    header_cells = first[1:] if len(first) > 1 else first
    has_header = not any(numeric(c) for c in header_cells)  # a header has no numbers in it
    body = table.iloc[1:] if has_header else table
    has_labels = body.shape[1] == cols + 1  # one extra column: the row labels
    labels = [from_csv_label(str(v)) for v in body.iloc[:, 0]] if has_labels else None
    values = body.iloc[:, 1:] if has_labels else body
    got_rows, got_cols = values.shape
    if got_cols != cols or (rows is not None and got_rows != rows) or not 1 <= got_rows <= max_rows:
        want_rows = str(rows) if rows is not None else f"1–{max_rows}"
        raise InputError("upload_shape", f"{matrix} needs {want_rows} rows and {cols} columns; "
                         f"the file has {got_rows} rows and {got_cols} columns.", matrix=matrix,
                         want_rows=want_rows, want_cols=cols, rows=got_rows, cols=got_cols)
    row_names = labels or [str(i + 1) for i in range(got_rows)]
    out = np.empty((got_rows, got_cols))
    for i in range(got_rows):
        for j in range(got_cols):
            out[i, j] = parse_cell(values.iat[i, j], matrix, row_names[i], str(j + 1))
    return out, labels
