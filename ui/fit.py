"""Heatmaps that fit their column: cell sizes, thinned labels and legends worked out in pixels.

A script cannot ask how wide a column is, so sizes are worked out for the narrowest window the
pages are laid out for (1280 px, sidebar open): every chart fits its column there, and wider
windows only leave room to spare. Used by every page.
"""

from __future__ import annotations

import math
import unicodedata

import numpy as np
import pandas as pd
import streamlit as st

from selfattn.charts import heatmap, heatmap_grid
from selfattn.export import labelled
from ui.common import chart_words, csv_button, vega

PAGE_PX = 800  # main column of a 1280 px window with the sidebar open (820 px measured)
EXPANDER_PX = 760  # inside an expander, whose border and padding take about 35 px
GAP_PX = 16  # between st.columns (gap="small")
FONT_PX = 10  # Vega's axis label size
LABEL_GAP_PX = 12  # least distance between two neighbouring axis labels
Y_LABEL_PX = 80  # longest row label drawn; longer ones end in "…" (the tooltip has them whole)
X_LABEL_PX = 60  # the same for column labels, which stand upright
CHART_PAD_PX = 24  # Vega's padding (5 + 5), ticks, label padding and some slack
GRID_SPACING_PX = 12  # between two panels of the head grid
ANNOTATE_MIN_CELL = 36  # print values only in cells that hold "0.0964" at 11 px
STROKE_MIN_CELL = 6  # in smaller cells the white outline would wash the colours out
SIDE_MIN_CELL = 20  # the one-head map sits beside the head grid while its cells are this big
STACKED_MAP_PX = 520  # cells of the one-head map on its own row span at most this
MIN_COLUMN_CELL = 8  # columns of a wide matrix are left out rather than drawn narrower than this


def column_px(weights, total: float = PAGE_PX) -> list[float]:
    """Widths in pixels of ``st.columns(weights)`` in a block ``total`` px wide."""
    spare = total - GAP_PX * (len(weights) - 1)
    return [spare * w / sum(weights) for w in weights]


def text_px(text, font: float = FONT_PX) -> float:
    """Rough width of a label: wide (CJK) characters take a full em, others about 0.6 em."""
    return sum(font if unicodedata.east_asian_width(ch) in "WF" else 0.6 * font for ch in str(text))


def row_label_px(labels) -> float:
    """Pixels the row labels take (the longest, up to Y_LABEL_PX)."""
    return min(Y_LABEL_PX, max((text_px(label) for label in labels), default=0.0))


def cell_space(width: float, row_labels) -> float:
    """Pixels left for a heatmap's cells in ``width`` after its row labels and padding."""
    return width - row_label_px(row_labels) - CHART_PAD_PX


def columns_that_fit(row_labels, count: int, width: float) -> int:
    """How many of ``count`` columns a heatmap ``width`` px wide draws at MIN_COLUMN_CELL px or more."""
    return max(1, min(count, int(cell_space(width, row_labels) // MIN_COLUMN_CELL)))


def _cell(space: float, count: int, max_cell: float) -> int:
    """The largest cell (whole pixels, at least 1) such that ``count`` cells span at most ``space`` px.

    Whole pixels: cells at fractional positions leave light anti-aliased seams between them.
    """
    return max(1, math.floor(min(max_cell, space / max(count, 1))))


def label_stride(cell: int, need: float = LABEL_GAP_PX) -> int:
    """Label every k-th cell so that neighbouring labels are at least ``need`` px apart."""
    return max(1, math.ceil(need / cell))


def _legend_below(space: float, title: str) -> dict:
    """Vega-Lite config: a horizontal legend under the chart, no longer than ``space`` px."""
    length = max(40, min(180, space - text_px(title, 11) - 24))
    return {"legend": {"orient": "bottom", "direction": "horizontal", "titleOrient": "left",
                       "gradientLength": length, "titleLimit": 100}}


def fit_heatmap(matrix, row_labels, col_labels, width: float, *, max_cell: float = 46, value_title: str = "",
                annotate: bool = True, **kwargs) -> dict:
    """A :func:`selfattn.charts.heatmap` that fits ``width`` pixels, legend underneath.

    Cells shrink with the number of columns; values are printed in the cells only while they
    fit; axis labels stand upright when they are wider than a cell and are thinned to every
    k-th once they would overlap (the tooltips still name every cell).

    Args:
        matrix: (rows, cols) numbers.
        width: the column's width in pixels (see :func:`column_px`).
        max_cell: the largest cell size in pixels.
        annotate: False never prints values in the cells (True: where they fit).
        **kwargs: passed on to ``heatmap`` (scheme, domain, ...).

    Returns:
        The Vega-Lite spec; ``usermeta.fit_px`` records ``width`` for the tests.
    """
    words = chart_words()
    value_title = value_title or words["value"]
    rows, cols = np.shape(matrix)
    space = cell_space(width, row_labels)
    cell = _cell(space, cols, max_cell)
    spec = heatmap(matrix, row_labels, col_labels, cell=cell, max_width=cell * cols,
                   annotate=None if annotate and cell >= ANNOTATE_MIN_CELL else False, value_title=value_title,
                   words=words, **kwargs)
    spec["width"] = spec["height"] = {"step": cell}  # heatmap() keeps cells of at least 8 px
    x_axis, y_axis = spec["encoding"]["x"]["axis"], spec["encoding"]["y"]["axis"]
    widest = max((text_px(label) for label in col_labels), default=0.0)
    if widest + 6 <= cell:
        x_axis["labelAngle"] = 0
    else:  # upright: nothing sticks out past the right edge, as slanted labels would
        x_axis.update(labelAngle=-90, labelLimit=X_LABEL_PX)
        _thin(x_axis, cols, cell)
    y_axis["labelLimit"] = Y_LABEL_PX
    _thin(y_axis, rows, cell)
    if cell < STROKE_MIN_CELL:
        spec["layer"][0]["mark"]["strokeWidth"] = 0
    spec["config"] = _legend_below(space, value_title)
    spec["usermeta"] = {"fit_px": width}
    return spec


def _thin(axis: dict, count: int, cell: int) -> None:
    stride = label_stride(cell)
    if stride > 1:
        axis["values"] = list(range(0, count, stride))


def grid_layout(panels: int, size: int, titles, width: float, *, max_cell: float = 18,
                max_columns: int = 4) -> tuple[int, int, float]:
    """Panels per row, cell size and spacing of a head grid that fits ``width`` pixels.

    Up to ``max_columns`` panels share a row; fewer when the panels' titles would not fit.

    Returns:
        (columns, cell, spacing) in panels and pixels.
    """
    header = max((text_px(title, 12) for title in titles), default=0.0)
    for columns in range(min(panels, max_columns), 0, -1):
        cell = _cell((width - CHART_PAD_PX - (columns - 1) * GRID_SPACING_PX) / columns, size, max_cell)
        spacing = max(GRID_SPACING_PX, header + 6 - size * cell)  # titles wider than a panel
        if columns * size * cell + (columns - 1) * spacing + CHART_PAD_PX <= width:
            return columns, cell, spacing
    return 1, _cell(width - CHART_PAD_PX, size, max_cell), GRID_SPACING_PX


def fit_grid(stack, row_labels, col_labels, titles, width: float, *, max_cell: float = 18) -> dict:
    """A :func:`selfattn.charts.heatmap_grid` of attention maps that fits ``width`` pixels.

    Args:
        stack: (panels, n, n) attention weights, one map per head.
        titles: (panels,) a title per map.
        width: the column's width in pixels.

    Returns:
        The Vega-Lite spec, legend underneath; ``usermeta.fit_px`` records ``width``.
    """
    panels, size, _ = np.shape(stack)
    columns, cell, spacing = grid_layout(panels, size, titles, width, max_cell=max_cell)
    words = chart_words()
    spec = heatmap_grid(stack, row_labels, col_labels, titles, columns=columns, cell=cell, words=words)
    spec["spacing"] = spacing
    spec["config"] = _legend_below(width - CHART_PAD_PX, words["weight"])
    spec["usermeta"] = {"fit_px": width}
    return spec


def compare_layout(tokens) -> tuple[list[int], float, float]:
    """How the one-head map and the head grid share the page.

    Returns:
        (column weights, map width, grid width) in pixels: ``[2, 3]`` side by side while the
        map keeps cells of at least SIDE_MIN_CELL px there, else ``[1]``: one above the other.
    """
    left, right = column_px([2, 3])
    if cell_space(left, tokens) / max(len(tokens), 1) >= SIDE_MIN_CELL:
        return [2, 3], left, right
    return [1], min(PAGE_PX, STACKED_MAP_PX + row_label_px(tokens) + CHART_PAD_PX), PAGE_PX


def side_by_side(count: int, columns: int, row_labels, total: float = PAGE_PX, min_cell: int = 4):
    """Slots for ``count`` heatmaps of ``columns`` columns each: side by side while their cells keep
    ``min_cell`` px in a ``1/count`` share of ``total``, else one under the other at full width.

    Returns:
        (slots, width): ``count`` places to draw in (columns, or the same container repeated)
        and the width in pixels each heatmap may take.
    """
    share = column_px([1] * count, total)[0]
    if cell_space(share, row_labels) / max(columns, 1) >= min_cell:
        return st.columns(count), share
    return [st.container()] * count, total


def show_map(title: str, matrix, row_labels, col_labels, *, key: str, width: float, caption: str = "",
             table: bool = False, **kwargs) -> pd.DataFrame:
    """One matrix: its name and shape, a heatmap that fits and a CSV download.

    Args:
        width: pixels of the block it is drawn in; with ``table`` the table takes the left half
            of it and the heatmap the right half.
        caption: a line under the title.
        table: show the numbers as a table beside the heatmap.
        **kwargs: passed on to :func:`fit_heatmap` (scheme, domain, ...).

    Returns:
        The labelled DataFrame that was offered for download.
    """
    values = np.asarray(matrix, dtype=float)
    frame = labelled(values, row_labels, col_labels)
    st.markdown(f"**{title}** &nbsp; `{' × '.join(str(s) for s in values.shape)}`")
    if caption:
        st.caption(caption)
    if table:
        left, right = st.columns(2)
        with left:
            st.dataframe(frame, width="content")
            csv_button(frame, key, key=f"dl_{key}")
        with right:
            vega(fit_heatmap(values, row_labels, col_labels, column_px([1, 1], width)[1], **kwargs))
    else:
        vega(fit_heatmap(values, row_labels, col_labels, width, **kwargs))
        csv_button(frame, key, key=f"dl_{key}")
    return frame
