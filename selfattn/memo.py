"""Per-process caches bounded by bytes, not entries (plain Python; no Streamlit).

A cache of views holds what a stranger asks for: 1,000 distinct sentences or 300 seeds of the block page
are 1,000 or 300 entries, and an entry's size depends on the view (one 32-token block view is 4 MiB, a
short sentence 50 KiB). Counting entries bounds nothing; counting bytes does. Each cache here has a budget
in bytes, evicts its least recently used entries to stay within it, and refuses to keep one entry larger
than a quarter of it (the value is returned, not kept). :data:`BUDGETS` lists every budget; their sum is
the most the caches of one process can hold (docs/reliability.md states it, tests/test_memo.py holds it).

A value's size is measured once, as it is kept (:func:`nbytes`): numpy arrays by their buffers (an array
seen twice in one value counts once), containers, dataclasses and objects by what they hold, text by its
length. Errors are not cached. Two threads asking for the same key at once compute it once: the second
waits for the first (a class opening one link computes it once).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import sys
import threading
from collections import OrderedDict
from typing import Any, Callable, Hashable

import numpy as np

MIB = 1024 * 1024

# Every cache's budget in bytes, by name. The views are the big ones; the chart specs and parsed tables small.
BUDGETS: dict[str, int] = {
    "block.toy": 19 * MIB,  # the Transformer block toy: a 32-token, 6-layer result is about 4 MiB
    "block.tables": 4 * MIB,  # the block page's parsed tables
    "block.real": 6 * MIB,  # one real MiniLM layer recomputed: about 0.5 MiB
    "block.base": 2 * MIB,  # the seeded tables as text: a 16-token, 6-layer, d_ff 64 view's are about 1.2 MB
    "emb.embeddings": 12 * MIB,  # token vectors of a sentence (n × 384 or 768)
    "emb.model_run": 16 * MIB,  # a model's attention maps for a sentence (layers × heads × n × n)
    "emb.raw_view": 9 * MIB,  # the raw form of a sentence, as drawn
    "emb.head_trace": 6 * MIB,  # one head recomputed
    "emb.patterns": 2 * MIB,  # what each head does
    "emb.grid_spec": 4 * MIB,  # the pattern grid's chart spec
    "emb.head_view_spec": 6 * MIB,  # the head view's chart spec
    "heads.torch_checks": 1 * MIB,  # the Heads page's torch differences
    "seq2seq.result": 4 * MIB,  # the Encoder–decoder page: an 8 + 8-token, 4 + 4-layer, d = 16 result is about 0.3 MiB
    "seq2seq.tables": 1 * MIB,  # its parsed tables
    "seq2seq.base": 3 * MIB,  # its seeded tables as text: an 8 + 8-token, 4 + 4-layer, d_ff 64 view's are about 1.9 MB
    "playground.result": 1 * MIB,  # the Playground's steps for one view: a 32-token, 16-wide one is about 0.2 MiB
    "ef.charts": 3 * MIB,  # Efficient attention's chart specs (a 64-token tile grid's is about 0.4 MiB)
    "poet.checks": 1 * MIB,  # the shipped poet's two checks of a poem (two numbers, by its tokens)
    "poet.poems": 16 * MIB,  # the shipped poet's poems: a four-line poem is about 4 MiB (an eight-line one, too big
    # to keep, is returned and held by its session only)
}
TOTAL_BUDGET = sum(BUDGETS.values())  # 116 MiB
LARGEST_SHARE = 4  # one entry keeps at most a quarter of its cache's budget


def nbytes(value: Any, _seen: set[int] | None = None) -> int:
    """The bytes ``value`` holds, roughly as its process does: arrays by buffer, containers by what they hold."""
    seen = set() if _seen is None else _seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        base = value
        while isinstance(base.base, np.ndarray):  # a view holds its base's buffer alive
            base = base.base
        if base is not value and id(base) in seen:
            return 0
        seen.add(id(base))
        return int(base.nbytes) + 112
    if isinstance(value, (str, bytes, bytearray, int, float, complex, bool)) or value is None:
        return sys.getsizeof(value)
    if isinstance(value, dict):
        return sys.getsizeof(value) + sum(nbytes(k, seen) + nbytes(v, seen) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return sys.getsizeof(value) + sum(nbytes(v, seen) for v in value)
    if dataclasses.is_dataclass(value):
        return sys.getsizeof(value) + sum(nbytes(getattr(value, f.name), seen) for f in dataclasses.fields(value))
    if hasattr(value, "__dict__"):
        return sys.getsizeof(value) + nbytes(vars(value), seen)
    return sys.getsizeof(value)


class ByteCache:
    """A least-recently-used cache of at most ``max_bytes`` (see the module)."""

    def __init__(self, name: str, max_bytes: int):
        self.name, self.max_bytes = name, max_bytes
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._pending: dict[Hashable, threading.Event] = {}
        self._lock = threading.Lock()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The value kept for ``key``, or ``compute()`` (kept when it fits)."""
        while True:
            with self._lock:
                if key in self._entries:
                    self._entries.move_to_end(key)
                    return self._entries[key][0]
                waiting = self._pending.get(key)
                if waiting is None:
                    self._pending[key] = threading.Event()
                    break
            waiting.wait()  # another thread computes it; then look again (it may have failed or not fit)
        try:
            value = compute()
            self._keep(key, value)
            return value
        finally:
            with self._lock:
                self._pending.pop(key).set()

    def _keep(self, key: Hashable, value: Any) -> None:
        size = nbytes(value)
        if size * LARGEST_SHARE > self.max_bytes:
            return
        with self._lock:
            self._entries[key] = (value, size)
            self.bytes += size
            while self.bytes > self.max_bytes:
                _, (_, dropped) = self._entries.popitem(last=False)
                self.bytes -= dropped

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0


CACHES: dict[str, ByteCache] = {}


def cache(name: str) -> ByteCache:
    """The process's cache ``name`` (a key of :data:`BUDGETS`), made on first use."""
    if name not in CACHES:
        CACHES.setdefault(name, ByteCache(name, BUDGETS[name]))
    return CACHES[name]


def held_bytes() -> int:
    """What every cache of this process holds now, in bytes."""
    return sum(c.bytes for c in CACHES.values())


def cached(name: str, key: Callable[..., Hashable] | None = None):
    """Decorate a function so that its results are kept in the cache ``name``.

    ``key(*args, **kwargs)`` gives what the result depends on (by default the arguments themselves): pass
    one where an argument is unhashable or holds more than the value follows from.
    """
    def wrap(function):
        @functools.wraps(function)
        def run(*args, **kwargs):
            k = key(*args, **kwargs) if key is not None else (args, tuple(sorted(kwargs.items())))
            return cache(name).get(k, lambda: function(*args, **kwargs))

        run.cache = lambda: cache(name)
        run.clear = lambda: cache(name).clear()  # as st.cache_resource's functions have it
        return run

    return wrap


def fingerprint(value: Any) -> Hashable:
    """A hashable stand-in for ``value`` to key a cache by (:func:`cached`'s ``key``): numbers, text and None as
    they are; arrays by shape, type and a digest of their bytes; lists, tuples, sets, dicts and dataclasses by
    what they hold.

    Raises:
        TypeError: a value of any other kind (a key must say everything a result follows from).
    """
    if value is None or isinstance(value, (str, bytes, bool, int, float, complex, np.generic)):
        return value
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return ("object array", value.shape, fingerprint(value.tolist()))
        digest = hashlib.blake2b(np.ascontiguousarray(value).tobytes(), digest_size=16).hexdigest()
        return ("array", value.shape, value.dtype.str, digest)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(fingerprint(v) for v in value))
    if isinstance(value, (set, frozenset)):
        return ("set", tuple(sorted((fingerprint(v) for v in value), key=repr)))
    if isinstance(value, dict):
        return ("dict", tuple((fingerprint(k), fingerprint(v)) for k, v in value.items()))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__qualname__, tuple(fingerprint(getattr(value, f.name)) for f in dataclasses.fields(value)))
    raise TypeError(f"no fingerprint for a {type(value).__name__}")
