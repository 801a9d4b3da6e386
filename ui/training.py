"""A model trained in the app's process, locally (the translator's and the poet's "train your own"): one run at a
time in the whole process, whichever page asks (two would share its cores), and its progress drawn at most a few
times a second (every bar update is a message to the browser)."""

from __future__ import annotations

import contextlib
import math
import threading
import time
from typing import Callable, Iterator

import streamlit as st

TRAINING = threading.Lock()  # held while a run trains, by any session of any page
DRAW_EVERY_S = 0.5


@contextlib.contextmanager
def turn(busy: str) -> Iterator[bool]:
    """The process's one training turn: yields True while this run holds it, or says ``busy`` (another run is going
    on, in this session or another) and yields False."""
    if not TRAINING.acquire(blocking=False):
        st.warning(busy, icon=":material/hourglass_top:")
        yield False
        return
    try:
        yield True
    finally:
        TRAINING.release()


def throttled(draw: Callable[..., None], every_s: float = DRAW_EVERY_S) -> Callable[..., None]:
    """``draw(done, total, *rest)`` at most once every ``every_s`` seconds, and always at the last step."""
    last = [-math.inf]

    def progress(done: int, total: int, *rest) -> None:
        now = time.monotonic()
        if done == total or now - last[0] >= every_s:
            last[0] = now
            draw(done, total, *rest)

    return progress
