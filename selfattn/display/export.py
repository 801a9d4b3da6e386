"""Matrices as labelled tables, CSV text and one zip with everything."""

from __future__ import annotations

import io
import zipfile
from typing import Callable

import numpy as np
import pandas as pd


def column_names(prefix: str, count: int) -> list[str]:
    """Readable column names: ``q1, q2, ...`` for a prefix of ``q``."""
    return [f"{prefix}{j + 1}" for j in range(count)]


def labelled(matrix: np.ndarray, row_labels, col_labels) -> pd.DataFrame:
    """A (rows, cols) matrix as a DataFrame with the given row index and column names."""
    return pd.DataFrame(np.asarray(matrix, dtype=float), index=list(row_labels), columns=list(col_labels))


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what makes a spreadsheet read a cell as a formula


def csv_safe(text) -> object:
    """A text cell a spreadsheet will not run: one that starts like a formula gets a leading ``'``.

    OWASP's advice for CSV injection: a token label typed as ``=HYPERLINK(...)``, ``+cmd`` or
    ``-1+1`` would otherwise be evaluated when a teacher opens the file. Numbers are not text
    and are written as they are; :func:`from_csv_label` takes the ``'`` off again on import.
    """
    if isinstance(text, str) and text.startswith(FORMULA_STARTS):
        return "'" + text
    return text


def from_csv_label(text: str) -> str:
    """A label read back from our own CSV: the ``'`` that :func:`csv_safe` added is removed."""
    return text[1:] if text.startswith("'") and text[1:].startswith(FORMULA_STARTS) else text


def to_csv(frame: pd.DataFrame) -> str:
    """CSV text with the row labels as the first column and full float precision.

    Labels (row and column names, and any text column) are made safe for spreadsheets with
    :func:`csv_safe`; the numbers read back exactly.
    """
    safe = frame.rename(index=csv_safe, columns=csv_safe)  # every level of a MultiIndex too
    text_columns = [c for c in safe.columns if safe[c].dtype == object]
    if text_columns:
        safe[text_columns] = safe[text_columns].map(csv_safe)
    return safe.to_csv(float_format="%.17g")


BOM = b"\xef\xbb\xbf"  # UTF-8's byte-order mark: what tells Excel a CSV is UTF-8, so Chinese labels stay intact


def csv_bytes(text: str) -> bytes:
    """CSV text as the bytes of a downloaded file: UTF-8, after the byte-order mark.

    Excel reads a CSV without the mark in the computer's legacy code page (GBK on a Chinese
    Windows), which turns 早上好 into mojibake. Every reader of ours decodes ``utf-8-sig``, which
    takes the mark off again, so a downloaded file uploaded back reads exactly.
    """
    return BOM + text.encode("utf-8")


ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # every member's date: the same view, the same ZIP bytes


def zip_tables(tables: dict[str, pd.DataFrame | Callable[[], pd.DataFrame]],
               notes: dict[str, str] | None = None) -> bytes:
    """One zip file holding ``<name>.csv`` for each table (or for what each function returns:
    a page offers tables it builds only when the zip is asked for), and a UTF-8 text file
    ``<name>`` for each of ``notes`` (what made the numbers, say).

    Every member is dated 1980-01-01 (the format's first day), so the same view gives the same bytes whenever
    it is downloaded."""
    buffer = io.BytesIO()

    def member(name: str) -> zipfile.ZipInfo:
        info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
        info.compress_type = zipfile.ZIP_DEFLATED
        return info

    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, frame in tables.items():
            archive.writestr(member(f"{name}.csv"), csv_bytes(to_csv(frame() if callable(frame) else frame)))
        for name, text in (notes or {}).items():
            archive.writestr(member(name), text.encode("utf-8"))
    return buffer.getvalue()
