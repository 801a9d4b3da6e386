"""The Efficient attention page's charts as Vega-Lite dicts (selfattn/efficient/charts.py): valid by Vega-Lite's
schema as Altair holds it, and drawing exactly the numbers, tiles, mask and reach they are given, and the curves the
numbers measured."""

from __future__ import annotations

import random

import altair as alt
import numpy as np
import pytest

from selfattn.display import colours
from selfattn.display.numbers import chart_text
from selfattn.efficient import charts

WORDS = {"key": "key", "query": "query", "score": "score", "cell": "cell", "tile": "tile", "seen": "seen",
         "masked": "masked"}


def a_case(seed: int) -> dict:
    rng = random.Random(seed)
    n_q, n_k = rng.randint(1, 20), rng.randint(1, 20)
    numbers = np.random.default_rng(seed)
    scores = numbers.normal(size=(n_q, n_k)) * rng.choice([0.01, 1, 300])
    scores[numbers.random((n_q, n_k)) < 0.2] = -np.inf  # masked
    if seed % 5 == 0:
        scores[:] = -np.inf  # nothing to read: the colours' domain falls back to ±1
    bq, bk = rng.randint(1, 5), rng.randint(1, 5)
    tiles = [(qb, kb, qb * bq, min(n_q, qb * bq + bq), kb * bk, min(n_k, kb * bk + bk))
             for qb in range(-(-n_q // bq)) for kb in range(-(-n_k // bk))]
    return {"scores": scores, "done": numbers.random((n_q, n_k)) < 0.5, "tiles": tiles,
            "current": rng.choice([None, tiles[-1][:2]]), "skipped": {tiles[0][:2]} if rng.random() < 0.5 else set()}


@pytest.mark.parametrize("seed", range(12))
def test_the_tiles_grid_is_valid_vega_lite_and_draws_every_score_tile_and_step(seed):
    case = a_case(seed)
    scores, done = case["scores"], case["done"]
    spec = charts.tiles_chart(scores, done, case["tiles"], case["current"], case["skipped"], WORDS)
    alt.TopLevelLayerSpec.validate(spec)  # raises if the schema rejects it
    n_q, n_k = scores.shape
    heat, *rest = spec["layer"]
    cells = {(c["r"], c["c"]): c for c in heat["data"]["values"]}
    assert len(cells) == n_q * n_k
    for (i, j), c in cells.items():
        finite = bool(np.isfinite(scores[i, j]))
        assert c["v"] == (float(scores[i, j]) if finite else None) and c["text"] == chart_text(float(scores[i, j]))
        assert c["done"] == bool(done[i, j]) and (c["r1"], c["c1"]) == (i + 1, j + 1)
    finite = scores[np.isfinite(scores)]
    top = float(np.abs(finite).max()) if finite.size else 1.0
    colour = heat["encoding"]["color"]
    assert colour["condition"]["scale"]["domain"] == [-top, top] and colour["value"] == colours.MASK_OFF
    assert (len(rest) == 3) == (max(n_q, n_k) <= charts.NUMBERS_UP_TO)  # the numbers written in while they fit
    frames = rest[-1]["data"]["values"]
    assert [(f["qb"], f["kb"], f["r0"], f["r1"], f["c0"], f["c1"]) for f in frames] == case["tiles"]
    assert [f["lit"] for f in frames] == [(f["qb"], f["kb"]) == case["current"] for f in frames]
    assert {(f["qb"], f["kb"]) for f in frames if f["skipped"]} == case["skipped"]
    assert spec["height"] == charts._cell_px(max(n_q, n_k)) * n_q and spec["width"] == "container"


@pytest.mark.parametrize("seed", range(6))
def test_the_mask_grid_is_valid_vega_lite_and_marks_each_cell_as_its_mask_says(seed):
    keep = np.random.default_rng(seed).random((seed + 1, 2 * seed + 3)) < 0.5
    spec = charts.mask_chart(keep, WORDS)
    alt.TopLevelUnitSpec.validate(spec)
    seen = {(c["r"], c["c"]): c["seen"] for c in spec["data"]["values"]}
    assert seen == {(i, j): WORDS["seen"] if keep[i, j] else WORDS["masked"]
                    for i in range(keep.shape[0]) for j in range(keep.shape[1])}


@pytest.mark.parametrize("seed", range(6))
def test_the_reach_grid_is_valid_vega_lite_and_marks_each_position_each_layer_count_reaches(seed):
    reach = np.random.default_rng(seed).random((seed + 2, 3 * seed + 1)) < 0.5
    words = {**WORDS, "reached": "reached", "unreached": "not yet", "position": "position", "layers": "layers"}
    spec = charts.reach_chart(reach, words)
    alt.TopLevelUnitSpec.validate(spec)
    seen = {(c["l"], c["c"]): c["seen"] for c in spec["data"]["values"]}
    assert seen == {(layer, j): "reached" if reach[layer, j] else "not yet"
                    for layer in range(reach.shape[0]) for j in range(reach.shape[1])}
    assert spec["height"] == charts._cell_px(max(reach.shape)) * reach.shape[0]


def test_every_other_chart_is_valid_vega_lite_and_draws_the_numbers_it_is_given():
    """The curves and the heads' diagram: each valid by the schema, each point the number given (no rounding)."""
    words = {"n": "n", "moved": "moved", "q_head": "query head", "kv_head": "KV head", "g": "g", "kib": "KiB",
             "before": "before", "after": "after", "first": "x1", "second": "x2"}
    rows = [{"n": 2 ** k, "standard": 3 ** k + 0.5, "tiled": 2 ** k} for k in range(1, 6)]
    traffic = charts.traffic_chart(rows, {"standard": "standard", "tiled": "tiled"}, words)
    alt.TopLevelUnitSpec.validate(traffic)
    assert [(v["n"], v["algorithm"], v["moved"]) for v in traffic["data"]["values"]] == [
        (r["n"], name, r[name]) for r in rows for name in ("standard", "tiled")]
    heads = charts.heads_chart((0, 0, 1, 1), 2, (3,), words)
    alt.TopLevelLayerSpec.validate(heads)
    links = heads["layer"][0]["data"]["values"]
    assert [(v["x2"], v["wrong"]) for v in links] == [(0.25, False), (0.25, False), (0.75, False), (0.75, True)]
    curve = [{"model": m, "g": g, "bytes": 1024 * g * k, "real": g == 4} for k, m in ((1, "a"), (3, "b"))
             for g in (1, 2, 4, 8)]
    kv = charts.kv_cache_chart(curve, words)
    alt.TopLevelLayerSpec.validate(kv)
    assert [v["kib"] for v in kv["data"]["values"]] == [row["bytes"] / 1024 for row in curve]
    rotation = charts.rotation_chart((0.6, -0.8), (1.0, 0.0), words)
    alt.TopLevelLayerSpec.validate(rotation)
    assert [(v["x"], v["y"]) for v in rotation["data"]["values"]] == [(0.6, -0.8), (1.0, 0.0)]
    assert rotation["layer"][0]["encoding"]["x"]["scale"]["domain"] == [-1.25, 1.25]
    timing = [{"n": 2 ** k, "sdpa_ms": 0.1 * k, "materialised_ms": 0.3 * k, "sdpa_peak_bytes": 2 ** (20 + k),
               "materialised_peak_bytes": 2 ** (21 + k)} for k in range(1, 5)]
    for field, want in (("ms", [0.1, 0.3]), ("mib", [2.0, 4.0])):
        spec = charts.timing_chart(timing, field, {"sdpa": "SDPA", "materialised": "materialised"}, "t", words)
        alt.TopLevelUnitSpec.validate(spec)
        assert [v["value"] for v in spec["data"]["values"][:2]] == pytest.approx(want)
