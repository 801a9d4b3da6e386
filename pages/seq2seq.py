"""Encoder–decoder: the encoder's memory, the decoder's masked self-attention and cross-attention, Add & Norm and
the feed-forward network, then generation one position at a time with a key/value cache; every weight editable,
checked against ``torch.nn.Transformer``."""

from functools import partial

import streamlit as st

from selfattn.core.block import ACTIVATIONS
from selfattn.core.heads import stack_heads
from selfattn.display.export import column_names, labelled
from selfattn.display.numbers import difference_text
from selfattn.seq2seq import view as sv
from selfattn.seq2seq.compute import compute
from selfattn.seq2seq.link import LINK_PARAMS, TABLE_PARAMS, encode
from selfattn.seq2seq.text import cost_numbers, cost_spec, focus_lines, masked, merged, settings_text
from ui.seq2seq import page as s2
from ui import state as settings
from ui.widgets import choice, current_lang, show_error, tr, tr_count, tr_plain, vega, worked_lines
from ui.components.heatmap import library, map_row
from ui.components.outdated import served
from ui import links
from ui import parts
from ui.editing import map_frame

# ── Read ─────────────────────────────────────────────────────────────────────────────────────────
links.begin("seq2seq")
entered = st.session_state.get(links.ENTERED, False)  # read before setup() clears it
state = s2.setup()
opened = links.open_page("seq2seq", own=LINK_PARAMS)
if opened is not None:
    links.note_bad("seq2seq", s2.open_link(opened))
elif entered:
    s2.enter_source(st.query_params.to_dict())  # a link from another page to one source (home's to the translator)
st.title(tr("s2s.title"))
st.caption(tr("s2s.intro"))
links.show_problems("seq2seq")
st.markdown(tr("s2s.why_masks"))

source = choice(st.segmented_control, tr("s2s.source"), sv.SOURCES, "s2s_source",
                {s: tr(f"s2s.source_{s}") for s in sv.SOURCES})
PART = parts.current("s2s_part", sv.SOURCE_PARTS[source])  # the part this whole run opens


def in_part(body):
    """``body`` as the fragment's: a tab or "next part" (widgets of the fragment) reruns the whole page instead, since
    Streamlit writes the address bar's parameters on a whole run only, and a teacher copies the part from there."""
    def run() -> None:
        if parts.current("s2s_part", sv.SOURCE_PARTS[source]) != PART:
            st.rerun(scope="app")
        body()
    return run


if source == "translator":
    # ── The tiny translator trained here (selfattn.translate) ───────────────────────────────────
    from ui.seq2seq.translator import PLAYER as TRANSLATOR_PLAYER, translator_section

    library()  # the maps' drawing code, as on the toy
    TRANSLATOR_PLAYER.run(in_part(translator_section), always=True)  # a fragment: a step reruns it alone (each second in play)
    st.stop()

with st.container(border=True):
    s2.PAGE.preset_row(sv.MAX_SEED, "s2s.load", "s2s.load_help")
    note = st.empty()  # filled below: the preset's note says whether the tables are edited
    # two rows of four (the lengths and the width, then the depth): in one row of seven a box is 70 px at 1024 in the
    # projector view, and "d_model" broke inside
    boxes = [*st.columns(4, vertical_alignment="bottom"), *st.columns(4, vertical_alignment="bottom")[:3]]
    for col, key, top in zip(boxes, ("s2s_n", "s2s_m", "s2s_d", None, "s2s_dff", "s2s_enc", "s2s_dec"),
                             (sv.MAX_TOKENS, sv.MAX_TOKENS, sv.MAX_D, None, sv.MAX_DFF, sv.MAX_LAYERS, sv.MAX_LAYERS)):
        if key is None:
            with col:
                offered = s2.divisors(int(settings.value("s2s_d")))
                settings.keep("s2s_heads", offered, fallback=1)
                st.selectbox(tr("s2s.heads"), offered, key="s2s_heads", help=tr("s2s.heads_help"))
            continue
        settings.keep(key)
        col.number_input(tr(key.replace("s2s_", "s2s.")), min_value=1, max_value=top, step=1, key=key,
                         on_change=s2.on_size, help=tr("s2s.size_help", top=top))
    # the two orders' names are long: a row of their own (as on the block page), or at 1024 px one is cut
    choice(st.segmented_control, tr("s2s.norm"), ("post", "pre"), "s2s_norm",
           {"post": tr("s2s.norm_post"), "pre": tr("s2s.norm_pre")})
    with st.columns(3)[0]:
        choice(st.selectbox, tr("s2s.act"), ACTIVATIONS, "s2s_act", {a: tr(f"tb.act_{a}") for a in ACTIVATIONS})
    note.caption(s2.preset_note(bool(state["edits"])))
    state["note_edited"] = bool(state["edits"])
    s2.EDITORS.notices(tr("s2s.undo_note"), s2.undo, "s2s_undo")


def heads_row(title_key: str, maps, rows, cols, *, key: str, link: str, full=None, focus=None, tables: dict) -> None:
    """One map per head, side by side while the window holds them."""
    with map_row(f"maps_s2s_{key}") as row:
        for h, matrix in enumerate(maps):
            tables[f"{key}_head{h + 1}"] = s2.show_map(
                tr_plain(title_key, h=h + 1), matrix, rows, cols, key=f"{key}{h + 1}", link=f"{link}:{h}", focus=focus,
                role="weights", domain=(0.0, 1.0), full=None if full is None else full[h], into=row)


def side_by_side(maps, *, focus, tables: dict, engine: dict | None = None) -> None:
    """Maps of one step or another, side by side: (title, matrix, rows, cols, key, link); the first carries
    ``engine``, the browser's preview's options, if given."""
    with map_row(f"maps_s2s_{maps[0][4]}") as row:
        for k, (title, matrix, rows, cols, key, link) in enumerate(maps):
            tables[key] = s2.show_map(title, matrix, rows, cols, key=key, link=link, focus=focus,
                                      engine=None if k else engine, into=row)


def layer_box(result, shown: sv.View) -> int:
    """The decoder layer drawn (its box while the view has more than one): the boxes offer what the view has (the
    link writes it), the maps show the result, which may be of other sizes while an edit is bad: clamped to it."""
    if shown.dec > 1:
        settings.keep("s2s_layer")
        st.selectbox(tr("s2s.layer"), range(shown.dec), key="s2s_layer", format_func=lambda i: f"{i + 1}")
    return min(shown.layer, len(result.trace.decoder_layers) - 1)


def draw(result, shown: sv.View, engine: dict | None, tables: dict | None = None) -> None:
    """Part 1, the whole sentence at once, from the result of :func:`selfattn.seq2seq.compute.compute`: the memory,
    the decoder layer shown (masked self-attention, cross-attention, Add & Norm), the output and torch's check. Its
    first map of each kind carries the browser's preview's options (``engine``:
    :func:`ui.seq2seq.page.preview_engine`, or None)."""
    tables = {} if tables is None else tables
    trace, src, tgt = result.trace, result.src_tokens, result.tgt_tokens
    m, d = trace.outputs.shape
    focus = min(shown.focus, m - 1)  # a result kept from before a bad edit may be smaller than the view
    d_cols = column_names("d", d)

    st.caption(tr("s2s.pass_intro"))
    st.subheader(tr("s2s.memory_title"))
    st.caption(tr_count("s2s.memory_help", len(result.encoder), layers=len(result.encoder)))
    side_by_side([(tr_plain("s2s.src"), trace.src, src, d_cols, "src", "src:x"),
                  (tr_plain("s2s.memory"), trace.memory, src, d_cols, "memory", "src:memory")], focus=None,
                 tables=tables, engine=engine)

    layer = layer_box(result, shown)
    layers = len(trace.decoder_layers)
    lt = trace.decoder_layers[layer]
    st.subheader(tr("s2s.layer_title", layer=layer + 1, layers=layers))
    side_by_side([(tr_plain("s2s.layer_input"), lt.y, tgt, d_cols, f"d{layer + 1}_input", "row:input")],
                 focus=focus, tables=tables)

    st.markdown(f"#### {tr('s2s.self_title')}")
    st.caption(tr("s2s.self_help"))
    heads_row("s2s.head", masked(lt.self_weights, lt.self_attention.allowed), tgt, tgt, key=f"d{layer + 1}_self",
              link="self", full=lt.self_weights, focus=focus, tables=tables)

    st.markdown(f"#### {tr('s2s.cross_title')}")
    st.caption(tr("s2s.cross_help"))
    heads_row("s2s.head", lt.cross_weights, tgt, src, key=f"d{layer + 1}_cross", link="cross", focus=focus,
              tables=tables)
    cross = lt.cross_attention
    side_by_side([(tr_plain("s2s.cross_keys"), merged(cross.keys), src, d_cols, f"d{layer + 1}_cross_k", "src:k"),
                  (tr_plain("s2s.cross_values"), merged(cross.values), src, d_cols, f"d{layer + 1}_cross_v", "src:v")],
                 focus=None, tables=tables)
    choice(st.selectbox, tr("s2s.focus"), range(shown.m), "s2s_focus", {i: f"y{i + 1}" for i in range(shown.m)})
    with served("s2s_focus_box", s2.EDITORS.revs(), border=True):  # dimmed while the maps show a newer edit
        st.markdown(tr("s2s.focus_title", token=tgt[focus]))
        worked_lines(focus_lines(cross, focus, src, tgt[focus], current_lang()))

    st.markdown(f"#### {tr('s2s.rest_title')}")
    side_by_side([(tr_plain("s2s.after_self"), lt.after_self, tgt, d_cols, f"d{layer + 1}_h1", "row:h1"),
                  (tr_plain("s2s.after_cross"), lt.after_cross, tgt, d_cols, f"d{layer + 1}_h2", "row:h2"),
                  (tr_plain("s2s.layer_out"), lt.outputs, tgt, d_cols, f"d{layer + 1}_out", "row:out")],
                 focus=focus, tables=tables)

    st.subheader(tr("s2s.output_title"))
    st.caption(tr("s2s.output_help"))
    side_by_side([(tr_plain("s2s.output"), trace.outputs, tgt, d_cols, "outputs", "row:final")], focus=focus,
                 tables=tables)
    with served("s2s_checked_box", s2.EDITORS.revs()):
        st.success(tr("s2s.checked_torch", diff=difference_text(result.torch_difference)), icon=":material/verified:")


def next_step(m: int) -> None:
    """Callback of the Next step button: one position on, back to the first after the last."""
    settings.put("s2s_step", (int(settings.value("s2s_step")) + 1) % m)


def generation(result, shown: sv.View) -> None:
    """Part 2: step t of cached decoding in the layer shown: the cache as it grows, this row's attention, what it
    saves."""
    m = len(result.tgt_tokens)
    st.subheader(tr("s2s.gen_title"))
    st.caption(tr("s2s.gen_help"))
    g1, g2, g3 = st.columns([2, 1, 1], vertical_alignment="bottom")
    with g1:
        s2.PLAYER.step_box(tr("s2s.step"), range(shown.m), {t: f"{t + 1}: y{t + 1}" for t in range(shown.m)})
    g2.button(tr("s2s.next_step"), on_click=next_step, args=(shown.m,), icon=":material/skip_next:", key="s2s_next",
              width="stretch")
    s2.PLAYER.draw_button(shown.m - 1, g3)
    t = min(shown.step, m - 1)
    layer = layer_box(result, shown)
    with served("s2s_step_box", s2.EDITORS.revs()):  # no preview draws the generation: dimmed while it is behind
        cached_step(result, t, layer)
    st.markdown(f"#### {tr('s2s.cost_title')}")
    st.caption(tr("s2s.cost_help", **cost_numbers(result.costs)))
    vega(cost_spec(result.costs, current_lang()))


def cached_step(result, t: int, layer: int, tables: dict | None = None) -> None:
    """Step t of cached decoding in the layer shown: the cache as it grows, this row's attention, that it equals the
    full pass."""
    tables = {} if tables is None else tables
    tgt, src = result.tgt_tokens, result.src_tokens
    step = result.cache.steps[t]
    st.markdown(f"**{tr('s2s.step_title', t=t + 1, token=tgt[t], layer=layer + 1)}**")
    st.caption(tr("s2s.cache_rows", old=t, new=t + 1) if t else tr("s2s.cache_first"))
    rows = cache_rows(tgt, t)
    keys, values = step.cached_keys[layer], step.cached_values[layer]
    with map_row("maps_s2s_cache") as row:
        for h in range(keys.shape[0]):
            for what, per_head in (("keys", keys), ("values", values)):
                tables[f"step{t + 1}_{what}_head{h + 1}"] = s2.show_map(
                    tr_plain(f"s2s.cache_{what}", h=h + 1), per_head[h], rows, column_names(what[0], keys.shape[2]),
                    key=f"cache_{what}{h + 1}", link=None, focus=None, into=row)  # k1 … of a key, v1 … of a value
    heads = [tr("s2s.head", h=h + 1) for h in range(keys.shape[0])]
    with map_row("maps_s2s_step") as row:
        for title, matrix, cols, key in ((tr_plain("s2s.step_self"), step.self_weights[layer], tgt[:t + 1],
                                          "step_self"),
                                         (tr_plain("s2s.step_cross"), step.cross_weights[layer], src, "step_cross")):
            tables[f"step{t + 1}_{key[5:]}"] = s2.show_map(title, matrix, heads, cols, key=key, link=None,
                                                          focus=None, role="weights", domain=(0.0, 1.0), into=row)
    st.success(tr("s2s.cache_same", diff=difference_text(result.cache_difference)), icon=":material/verified:")


def every_map(result, shown: sv.View) -> dict:
    """Every map of both parts by its CSV's name in the ZIP, at the decoder layer and generation step shown, however
    few parts were opened: the same numbers and labels as the maps (tests/test_seq2seq_app.py holds them to it)."""
    trace, src, tgt = result.trace, result.src_tokens, result.tgt_tokens
    m, d = trace.outputs.shape
    d_cols = column_names("d", d)
    layer = min(shown.layer, len(trace.decoder_layers) - 1)
    lt, at = trace.decoder_layers[layer], f"d{layer + 1}"
    self_weights = masked(lt.self_weights, lt.self_attention.allowed)
    tables = {"src": map_frame(trace.src, src, d_cols), "memory": map_frame(trace.memory, src, d_cols),
              f"{at}_input": map_frame(lt.y, tgt, d_cols),
              **{f"{at}_self_head{h + 1}": map_frame(w, tgt, tgt, full=lt.self_weights[h])
                 for h, w in enumerate(self_weights)},
              **{f"{at}_cross_head{h + 1}": map_frame(w, tgt, src) for h, w in enumerate(lt.cross_weights)},
              f"{at}_cross_k": map_frame(merged(lt.cross_attention.keys), src, d_cols),
              f"{at}_cross_v": map_frame(merged(lt.cross_attention.values), src, d_cols),
              f"{at}_h1": map_frame(lt.after_self, tgt, d_cols), f"{at}_h2": map_frame(lt.after_cross, tgt, d_cols),
              f"{at}_out": map_frame(lt.outputs, tgt, d_cols), "outputs": map_frame(trace.outputs, tgt, d_cols)}
    t = min(shown.step, m - 1)
    step = result.cache.steps[t]
    keys, values = step.cached_keys[layer], step.cached_values[layer]
    rows, heads = cache_rows(tgt, t), [tr("s2s.head", h=h + 1) for h in range(keys.shape[0])]
    for h in range(keys.shape[0]):
        for what, per_head in (("keys", keys), ("values", values)):
            tables[f"step{t + 1}_{what}_head{h + 1}"] = map_frame(per_head[h], rows,
                                                                 column_names(what[0], keys.shape[2]))
    tables[f"step{t + 1}_self"] = map_frame(step.self_weights[layer], heads, tgt[:t + 1])
    tables[f"step{t + 1}_cross"] = map_frame(step.cross_weights[layer], heads, src)
    return tables


def cache_rows(tgt, t: int) -> list[str]:
    """The rows of the cache at step t: the target tokens so far, the new one marked."""
    return [f"{tgt[r]}" + (" ·new" if r == t else "") for r in range(t + 1)]


library()  # the maps' drawing code, once a page run, outside the fragment


def flow() -> None:
    """Editors, every box, generation, the export and the link: an edit reruns this (a fragment, rerun every second
    while generation plays: ui/play.py)."""
    if s2.renewed():  # a new generation of editors: the controls above the fragment draw from the tables too
        st.rerun(scope="app")
    if PART != "generation":
        s2.PLAYER.stop()  # generation plays only while its part is open
    s2.PLAYER.advance(int(settings.value("s2s_m")) - 1)  # while playing: a step on, before anything reads the step
    shown = s2.read()  # every setting and every table as typed: what is drawn, computed and linked
    st.subheader(tr("s2s.inputs_title"))
    st.caption(tr("s2s.inputs_help"))
    with st.container(horizontal=True, wrap=True, gap="medium"):
        for table in ("src", "tgt"):
            with st.container(width="content"):
                st.markdown(f"**{s2.table_label(table)}**")
                s2.editor(table, shown)
    panel = s2.weights_panel(tr("s2s.weights_title"))
    if panel.open:  # closed, its editors are not made (the preview gets every layer's weights from the server)
        with panel:
            st.caption(tr("s2s.weights_help"))
            groups = sv.offered_groups(shown)
            names = {g: tr(f"s2s.group_{g[0]}", layer=int(g[1])) for g in groups}
            choice(st.selectbox, tr("s2s.edit_group"), groups, "s2s_edit", names,
                   on_pick=lambda _before: s2.on_group())
            with st.container(horizontal=True, wrap=True, gap="medium"):
                for table in s2.shown_tables(shown)[2:]:
                    with st.container(width="content"):
                        st.markdown(f"**{s2.table_label(table)}**")
                        s2.editor(table, shown)
    if bool(shown.edits) != s2.state().get("note_edited", False):  # the preset's note above says so at once
        st.rerun(scope="app")

    good, error = settings.last_good("s2s_good", partial(compute, shown))
    if error is not None:
        show_error(error, kept=good is not None)
    sharing = {"page": "seq2seq", "own": encode(shown), "bulky": TABLE_PARAMS}
    if good is None:
        links.stop(**sharing)
    def whole_pass() -> None:  # the browser's preview draws this part's maps alone
        draw(good, shown, s2.preview_engine(shown, good) if error is None else None)

    parts.show("seq2seq", "s2s_part", "s2s", {"pass": whole_pass, "generation": partial(generation, good, shown)})

    st.subheader(tr("s2s.export_title"))
    st.caption(tr("s2s.export_help"))
    tables = every_map(good, shown)
    d_cols = column_names("d", good.trace.outputs.shape[1])
    tables["x"] = partial(labelled, good.trace.src, good.src_tokens, d_cols)
    tables["y"] = partial(labelled, good.trace.tgt, good.tgt_tokens, d_cols)
    for side, params_of, tables_of in (("e", good.encoder, sv.encoder_tables), ("d", good.decoder, sv.decoder_tables)):
        for k, params in enumerate(params_of):
            for part, matrix in tables_of(params).items():
                tables[f"{side}{k + 1}_{part}"] = partial(labelled, matrix, [f"{i + 1}" for i in range(len(matrix))],
                                                         [f"{j + 1}" for j in range(matrix.shape[1])])
    for k, layer_trace in enumerate(good.trace.decoder_layers):
        tables[f"d{k + 1}_cross_weights_all_heads"] = partial(
            labelled, stack_heads(layer_trace.cross_weights),
            [f"h{h + 1} {tok}" for h in range(layer_trace.cross_weights.shape[0]) for tok in good.tgt_tokens],
            good.src_tokens)
    address, _, link_short = links.share_link(**sharing)
    made = {"settings.txt": settings_text(address, link_short, shown, edited=bool(shown.edits), lang=current_lang())}
    s2.MAPS.zip_button(tr("s2s.download_zip"), tables, made, file_name="selfattn-seq2seq.zip", key="dl_s2s_zip")
    links.publish(**sharing)


s2.PLAYER.run(in_part(flow), always=True)
