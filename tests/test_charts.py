"""Heatmap specs are valid Vega-Lite (checked by Altair's own schema) and carry exact values."""

import numpy as np

from selfattn.charts import heatmap, to_altair


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
