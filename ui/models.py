"""Cached models and embeddings, shared by the Sentence embeddings, Heads & devices and Transformer block pages.

Models and character vectors load once per process (``st.cache_resource``); results are
cached by their inputs so that a rerun with the same sentence costs nothing. Results are
kept as the objects themselves (no pickling).
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from selfattn import memo
from selfattn.core.attention import AttentionTrace
from selfattn.errors import InputError
from selfattn.text import models
from selfattn.text.embeddings import TokenEmbeddings, embed, get_source
from selfattn.text.prefetch import check_visitor_download
from selfattn.text.raw_view import RawView
from selfattn.text.raw_view import raw_view as compute_raw_view
from ui import state as settings
from ui import warmup
from ui.widgets import show_error, tr


@dataclass(frozen=True)
class EmbeddingsState:
    """What the Sentence embeddings page computes part 1 and the model from: its widgets and link, read in order.

    The readout's choices (tokens or words, which map, layer, head) are read after the model is loaded,
    since their ranges follow it.
    """

    mode: str  # "single" or "pair"
    texts: tuple[str, ...]  # the sentence, or a pair's two
    source: str  # where the vectors come from: a name in selfattn.text.sources.REGISTRY
    spec: str | None  # the visitor's model, None unless the source asks for one
    kind: str  # "static" or "contextual" as the switch shows it (a sentence may fall back to static)
    dims: int  # columns of X drawn, at most
    scale: bool  # divide XXᵀ by √d
    unit: bool  # draw unit-length rows


@st.cache_resource(show_spinner=False, max_entries=4)
def model(spec: str) -> models.ModelBundle:
    """A loaded model, once per process per spec."""
    warmup.wait()  # the bundled model may be loading in the background already
    return models.load_model(spec)


@memo.cached("emb.embeddings")
def embeddings(text: str, source: str, kind: str, layer: int | None, spec: str | None,
               max_tokens: int = models.MAX_TOKENS) -> TokenEmbeddings:
    """``embed`` with its result cached by its arguments."""
    wanted = get_source(source).model_spec(spec)
    if wanted:
        model(wanted)  # load (and cache) the model first, under its own spinner
    return embed(text, source, kind=kind, layer=layer, model=spec, max_tokens=max_tokens)


@memo.cached("emb.model_run")
def model_run(spec: str, text: str, max_tokens: int = models.MAX_TOKENS) -> models.ModelRun:
    """One forward pass of a model over a sentence (its first ``max_tokens`` tokens), with every attention map."""
    return models.run_model(model(spec), text, max_tokens)


@memo.cached("emb.patterns", key=lambda key, _run: key)
def head_patterns(key: tuple, _run: models.ModelRun) -> list:
    """:func:`selfattn.text.readout.head_patterns` of a model run, once per (model, sentence) ``key``."""
    from selfattn.text.readout import head_patterns as patterns

    return patterns(_run.attentions, _run.special)


def embeddings_key(emb: TokenEmbeddings) -> tuple:
    """What ``emb``'s vectors follow from: one key, one set of vectors (the key of what is computed from them)."""
    return emb.source, emb.model, emb.kind, emb.layer, emb.text, len(emb.tokens)


@memo.cached("emb.raw_view", key=lambda key, _emb, unit, scale: (key, unit, scale))
def raw_view(key: tuple, _emb: TokenEmbeddings, unit: bool, scale: bool) -> RawView:
    """:func:`selfattn.text.raw_view.raw_view` of ``_emb``, once per process per ``key`` (:func:`embeddings_key`)."""
    return compute_raw_view(_emb.vectors, unit=unit, scale=scale)


@memo.cached("emb.head_trace", key=lambda run_key, layer, head, _bundle, _run: (run_key, layer, head))
def head_trace(run_key: tuple, layer: int, head: int, _bundle: models.ModelBundle,
               _run: models.ModelRun) -> AttentionTrace:
    """:func:`selfattn.text.models.recompute_head_attention`, once per (model, sentence) ``run_key``, layer and head."""
    return models.recompute_head_attention(_bundle, _run, layer, head)


def count(noun: str, n: int) -> str:
    """``n`` with its noun in the current language, singular or plural: "1 layer", "6 layers".

    Args:
        noun: "layers" or "heads" (the catalog has ``emb.n_<noun>`` and ``emb.n_<noun>_one``).
    """
    return tr(f"emb.n_{noun}_one" if n == 1 else f"emb.n_{noun}", n=n)


def load_with_status(spec: str, *, kept: bool) -> models.ModelBundle:
    """Load a model, showing a status box the first time (loading takes a few seconds).

    The box ends as "complete" with the model's sizes, or as "error" with the reason inside it,
    in plain words (said once: the caller need not repeat it).

    Args:
        spec: "minilm", a hub id or a folder.
        kept: whether the page still shows an earlier result (the message then says so).

    Raises:
        InputError: the model cannot be loaded (already explained on the page).
    """
    if spec in _loaded():
        return model(spec)
    if not spec.strip():  # nothing to load, so no loading box: just say what is missing
        try:
            return model(spec)
        except InputError as exc:
            show_error(exc, kept=kept)
            raise
    name = models.display_name(spec)
    with st.status(tr("emb.loading_model", name=name), expanded=False) as status:
        try:
            bundle = model(spec)
        except InputError as exc:
            status.update(label=tr("emb.load_failed", name=name), state="error", expanded=True)
            if exc.code not in models.DOWNLOADABLE:
                show_error(exc, kept=kept)
                raise
            wanted = exc.params.get("name", spec)  # the id it is stored under (bert-base-chinese: google-bert/...)
            try:
                check_visitor_download(wanted)
            except InputError as refusal:  # hosted without SELFATTN_ALLOW_DOWNLOADS, or the host set offline mode
                show_error(refusal, kept=kept)
                raise refusal from None
            show_error(exc, kept=kept)
            offer_download(wanted)
            raise
        status.update(label=tr("emb.loaded_model", name=models.display_name(bundle.name),
                               layers=count("layers", bundle.num_layers), heads=count("heads", bundle.num_heads),
                               d=bundle.hidden_size), state="complete")
    _loaded().add(spec)
    return bundle


@st.cache_resource(show_spinner=False)
def _download_lock():
    import threading

    return threading.Lock()  # one download at a time per process, whoever asks


def offer_download(spec: str) -> None:
    """A model that is not on this machine: offer its download, and download it when the visitor clicks.

    Nothing reaches the hub before the click: not even the size (a page open must not make a
    request). The click asks for the file listing, then fetches config, tokenizer and safetensors
    weights into the Hugging Face cache (from ``HF_ENDPOINT`` when set), with a progress bar;
    afterwards the model loads offline. The caller has checked ``check_visitor_download``.
    """
    from selfattn.text.prefetch import download_estimate, download_model, format_bytes

    estimate = download_estimate(spec)  # the size and time of a model we know, said before the click
    if estimate is None:
        st.info(tr("emb.download_offer", name=spec), icon=":material/cloud_download:")
    else:
        size, (fast, slow) = estimate
        st.info(tr("emb.download_offer_sized", name=spec, size=format_bytes(size), fast=round(fast),
                   slow=round(slow / 60)), icon=":material/cloud_download:")
    # A callback, not the button's return value: the request survives an aborted run (as on the Heads page).
    asked = st.session_state.pop("emb_download", None) == spec
    st.button(tr("emb.download_button", name=spec), key=f"download_{spec}", type="primary",
              icon=":material/download:", on_click=st.session_state.update, kwargs={"emb_download": spec})
    if not asked:
        return
    bar = st.progress(0.0, text=tr("emb.download_asking", name=spec))

    def progress(done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0),
                     text=tr("emb.downloading", name=spec, done=format_bytes(done), total=format_bytes(total)))

    try:
        check_visitor_download(spec)  # again: the click may come from a crafted message
        with _download_lock():
            download_model(spec, progress=progress)
    except InputError as exc:
        bar.empty()
        show_error(exc, kept=False)
        return
    st.rerun()  # the model now loads from the cache


def number_slider(container, label: str, total: int, key: str, help: str, *, shown: bool = True) -> int:
    """Pick one of ``total`` layers or heads, numbered 1 .. total as in the headings and file names.

    Args:
        shown: draw the slider; when False (a view without layers or heads) the choice is kept as it is.

    Returns:
        The 0-based index (the slider's value minus 1).
    """
    settings.keep(key, range(1, total + 1))  # a smaller model than before: its last layer or head
    if not shown:
        return st.session_state[key] - 1
    if total == 1:  # a slider needs two ends
        container.caption(tr("emb.only_one", label=label))
        return 0
    return container.slider(label, 1, total, key=key, help=help) - 1


@st.cache_resource(show_spinner=False)
def _loaded() -> set[str]:
    return set()


CHINESE_MODEL = "google-bert/bert-base-chinese"  # the Chinese model the page offers (hosted too: HOSTED_ALLOWLIST)


def mostly_unknown(run: models.ModelRun) -> bool:
    """True when at least half of the sentence's own tokens became [UNK] ([CLS] and [SEP] not counted)."""
    n = run.own_tokens
    return n > 0 and 2 * len(run.unknown) >= n


def unknown_guidance(run: models.ModelRun, model_name: str, tokens: str, *, titled: bool, charvec_shown: bool,
                     offer: bool = True) -> bool:
    """Say plainly that the model does not know most of the sentence, and lead to what works.

    For Chinese: the character vectors of part 1, and a Chinese model: a button that picks it when it is
    on this machine or may be downloaded here (the download itself waits for its own button, which says
    the size first), honest words when it cannot be had.

    Args:
        tokens: the unknown tokens' text, listed for the message.
        titled: name the sentence (a pair has two).
        charvec_shown: part 1 already shows the character vectors.
        offer: show the way to what works (a pair shows it once).

    Returns:
        Whether the way to what works was shown.
    """
    from selfattn.text.embedding_text import has_cjk

    n = run.own_tokens
    message = tr("emb.mostly_unknown", name=model_name, known=n - len(run.unknown), n=n, tokens=tokens)
    if titled:
        message = tr("emb.heads_of", text=run.text) + "\n\n" + message
    st.warning(message, icon=":material/help:")
    if not offer or not any(has_cjk(piece) for piece in run.unknown_text):
        return False
    path = (tr("emb.chinese_path", charvec=tr("emb.source_charvec")) if charvec_shown
            else tr("emb.chinese_path_pick", charvec=tr("emb.source_charvec"), pick=tr("emb.source_pick")))
    offer_chinese_model(path, "use_chinese_model")
    return True


def offer_chinese_model(lead: str, key: str) -> None:
    """The way to a Chinese model's heads, after ``lead``: here already, its download, or honest words when it
    cannot be had; how to install it beforehand (a mirror through ``HF_ENDPOINT``); a button that picks it.

    Args:
        lead: what works for Chinese on this page, said first.
        key: the button's widget key (one per place that offers it).
    """
    from selfattn.text.prefetch import cached_folder, download_estimate, format_bytes, visitors_may_download

    try:
        here = cached_folder(CHINESE_MODEL) is not None
    except InputError:  # not offered here (a hosted allow-list without it)
        here = False
    if here:
        way = "emb.chinese_here"
    elif visitors_may_download():
        way = "emb.chinese_download"
    else:
        way = "emb.chinese_none"
    size, (fast, slow) = download_estimate(CHINESE_MODEL)
    parts = [lead, tr(way, name=CHINESE_MODEL, size=format_bytes(size), fast=round(fast), slow=round(slow / 60))]
    if not here:
        parts.append(tr("emb.chinese_prefetch", name=CHINESE_MODEL))
    st.info("\n\n".join(parts), icon=":material/translate:")
    if way != "emb.chinese_none":
        st.button(tr("emb.use_chinese", name=CHINESE_MODEL), key=key, icon=":material/translate:",
                  on_click=use_chinese_model)


def use_chinese_model() -> None:
    """Callback: heads from the Chinese model (its download, when needed, is offered with its size)."""
    settings.put("emb_source", "hf")
    settings.put("emb_model", CHINESE_MODEL)
