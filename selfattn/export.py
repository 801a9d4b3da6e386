"""Matrices as labelled tables, CSV text and one zip with everything."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pandas as pd


def column_names(prefix: str, count: int) -> list[str]:
    """Readable column names: ``q1, q2, ...`` for a prefix of ``q``."""
    return [f"{prefix}{j + 1}" for j in range(count)]


def labelled(matrix: np.ndarray, row_labels, col_labels) -> pd.DataFrame:
    """A (rows, cols) matrix as a DataFrame with the given row index and column names."""
    return pd.DataFrame(np.asarray(matrix, dtype=float), index=list(row_labels), columns=list(col_labels))


def to_csv(frame: pd.DataFrame) -> str:
    """CSV text with the row labels as the first column and full float precision."""
    return frame.to_csv(float_format="%.17g")


def zip_tables(tables: dict[str, pd.DataFrame]) -> bytes:
    """One zip file holding ``<name>.csv`` for each table."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, frame in tables.items():
            archive.writestr(f"{name}.csv", to_csv(frame))
    return buffer.getvalue()
