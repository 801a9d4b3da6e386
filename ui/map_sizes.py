"""Heatmaps that fit their column: cell sizes, labels and legends worked out in pixels.

A script cannot ask how wide a column is, so each chart is laid out at its natural size for a
desktop window (PAGE_PX for a chart across the page) and handed to Streamlit with that width
in pixels, every row and column labelled in a font its cells hold. Streamlit draws it no wider
than its column: in a narrower window (a 1024 px projector, a 768 px tablet) the cells narrow
and the column labels, all still drawn, sit closer together. Rows of
charts are flex rows (:func:`row`) whose blocks wrap onto new lines when the window is too
narrow to hold them side by side. Used by every page.
"""

from __future__ import annotations

import functools
import math
import unicodedata
from typing import Callable

import numpy as np
import pandas as pd
import streamlit as st

from selfattn.display.charts import (LABEL_FONT_PX, LABEL_LIMIT_X, MINUS_INFINITY, VALUE_FONT_PX, Axis, GridLabels,
                                     Layout, grid_extent, heatmap, heatmap_grid)
from selfattn.display.export import labelled
from selfattn.display.numbers import map_text
from ui.widgets import chart_words, csv_button, vega

PAGE_PX = 800  # widest chart: the main column of a 1280 px window with the sidebar open (820 px measured)
EXPANDER_PX = 760  # inside an expander, whose border and padding take about 35 px
GAP_PX = 16  # between st.columns and between the blocks of a row (gap="small")
MIN_BLOCK_PX = 180  # a block in a row is at least this wide, for its title and CSV button
FONT_PX = LABEL_FONT_PX  # axis labels (12 px: readable on a projector)
LABEL_GAP_PX = 14  # cells this big keep their labels 12 px and 2 px apart
MIN_LABEL_FONT_PX = 12  # smallest label font (read from the back of a room): smaller cells label every k-th
LABEL_PAD_PX = 0  # room between neighbouring labels beyond their font size (12 px text in 12 px cells does not touch)
Y_LABEL_PX = 96  # longest row label drawn; longer ones end in "…" (the tooltip has them whole)
X_LABEL_PX = 72  # the same for column labels, which stand upright
CHART_PAD_PX = 24  # beside the row labels: ticks and label padding (TICK_PX) and a margin
TICK_PX = 7  # an axis tick (5) and the padding between it and its label (2)
GRID_SPACING_PX = 12  # between two panels of the head grid
ANNOTATE_MIN_CELL = 36  # print values only in cells that hold "0.0964" at 11 px
STROKE_MIN_CELL = 6  # in smaller cells a white outline would wash the colours out
SIDE_MIN_CELL = 20  # the one-head map sits beside the head grid while its cells are this big
STACKED_MAP_PX = 640  # cells of the one-head map on its own row span at most this (64 tokens: 10 px a cell)
MIN_COLUMN_CELL = 8  # columns of a wide matrix are left out rather than drawn narrower than this
LEGEND_MIN_PX = 60  # shortest colour bar with its title beside it; above it when shorter
TABLE_FORMAT = "%.4g"  # the step tables' numbers: 4 significant digits (the maps print 3)


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


def label_room(row_labels) -> int:
    """Whole pixels left of a heatmap's cells: its row labels, ticks and margin."""
    return math.ceil(row_label_px(row_labels) + CHART_PAD_PX)


def cell_space(width: float, row_labels) -> float:
    """Pixels left for a heatmap's cells in ``width`` after its row labels and padding (the whole
    pixels of :func:`label_room`, as drawn: cells plus that room never run past ``width``)."""
    return width - label_room(row_labels)


def columns_that_fit(row_labels, count: int, width: float) -> int:
    """How many of ``count`` columns a heatmap ``width`` px wide draws at MIN_COLUMN_CELL px or more."""
    return max(1, min(count, int(cell_space(width, row_labels) // MIN_COLUMN_CELL)))


def _cell(space: float, count: int, max_cell: float) -> int:
    """The largest cell (whole pixels, at least 1) such that ``count`` cells span at most ``space`` px.

    Whole pixels: cells at fractional positions leave light anti-aliased seams between them.
    """
    return max(1, math.floor(min(max_cell, space / max(count, 1))))


def label_font(cell: float) -> float:
    """The labels' font for cells of ``cell`` px: LABEL_FONT_PX, smaller in small cells, MIN_LABEL_FONT_PX at least."""
    return max(MIN_LABEL_FONT_PX, min(LABEL_FONT_PX, cell - LABEL_PAD_PX))


def label_stride(cell: float) -> int:
    """Label every k-th cell: 1 (every one) while a label of :func:`label_font` fits its cell, else the least k
    that keeps MIN_LABEL_FONT_PX labels LABEL_PAD_PX apart (the tooltips and the CSV name every cell)."""
    return max(1, math.ceil((label_font(cell) + LABEL_PAD_PX) / max(cell, 1e-9)))


def heatmap_px(row_labels, cols: int, width: float, max_cell: float = 46) -> int:
    """Natural width in pixels of a :func:`fit_heatmap` of ``cols`` columns laid out in ``width`` px."""
    space = cell_space(width, row_labels)
    return label_room(row_labels) + _cell(space, cols, max_cell) * cols


def _legend_below(space: float, title: str) -> dict:
    """Vega-Lite legend config: horizontal, under the chart, no wider than its ``space`` px of cells.

    The title stands left of the colour bar, or above it under a chart too narrow for both. The
    bar is as long as the cells are wide (up to 180 px) as drawn, so that it shortens with them
    in a narrow column instead of running past the chart's edge.
    """
    title_px = text_px(title, LABEL_FONT_PX) + 24
    beside = space - title_px >= LEGEND_MIN_PX
    reserve = title_px if beside else 16
    return {"orient": "bottom", "direction": "horizontal", "titleOrient": "left" if beside else "top",
            "gradientLength": {"expr": f"clamp(width - {reserve:.0f}, 30, 180)"}, "titleLimit": 100}


def heatmap_layout(rows: int, cols: int, row_labels, col_labels, cell: int) -> Layout:
    """How a :func:`fit_heatmap` of (rows, cols) cells of ``cell`` px is drawn and labelled.

    Every row and column is labelled (``labelOverlap`` off, so Vega never thins them), in a font
    that fits the cell (:func:`label_font`); only cells too small for an 8 px label label every
    k-th (:func:`label_stride`). Column labels stand upright when they are wider than a cell. The
    row labels' room is fixed at what :func:`heatmap_px` counts (Streamlit draws no padding left
    and right), so the cells come out square at the natural width, and a label wider than that
    room ends in "…". Narrowed in a narrow column (``autosize: fit-x``), the printed values get smaller.
    """
    font = label_font(cell)
    widest = max((text_px(label, font) for label in col_labels), default=0.0)
    if widest + 6 <= cell:
        x = Axis(limit=LABEL_LIMIT_X, angle=0, overlap=False, font=font)
    else:  # upright: nothing sticks out past the right edge, as slanted labels would
        x = Axis(limit=X_LABEL_PX, angle=-90, overlap=False, values=_thinned(cols, cell), font=font)
    room = label_room(row_labels)
    y = Axis(limit=room - TICK_PX, overlap=False, room=room, values=_thinned(rows, cell), font=font)
    return Layout(cell=cell, x=x, y=y, fit_x=True, own_outline=cell < STROKE_MIN_CELL,
                  font_size=f"min({VALUE_FONT_PX}, bandwidth('x') * {VALUE_FONT_PX / ANNOTATE_MIN_CELL:.4f})")


def fit_heatmap(matrix, row_labels, col_labels, width: float, *, max_cell: float = 46, value_title: str = "",
                annotate: bool = True, **kwargs) -> dict:
    """A :func:`selfattn.display.charts.heatmap` that fits ``width`` pixels, legend underneath.

    Cells shrink with the number of columns; values are printed in the cells only while they
    fit; labels as :func:`heatmap_layout` sets them. In a column narrower than the chart's
    natural width the browser narrows the cells.

    Args:
        matrix: (rows, cols) numbers.
        width: the widest the chart may be, in pixels, in a desktop window (see :func:`column_px`).
        max_cell: the largest cell size in pixels.
        annotate: False never prints values in the cells (True: where they fit).
        **kwargs: passed on to ``heatmap`` (role, domain, ...).

    Returns:
        The Vega-Lite spec; ``usermeta.width_px`` is its natural width, which :func:`ui.widgets.vega`
        draws it at (or narrower), and ``usermeta.fit_px`` records ``width`` for the tests.
    """
    words = chart_words()
    value_title = value_title or words["value"]
    rows, cols = np.shape(matrix)
    cell = _cell(cell_space(width, row_labels), cols, max_cell)
    return heatmap(matrix, row_labels, col_labels, value_title=value_title, words=words,
                   annotate=None if annotate and cell >= ANNOTATE_MIN_CELL else False,
                   layout=heatmap_layout(rows, cols, row_labels, col_labels, cell),
                   legend=_legend_below(cell * cols, value_title),
                   usermeta={"fit_px": width, "width_px": heatmap_px(row_labels, cols, width, max_cell)}, **kwargs)


def _thinned(count: int, cell: int) -> tuple[int, ...] | None:
    """The cells to label (:func:`label_stride`), or None for every one."""
    stride = label_stride(cell)
    return tuple(range(0, count, stride)) if stride > 1 else None


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
        overhang = max(0.0, header - size * cell)  # the last title, past its panel
        if columns * size * cell + (columns - 1) * spacing + overhang + CHART_PAD_PX <= width:
            return columns, cell, spacing
    return 1, _cell(width - CHART_PAD_PX, size, max_cell), GRID_SPACING_PX


def grid_labels(row_labels, col_labels, cell: int) -> GridLabels:
    """The token labels of a head grid of ``cell`` px cells: rows at the left, columns underneath, upright."""
    font = label_font(cell)
    left = min(Y_LABEL_PX, max((text_px(label, font) for label in row_labels), default=0.0)) + 8
    below = min(X_LABEL_PX, max((text_px(label, font) for label in col_labels), default=0.0)) + 8
    return GridLabels(left=math.ceil(left), below=math.ceil(below), font=font, every=label_stride(cell))


def fit_grid(stack, row_labels, col_labels, titles, width: float, *, max_cell: float = 18) -> dict:
    """A :func:`selfattn.display.charts.heatmap_grid` of attention maps that fits ``width`` pixels, every
    panel's tokens labelled (:func:`grid_labels`).

    Args:
        stack: (panels, n, n) attention weights, one map per head.
        titles: (panels,) a title per map.
        width: the column's width in pixels.

    Returns:
        The Vega-Lite spec, legend underneath; ``usermeta.width_px`` is its natural width (see
        :func:`fit_heatmap`) and ``usermeta.fit_px`` records ``width``.
    """
    panels, size, _ = np.shape(stack)
    room = grid_labels(row_labels, col_labels, math.floor(max_cell)).left  # the widest the row labels may take
    columns, cell, spacing = grid_layout(panels, size, titles, width - room, max_cell=max_cell)
    labels = grid_labels(row_labels, col_labels, cell)
    _, extent, _ = grid_extent(panels, size, size, columns=columns, cell=cell, spacing=spacing, left=labels.left)
    header = max((text_px(title, 12) for title in titles), default=0.0)
    overhang = max(0.0, header - size * cell)  # the last panel's title, past its right edge
    words = chart_words()
    return heatmap_grid(stack, row_labels, col_labels, titles, columns=columns, cell=cell, spacing=spacing,
                        words=words, legend=_legend_below(extent - labels.left, words["weight"]), labels=labels,
                        usermeta={"fit_px": width, "width_px": math.ceil(extent + overhang)})


def compare_layout(tokens) -> tuple[float, float]:
    """How wide the one-head map and the head grid may be on a desktop window.

    Returns:
        (map width, grid width) in pixels: two fifths and three fifths of the page, so that
        they sit side by side, while the map keeps cells of at least SIDE_MIN_CELL px there;
        else a map of up to STACKED_MAP_PX of cells and a grid across the page, which wrap
        onto rows of their own.
    """
    left, right = column_px([2, 3])
    if cell_space(left, tokens) / max(len(tokens), 1) >= SIDE_MIN_CELL:
        return left, right
    return min(PAGE_PX, STACKED_MAP_PX + row_label_px(tokens) + CHART_PAD_PX), PAGE_PX


def row(widths) -> list:
    """Blocks side by side, ``widths`` pixels wide (at least MIN_BLOCK_PX), in a row that wraps.

    A block that does not fit beside the previous ones starts a new line, and a block wider
    than the page is drawn as wide as the page, so charts neither run out of their block nor
    over each other at any window width.

    Returns:
        One container per width, to draw a block's title, chart and CSV button in.
    """
    line = st.container(horizontal=True, wrap=True, gap="small")
    return [line.container(width=max(MIN_BLOCK_PX, math.ceil(w))) for w in widths]


def side_by_side(count: int, columns: int, row_labels, total: float = PAGE_PX, min_cell: int = 4,
                 max_cell: float = 46):
    """Blocks for ``count`` heatmaps of ``columns`` columns each, in a :func:`row`.

    Each heatmap is laid out in a ``1/count`` share of ``total`` while its cells keep ``min_cell`` px
    there, else across the whole of ``total``; the blocks are as wide as the widest heatmap, so
    they sit side by side when the window holds them and wrap onto new lines when it does not.

    Args:
        row_labels: every row label of the heatmaps (the longest sets the labels' width).
        max_cell: the largest cell size in pixels, as passed to :func:`fit_heatmap`.

    Returns:
        (blocks, width): ``count`` containers to draw in, and the ``width`` for :func:`fit_heatmap`.
    """
    share = column_px([1] * count, total)[0]
    width = share if cell_space(share, row_labels) / max(columns, 1) >= min_cell else total
    # As wide as the heatmap whether it draws every column or only those that fit (columns_that_fit).
    drawn = {columns, columns_that_fit(row_labels, columns, width)}
    block = max(heatmap_px(row_labels, n, width, max_cell) for n in drawn)
    return row([block] * count), width


MAP_CELL_PX = 74  # a step map's narrowest column: 3.5 rem, 1 rem of padding, a 1 px border each side (heatmap.css)
MAP_FONT_PX = 14  # its numbers and labels
TABULAR_EM = 0.56  # a character of a number in tabular figures (digits, point, minus), in em
MIN_BOX_PX = 260  # a box of the block's flow is at least this wide, for its title, caption and CSV button


def map_px(values, row_labels, col_labels, *, cells: list[list[str]] | None = None) -> int:
    """About how many pixels wide a step map (ui/components/heatmap.js) draws ``values`` with these labels: its
    row labels' column and each column as wide as its widest text, at least :data:`MAP_CELL_PX` (a little over,
    never under). ``cells``: the map's cells as the text it shows, when already written (its data)."""
    rows = cells if cells is not None else [[map_text(float(v)) for v in r] for r in np.asarray(values, dtype=float)]
    longest = [max((len(t) for t in column), default=0) for column in zip(*rows)] or [0] * len(col_labels)
    widths = [max(MAP_CELL_PX, 18 + max(text_px(label, MAP_FONT_PX), n * TABULAR_EM * MAP_FONT_PX))
              for label, n in zip(col_labels, longest)]
    return math.ceil(16 + max((text_px(label, MAP_FONT_PX) for label in row_labels), default=0) + sum(widths) + 2)


def box_width(values, row_labels, col_labels, widest: float = PAGE_PX, *,
              cells: list[list[str]] | None = None) -> int | str:
    """The width for a box holding one step map, its title and caption: the map's (:func:`map_px`), at least
    :data:`MIN_BOX_PX`, so that boxes sit side by side while the window holds them and a long caption wraps under
    its own map instead of widening the box; "stretch" for a map wider than ``widest`` (it scrolls inside)."""
    need = map_px(values, row_labels, col_labels, cells=cells)
    return "stretch" if need > widest else max(MIN_BOX_PX, need)


def map_header(title: str, shape, note: str = "") -> None:
    """A map's name in bold and its shape, e.g. **Weights** `3 × 3`, then ``note`` after a dot if any."""
    st.markdown(f"**{title}** &nbsp; `{' × '.join(str(s) for s in shape)}`" + (f" · {note}" if note else ""))


def show_map(title: str, matrix, row_labels, col_labels, *, key: str, width: float, caption: str = "",
             table: bool = False, **kwargs) -> Callable[[], pd.DataFrame]:
    """One matrix: its name and shape, a heatmap that fits and a CSV download.

    Args:
        width: pixels of the block it is drawn in on a desktop window (narrower windows narrow
            the heatmap, see :func:`fit_heatmap`); with ``table`` the table takes the left half
            of it and the heatmap the right half.
        caption: a line under the title.
        table: show the numbers as a table beside the heatmap.
        **kwargs: passed on to :func:`fit_heatmap` (role, domain, ...).

    Returns:
        A function that builds the labelled DataFrame offered for download (built only when a
        download asks for it: building every table on every rerun cost more than drawing them).
    """
    values = np.asarray(matrix, dtype=float)
    frame = functools.partial(labelled, values, list(row_labels), list(col_labels))
    map_header(title, values.shape)
    if caption:
        st.caption(caption)
    if table:
        left, right = st.columns(2)
        with left:
            shown = frame()
            # Four significant digits, never fewer: Streamlit's default keeps at most 4 decimals, so
            # 6.1442e-06 read "0.000006" beside the map's "6.1e-06"; now "0.000006144".
            digits = {str(c): st.column_config.NumberColumn(format=TABLE_FORMAT) for c in shown.columns}
            if np.isneginf(values).any():  # masked scores: written −∞ as in the charts, not "-Infinity"
                st.dataframe(shown.replace(-np.inf, np.nan), width="content", placeholder=MINUS_INFINITY,
                             column_config=digits)
            else:
                st.dataframe(shown, width="content", column_config=digits)
            csv_button(frame, key, key=f"dl_{key}")
        with right:
            vega(fit_heatmap(values, row_labels, col_labels, column_px([1, 1], width)[1], **kwargs))
    else:
        vega(fit_heatmap(values, row_labels, col_labels, width, **kwargs))
        csv_button(frame, key, key=f"dl_{key}")
    return frame
