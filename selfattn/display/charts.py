"""Heatmap chart builders. They return Vega-Lite specs and never call Streamlit.

The specs are the JSON that Altair itself writes (Vega-Lite v6), built as plain dicts: an
Altair object costs about 60 ms per heatmap to build and schema-validate, and the Playground
draws a dozen of them on every edit. ``to_altair`` turns a spec into an Altair chart for
notebooks, and the tests validate every spec against Altair's schema that way.
"""

from __future__ import annotations

import math

import altair as alt
import numpy as np

ANNOTATE_MAX_CELLS = 144  # print values in the cells up to 12 x 12
MINUS_INFINITY = "−∞"  # a masked score, written the same way in charts, tables and the step-by-step text
MASKED_GREY = "#d9d9d9"  # the colour of a masked (−∞) cell
GRID_TITLE_PX = 18  # above each panel of a head grid, for its title
VEGA_LITE_SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json"
# Words in legends and tooltips; pages pass their translations through ``words=``.
WORDS = {"row": "row", "column": "column", "value": "value", "head": "head", "query": "query", "key": "key",
         "weight": "weight"}


def heatmap(matrix, row_labels, col_labels, *, title: str = "", annotate: bool | None = None,
            cell: int = 46, scheme: str = "blues", max_width: int = 640, value_title: str = "",
            row_title: str = "", col_title: str = "", domain: tuple[float, float] | None = None,
            words: dict | None = None) -> dict:
    """A Vega-Lite heatmap of a (rows, cols) matrix with exact values in the tooltip.

    Args:
        matrix: (rows, cols) numbers; ``-inf`` (a masked score) is drawn as a grey cell.
        row_labels, col_labels: axis labels in order; repeats are fine (cells are placed
            by position and labelled through ``labelExpr``).
        annotate: print values in the cells; by default only for matrices up to 12 x 12.
        cell: cell size in pixels, shrunk so that wide matrices fit ``max_width``.
        domain: fixed (low, high) of the colour scale, e.g. (0, 1) for attention weights.
        words: translations of :data:`WORDS` for the legend and tooltips.

    Returns:
        A Vega-Lite spec (dict) for ``st.vega_lite_chart`` or :func:`to_altair`.
    """
    words = {**WORDS, **(words or {})}
    value_title = value_title or words["value"]
    values = np.asarray(matrix, dtype=float)
    rows, cols = values.shape
    rows_text, cols_text = [str(r) for r in row_labels], [str(c) for c in col_labels]
    finite = values[np.isfinite(values)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    low, high = domain if domain else (lo, hi)
    annotate = annotate if annotate is not None else rows * cols <= ANNOTATE_MAX_CELLS and cols <= 12
    data = []
    for i in range(rows):
        for j in range(cols):
            v = float(values[i, j])
            ok = math.isfinite(v)
            cell_data = {"r": i, "c": j, "row": rows_text[i], "col": cols_text[j],
                         "v": v if ok else None, "exact": repr(v) if ok else MINUS_INFINITY, "masked": not ok}
            if annotate:  # the printed value and its colour, only where values are printed
                cell_data.update(shown=_short(v), dark=ok and _is_dark(v, low, high, scheme))
            data.append(cell_data)
    size = max(8, min(cell, max_width // max(cols, 1)))
    scale = {"scheme": scheme}
    if domain:
        scale["domain"] = list(domain)
    encoding = {
        "x": {"field": "c", "type": "ordinal", "title": col_title or None, "sort": None,
              "axis": {"labelExpr": f"{_js_list(cols_text)}[datum.value]", "orient": "top",
                       "labelAngle": 0 if cols <= 8 and max(map(len, cols_text)) <= 4 else -40, "labelLimit": 90}},
        "y": {"field": "r", "type": "ordinal", "title": row_title or None, "sort": None,
              "axis": {"labelExpr": f"{_js_list(rows_text)}[datum.value]", "labelLimit": 120}},
    }
    rect = {
        # invalid: None keeps the cells without a value (a masked −∞) that Vega-Lite would leave
        # out (a white gap), and the condition paints them grey.
        "mark": {"type": "rect", "stroke": "white", "strokeWidth": 0.5, "invalid": None},
        "encoding": {
            "color": {"condition": {"test": "datum.masked", "value": MASKED_GREY},
                      "field": "v", "type": "quantitative", "title": value_title, "scale": scale},
            "tooltip": [{"field": "row", "type": "nominal", "title": words["row"]},
                        {"field": "col", "type": "nominal", "title": words["column"]},
                        {"field": "exact", "type": "nominal", "title": value_title}],
        },
    }
    layers = [rect]
    if annotate:
        layers.append({
            "mark": {"type": "text", "fontSize": 11},
            "encoding": {"text": {"field": "shown", "type": "nominal"},
                         "color": {"condition": {"test": "datum.dark", "value": "white"}, "value": "black"}},
        })
    return {
        "$schema": VEGA_LITE_SCHEMA,
        "title": title or "",
        "data": {"values": data},
        "width": {"step": size},  # one step per column: the chart grows with the matrix
        "height": {"step": size},
        "encoding": encoding,
        "layer": layers,
    }


DIVERGING = {"redblue", "blueorange", "purpleorange", "redyellowblue", "spectral", "pinkyellowgreen"}


def _is_dark(v: float, low: float, high: float, scheme: str) -> bool:
    """Whether the cell colour of ``v`` is dark enough to need white text.

    Sequential schemes darken towards ``high``; diverging ones darken towards both ends.
    """
    if high <= low:
        return False
    if scheme in DIVERGING:
        mid = (low + high) / 2
        return abs(v - mid) > 0.6 * (high - low) / 2
    return (v - low) / (high - low) > 0.55


def heatmap_grid(matrices, row_labels, col_labels, titles, *, columns: int = 4, cell: int = 14,
                 spacing: int = 12, domain: tuple[float, float] | None = (0.0, 1.0), scheme: str = "greens",
                 value_title: str = "", words: dict | None = None) -> dict:
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
        words: translations of :data:`WORDS` for the legend and tooltips.

    Returns:
        A Vega-Lite spec whose ``width`` and ``height`` are the panels' extent in pixels;
        ``usermeta.grid`` holds ``columns``, ``cell`` and ``spacing``.
    """
    words = {**WORDS, **(words or {})}
    value_title = value_title or words["weight"]
    stack = np.asarray(matrices, dtype=float)
    m, rows, cols = stack.shape
    per_row = max(1, min(columns, m))
    pitch_x = cols * cell + spacing  # from one panel's left edge to the next one's
    pitch_y = GRID_TITLE_PX + rows * cell + spacing
    data = []
    for p in range(m):
        left, top = (p % per_row) * pitch_x, (p // per_row) * pitch_y + GRID_TITLE_PX
        for i in range(rows):
            for j in range(cols):
                v = float(stack[p, i, j])
                data.append({"p": p, "panel": str(titles[p]), "r": i, "c": j, "row": str(row_labels[i]),
                             "col": str(col_labels[j]), "v": v if math.isfinite(v) else None,
                             "exact": repr(v), "x": left + j * cell, "x2": left + (j + 1) * cell,
                             "y": top + i * cell, "y2": top + (i + 1) * cell})
    width = per_row * pitch_x - spacing
    height = math.ceil(m / per_row) * pitch_y - spacing
    scale = {"scheme": scheme}
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
    return {
        "$schema": VEGA_LITE_SCHEMA,
        "data": {"values": data},
        "width": width,
        "height": height,
        "autosize": {"type": "fit-x", "contains": "padding"},  # narrower than ``width`` in a narrow column
        "layer": [rect, title],
        "config": {"view": {"stroke": None}},  # no frame around the whole grid
        "usermeta": {"grid": {"columns": per_row, "cell": cell, "spacing": spacing}},
    }


def to_altair(spec: dict) -> alt.TopLevelMixin:
    """The spec as an Altair chart (validated against Altair's Vega-Lite schema)."""
    return alt.LayerChart.from_dict(spec)


def _short(value: float) -> str:
    if value == -math.inf:
        return MINUS_INFINITY
    if not math.isfinite(value):
        return str(value)
    if value == 0 or 1e-3 <= abs(value) < 1e5:
        return f"{value:.3g}"
    return f"{value:.1e}"


def _js_list(labels: list[str]) -> str:
    import json

    return json.dumps(labels, ensure_ascii=False)


def benchmark_chart(records: list[dict], *, y: str = "median_ms", y_title: str = "median time (ms)",
                    x_title: str = "sequence length n", source_title: str = "run",
                    field_titles: dict[str, str] | None = None) -> alt.Chart:
    """Time (or memory) against sequence length on log-log axes, one line per implementation and
    head count; runs from different files get different dash patterns.

    Args:
        records: benchmark records (``selfattn.bench`` fields) with status "ok"; an optional
            ``source`` field names the run or file each came from.
        y: the field to plot, "median_ms" or "peak_mem_bytes".
        field_titles: tooltip titles by field name (e.g. translations); fields not in it are
            titled by their name.

    Returns:
        An Altair chart (only a handful are drawn, so Altair's validation cost does not matter).
    """
    import pandas as pd

    rows = [{**r, "series": f"{r['impl']} · h={r['heads']}", "source": r.get("source", "")}
            for r in records if r.get("status") == "ok" and r.get(y) not in (None, "") and float(r[y]) > 0]
    columns = ["seq_len", "series", "source", "impl", "heads", "device_name", "dtype", "batch", "d_model",
               "gflops", "median_ms", "peak_mem_bytes"]
    frame = pd.DataFrame(rows, columns=list(dict.fromkeys([*columns, y])))
    titles = field_titles or {}

    def tip(shorthand: str, **kwargs) -> alt.Tooltip:
        field = shorthand.split(":")[0]
        if field in titles:
            kwargs["title"] = titles[field]
        return alt.Tooltip(shorthand, **kwargs)

    base = alt.Chart(frame).encode(
        x=alt.X("seq_len:Q", scale=alt.Scale(type="log", base=2), title=x_title),
        y=alt.Y(f"{y}:Q", scale=alt.Scale(type="log"), title=y_title),
        color=alt.Color("series:N", title=None),
        strokeDash=alt.StrokeDash("source:N", title=source_title),
        tooltip=[tip("source:N"), tip("series:N"), tip("device_name:N"), tip("dtype:N"), tip("batch:Q"),
                 tip("d_model:Q"), tip("seq_len:Q"), tip("median_ms:Q", format=".4g"),
                 tip("gflops:Q", format=".4g"), tip("peak_mem_bytes:Q", format=",")],
    )
    return (base.mark_line() + base.mark_point(filled=True)).properties(height=320)


PATTERN_COLOURS = {"previous": "#1f77b4", "next": "#17becf", "self": "#9467bd", "first": "#d62728",
                   "last": "#ff7f0e", "broad": "#2ca02c", "mixed": "#bdbdbd"}  # one colour per head pattern


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
    base = alt.Chart(alt.Data(values=rows)).encode(
        x=alt.X("head:O", title=head_title, axis=alt.Axis(labelAngle=0, orient="top")),
        y=alt.Y("layer:O", title=layer_title))
    cells = base.mark_rect(stroke="black", cursor="pointer").encode(
        color=alt.Color("kind:N", title=kind_title,
                        scale=alt.Scale(domain=[kind_names.get(k, k) for k in kinds],
                                        range=[PATTERN_COLOURS[k] for k in kinds]),
                        legend=alt.Legend(orient="bottom", columns=4)),
        strokeWidth=alt.condition("datum.chosen", alt.value(3), alt.value(0)),
        opacity=alt.Opacity("mass:Q", scale=alt.Scale(domain=[0, 1], range=[0.35, 1]), legend=None),
        tooltip=[alt.Tooltip("layer:O", title=layer_title), alt.Tooltip("head:O", title=head_title),
                 alt.Tooltip("kind:N", title=kind_title), alt.Tooltip("mass:Q", title=mass_title, format=".3f")],
    ).add_params(pick)
    return cells.properties(width=alt.Step(34), height=alt.Step(26))  # a fixed cell, whatever the model's size


def head_view(weights, labels, picked: int | None = None, *, from_title: str = "from",
              to_title: str = "to", weight_title: str = "weight") -> alt.Chart:
    """bertviz's head view: the tokens twice, side by side, joined by lines whose opacity is the weight.

    Args:
        weights: (n, n) attention, rows (left, attending) to columns (right, attended to).
        labels: n labels, shown on both sides.
        picked: a row to show alone (its lines in full colour), or None for every line.

    Returns:
        An Altair layer chart (lines under the token names); rows below 0.01 are left out.
    """
    w = np.asarray(weights, dtype=float)  # (n, n)
    n = w.shape[0]
    rows = [{"i": i, "j": j, "w": float(w[i, j]), "from": labels[i], "to": labels[j], "x": 0, "x2": 1}
            for i in range(n) for j in range(n) if (picked is None or i == picked) and w[i, j] >= 0.01]
    x = alt.X("x:Q", axis=None, scale=alt.Scale(domain=[-0.75, 1.75]))  # the names sit in the margins
    y = alt.Y("i:O", axis=None, scale=alt.Scale(domain=list(range(n))))
    colour = "#d62728" if picked is not None else "#1f77b4"
    lines = alt.Chart(alt.Data(values=rows)).mark_rule(color=colour, strokeWidth=2).encode(
        x=x, x2="x2", y=y, y2="j:O",
        opacity=alt.Opacity("w:Q", scale=alt.Scale(domain=[0, 1], range=[0, 1]), legend=None),
        tooltip=[alt.Tooltip("from:N", title=from_title), alt.Tooltip("to:N", title=to_title),
                 alt.Tooltip("w:Q", title=weight_title, format=".4f")])
    names = [{"i": i, "label": label, "bold": picked == i, "x": side}
             for side in (0, 1) for i, label in enumerate(labels)]
    text = alt.Chart(alt.Data(values=names)).encode(
        x=x, y=y, text="label:N", color=alt.condition("datum.bold", alt.value("#d62728"), alt.value("#262730")))
    left = text.mark_text(align="right", dx=-6).transform_filter("datum.x == 0")
    right = text.mark_text(align="left", dx=6).transform_filter("datum.x == 1")
    return alt.layer(lines, left, right).properties(width=460, height=max(60, 18 * n))
