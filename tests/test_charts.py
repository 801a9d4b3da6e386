"""Heatmap specs are valid Vega-Lite (checked by Altair's own schema) and carry exact values."""

import numpy as np

from selfattn.display.charts import EXACT, MASKED, check_vega_lite, heatmap, to_altair


def test_heatmap_spec_is_valid_and_exact():
    m = np.array([[0.0633789405, 0.5], [-np.inf, 2.0]])
    spec = heatmap(m, ["早", "上"], ["k1", "k2"], title="w")
    check_vega_lite(spec)  # raises if Altair's schema rejects the spec
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
    check_vega_lite(spec)
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
    """Pixels and labels are decided by the caller (ui.map_sizes) and drawn exactly, nothing patched afterwards."""
    from selfattn.display.charts import MASKED_GREY, Axis, Layout

    layout = Layout(cell=5, x=Axis(limit=60, angle=-90, values=(0, 3), overlap="greedy"),
                    y=Axis(limit=40, overlap="greedy", room=47, values=(0, 3)), fit_x=True, own_outline=True,
                    font_size="min(11, bandwidth('x'))")
    spec = heatmap(np.zeros((5, 5)), "abcde", "abcde", annotate=True, layout=layout, legend={"orient": "bottom"},
                   usermeta={"width_px": 72})
    check_vega_lite(spec)
    assert spec["width"] == spec["height"] == {"step": 5}  # smaller than a notebook heatmap's 8 px least
    x_axis, y_axis = ({k: v for k, v in spec["encoding"][c]["axis"].items() if k != "labelExpr"} for c in "xy")
    fonts = {"labelFontSize": 12, "titleFontSize": 12}  # readable from the back of a room
    assert x_axis == {"orient": "top", "labelAngle": -90, "labelLimit": 60, "labelOverlap": "greedy", "values": [0, 3],
                      **fonts}
    assert y_axis == {"labelLimit": 40, "labelOverlap": "greedy", "minExtent": 47, "maxExtent": 47, "values": [0, 3],
                      **fonts}
    assert spec["layer"][0]["mark"]["stroke"] == {"expr": f"{MASKED} ? '{MASKED_GREY}' : scale('color', datum.v)"}
    assert spec["layer"][1]["mark"]["fontSize"] == {"expr": "min(11, bandwidth('x'))"}
    assert spec["autosize"] == {"type": "fit-x", "contains": "padding"}
    assert spec["config"] == {"legend": {"orient": "bottom", **fonts}} and spec["usermeta"] == {"width_px": 72}


def test_a_notebook_heatmap_has_its_own_layout():
    flat = heatmap(np.ones((2, 2)), "ab", ["k1", "k2"])
    slanted = heatmap(np.ones((2, 30)), "ab", range(30), max_width=120)
    assert flat["encoding"]["x"]["axis"]["labelAngle"] == 0 and flat["width"] == {"step": 46}
    assert slanted["encoding"]["x"]["axis"]["labelAngle"] == -40 and slanted["width"] == {"step": 8}
    assert slanted["layer"][0]["mark"]["stroke"] == "white"
    assert not {"autosize", "usermeta"} & set(flat)  # Vega-Lite's own legend and size, our font sizes
    assert flat["config"] == {"legend": {"labelFontSize": 12, "titleFontSize": 12}}


def test_grid_extent_is_the_grids_size():
    from selfattn.display.charts import grid_extent, heatmap_grid

    stack = np.full((5, 3, 3), 1 / 3)
    spec = heatmap_grid(stack, "abc", "abc", list("12345"), columns=2, cell=10, spacing=12.5,
                        legend={"orient": "bottom"}, usermeta={"fit_px": 300})
    assert grid_extent(5, 3, 3, columns=2, cell=10, spacing=12.5) == (2, spec["width"], spec["height"])
    fonts = {"labelFontSize": 12, "titleFontSize": 12}
    assert spec["config"] == {"view": {"stroke": None}, "axis": fonts, "legend": {"orient": "bottom", **fonts}}
    assert spec["usermeta"] == {"grid": {"columns": 2, "cell": 10, "spacing": 12.5}, "fit_px": 300}


def test_the_matrix_editors_code_travels_without_its_comments():
    """Streamlit sends a component's JS and CSS with every element it draws: comments stay in the files."""
    from ui.components.matrix_editor import HERE, compact_css, compact_js

    sample = "// a comment\nconst a = 1; // why\n\n  if (a) {\n    f(\"x // y\");\n  }\n"
    assert compact_js(sample) == 'const a = 1;\nif (a) {\nf("x // y");\n}'  # a "//" inside code stays
    assert compact_css("/* what\n it is */\n.a {\n  color: red; /* why */\n}\n") == ".a {\ncolor: red;\n}"
    js = (HERE / "matrix_editor.js").read_text(encoding="utf-8")
    code = compact_js(js)
    assert len(code) < 0.8 * len(js) and "//" not in code.replace("https://", "")


def test_a_head_grid_labels_every_token_of_every_panel():
    """Rows are labelled left of each line of panels (they share their queries), columns under the lowest
    panel of each column of panels (they share their keys); every label inside the chart."""
    from selfattn.display.charts import GRID_TITLE_PX, GridLabels, grid_extent, heatmap_grid

    tokens = ["the", "cat", "sat"]
    stack = np.full((5, 3, 3), 1 / 3)
    labels = GridLabels(left=30, below=28, font=11)
    spec = heatmap_grid(stack, tokens, tokens, list("12345"), columns=2, cell=10, spacing=12, labels=labels)
    check_vega_lite(spec)
    assert grid_extent(5, 3, 3, columns=2, cell=10, spacing=12, left=30, below=28) == (2, spec["width"],
                                                                                       spec["height"])
    rows, cols = ({(t["t"], t["x"], t["y"]) for t in layer["data"]["values"]} for layer in spec["layer"][2:])
    pitch_y = GRID_TITLE_PX + 30 + 12
    assert rows == {(tok, 26, g * pitch_y + GRID_TITLE_PX + (i + 0.5) * 10)
                    for g in range(3) for i, tok in enumerate(tokens)}  # three lines of panels
    # Panel 5 is the lowest of the first column, panel 4 of the second (the third line holds one panel).
    lowest = {0: 2, 1: 1}
    assert cols == {(tok, 30 + j0 * 42 + (j + 0.5) * 10, lowest[j0] * pitch_y + GRID_TITLE_PX + 30 + 4)
                    for j0 in (0, 1) for j, tok in enumerate(tokens)}
    assert all(0 < x < spec["width"] and 0 < y < spec["height"] for _, x, y in rows | cols)
    marks = [layer["mark"] for layer in spec["layer"][2:]]
    assert [m["fontSize"] for m in marks] == [11, 11] and marks[1]["angle"] == 270
    cells = spec["data"]["values"]
    assert min(c["x"] for c in cells) == 30  # the panels start right of the row labels


def test_a_benchmark_chart_draws_memory_in_mib_with_mib_and_gib_ticks_and_one_hue_a_line():
    from pathlib import Path

    from selfattn import bench
    from selfattn.display import colours
    from selfattn.display.charts import MEMORY_AXIS, benchmark_chart, memory_ticks

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "gpu-nvidia-h100-80gb-bf16.json"
    records = bench.load_results(path.read_bytes(), path.name)
    spec = benchmark_chart(records, y="peak_mem_bytes", impls=bench.IMPLS)
    check_vega_lite(spec)  # valid Vega-Lite
    lines, points = spec["layer"]
    rows = spec["datasets"][spec["data"]["name"]]
    assert sorted(r["y"] for r in rows) == sorted(r["peak_mem_bytes"] / 2**20 for r in records)  # MiB
    assert {r["peak_mem"] for r in rows} >= {"16.6 GiB", "640 MiB", "80 MiB"}  # the tooltip's words
    axis = lines["encoding"]["y"]["axis"]
    assert axis["labelExpr"] == MEMORY_AXIS and axis["values"] == [256, 1024, 4096, 16384]  # 256 MiB ... 16 GiB
    series = lines["encoding"]["color"]["scale"]["domain"]
    assert series == [f"{i} · h={h}" for i in bench.IMPLS for h in (1, 16)]  # the page's order, not alphabetical
    assert lines["encoding"]["color"]["scale"]["scheme"] == colours.SERIES
    assert lines["encoding"]["strokeDash"]["scale"]["range"] == [list(colours.DASHES[k]) for _ in bench.IMPLS
                                                                 for k in (0, 1)]  # 1 head solid, 16 dashed
    assert memory_ticks([2.5, 272]) == [4, 16, 64, 256] and memory_ticks([2.5, 3]) == [2.5, 3]
    time = benchmark_chart(records, impls=bench.IMPLS)
    check_vega_lite(time)
    assert "labelExpr" not in time["layer"][0]["encoding"]["y"]["axis"]
    assert sorted(r["y"] for r in time["datasets"]["bench"]) == sorted(r["median_ms"] for r in records)
    assert points["encoding"]["color"]["legend"] is None and lines["encoding"]["color"]["legend"]["labelFontSize"] >= 12


def test_a_charts_records_go_to_streamlit_as_arrow_bytes_holding_the_same_rows():
    import pyarrow as pa

    from ui.widgets import arrow_datasets

    rows = [{"query": "早", "key": "上", "weight": 0.25, "head": 1}, {"query": "a", "key": "b", "weight": 1.0, "head": 2}]
    spec = {"mark": "rect", "data": {"values": rows}, "datasets": {"other": rows[:1]}}
    sent = arrow_datasets(spec)
    assert spec["data"] == {"values": rows} and spec["datasets"] == {"other": rows[:1]}  # the (cached) spec untouched
    assert sent["data"] == {"name": "selfattn_values"} and sent["mark"] == "rect"
    read = {name: pa.ipc.open_stream(blob).read_all().to_pylist() for name, blob in sent["datasets"].items()}
    assert read == {"selfattn_values": rows, "other": rows[:1]}
    assert arrow_datasets({"mark": "rect"}) == {"mark": "rect"}
    # written with pyarrow's own stream writer, byte for byte what Streamlit's private converter writes (the browser
    # reads them the same), so no private name of Streamlit is needed for it
    from streamlit.dataframe_util import convert_arrow_table_to_arrow_bytes

    assert sent["datasets"]["other"] == convert_arrow_table_to_arrow_bytes(pa.Table.from_pylist(rows[:1]))


def test_the_schema_check_rejects_what_vega_lite_would_not_draw():
    """check_vega_lite is the check the tests above lean on: a mark Vega-Lite does not know, or a field of the wrong
    type, is an error, as Altair's ``from_dict`` made it."""
    import jsonschema
    import pytest

    spec = heatmap(np.ones((2, 2)), "ab", "ab")
    check_vega_lite(spec)
    assert len(to_altair(spec).to_dict()["layer"]) == len(spec["layer"])  # the notebooks' Altair chart of it
    for broken in ({**spec, "layer": [{**spec["layer"][0], "mark": {"type": "rectangle"}}]},
                   {**spec, "width": "wide"}, {**spec, "autosize": {"type": "stretch"}}):
        with pytest.raises(jsonschema.ValidationError):
            check_vega_lite(broken)


def test_a_maps_width_from_its_written_cells_is_the_width_from_its_numbers():
    """Maps.show sizes a block map's box from the cells as its data writes them (width="fit") instead of writing every
    cell again: the same pixels as from the numbers, for any shape, masked scores and numbers of any size."""
    from selfattn.display.numbers import map_text
    from ui import map_sizes as fit

    rng = np.random.default_rng(0)
    for k in range(200):
        shape = (int(rng.integers(0, 9)), int(rng.integers(0, 40)))
        values = rng.normal(size=shape) * 10.0 ** rng.integers(-5, 6, size=shape)
        if k % 7 == 0 and values.size:
            values.flat[0] = -np.inf
        rows, cols = [f"t{i}" * (1 + i % 3) for i in range(shape[0])], [f"col{j}" for j in range(shape[1])]
        cells = [[map_text(float(v)) for v in row] for row in values]
        assert fit.map_px(values, rows, cols, cells=cells) == fit.map_px(values, rows, cols), shape
        assert fit.box_width(values, rows, cols, cells=cells) == fit.box_width(values, rows, cols), shape
    assert fit.box_width(np.zeros((4, 40)), list("abcd"), [f"c{j}" for j in range(40)]) == "stretch"
