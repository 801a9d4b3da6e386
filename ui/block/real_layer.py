"""The Transformer block page's real model: one layer of the bundled MiniLM recomputed from its weights."""

from __future__ import annotations

from functools import partial

import streamlit as st

from selfattn import memo
from selfattn.block import view as tbv
from selfattn.block.compute import RealResult, compute_real
from selfattn.block.link import encode
from selfattn.block.text import settings_text, similarity_spec
from selfattn.display.export import column_names, labelled, zip_tables
from selfattn.errors import InputError
from ui.block import page as tb
from ui import models as models_ui
from ui import state as settings
from ui.widgets import current_lang, show_error, tr, vega
from ui import links

MODEL = "minilm"
MAP_DIMS = 8  # the maps show this many columns (a map fits its column at 1024 px); the CSVs hold them all


@memo.cached("block.real")
def _compute(text: str, layer: int) -> RealResult:
    bundle = models_ui.model(MODEL)
    if not 0 <= layer < bundle.num_layers:
        raise InputError("layer_out_of_range", f"There is no layer {layer + 1}.", layer=str(layer + 1),
                         max_layer=bundle.num_layers)
    run = models_ui.model_run(MODEL, text, tbv.MAX_REAL_TOKENS - 2)  # [CLS] and [SEP] make 32
    return compute_real(bundle, run, layer)


def chinese_advice() -> str:
    """Where a Chinese model is, said for this server: installed here, downloadable here, or only at home."""
    from selfattn.text.prefetch import cached_folder, visitors_may_download

    chinese = models_ui.CHINESE_MODEL
    try:
        installed = cached_folder(chinese) is not None
    except InputError:
        installed = False
    where = "installed" if installed else "download" if visitors_may_download() else "local"
    return tr(f"tb.real_unknown_{where}", chinese=chinese)


def real_section() -> None:
    """Read → compute → draw → link for a real model's layer."""
    settings.keep("tb_text")
    st.text_area(tr("tb.real_text"), key="tb_text", max_chars=tbv.MAX_TEXT, height=80, help=tr("tb.real_text_help"))
    settings.keep("tb_rlayer")
    layers = 6  # the bundled MiniLM's; checked against the model in _compute
    st.selectbox(tr("tb.real_layer"), range(layers), key="tb_rlayer", format_func=lambda i: f"{i + 1}")
    shown = tb.current()
    sharing = {"page": "block", "own": encode(shown), "bulky": ()}
    with st.spinner(tr("tb.real_running")):
        good, error = settings.last_good("tb_real_good", partial(_compute, shown.text, shown.rlayer))
    if error is not None:
        show_error(error, kept=good is not None)
    if good is None:
        links.stop(**sharing)
    result = good
    trace = result.trace
    tokens = list(result.labels)
    focus = min(shown.focus, len(tokens) - 1)
    if result.unknown:
        st.info(tr("tb.real_unknown", model=result.model, n=len(result.unknown),
                   chars="、".join(dict.fromkeys(result.unknown))[:80]) + " " + chinese_advice(),
                icon=":material/help:")
    if result.truncated:
        st.info(tr("tb.real_truncated", n=tbv.MAX_REAL_TOKENS), icon=":material/content_cut:")
    st.success(tr("tb.checked_model", model=result.model, layer=result.layer + 1, diff=f"{result.difference:.1e}",
                  wdiff=f"{result.weights_difference:.1e}"), icon=":material/verified:")
    st.caption(tr("tb.real_help", d=trace.x.shape[1], h=trace.num_heads, d_ff=trace.ff_pre.shape[1], k=MAP_DIMS,
                  eps=f"{trace.eps:g}"))
    tables = {}
    tb.draw_flow(trace, tokens, focus, tables, prefix=f"layer{result.layer + 1}_", dims=MAP_DIMS)
    tables["model_hidden_state"] = partial(labelled, result.model_output, tokens,
                                           column_names("y", result.model_output.shape[1]))
    tb.draw_norms(trace, tokens, focus)
    from ui.widgets import choice

    choice(st.selectbox, tr("tb.focus"), range(len(tokens)), "tb_focus", {k: t for k, t in enumerate(tokens)})
    st.subheader(tr("tb.real_stack_title", layers=result.num_layers))
    vega(similarity_spec(result.similarity, current_lang()))
    tb.similarity_caption(result.similarity, causal=False)  # MiniLM reads both ways
    address, _, link_short = links.share_link(**sharing)
    made = {"settings.txt": settings_text(address, link_short, shown, edited=False, lang=current_lang())}
    st.download_button(tr("tb.download_zip"), partial(zip_tables, tables, made), file_name="selfattn-block-model.zip",
                       mime="application/zip", key="dl_tb_real_zip", on_click="ignore", icon=":material/folder_zip:",
                       type="primary")
    links.publish(**sharing)
