"""The Transformer block page's Streamlit helpers: its declaration on the kit, and what is its own (the flow of
linked maps, the LayerNorms written out).

The page is an :class:`ui.editable_page.EditablePage` (:data:`PAGE`): ``st.session_state["tb"]`` holds the tables
the visitor typed into (:data:`SLOTS`); the settings are the page's table (:data:`selfattn.block.view.FIELDS`), read
with the edits as one frozen :class:`~selfattn.block.view.View` (:func:`read`).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import streamlit as st

from selfattn.block import view as tbv
from selfattn.core.heads import merge_heads
from selfattn import memo
from selfattn.block.compute import ToyResult, check_sizes, compute_toy, result_view
from selfattn.block.link import decode
from selfattn.block.view import ROWS_OF, View
from selfattn.display.charts import masked_weights
from selfattn.display.export import labelled
from selfattn.i18n import t_plain
from ui import state as settings
from ui.components.heatmap import map_row
from ui.editable_page import EditablePage
from selfattn.block.text import flow_steps, norm_lines, similarity_change
from selfattn.display.numbers import step_text
from selfattn.display.export import column_names
from ui.widgets import current_lang, tr, vega, worked_lines
from ui import map_sizes as fit


def compute(shown: View) -> ToyResult:
    """:func:`selfattn.block.compute.compute_toy`, once per result per process: a class opening the same link, or
    a visitor going back to a view, computes it once (a View is frozen and hashable; the result is never changed).
    Kept by :func:`selfattn.block.compute.result_view`, in a cache bounded by bytes (``selfattn.memo``)."""
    check_sizes(shown)  # the layer shown must exist, though the result does not depend on it
    return _toy(result_view(shown))


@memo.cached("block.toy")
def _toy(key: View) -> ToyResult:
    return compute_toy(key)


def layer_tables(shown: View) -> tuple[str, ...]:
    """The weights' editors drawn: the tables of the layer shown."""
    layer = min(shown.layer, shown.layers - 1) + 1
    return tuple(f"{layer}{part}" for part in tbv.PARTS)


def table_label(table: str) -> str:
    layer, part = tbv.split_id(table)
    return "X" if table == "x" else t_plain(f"tb.table_{part}", current_lang(), layer=layer + 1)


def row_names(table: str, rows: int) -> list[str]:
    part = tbv.split_id(table)[1]
    if table == "x":
        return [f"t{i + 1}" for i in range(rows)]
    if part in ROWS_OF:
        return list(ROWS_OF[part])
    return [part.replace("b", "b_")] if part in ("b1", "b2") else [str(i + 1) for i in range(rows)]


def within(shown: View) -> None:
    """After a size change: the layer shown, and the token written out, exist."""
    if shown.layer >= shown.layers:
        settings.put("tb_layer", shown.layers - 1)
    if shown.focus >= shown.n:
        settings.put("tb_focus", 0)


OPTION_LABELS = {"tb_n": "n", "tb_d": "d_model", "tb_heads": "tb.heads", "tb_dff": "d_ff", "tb_layers": "tb.layers",
                 "tb_norm": "tb.norm", "tb_act": "tb.act", "tb_eps": "tb.eps", "tb_causal": "tb.causal",
                 "tb_final": "tb.final", "tb_pos": "tb.pos"}  # a catalog key, or the symbol itself


def option_name(key: str) -> str:
    return tr(OPTION_LABELS[key]) if OPTION_LABELS[key].startswith("tb.") else OPTION_LABELS[key]


PREVIEW_NUMBERS = 20_000  # the most weights of earlier layers the preview's engine carries (else: no preview)


def engine(shown: View, result: ToyResult, eps: float, *, typed: bool = True) -> dict | None:
    """What the browser's preview of the layer shown (ui/components/block.js) needs besides the typed tables:
    the settings, the position vectors and the layers before the one shown, as exact numbers; with the weights'
    editors closed (not ``typed``), the layer shown's weights too (``shown``), for X alone is typed then. None when
    the earlier layers are too many numbers to send on every edit: the server's answer alone redraws the maps then."""
    layer = min(shown.layer, len(result.params) - 1)
    sent = [tbv.layer_tables(params) for params in result.params[:layer if typed else layer + 1]]
    if sum(np.size(m) for tables in sent[:layer] for m in tables.values()) > PREVIEW_NUMBERS:
        return None
    layers = [{part: matrix.tolist() for part, matrix in tables.items()} for tables in sent]
    return {"norm_first": shown.norm == "pre", "activation": shown.act, "eps": eps, "causal": bool(shown.causal),
            "heads": shown.heads, "layer": layer, "before": layers[:layer], "shown": None if typed else layers[layer],
            "pe": None if result.positions is None else result.positions.tolist()}


PAGE = EditablePage("tb", tbv.TABLES, decode=decode, inputs=("x",), weights=layer_tables, label=table_label,
                    row_names=row_names, csv_prefix="block-",
                    from_link=("tb_focus", "tb_layer", "tb_heads", "tb_part"),  # tb_part: an old link's at= too
                    on_preset={"tb_layer": 0, "tb_focus": 0}, within=within, option_name=option_name,
                    edited_note="tb.edited", engine=engine)
SLOTS, EDITORS, MAPS = PAGE.slots, PAGE.editors, PAGE.maps
show_map = PAGE.show_map  # no CSV button a map: the part's ZIP holds them all
# the declaration's callbacks and readers, by the names pages/block.py calls them
(state, current, setup, renewed, read, open_link, editor, shown_tables, load_preset, on_size, on_layer, undo, divisors,
 follow_preset, preset_note, preview_engine, weights_panel) = (
    PAGE.state, PAGE.current, PAGE.setup, PAGE.renewed, PAGE.read, PAGE.open_link, PAGE.editor, PAGE.drawn,
    PAGE.load_preset, PAGE.on_size, PAGE.remount, PAGE.undo, PAGE.divisors, PAGE.follow_preset, PAGE.preset_note,
    PAGE.preview_engine, PAGE.weights_panel)


def on_source(_before) -> None:
    """Callback of the source switch: the token written out starts at the first, for a token of a real sentence may
    be past the toy's n (and the link would then name a token the toy does not have), and the other way round."""
    settings.put("tb_focus", 0)


def draw_flow(trace, tokens: list[str], focus: int, tables: dict, *, prefix: str, dims: int | None = None,
              engine: dict | None = None) -> None:
    """The block as its flow, every box a map of its numbers, numbered in the order the layer computes them, side
    by side while the window holds them; each box says how it is made from the boxes before (a residual
    connection is the sum of two earlier numbers)."""
    cut = (lambda m: m[:, :dims]) if dims else (lambda m: m)

    def one(title: str, matrix, cols, *, key: str, link: str, caption: str = "", role: str = "values",
            domain=None) -> None:
        shown_cols = cols[:dims] if dims else cols
        tables[f"{prefix}{key}"] = show_map(title, cut(matrix), tokens, shown_cols, key=f"{prefix}{key}", link=link,
                                            focus=focus, caption=caption, role=role, domain=domain, full=matrix,
                                            full_cols=cols, engine=engine if key == "input" else None, width="fit",
                                            into=row)

    # one element for the whole flow, but a real layer's flow holds its heads' grid, a chart, among the maps
    with map_row(f"maps_tb_{prefix}flow", together=not dims) as row:
        for step in flow_steps(trace, current_lang()):
            title = f"{step.number} {step.title}"
            caption = f"{step.formula} · {step.caption}"
            if step.kind == "qkv":
                for name, per_head in (("q", trace.queries), ("k", trace.keys), ("v", trace.values)):
                    matrix = merge_heads(per_head)  # (n, h·head_dim): head 1's columns first
                    one(f"{step.number} {name.upper()}", matrix, column_names(name, matrix.shape[1]), key=name,
                        link=f"row:{name}", caption=caption if name == "q" else "")
            elif step.kind == "heads" and dims:  # a real model's 12 heads: one grid of small maps, not 12 tables
                with st.container(width="content"):
                    fit.map_header(title, trace.weights.shape)
                    st.caption(caption)
                    vega(fit.fit_grid(trace.weights, tokens, tokens,
                                      [tr("tb.head", h=h + 1) for h in range(len(trace.weights))], fit.PAGE_PX))
                for h, weights in enumerate(trace.weights):  # each head's CSV in the ZIP
                    tables[f"{prefix}weights_head{h + 1}"] = partial(labelled, weights, list(tokens), list(tokens))
            elif step.kind == "heads":  # under a causal or padding mask, the cells it forbids drawn as masked
                for h, weights in enumerate(masked_weights(trace.weights, trace.allowed)):
                    tables[f"{prefix}weights_head{h + 1}"] = show_map(
                        f"{step.number} " + t_plain("tb.head", current_lang(), h=h + 1), weights, tokens, tokens,
                        key=f"{prefix}att{h + 1}", link=f"att:{h + 1}", focus=focus, role="weights",
                        domain=(0.0, 1.0), caption=caption if h == 0 else "", width="fit", into=row)
            else:
                one(title, step.matrix, column_names(step.column_prefix, step.matrix.shape[1]), key=step.key,
                    link=f"row:{step.key}", caption=caption, role=step.role)


def draw_norms(trace, tokens: list[str], focus: int) -> None:
    """Both LayerNorms written out for the focus token, as the Playground writes out steps 4-7."""
    st.subheader(tr("tb.norm_title", token=tokens[focus]), anchor="tb-norm")
    st.caption(tr("tb.norm_help"))
    order = "pre" if trace.norm_first else "post"
    for number, norm in ((1, trace.norm1), (2, trace.norm2)):
        with st.container(border=True):
            st.markdown(tr("tb.norm_which", k=number, where=tr(f"tb.norm_where_{order}{number}")))
            worked_lines(norm_lines(norm, focus))


def similarity_caption(similarity, *, causal: bool) -> None:
    """The sentence under the similarity chart, following the sign and size of the change (and the mask)."""
    text = tr(f"tb.similarity_{similarity_change(similarity)}", first=step_text(similarity[0]),
              last=step_text(similarity[-1]))
    st.caption(text + (" " + tr("tb.similarity_causal") if causal else ""))
