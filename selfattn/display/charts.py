"""Heatmap chart builders. They return Vega-Lite specs and never call Streamlit.

The specs are the JSON that Altair itself writes (Vega-Lite v6), built as plain dicts: an
Altair object costs about 60 ms per heatmap to build and schema-validate, and the Playground
draws a dozen of them on every edit. ``to_altair`` turns a spec into an Altair chart for
notebooks; the tests validate every spec against Altair's own schema with ``check_vega_lite``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import altair as alt
import numpy as np

from selfattn.display import colours
from selfattn.display.units import memory_text
from selfattn.display.colours import MASKED_GREY, PATTERN_COLOURS
from selfattn.display.numbers import MINUS_INFINITY, chart_text

ANNOTATE_MAX_CELLS = 144  # print values in the cells up to 12 x 12
GRID_TITLE_PX = 18  # above each panel of a head grid, for its title
VEGA_LITE_SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json"
# Words in legends and tooltips; pages pass their translations through ``words=``.
WORDS = {"row": "row", "column": "column", "value": "value", "head": "head", "query": "query", "key": "key",
         "weight": "weight"}
VALUE_FONT_PX = 11  # values printed in the cells
LABEL_FONT_PX = 12  # axis and legend labels and titles: readable on a projector from the back of a room
LEGEND_FONTS = {"labelFontSize": LABEL_FONT_PX, "titleFontSize": LABEL_FONT_PX}
MASKED = "!isValid(datum.v)"  # a masked (−∞) cell: sent as null, drawn grey
EXACT = f"isValid(datum.v) ? toString(datum.v) : '{MINUS_INFINITY}'"  # a cell's value in full, for its tooltip
LABEL_LIMIT_X = 90  # longest column label of a notebook heatmap, in pixels
LABEL_LIMIT_Y = 120  # the same for row labels
READOUT_FONT_PX = 13  # labels of the pattern grid and the head view, read from the back of a room
HEAD_VIEW_ROW_PX = 28  # one token's row in the head view


@dataclass(frozen=True)
class Axis:
    """How one axis of a heatmap labels its cells."""

    limit: int  # longest label in pixels; a longer one ends in "…" (the tooltip has it whole)
    angle: int | None = None  # of the labels, in degrees (None: Vega-Lite's own)
    values: tuple[int, ...] | None = None  # label only these cells, by position (None: every one)
    overlap: str | bool | None = None  # Vega-Lite's labelOverlap: False keeps every label, "greedy" drops touching ones
    room: int | None = None  # pixels the labels take, fixed (else as wide as the widest)
    font: float = LABEL_FONT_PX  # label size in pixels (smaller only where the cells are)


@dataclass(frozen=True)
class Layout:
    """The pixels of a heatmap and how it is labelled; :func:`heatmap` draws exactly this."""

    cell: int  # width and height of a cell
    x: Axis  # column labels, above the cells
    y: Axis  # row labels, left of the cells
    fit_x: bool = False  # narrowed to a column narrower than its natural width (autosize fit-x)
    own_outline: bool = False  # cells outlined in their own colour, not white (small cells stay unwashed)
    font_size: float | str = VALUE_FONT_PX  # of the printed values: pixels, or a Vega expression


def default_layout(cols: int, col_labels, *, cell: int = 46, max_width: int = 640) -> Layout:
    """The layout of a notebook heatmap: cells of ``cell`` px, shrunk (to 8 px at least) so that
    ``cols`` columns fit ``max_width``; column labels flat while short and few, else slanted."""
    flat = cols <= 8 and max(map(len, map(str, col_labels))) <= 4
    return Layout(cell=max(8, min(cell, max_width // max(cols, 1))),
                  x=Axis(limit=LABEL_LIMIT_X, angle=0 if flat else -40), y=Axis(limit=LABEL_LIMIT_Y))


def heatmap(matrix, row_labels, col_labels, *, title: str = "", annotate: bool | None = None,
            role: str = "values", cell: int = 46, max_width: int = 640, value_title: str = "",
            row_title: str = "", col_title: str = "", domain: tuple[float, float] | None = None,
            words: dict | None = None, layout: Layout | None = None, legend: dict | None = None,
            usermeta: dict | None = None, write: Callable[[float], str] | None = None) -> dict:
    """A Vega-Lite heatmap of a (rows, cols) matrix with exact values in the tooltip.

    Args:
        matrix: (rows, cols) numbers; ``-inf`` (a masked score) is drawn as a grey cell.
        row_labels, col_labels: axis labels in order; repeats are fine (cells are placed
            by position and labelled through ``labelExpr``).
        annotate: print values in the cells; by default only for matrices up to 12 x 12.
        role: what the matrix holds, which sets its colours (a key of
            :data:`selfattn.display.colours.SCHEMES`: "weights", "values", "signed", "outputs").
        cell, max_width: the cell size in pixels, shrunk so that wide matrices fit ``max_width``
            (see :func:`default_layout`); not used with ``layout``.
        domain: fixed (low, high) of the colour scale, e.g. (0, 1) for attention weights.
        words: translations of :data:`WORDS` for the legend and tooltips.
        layout: pixels and labels, drawn as given (default: :func:`default_layout`).
        legend: Vega-Lite legend config (default: Vega-Lite's, a colour bar on the right).
        usermeta: kept in the spec as ``usermeta``, for whoever draws it.
        write: how a value is written in its cell (default: :func:`selfattn.display.numbers.chart_text`,
            3 significant digits); the Playground passes :func:`selfattn.display.numbers.map_text`,
            as its step maps write.

    Returns:
        A Vega-Lite spec (dict) for ``st.vega_lite_chart`` or :func:`to_altair`.
    """
    words = {**WORDS, **(words or {})}
    value_title = value_title or words["value"]
    values = np.asarray(matrix, dtype=float)
    rows, cols = values.shape
    rows_text, cols_text = [str(r) for r in row_labels], [str(c) for c in col_labels]
    if layout is None:
        layout = default_layout(cols, cols_text, cell=cell, max_width=max_width)
    scheme, diverging = colours.scheme(role), colours.is_diverging(role)
    finite = values[np.isfinite(values)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    low, high = domain if domain else (lo, hi)
    annotate = annotate if annotate is not None else rows * cols <= ANNOTATE_MAX_CELLS and cols <= 12
    data = []  # one number a cell, row after row: its place, labels and exact text are worked out in the browser
    for i in range(rows):
        for j in range(cols):
            v = float(values[i, j])
            ok = math.isfinite(v)
            cell_data = {"v": v if ok else None}
            if annotate:  # the printed value and its colour, only where values are printed
                cell_data.update(shown=(write or chart_text)(v), dark=ok and _is_dark(v, low, high, diverging))
            data.append(cell_data)
    scale = {"scheme": scheme}
    if domain:
        scale["domain"] = list(domain)
    encoding = {
        "x": {"field": "c", "type": "ordinal", "title": col_title or None, "sort": None,
              "axis": _axis(cols_text, layout.x, orient="top")},
        "y": {"field": "r", "type": "ordinal", "title": row_title or None, "sort": None,
              "axis": _axis(rows_text, layout.y)},
    }
    # Outlined in their own colour, small cells narrowed to fractional pixels leave no light seams.
    outline = ({"expr": f"{MASKED} ? '{MASKED_GREY}' : scale('color', datum.v)"}
               if layout.own_outline else colours.CELL_EDGE)
    rect = {
        # invalid: None keeps the cells without a value (a masked −∞) that Vega-Lite would leave
        # out (a white gap), and the condition paints them grey.
        "mark": {"type": "rect", "stroke": outline, "strokeWidth": 0.5, "invalid": None},
        "encoding": {
            "color": {"condition": {"test": MASKED, "value": MASKED_GREY},
                      "field": "v", "type": "quantitative", "title": value_title, "scale": scale},
            "tooltip": [{"field": "row", "type": "nominal", "title": words["row"]},
                        {"field": "col", "type": "nominal", "title": words["column"]},
                        {"field": "exact", "type": "nominal", "title": value_title}],
        },
    }
    layers = [rect]
    if annotate:
        font_size = {"expr": layout.font_size} if isinstance(layout.font_size, str) else layout.font_size
        layers.append({
            "mark": {"type": "text", "fontSize": font_size},
            "encoding": {"text": {"field": "shown", "type": "nominal"},
                         "color": {"condition": {"test": "datum.dark", "value": colours.INK_ON_DARK},
                                   "value": colours.INK}},
        })
    spec = {
        "data": {"values": data},  # no $schema: Streamlit draws Vega-Lite (to_altair adds it), 50 bytes a chart
        "transform": _cell_words(rows_text, cols_text, cols),
        "width": {"step": layout.cell},  # one step per column: the chart grows with the matrix
        "height": {"step": layout.cell},
        "encoding": encoding,
        "layer": layers,
    }
    if title:
        spec["title"] = title
    if layout.fit_x:
        spec["autosize"] = {"type": "fit-x", "contains": "padding"}
    spec["config"] = {"legend": {**LEGEND_FONTS, **(legend or {})}}
    if usermeta is not None:
        spec["usermeta"] = usermeta
    return spec


def _cell_words(rows_text: list[str], cols_text: list[str], cols: int) -> list[dict]:
    """Vega-Lite transforms that give each cell record {v}, sent row after row, its row ``r``, column
    ``c`` and the texts its tooltip shows.

    Worked out in the browser, so that a cell travels as one number rather than with its place,
    its two labels and its value as text (a fifth of the bytes of a 32 × 32 map). ``toString``
    writes a number as JavaScript does, the shortest text that reads back as the same float64 (as
    Python's ``repr``, but "2" for 2.0); a masked cell (``v`` null) reads −∞.
    """
    return [{"window": [{"op": "row_number", "as": "k"}]},  # 1, 2, ... in the order sent
            {"calculate": f"floor((datum.k - 1) / {cols})", "as": "r"},
            {"calculate": f"(datum.k - 1) % {cols}", "as": "c"},
            {"calculate": f"{_js_list(rows_text)}[datum.r]", "as": "row"},
            {"calculate": f"{_js_list(cols_text)}[datum.c]", "as": "col"},
            {"calculate": EXACT, "as": "exact"}]


def _axis(labels: list[str], axis: Axis, **fixed) -> dict:
    """The Vega-Lite axis of a heatmap whose cells are numbered and labelled ``labels``."""
    spec = {"labelExpr": f"{_js_list(labels)}[datum.value]", "labelFontSize": axis.font,
            "titleFontSize": LABEL_FONT_PX, **fixed}
    if axis.angle is not None:
        spec["labelAngle"] = axis.angle
    spec["labelLimit"] = axis.limit
    if axis.overlap is not None:
        spec["labelOverlap"] = axis.overlap
    if axis.room is not None:
        spec.update(minExtent=axis.room, maxExtent=axis.room)
    if axis.values is not None:
        spec["values"] = list(axis.values)
    return spec


def _is_dark(v: float, low: float, high: float, diverging: bool) -> bool:
    """Whether the cell colour of ``v`` is dark enough to need white text.

    Sequential schemes darken towards ``high``; diverging ones darken towards both ends.
    """
    if high <= low:
        return False
    if diverging:
        mid = (low + high) / 2
        return abs(v - mid) > 0.6 * (high - low) / 2
    return (v - low) / (high - low) > 0.55


def grid_extent(panels: int, rows: int, cols: int, *, columns: int, cell: int, spacing: float,
                left: float = 0, below: float = 0) -> tuple[int, float, float]:
    """Panels per row, width and height in pixels of a :func:`heatmap_grid` of ``panels`` (rows, cols) maps,
    with ``left`` px for the row labels and ``below`` px for the column labels."""
    per_row = max(1, min(columns, panels))
    pitch_x, pitch_y = _grid_pitch(rows, cols, cell, spacing)
    return per_row, left + per_row * pitch_x - spacing, math.ceil(panels / per_row) * pitch_y - spacing + below


def _grid_pitch(rows: int, cols: int, cell: int, spacing: float) -> tuple[float, float]:
    """Pixels from one panel's left (top) edge to the next one's, the title above it included."""
    return cols * cell + spacing, GRID_TITLE_PX + rows * cell + spacing


@dataclass(frozen=True)
class GridLabels:
    """The token labels of a head grid: rows left of each line of panels, columns under the lowest panel of each
    column of panels (the panels of a line share their queries, those of a column their keys)."""

    left: float  # pixels left of the panels for the row labels
    below: float  # pixels under the lowest panels for the column labels, which stand upright
    font: float = LABEL_FONT_PX  # label size in pixels
    every: int = 1  # label every k-th token (1: all of them; the tooltips and the CSV name every one)


def _grid_label_layers(row_labels, col_labels, m: int, per_row: int, rows: int, cols: int, cell: int,
                       pitch_x: float, pitch_y: float, labels: GridLabels, x: dict, y: dict) -> list[dict]:
    """Text layers that label a head grid's rows and columns (see :class:`GridLabels`)."""
    texts = []
    for g in range(math.ceil(m / per_row)):  # each line of panels: its queries, left of its first panel
        top = g * pitch_y + GRID_TITLE_PX
        texts += [{"t": str(row_labels[i]), "side": "row", "x": labels.left - 4, "y": top + (i + 0.5) * cell}
                  for i in range(0, rows, labels.every)]
    for j0 in range(per_row):  # each column of panels: its keys, under its lowest panel
        lowest = max(p for p in range(m) if p % per_row == j0)
        left, bottom = labels.left + j0 * pitch_x, (lowest // per_row) * pitch_y + GRID_TITLE_PX + rows * cell
        texts += [{"t": str(col_labels[j]), "side": "col", "x": left + (j + 0.5) * cell, "y": bottom + 4}
                  for j in range(0, cols, labels.every)]
    text = {"field": "t", "type": "nominal"}
    return [{"data": {"values": [t for t in texts if t["side"] == "row"]},
             "mark": {"type": "text", "align": "right", "baseline": "middle", "fontSize": labels.font,
                      "limit": max(labels.left - 6, 1)},
             "encoding": {"x": x, "y": y, "text": text}},
            {"data": {"values": [t for t in texts if t["side"] == "col"]},
             "mark": {"type": "text", "align": "right", "baseline": "middle", "angle": 270, "fontSize": labels.font,
                      "limit": max(labels.below - 6, 1)},
             "encoding": {"x": x, "y": y, "text": text}}]


def heatmap_grid(matrices, row_labels, col_labels, titles, *, columns: int = 4, cell: int = 14,
                 spacing: float = 12, domain: tuple[float, float] | None = (0.0, 1.0), role: str = "weights",
                 value_title: str = "", words: dict | None = None, legend: dict | None = None,
                 usermeta: dict | None = None, labels: GridLabels | None = None) -> dict:
    """Small multiples: one small heatmap per matrix in a wrapped grid (one chart, one legend).

    The panels are laid out here, in pixels, and drawn as one plain view (rects between
    x/x2 and y/y2, titles as a text layer) rather than as a Vega-Lite facet: a single view
    can be narrowed to fit a column (``autosize: fit-x``); a facet is always drawn at its
    own width.

    Args:
        matrices: (m, rows, cols) numbers, e.g. the attention maps of every head of a layer.
        row_labels, col_labels: shared axis labels.
        titles: (m,) a title per panel, e.g. "head 1".
        columns: panels per row.
        cell: cell size in pixels.
        spacing: pixels between neighbouring panels.
        role: what the matrices hold, which sets their colours (see :func:`heatmap`).
        words: translations of :data:`WORDS` for the legend and tooltips.
        legend: Vega-Lite legend config (default: Vega-Lite's).
        usermeta: more entries for the spec's ``usermeta``.
        labels: where and how the panels' token labels are drawn (None: no labels, the tooltips name the tokens).

    Returns:
        A Vega-Lite spec whose ``width`` and ``height`` are the panels' extent in pixels (see
        :func:`grid_extent`); ``usermeta.grid`` holds ``columns``, ``cell`` and ``spacing``.
    """
    words = {**WORDS, **(words or {})}
    value_title = value_title or words["weight"]
    stack = np.asarray(matrices, dtype=float)
    m, rows, cols = stack.shape
    room = (labels.left, labels.below) if labels else (0, 0)
    per_row, width, height = grid_extent(m, rows, cols, columns=columns, cell=cell, spacing=spacing, left=room[0],
                                         below=room[1])
    pitch_x, pitch_y = _grid_pitch(rows, cols, cell, spacing)
    data = []
    for p in range(m):
        left, top = room[0] + (p % per_row) * pitch_x, (p // per_row) * pitch_y + GRID_TITLE_PX
        for i in range(rows):
            for j in range(cols):
                v = float(stack[p, i, j])
                data.append({"p": p, "panel": str(titles[p]), "r": i, "c": j, "row": str(row_labels[i]),
                             "col": str(col_labels[j]), "v": v if math.isfinite(v) else None,
                             "exact": repr(v), "x": left + j * cell, "x2": left + (j + 1) * cell,
                             "y": top + i * cell, "y2": top + (i + 1) * cell})
    scale = {"scheme": colours.scheme(role)}
    if domain:
        scale["domain"] = list(domain)

    x = {"field": "x", "type": "quantitative", "axis": None, "scale": {"domain": [0, width], "nice": False}}
    y = {"field": "y", "type": "quantitative", "axis": None,
         "scale": {"domain": [0, height], "nice": False, "reverse": True}}  # 0 at the top
    rect = {  # outlined in its own colour: narrowed cells at fractional pixels leave no light seams
        "mark": {"type": "rect", "strokeWidth": 0.5, "stroke": {"expr": "scale('color', datum.v)"}},
        "encoding": {
            "x": x, "x2": {"field": "x2"}, "y": y, "y2": {"field": "y2"},
            "color": {"field": "v", "type": "quantitative", "title": value_title, "scale": scale},
            "tooltip": [{"field": "panel", "type": "nominal", "title": words["head"]},
                        {"field": "row", "type": "nominal", "title": words["query"]},
                        {"field": "col", "type": "nominal", "title": words["key"]},
                        {"field": "exact", "type": "nominal", "title": value_title}],
        },
    }
    title = {  # one label per panel, above its first row; cut short rather than run into the next panel
        "transform": [{"filter": "datum.r === 0 && datum.c === 0"}],
        "mark": {"type": "text", "align": "left", "baseline": "bottom", "dy": -4, "fontSize": 12,
                 "limit": {"expr": f"width * {(pitch_x - 4) / width:.6f}"}},
        "encoding": {"x": x, "y": y, "text": {"field": "panel", "type": "nominal"}},
    }
    layers = [rect, title]
    if labels:
        layers += _grid_label_layers(row_labels, col_labels, m, per_row, rows, cols, cell, pitch_x, pitch_y, labels,
                                     x, y)
    config = {"view": {"stroke": None}, "axis": LEGEND_FONTS, "legend": {**LEGEND_FONTS, **(legend or {})}}
    return {
        "$schema": VEGA_LITE_SCHEMA,
        "data": {"values": data},
        "width": width,
        "height": height,
        "autosize": {"type": "fit-x", "contains": "padding"},  # narrower than ``width`` in a narrow column
        "layer": layers,
        "config": config,
        "usermeta": {"grid": {"columns": per_row, "cell": cell, "spacing": spacing, **({"left": room[0]} if labels else {})},
                     **(usermeta or {})},
    }


def to_altair(spec: dict) -> alt.TopLevelMixin:
    """The spec as an Altair chart, for a notebook (validated against Altair's Vega-Lite schema)."""
    return alt.LayerChart.from_dict(spec)


def check_vega_lite(spec: dict) -> None:
    """Raise ``jsonschema.ValidationError`` unless ``spec`` is a valid layered chart by Altair's Vega-Lite schema: one
    validation of the whole spec (Altair's ``from_dict`` and ``to_dict`` validated it again at every nested object,
    about ten times the CPU for the same verdict; docs/benchmarks.md)."""
    alt.LayerChart.validate(spec)


def _js_list(labels: list[str]) -> str:
    """``labels`` as a literal of a Vega expression.

    JSON leaves U+2028 and U+2029 raw, and Vega's expression parser takes them for line breaks
    inside a string, so one such label blanked every chart; they go in as escapes.
    """
    import json

    return json.dumps(labels, ensure_ascii=False).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


MEMORY_AXIS = ("datum.value >= 1024 ? format(datum.value / 1024, ',.4~g') + ' GiB' : "
               "format(datum.value, ',.4~g') + ' MiB'")  # a MiB axis labelled in MiB or GiB


def memory_ticks(mib) -> list[float]:
    """Ticks of a log axis in MiB: the powers of 4 (1 MiB, 4 MiB, ... 1 GiB, 4 GiB) within the values, or of 2
    where fewer than two of those fall inside; below 1 MiB, powers of 1/4."""
    lo, hi = min(mib), max(mib)
    for step in (2, 1):
        ticks = [2.0 ** e for e in range(math.floor(math.log2(lo)), math.ceil(math.log2(hi)) + 1)
                 if e % step == 0 and lo <= 2.0 ** e <= hi]
        if len(ticks) >= 2:
            return ticks
    return [lo, hi] if lo < hi else [lo]


def benchmark_chart(records: list[dict], *, y: str = "median_ms", y_title: str = "median time (ms)",
                    x_title: str = "sequence length n", series_title: str = "implementation · heads",
                    field_titles: dict[str, str] | None = None, impls: tuple[str, ...] | None = None) -> dict:
    """Time (or memory) against sequence length on log-log axes, one line per implementation and head count.

    Meant for the records of one machine and one set of sizes (:func:`selfattn.bench.summary.setups`) and
    at most six lines: each line its own hue of a categorical scheme (:data:`colours.SERIES`), its head
    count its stroke (solid, dashed, dotted), one legend of both under the chart in LABEL_FONT_PX words.
    A plain Vega-Lite dict, as the heatmaps are: an Altair chart cost about 80 ms to build and validate,
    and an upload of many machines draws a dozen (:func:`check_vega_lite` validates one in a test).

    Args:
        records: benchmark records (``selfattn.bench`` fields); only those with status "ok" are drawn.
        y: "median_ms", or "peak_mem_bytes", drawn in MiB on an axis labelled in MiB and GiB.
        field_titles: tooltip titles by field name (e.g. translations); fields not in it are
            titled by their name.
        impls: the implementations in the legend's order (default: as they come).

    Returns:
        A Vega-Lite spec of a line layer and a point layer over the named dataset ``bench``.
    """
    memory = y == "peak_mem_bytes"
    fields = ("seq_len", "impl", "heads", "device_name", "dtype", "batch", "d_model", "gflops", "median_ms")
    rows = [{**{k: r.get(k) for k in fields}, "series": f"{r['impl']} · h={r['heads']}",
             "peak_mem": memory_text(r.get("peak_mem_bytes")), "y": float(r[y]) / (2**20 if memory else 1)}
            for r in records if r.get("status") == "ok" and r.get(y) not in (None, "") and float(r[y]) > 0]
    heads = sorted({r["heads"] for r in rows})
    order = list(dict.fromkeys([*(impls or ()), *(r["impl"] for r in rows)]))
    series = [f"{impl} · h={h}" for impl in order for h in heads if any(
        r["impl"] == impl and r["heads"] == h for r in rows)]
    dashes = [list(colours.DASHES[heads.index(int(s.rsplit("=", 1)[1])) % len(colours.DASHES)]) for s in series]
    titles = field_titles or {}

    def tip(name: str, kind: str, **kwargs) -> dict:
        return {"field": name, "type": kind, "title": titles.get(name, name), **kwargs}

    fonts = {"labelFontSize": LABEL_FONT_PX, "titleFontSize": LABEL_FONT_PX}
    legend = {"orient": "bottom", "direction": "vertical", "columns": 2 if len(series) > 3 else 1, "labelLimit": 0,
              "symbolType": "stroke", "symbolSize": 500, "symbolStrokeWidth": 2.5, **fonts}
    y_axis = dict(fonts)
    if memory and rows:
        y_axis.update(labelExpr=MEMORY_AXIS, values=memory_ticks([r["y"] for r in rows]))
    colour = {"field": "series", "type": "nominal", "title": series_title, "sort": series,
              "scale": colours.series_scale(series)}
    encoding = {
        "x": {"field": "seq_len", "type": "quantitative", "scale": {"type": "log", "base": 2}, "title": x_title,
              "axis": dict(fonts)},
        "y": {"field": "y", "type": "quantitative", "scale": {"type": "log"}, "title": y_title, "axis": y_axis},
        "tooltip": [tip("series", "nominal"), tip("device_name", "nominal"), tip("dtype", "nominal"),
                    tip("batch", "quantitative"), tip("d_model", "quantitative"), tip("seq_len", "quantitative"),
                    tip("median_ms", "quantitative", format=".4g"), tip("gflops", "quantitative", format=".4g"),
                    tip("peak_mem", "nominal")],
    }
    lines = {"mark": {"type": "line", "strokeWidth": 2.5},
             "encoding": {**encoding, "color": {**colour, "legend": legend},
                          "strokeDash": {"field": "series", "type": "nominal", "title": series_title, "sort": series,
                                         "legend": legend, "scale": {"domain": series, "range": dashes}}}}
    # The points keep out of the legend: theirs would draw the lines' dashes 0 px wide.
    points = {"mark": {"type": "point", "filled": True, "size": 50},
              "encoding": {**encoding, "color": {**colour, "legend": None}}}
    return {"datasets": {"bench": rows}, "data": {"name": "bench"}, "height": 320, "layer": [lines, points]}


def pattern_grid(patterns, kind_names: dict[str, str], *, layer_title: str = "layer",
                 head_title: str = "head", kind_title: str = "pattern", mass_title: str = "mass",
                 selected: tuple[int, int] | None = None) -> alt.Chart:
    """Every (layer, head) of a model as one cell coloured by its pattern; clicking a cell selects it.

    Args:
        patterns: ``patterns[layer][head]`` from :func:`selfattn.text.readout.head_patterns`.
        kind_names: the legend's word for each kind (e.g. translations).
        selected: (layer, head), 0-based, drawn with a black frame.

    Returns:
        An Altair chart with a point selection named ``pick`` on the fields ``layer`` and ``head``
        (1-based), for ``st.altair_chart(on_select=...)``.
    """
    rows = [{"layer": li + 1, "head": hi + 1, "kind": kind_names.get(p.kind, p.kind), "mass": round(p.mass, 3),
             "chosen": selected == (li, hi)}
            for li, layer in enumerate(patterns) for hi, p in enumerate(layer)]
    kinds = [k for k in PATTERN_COLOURS if k in {p.kind for layer in patterns for p in layer}]
    pick = alt.selection_point(name="pick", fields=["layer", "head"], on="click")
    big = alt.Axis(labelFontSize=READOUT_FONT_PX, titleFontSize=READOUT_FONT_PX)
    base = alt.Chart(alt.Data(values=rows)).encode(
        x=alt.X("head:O", title=head_title, axis=alt.Axis(labelAngle=0, orient="top", labelFontSize=READOUT_FONT_PX,
                                                            titleFontSize=READOUT_FONT_PX)),
        y=alt.Y("layer:O", title=layer_title,  # written across, not sideways: 层 turned on its side reads as no word
                axis=alt.Axis(labelFontSize=READOUT_FONT_PX, titleFontSize=READOUT_FONT_PX, titleAngle=0,
                              titleAlign="right", titleBaseline="middle")))
    # White seams between cells and a thick frame only around the chosen one: the legend's swatches are
    # plain colour (no outline), so no swatch sits in a black square.
    cells = base.mark_rect(stroke=colours.CELL_EDGE, cursor="pointer").encode(
        color=alt.Color("kind:N", title=kind_title,
                        scale=alt.Scale(domain=[kind_names.get(k, k) for k in kinds],
                                        range=[PATTERN_COLOURS[k] for k in kinds]),
                        legend=alt.Legend(orient="bottom", columns=4, symbolType="square", symbolSize=260,
                                          symbolStrokeWidth=0, labelFontSize=READOUT_FONT_PX,
                                          titleFontSize=READOUT_FONT_PX)),
        strokeWidth=alt.value(1),
        opacity=alt.Opacity("mass:Q", scale=alt.Scale(domain=[0, 1], range=[0.35, 1]), legend=None),
        tooltip=[alt.Tooltip("layer:O", title=layer_title), alt.Tooltip("head:O", title=head_title),
                 alt.Tooltip("kind:N", title=kind_title), alt.Tooltip("mass:Q", title=mass_title, format=".3f")],
    ).add_params(pick)
    chosen = base.mark_rect(filled=False, stroke=colours.INK, strokeWidth=3).transform_filter("datum.chosen")
    return alt.layer(cells, chosen).properties(width=alt.Step(40), height=alt.Step(30))  # a fixed cell


def head_view(weights, labels, picked: int | None = None, *, from_title: str = "from",
              to_title: str = "to", weight_title: str = "weight", width: int = 460, strong: bool = False) -> alt.Chart:
    """bertviz's head view: the tokens twice, side by side, joined by lines whose opacity is the weight
    (``strong``: for a projector, thicker dark lines, the faintest at 25 %).

    Args:
        weights: (n, n) attention, rows (left, attending) to columns (right, attended to).
        labels: n labels, shown on both sides.
        picked: a row to show alone (its lines in full colour), or None for every line.
        width: pixels across, token names included.

    Returns:
        An Altair layer chart (lines under the token names); rows below 0.01 are left out.
    """
    w = np.asarray(weights, dtype=float)  # (n, n)
    n = w.shape[0]
    rows = [{"i": i, "j": j, "w": float(w[i, j]), "from": labels[i], "to": labels[j], "x": 0, "x2": 1}
            for i in range(n) for j in range(n) if (picked is None or i == picked) and w[i, j] >= 0.01]
    x = alt.X("x:Q", axis=None, scale=alt.Scale(domain=[-0.75, 1.75]))  # the names sit in the margins
    y = alt.Y("i:O", axis=None, scale=alt.Scale(domain=list(range(n))))
    colour = colours.PICKED if picked is not None or strong else colours.LINE
    lines = alt.Chart(alt.Data(values=rows)).mark_rule(color=colour, strokeWidth=5 if strong else 3).encode(
        x=x, x2="x2", y=y, y2="j:O",
        opacity=alt.Opacity("w:Q", scale=alt.Scale(domain=[0, 1], range=[0.25 if strong else 0, 1]), legend=None),
        tooltip=[alt.Tooltip("from:N", title=from_title), alt.Tooltip("to:N", title=to_title),
                 alt.Tooltip("w:Q", title=weight_title, format=".4f")])
    names = [{"i": i, "label": label, "bold": picked == i, "x": side}
             for side in (0, 1) for i, label in enumerate(labels)]
    text = alt.Chart(alt.Data(values=names)).encode(
        x=x, y=y, text="label:N", color=alt.condition("datum.bold", alt.value(colours.PICKED), alt.value(colours.TEXT)))
    label = {"fontSize": READOUT_FONT_PX + 1, "limit": 110}  # readable from the back of a room; long words end in …
    left = text.mark_text(align="right", dx=-8, **label).transform_filter("datum.x == 0")
    right = text.mark_text(align="left", dx=8, **label).transform_filter("datum.x == 1")
    return alt.layer(lines, left, right).properties(width=width, height=max(120, HEAD_VIEW_ROW_PX * n))


# Chinese characters and the full-width forms written with them (，（）：).
CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")
# A vertical axis's title written level, above the axis, from its line rightwards (as Chinese charts put it).
LEVEL_TITLE = {"titleAngle": 0, "titleAlign": "left", "titleBaseline": "bottom", "titleX": 0, "titleY": -8}


def level_titles(spec: dict) -> dict:
    """``spec`` with every vertical axis's title that holds Chinese written level above the axis instead of turned a
    quarter: a Latin title turned reads bottom to top, Chinese characters turned lie on their side ("下一个词"
    sideways). Layers and concatenated views are walked; the spec given is not changed.

    Args:
        spec: a Vega-Lite spec (a dict, as :mod:`selfattn.display.charts` and the pages build them).

    Returns:
        The spec, with ``LEVEL_TITLE`` merged into the ``axis`` of each such ``y`` channel (one whose axis sets
        its own ``titleAngle`` is left as it is).
    """
    out = dict(spec)
    encoding = out.get("encoding")
    if isinstance(encoding, dict) and isinstance(encoding.get("y"), dict):
        y = encoding["y"]
        axis = y.get("axis")
        title = (axis or {}).get("title", y.get("title")) if axis is not False else None
        if isinstance(title, str) and CJK.search(title) and "titleAngle" not in (axis or {}):  # else set on purpose
            out["encoding"] = {**encoding, "y": {**y, "axis": {**(axis or {}), **LEVEL_TITLE}}}
    for part in ("layer", "vconcat", "hconcat", "concat"):
        if isinstance(out.get(part), list):
            out[part] = [level_titles(view) if isinstance(view, dict) else view for view in out[part]]
    if isinstance(out.get("spec"), dict):  # a facet's or a repeat's view
        out["spec"] = level_titles(out["spec"])
    return out


def masked_weights(weights, allowed) -> np.ma.MaskedArray:
    """Attention weights with their mask, for a map: the numbers are the weights (0 where a key is masked: its score
    was −∞ before softmax), the mask says which cells the mask forbade, so a map draws them as masked (grey), not as
    a weight of 0 the model chose, nor as the −∞ of the score.

    Args:
        weights: (..., n_q, n_k) weights.
        allowed: (n_q, n_k) or (..., n_q, n_k) bool, True where query i may attend to key j.

    Returns:
        A masked array of the weights' shape, masked where not ``allowed``.
    """
    w = np.asarray(weights, dtype=float)
    return np.ma.MaskedArray(w, mask=np.broadcast_to(~np.asarray(allowed, dtype=bool), w.shape).copy())
