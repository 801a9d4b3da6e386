"""Sentence embeddings, in three parts a visitor picks (ui/parts.py): a sentence as vectors and Softmax(XXᵀ/√d)X,
a real model's heads, the same words in another order."""

from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from selfattn.display.export import column_names, labelled
from selfattn.core.heads import stack_heads
from selfattn.errors import InputError
from selfattn.hosting import is_hosted
from selfattn.i18n import one_line
from selfattn.text import models
from selfattn.text.embedding_text import MAX_CHARS, has_cjk
from selfattn.text.embeddings import KINDS, SOURCES, TokenEmbeddings, get_source
from selfattn.text.raw_view import RawView
from selfattn.text.view import PARTS
from selfattn.text.prefetch import visitors_may_download
from selfattn.text.raw_view import shared_ranges
from ui import models as cached
from ui import map_sizes as fit
from ui.embeddings import order as order_ui
from ui.embeddings import readout as readout_ui
from ui import state as settings
from ui.widgets import choice, csv_button, show_error, tr, tr_plain, vega
from ui.models import number_slider
from ui import links
from ui import parts

links.start("embeddings")

SENTENCES = ["早上好", "我爱自然语言处理", "早上好，今天天气很好",
             "The animal didn't cross the street because it was too tired", "Good morning"]
PAIRS = [("早上好", "Good morning"), ("我爱自然语言处理", "I love natural language processing"),
         ("今天天气很好", "The weather is very good today"), ("猫坐在垫子上", "The cat sat on the mat")]
HOSTED = is_hosted()
# What one open may draw. Maps have a row and a column per token, the layer's grid one map per head: in
# hosted mode, sentences are cut shorter and the grid draws fewer tokens, so that every link within the
# page's limits stays under 2 MB on the websocket and 1.5 s of server CPU (tests/test_hostile_embeddings.py).
MAX_TOKENS = 32 if HOSTED else models.MAX_TOKENS  # a sentence's tokens, [CLS] and [SEP] not counted
GRID_TOKENS = 16 if HOSTED else None  # tokens (queries and keys) drawn in each map of the layer's grid
QKV_DIMS = 32 if HOSTED else 64  # columns drawn of one head's Q, K and V (bert-base's heads have 64)
MAX_DIMS_SHOWN = 64
MAX_WORDS_SHOWN = 20  # jieba words in the caption
MAX_LISTED = 20  # unknown tokens named in a warning


def unit_labels(emb: TokenEmbeddings) -> list[str]:
    """Token labels made unique by position, so repeated characters (天天) stay apart; each one line of
    text (a control, separator or direction-override character in the sentence becomes a space)."""
    return [f"{i + 1}·{one_line(tok)}" for i, tok in enumerate(emb.tokens)]


def run_labels(run: models.ModelRun) -> list[str]:
    """A model run's token labels: the sentence's tokens numbered from 1 as in part 1, [CLS] and [SEP] bare."""
    return [tok if special else f"{i}·{one_line(tok)}" for tok, special, i in zip(run.tokens, run.special, run.numbers)]


def compute(text: str, source: str, kind: str, spec: str | None) -> TokenEmbeddings:
    """Embeddings for ``text`` (InputError explains why not).

    Args:
        spec: the visitor's model, None unless the source asks for one.
    """
    with st.spinner(tr("emb.computing")):  # the first Chinese sentence builds the character table (~1 s)
        return cached.embeddings(text, source, kind, None, spec, MAX_TOKENS)


def same_error(a: InputError | None, b: InputError | None) -> bool:
    """True when two errors say the same thing (so the page shows it once)."""
    return a is not None and b is not None and a.code == b.code and a.params == b.params


def listing(items: list[str]) -> str:
    """Distinct items in order, joined with 、 and cut after MAX_LISTED."""
    distinct = list(dict.fromkeys(items))
    return "、".join(distinct[:MAX_LISTED]) + ("…" if len(distinct) > MAX_LISTED else "")


def unknown_warning(unknown_text: list[str], n: int, model_name: str | None) -> None:
    """Which tokens have no real vector, by their original text; for a model, hint at a Chinese one.

    Args:
        n: the sentence's own tokens, [CLS] and [SEP] not counted (they are always known).
    """
    fmt = {"tokens": listing(unknown_text), "known": n - len(unknown_text), "n": n}
    if model_name is None:
        st.warning(tr("emb.unknown_charvec", **fmt), icon=":material/help:")
        return
    message = tr("emb.unknown_model", name=model_name, **fmt)
    if any(has_cjk(piece) for piece in unknown_text):
        message += "\n\n" + tr("emb.unknown_chinese", hf=tr("emb.source_hf"), pick=tr("emb.source_pick"))
    st.warning(message, icon=":material/help:")


def formula(scale: bool, d, tail: str = ""):
    """The raw form as KaTeX, as the ÷√d toggle has it: Softmax(XXᵀ/√d) or Softmax(XXᵀ), then ``tail``."""
    return tr("emb.softmax_scaled", d=d, tail=tail) if scale else tr("emb.softmax_raw", tail=tail)


def embed_kind(text: str, src, kind: str) -> str:
    """The kind of vectors a source can give for ``text``; says so when it is not the one asked for."""
    offered = src.resolve(text).kinds
    if kind in offered:
        return kind
    if src.name == "auto":  # character vectors have no context: show the static ones, and say what would
        st.info(tr("emb.static_fallback", hf=tr("emb.source_hf"), pick=tr("emb.source_pick")),
                icon=":material/info:")
    return offered[0]


def kind_control(src) -> str:
    """The switch between static and contextual vectors; returns the kind drawn.

    A source with one kind (the character vectors: no context) shows that kind, switched off, and says why
    beside it; the visitor's choice stays kept for a source that has both (and in the link).
    """
    names = {k: tr(f"emb.kind_{k}") for k in KINDS}
    if len(src.kinds) > 1:
        return choice(st.radio, tr("emb.kind"), KINDS, "emb_kind", names, horizontal=True, help=tr("emb.kind_help"))
    settings.keep("emb_kind", KINDS)
    drawn = src.kinds[0]
    st.radio(tr("emb.kind"), KINDS, index=KINDS.index(drawn), format_func=names.get, horizontal=True,
             help=tr("emb.kind_help"), disabled=True)  # no key: it shows what is drawn, it keeps nothing
    st.caption(tr("emb.static_fallback", hf=tr("emb.source_hf"), pick=tr("emb.source_pick")))
    return drawn


def raw_form(emb: TokenEmbeddings, view: RawView, key: str, dims: int, width: float,
             ranges: dict[str, tuple[float, float]]) -> None:
    """X, XXᵀ (the cosine similarity when rows have unit length), Softmax(XXᵀ/√d) and the output, with CSVs.

    Args:
        view: what is drawn of ``emb`` (:func:`ui.models.raw_view`).
        ranges: colour scales shared with the other sentence of a pair, by map ("X", "xxt", "output").
    """
    labels = unit_labels(emb)
    x, trace, facts, unit, scale = view.x, view.trace, view.facts, view.unit, view.scale
    d = x.shape[1]
    shown = fit.columns_that_fit(labels, min(dims, d), width)  # a half-page column holds fewer columns of X
    x_cols = column_names("d", d)
    c1, c2, c3 = st.columns(3)
    c1.metric(tr("emb.tokens"), len(emb.tokens))
    c2.metric(tr("emb.dim"), d)
    c3.metric(tr("emb.coverage"), f"{emb.coverage:.0%}", help=tr("emb.coverage_help"))
    origin = get_source(emb.source)
    name = tr(origin.vectors_label) if origin.vectors_label else models.display_name(emb.model)
    st.caption(tr("emb.vectors_caption", model=name))
    if emb.unknown:
        unknown_warning(emb.unknown_text, len(emb.tokens), name if origin.unk else None)
    if emb.truncated:
        st.info(tr("emb.truncated", n=len(emb.tokens)), icon=":material/content_cut:")
    if emb.words:
        words = " / ".join(emb.words[:MAX_WORDS_SHOWN])
        if len(emb.words) > MAX_WORDS_SHOWN:
            words = tr("emb.words_more", words=words, more=len(emb.words) - MAX_WORDS_SHOWN)
        st.caption(tr("emb.words", words=words))
    st.markdown(" ".join([
        tr("emb.raw_facts", vectors=name, d=d, shortest=facts.shortest, longest=facts.longest, top=facts.top_dot,
           root=facts.root_d, top_scaled=facts.top_dot / facts.root_d, raw_self=facts.raw_self_weight),
        tr("emb.raw_unit_on" if unit else "emb.raw_unit_off"),
        tr("emb.raw_scale_on", d=d, root=facts.root_d, self=facts.self_weight) if scale
        else tr("emb.raw_scale_off", self=facts.self_weight)]))

    if unit:  # rows of length 1: XXᵀ is the cosine similarity, drawn once on its scale
        dots = [("xxt", tr("emb.xxt_cos_title"), trace.scores, (-1.0, 1.0), "signed")]
    else:
        dots = [("xxt", tr("emb.xxt_title"), trace.scores, ranges.get("xxt"), "values"),
                ("cosine", tr("emb.cos_title"), view.cosine, (-1.0, 1.0), "signed")]
    blocks = [
        ("X", tr("emb.x_title", k=shown, d=d), x[:, :shown], x_cols[:shown], labelled(x, labels, x_cols),
         ranges.get("X"), "values"),
        *((name, title, matrix, labels, None, domain, role) for name, title, matrix, domain, role in dots),
        ("weights", tr("emb.weights_title", formula=formula(scale, d)), trace.weights, labels, None, (0.0, 1.0),
         "weights"),
        ("output", tr("emb.out_title", formula=formula(scale, d, "X"), k=shown), trace.outputs[:, :shown],
         x_cols[:shown], labelled(trace.outputs, labels, x_cols), ranges.get("output"), "outputs"),
    ]
    for name, title, matrix, cols, full, domain, role in blocks:
        frame = full if full is not None else labelled(matrix, labels, cols)
        fit.map_header(title, frame.shape)
        vega(fit.fit_heatmap(matrix, labels, cols, width, domain=domain, role=role,
                             annotate=name not in ("X", "output")))
        csv_button(frame, f"{key}-{name}", key=f"dl_{key}_{name}")


def model_warnings(run: models.ModelRun, model_name: str, *, titled: bool, charvec_shown: bool, offer: bool) -> bool:
    """What the model did not know of ``run``'s sentence, and where its text was cut.

    Args:
        titled: name the sentence (a pair has two).
        charvec_shown: part 1 shows the character vectors (for the way to what works for Chinese).
        offer: lead to what works when the sentence is mostly [UNK] (False once a pair's other sentence did).

    Returns:
        Whether the way to what works was shown.
    """
    n_words = int(np.count_nonzero(~run.special))  # the sentence's tokens, as counted in part 1
    led = False
    if cached.mostly_unknown(run):  # mostly [UNK]: say so plainly, and lead to what works for this sentence
        led = cached.unknown_guidance(run, model_name, listing(run.unknown_text), titled=titled,
                                      charvec_shown=charvec_shown, offer=offer)
    elif run.unknown:
        unknown_warning(run.unknown_text, n_words, model_name)
    if run.truncated:
        st.info(tr("emb.truncated_model", n=n_words), icon=":material/content_cut:")
    return led


def layer_details(bundle: models.ModelBundle, run: models.ModelRun, run_key: tuple, labels: list[str],
                  shown: readout_ui.Units, layer_i: int, head_i: int, by_head: bool, suffix: str) -> None:
    """Below the map: the head view and Q, K, V of the chosen head (one-head view), every head of the layer.

    Args:
        run_key: (model, sentence, tokens) that ``run`` belongs to, for the caches.
    """
    if by_head:
        readout_ui.head_view(shown(run.attentions[layer_i, head_i]), shown.labels, layer_i, head_i)
    st.subheader(tr("emb.all_heads", layer=layer_i + 1))
    layer_maps = shown(run.attentions[layer_i])  # (H, m, m)
    drawn = len(shown.labels) if GRID_TOKENS is None else min(GRID_TOKENS, len(shown.labels))
    grid = fit.fit_grid(layer_maps[:, :drawn, :drawn], shown.labels[:drawn], shown.labels[:drawn],
                        [tr("emb.head_n", h=h + 1) for h in range(bundle.num_heads)], fit.PAGE_PX)
    grid["title"] = {"text": tr_plain("emb.grid_axes"), "anchor": "start", "fontSize": 12, "fontWeight": "normal",
                     "limit": grid["usermeta"]["width_px"]}  # the small maps' axes, on the chart itself
    vega(grid)
    if drawn < len(shown.labels):  # say what was left out, as part 1 does for the columns of X
        st.caption(tr("emb.grid_cut", k=drawn, n=len(shown.labels)))
    layer_table = pd.DataFrame(  # one row per (head, query), one column per key
        stack_heads(layer_maps),  # (H * m, m)
        index=pd.MultiIndex.from_product([[h + 1 for h in range(bundle.num_heads)], shown.labels],
                                         names=["head", "query"]),
        columns=shown.labels)
    csv_button(layer_table, f"attention-L{layer_i + 1}-all-heads{suffix}", key="dl_layer_heads")
    if not by_head:
        return
    trace = cached.head_trace(run_key, layer_i, head_i, bundle, run)
    st.subheader(tr("emb.qkv", layer=layer_i + 1, head=head_i + 1))
    # Side by side while the window holds them and every row keeps its label (cells of LABEL_GAP_PX), else stacked.
    qkv_dims = min(st.session_state["emb_dims"], bundle.head_dim, QKV_DIMS)
    slots, qkv_px = fit.side_by_side(3, qkv_dims, labels, min_cell=fit.LABEL_GAP_PX, max_cell=18)
    qkv_dims = fit.columns_that_fit(labels, qkv_dims, qkv_px)
    for col, (name, matrix) in zip(slots, (("Q", trace.queries), ("K", trace.keys), ("V", trace.values))):
        with col:
            dcols = column_names(name.lower(), matrix.shape[1])
            cut = qkv_dims < matrix.shape[1]  # say that the map is cut, as part 1 does for X
            fit.map_header(f"${name}$", matrix.shape,  # Q, K, V in KaTeX like the formulas around them
                           tr("emb.first_columns", k=qkv_dims, d=matrix.shape[1]) if cut else "")
            vega(fit.fit_heatmap(matrix[:, :qkv_dims], labels, dcols[:qkv_dims], qkv_px, max_cell=18,
                                 annotate=False, role="values"))
            csv_button(labelled(matrix, labels, dcols), f"{name.lower()}-L{layer_i + 1}-H{head_i + 1}",
                       key=f"dl_head_{name}")


st.title(tr("emb.title"))
st.caption(tr("emb.intro"))
links.show_problems("embeddings")


def read(part: str) -> cached.EmbeddingsState:
    """The page's widgets above its parts, in order: the sentence(s), where the vectors come from, how X is drawn.

    The "same words, another order" part has sentences of its own and compares both kinds of vectors: there only
    the source and the two switches its maps follow are drawn (the rest kept, for the link and the other parts).
    """
    sentences = part != "order"
    # ── Sentence(s) ───────────────────────────────────────────────────────────────────────
    mode = settings.keep("emb_mode") if not sentences else choice(
        st.segmented_control, tr("emb.mode"), ["single", "pair"], "emb_mode",
        {"single": tr("emb.mode_single"), "pair": tr("emb.mode_pair")})
    settings.keep("emb_text")
    settings.keep("emb_text_b")
    if sentences and mode == "pair":
        st.caption(tr("emb.pairs"))
        with st.container(horizontal=True, gap="small"):  # whole names, wrapped onto more rows when narrow
            for a, b in PAIRS:
                st.button(f"{a} / {b}", key=f"pair_{a}",
                          on_click=lambda a=a, b=b: (settings.put("emb_text", a), settings.put("emb_text_b", b)))
        left, right = st.columns(2)
        left.text_input(tr("emb.text_a"), key="emb_text", max_chars=MAX_CHARS, placeholder=tr("emb.text_placeholder"))
        right.text_input(tr("emb.text_b"), key="emb_text_b", max_chars=MAX_CHARS,
                         placeholder=tr("emb.text_placeholder"))
    elif sentences:
        st.caption(tr("emb.presets"))
        with st.container(horizontal=True, gap="small"):  # whole sentences, wrapped onto more rows when narrow
            for sentence in SENTENCES:
                st.button(sentence, on_click=settings.put, args=("emb_text", sentence), key=f"preset_{sentence}")
        st.text_input(tr("emb.text"), key="emb_text", max_chars=MAX_CHARS, placeholder=tr("emb.text_placeholder"),
                      help=tr("emb.text_help", chars=MAX_CHARS, tokens=MAX_TOKENS))
    keys = ("emb_text", "emb_text_b") if mode == "pair" else ("emb_text",)
    texts = [st.session_state[key] for key in keys]

    # ── Where the vectors come from ───────────────────────────────────────────────────────
    with st.container(border=True):
        # Two to a row, so that every name fits a 1024 px projector with the sidebar open (three did not).
        s1, s2 = st.columns(2)
        with s1:
            source = choice(st.selectbox, tr("emb.source_pick"), SOURCES, "emb_source",
                            {s: tr(get_source(s).label) for s in SOURCES}, help=tr("emb.source_help"))
        src = get_source(source)
        spec = None
        settings.keep("emb_model")  # kept while its box is hidden too, so the link keeps it
        if src.asks_model:
            if HOSTED:
                allowed = sorted(models.HOSTED_ALLOWLIST)
                settings.put("emb_model", models.canonical_id(st.session_state["emb_model"]))  # a link's old id
                help_key = "emb.model_help_hosted_download" if visitors_may_download() else "emb.model_help_hosted"
                spec = s2.selectbox(tr("emb.model"), allowed, key="emb_model", placeholder=tr("common.choose_one"),
                                    help=tr(help_key))
            else:
                spec = s2.text_input(tr("emb.model"), key="emb_model", max_chars=300, help=tr("emb.model_help"),
                                     placeholder=tr("emb.model_placeholder")).strip()
        settings.keep("emb_dims")
        if sentences:
            d1, d2 = st.columns(2)
            with d1:
                kind = kind_control(src)
            dims = d2.slider(tr("emb.dims"), 4, MAX_DIMS_SHOWN, key="emb_dims", help=tr("emb.dims_help"))
        else:  # the order part draws both kinds, and X's columns are not drawn there
            kind, dims = settings.keep("emb_kind", KINDS), st.session_state["emb_dims"]
        settings.keep("emb_scale")
        settings.keep("emb_unit")
        with st.container(horizontal=True, gap="medium"):
            raw_scale = st.toggle(tr("emb.scale"), key="emb_scale", help=tr("emb.scale_help"))
            raw_unit = st.toggle(tr("emb.unit"), key="emb_unit", help=tr("emb.unit_help"))
    return cached.EmbeddingsState(mode=mode, texts=tuple(texts), source=source, spec=spec, kind=kind, dims=dims,
                                  scale=raw_scale, unit=raw_unit)


state = read(parts.current("emb_part", PARTS))
src = get_source(state.source)


def load_model() -> tuple[str, InputError | None]:
    """The model parts 1 and 2 read with (the source's, else MiniLM), loaded with its status box; and why not."""
    kept_model = settings.kept("emb_model_good")  # (spec, bundle, run) of the last heads shown
    spec = src.model_spec(state.spec) if src.loads_model else "minilm"
    try:
        cached.load_with_status(spec, kept=bool(settings.kept("emb_good")) or kept_model is not None)
    except InputError as exc:  # explained in the loading box, which has turned red
        return spec, exc
    return spec, None


# ── 1. The raw form ───────────────────────────────────────────────────────────────────
def part_raw() -> None:
    st.header(tr("emb.raw_header", formula=formula(state.scale, "d", "X")))
    st.markdown(tr("emb.raw_intro"))
    model_error = load_model()[1] if src.loads_model else None  # character vectors load no model
    columns = st.columns(len(state.texts)) if len(state.texts) > 1 else [st.container()]
    results = []  # (embeddings or None, error or None) per sentence
    for idx, (col, text) in enumerate(zip(columns, state.texts)):
        with col:
            slot = f"{state.mode}{idx}"
            if src.asks_model and model_error is not None:
                results.append((settings.kept("emb_good", slot), None))  # explained above
                continue
            use_kind = embed_kind(text, src, state.kind)
            results.append(settings.last_good("emb_good", partial(compute, text, state.source, use_kind, state.spec),
                                              slot))
    raw_views = [None if emb is None else cached.raw_view(cached.embeddings_key(emb), emb, state.unit, state.scale)
                 for emb, _ in results]  # what part 1 draws of each sentence, computed once per process for each
    drawn = [emb for emb, _ in results if emb is not None]
    ranges = shared_ranges([v for v in raw_views if v is not None],
                           comparable=len({(emb.source, emb.model, emb.dim) for emb in drawn}) == 1)
    if ranges:
        st.caption(tr("emb.shared_scale_all" if "X" in ranges else "emb.shared_scale"))
    for idx, (col, (emb, error)) in enumerate(zip(columns, results)):
        with col:
            if error is not None:
                show_error(error, kept=emb is not None)
            if emb is not None:  # this result, or the last good one
                raw_form(emb, raw_views[idx], f"raw{idx + 1}", state.dims,
                         fit.column_px([1] * len(state.texts))[idx], ranges)


# ── 2. What a real model's heads do ───────────────────────────────────────────────────
def part_model() -> None:
    st.header(tr("emb.model_header"))
    st.markdown(tr("emb.model_intro"))
    model_spec, model_error = load_model()
    kept_model = settings.kept("emb_model_good")
    sentence = state.texts[0]
    use_spec = model_spec if model_error is None else (kept_model[0] if kept_model else None)
    if use_spec is None:  # the model failed and none was shown before: the loading box says it all
        return
    shown_model, run_error = settings.last_good(
        "emb_model_good", lambda: (use_spec, cached.model(use_spec), cached.model_run(use_spec, sentence, MAX_TOKENS)))
    if run_error is not None:
        show_error(run_error, kept=shown_model is not None)
    if shown_model is None:
        return
    shown_spec, bundle, run = shown_model  # the last good: a failed sentence keeps the model it was read by
    model_name = models.display_name(bundle.name)
    if model_error is not None:
        st.markdown(tr("emb.model_previous", name=model_name, failed=models.display_name(model_spec)))
    else:
        st.markdown(tr("emb.model_used", name=model_name))
    if run_error is not None:
        st.caption(tr("emb.model_kept_text", text=run.text))
    runs = [(run, run_labels(run))]  # (run, token labels) of each sentence: a pair's translation too
    if len(state.texts) > 1:
        try:
            second = cached.model_run(use_spec, state.texts[1], MAX_TOKENS)
            runs.append((second, run_labels(second)))
        except InputError as exc:  # its heads are left out, and the page says why
            if not same_error(exc, run_error):
                show_error(exc, kept=False)
    # Part 1 shows the character vectors (the way to what works for Chinese leads there, or to the source picker).
    charvec_shown = any(src.resolve(text).name == "charvec" for text in state.texts)
    offered = False  # the way to a Chinese model is offered once, for the first sentence that needs it
    for each, _ in runs:
        offered = model_warnings(each, model_name, titled=len(runs) > 1, charvec_shown=charvec_shown,
                                 offer=not offered) or offered
    readout(bundle, runs, shown_spec, use_spec, model_name)


def readout(bundle: models.ModelBundle, runs: list[tuple], shown_spec: str, use_spec: str, model_name: str) -> None:
    """Part 2's choices and maps: the map of a head (or the layer's mean, max, the rollout) for each sentence, then
    the details of the sentence the model reads best."""
    units, view = readout_ui.controls()
    views = [readout_ui.Units(each, each_labels, units == "words") for each, each_labels in runs]
    # One sentence's details (pattern grid, head view, the layer's grid, Q K V): the one the model reads best, the
    # first when both are read alike. A pair's Chinese sentence is mostly [UNK] to MiniLM; its English one is not.
    read_i = min(range(len(runs)), key=lambda i: runs[i][0].unknown_share)
    run, labels = runs[read_i]
    shown = views[read_i]
    by_head = view == "head"  # the one-head view: the pattern grid, the head slider, the check, Q, K and V
    c1, c2 = st.columns(2)
    layer_i = number_slider(c1, tr("emb.layer"), bundle.num_layers, "emb_layer",
                            tr("emb.layer_help", L=bundle.num_layers), shown=view != "rollout")
    head_i = number_slider(c2, tr("emb.head"), bundle.num_heads, "emb_head", tr("emb.head_help", H=bundle.num_heads),
                           shown=by_head)
    if len(runs) > 1 and view != "rollout":  # the pattern grid, head view and layer grid are of one sentence: which
        other = runs[1 - read_i][0]
        if other.unknown_share == run.unknown_share:
            st.caption(tr("emb.details_first", text=run.text))
        else:
            n, other_n = (int(np.count_nonzero(~each.special)) for each in (run, other))
            st.caption(tr("emb.details_read", text=run.text, name=model_name, known=n - len(run.unknown), n=n,
                          other=other.text, other_known=other_n - len(other.unknown), other_n=other_n))
    run_spec = shown_spec if read_i == 0 else use_spec  # the model that read ``run`` (a pair's second: the new one)
    run_key = (shown_spec, run_spec, run.text, MAX_TOKENS)  # the caches' key: the model shown, ``run``'s own
    if by_head:  # the pattern grid right above the map: a click shows its head just below, where the visitor looks
        readout_ui.pattern_overview(cached.head_patterns(run_key, run), run_key, layer_i, head_i,
                                    f"head-patterns-{models.display_name(bundle.name)}")
    suffix = "-words" if units == "words" else ""
    name = {"head": f"L{layer_i + 1}-H{head_i + 1}", "mean": f"L{layer_i + 1}-mean", "max": f"L{layer_i + 1}-max",
            "rollout": "rollout"}[view]
    slots = st.columns(len(runs)) if len(runs) > 1 else [st.container()]
    for idx, (slot, (each, _), each_view) in enumerate(zip(slots, runs, views)):
        with slot:
            if len(runs) > 1:
                st.markdown(tr("emb.heads_of", text=each.text))
            last = "" if idx == 0 else f"-{idx + 1}"  # the translation's files and buttons: -2
            readout_ui.view_block(bundle, each, each_view, view, layer_i, head_i, f"attention-{name}{suffix}{last}",
                                  key=f"dl_head_map{last}", beside=len(runs) == 1)
    if view != "rollout":  # the rollout has no layer or head of its own: nothing below belongs to it
        layer_details(bundle, run, run_key, labels, shown, layer_i, head_i, by_head, suffix)


# ── 3. Same words, another order ──────────────────────────────────────────────────────
def part_order() -> None:
    model_error = load_model()[1] if src.asks_model else None  # the visitor's model: the view uses it where it fits
    order_ui.section(state.source, None if model_error else state.spec, state.scale, state.unit)


parts.show("embeddings", "emb_part", "emb", {"raw": part_raw, "model": part_model, "order": part_order})
links.publish("embeddings")
