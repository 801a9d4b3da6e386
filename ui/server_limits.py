"""What one message, one upload or a crowd may cost the server, applied in the app process (``app.py`` installs it).

The rules are plain Python in ``selfattn/serving/`` (``limits.py``: trigger lists, uploads, websocket messages;
``backmsg.py``: what they read of a message; ``turns.py``: every run waits its turn, heavy pages one at a time,
in a fair order); every private name of Streamlit they reach is in ``ui/streamlit_hooks.py``, checked at
start-up. This module joins the two: the state kept per session (its message budget, a rerun kept over the rate,
its downloads, its files' arrival times) and what the page says while a run waits. What Streamlit's own
configuration bounds is in ``.streamlit/config.toml`` (``server.maxUploadSize``, ``server.maxWidgetStateSize``,
``server.allowRunOnSave``, ``server.disconnectedSessionTTL``). Each refusal is logged with the session and the
reason.

- **Messages.** A rerun over the session's rate is kept, merged with the older kept one (:func:`hold_rerun`:
  their clicks kept), and sent on as soon as the budget allows, so a burst of edits ends at its last edit; the
  widget states of widgets the session never drew are dropped before Streamlit looks them up.
- **Downloads.** A session builds one download at a time, and the same file asked for again before the next run
  is the one built (:func:`one_download_at_a_time`).
- **Uploads.** A new file makes room by dropping the session's oldest (:func:`store_upload`); at the end of every
  run the session's files no uploader holds are dropped (:func:`sweep_session`), and all of them as its websocket
  closes (a reconnecting tab uploads again).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Iterable, Iterator

from selfattn.hosting import is_hosted
from selfattn.serving import backmsg, turns
from selfattn.serving.limits import (LOG, MAX_BYTES, MAX_FILES, OVER_RATE, SessionGuard, Uploads, check_message,
                                     client_of, read_trigger_list, room)
from ui import streamlit_hooks as hooks

_lock = threading.Lock()
_guards: dict[str, SessionGuard] = {}
_clients: dict[str, str] = {}  # session -> its client (_current_client), read at its first run
_uploads = Uploads()
_installed = False


def install() -> None:
    """Put the bounds in place in this process (idempotent; the app calls it on every run). A Streamlit internal
    that moved raises :class:`ui.streamlit_hooks.HookMissing` here, before anything is changed."""
    global _installed
    if _installed:
        return
    with _lock:
        if not _installed:
            hooks.install(**hooks_of_the_app())
            _installed = True


def hooks_of_the_app() -> dict:
    """What each of ``ui.streamlit_hooks.install``'s hooks calls."""
    return dict(read_triggers=read_trigger_list, around_run=_in_turn, run_started=_run_started,
                on_message=handle_message, on_download=one_download_at_a_time, on_upload=store_upload,
                on_disconnect=forget)


# ── Uploads ──────────────────────────────────────────────────────────────────────────────

def store_upload(session_id: str, file_id: str, size: int, store: Callable[[], None], manager=None) -> None:
    """Store a file (``store()``) after dropping the session's oldest to keep it within its bounds."""
    manager = hooks.uploads() if manager is None else manager
    with _uploads.lock:
        held = [(fid, n) for fid, n in hooks.held_files(manager, session_id) if fid != file_id]
        drop = room(held, size)
        for old in drop:
            manager.remove_file(session_id, old)
            _uploads.gone(session_id, old)
        if drop:
            LOG.warning("session %s: %d uploaded files dropped to make room (at most %d files, %d bytes)",
                        session_id, len(drop), MAX_FILES, MAX_BYTES)
        store()
        _uploads.arrived(session_id, file_id)


def forget(session_id: str, disconnect: Callable[[], None] = lambda: None, manager=None) -> None:
    """A session's websocket closed (``disconnect()``: Streamlit's own handling): its files and what is kept of it
    dropped, even if Streamlit's handling failed."""
    try:
        disconnect()
    finally:
        manager = hooks.uploads() if manager is None else manager
        if manager is not None:
            manager.remove_session_files(session_id)
        _uploads.forget(session_id)
        with _lock:
            _guards.pop(session_id, None)
            _clients.pop(session_id, None)


def sweep_session() -> None:
    """At the end of a run: drop this session's uploads that no uploader holds (see the module)."""
    import streamlit as st

    manager, session = hooks.uploads(), hooks.current_session()
    if manager is None or not session or not hooks.held_files(manager, session):
        return  # no file held, nothing to drop: the session's values need not be read (most runs; 8-20 ms each)
    drop_unused_uploads(session, hooks.file_ids(st.session_state[k] for k in list(st.session_state)), manager)


def drop_unused_uploads(session_id: str, in_use: Iterable[str], manager=None) -> int:
    """Drop the session's files that no uploader names (``in_use``: the ids that do), once they are
    ``UPLOAD_GRACE_S`` old; the number dropped. ``manager``: the runtime's by default."""
    manager = hooks.uploads() if manager is None else manager
    if manager is None:
        return 0
    with _uploads.lock:
        stale = _uploads.stale(session_id, [fid for fid, _ in hooks.held_files(manager, session_id)], in_use)
        for file_id in stale:
            manager.remove_file(session_id, file_id)
            _uploads.gone(session_id, file_id)
    return len(stale)


# ── Turns ────────────────────────────────────────────────────────────────────────────────

def _current_client(session: str) -> str:
    """The client ``session`` is of (``client_of``), read from its websocket's request once a session: the request does
    not change while the socket is open (AppTest's stand-in runtime made every run build it again, a tenth of a fuzz
    walk's CPU)."""
    import streamlit as st

    client = _clients.get(session)
    if client is None:
        try:
            client = client_of(st.context.headers, st.context.ip_address, session)
        except Exception:  # AppTest has no connection
            client = f"session:{session}"
        with _lock:
            _clients[session] = client
    return client


@contextlib.contextmanager
def heavy_turn(waiting: Callable[[int], None], client: str | None = None) -> Iterator[None]:
    """Run the body when its turn comes, one heavy run at a time per process (``selfattn.serving.turns.heavy_turn``:
    ``waiting(n)`` says the place ``n`` in the line, 0 clears it)."""
    session = hooks.current_session()
    with turns.heavy_turn(waiting, client if client is not None else _current_client(session), session):
        yield


outside_heavy_turn = turns.outside_heavy_turn
_heavy_hashes: set[str] = set()


def _in_turn(run: Callable):
    """A run, whole or a fragment's (``run()``: Streamlit's): its end gives its place in the line back."""
    with turns.run_scope():
        return run()


def run_is_heavy(run: turns.Run) -> bool:
    """Whether ``run`` is of a heavy page (``Page.heavy`` in ui/navigation.py)."""
    from ui.navigation import PAGES

    heavy = {p.url_path for p in PAGES if p.heavy}
    if not _heavy_hashes:
        _heavy_hashes.update(hooks.page_hash(path) for path in heavy)
    return run.is_of(heavy, _heavy_hashes)


def _run_started(run: turns.Run) -> None:
    """A run waits its turn as it starts, before any of the app's code: a heavy place on a heavy page, else a light
    one. A whole run that waits longer than ``NOTE_AFTER_S`` says so at the top of the page; a fragment's run waits
    without a word (it may draw only inside its fragment, which has not started)."""
    heavy, box = run_is_heavy(run), []

    def note(n: int) -> None:
        if run.fragment:
            return
        import streamlit as st

        from ui.widgets import tr

        if not box:
            if not n:
                return
            box.append(st.empty())
        if n:
            box[0].info(tr("common.queue" if heavy else "common.busy", n=n), icon=":material/hourglass:")
        else:
            box[0].empty()

    turns.run_started(heavy=heavy, client=_current_client(run.session), session=run.session, note=note,
                      check=run.check)


# ── Websocket messages ───────────────────────────────────────────────────────────────────

def guard_of(session_id: str) -> SessionGuard:
    with _lock:
        return _guards.setdefault(session_id, SessionGuard())


def _check(session, guard: SessionGuard, msg) -> str | None:
    """Why ``msg`` is refused (``selfattn.serving.limits.check_message``), or None after dropping from a rerun the
    widget states of widgets ``session`` never drew."""
    why = check_message(backmsg.read(msg), guard, hosted=is_hosted())
    if why is None and backmsg.read(msg).kind == "rerun_script":
        dropped = backmsg.keep_widgets(msg, hooks.session_of(session)[1])
        if dropped:
            LOG.warning("%d widget states of widgets never drawn, or of another kind than the widget takes, dropped",
                        dropped)
    return why


def hold_rerun(guard: SessionGuard, msg) -> bool:
    """Keep the rerun ``msg`` to run when the session's budget allows (:func:`_run_held`), in place of, and merged
    with, the one kept already (``selfattn.serving.backmsg.newest_rerun``): a burst over the rate ends with its
    last edit, never an older one. True when nothing was kept before (a delivery is to be planned)."""
    first = guard.pending is None
    guard.pending = msg if first else backmsg.newest_rerun(guard.pending, msg, hooks.coalesce_widget_states)
    return first


def _run_held(session, guard: SessionGuard, deliver) -> None:
    """Send the session's kept rerun on to Streamlit once its budget holds a message; later again if not yet."""
    sid = hooks.session_of(session)[0]
    msg = guard.pending
    if msg is None or _guards.get(sid) is not guard:  # delivered already, or the session has closed
        return
    why = _check(session, guard, msg)
    if why == OVER_RATE:
        _plan_delivery(session, guard, deliver)
        return
    guard.pending = None
    if why is not None:
        LOG.warning("session %s: message refused: %s", sid[:8], why)
        return
    try:
        deliver(msg)
    except Exception:  # Streamlit handles its own; a failure here must not stop the event loop's callback
        LOG.exception("session %s: a kept rerun failed", sid[:8])


def _plan_delivery(session, guard: SessionGuard, deliver) -> None:
    delay = guard.until_next(time.monotonic()) + 0.005
    try:
        asyncio.get_running_loop().call_later(delay, _run_held, session, guard, deliver)
    except RuntimeError:  # no event loop in this thread (Streamlit calls this on its loop): a timer instead
        timer = threading.Timer(delay, _run_held, (session, guard, deliver))
        timer.daemon = True
        timer.start()


def handle_message(session, msg, deliver: Callable) -> None:
    """A websocket message of ``session``: ``deliver(msg)`` to Streamlit if the rules take it, kept if it is a
    rerun over the rate, else refused and logged."""
    sid = hooks.session_of(session)[0]
    guard = guard_of(sid)
    rerun = backmsg.read(msg).kind == "rerun_script"
    if rerun and guard.pending is not None:  # one is kept already: this newer one takes its place
        hold_rerun(guard, msg)
        return None
    why = _check(session, guard, msg)
    if why == OVER_RATE and rerun:
        hold_rerun(guard, msg)
        _plan_delivery(session, guard, deliver)
        LOG.info("session %s: a rerun over the rate is kept to run when the budget allows", sid[:8])
        return None
    if why is not None:
        LOG.warning("session %s: message refused: %s", sid[:8], why)
        return None
    return deliver(msg)


async def one_download_at_a_time(session_id: str, request, build):
    """The answer to a download ``request`` (``await build()``: Streamlit's), built one at a time per session, and
    once a run: the same file asked for again before the next run is the one built (a copy, with its request's id)."""
    guard = guard_of(session_id)
    loop = asyncio.get_running_loop()
    if guard.download_lock is None or guard.download_lock[0] is not loop:
        guard.download_lock = (loop, asyncio.Lock())
    file_id = request.deferred_file.file_id
    async with guard.download_lock[1]:
        built = guard.built.get(file_id)
        if built is None:
            built = await build()
            if not built.error_msg:
                guard.built[file_id] = built
    answer = type(built)()
    answer.CopyFrom(built)
    answer.request_id = request.request_id
    return answer
