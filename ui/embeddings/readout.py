"""Reading a real model's heads on the Sentence embeddings page: words, rollout, patterns, head view.

The maths is :mod:`selfattn.text.readout`; the charts are :mod:`selfattn.display.charts`. This module draws
them and keeps the choices (tokens or words, which map, which token) in session state through
``ui.state``'s table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from selfattn import memo
from selfattn.core.compare import largest_difference
from selfattn.core.heads import combine_heads
from selfattn.display import charts
from selfattn.display.export import labelled
from selfattn.i18n import one_line
from selfattn.text import models, readout
from selfattn.text.models import ModelRun
from ui import map_sizes as fit
from ui import projector as look
from ui import state as settings
from ui.widgets import arrow_datasets, choice, csv_button, current_lang, tr, vega

UNITS = ("tokens", "words")
VIEWS = ("head", "mean", "max", "rollout")
PATTERN_KEY = "emb_patterns"


def controls() -> tuple[str, str]:
    """The Tokens/Words switch and the choice of map; returns (units, view).

    The map is a selectbox: its four long names would not fit a segmented control at 1024 px (the
    last one hid in a scroller without a scrollbar); a selectbox shows every name whole when opened.
    """
    c1, c2 = st.columns([1, 2])
    with c1:
        units = choice(st.segmented_control, tr("emb.units"), UNITS, "emb_units",
                       {u: tr(f"emb.units_{u}") for u in UNITS}, help=tr("emb.units_help"))
    with c2:
        view = choice(st.selectbox, tr("emb.view"), VIEWS, "emb_view",
                      {v: tr(f"emb.view_{v}") for v in VIEWS}, help=tr("emb.view_help"))
    return units, view


class Units:
    """Tokens or words of one model run: labels, and a way to bring any (…, n, n) map to them."""

    def __init__(self, run: ModelRun, token_labels: list[str], words: bool):
        self.groups = readout.word_groups(run) if words else None
        self.labels = readout.word_labels(run, self.groups) if words else list(token_labels)
        if words:  # the same word twice (the … the) stays two rows: number them as the tokens are
            self.labels = [label if run.special[g[0]] else f"{k}·{one_line(label)}" for k, (label, g) in
                           enumerate(zip(self.labels, self.groups))]

    def __call__(self, weights: np.ndarray) -> np.ndarray:
        return readout.merge_words(weights, self.groups) if self.groups is not None else weights


def view_map(run: ModelRun, view: str, layer: int, head: int) -> tuple[np.ndarray, str]:
    """The (n, n) token map a view shows, and its title.

    Args:
        layer, head: 0-based.
    """
    layer_maps = run.attentions[layer]  # (H, n, n)
    if view in ("mean", "max"):
        return combine_heads(layer_maps, view), tr(f"emb.map_{view}", layer=layer + 1, h=layer_maps.shape[0])
    if view == "rollout":
        return readout.rollout(run.attentions), tr("emb.map_rollout", L=run.attentions.shape[0])
    return layer_maps[head], tr("emb.head_map", layer=layer + 1, head=head + 1)


def view_block(bundle, run: ModelRun, units: Units, view: str, layer: int, head: int, file_name: str, key: str,
               *, beside: bool) -> None:
    """The map a view shows for one sentence, its CSV, and for one head the check against a recomputation.

    Args:
        layer, head: 0-based.
        beside: the check sits beside the map (one sentence); else under it (a pair's half).
    """
    token_map, title = view_map(run, view, layer, head)
    shown_map = units(token_map)  # (m, m) in tokens or words
    map_px, side_px = fit.column_px([3, 2]) if beside else (fit.column_px([1, 1])[0], 0.0)
    chart = fit.fit_heatmap(shown_map, units.labels, units.labels, map_px, domain=(0.0, 1.0), role="weights")
    left, right = fit.row([chart["usermeta"]["width_px"], side_px]) if beside else (st.container(), st.container())
    with left:
        fit.map_header(title, shown_map.shape)
        vega(chart)
        csv_button(lambda: labelled(shown_map, units.labels, units.labels), file_name, key=key)
    if view != "head":  # the mean, max and rollout are computed here from the model's own maps
        return
    trace = models.recompute_head_attention(bundle, run, layer, head)
    diff = largest_difference(trace.weights, run.attentions[layer, head])
    with right:
        st.metric(tr("emb.recomputed"), f"{diff:.1e}", help=tr("emb.recomputed_help"))
        st.caption(tr("emb.recomputed_caption", d=bundle.head_dim))


def pick_head(selection, most: int = 64) -> tuple[int, int] | None:
    """The (layer, head), 1-based, that a click on the pattern grid chose, or None.

    The selection comes from the browser, so anything may be in it (a crafted message can name layer
    1e999 or send 100,000 points): only the first point is read, and only whole numbers 1 .. ``most``.
    """
    try:
        point = selection["selection"]["pick"][0]
        numbers = (point["layer"], point["head"])
    except (KeyError, IndexError, TypeError):
        return None
    if not all(isinstance(n, (int, float)) and not isinstance(n, bool) and 1 <= n <= most and float(n).is_integer()
               for n in numbers):
        return None
    return int(numbers[0]), int(numbers[1])


def _on_pick() -> None:
    """Callback of the pattern grid: the clicked head becomes the page's layer and head."""
    most = min(settings.field(key).codec.hi for key in ("emb_layer", "emb_head"))
    picked = pick_head(st.session_state.get(PATTERN_KEY), most)
    if picked is None:
        return
    for key, value in zip(("emb_layer", "emb_head"), picked):
        settings.put(key, value)


def pattern_names() -> dict[str, str]:
    return {kind: tr(f"emb.pattern_{kind}") for kind in readout.PATTERN_KINDS}


def patterns_table(patterns) -> pd.DataFrame:
    """One row per (layer, head), 1-based: its pattern and the weight on the pattern's target."""
    return pd.DataFrame([{"layer": li + 1, "head": hi + 1, "pattern": p.kind, "mass": p.mass}
                         for li, layer in enumerate(patterns) for hi, p in enumerate(layer)])


@memo.cached("emb.grid_spec", key=lambda key, lang, layer, head, _patterns: (key, lang, layer, head))
def _grid_spec(key: tuple, lang: str, layer: int, head: int, _patterns) -> dict:
    """The pattern grid's spec, once per (model and sentence ``key``, language, selected head)."""
    chart = charts.pattern_grid(_patterns, pattern_names(), layer_title=tr("emb.layer"), head_title=tr("emb.head"),
                                kind_title=tr("emb.pattern_legend"), mass_title=tr("emb.pattern_mass"),
                                selected=(layer, head))
    return _spec(chart)


def pattern_overview(patterns, key: tuple, layer: int, head: int, file_name: str) -> None:
    """The layer × head grid coloured by pattern, with how to read it; a click selects a head.

    Args:
        key: (model, sentence) that ``patterns`` belong to, for the chart's cache.
    """
    st.subheader(tr("emb.patterns_title"))
    st.caption(tr("emb.patterns_help"))
    st.markdown(tr("emb.patterns_read"))  # how to read it first: the picked head's map comes right under the grid
    spec = _grid_spec(key, current_lang(), layer, head, patterns)
    st.vega_lite_chart(arrow_datasets(spec), on_select=_on_pick, selection_mode="pick", key=PATTERN_KEY, width="content")
    csv_button(lambda: patterns_table(patterns).set_index(["layer", "head"]), file_name, key="dl_patterns",
               label=tr("emb.patterns_csv"))


def head_view(weights: np.ndarray, labels: list[str], layer: int, head: int) -> None:
    """bertviz's head view of one (n, n) map; picking a token shows only its lines."""
    st.subheader(tr("emb.headview_title", layer=layer + 1, head=head + 1))
    st.caption(tr("emb.headview_help"))
    options = [0, *range(1, len(labels) + 1)]  # 0: every token; i: the i-th, counted from 1
    picked = choice(st.selectbox, tr("emb.headview_pick"), options, "emb_pick",
                    {0: tr("emb.headview_all"), **{i + 1: label for i, label in enumerate(labels)}})
    st.vega_lite_chart(arrow_datasets(_head_view_spec(np.asarray(weights, dtype=float), tuple(labels),
                                                      picked - 1 if picked else None, current_lang(),
                                                      look.projector_on())), width="content")


@memo.cached("emb.head_view_spec", key=lambda weights, labels, picked, lang, strong: (
    weights.shape, weights.tobytes(), labels, picked, lang, strong))
def _head_view_spec(weights: np.ndarray, labels: tuple[str, ...], picked: int | None, lang: str, strong: bool) -> dict:
    """The head view's spec, once per map, pick, language and projector switch: building it in Altair cost
    about half of a warm open of the page, and every visitor of a link draws the same one."""
    return _spec(charts.head_view(weights, list(labels), picked, from_title=tr("chart.query"), to_title=tr("chart.key"),
                                  weight_title=tr("chart.weight"), strong=strong))


def _spec(chart) -> dict:
    """An Altair chart as its Vega-Lite dict, unvalidated: validating the schema cost more than the
    rest of the page's run (the charts come from tested builders, so nothing is lost)."""
    return chart.to_dict(validate=False)
