"""The Playground's tables as typed: their names, and every table's cells as text in one frozen :class:`Tables`.

What the page's state (``view.py``), a preset's tables (``seeded.py``) and the parsing (``inputs.py``) all name.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from selfattn.display.grid import Sizes

MATRICES = ("x", "w_q", "w_k", "w_v")
BIASES = ("b_q", "b_k", "b_v")
TABLE_IDS = (*MATRICES, *BIASES)  # the tables typed into, by id (X's editor holds its labels too)
NAMES = {"x": "X", "w_q": "W_q", "w_k": "W_k", "w_v": "W_v", "b_q": "b_q", "b_k": "b_k", "b_v": "b_v"}
TOKEN_COL = "token"  # X's first column in the editors: the token labels
COLUMN_PREFIX = {"x": "x", "w_q": "q", "w_k": "k", "w_v": "v", "b_q": "q", "b_k": "k", "b_v": "v"}  # editors' columns

Rows = tuple[tuple[str, ...], ...]  # a table's cells as text, row by row


@dataclass(frozen=True)
class Tables:
    """Every matrix of the Playground as typed: the token labels and each table's cells as text.

    X's cells are its numbers only (the labels are ``tokens``); a bias is one row.
    """

    tokens: tuple[str, ...]  # (n,)
    x: Rows  # (n, d_in)
    w_q: Rows  # (d_in, d_k)
    w_k: Rows  # (d_in, d_k)
    w_v: Rows  # (d_in, d_v)
    b_q: Rows  # (1, d_k)
    b_k: Rows  # (1, d_k)
    b_v: Rows  # (1, d_v)

    @property
    def sizes(self) -> Sizes:
        return Sizes(n=len(self.x), d_in=len(self.w_q), d_k=len(self.w_q[0]), d_v=len(self.w_v[0]))

    def rows(self, name: str) -> Rows:
        """One table's cells (``name`` one of :data:`MATRICES` or :data:`BIASES`; X's numbers alone)."""
        return getattr(self, name)

    def with_rows(self, name: str, rows) -> Tables:
        return replace(self, **{name: tuple(tuple(row) for row in rows)})


def tables(tokens, cells: dict) -> Tables:
    """:class:`Tables` from lists: the labels and every table's rows (``cells[name]``)."""
    return Tables(tokens=tuple(tokens), **{name: tuple(tuple(row) for row in cells[name]) for name in (*MATRICES, *BIASES)})
