"""Heatmap specs are valid Vega-Lite (checked by Altair's own schema) and carry exact values."""

import numpy as np

from selfattn.display.charts import heatmap, to_altair


def test_heatmap_spec_is_valid_and_exact():
    m = np.array([[0.0633789405, 0.5], [-np.inf, 2.0]])
    spec = heatmap(m, ["早", "上"], ["k1", "k2"], title="w")
    to_altair(spec).to_dict()  # raises if Altair's schema rejects the spec
    cells = spec["data"]["values"]
    assert cells[0]["exact"] == repr(0.0633789405)
    assert cells[2]["v"] is None and cells[2]["shown"] == "−∞"  # masked cell drawn grey
    assert "早" in spec["encoding"]["y"]["axis"]["labelExpr"]


def test_annotation_only_for_small_matrices():
    assert len(heatmap(np.ones((3, 3)), "abc", "abc")["layer"]) == 2
    assert len(heatmap(np.ones((20, 20)), range(20), range(20))["layer"]) == 1


def test_repeated_labels_keep_their_cells_apart():
    spec = heatmap(np.arange(4.0).reshape(2, 2), ["天", "天"], ["天", "天"])
    positions = {(c["r"], c["c"]) for c in spec["data"]["values"]}
    assert positions == {(0, 0), (0, 1), (1, 0), (1, 1)}


def test_masked_scores_are_grey_and_written_as_minus_infinity():
    import numpy as np

    from selfattn.display.charts import MASKED_GREY, MINUS_INFINITY, heatmap

    spec = heatmap(np.array([[1.0, -np.inf], [0.5, 2.0]]), ["a", "b"], ["a", "b"])
    cells = spec["data"]["values"]
    assert [c["masked"] for c in cells] == [False, True, False, False]  # in every row: Arrow keeps the first row's keys
    assert cells[1]["exact"] == MINUS_INFINITY and cells[1]["shown"] == MINUS_INFINITY and cells[1]["v"] is None
    rect = spec["layer"][0]
    assert rect["mark"]["invalid"] is None  # kept, not left out as a white gap
    assert rect["encoding"]["color"]["condition"] == {"test": "datum.masked", "value": MASKED_GREY}


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
    assert spec["layer"][0]["mark"]["stroke"] == {"expr": f"datum.masked ? '{MASKED_GREY}' : scale('color', datum.v)"}
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
