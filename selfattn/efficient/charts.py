"""The Efficient attention page's charts as Vega-Lite dicts (no Streamlit, no Altair object): the page draws them.

Each builder takes its numbers and ``words``, the chart's labels in the visitor's language, and returns a chart as
wide as its column ("container": the page draws it stretched) and of a fixed height, so that it fits a 1024 px
window's columns as a 1400 px one's (tests/test_efficient_browser.py). They are written out as
:mod:`selfattn.display.charts` writes the other pages' charts: the tiles grid is built anew at each step of its play
and each new seed, the others at each setting a visitor tries, and Altair took 30-65 ms to build one and 40 more to
validate it (docs/benchmarks.md). tests/test_efficient_charts.py holds each to Vega-Lite's schema (Altair's) and the
grids to the numbers they draw.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import altair as alt
import numpy as np

from selfattn.display import colours
from selfattn.display.charts import LABEL_FONT_PX, VALUE_FONT_PX
from selfattn.display.numbers import chart_text

MAX_GRID_PX = 360  # the score matrix and the masks, at most this high
CELL_PX = 34
NUMBERS_UP_TO = 12  # cells carry their numbers up to 12 × 12
TILE, LIT, WRONG, RIGHT = colours.TILE_EDGE, colours.TILE_LIT, colours.WRONG_HEAD, colours.RIGHT_HEAD
FIT_X = {"type": "fit-x", "contains": "padding"}  # the column's width, the height given
SCHEMA = alt.SCHEMA_URL  # the Vega-Lite version Altair writes (the charts built with it say the same)


def _cell_px(n: int) -> int:
    return max(12, min(CELL_PX, MAX_GRID_PX // max(n, 1)))


def _index_axis(n: int, prefix: str, title: str, orient: str) -> dict:
    """An axis of a grid drawn on [0, n]: one label a cell, at its middle, counting from 1."""
    step = max(1, math.ceil(n / 16))
    return {"values": [i + 0.5 for i in range(0, n, step)], "labelExpr": f"'{prefix}' + (datum.value + 0.5)",
            "title": title, "orient": orient, "grid": False, "ticks": False, "domain": False,
            "labelFontSize": LABEL_FONT_PX, "titleFontSize": LABEL_FONT_PX, "labelAngle": 0}


def _grid(n_rows: int, n_cols: int, words: dict) -> tuple[Callable[[str], dict], Callable[[str], dict], int]:
    """A grid's x and y channels for a field (cells on [0, n_cols] × [0, n_rows], rows downwards) and its cell px."""
    cell = _cell_px(max(n_rows, n_cols))
    x_axis = _index_axis(n_cols, words.get("col_prefix", "k"), words["key"], "top")
    y_axis = _index_axis(n_rows, words.get("row_prefix", "q"), words["query"], "left")
    return (lambda field: {"field": field, "type": "quantitative", "axis": x_axis,
                           "scale": {"domain": [0, n_cols], "nice": False, "zero": False}},
            lambda field: {"field": field, "type": "quantitative", "axis": y_axis,
                           "scale": {"domain": [0, n_rows], "nice": False, "zero": False, "reverse": True}},
            cell)


def _when(test: str, then, otherwise) -> dict:
    """A channel of one value where ``test`` holds, another elsewhere."""
    return {"condition": {"test": test, "value": then}, "value": otherwise}


def _tooltip(*fields: tuple[str, str]) -> list[dict]:
    return [{"field": field, "type": "nominal", "title": title} for field, title in fields]


def _sized(spec: dict, height: int, *, bare: bool = True) -> dict:
    """A chart as wide as its column ("container": the page draws it stretched), ``height`` px high; ``bare``: no
    frame around its view (the grids)."""
    view = {"continuousWidth": 300, "continuousHeight": 300, **({"stroke": None} if bare else {})}
    return {"$schema": SCHEMA, "config": {"view": view}, **spec, "width": "container", "height": height,
            "autosize": dict(FIT_X)}


def tiles_chart(scores: np.ndarray, done: np.ndarray, tiles: list[tuple], current: tuple[int, int] | None,
                skipped: set[tuple[int, int]], words: dict) -> dict:
    """The score matrix as a grid of tiles: cells computed so far in full colour, the rest faded; every tile framed,
    the current one lit, the skipped ones hatched grey. A Vega-Lite dict written out (built at each step of the
    tiles' play and at each new seed: Altair took 65 ms to build it and 40 more to check it, docs/benchmarks.md).

    Args:
        scores: (n_q, n_k) scaled scores, -inf where masked. done: (n_q, n_k) bool, computed so far.
        tiles: (query block, key block, r0, r1, c0, c1) of every tile. current: the lit tile's (qb, kb), or None.
    """
    n_q, n_k = scores.shape
    x, y, cell = _grid(n_q, n_k, words)
    cells = [{"r": i, "c": j, "r1": i + 1, "c1": j + 1, "v": float(scores[i, j]) if np.isfinite(scores[i, j]) else None,
              "text": chart_text(float(scores[i, j])), "done": bool(done[i, j]),
              "where": f"q{i + 1}, k{j + 1}"} for i in range(n_q) for j in range(n_k)]
    frames = [{"qb": qb, "kb": kb, "r0": r0, "r1": r1, "c0": c0, "c1": c1, "lit": (qb, kb) == current,
               "skipped": (qb, kb) in skipped, "name": f"({qb + 1}, {kb + 1})"} for qb, kb, r0, r1, c0, c1 in tiles]
    finite = scores[np.isfinite(scores)]
    top = float(np.abs(finite).max()) if finite.size else 1.0
    colour = {"test": "isValid(datum.v)", "field": "v", "type": "quantitative", "title": words["score"],
              "scale": colours.role_scale("signed", domain=[-top, top], reverse=True),
              "legend": {"labelFontSize": LABEL_FONT_PX, "titleFontSize": LABEL_FONT_PX, "orient": "bottom"}}
    layers = [{"data": {"values": cells}, "mark": {"type": "rect"}, "encoding": {
        "x": x("c"), "x2": {"field": "c1"}, "y": y("r"), "y2": {"field": "r1"},
        "color": {"condition": colour, "value": colours.MASK_OFF}, "opacity": _when("datum.done", 1.0, 0.25),
        "tooltip": _tooltip(("where", words["cell"]), ("text", words["score"]))}}]
    if max(n_q, n_k) <= NUMBERS_UP_TO:
        layers.append({"data": {"values": cells}, "mark": {"type": "text", "fontSize": VALUE_FONT_PX},
                       "transform": [{"calculate": "datum.c + 0.5", "as": "cx"}, {"calculate": "datum.r + 0.5", "as": "cy"}],
                       "encoding": {"x": x("cx"), "y": y("cy"), "text": {"field": "text", "type": "nominal"},
                                    "opacity": _when("datum.done", 1.0, 0.35)}})
    box = {"x": x("c0"), "x2": {"field": "c1"}, "y": y("r0"), "y2": {"field": "r1"}}
    layers.append({"data": {"values": frames}, "transform": [{"filter": "datum.skipped"}],
                   "mark": {"type": "rect", "fill": colours.TILE_SKIPPED, "opacity": 0.35}, "encoding": box})
    layers.append({"data": {"values": frames}, "mark": {"type": "rect", "filled": False}, "encoding": {
        **box, "stroke": _when("datum.lit", LIT, TILE), "strokeWidth": _when("datum.lit", 5, 1.5),
        "tooltip": _tooltip(("name", words["tile"]))}})
    return _sized({"layer": layers}, cell * n_q)


def mask_chart(keep: np.ndarray, words: dict) -> dict:
    """The banded mask: cells a query may read, filled; the rest grey (a Vega-Lite dict, as :func:`tiles_chart`)."""
    n_q, n_k = keep.shape
    x, y, cell = _grid(n_q, n_k, words)
    cells = [{"r": i, "c": j, "r1": i + 1, "c1": j + 1, "seen": words["seen"] if keep[i, j] else words["masked"],
              "where": f"q{i + 1}, k{j + 1}"} for i in range(n_q) for j in range(n_k)]
    return _sized({"data": {"values": cells}, "mark": {"type": "rect", "stroke": colours.CELL_EDGE, "strokeWidth": 1},
                   "encoding": {
                       "x": x("c"), "x2": {"field": "c1"}, "y": y("r"), "y2": {"field": "r1"},
                       "color": {"field": "seen", "type": "nominal", "title": "",
                                 "scale": {"domain": [words["seen"], words["masked"]], "range": [RIGHT, colours.FADED]},
                                 "legend": {"orient": "bottom", "labelFontSize": LABEL_FONT_PX}},
                       "tooltip": _tooltip(("where", words["cell"]), ("seen", ""))}}, cell * n_q)


def reach_chart(reach: np.ndarray, words: dict) -> dict:
    """Which positions the last token's output depends on after 0, 1, … L layers (a row a layer count; a Vega-Lite
    dict, as :func:`mask_chart`: built for each window and length a class tries)."""
    layers, n = reach.shape
    cell = _cell_px(max(n, layers))
    cells = [{"l": l, "l1": l + 1, "c": j, "c1": j + 1, "seen": words["reached"] if reach[l, j] else words["unreached"],
              "where": f"L = {l}, k{j + 1}"} for l in range(layers) for j in range(n)]
    x = {"field": "c", "type": "quantitative", "scale": {"domain": [0, n], "nice": False, "zero": False},
         "axis": _index_axis(n, "k", words["position"], "top")}
    y = {"field": "l", "type": "quantitative", "scale": {"domain": [0, layers], "nice": False, "zero": False,
                                                         "reverse": True},
         "axis": {"values": [l + 0.5 for l in range(layers)], "labelExpr": "datum.value - 0.5", "grid": False,
                  "ticks": False, "domain": False, "title": words["layers"], "labelFontSize": LABEL_FONT_PX,
                  "titleFontSize": LABEL_FONT_PX}}
    return _sized({"data": {"values": cells}, "mark": {"type": "rect", "stroke": colours.CELL_EDGE, "strokeWidth": 1},
                   "encoding": {
                       "x": x, "x2": {"field": "c1"}, "y": y, "y2": {"field": "l1"},
                       "color": {"field": "seen", "type": "nominal", "title": "",
                                 "scale": {"domain": [words["reached"], words["unreached"]],
                                           "range": [LIT, colours.FADED]},
                                 "legend": {"orient": "bottom", "labelFontSize": LABEL_FONT_PX}},
                       "tooltip": _tooltip(("where", words["cell"]))}}, cell * layers)


def _axis(**more) -> dict:
    return {"labelFontSize": LABEL_FONT_PX, "titleFontSize": LABEL_FONT_PX, **more}


def _log_n(title: str) -> dict:
    """The x channel of a curve against n, on a log-2 scale."""
    return {"field": "n", "type": "quantitative", "scale": {"type": "log", "base": 2}, "title": title, "axis": _axis()}


def _number_tip(field: str, title: str | None = None, fmt: str | None = None) -> dict:
    return {"field": field, "type": "quantitative", **({"title": title} if title is not None else {}),
            **({"format": fmt} if fmt else {})}


def traffic_chart(rows: list[dict], names: dict, words: dict) -> dict:
    """Numbers moved (reads + writes) against n, one line an algorithm, both axes logarithmic."""
    values = [{"n": r["n"], "algorithm": names[kind], "moved": r[kind]} for r in rows for kind in ("standard", "tiled")]
    return _sized({"data": {"values": values}, "mark": {"type": "line", "point": True}, "encoding": {
        "x": _log_n(words["n"]),
        "y": {"field": "moved", "type": "quantitative", "scale": {"type": "log"}, "title": words["moved"],
              "axis": _axis(format="~s")},
        "color": {"field": "algorithm", "type": "nominal", "title": "", "legend": {  # one name a line: side by side,
            "orient": "bottom", "direction": "vertical", "labelFontSize": LABEL_FONT_PX, "labelLimit": 400}},  # the
        "tooltip": [*_tooltip(("algorithm", "")), _number_tip("n", words["n"]),  # second ran past the chart
                    _number_tip("moved", words["moved"], ",")]}}, 280, bare=False)


def heads_chart(kv_head: tuple[int, ...], g: int, wrong: tuple[int, ...], words: dict) -> dict:
    """Which key/value head each query head reads: query heads on top, key/value heads below, a line each; the lines
    of the heads that read the wrong keys in red."""
    h = len(kv_head)
    top = [{"x": (i + 0.5) / h, "y": 1, "name": f"{words['q_head']} {i + 1}"} for i in range(h)]
    bottom = [{"x": (j + 0.5) / g, "y": 0, "name": f"{words['kv_head']} {j + 1}"} for j in range(g)]
    links = [{"x": (i + 0.5) / h, "y": 1, "x2": (kv_head[i] + 0.5) / g, "y2": 0, "wrong": i in wrong,
              "name": f"{words['q_head']} {i + 1} → {words['kv_head']} {kv_head[i] + 1}"} for i in range(h)]
    x = {"field": "x", "type": "quantitative", "scale": {"domain": [0, 1]}, "axis": None}

    def y(field: str) -> dict:
        return {"field": field, "type": "quantitative", "scale": {"domain": [-0.35, 1.35]}, "axis": None}

    named = _tooltip(("name", ""))
    lines = {"data": {"values": links}, "mark": {"type": "rule", "strokeWidth": 2}, "encoding": {
        "x": x, "y": y("y"), "x2": {"field": "x2"}, "y2": {"field": "y2"}, "color": _when("datum.wrong", WRONG, RIGHT),
        "tooltip": named}}
    dots = {"data": {"values": top + bottom}, "mark": {"type": "point", "filled": True, "size": 160, "color": TILE},
            "encoding": {"x": x, "y": y("y"), "tooltip": named}}
    labels = {"data": {"values": top + bottom}, "mark": {"type": "text", "fontSize": LABEL_FONT_PX},
              "transform": [{"calculate": "datum.y == 1 ? 1.2 : -0.2", "as": "ly"},
                            {"calculate": "split(datum.name, ' ')[length(split(datum.name, ' ')) - 1]", "as": "label"}],
              "encoding": {"x": x, "y": y("ly"), "text": {"field": "label", "type": "nominal"}}}
    return _sized({"layer": [lines, dots, labels]}, 150)


def kv_cache_chart(curve: list[dict], words: dict) -> dict:
    """KV-cache KiB per token against g for each model; its real g marked."""
    values = [{**row, "kib": row["bytes"] / 1024} for row in curve]
    encoding = {
        "x": {"field": "g", "type": "quantitative", "scale": {"type": "log", "base": 2}, "title": words["g"],
              "axis": _axis()},
        "y": {"field": "kib", "type": "quantitative", "scale": {"type": "log", "base": 2}, "title": words["kib"],
              "axis": _axis()},
        "color": {"field": "model", "type": "nominal", "title": "",
                  "legend": {"orient": "bottom", "labelFontSize": LABEL_FONT_PX}},
        "tooltip": [*_tooltip(("model", "")), _number_tip("g", words["g"]), _number_tip("kib", words["kib"], ",")]}
    return _sized({"data": {"values": values}, "layer": [  # the layers share the data
        {"mark": {"type": "line"}, "encoding": encoding},
        {"mark": {"type": "point", "filled": True, "size": 120}, "encoding": encoding,
         "transform": [{"filter": "datum.real"}]}]}, 240, bare=False)


def rotation_chart(before: tuple[float, float], after: tuple[float, float], words: dict) -> dict:
    """A pair of dimensions as a point of the plane, before and after its rotation, arrows from the origin."""
    radius = max(math.hypot(*before), 1e-9) * 1.25
    values = [{"x": before[0], "y": before[1], "which": words["before"]},
              {"x": after[0], "y": after[1], "which": words["after"]}]
    scale = {"domain": [-radius, radius], "nice": False}
    axis = _axis(format="~g")
    colour = {"field": "which", "type": "nominal", "title": "",
              "scale": {"domain": [words["before"], words["after"]], "range": [RIGHT, LIT]},
              "legend": {"orient": "bottom", "labelFontSize": LABEL_FONT_PX}}
    arrows = {"mark": {"type": "rule", "strokeWidth": 3},
              "transform": [{"calculate": "0", "as": "x0"}, {"calculate": "0", "as": "y0"}], "encoding": {
                  "x": {"field": "x0", "type": "quantitative", "scale": scale, "axis": axis, "title": words["first"]},
                  "y": {"field": "y0", "type": "quantitative", "scale": scale, "axis": axis, "title": words["second"]},
                  "x2": {"field": "x"}, "y2": {"field": "y"}, "color": colour}}
    ends = {"mark": {"type": "point", "filled": True, "size": 120}, "encoding": {
        "x": {"field": "x", "type": "quantitative", "scale": scale},
        "y": {"field": "y", "type": "quantitative", "scale": scale}, "color": colour,
        "tooltip": [*_tooltip(("which", "")), _number_tip("x", fmt=".4g"), _number_tip("y", fmt=".4g")]}}
    return _sized({"data": {"values": values}, "layer": [arrows, ends]}, 260, bare=False)  # the layers share the data


def timing_chart(rows: list[dict], field: str, names: dict, title: str, words: dict) -> dict:
    """One measured figure of both ways against n (time in ms, or peak memory in MiB), both axes logarithmic.

    Args:
        rows: :func:`selfattn.efficient.timing.measure`'s rows. field: "ms" or "mib".
        names: {"sdpa": …, "materialised": …} in the visitor's language. title: the y axis's.
    """
    def value(r: dict, way: str) -> float:
        return r[f"{way}_ms"] if field == "ms" else r[f"{way}_peak_bytes"] / 2**20

    values = [{"n": r["n"], "way": names[way], "value": value(r, way)} for r in rows for way in ("sdpa", "materialised")]
    return _sized({"data": {"values": values}, "mark": {"type": "line", "point": True}, "encoding": {
        "x": _log_n(words["n"]),
        "y": {"field": "value", "type": "quantitative", "scale": {"type": "log"}, "title": title,
              "axis": _axis(format="~g")},
        "color": {"field": "way", "type": "nominal", "title": "",
                  "scale": {"domain": [names["sdpa"], names["materialised"]], "range": [RIGHT, LIT]},
                  "legend": {"orient": "bottom", "labelFontSize": LABEL_FONT_PX, "labelLimit": 400}},
        "tooltip": [*_tooltip(("way", "")), _number_tip("n", words["n"]), _number_tip("value", title, ".3g")]}},
        240, bare=False)
