"""The session state as a Streamlit box reads it: a key at a time, not a copy of every key.

Streamlit's select, number, text, radio, slider and time boxes ask ``get_session_state().filtered_state`` whether
their own key holds None, and ``filtered_state`` copied every key of the session to answer (a map's or an editor's
key through a class built per read): 8-12 copies a run on the pages of typed tables (docs/benchmarks.md, "A box
reads its own key"). :class:`KeyView` is the state such a box is handed instead: everything is the state's own but
``filtered_state``, which reads the one key asked (``one(state, key)``, given by ``ui/streamlit_hooks.py``, which
holds the session's lock for it) and is the state's own copy when walked whole. Plain Python, tested without
Streamlit (tests/test_server_limits.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

Read = Callable[[Any, str], Any]  # (the state, a key) -> the key's value, KeyError when it has none


class KeyView:
    """``state`` with a ``filtered_state`` read a key at a time by ``one``."""

    def __init__(self, state, one: Read) -> None:
        self._state, self._one = state, one

    def __getattr__(self, name: str):
        return getattr(self._state, name)

    @property
    def filtered_state(self) -> OneKey:
        return OneKey(self._state, self._one)


class OneKey(Mapping):
    """``filtered_state`` a key at a time (``in``, ``[]``, ``get``); walked whole, the state's own copy."""

    def __init__(self, state, one: Read) -> None:
        self._state, self._one = state, one

    def __getitem__(self, key: str):
        return self._one(self._state, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._state.filtered_state)

    def __len__(self) -> int:
        return len(self._state.filtered_state)
