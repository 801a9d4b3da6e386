"""What one run of the Heads & devices page may send and draw: bytes per map cell, per part, and what fits.

Bytes one cell of a map costs on the websocket, besides its row and column labels (the Arrow records
of :mod:`selfattn.display.charts`, measured: heatmap 61, head grid 110), and what the maps of one run
may take, by part. Hosted, a page run sends at most ~1.8 MB (docs/reliability.md); the browser draws
that in about a second. Locally twice that: bounded, and still drawn quickly.
"""

from __future__ import annotations

CELL_BYTES = {"map": 64, "grid": 112}
DRAW_BYTES = {"one": 300_000, "grid": 1_000_000, "matrix": 90_000, "mistake": 45_000}  # hosted; local x2


def draw_budget(part: str, hosted: bool) -> int:
    """Bytes the maps of ``part`` (a key of DRAW_BYTES, per map) may send in one run."""
    return DRAW_BYTES[part] * (1 if hosted else 2)


def label_bytes(labels) -> int:
    """UTF-8 bytes of all ``labels`` together."""
    return sum(len(str(label).encode("utf-8")) for label in labels)


def fit_block(row_labels, col_labels, budget: int, kind: str = "map") -> tuple[int, int]:
    """The top-left block (rows, columns) of a map with these labels that costs at most ``budget`` bytes.

    Every row is kept while one column fits (the rows are tokens, which the mistakes mix); then
    as many columns as fit, at least one.
    """
    rows, cols = len(row_labels), len(col_labels)
    per_cell = CELL_BYTES[kind] + label_bytes(row_labels) / max(rows, 1) + label_bytes(col_labels) / max(cols, 1)
    cells = max(1, int(budget // per_cell))
    c = min(cols, max(1, cells // max(rows, 1)))
    return min(rows, max(1, cells // c)), c


def heads_shown(num_heads: int, tokens, hosted: bool) -> int:
    """How many of the heads' maps the head grid draws within its budget (at least one)."""
    n = len(tokens)
    per_head = n * n * CELL_BYTES["grid"] + 2 * n * label_bytes(tokens)
    return min(num_heads, max(1, draw_budget("grid", hosted) // max(per_head, 1)))
