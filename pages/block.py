"""Transformer block: attention, W_o, Add & Norm and the feed-forward network, editable, stacked, padded and
checked against PyTorch (a toy) or recomputed from a real model's weights."""

from functools import partial

import streamlit as st

from selfattn.block import view as tbv
from selfattn.block.link import LINK_PARAMS, TABLE_PARAMS, encode
from selfattn.block.text import batch_lines, formulas, settings_text, similarity_spec
from selfattn.core.block import ACTIVATIONS
from selfattn.core.heads import combine_heads
from selfattn.core.positions import KINDS
from selfattn.display.export import column_names, labelled
from ui.block import page as tb
from ui import state as settings
from ui.widgets import choice, current_lang, show_error, tr, tr_plain, vega, worked_lines
from ui.components.heatmap import library, map_row
from ui import links
from ui import parts

# ── Read ─────────────────────────────────────────────────────────────────────────────────────────
links.begin("block")
state = tb.setup()
opened = links.open_page("block", own=LINK_PARAMS)
if opened is not None:
    links.note_bad("block", tb.open_link(opened))
st.title(tr("tb.title"))
st.caption(tr("tb.intro"))
links.show_problems("block")

source = choice(st.segmented_control, tr("tb.source"), ("toy", "real"), "tb_source",
                {"toy": tr("tb.source_toy"), "real": tr("tb.source_real")}, on_pick=tb.on_source)

if source == "real":
    # ── A real model's layer ────────────────────────────────────────────────────────────────────
    from ui.block.real_layer import real_section

    library()  # the maps' drawing code, as on the toy (else the real model's maps stay empty)
    real_section()
    st.stop()

PART = parts.current("tb_part", tbv.PAGE_PARTS)  # the part this whole run opens
with st.container(border=True):
    tb.PAGE.preset_row(tbv.MAX_SEED, "tb.load_preset")
    note = st.empty()  # filled once the settings below are drawn: the note says what changed since the preset loaded
    s1, s2, s3, s4, s5 = st.columns(5, vertical_alignment="bottom")
    for key in ("tb_n", "tb_d", "tb_dff", "tb_layers"):
        settings.keep(key)
    s1.number_input(tr("tb.n"), min_value=1, max_value=tbv.MAX_TOKENS, step=1, key="tb_n", on_change=tb.on_size,
                    args=("tb_n",), help=tr("tb.n_help", top=tbv.MAX_TOKENS))
    s2.number_input("d_model", min_value=1, max_value=tbv.MAX_D, step=1, key="tb_d", on_change=tb.on_size,
                    args=("tb_d",), help=tr("tb.d_help", top=tbv.MAX_D))
    with s3:
        heads_offered = tb.divisors(int(settings.value("tb_d")))
        settings.keep("tb_heads", heads_offered, fallback=1)
        st.selectbox(tr("tb.heads"), heads_offered, key="tb_heads", help=tr("tb.heads_help"))
    s4.number_input("d_ff", min_value=1, max_value=tbv.MAX_DFF, step=1, key="tb_dff", on_change=tb.on_size,
                    args=("tb_dff",), help=tr("tb.dff_help", top=tbv.MAX_DFF))
    s5.number_input(tr("tb.layers"), min_value=1, max_value=tbv.MAX_LAYERS, step=1, key="tb_layers",
                    on_change=tb.on_size, args=("tb_layers",), help=tr("tb.layers_help", top=tbv.MAX_LAYERS))
    # the two orders' names are long: a row of their own, or a third of it scrolls the second out of sight
    norm = choice(st.segmented_control, tr("tb.norm"), ("post", "pre"), "tb_norm",
                  {"post": tr("tb.norm_post"), "pre": tr("tb.norm_pre")})
    o1, o2, o3 = st.columns(3, vertical_alignment="bottom")
    with o1:
        choice(st.selectbox, tr("tb.act"), ACTIVATIONS, "tb_act", {a: tr(f"tb.act_{a}") for a in ACTIVATIONS})
    settings.keep("tb_eps")
    o2.text_input(tr("tb.eps"), key="tb_eps", max_chars=tbv.MAX_EPS_CHARS, help=tr("tb.eps_help"))
    with o3:
        choice(st.selectbox, tr("tb.pos"), KINDS, "tb_pos", {k: tr(f"tb.pos_{k}") for k in KINDS})
    t1, t2 = st.columns(2, vertical_alignment="bottom")
    for key in ("tb_causal", "tb_final"):
        settings.keep(key)
    t1.toggle(tr("tb.causal"), key="tb_causal", help=tr("tb.causal_help"))
    t2.toggle(tr("tb.final"), key="tb_final", help=tr("tb.final_help"), disabled=norm != "pre")
    note.caption(tb.preset_note(bool(state["edits"])))
    state["note_edited"] = bool(state["edits"])
    tb.EDITORS.notices(tr("tb.undo_note"), tb.undo, "tb_undo")


def formulas_side_by_side(norm: str) -> None:
    """Post-LN and pre-LN as equations, the chosen one framed."""
    f1, f2 = st.columns(2)
    maths = formulas(current_lang())
    for col, order in ((f1, "post"), (f2, "pre")):
        with col, st.container(border=order == norm):
            st.markdown(f"**{tr(f'tb.norm_{order}')}**" + (" · " + tr("tb.chosen") if order == norm else ""))
            st.latex(maths[order])
    st.caption(tr("tb.formula_note"))


@st.fragment
def block() -> None:
    """The open part (editors, maps, its ZIP) and the link: an edit reruns this; a tab or "next part" reruns the whole
    page instead, since Streamlit writes the address bar's parameters on a whole run only."""
    if settings.refuse_unfit_settings(settings.fields("block")) or tb.renewed():
        st.rerun(scope="app")  # a new generation of editors: the controls above the fragment draw from the tables too
    if parts.current("tb_part", tbv.PAGE_PARTS) != PART:
        st.rerun(scope="app")
    for part, keys in PART_SETTINGS.items():
        if part != PART:
            kept(keys)
    shown = tb.read()  # every setting and every table as typed: what is drawn, computed and linked
    sharing = {"page": "block", "own": encode(shown), "bulky": TABLE_PARAMS}
    parts.show("block", "tb_part", "tb", {"layer": partial(one_layer, shown, sharing),
                                         "stack": partial(stack, shown, sharing),
                                         "batch": partial(padded_batch, shown, sharing)})
    links.publish(**sharing)


PART_SETTINGS = {"layer": ("tb_layer", "tb_focus"), "batch": ("tb_batch", "tb_lengths", "tb_maxlen")}  # their boxes'


def kept(keys: tuple[str, ...]) -> None:
    """A closed part's settings as their boxes last held them (their shadows): the visitor cannot change a box that
    is not drawn, and Streamlit may hand back a box undrawn since the last run at its default value."""
    for key in keys:
        if settings.shadow(key) in st.session_state:
            settings.put(key, st.session_state[settings.shadow(key)])


def outcome(shown):
    """The toy's result (or the last good one, with what is wrong said in words; None before any), with its check
    against PyTorch: asked by the open part, under its own controls."""
    good, error = settings.last_good("tb_good", partial(tb.compute, shown))
    if error is not None:
        show_error(error, kept=good is not None)
    if good is not None:
        st.success(tr("tb.checked_torch", diff=f"{good.torch_difference:.1e}"), icon=":material/verified:")
    return good


def inputs(result) -> dict:
    """X (and the position vectors added to it) as the ZIP's tables."""
    cols = column_names("x", result.x.shape[1])
    tables = {"x": partial(labelled, result.x, result.tokens, cols)}
    if result.positions is not None:
        tables["positions"] = partial(labelled, result.positions, result.tokens, cols)
    return tables


def one_layer(shown, sharing: dict) -> None:
    """Part 1: the formulas, X and the layer's weights to edit, the layer's flow, both LayerNorms written out."""
    formulas_side_by_side(shown.norm)
    st.subheader(tr("tb.x_title"))
    st.caption(tr("tb.x_help"))
    tb.editor("x", shown)
    if shown.layers > 1:
        settings.keep("tb_layer")
        st.selectbox(tr("tb.layer"), range(shown.layers), key="tb_layer", format_func=lambda i: f"{i + 1}",
                     on_change=tb.on_layer)
    layer = shown.layer
    panel = tb.weights_panel(tr("tb.weights_title", layer=layer + 1))
    if panel.open:  # closed, its editors are not made (the preview gets the layer's weights from the server)
        with panel:
            st.caption(tr("tb.weights_help"))
            with st.container(horizontal=True, wrap=True, gap="medium"):
                for table in tb.shown_tables(shown)[1:]:
                    with st.container(width="content"):
                        st.markdown(f"**{tb.table_label(table)}**")
                        tb.editor(table, shown)
    if bool(shown.edits) != tb.state().get("note_edited", False):  # the first edit (or the last undone): the
        st.rerun(scope="app")  # preset's note above says so at once, not at the next whole run
    result = outcome(shown)
    if result is None:
        return
    trace = result.stack.layers[min(layer, len(result.stack.layers) - 1)]
    tokens = result.tokens
    focus = min(shown.focus, len(tokens) - 1)
    tables = inputs(result)
    st.subheader(tr("tb.flow_title", layer=layer + 1, layers=len(result.params)))
    st.caption(tr("tb.flow_help"))
    tb.draw_flow(trace, tokens, focus, tables, prefix=f"layer{layer + 1}_",
                 engine=tb.preview_engine(shown, result, trace.eps))
    tb.draw_norms(trace, tokens, focus)
    # the tokens the view has (the link writes them): a result kept from before a bad edit may have others
    choice(st.selectbox, tr("tb.focus"), range(shown.n), "tb_focus", {k: f"{k + 1}: t{k + 1}" for k in range(shown.n)})
    export(shown, result, tables, sharing)


def make_stack() -> None:
    """Callback of the stack part's offer: two layers, as the layers box would."""
    settings.put("tb_layers", 2)
    tb.on_size("tb_layers")


def stack(shown, sharing: dict) -> None:
    """Part 2: every layer's attention, how alike the tokens grow layer by layer, the final LayerNorm."""
    if shown.layers == 1:
        st.info(tr("tb.stack_one"), icon=":material/layers:")
        st.button(tr("tb.stack_make"), key="tb_stack_make", on_click=make_stack, icon=":material/add:")
    result = outcome(shown)
    if result is None or len(result.params) == 1:
        return
    tokens = result.tokens
    focus = min(shown.focus, len(tokens) - 1)
    tables = inputs(result)
    st.subheader(tr("tb.stack_title", layers=len(result.params)))
    st.caption(tr("tb.stack_help"))
    with map_row("maps_tb_stack") as row:
        for k, lt in enumerate(result.stack.layers):
            tables[f"layer{k + 1}_weights_mean"] = tb.show_map(
                tr_plain("tb.stack_layer", k=k + 1), combine_heads(lt.weights, "mean"), tokens, tokens,
                key=f"stack{k + 1}", link=None, focus=focus, role="weights", domain=(0.0, 1.0), into=row)
    similarity = result.stack.similarity()
    vega(similarity_spec(similarity, current_lang()))
    tb.similarity_caption(similarity, causal=shown.causal)
    if result.stack.final_norm is not None:
        tables["final_norm"] = tb.show_map(tr_plain("tb.final_out"), result.stack.outputs, tokens,
                                           column_names("y", result.stack.outputs.shape[1]), key="final",
                                           link="row:final", focus=focus, role="outputs")
    export(shown, result, tables, sharing)


def padded_batch(shown, sharing: dict) -> None:
    """Part 3: sequences of other lengths padded into one batch, the padding mask, and that padding changes
    nothing."""
    st.subheader(tr("tb.batch_title"))
    batch_controls()  # beside the batch's results
    result = outcome(shown)
    if result is None:
        return
    tables = inputs(result)
    if not shown.batch:
        st.info(tr("tb.batch_off"), icon=":material/view_stream:")
    if shown.batch and result.batch is not None:
        st.caption(tr("tb.batch_help"))
        batch = result.batch
        n_pad = batch.inputs.shape[1]
        pad_rows = [f"{i + 1}" for i in range(n_pad)]
        tables["batch_key_padding"] = tb.show_map(
            tr_plain("tb.batch_mask"), batch.key_padding.astype(float),
            [f"#{b + 1}" for b in range(len(batch.lengths))], pad_rows, key="batch_mask", link=None, focus=None,
            role="weights", domain=(0.0, 1.0))
        worked_lines(batch_lines(batch, result.batch_lengths, shown.maxlen, current_lang()))
        with map_row("maps_tb_batch") as row:
            for b, stack_b in enumerate(batch.stacks):
                rows = [f"{i + 1}" + (" ·pad" if batch.key_padding[b, i] else "") for i in range(n_pad)]
                tables[f"batch{b + 1}_outputs"] = tb.show_map(
                    tr_plain("tb.batch_out", b=b + 1), stack_b.outputs, rows,
                    column_names("y", stack_b.outputs.shape[1]), key=f"batch{b + 1}", link=None, focus=None,
                    role="outputs", into=row)
        st.success(tr("tb.batch_same", diff=f"{result.padding_difference:.1e}"), icon=":material/verified:")
        st.caption(tr("tb.batch_fast_path"))
    export(shown, result, tables, sharing)


def export(shown, result, tables: dict, sharing: dict) -> None:
    """At a part's end: one ZIP of what the part drew, every layer's parameters and the settings with the link."""
    st.subheader(tr("tb.export_title"))
    for k, params in enumerate(result.params):
        for part, matrix in tbv.layer_tables(params).items():
            tables[f"layer{k + 1}_{part}"] = partial(labelled, matrix, [f"{i + 1}" for i in range(len(matrix))],
                                                     [f"{j + 1}" for j in range(matrix.shape[1])])
    address, _, link_short = links.share_link(**sharing)
    made = {"settings.txt": settings_text(address, link_short, shown, edited=bool(shown.edits), lang=current_lang())}
    tb.MAPS.zip_button(tr("tb.download_zip"), tables, made, file_name="selfattn-block.zip", key="dl_tb_zip")


def batch_controls() -> None:
    settings.keep("tb_batch")
    b1, b2, b3 = st.columns([1, 1.4, 1], vertical_alignment="bottom")
    b1.toggle(tr("tb.batch"), key="tb_batch", help=tr("tb.batch_toggle_help"))
    settings.keep("tb_lengths")
    settings.keep("tb_maxlen")
    b2.text_input(tr("tb.lengths"), key="tb_lengths", max_chars=40, help=tr("tb.lengths_help"),
                  disabled=not st.session_state.get("tb_batch"))
    b3.number_input(tr("tb.maxlen"), min_value=1, max_value=tbv.MAX_TOKENS, step=1, key="tb_maxlen",
                    help=tr("tb.maxlen_help"), disabled=not st.session_state.get("tb_batch"))


library()
block()
