"""The Transformer block page's Streamlit helpers: its state, editors, presets, undo and linked maps.

``st.session_state["tb"]`` holds the tables the visitor typed into (:data:`SLOTS`); the settings are the page's
table (:data:`selfattn.block.view.FIELDS`), read with the edits as one frozen :class:`~selfattn.block.view.View`
(:func:`read`). Each editor is the Playground's matrix editor (``ui.components.matrix_editor``), its state checked
(:func:`setup`) before anything reads it.
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
from selfattn.block.view import CELL_CHARS, PRESET_SETTINGS, ROWS_OF, View
from selfattn.display import share
from selfattn.display.charts import masked_weights
from selfattn.display.export import labelled
from selfattn.i18n import t_plain
from ui import state as settings
from ui.components import matrix_editor as editor_component
from ui.editing import Editors, Maps, editor_texts
from selfattn.block.text import flow_steps, norm_lines, similarity_change
from selfattn.display.numbers import step_text
from selfattn.display.export import column_names
from ui.widgets import choice, current_lang, listed, tr, vega
from ui import map_sizes as fit

STATE = "tb"
SLOTS = {
    "edits": "{table id: rows of text}: the tables typed into, as typed (the truth); the others are seeded",
    "version": "the editors' generation: a new one re-creates every editor from the tables",
    "undo": "(edits, settings) before the last preset or size change that replaced typed tables, or None",
    "note_edited": "whether the preset's note, drawn above the fragment, said the tables are edited",
    "scroll": "True when the page should jump to its chosen part (tb_at) once drawn: on opening a link, or a pick",
    "notice": "(kind, catalog key, parameters) a callback leaves for the page to say once",
    "mounted": "{version, table id: rows}: the cells each editor of this version was mounted with",
    "revs": "{editor name: [editor key, revision]} the maps of this run were computed from (heatmap.js)",
}
SIZE_KEYS = ("tb_n", "tb_d", "tb_heads", "tb_dff", "tb_layers", "tb_seed")


def state() -> dict:
    if STATE not in st.session_state:
        st.session_state[STATE] = {"edits": {}, "version": 0, "undo": None, "notice": None}
    return st.session_state[STATE]


def current(**changes) -> View:
    """The view from the settings as they stand and the edits (without reading the editors)."""
    values = {f.key: settings.value(f.key) for f in tbv.FIELDS}
    values.update(changes)
    return tbv.view(values, state()["edits"])


def compute(shown: View) -> ToyResult:
    """:func:`selfattn.block.compute.compute_toy`, once per result per process: a class opening the same link, or
    a visitor going back to a view, computes it once (a View is frozen and hashable; the result is never changed).
    Kept by :func:`selfattn.block.compute.result_view`, in a cache bounded by bytes (``selfattn.memo``)."""
    check_sizes(shown)  # the layer shown must exist, though the result does not depend on it
    return _toy(result_view(shown))


@memo.cached("block.toy")
def _toy(key: View) -> ToyResult:
    return compute_toy(key)


EDITORS = Editors(STATE, "tbed_")  # the editors' protocol, from the kit (ui/editing.py)
MAPS = Maps("tb", "tb_", "block-", "tb_focus", EDITORS)  # the linked maps of the flow: MAPS.show(...)
show_map = MAPS.show


def editor_key(table: str) -> str:
    return EDITORS.key(table)


def shown_tables(shown: View) -> tuple[str, ...]:
    """The editors drawn: X and the tables of the layer shown."""
    layer = min(shown.layer, shown.layers - 1) + 1
    return ("x", *(f"{layer}{part}" for part in tbv.PARTS))


def setup() -> dict:
    """The page's state, each editor's sent table checked before anything reads it (the kit's
    :meth:`ui.editing.Editors.check`)."""
    tb = state()
    shown = current()
    try:
        tables = shown_tables(shown)
    except Exception:  # noqa: BLE001 -- settings were put back by refuse_unfit_settings already
        tables = ("x",)
    EDITORS.check_view(shown, tables, table_label, CELL_CHARS)
    return tb


def open_link(params: dict) -> dict[str, share.BadValue]:
    """Take the tables a link names (its settings were put in by ``links.open_page``)."""
    shown, bad = decode(params)
    state()["edits"] = dict(shown.edits)
    state()["version"] += 1
    for key in ("tb_focus", "tb_layer", "tb_heads"):
        settings.put(key, shown.settings()[key])
    return bad


def table_label(table: str) -> str:
    layer, part = tbv.split_id(table)
    return "X" if table == "x" else t_plain(f"tb.table_{part}", current_lang(), layer=layer + 1)


def take_sent(table: str, shown: View) -> bool:
    """Make the table an editor sent the table typed (the kit's :meth:`ui.editing.Editors.take`)."""
    return EDITORS.take(table, f"tb_{table}", tbv.base_rows(shown, table))


def editor(table: str, shown: View) -> None:
    """One table's editor, with what was typed into it taken first."""
    rows = shown.rows(table)
    layer, part = tbv.split_id(table)
    if table == "x":
        row_names = [f"t{i + 1}" for i in range(len(rows))]
    elif part in ROWS_OF:
        row_names = list(ROWS_OF[part])
    elif part in ("b1", "b2"):
        row_names = [part.replace("b", "b_")]
    else:
        row_names = [str(i + 1) for i in range(len(rows))]
    editor_component.matrix_editor(editor_key(table), name=f"tb_{table}", matrix=table_label(table), rows=row_names,
                                   cols=[str(j + 1) for j in range(len(rows[0]))], cells=EDITORS.mounted(table, rows),
                                   max_chars=[CELL_CHARS] * len(rows[0]), labels=[False] * len(rows[0]), rev=0,
                                   bad=None, texts=editor_texts())


def read() -> View:
    """The page's state as one frozen View: every setting, and every editor's table as typed (each editor of the
    layer shown taken once a run: this is the only place that takes them)."""
    values = {f.key: settings.value(f.key) for f in tbv.FIELDS}
    shown = tbv.view(values, state()["edits"])
    changed = [take_sent(table, shown) for table in shown_tables(shown)]
    return tbv.view(values, state()["edits"]) if any(changed) else shown


# ── Presets, sizes, undo ───────────────────────────────────────────────────────────────────────

def _snapshot() -> tuple[dict, dict]:
    return dict(state()["edits"]), {key: settings.value(key) for key in (*PRESET_SETTINGS["tiny"], "tb_seed", "tb_preset")}


def load_preset(before: str | None = None) -> None:
    """Callback of the preset box and the reload button: the preset's settings, its seeded tables; undoable where
    it replaced tables the visitor typed into (and the Undo note says just that)."""
    tb = state()
    edits, values = _snapshot()
    if before is not None:
        values["tb_preset"] = before
    EDITORS.keep_undo((edits, values) if edits else None)
    name = st.session_state.get("tb_preset", "tiny")
    if name not in PRESET_SETTINGS:  # reloaded while the settings are no preset's: the nearest one
        name = tbv.preset_shown({key: settings.value(key) for key in PRESET_SETTINGS["tiny"]})[1]
    settings.put("tb_preset", name)
    for key, value in PRESET_SETTINGS[name].items():
        settings.put(key, value)
    settings.put("tb_layer", 0)
    settings.put("tb_focus", 0)
    tb["edits"] = {}
    tb["version"] += 1
    EDITORS.say("success", "tb.preset_loaded", name=tr(f"tb.preset_{name}"))


def on_size(key: str) -> None:
    """Callback of a size box or the seed: tables that no longer fit are dropped, and one click undoes it."""
    tb = state()
    shown = current()
    kept, dropped = tbv.fit_edits(shown)
    if shown.layer >= shown.layers:
        settings.put("tb_layer", shown.layers - 1)
    if shown.focus >= shown.n:
        settings.put("tb_focus", 0)
    if key == "tb_heads":
        return
    if dropped:  # typed tables that no longer fit: one click brings them back with the sizes
        EDITORS.keep_undo((dict(tb["edits"]), {k: settings.value(k) for k in (*PRESET_SETTINGS["tiny"], "tb_seed")}))
        tb["edits"] = kept
    tb["version"] += 1


def on_source(_before) -> None:
    """Callback of the source switch: the token written out starts at the first, for a token of a real sentence may
    be past the toy's n (and the link would then name a token the toy does not have), and the other way round."""
    settings.put("tb_focus", 0)


def on_layer() -> None:
    """Callback of the layer box: the other layer's editors mount anew, from the tables as they are."""
    state()["version"] += 1


def undo() -> None:
    """Callback of the Undo button: the typed tables and settings from before the last preset or size change."""
    EDITORS.undo_edits("tb.undone")


def divisors(d: int) -> list[int]:
    return [h for h in range(1, d + 1) if d % h == 0]


# ── Maps ─────────────────────────────────────────────────────────────────────────────────────

PREVIEW_NUMBERS = 20_000  # the most weights of earlier layers the preview's engine carries (else: no preview)


def preview_engine(shown: View, result: ToyResult, eps: float) -> dict | None:
    """What the browser's preview of the layer shown (ui/components/block.js) needs besides the typed tables:
    the settings, the position vectors and the layers before the one shown, as exact numbers, and which editor
    instance holds each table now (an older instance's typed table is not this view's). None when the earlier
    layers are too many numbers to send on every edit: the server's answer alone redraws the maps then."""
    layer = min(shown.layer, len(result.params) - 1)
    before = [{part: matrix.tolist() for part, matrix in tbv.layer_tables(params).items()}
              for params in result.params[:layer]]
    if sum(np.size(m) for params in result.params[:layer] for m in tbv.layer_tables(params).values()) > PREVIEW_NUMBERS:
        return None
    return {"norm_first": shown.norm == "pre", "activation": shown.act, "eps": eps, "causal": bool(shown.causal),
            "heads": shown.heads, "layer": layer, "before": before,
            "pe": None if result.positions is None else result.positions.tolist(),
            "instances": {f"tb_{table}": editor_key(table) for table in shown_tables(shown)}}


def draw_flow(trace, tokens: list[str], focus: int, tables: dict, *, prefix: str, dims: int | None = None,
              engine: dict | None = None) -> None:
    """The block as its flow, every box a map of its numbers, numbered in the order the layer computes them, side
    by side while the window holds them; each box says how it is made from the boxes before (a residual
    connection is the sum of two earlier numbers)."""
    cut = (lambda m: m[:, :dims]) if dims else (lambda m: m)

    def one(title: str, matrix, cols, *, key: str, link: str, caption: str = "", role: str = "values",
            domain=None) -> None:
        with st.container(width=fit.box_width(cut(matrix), tokens, cols[:dims] if dims else cols)):
            tables[f"{prefix}{key}"] = show_map(title, cut(matrix), tokens, cols[:dims] if dims else cols,
                                                key=f"{prefix}{key}", link=link, focus=focus, caption=caption,
                                                role=role, domain=domain, full=matrix, full_cols=cols,
                                                engine=engine if key == "input" else None)

    with st.container(horizontal=True, wrap=True, gap="medium"):
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
                    with st.container(width=fit.box_width(weights, tokens, tokens)):
                        tables[f"{prefix}weights_head{h + 1}"] = show_map(
                            f"{step.number} " + tr("tb.head", h=h + 1), weights, tokens, tokens,
                            key=f"{prefix}att{h + 1}", link=f"att:{h + 1}", focus=focus, role="weights",
                            domain=(0.0, 1.0), caption=caption if h == 0 else "")
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
            st.code("\n".join(norm_lines(norm, focus)), language=None, wrap_lines=True)


def similarity_caption(similarity, *, causal: bool) -> None:
    """The sentence under the similarity chart, following the sign and size of the change (and the mask)."""
    text = tr(f"tb.similarity_{similarity_change(similarity)}", first=step_text(similarity[0]),
              last=step_text(similarity[-1]))
    st.caption(text + (" " + tr("tb.similarity_causal") if causal else ""))


OPTION_LABELS = {"tb_n": "n", "tb_d": "d_model", "tb_heads": "tb.heads", "tb_dff": "d_ff", "tb_layers": "tb.layers",
                 "tb_norm": "tb.norm", "tb_act": "tb.act", "tb_eps": "tb.eps", "tb_causal": "tb.causal",
                 "tb_final": "tb.final", "tb_pos": "tb.pos"}  # a catalog key, or the symbol itself


def follow_preset() -> tuple[str, ...]:
    """Before the preset box is drawn: the box says the preset the settings are, else custom (from the settings
    alone: :func:`selfattn.block.view.preset_shown`). Returns the presets the box offers (custom only while it is
    custom: it cannot be loaded)."""
    shown = tbv.preset_shown({key: settings.value(key) for key in PRESET_SETTINGS["tiny"]})[0]
    settings.put("tb_preset", shown)
    return (*tbv.PRESETS, tbv.CUSTOM) if shown == tbv.CUSTOM else tbv.PRESETS


def preset_note(edited: bool) -> str:
    """The preset's note as the settings stand: what the preset is, or, once a setting differs from every preset's,
    which preset is nearest and what differs from it; and whether tables differ."""
    shown, nearest, changed = tbv.preset_shown({key: settings.value(key) for key in PRESET_SETTINGS["tiny"]})
    if shown == tbv.CUSTOM:
        names = [tr(OPTION_LABELS[k]) if OPTION_LABELS[k].startswith("tb.") else OPTION_LABELS[k] for k in changed]
        note = tr("tb.preset_custom_note", preset=tr(f"tb.preset_{nearest}"), names=listed(names))
    else:
        note = tr(f"tb.preset_{shown}_note")
    return note + (" " + tr("tb.edited") if edited else "")


def contents() -> None:
    """The page's contents: pick a part and the page jumps there; the choice is kept in the link (at=batch), so a
    teacher can send "look at the batch"."""
    def picked(_before) -> None:
        state()["scroll"] = True

    with st.columns([1, 1])[0]:  # half the width: the names are short
        choice(st.selectbox, tr("tb.toc"), tbv.SECTIONS, "tb_at", {s: tr(f"tb.toc_{s}") for s in tbv.SECTIONS},
               on_pick=picked)


JUMP_SCRIPT = """<script>
(() => {
  let tries = 0;
  const go = () => {
    const el = document.getElementById(%s);
    if (el) { el.scrollIntoView({block: "start"}); return; }
    if (++tries < 60) setTimeout(go, 250);
  };
  setTimeout(go, 100);
})();
</script>"""


def jump() -> None:
    """Once the page is drawn: jump to the part picked (or named by the opened link), once."""
    tb = state()
    if not tb.pop("scroll", False):
        return
    import json

    target = settings.value("tb_at")
    st.html(JUMP_SCRIPT % json.dumps(f"tb-{target}"), unsafe_allow_javascript=True)
