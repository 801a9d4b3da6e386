"""Colours of the charts, by role: what a map shows decides its colour, here and nowhere else.

Chart builders and pages name a role (``role="weights"``), never a Vega scheme, so attention
weights are the same green on every page and changing a role's colour app-wide is one line in
:data:`SCHEMES`. Scheme names are Vega's (https://vega.github.io/vega/docs/schemes/).
"""

from __future__ import annotations

import numpy as np

SCHEMES = {  # role -> Vega colour scheme of a heatmap
    "weights": "greens",  # attention weights, 0..1 (rows sum to 1)
    "values": "blues",  # any real numbers: X, Q/K/V, scores, a weight matrix such as W_o
    "signed": "redblue",  # around 0, e.g. cosine similarity or a difference (diverging)
    "outputs": "purples",  # outputs of attention, told apart from the inputs
}
# Schemes that run from one colour through a light middle to another: dark at both ends.
DIVERGING = frozenset({"redblue", "blueorange", "purpleorange", "redyellowblue", "spectral", "pinkyellowgreen"})

MASKED_GREY = "#d9d9d9"  # a masked (−∞) cell
# One colour per head pattern, from Okabe & Ito's colour-blind-safe set, with no green beside the red: under
# simulated protanopia, deuteranopia and tritanopia every two stay apart (tests/test_readout_colours.py).
PATTERN_COLOURS = {"previous": "#0072B2", "next": "#56B4E9", "self": "#CC79A7", "first": "#E69F00",
                   "last": "#D55E00", "broad": "#F0E442", "mixed": "#BBBBBB"}
LINE = "#1f77b4"  # the head view's lines, every token's
PICKED = "#d62728"  # the head view's picked token and its lines
TEXT = "#262730"  # token names, as Streamlit's body text
CELL_EDGE = "white"  # the thin outline between heatmap cells
CHOSEN, OTHER = "#c2410c", "#94a3b8"  # the translator's greedy next word and the other words; its checkpoint's rule
HIGHLIGHT = "#ff7f0e"  # the outline of the cells that light up together in the Playground's maps (heatmap.css)
INK_ON_DARK, INK = "white", "black"  # values printed in a dark cell, and in any other
# The Efficient attention page's grids: a tile's outline, the current tile, a skipped tile, cells the mask leaves out,
# a head that read the wrong keys and one that read the right ones, and a cell off the grid's line
TILE_EDGE, TILE_LIT, TILE_SKIPPED, MASK_OFF = "#111111", HIGHLIGHT, "#888888", "#bbbbbb"
WRONG_HEAD, RIGHT_HEAD, FADED = PICKED, LINE, "#dddddd"
SERIES = "tableau10"  # the lines of a benchmark chart: a categorical scheme, one distinct hue a line (six at most)
DASHES = ([1, 0], [7, 4], [2, 3])  # the same lines' strokes, by head count: solid, dashed, dotted


def role_scale(role: str, **more) -> dict:
    """A Vega-Lite colour scale of ``role``'s scheme, with ``more`` (domain, reverse, …)."""
    return {"scheme": scheme(role), **more}


def series_scale(domain) -> dict:
    """The Vega-Lite colour scale of a benchmark chart's lines, ``domain`` their names in order."""
    return {"scheme": SERIES, "domain": list(domain)}


# Each scheme as Vega's own colour stops, low to high: the Playground's step maps are drawn without
# Vega and interpolate between them in RGB, as Vega's continuous schemes do, so a green there is
# the green of every Vega chart (tests/test_colours.py reads them from Streamlit's Vega bundle).
STOPS = {
    "blues": ("#cfe1f2", "#bed8ec", "#a8cee5", "#8fc1de", "#74b2d7", "#5ba3cf", "#4592c6", "#3181bd", "#206fb2", "#125ca4", "#0a4a90"),
    "greens": ("#d3eecd", "#c0e6ba", "#abdda5", "#94d391", "#7bc77d", "#60ba6c", "#46ab5e", "#329a51", "#208943", "#0e7735", "#036429"),
    "purples": ("#e2e1ef", "#d4d4e8", "#c4c5e0", "#b4b3d6", "#a3a0cc", "#928ec3", "#827cb9", "#7566ae", "#684ea2", "#5c3696", "#501f8c"),
    "redblue": ("#8c0d25", "#bf363a", "#df745e", "#f4ae91", "#fbdbc9", "#f2efee", "#d2e5ef", "#9dcae1", "#5da2cb", "#2f78b3", "#134b85"),
}


def stops(role: str) -> tuple[str, ...]:
    """The colour stops of ``role``'s scheme, low to high (see :data:`STOPS`)."""
    return STOPS[scheme(role)]


def scheme(role: str) -> str:
    """The Vega scheme of ``role`` (a key of :data:`SCHEMES`).

    Raises:
        ValueError: ``role`` is not one of :data:`SCHEMES`.
    """
    try:
        return SCHEMES[role]
    except KeyError:
        raise ValueError(f"Colour role {role!r} is not one of {', '.join(SCHEMES)}") from None


def is_diverging(role: str) -> bool:
    """Whether the scheme of ``role`` is dark at both ends (values far from the middle, either way)."""
    return scheme(role) in DIVERGING


def finite_extent(values) -> tuple[float, float]:
    """(lowest, highest) finite value, the ends of a colour scale that follows the numbers; (0, 0) when none is
    finite (every cell masked)."""
    array = np.asarray(values, dtype=float)
    finite = array[np.isfinite(array)]
    return (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
