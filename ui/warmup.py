"""Load the bundled English model in the background when the app starts.

Importing transformers and its model code takes about 4 s on a 2-core machine (measured in
docs/benchmarks.md); started with the server, that wait is over before a visitor reaches the
Sentence embeddings page. The page's own cached loader then finds the model ready.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
import threading

import streamlit as st

from selfattn import hosting


# What the pages import beyond the frame, pure Python (no Streamlit element is made on this thread): torch and the
# core's modules, about 1.5 s on 2 cores, paid here and not in the first open of a page (docs/benchmarks.md).
PAGE_MODULES = ("selfattn.core.compare", "selfattn.core.block", "selfattn.block.compute", "selfattn.text.embeddings",
                "selfattn.text.readout", "selfattn.bench.sweep")


def _load() -> None:
    import importlib

    from selfattn import bench  # imports torch: 1.4 s on 2 cores, here rather than in the first visitor's run
    from selfattn.text import models

    bench.limit_threads()
    for name in PAGE_MODULES:
        importlib.import_module(name)

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

    Hosted, torch computes on one thread (``bench.limit_threads``, set by the thread as soon as torch is
    imported, and ``OMP_NUM_THREADS`` before that, which torch reads as it loads, should a page import it
    first): a replica then takes one core for every page (a model's heads as much as a benchmark), and
    replicas on one machine do not take each other's cores. Importing torch is the thread's work too, not the
    first visitor's (it was 1.4 of their 2.0 s, docs/benchmarks.md).
    """
    if hosting.is_hosted() and "torch" not in sys.modules:
        os.environ.setdefault("OMP_NUM_THREADS", "1")  # a page that imports torch before the thread is done: 1 too
    thread = threading.Thread(target=_load, name="selfattn-warmup", daemon=True)
    thread.start()
    # A process that ends while the thread is still inside torch would abort ("terminate called
    # without an active exception", exit code 134): let the load finish first (a few seconds).
    atexit.register(thread.join)
    return thread


def wait() -> None:
    """Block until the background load has finished (starting it if the app has not)."""
    start().join()
