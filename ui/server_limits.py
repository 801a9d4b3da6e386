"""Bounds on what one browser message or one upload may cost the server, installed in the app process.

Streamlit offers no public hook for either, so this module wraps three of its internals. Each is
named here and pinned by tests/test_server_limits.py, which fails when Streamlit changes it:

1. **Component triggers.** A Components-v2 element's events reach the server as one JSON list,
   the widget ``$$STREAMLIT_INTERNAL_KEY_<id>__events``, read by
   ``streamlit.components.v2.bidi_component.main.deserialize_trigger_list`` (the deserializer the
   element registers at each mount). Streamlit calls the element's callback once per event in the
   list, and anything that reads the element's state reads the whole list again, so a crafted
   list of 37,000 events cost minutes. :func:`read_trigger_list` takes its place: a list over
   :data:`MAX_TRIGGER_BYTES` of JSON is refused, and of the rest only the last event of each name
   is kept (a browser sends one event per name and rerun; a click is a click however often it is
   repeated). Every trigger of every element, this page's or a later one's, then costs one event
   a name at most.
2. **Uploads.** ``streamlit.runtime.memory_uploaded_file_manager.MemoryUploadedFileManager`` keeps
   every file PUT to ``/_stcore/upload_file/<session>/<id>`` in memory, as many as are sent, until
   the session is closed (minutes after its visitor left). Its instance's ``add_file`` is wrapped
   (:func:`_bounded_add_file`): a session holds at most :data:`MAX_FILES` files and
   :data:`MAX_BYTES`; a new file makes room by dropping the session's oldest. A file's name is
   shortened to ``selfattn.display.guard.MAX_NAME_CHARS`` before anything stores or draws it.
3. **Disconnects.** ``Runtime.disconnect_session`` is wrapped on the instance: a session's files
   are dropped as soon as its websocket closes (a reconnecting tab uploads again).

4. **Heavy views.** Thirty visitors opening the heaviest Heads or Embeddings link at once kept a
   Playground visitor waiting 15-22 s (every run a thread, all sharing one interpreter). A page
   marked ``heavy`` (ui/pages.py) runs inside :func:`heavy_turn`: at most :data:`HEAVY_AT_ONCE`
   such runs at a time per process; the others wait their turn, told so, and the light pages are
   never queued.

At the end of every run the app also drops the session's files that no uploader holds any more
(:func:`drop_unused_uploads`), once they are :data:`UPLOAD_GRACE_S` old (a file is PUT before the
rerun that names it).
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator

from selfattn.display.guard import short_name

LOG = logging.getLogger("selfattn.limits")

MAX_TRIGGER_BYTES = 16_384  # one trigger list as JSON; a browser's click sends ~40 bytes
MAX_FILES = 4  # files one session holds at once (the pages have one uploader each)
MAX_BYTES = 4 * 1024 * 1024  # bytes of files one session holds at once (two of the largest a page takes)
HEAVY_AT_ONCE = 1  # heavy page runs at once per process (2: a Playground open during a crowd 0.85-1.54 s; 1: 0.64-1.18 s)
NOTE_EVERY_S = 2.0  # how often a waiting run may update its note
UPLOAD_GRACE_S = 10.0  # a file no uploader names yet is kept this long (its rerun is on the way)

_lock = threading.Lock()
_uploaded_at: dict[tuple[str, str], float] = {}  # (session, file id) -> when it arrived
_installed = False
_heavy = threading.BoundedSemaphore(HEAVY_AT_ONCE)
_heavy_waiting = 0
_holder = threading.local()  # .holds: this thread's run holds a place (heavy_turn), and has not stepped out


# ── 1. Component triggers ────────────────────────────────────────────────────────────────

def read_trigger_list(text: str | None) -> list | None:
    """A Components-v2 trigger list as sent, bounded: None when it is refused or empty.

    A list longer than :data:`MAX_TRIGGER_BYTES` is refused whole; otherwise each event name keeps
    its last event, in the order they came. What is refused or cut is logged.
    """
    if text is None:
        return None
    if len(text) > MAX_TRIGGER_BYTES:
        LOG.warning("component trigger list refused: %d bytes of JSON, the limit is %d", len(text), MAX_TRIGGER_BYTES)
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    events = value if isinstance(value, list) else [value]
    kept, seen = [], set()
    for event in reversed(events):
        name = event.get("event") if isinstance(event, dict) else None
        if isinstance(name, str) and name not in seen:
            seen.add(name)
            kept.append(event)
    if len(kept) != len(events):
        LOG.warning("component trigger list of %d events cut to %d (the last of each name)", len(events), len(kept))
    return kept[::-1] or None


# ── 2. and 3. Uploads ────────────────────────────────────────────────────────────────────

def _room(held: list[tuple[str, int]], size: int) -> list[str]:
    """The oldest of ``held`` (file id, bytes; oldest first) to drop so that one more file of
    ``size`` bytes keeps a session within :data:`MAX_FILES` and :data:`MAX_BYTES`."""
    drop, total = [], sum(n for _, n in held)
    for file_id, n in held:
        if len(held) - len(drop) < MAX_FILES and total + size <= MAX_BYTES:
            break
        drop.append(file_id)
        total -= n
    return drop


def _bounded_add_file(manager):
    original = manager.add_file

    def add_file(session_id: str, file) -> None:
        file = file._replace(name=short_name(file.name))
        with _lock:
            stored = manager.file_storage.get(session_id, {})
            held = [(fid, len(rec.data)) for fid, rec in stored.items() if fid != file.file_id]
            drop = _room(held, len(file.data))
            for file_id in drop:
                manager.remove_file(session_id, file_id)
                _uploaded_at.pop((session_id, file_id), None)
            if drop:
                LOG.warning("session %s: %d uploaded files dropped to make room (at most %d files, %d bytes)",
                            session_id, len(drop), MAX_FILES, MAX_BYTES)
            original(session_id, file)
            _uploaded_at[(session_id, file.file_id)] = time.monotonic()

    add_file.selfattn_bounded = True
    return add_file


def _forget(manager, session_id: str) -> None:
    manager.remove_session_files(session_id)
    with _lock:
        for key in [k for k in _uploaded_at if k[0] == session_id]:
            del _uploaded_at[key]


def _dropping_disconnect(runtime, manager):
    original = runtime.disconnect_session

    def disconnect_session(session_id: str, *args, **kwargs):
        try:
            return original(session_id, *args, **kwargs)
        finally:
            _forget(manager, session_id)

    disconnect_session.selfattn_bounded = True
    return disconnect_session


def install() -> None:
    """Put the bounds in place in this process (idempotent; the app calls it on every run)."""
    global _installed
    if _installed:
        return
    from streamlit.components.v2.bidi_component import main as bidi
    from streamlit.runtime import Runtime

    with _lock:
        if _installed:
            return
        bidi.deserialize_trigger_list = read_trigger_list
        if Runtime.exists():
            runtime = Runtime.instance()
            manager = runtime.uploaded_file_mgr
            if not getattr(manager.add_file, "selfattn_bounded", False):
                manager.add_file = _bounded_add_file(manager)
            if not getattr(runtime.disconnect_session, "selfattn_bounded", False):
                runtime.disconnect_session = _dropping_disconnect(runtime, manager)
        _installed = True


def uploads_in_use(values: Iterable) -> set[str]:
    """The ids of the uploaded files among ``values`` (a session's state: uploaders hold theirs)."""
    from streamlit.runtime.uploaded_file_manager import UploadedFile

    return {value.file_id for value in values if isinstance(value, UploadedFile)}


def sweep_session() -> None:
    """At the end of a run: drop this session's uploads that no uploader holds (see the module)."""
    import streamlit as st
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None or not Runtime.exists():
        return
    manager = Runtime.instance().uploaded_file_mgr
    files = getattr(manager, "file_storage", None)  # {session: {file id: file}}; AppTest's runtime is a mock
    if not isinstance(files, dict) or not files.get(ctx.session_id):
        return  # no file held, nothing to drop: the session's values need not be read (most runs; 8-20 ms each)
    drop_unused_uploads(ctx.session_id, uploads_in_use(st.session_state[k] for k in list(st.session_state)), manager)


def drop_unused_uploads(session_id: str, in_use: Iterable[str], manager=None) -> int:
    """Drop the session's files that no uploader names (``in_use``: the ids that do), once they
    are :data:`UPLOAD_GRACE_S` old; the number dropped. ``manager``: the runtime's by default."""
    from streamlit.runtime import Runtime

    if manager is None:
        if not Runtime.exists():
            return 0
        manager = Runtime.instance().uploaded_file_mgr
    keep, now = set(in_use), time.monotonic()
    with _lock:
        stale = [fid for fid in list(manager.file_storage.get(session_id, {}))
                 if fid not in keep and now - _uploaded_at.get((session_id, fid), 0.0) >= UPLOAD_GRACE_S]
        for file_id in stale:
            manager.remove_file(session_id, file_id)
            _uploaded_at.pop((session_id, file_id), None)
    return len(stale)


# ── 4. Heavy views ───────────────────────────────────────────────────────────────────────

@contextlib.contextmanager
def heavy_turn(waiting: Callable[[int], None]) -> Iterator[None]:
    """Run the body when one of :data:`HEAVY_AT_ONCE` places is free in this process.

    While it waits, ``waiting(n)`` is called with the number of runs waiting when that number
    changed, at most every :data:`NOTE_EVERY_S` (the page says so; a Streamlit call there also
    lets a visitor who left or changed something stop the wait). Then ``waiting`` is called with 0
    once, to clear what it said.
    """
    global _heavy_waiting
    acquired = _heavy.acquire(blocking=False)
    try:
        if not acquired:
            with _lock:
                _heavy_waiting += 1
            try:
                said, said_at = None, 0.0
                while not acquired:
                    if _heavy_waiting != said and time.monotonic() - said_at >= NOTE_EVERY_S:
                        said, said_at = _heavy_waiting, time.monotonic()
                        waiting(said)
                    acquired = _heavy.acquire(timeout=0.5)
            finally:
                with _lock:
                    _heavy_waiting -= 1
            waiting(0)
        _holder.holds = True
        yield
    finally:
        if acquired:
            _holder.holds = False
            _heavy.release()


@contextlib.contextmanager
def outside_heavy_turn() -> Iterator[None]:
    """Give this run's place back while the body runs, and take one again after (waiting if need be).

    For work with a bound of its own that would otherwise hold every heavy view of the process
    up: a benchmark sweep (seconds; one at a time for all replicas, by its lock file).
    """
    if not getattr(_holder, "holds", False):
        yield
        return
    _holder.holds = False
    _heavy.release()
    try:
        yield
    finally:
        _heavy.acquire()
        _holder.holds = True
