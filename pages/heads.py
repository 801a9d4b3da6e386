"""Heads & devices: one head vs many, checked against PyTorch, and timed on CPU and GPU."""

from functools import partial

import streamlit as st

from selfattn import bench
from selfattn.core import compare as core
from selfattn.core.compare import CompareSettings
from selfattn.core.heads import MISTAKES
from selfattn.display.export import column_names, csv_bytes
from selfattn.i18n import Markdown
from ui import map_sizes as fit
from ui.heads import page as hd
from ui import state as settings
from ui.widgets import choice, csv_button, folded, show_error, tr, tr_plain, vega
from ui.widgets import uploaded as uploaded_file
from ui import links
from ui import parts

links.start("heads")
st.title(tr("hd.title"))
st.caption(tr("hd.intro"))
links.show_problems("heads")
COMPARE_KEYS = ("hd_input", "hd_seed", "hd_n", "hd_d", "hd_text", "hd_causal")


def read_compare() -> CompareSettings:
    """The comparison's widgets, in order: what it is computed from (the head count follows the input's width)."""
    with st.container(border=True):
        # Two rows, so that every box shows its whole value at 1024 and 768 px (tests/test_layout_browser.py).
        c1, c5 = st.columns([3, 2], vertical_alignment="bottom")
        with c1:
            source = choice(st.selectbox, tr("hd.input"), ["random", "sentence"], "hd_input",
                            {"random": tr("hd.input_random"), "sentence": tr("hd.input_sentence")})
        for key in ("hd_seed", "hd_n", "hd_d", "hd_text", "hd_heads"):  # kept while their boxes are hidden too
            settings.keep(key)
        settings.keep("hd_causal")
        causal = c5.toggle(tr("hd.causal"), key="hd_causal")
        if source == "random":
            c2, c3, c4 = st.columns(3, vertical_alignment="bottom")
            n = c3.number_input(tr("hd.n"), 1, hd.MAX_N, key="hd_n")
            d_model = c4.selectbox(tr("hd.d_model"), hd.D_CHOICES, key="hd_d", placeholder=tr("common.choose_one"))
        else:
            c2, c3 = st.columns([1, 2], vertical_alignment="bottom")
            c3.text_input(tr("hd.sentence"), key="hd_text", max_chars=200, placeholder=tr("hd.sentence_placeholder"))
            n = d_model = None
        seed = c2.number_input(tr("hd.seed"), 0, 2**31 - 1, key="hd_seed")
    return CompareSettings(source=source, seed=int(seed), n=n, d_model=d_model, text=st.session_state["hd_text"],
                           causal=causal)


def kept_compare() -> CompareSettings:
    """The comparison's settings as part 1 left them, without drawing its widgets (part 2 checks that input)."""
    values = {key: settings.keep(key) for key in COMPARE_KEYS}
    random = values["hd_input"] == "random"
    return CompareSettings(source=values["hd_input"], seed=int(values["hd_seed"]), n=values["hd_n"] if random else None,
                           d_model=values["hd_d"] if random else None, text=values["hd_text"],
                           causal=values["hd_causal"])


def comparison(state: CompareSettings, slider: bool = True) -> tuple:
    """(x, tokens, weights, single, multi) for the input chosen, with the head-count slider drawn (``slider``)."""
    x, tokens = hd.input_matrix(state.source, state.seed, state.n, state.d_model, state.text)
    divisors = hd.head_choices(x.shape[1])
    # A new d_model, or a link's head count that does not divide it: the most heads up to 4.
    num_heads = settings.keep("hd_heads", divisors, fallback=max(h for h in divisors if h <= 4))
    if slider:
        num_heads = st.select_slider(tr("hd.heads"), divisors, key="hd_heads", help=tr("hd.heads_help"))
    weights = core.random_weights(x.shape[1], state.seed)
    return (x, tokens, weights, *core.compare(x, weights, num_heads, state.causal))


def compared(state: CompareSettings, slider: bool = True) -> tuple:
    """The comparison for ``state`` (the last good one on bad input, with the error said); stops without one."""
    good, error = settings.last_good("hd_good", partial(comparison, state, slider))
    if error is not None:
        show_error(error, kept=good is not None)
    if good is None:
        links.stop("heads")
    return good


# ── 1. Single head vs multi-head on one input ─────────────────────────────────────────
def part_compare() -> None:
    st.header(tr("hd.compare_header"))
    state = read_compare()
    causal = state.causal
    x, tokens, weights, single, multi = compared(state)
    n_tok, d = x.shape
    h, hdim = multi.num_heads, multi.head_dim

    attention = hd.attention_tex(hdim, causal)  # every formula below follows h, d_model and the mask
    st.markdown(tr("hd.shapes", n=n_tok, d=d, h=h, hd=hdim, attention=attention))
    if causal:
        st.caption(tr("hd.mask_note"))
    # Side by side while the window holds both (and the one-head map keeps readable cells), else one above the other.
    # Each map sends at most its share of the page's bytes (ui.heads.page.DRAW_BYTES); the CSVs hold everything.
    map_px, grid_px = fit.compare_layout(tokens)
    one_rows, one_cols = hd.fit_block(tokens, tokens, hd.draw_budget("one"))
    one_map = fit.fit_heatmap(single.head_weights[0][:one_rows, :one_cols], tokens[:one_rows], tokens[:one_cols], map_px,
                              domain=(0.0, 1.0), role="weights", value_title=tr("chart.weight"))
    titles = [tr_plain("hd.head_n", i=i + 1) for i in range(h)]
    k = hd.heads_shown(h, tokens)
    head_grid = fit.fit_grid(multi.head_weights[:k], tokens, tokens, titles[:k], grid_px)
    left, right = fit.row([one_map["usermeta"]["width_px"], head_grid["usermeta"]["width_px"]])
    with left:
        fit.map_header(tr("hd.single_map"), (n_tok, n_tok), hd.part_note(one_rows, one_cols, (n_tok, n_tok)))
        st.caption(tr("hd.single_caption", d=d, attention=hd.attention_tex(d, causal)))
        vega(one_map)
    with right:
        fit.map_header(tr("hd.multi_maps", h=h), (h, n_tok, n_tok), tr("hd.shown_heads", k=k, h=h) if k < h else "")
        st.caption(tr("hd.multi_caption", hd=hdim, attention=attention) if h > 1 else tr("hd.multi_caption_one"))
        vega(head_grid)
        csv_button(partial(hd.heads_frame, multi.head_weights, tokens, titles), "heads", key="dl_hd_heads")
    cols, third_px = fit.side_by_side(3, d, [*tokens, *column_names("c", d)])
    matrix_bytes = hd.draw_budget("matrix")
    with cols[0]:
        hd.show_part(tr("hd.concat", h=h, hd=hdim), multi.concat, tokens, column_names("c", d), key="hd_concat",
                     width=third_px, budget=matrix_bytes)
    with cols[1]:
        hd.show_part(tr("hd.w_o"), weights["w_o"], column_names("c", d), column_names("o", d), key="hd_w_o",
                     width=third_px, budget=matrix_bytes)
    with cols[2]:
        hd.show_part(tr("hd.output"), multi.outputs, tokens, column_names("o", d), key="hd_outputs", width=third_px,
                     budget=matrix_bytes)


# ── 2. Correctness ────────────────────────────────────────────────────────────────────
def note_open() -> None:
    """Callback of the mistake panels: keep which are open (for the link, and across pages)."""
    settings.put("hd_open", [m for m in MISTAKES if st.session_state.get(f"hd_open_{m}")])


def part_check() -> None:
    st.header(tr("hd.check_header"))
    state = kept_compare()
    causal = state.causal
    x, tokens, weights, single, multi = compared(state, slider=False)
    n_tok, d = x.shape
    h = multi.num_heads
    what = tr_plain("hd.input_random" if state.source == "random" else "hd.input_sentence")
    st.caption(tr("hd.check_input", what=what, n=n_tok, d=d, h=h, mask=tr_plain("hd.check_mask") if causal else ""))
    st.markdown(tr("hd.check_intro", n=n_tok, d=d, h=h))
    checks = hd.torch_checks(x, weights, h)
    m1, m2 = st.columns(2)
    m1.metric(tr("hd.check_no_mask"), f"{checks['none']:.1e}", help=tr("hd.check_help"))
    m2.metric(tr("hd.check_causal"), f"{checks['causal']:.1e}", help=tr("hd.check_help"))
    if max(checks.values()) > 1e-10:
        st.error(tr("hd.check_failed"))

    opened = settings.keep("hd_open")
    for mistake in MISTAKES:  # a panel's maps are computed only while it is open
        panel = st.expander(tr(f"hd.mistake_{mistake}"), expanded=mistake in opened, key=f"hd_open_{mistake}",
                            on_change=note_open)
        if not panel.open:
            continue
        with panel:
            wrong = core.mistake(x, weights, h, causal, mistake)
            if mistake == "bare_reshape":
                hd.show_bare_reshape(multi, wrong, tokens, n_tok, d)
            else:
                hd.show_scale_after_softmax(multi, wrong, tokens, causal)


# ── 3. Benchmark ──────────────────────────────────────────────────────────────────────
def part_bench() -> None:
    st.header(tr("hd.bench_header"))
    st.markdown(tr("hd.bench_intro", **{impl: Markdown(hd.impl_name(impl)) for impl in bench.IMPLS}))
    limits = bench.limits_for()
    with st.container(border=True):
        config = hd.bench_settings(limits)
        st.caption(hd.device_caption(config, limits))
        st.caption(hd.limits_caption(limits))
        st.caption(hd.method_caption(config, limits))
        if limits["cpu_budget_s"] is not None:
            st.caption(tr("hd.bench_shared", budget=round(limits["cpu_budget_s"]), cooldown=limits["cooldown_s"]))
        # A callback, not the button's return value: it survives require_frame's rerun on a first visit.
        st.button(tr("hd.bench_run"), type="primary", icon=":material/play_arrow:", key="hd_run",
                  on_click=st.session_state.update, kwargs={"hd_run_requested": True})
    submitted = st.session_state.pop("hd_run_requested", False)

    if submitted:
        bar = st.progress(0.0, text=tr("hd.bench_starting"))

        def progress(done: int, total: int, label: str) -> None:
            bar.progress(done / max(total, 1), text=hd.progress_text(done, total, label))

        records, error = settings.last_good("hd_bench", partial(hd.run_benchmark, config, progress))
        bar.empty()
        if error is not None:
            show_error(error, kept=records is not None)

    bundled = hd.bundled_results()
    settings.keep("hd_bundled")  # the chart shows the files chosen (a link may name them) while their box is closed
    uploading = folded(tr("hd.upload"), "hd_upload_panel", icon=":material/upload_file:")
    if uploading.open:  # closed, its chooser and uploader are not made
        with uploading:
            st.caption(tr("hd.upload_help"))
            st.multiselect(tr("hd.bundled"), list(bundled), format_func=hd.bundled_label, key="hd_bundled", wrap=True,
                           placeholder=tr("hd.bundled_placeholder"))
            upload = st.file_uploader(tr("hd.upload_file"), type=["json", "csv"], key="hd_upload",
                                      help=tr("hd.upload_file_help", mb=bench.RESULTS_MAX_BYTES // 2**20))
            if upload is not None:
                def read_upload():
                    name, data = uploaded_file(upload)  # its name shortened: it is stamped on every record
                    return name, bench.load_results(data, name)
                uploaded, error = settings.last_good("hd_uploaded", read_upload)
                if error is None:
                    st.success(tr("hd.upload_ok", name=uploaded[0], n=len(uploaded[1])))
                else:
                    show_error(error, kept=uploaded is not None)

    shown = [{**r, "source": tr_plain("hd.this_run")} for r in settings.kept("hd_bench") or []]
    chosen = [name for name in st.session_state["hd_bundled"] if name in bundled]  # only files offered
    for name in chosen:
        shown += [{**r, "source": hd.bundled_label(name)} for r in bundled[name]]
    uploaded = settings.kept("hd_uploaded")
    if uploaded is not None:
        name, records = uploaded
        shown += [{**r, "source": name} for r in records]

    if shown:
        sources = list(dict.fromkeys(r["source"] for r in shown))
        st.markdown(tr("hd.bench_shown", sources=tr_plain("common.list_sep").join(sources)))
        for name in chosen:
            st.caption(hd.bundled_caption(name))
        table = hd.results_table(shown)
        bad = [r for r in shown if r.get("status") != "ok"]
        if bad:
            st.warning(tr("hd.bench_not_ok", n=len(bad)))
        noisy = sum(bench.is_noisy(r) for r in shown)
        share = f"{bench.NOISY_IQR_SHARE:.0%}"
        if noisy:
            st.warning(tr("hd.bench_noisy", n=noisy, total=len(shown) - len(bad), share=share, mark=hd.NOISY_MARK),
                       icon=":material/warning:")
        elif len(shown) > len(bad):
            st.caption(tr("hd.bench_quiet", total=len(shown) - len(bad), share=share))
        # A heading per machine and sizes, what its runs show, its charts one above the other (legends underneath:
        # at 768 px two side by side cut their legends off).
        hd.show_setups(shown)
        ratios = hd.ratio_table(shown)
        if not ratios.empty:
            st.markdown(f"**{tr('hd.ratios')}**")
            st.dataframe(ratios, hide_index=True, placeholder="–", alt=tr("hd.ratios"))  # "–", not Streamlit's "None"
        st.markdown(f"**{tr('hd.results')}**")
        st.dataframe(table, hide_index=True, placeholder="–", alt=tr("hd.results"))
        d1, d2 = st.columns(2)
        d1.download_button(tr("hd.download_csv"), csv_bytes(bench.records_to_csv(shown)), "selfattn-bench.csv",
                           "text/csv", key="dl_bench_csv", on_click="ignore", icon=":material/download:")
        d2.download_button(tr("hd.download_json"), bench.records_to_json(shown).encode(), "selfattn-bench.json",
                           "application/json", key="dl_bench_json", on_click="ignore", icon=":material/download:")
    else:
        st.info(tr("hd.bench_empty"))


parts.show("heads", "hd_part", "hd", {"compare": part_compare, "check": part_check, "bench": part_bench})
links.publish("heads")
