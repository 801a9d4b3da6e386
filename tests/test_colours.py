"""Colours by role: one table (``selfattn.display.colours``) of Vega's own scheme names, read by
every chart, and every page colouring attention weights, signed maps and the rest by their role."""

import ast
import math
import re
from pathlib import Path

import numpy as np
import pytest
from altair.vegalite.v6.schema.core import load_schema

from selfattn.core.heads import MISTAKES
from selfattn.display import charts, colours
from support.apptest import assert_coloured_by_role, heatmap_specs, is_attention, is_signed, open_link, open_page, open_part, scale
from support.source import tree

ROOT = Path(__file__).resolve().parents[1]
VEGA = load_schema()["definitions"]  # Vega-Lite's own lists of colour scheme names, by kind
VEGA_DIVERGING = set(VEGA["Diverging"]["enum"])
VEGA_SCHEMES = {name for ref in VEGA["ColorScheme"]["anyOf"] for name in VEGA[ref["$ref"].split("/")[-1]]["enum"]}


def test_every_role_is_a_vega_scheme_and_signed_maps_diverge():
    assert set(colours.SCHEMES.values()) <= VEGA_SCHEMES, set(colours.SCHEMES.values()) - VEGA_SCHEMES
    assert colours.DIVERGING <= VEGA_DIVERGING, colours.DIVERGING - VEGA_DIVERGING
    assert colours.SCHEMES["signed"] in VEGA_DIVERGING and colours.is_diverging("signed")
    for role in ("weights", "values", "outputs"):  # one hue, darker for more
        assert colours.SCHEMES[role] in VEGA["SequentialSingleHue"]["enum"] and not colours.is_diverging(role)
    assert len(set(colours.SCHEMES.values())) == len(colours.SCHEMES)  # roles told apart


def test_an_unknown_role_is_named_with_the_known_ones():
    with pytest.raises(ValueError, match="'weight' is not one of weights, values, signed, outputs"):
        charts.heatmap(np.eye(2), "ab", "ab", role="weight")


def test_printed_values_are_white_on_the_dark_ends_of_the_scheme():
    row = np.array([[-1.0, 0.0, 1.0]])
    dark = {role: [c["dark"] for c in charts.heatmap(row, ["a"], "xyz", role=role, domain=(-1, 1))["data"]["values"]]
            for role in colours.SCHEMES}
    assert dark["signed"] == [True, False, True]  # diverging: dark at both ends
    assert dark["values"] == dark["weights"] == dark["outputs"] == [False, False, True]


def test_changing_a_roles_scheme_in_the_table_recolours_every_chart_of_that_role(monkeypatch):
    """The change test: the colour of attention weights is one entry of colours.SCHEMES."""
    from ui import map_sizes as fit

    monkeypatch.setitem(colours.SCHEMES, "weights", "oranges")
    monkeypatch.setattr(fit, "chart_words", lambda: dict(charts.WORDS))  # no Streamlit session here
    w = np.full((2, 3, 3), 1 / 3)  # (heads, n, n)
    built = [charts.heatmap(w[0], "abc", "abc", role="weights"), charts.heatmap_grid(w, "abc", "abc", ["1", "2"]),
             fit.fit_heatmap(w[0], "abc", "abc", 400, role="weights"), fit.fit_grid(w, "abc", "abc", ["1", "2"], 400)]
    assert [scale(spec)["scheme"] for spec in built] == ["oranges"] * 4
    assert scale(charts.heatmap(w[0], "abc", "abc"))["scheme"] == colours.SCHEMES["values"]  # the default role


def python_files():
    return sorted([*(ROOT / "selfattn").rglob("*.py"), *(ROOT / "ui").rglob("*.py"), *(ROOT / "pages").rglob("*.py"),
                   ROOT / "app.py"])


def test_no_scheme_or_colour_is_written_outside_the_table():
    """Pages and helpers name a role; only colours.py names Vega schemes and the charts' colours."""
    table = ROOT / "selfattn" / "display" / "colours.py"
    assert table in python_files()
    found = []
    for path in python_files():
        if path == table:
            continue
        for node in ast.walk(tree(path)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if node.value.lower() in VEGA_SCHEMES:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
                if re.search(r"#[0-9a-fA-F]{6}\b", node.value) or node.value in ("white", "black"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
            elif isinstance(node, ast.keyword) and node.arg == "scheme":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: scheme=")
    assert not found, found


# ── The pages ────────────────────────────────────────────────────────────────────────────

def test_playground_colours_by_role():
    """The step maps (drawn without Vega) take their colour stops from the same table, by role."""
    from support.apptest import step_maps

    at = open_page("playground")
    at.toggle(key="pg_causal").set_value(True).run()
    maps = step_maps(at)
    for name, data in maps.items():
        role = {"weights": "weights", "outputs": "outputs"}.get(name, "values")
        assert data["stops"] == list(colours.stops(role)), name
        assert data["masked"] == colours.MASKED_GREY
    assert (maps["weights"]["lo"], maps["weights"]["hi"]) == (0.0, 1.0)  # weights: always 0..1
    finite = [float(c) for row in maps["scaled_scores"]["cells"] for c in row if c != "−∞"]
    assert (maps["scaled_scores"]["lo"], maps["scaled_scores"]["hi"]) == pytest.approx((min(finite), max(finite)), rel=1e-3)


def test_heads_page_colours_by_role():
    at = open_page("heads")
    specs = heatmap_specs(at)  # the comparison part; then the check part (ui/parts.py), every panel open
    at.session_state["hd_open"] = list(MISTAKES)  # a closed panel computes nothing: open them all
    open_part(at, "heads", "check")
    assert not at.exception
    # Attention maps: one head, the grid, mistake 2's right weights (its wrong weights and row sums share
    # their green 0..1 scale without being distributions); signed: mistake 1's difference.
    assert assert_coloured_by_role(specs + heatmap_specs(at)) == (3, 1)


def test_embeddings_page_colours_by_role():
    at = open_page("embeddings")
    # raw weights and cosine (part 1), the head's map and the grid (part 2), the three static maps of "same words,
    # another order" (part 3; MiniLM reads 狗 and 咬 as one [UNK], so it draws no contextual ones)
    specs = heatmap_specs(at)
    for part in ("model", "order"):
        specs += heatmap_specs(open_part(at, "embeddings", part))
    assert assert_coloured_by_role(specs) == (6, 1)
    english = open_link("embeddings", {"part": "order", "oa": "dog bites man", "ob": "man bites dog"})
    assert assert_coloured_by_role(heatmap_specs(english)) == (6, 0)  # six for an English pair


def test_the_step_maps_colour_stops_are_vegas_own():
    """colours.STOPS, used where maps are drawn without Vega, are the stops of Vega's continuous schemes
    as the Vega bundle Streamlit ships defines them (so the Playground's greens are every chart's greens)."""
    import streamlit

    bundles = list((Path(streamlit.__file__).parent / "static").rglob("embed*.js"))
    source = next(b.read_text(encoding="utf-8") for b in bundles if "cfe1f2" in b.read_text(encoding="utf-8"))
    for name in {colours.scheme(role) for role in colours.SCHEMES}:
        vega_name = {"redblue": "redBlue"}.get(name, name)
        found = re.search(vega_name + r":`([0-9a-f]+)`", source)
        assert found, name
        hexes = found.group(1)
        assert list(colours.STOPS[name]) == [f"#{hexes[k:k + 6]}" for k in range(0, len(hexes), 6)], name
    css = (ROOT / "ui" / "components" / "heatmap.css").read_text(encoding="utf-8")
    assert colours.HIGHLIGHT in css  # the outline of linked cells, as the table names it
