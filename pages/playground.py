"""Playground: edit X and the weights, watch all eight steps of self-attention recompute."""

from functools import partial

import streamlit as st

from selfattn.core.presets import PRESETS
from selfattn.display.charts import masked_weights
from selfattn.display.export import column_names, labelled
from selfattn.display.numbers import step_text, step_vector_text
from selfattn.errors import InputError
from selfattn.playground.inputs import compute_view
from selfattn.playground import text as words
from selfattn.playground.link import CELL_LINK_PARAMS, LINK_PARAMS
from ui.playground import page as pg
from ui.playground import positions as order_ui
from ui import state as settings
from ui.widgets import choice, current_lang, folded, show_error, tr, worked_lines
from ui.components.heatmap import library
from ui import links


# ── Steps 4-7 for one query, written out the way the tutorials do ──────────────────────
SHORT_TERMS = 4  # a sum of more terms (a vector of more numbers) is shortened to "…" but for the focus token


def sums(full: list[str], short: list[str], step: int) -> None:
    """Lines of arithmetic: in full, or (when some are long) shortened, with the full ones in a folded box of the
    step (``pg_full_<step>``, made only once opened: at 32 tokens x 16 dimensions step 4's lines are 32 of 16 terms)."""
    worked_lines(short)
    if short != full:
        whole = folded(tr("pg.focus_full"), f"pg_full_{step}", icon=":material/unfold_more:")
        if whole.open:
            with whole:
                worked_lines(full)


# ── Read: the frame, the settings, the page's tables, and (first open) the link ─────────────
links.begin("playground")
pg.setup()
opened = links.open_page("playground", own=LINK_PARAMS)
if opened is not None:
    links.note_bad("playground", pg.open_link(opened))
state = pg.state()
st.title(tr("pg.title"))
st.caption(tr("pg.intro"))
links.show_problems("playground")

# ── Controls ────────────────────────────────────────────────────────────────────────────
with st.container(border=True):
    c1, c2, c3 = st.columns([1.6, 1, 1.4], vertical_alignment="bottom")  # "Reload preset" whole at 1024 px
    with c1:  # choosing a preset loads it; the undo below brings back what it replaced
        choice(st.selectbox, tr("pg.preset"), PRESETS, "pg_preset", {p: tr(f"pg.preset_{p}") for p in PRESETS},
               on_pick=pg.load_chosen_preset)
    settings.keep("pg_seed")
    c2.number_input(tr("pg.seed"), min_value=0, max_value=2**31 - 1, step=1, key="pg_seed",
                    help=tr("pg.seed_help"), on_change=pg.on_seed)
    c3.button(tr("pg.load_preset"), on_click=pg.load_chosen_preset, help=tr("pg.load_preset_help"),
              icon=":material/restart_alt:", width="stretch")
    state["note_edited"] = pg.edited()  # what the note says; an edit that changes it reruns the page (steps)
    st.caption(pg.caption(state["note_edited"]))
    if st.session_state["pg_preset"] == "tutorial":
        st.caption(words.tutorial_note(current_lang()))
    o1, o2, o3 = st.columns(3)
    for key in pg.TOGGLES:
        settings.keep(key)
    scale = o1.toggle(tr("pg.opt_scale"), key="pg_scale", help=tr("pg.opt_scale_help"))
    causal = o2.toggle(tr("pg.opt_causal"), key="pg_causal", help=tr("pg.opt_causal_help"))
    use_bias = o3.toggle(tr("pg.opt_bias"), key="pg_bias", help=tr("pg.opt_bias_help"))
    pg.size_widgets()
    pg.EDITORS.notices(tr(f"pg.undo_{state['undo'][2]}_note") if state["undo"] else "", pg.undo, "pg_undo")

importing = folded(tr("pg.import"), "pg_import_panel", icon=":material/upload_file:")
if importing.open:  # closed, its chooser and uploader are not made
    with importing:
        st.caption(tr("pg.import_help"))
        target_key = "pg_upload_target"
        if state.get("upload_target") in pg.MATRICES:  # as chosen before the box was last closed
            st.session_state.setdefault(target_key, state["upload_target"])
        state["upload_target"] = st.selectbox(tr("pg.import_target"), pg.MATRICES, format_func=pg.NAMES.get,
                                              key=target_key, placeholder=tr("common.choose_one"))
        uploader_key = pg.EDITORS.generation_key("pg_upload")
        # No max_upload_size of its own: a file over 1 MB reaches grid.read_csv_matrix, which says so in
        # words (the browser's own refusal is an English tooltip; see .streamlit/config.toml).
        st.file_uploader(tr("pg.import_file"), type=["csv"], key=uploader_key,
                         on_change=pg.on_upload, args=(uploader_key, target_key),
                         help=tr("pg.import_file_help"))
        upload_notice = state.pop("upload_notice", None)
        if upload_notice is not None:
            if isinstance(upload_notice, InputError):
                show_error(upload_notice, kept=False)
            else:
                st.success(tr("pg.upload_ok", name=upload_notice), icon=":material/check_circle:")

# ── Everything an edit changes runs as one fragment: an edit reruns only this part ─────────
@st.fragment
def steps(scale: bool, causal: bool, use_bias: bool) -> None:
    """Steps 1-8, the linked view, the export and the link: an edit in an editor reruns only these.

    A fragment's rerun skips the page's top, so the checks that run there run here again; when
    they refuse something, the whole page runs again to say so where it says it.
    """
    pg.state()  # as the run finds it (a language switch relabels the tokens: a generation before the check's)
    if settings.refuse_unfit_settings(settings.fields("playground")) or pg.EDITORS.renewed_by(pg.setup):
        st.rerun(scope="app")
    shown = pg.read()  # the page's state, the editors' tables included: what is computed and what the link says
    # ── Step 1 and 2: the editable inputs ───────────────────────────────────────────────────
    st.subheader(tr("pg.step1"))
    st.caption(tr("pg.step1_help"))
    pg.editor("x", shown)
    st.subheader(tr("pg.step2_bias" if use_bias else "pg.step2"))
    sizes = shown.size
    st.caption(tr("pg.step2_help", d_in=sizes.d_in, d_k=sizes.d_k, d_v=sizes.d_v)
               + (" " + tr("pg.step2_bias_help", d_k=sizes.d_k, d_v=sizes.d_v) if use_bias else ""))
    # Each editor as wide as its columns; a row that does not fit the window wraps (1024 px projectors).
    for names in (("w_q", "w_k", "w_v"), pg.BIASES if use_bias else ()):
        with st.container(horizontal=True, wrap=True, gap="medium"):
            for name in names:
                with st.container(width="content"):
                    st.markdown(f"**${pg.NAMES[name]}$**")  # typeset, as in the formulas
                    pg.editor(name, shown)
    if pg.edited(shown) != pg.state().get("note_edited"):  # the preset's note, above this fragment, says otherwise
        st.rerun(scope="app")

    order, order_error = order_ui.read_order(shown.tables.sizes.n)  # the tokens' new order (shuffled below)
    good, error = settings.last_good("pg_good", partial(compute_view, shown, order))
    if error is not None and error.code.startswith("cell_"):  # named in full under its editor, which is marked red
        message = tr("pg.bad_cell_above", matrix=error.params["matrix"])
        if good is not None:
            message += "\n\n" + tr("common.kept_last_good")
        st.error(message, icon=":material/error:")
    elif error is not None:
        show_error(error, kept=good is not None)
    sharing = {"page": "playground", "own": pg.link_params(shown), "bulky": CELL_LINK_PARAMS}
    if good is None:
        links.stop(**sharing)
    inputs, trace, shown_bias = good.inputs, good.trace, good.bias

    tokens = inputs.tokens
    n, d_in = trace.x.shape
    d_k, d_v = trace.queries.shape[1], trace.values.shape[1]
    x_cols, q_cols, k_cols, v_cols = (column_names(p, d) for p, d in
                                      (("x", d_in), ("q", d_k), ("k", d_k), ("v", d_v)))
    tables = {}
    i = pg.focus(n)  # the focus token of steps 4-7, marked in every map
    order_ui.positions_section(good, tables)  # X + PE, when positions are on

    st.divider()
    st.subheader(tr("pg.step3"))
    maths = words.formulas(scale, causal, shown_bias, order_ui.positions_on(), current_lang())
    st.caption(tr("pg.step3_help", formula=maths["step3"]))
    st.caption(tr("pg.maps_linked"))
    with st.container(horizontal=True, wrap=True, gap="medium"):  # side by side while the window holds them
        for title, key, matrix, labels, link in ((maths["q"], "queries", trace.queries, q_cols, "q"),
                                                 (maths["k"], "keys", trace.keys, k_cols, "k"),
                                                 (maths["v"], "values", trace.values, v_cols, "v")):
            with st.container(width="content"):
                tables[key] = pg.show_map(title, matrix, tokens, labels, key=key, link=link, focus=i)

    st.subheader(tr("pg.step4"))
    st.caption(tr("pg.step4_help"))
    tables["scores"] = pg.show_map(tr("pg.scores"), trace.scores, tokens, tokens, key="scores",
                                   caption=tr("pg.scores_caption"), link="scores", focus=i)
    if scale or causal:  # what was done to them, in the title and the line under it
        done = "scaled" if scale and causal else "scaled_only" if scale else "masked_only"
        tables["scaled_scores"] = pg.show_map(
            tr(f"pg.{done}_scores"), trace.scaled_scores, tokens, tokens, key="scaled_scores", link="scaled",
            focus=i, caption=tr(f"pg.{done}_caption", d_k=d_k, s=step_text(trace.scale_factor)))

    st.subheader(tr("pg.step5"))
    st.caption(tr("pg.step5_help", formula=maths["step5"]))
    tables["weights"] = pg.show_map(tr("pg.weights"), masked_weights(trace.weights, trace.allowed), tokens, tokens,
                                    key="weights", domain=(0.0, 1.0), role="weights", link="weights", focus=i)

    st.subheader(tr("pg.focus_title"))
    choice(st.selectbox, tr("pg.focus"), range(n), "pg_focus", {k: f"{k + 1}: {tok}" for k, tok in enumerate(tokens)})
    q_i = trace.queries[i]
    long_q, long_v = d_k > SHORT_TERMS, d_v > SHORT_TERMS
    with st.container(border=True):
        st.markdown(tr("pg.focus_step4", token=tokens[i], q=step_vector_text(q_i)))
        if (long_q or long_v) and n > 1:
            st.caption(tr("pg.focus_short_note", token=tokens[i]))
        lines, short = [], []
        for j in range(n):
            terms = " + ".join(f"{step_text(a)}×{step_text(b)}" for a, b in zip(q_i, trace.keys[j]))
            head, tail = f"q{i + 1}·k{j + 1} = ", f" = {step_text(trace.scores[i, j])}"
            if not trace.allowed[i, j]:
                tail += "   → " + tr("pg.masked")
            elif scale:
                tail += f"   → ÷ {step_text(trace.scale_factor)} = {step_text(trace.scaled_scores[i, j])}"
            lines.append(head + terms + tail)
            short.append(head + ("…" if long_q and j != i else terms) + tail)
        sums(lines, short, 4)
        st.markdown(tr("pg.focus_step5"))
        worked_lines([f"softmax({step_vector_text(trace.scaled_scores[i])})", f"= {step_vector_text(trace.weights[i])}"])
        st.markdown(tr("pg.focus_step6"))
        sums([f"{step_text(trace.weights[i, j])} × {step_vector_text(trace.values[j])} = "
              f"{step_vector_text(trace.weighted_values[i, j])}" for j in range(n)],
             [f"{step_text(trace.weights[i, j])} × "
              f"{step_vector_text(trace.values[j]) if j == i or not long_v else f'v{j + 1}'} = "
              f"{step_vector_text(trace.weighted_values[i, j])}" for j in range(n)], 6)
        tables[f"weighted_values_{i + 1}"] = pg.show_map(
            tr("pg.weighted_values", token=tokens[i]), trace.weighted_values[i], tokens, v_cols,
            key=f"weighted_values_{i + 1}", link="wv", focus=i)
        st.markdown(tr("pg.focus_step7"))
        added = [step_vector_text(v) for v in trace.weighted_values[i]]
        shown_terms = added if not long_v or n <= 2 else [added[0], "…", added[-1]]
        sums([" + ".join(added) + f"\n= {step_vector_text(trace.outputs[i])}"],
             [" + ".join(shown_terms) + f"\n= {step_vector_text(trace.outputs[i])}"], 7)

    st.subheader(tr("pg.step8"))
    st.caption(tr("pg.step8_help", formula=maths["step8"]))
    tables["outputs"] = pg.show_map(tr("pg.outputs"), trace.outputs, tokens, v_cols, key="outputs",
                                    role="outputs", link="out", focus=i,  # and how the browser previews an edit:
                                    engine={"scale": scale, "causal": causal, "bias": shown_bias,
                                            "pe": good.pe.tolist() if order_ui.positions_on() else None})

    order = order_ui.shuffle_section(good, order, order_error, causal, tables)  # does attention see the order?

    # ── Export everything ───────────────────────────────────────────────────────────────────
    st.divider()
    inputs_tables = {"x": partial(labelled, inputs.x, tokens, x_cols), "w_q": partial(labelled, inputs.w_q, x_cols, q_cols),
                     "w_k": partial(labelled, inputs.w_k, x_cols, k_cols), "w_v": partial(labelled, inputs.w_v, x_cols, v_cols)}
    if shown_bias:
        inputs_tables.update({"b_q": partial(labelled, [inputs.b_q], ["b_q"], q_cols),
                              "b_k": partial(labelled, [inputs.b_k], ["b_k"], k_cols),
                              "b_v": partial(labelled, [inputs.b_v], ["b_v"], v_cols)})
    address, _, link_short = links.share_link(**sharing)
    made = {"settings.txt": words.settings_text(address, link_short, shown, bias=shown_bias, edited=pg.edited(shown),
                                                order=order, lang=current_lang())}
    pg.MAPS.zip_button(tr("pg.download_zip"), {**inputs_tables, **tables}, made, file_name="selfattn-playground.zip",
                       key="dl_zip")
    links.publish(**sharing)


# The maps' drawing code, sent once a page run: outside the fragment, so an edit does not send it again,
# and before it, so that it is there even when the fragment stops early (no good result yet).
library()
steps(scale, causal, use_bias)
