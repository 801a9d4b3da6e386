"""Heatmap specs are valid Vega-Lite (checked by Altair's own schema) and carry exact values."""

import numpy as np

from selfattn.display.charts import EXACT, MASKED, heatmap, to_altair


def test_heatmap_spec_is_valid_and_exact():
    m = np.array([[0.0633789405, 0.5], [-np.inf, 2.0]])
    spec = heatmap(m, ["早", "上"], ["k1", "k2"], title="w")
    to_altair(spec).to_dict()  # raises if Altair's schema rejects the spec
    cells = spec["data"]["values"]
    assert cells[0]["v"] == 0.0633789405 and set(cells[0]) == {"v", "shown", "dark"}  # the float64 itself
    assert cells[2]["v"] is None and cells[2]["shown"] == "−∞"  # masked cell drawn grey
    assert spec["transform"][-1] == {"calculate": EXACT, "as": "exact"}  # the tooltip's text, in the browser
    assert "早" in spec["transform"][3]["calculate"] and "k2" in spec["transform"][4]["calculate"]
    assert "早" in spec["encoding"]["y"]["axis"]["labelExpr"]


def test_annotation_only_for_small_matrices():
    assert len(heatmap(np.ones((3, 3)), "abc", "abc")["layer"]) == 2
    assert len(heatmap(np.ones((20, 20)), range(20), range(20))["layer"]) == 1


def test_repeated_labels_keep_their_cells_apart():
    """Cells are sent row after row, one number each, and placed by their position in that list."""
    spec = heatmap(np.arange(6.0).reshape(2, 3), ["天", "天"], ["天", "天", "天"])
    assert [c["v"] for c in spec["data"]["values"]] == [0, 1, 2, 3, 4, 5]
    assert spec["transform"][:3] == [{"window": [{"op": "row_number", "as": "k"}]},
                                     {"calculate": "floor((datum.k - 1) / 3)", "as": "r"},
                                     {"calculate": "(datum.k - 1) % 3", "as": "c"}]
    assert spec["encoding"]["x"]["field"] == "c" and spec["encoding"]["y"]["field"] == "r"


def test_masked_scores_are_grey_and_written_as_minus_infinity():
    import numpy as np

    from selfattn.display.charts import MASKED_GREY, MINUS_INFINITY, heatmap

    spec = heatmap(np.array([[1.0, -np.inf], [0.5, 2.0]]), ["a", "b"], ["a", "b"])
    cells = spec["data"]["values"]
    assert [c["v"] is None for c in cells] == [False, True, False, False]
    assert cells[1]["shown"] == MINUS_INFINITY and EXACT.endswith(f"'{MINUS_INFINITY}'")
    rect = spec["layer"][0]
    assert rect["mark"]["invalid"] is None  # kept, not left out as a white gap
    assert rect["encoding"]["color"]["condition"] == {"test": MASKED, "value": MASKED_GREY}


def test_head_grid_is_one_view_with_panels_apart_and_exact_tooltips():
    """The head grid is a plain layered view (a facet could not be narrowed to fit a column): each
    cell has its own place inside the chart, panels keep their spacing, and the tooltip still names
    the head, query, key and exact weight."""
    from selfattn.display.charts import GRID_TITLE_PX, heatmap_grid

    stack = np.random.default_rng(0).dirichlet(np.ones(3), size=(5, 3))  # (heads, queries, keys)
    spec = heatmap_grid(stack, ["a", "b", "c"], ["a", "b", "c"], [f"head {p + 1}" for p in range(5)],
                        columns=2, cell=10, spacing=12)
    to_altair(spec).to_dict()
    assert "facet" not in spec and spec["autosize"]["type"] == "fit-x"
    assert (spec["width"], spec["height"]) == (2 * 30 + 12, 3 * (GRID_TITLE_PX + 30) + 2 * 12)
    cells = spec["data"]["values"]
    assert len({(c["x"], c["y"]) for c in cells}) == len(cells) == 5 * 9
    for c in cells:
        assert c["exact"] == repr(float(stack[c["p"], c["r"], c["c"]])) and c["panel"] == f"head {c['p'] + 1}"
        assert (c["x2"] - c["x"], c["y2"] - c["y"]) == (10, 10)
        assert 0 <= c["x"] and c["x2"] <= spec["width"] and 0 <= c["y"] and c["y2"] <= spec["height"]
        assert c["x"] == (c["p"] % 2) * 42 + c["c"] * 10  # panel column, then key
        assert c["y"] == (c["p"] // 2) * 60 + GRID_TITLE_PX + c["r"] * 10  # panel row under its title, then query
    tooltip = [t["field"] for t in spec["layer"][0]["encoding"]["tooltip"]]
    assert tooltip == ["panel", "row", "col", "exact"]


def test_a_heatmap_draws_its_layout_as_given():
    """Pixels and labels are decided by the caller (ui.fit) and drawn exactly, nothing patched afterwards."""
    from selfattn.display.charts import MASKED_GREY, Axis, Layout

    layout = Layout(cell=5, x=Axis(limit=60, angle=-90, values=(0, 3), overlap="greedy"),
                    y=Axis(limit=40, overlap="greedy", room=47, values=(0, 3)), fit_x=True, own_outline=True,
                    font_size="min(11, bandwidth('x'))")
    spec = heatmap(np.zeros((5, 5)), "abcde", "abcde", annotate=True, layout=layout, legend={"orient": "bottom"},
                   usermeta={"width_px": 72})
    to_altair(spec).to_dict()
    assert spec["width"] == spec["height"] == {"step": 5}  # smaller than a notebook heatmap's 8 px least
    x_axis, y_axis = ({k: v for k, v in spec["encoding"][c]["axis"].items() if k != "labelExpr"} for c in "xy")
    assert x_axis == {"orient": "top", "labelAngle": -90, "labelLimit": 60, "labelOverlap": "greedy", "values": [0, 3]}
    assert y_axis == {"labelLimit": 40, "labelOverlap": "greedy", "minExtent": 47, "maxExtent": 47, "values": [0, 3]}
    assert spec["layer"][0]["mark"]["stroke"] == {"expr": f"{MASKED} ? '{MASKED_GREY}' : scale('color', datum.v)"}
    assert spec["layer"][1]["mark"]["fontSize"] == {"expr": "min(11, bandwidth('x'))"}
    assert spec["autosize"] == {"type": "fit-x", "contains": "padding"}
    assert spec["config"] == {"legend": {"orient": "bottom"}} and spec["usermeta"] == {"width_px": 72}


def test_a_notebook_heatmap_has_its_own_layout():
    flat = heatmap(np.ones((2, 2)), "ab", ["k1", "k2"])
    slanted = heatmap(np.ones((2, 30)), "ab", range(30), max_width=120)
    assert flat["encoding"]["x"]["axis"]["labelAngle"] == 0 and flat["width"] == {"step": 46}
    assert slanted["encoding"]["x"]["axis"]["labelAngle"] == -40 and slanted["width"] == {"step": 8}
    assert slanted["layer"][0]["mark"]["stroke"] == "white"
    assert not {"autosize", "config", "usermeta"} & set(flat)  # Vega-Lite's own legend and size


def test_grid_extent_is_the_grids_size():
    from selfattn.display.charts import grid_extent, heatmap_grid

    stack = np.full((5, 3, 3), 1 / 3)
    spec = heatmap_grid(stack, "abc", "abc", list("12345"), columns=2, cell=10, spacing=12.5,
                        legend={"orient": "bottom"}, usermeta={"fit_px": 300})
    assert grid_extent(5, 3, 3, columns=2, cell=10, spacing=12.5) == (2, spec["width"], spec["height"])
    assert spec["config"] == {"view": {"stroke": None}, "legend": {"orient": "bottom"}}
    assert spec["usermeta"] == {"grid": {"columns": 2, "cell": 10, "spacing": 12.5}, "fit_px": 300}


# ── The Playground's linked view ─────────────────────────────────────────────────────────

def linked(n=3, d=2, allowed=None):
    from selfattn.display.charts import LINKED_PANELS, linked_view

    rng = np.random.default_rng(1)
    panels = {name: rng.normal(size=(n, n if name in ("scores", "weights") else d)) for name in LINKED_PANELS}
    panels["weights"] = np.abs(panels["weights"]) / np.abs(panels["weights"]).sum(axis=1, keepdims=True)
    if allowed is not None:
        panels["scores"] = np.where(allowed, panels["scores"], -np.inf)
    cols = {name: [f"c{j}" for j in range(m.shape[1])] for name, m in panels.items()}
    return panels, linked_view(panels, [f"t{i}" for i in range(n)], cols, {name: name for name in panels},
                               allowed=allowed, cell=10, label_px=30, spacing=12)


def test_linked_view_is_one_valid_view_with_a_pointer_selection_on_query_and_key():
    from selfattn.display import colours
    from selfattn.display.charts import LINKED_PANELS, LINKED_ROLES, linked_highlight

    panels, spec = linked()
    to_altair(spec).to_dict()  # raises if Altair's schema rejects the spec
    assert "hconcat" not in spec and "vconcat" not in spec and spec["autosize"]["type"] == "fit-x"
    lit, hit = spec["layer"][len(LINKED_PANELS):len(LINKED_PANELS) + 2]
    param, pick = hit["params"]
    assert param == {"name": "hover", "select": {"type": "point", "fields": ["qi", "kj"], "on": "pointerover",
                                                 "clear": "pointerout"}}  # in the browser: not a selection mode
    assert pick == {"name": "pick", "select": {"type": "point", "fields": ["qi"], "on": "click", "clear": False}}
    assert lit["mark"]["stroke"] == colours.HIGHLIGHT and hit["mark"]["fill"] == colours.HIT_FILL
    assert lit["transform"] == [{"filter": linked_highlight(None)}]  # only the cells that light up are drawn
    assert [s["name"] for s in spec["params"]] == ["hq", "hk"]  # the hovered query and key, from hover
    schemes = [layer["encoding"]["color"]["scale"]["scheme"] for layer in spec["layer"][:len(LINKED_PANELS)]]
    assert schemes == [colours.scheme(LINKED_ROLES[name]) for name in LINKED_PANELS]
    assert spec["resolve"] == {"scale": {"color": "independent"}}


def test_linked_view_cells_are_one_number_each_and_sit_inside_their_panel():
    import json

    from selfattn.display.charts import LINKED_PANELS, linked_extent

    panels, spec = linked(n=4, d=3, allowed=np.tril(np.ones((4, 4), bool)))
    cells = spec["data"]["values"]
    assert all(set(c) == {"v"} for c in cells)  # panel, row, column, labels and tooltips worked out in the browser
    sent = [c["v"] for c in cells]
    expected = [v if np.isfinite(v) else None for name in LINKED_PANELS for v in panels[name].ravel()]
    assert sent == expected  # exact, panel after panel, row after row; a masked score is None (grey)
    meta = spec["usermeta"]["linked"]
    corners, width, height = linked_extent(4, {name: m.shape[1] for name, m in panels.items()}, cell=meta["cell"],
                                           label_px=meta["label_px"], spacing=meta["spacing"])
    assert (width, height) == (spec["width"], spec["height"])
    starts = [int(s) for s in np.cumsum([0] + [panels[name].size for name in LINKED_PANELS])[:-1]]
    assert f"{starts}[datum.m]" in json.dumps(spec["transform"])  # where a cell's panel begins in the list
    for name, (left, top) in corners.items():
        rows, cols = panels[name].shape
        assert 30 <= left and left + cols * 10 <= width and 0 <= top and top + rows * 10 <= height
        assert f"{left}" in json.dumps(spec["transform"]) and f"{top}" in json.dumps(spec["transform"])
    assert "datum.kj <= " in spec["layer"][len(LINKED_PANELS)]["transform"][0]["filter"]  # causal: keys up to i


def test_fit_linked_fits_the_page_at_32_tokens_and_16_dimensions(monkeypatch):
    from selfattn.display import charts
    from ui import fit

    monkeypatch.setattr(fit, "chart_words", lambda: dict(charts.WORDS))  # no Streamlit session here
    panels = {name: np.zeros((32, 32 if name in ("scores", "weights") else 16)) for name in charts.LINKED_PANELS}
    tokens = [f"t{i}" for i in range(32)]
    spec = fit.fit_linked(panels, tokens, {name: [str(j) for j in range(m.shape[1])] for name, m in panels.items()},
                          {name: name for name in panels})
    to_altair({**spec, "data": {"values": spec["data"]["values"][:4]}}).to_dict()
    assert spec["usermeta"]["width_px"] <= spec["usermeta"]["fit_px"] == fit.PAGE_PX
    assert spec["usermeta"]["linked"]["cell"] >= 8  # 32 + 32 + 16 columns in one row of 800 px
