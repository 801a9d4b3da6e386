"""The head-pattern colours stay apart for colour-blind readers, and the readout charts are big enough to read.

Colour vision deficiency is simulated with the matrices of Machado, Oliveira & Fernandes (2009, severity
1.0) on linear sRGB; distances are CIE76 ΔE in CIELAB (D65). A ΔE of about 10 is clearly visible side by side.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from selfattn.display import charts, colours
from selfattn.text import readout

SIMULATIONS = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
    "typical": np.eye(3).tolist(),
}
SRGB_TO_XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
WHITE = np.array([0.95047, 1.0, 1.08883])


def linear_rgb(hex_colour: str) -> np.ndarray:
    c = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255  # (3,)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def lab(rgb: np.ndarray) -> np.ndarray:
    xyz = SRGB_TO_XYZ @ np.clip(rgb, 0, 1) / WHITE
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


@pytest.mark.parametrize("vision", list(SIMULATIONS))
def test_every_two_pattern_colours_stay_apart(vision):
    matrix = np.array(SIMULATIONS[vision])
    seen = {kind: lab(matrix @ linear_rgb(hex_colour)) for kind, hex_colour in colours.PATTERN_COLOURS.items()}
    assert set(seen) == set(readout.PATTERN_KINDS)
    closest = min((float(np.linalg.norm(seen[a] - seen[b])), a, b) for a, b in itertools.combinations(seen, 2))
    assert closest[0] >= 14, closest  # the old palette fell to 4.6 ([SEP] vs broad) under protanopia, 7.3 deuteranopia


def test_no_red_beside_green():
    """No pattern colour is a green (CIELAB hue 115-170°) while another is a red (hue under 45° or over 350°)."""
    hues = {kind: np.degrees(np.arctan2(*lab(linear_rgb(c))[[2, 1]])) % 360 for kind, c in colours.PATTERN_COLOURS.items()
            if np.hypot(*lab(linear_rgb(c))[1:]) > 20}  # chromatic colours only (grey has no hue)
    greens = [k for k, h in hues.items() if 115 <= h <= 170]  # the old #2ca02c: 138°; yellow #F0E442: 100°
    reds = [k for k, h in hues.items() if h < 45 or h > 350]  # the old #d62728: 34°; reddish purple #CC79A7: 345°
    assert not (greens and reds), (greens, reds)


def pattern_spec() -> dict:
    patterns = [[readout.HeadPattern(kind, 0.6) for kind in readout.PATTERN_KINDS] for _ in range(2)]
    return charts.pattern_grid(patterns, {k: k for k in readout.PATTERN_KINDS}, selected=(1, 2)).to_dict()


def test_pattern_legend_swatches_have_no_outline_and_only_the_chosen_head_is_framed():
    spec = pattern_spec()
    cells, chosen = spec["layer"]
    legend = cells["encoding"]["color"]["legend"]
    assert legend["symbolStrokeWidth"] == 0 and legend["labelFontSize"] >= 12
    assert cells["mark"]["stroke"] == colours.CELL_EDGE  # white seams, not black squares
    assert chosen["mark"]["filled"] is False and chosen["mark"]["strokeWidth"] == 3
    assert chosen["transform"] == [{"filter": "datum.chosen"}]
    data = spec["datasets"][spec["data"]["name"]] if "datasets" in spec else spec["data"]["values"]
    assert [(r["layer"], r["head"]) for r in data if r["chosen"]] == [(2, 3)]


def test_head_view_labels_are_readable_from_the_back_of_a_room():
    spec = charts.head_view(np.full((5, 5), 0.2), [f"t{i}" for i in range(5)]).to_dict()
    sizes = [layer["mark"].get("fontSize") for layer in spec["layer"] if layer["mark"]["type"] == "text"]
    assert sizes and min(sizes) >= 12
    assert spec["height"] >= 5 * 24  # a row per token at least twice the label's height (was 18 px)
