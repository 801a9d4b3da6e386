"""Cached access to embeddings and models for the Sentence embeddings page.

Models and character vectors load once per process (``st.cache_resource``); results are
cached by their inputs so that a rerun with the same sentence costs nothing. Results are
kept as the objects themselves (no pickling).
"""

from __future__ import annotations

import streamlit as st

from selfattn import models
from selfattn.embeddings import TokenEmbeddings, embed
from ui import warmup
from ui.common import tr


@st.cache_resource(show_spinner=False, max_entries=4)
def model(spec: str) -> models.ModelBundle:
    """A loaded model, once per process per spec."""
    warmup.wait()  # the bundled model may be loading in the background already
    return models.load_model(spec)


@st.cache_resource(show_spinner=False, max_entries=128)
def embeddings(text: str, source: str, kind: str, layer: int | None, spec: str | None) -> TokenEmbeddings:
    """``embed`` with its result cached by its arguments."""
    if source in ("minilm", "hf") or (source == "auto" and spec):
        model(spec or "minilm")  # load (and cache) the model first, under its own spinner
    return embed(text, source, kind=kind, layer=layer, model=spec)


@st.cache_resource(show_spinner=False, max_entries=64)
def model_run(spec: str, text: str) -> models.ModelRun:
    """One forward pass of a model over a sentence, with every attention map."""
    return models.run_model(model(spec), text)


def load_with_status(spec: str) -> models.ModelBundle:
    """Load a model, showing a status box the first time (loading takes a few seconds)."""
    if spec in _loaded():
        return model(spec)
    with st.status(tr("emb.loading_model", name=spec), expanded=False) as status:
        bundle = model(spec)
        status.update(label=tr("emb.loaded_model", name=bundle.name, layers=bundle.num_layers,
                               heads=bundle.num_heads, d=bundle.hidden_size), state="complete")
    _loaded().add(spec)
    return bundle


@st.cache_resource(show_spinner=False)
def _loaded() -> set[str]:
    return set()
