"""Load the bundled English model in the background when the app starts.

Importing transformers and its model code takes about 4 s on a 2-core machine (measured in
docs/benchmarks.md); started with the server, that wait is over before a visitor reaches the
Sentence embeddings page. The page's own cached loader then finds the model ready.
"""

from __future__ import annotations

import atexit
import gc
import threading

import streamlit as st


def _load() -> None:
    from selfattn.text import models

    try:
        models.load_model("minilm")
    except Exception:  # noqa: BLE001 - the page loads it again and reports any error in plain words
        pass
    # Streamlit runs gc.collect() after every page run; walking torch, transformers and the model
    # each time cost 170 ms per edit (docs/benchmarks.md). What is loaded by now lives as long as
    # the process, so move it out of the collector's way: the collection then takes 1-3 ms.
    gc.freeze()


@st.cache_resource(show_spinner=False)
def start() -> threading.Thread:
    """Start the background load once per process; return its thread (tests and benchmarks join it).

    Hosted, torch computes on one thread from here on (``bench.limit_threads``), before anything
    computes: a replica then takes one core for every page (a model's heads as much as a benchmark),
    and replicas on one machine do not take each other's cores.
    """
    from selfattn import bench

    bench.limit_threads()
    thread = threading.Thread(target=_load, name="selfattn-warmup", daemon=True)
    thread.start()
    # A process that ends while the thread is still inside torch would abort ("terminate called
    # without an active exception", exit code 134): let the load finish first (a few seconds).
    atexit.register(thread.join)
    return thread


def wait() -> None:
    """Block until the background load has finished (starting it if the app has not)."""
    start().join()
