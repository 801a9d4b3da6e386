"""Sentence embeddings: a sentence as vectors, Softmax(XXᵀ/√d)X, and a real model's heads."""

import numpy as np
import pandas as pd
import streamlit as st

from selfattn import models
from selfattn.attention import cosine_similarity, raw_self_attention
from selfattn.charts import heatmap, heatmap_grid
from selfattn.embeddings import TokenEmbeddings, pick_source
from selfattn.errors import InputError
from selfattn.export import column_names, labelled
from ui import embeddings as cached
from ui.common import chart_words, choice, csv_button, persist, require_frame, show_error, tr

require_frame()

SENTENCES = ["早上好", "我爱自然语言处理", "早上好，今天天气很好",
             "The animal didn't cross the street because it was too tired", "Good morning"]
PAIRS = [("早上好", "Good morning"), ("我爱自然语言处理", "I love natural language processing"),
         ("今天天气很好", "The weather is very good today"), ("猫坐在垫子上", "The cat sat on the mat")]
SOURCES = ("auto", "charvec", "minilm", "hf")
HOSTED = models.is_hosted()
MAX_DIMS_SHOWN = 64


def set_text(key: str, value: str) -> None:
    st.session_state[key] = value


def unit_labels(emb: TokenEmbeddings) -> list[str]:
    """Token labels made unique by position, so repeated characters (天天) stay apart."""
    return [f"{i + 1}·{tok}" for i, tok in enumerate(emb.tokens)]


def compute(text: str, source: str, kind: str, layer, spec):
    """Embeddings for ``text``, or the InputError explaining why not."""
    try:
        resolved = pick_source(text) if source == "auto" else source
        if resolved in ("minilm", "hf"):
            cached.load_with_status(spec if resolved == "hf" else "minilm")
        with st.spinner(tr("emb.computing")):  # the first Chinese sentence builds the character table (~1 s)
            return cached.embeddings(text, source, kind, layer, spec if source == "hf" else None), None
    except InputError as exc:
        return None, exc


def raw_form(emb: TokenEmbeddings, key: str, dims: int, scale: bool, unit: bool) -> None:
    """X, XXᵀ, cosine similarity, Softmax(XXᵀ/√d) and the output, as heatmaps with CSVs."""
    labels = unit_labels(emb)
    x = emb.vectors
    if unit:
        norms = np.linalg.norm(x, axis=1, keepdims=True)  # (n, 1)
        x = np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)
    d = x.shape[1]
    trace = raw_self_attention(x, scale=scale)
    shown = min(dims, d)
    x_cols = column_names("d", d)
    c1, c2, c3 = st.columns(3)
    c1.metric(tr("emb.tokens"), len(emb.tokens))
    c2.metric(tr("emb.dim"), d)
    c3.metric(tr("emb.coverage"), f"{emb.coverage:.0%}", help=tr("emb.coverage_help"))
    st.caption(tr("emb.source_caption", source=tr(f"emb.source_{emb.source}"), model=emb.model))
    if emb.unknown:
        st.warning(tr("emb.unknown", tokens="、".join(emb.tokens[i] for i in emb.unknown),
                      known=len(emb.tokens) - len(emb.unknown), n=len(emb.tokens)), icon="❓")
    if emb.truncated:
        st.info(tr("emb.truncated", n=len(emb.tokens)), icon="✂️")
    if emb.words:
        st.caption(tr("emb.words", words=" / ".join(emb.words)))

    blocks = [
        ("X", tr("emb.x_title", k=shown, d=d), x[:, :shown], x_cols[:shown], labelled(x, labels, x_cols), None, "blues"),
        ("xxt", tr("emb.xxt_title"), trace.scores, labels, labelled(trace.scores, labels, labels), None, "blues"),
        ("cosine", tr("emb.cos_title"), cosine_similarity(x), labels, None, (-1.0, 1.0), "redblue"),
        ("weights", tr("emb.weights_title", s=f"{trace.scale_factor:.4g}"), trace.weights, labels, None,
         (0.0, 1.0), "greens"),
        ("output", tr("emb.out_title", k=shown), trace.outputs[:, :shown], x_cols[:shown],
         labelled(trace.outputs, labels, x_cols), None, "purples"),
    ]
    for name, title, matrix, cols, full, domain, scheme in blocks:
        frame = full if full is not None else labelled(matrix, labels, cols)
        st.markdown(f"**{title}** &nbsp; `{' × '.join(map(str, frame.shape))}`")
        st.vega_lite_chart(heatmap(matrix, labels, cols, domain=domain, scheme=scheme, max_width=900,
                                   annotate=False if name in ("X", "output") else None),
                           width="content", theme=None)
        csv_button(frame, f"{key}-{name}", key=f"dl_{key}_{name}")


st.title(tr("emb.title"))
st.caption(tr("emb.intro"))

# ── Sentence(s) ───────────────────────────────────────────────────────────────────────
mode = choice(st.segmented_control, tr("emb.mode"), ["single", "pair"], "emb_mode", "single",
              {"single": tr("emb.mode_single"), "pair": tr("emb.mode_pair")})
persist("emb_text", SENTENCES[0])
persist("emb_text_b", PAIRS[0][1])
if mode == "pair":
    st.caption(tr("emb.pairs"))
    cols = st.columns(len(PAIRS))
    for col, (a, b) in zip(cols, PAIRS):
        col.button(f"{a} / {b}", on_click=lambda a=a, b=b: (set_text("emb_text", a), set_text("emb_text_b", b)),
                   width="stretch", key=f"pair_{a}")
    left, right = st.columns(2)
    left.text_input(tr("emb.text_a"), key="emb_text", max_chars=500)
    right.text_input(tr("emb.text_b"), key="emb_text_b", max_chars=500)
    texts = [st.session_state["emb_text"], st.session_state["emb_text_b"]]
else:
    st.caption(tr("emb.presets"))
    cols = st.columns(len(SENTENCES))
    for col, sentence in zip(cols, SENTENCES):
        col.button(sentence if len(sentence) < 24 else sentence[:22] + "…", help=sentence, width="stretch",
                   on_click=set_text, args=("emb_text", sentence), key=f"preset_{sentence}")
    st.text_input(tr("emb.text"), key="emb_text", max_chars=500, help=tr("emb.text_help"))
    texts = [st.session_state["emb_text"]]

# ── Where the vectors come from ───────────────────────────────────────────────────────
with st.container(border=True):
    s1, s2, s3 = st.columns([2, 2, 2])
    with s1:
        source = choice(st.selectbox, tr("emb.source_pick"), SOURCES, "emb_source", "auto",
                        {s: tr(f"emb.source_{s}") for s in SOURCES}, help=tr("emb.source_help"))
    spec = None
    if source == "hf":
        if HOSTED:
            allowed = sorted(models.HOSTED_ALLOWLIST)
            persist("emb_model", allowed[0])
            spec = s2.selectbox(tr("emb.model"), allowed, key="emb_model")
        else:
            persist("emb_model", "bert-base-chinese")
            spec = s2.text_input(tr("emb.model"), key="emb_model", max_chars=300, help=tr("emb.model_help")).strip()
    with s3:
        kind = choice(st.radio, tr("emb.kind"), ["static", "contextual"], "emb_kind", "static",
                      {"static": tr("emb.kind_static"), "contextual": tr("emb.kind_contextual")},
                      horizontal=True, help=tr("emb.kind_help"), disabled=source == "charvec")
    d1, d2, d3 = st.columns([3, 1, 1], vertical_alignment="bottom")
    persist("emb_dims", 16)
    dims = d1.slider(tr("emb.dims"), 4, MAX_DIMS_SHOWN, key="emb_dims", help=tr("emb.dims_help"))
    persist("emb_scale", True)
    persist("emb_unit", False)
    raw_scale = d2.toggle(tr("emb.scale"), key="emb_scale", help=tr("emb.scale_help"))
    raw_unit = d3.toggle(tr("emb.unit"), key="emb_unit", help=tr("emb.unit_help"))

if source == "charvec":
    kind = "static"  # character vectors have no context
layer = None  # contextual vectors come from the last layer

# ── Part 1: the raw form ──────────────────────────────────────────────────────────────
st.header(tr("emb.raw_header"))
st.markdown(tr("emb.raw_intro"))
good = st.session_state.setdefault("emb_good", {})
columns = st.columns(len(texts)) if len(texts) > 1 else [st.container()]
for idx, (col, text) in enumerate(zip(columns, texts)):
    with col:
        emb, error = compute(text, source, kind, layer, spec)
        slot = f"{mode}{idx}"
        if error is not None:
            show_error(error, kept=slot in good)
            emb = good.get(slot)
        else:
            good[slot] = emb
        if emb is not None:
            raw_form(emb, f"raw{idx + 1}", dims, raw_scale, raw_unit)

# ── Part 2: what a real model's heads do ──────────────────────────────────────────────
st.header(tr("emb.model_header"))
st.markdown(tr("emb.model_intro"))
m1, m2 = st.columns([2, 3])
model_spec = spec if source == "hf" and spec else "minilm"
m1.markdown(tr("emb.model_used", name=model_spec))
sentence = texts[0]
try:
    bundle = cached.load_with_status(model_spec)
    run = cached.model_run(model_spec, sentence)
    st.session_state["emb_model_good"] = (bundle, run)
except InputError as exc:
    show_error(exc, kept="emb_model_good" in st.session_state)
if "emb_model_good" not in st.session_state:
    st.stop()
bundle, run = st.session_state["emb_model_good"]
labels = [f"{i}·{tok}" for i, tok in enumerate(run.tokens)]
if run.unknown:
    st.warning(tr("emb.model_unknown", known=len(run.tokens) - len(run.unknown), n=len(run.tokens),
                  name=bundle.name), icon="❓")
if run.truncated:
    st.info(tr("emb.truncated", n=len(run.tokens)), icon="✂️")

persist("emb_layer", 0)
persist("emb_head", 0)
st.session_state["emb_layer"] = min(st.session_state["emb_layer"], bundle.num_layers - 1)
st.session_state["emb_head"] = min(st.session_state["emb_head"], bundle.num_heads - 1)
c1, c2 = st.columns(2)
layer_i = c1.slider(tr("emb.layer"), 0, bundle.num_layers - 1, key="emb_layer",
                    format="%d", help=tr("emb.layer_help", L=bundle.num_layers))
head_i = c2.slider(tr("emb.head"), 0, bundle.num_heads - 1, key="emb_head", help=tr("emb.head_help", H=bundle.num_heads))

own = run.attentions[layer_i, head_i]
trace = models.recompute_head_attention(bundle, run, layer_i, head_i)
diff = float(np.max(np.abs(trace.weights - own)))
left, right = st.columns([3, 2])
with left:
    st.markdown(f"**{tr('emb.head_map', layer=layer_i + 1, head=head_i + 1)}** &nbsp; `{own.shape[0]} × {own.shape[1]}`")
    st.vega_lite_chart(heatmap(own, labels, labels, domain=(0.0, 1.0), scheme="greens", max_width=700),
                       width="content", theme=None)
    csv_button(labelled(own, labels, labels), f"attention-L{layer_i + 1}-H{head_i + 1}", key="dl_head_map")
with right:
    st.metric(tr("emb.recomputed"), f"{diff:.1e}", help=tr("emb.recomputed_help"))
    st.caption(tr("emb.recomputed_caption", d=bundle.head_dim))

st.subheader(tr("emb.all_heads", layer=layer_i + 1))
st.vega_lite_chart(heatmap_grid(run.attentions[layer_i], labels, labels,
                                [tr("emb.head_n", h=h + 1) for h in range(bundle.num_heads)],
                                columns=4, cell=max(6, min(14, 220 // max(len(labels), 1)))),
                   width="content", theme=None)
layer_table = pd.DataFrame(  # one row per (head, query), one column per key
    run.attentions[layer_i].reshape(-1, len(labels)),  # (H * n, n)
    index=pd.MultiIndex.from_product([[h + 1 for h in range(bundle.num_heads)], labels], names=["head", "query"]),
    columns=labels)
csv_button(layer_table, f"attention-L{layer_i + 1}-all-heads", key="dl_layer_heads")

st.subheader(tr("emb.qkv", layer=layer_i + 1, head=head_i + 1))
qkv_cols = st.columns(3)
for col, (name, matrix) in zip(qkv_cols, (("Q", trace.queries), ("K", trace.keys), ("V", trace.values))):
    with col:
        dcols = column_names(name.lower(), matrix.shape[1])
        st.markdown(f"**{name}** &nbsp; `{matrix.shape[0]} × {matrix.shape[1]}`")
        st.vega_lite_chart(heatmap(matrix[:, :dims], labels, dcols[:dims], annotate=False, cell=14,
                                   max_width=400, scheme="blues"), width="content", theme=None)
        csv_button(labelled(matrix, labels, dcols), f"{name.lower()}-L{layer_i + 1}-H{head_i + 1}",
                   key=f"dl_head_{name}")
