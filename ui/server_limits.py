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

   Turns are first come, first served, and one client holds at most one place in the line: of a
   client's waiting runs only the first can be served, so a client with ten sockets waits as one
   visitor does. A client is its address as the proxy's header names it where
   ``SELFATTN_CLIENT_HEADER`` names one (``deploy/serve.sh`` sets ``X-Real-IP``, which nginx
   writes itself), else the connection's address, else its session.
5. **Websocket messages.** Streamlit answers some messages itself, without a run of the app:
   ``AppSession.handle_backmsg`` is wrapped on the class (:func:`check_message` decides), and
   ``DeferredFileHandler.handle`` (a download button's file, built when clicked) on its class:

   - only the kinds a browser sends are taken (:data:`VISITOR_MESSAGES`); the developer's
     (:data:`DEVELOPER_MESSAGES`: git information, clearing every cache of the process, run on
     save) only when not hosted; any other kind is refused;
   - a session sends at most :data:`MESSAGES_PER_S` messages a second (bursts of
     :data:`MESSAGE_BURST`); the rest are dropped;
   - a rerun carries at most :data:`MAX_WIDGET_STATES` widget states, and those of widgets the
     session never drew are dropped before Streamlit looks them up;
   - a request for upload URLs names at most :data:`MAX_FILE_NAMES` files;
   - of the backend operations only downloads and table chunks are taken; a session builds one
     download at a time, and the same file asked for again before the next run is the one built.

   Each refusal is logged with the session and the reason.

At the end of every run the app also drops the session's files that no uploader holds any more
(:func:`drop_unused_uploads`), once they are :data:`UPLOAD_GRACE_S` old (a file is PUT before the
rerun that names it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator

from selfattn.display.guard import short_name
from selfattn.hosting import is_hosted

LOG = logging.getLogger("selfattn.limits")

MAX_TRIGGER_BYTES = 16_384  # one trigger list as JSON; a browser's click sends ~40 bytes
MAX_FILES = 4  # files one session holds at once (the pages have one uploader each)
MAX_BYTES = 4 * 1024 * 1024  # bytes of files one session holds at once (two of the largest a page takes)
HEAVY_AT_ONCE = 1  # heavy page runs at once per process (2: a Playground open during a crowd 0.85-1.54 s; 1: 0.64-1.18 s)
NOTE_EVERY_S = 2.0  # how often a waiting run may update its note
UPLOAD_GRACE_S = 10.0  # a file no uploader names yet is kept this long (its rerun is on the way)

CLIENT_HEADER_ENV = "SELFATTN_CLIENT_HEADER"  # the proxy's header naming the visitor's address (serve.sh: X-Real-IP)

# What a browser sends (Streamlit 1.67's frontend): a rerun per committed edit, click or page change, a
# heartbeat every few seconds, Stop, upload URLs before an upload, a download's file and a table's chunks.
VISITOR_MESSAGES = frozenset({"rerun_script", "app_heartbeat", "stop_script", "file_urls_request",
                              "backend_operation_request"})
# The developer's menu: git information (git runs on the event loop: 1,000 requests froze every visitor
# for 7-12 s), clearing every cache of the process (every visitor's next open 3.3x slower), run on save.
DEVELOPER_MESSAGES = frozenset({"load_git_info", "clear_cache", "set_run_on_save"})
BACKEND_OPERATIONS = frozenset({"deferred_file", "dataframe_chunk"})  # downloads, st.dataframe's chunks
MESSAGES_PER_S = 20.0  # a session's messages a second, sustained: typing and clicking make a few
MESSAGE_BURST = 40  # and at once: a page switch after a burst of clicks
MAX_WIDGET_STATES = 200  # widget states in one rerun: the busiest page draws about 70 widgets
MAX_FILE_NAMES = 1  # file names in one request for upload URLs: each uploader of the app takes one file

_lock = threading.Lock()
_uploaded_at: dict[tuple[str, str], float] = {}  # (session, file id) -> when it arrived
_installed = False
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
        _guards.pop(session_id, None)
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
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.backend_operation_handler import DeferredFileHandler

    with _lock:
        if _installed:
            return
        bidi.deserialize_trigger_list = read_trigger_list
        if not getattr(AppSession.handle_backmsg, "selfattn_bounded", False):
            AppSession.handle_backmsg = _guarded_backmsg(AppSession.handle_backmsg)
        if not getattr(DeferredFileHandler.handle, "selfattn_bounded", False):
            DeferredFileHandler.handle = _one_download_at_a_time(DeferredFileHandler.handle)
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

class Turns:
    """Places for at most ``at_once`` runs, first come, first served, one place in the line per client.

    The line is served in the order (how many runs of its client are ahead of it, arrival): a client's
    first run is served in its order of arrival, its second only after every other client's first, so a
    client with ten sockets waits as one visitor does. A session holds one entry: its new run takes the
    place of its old one (:meth:`join`), whose :meth:`try_enter` then answers None.
    """

    def __init__(self, at_once: int):
        self.at_once = at_once
        self._cond = threading.Condition()
        self._line: list[tuple[int, str, str]] = []  # (ticket, client, session), in order of arrival
        self._running = 0
        self._next = 0

    def join(self, client: str, session: str = "") -> int:
        with self._cond:
            self._next += 1
            self._line = [e for e in self._line if not session or e[2] != session]
            self._line.append((self._next, client, session))
            self._cond.notify_all()
            return self._next

    def _order(self) -> list[int]:
        ahead: dict[str, int] = {}
        keyed = []
        for ticket, client, _ in self._line:
            keyed.append((ahead.get(client, 0), ticket))
            ahead[client] = ahead.get(client, 0) + 1
        return [ticket for _, ticket in sorted(keyed)]

    def place(self, ticket: int) -> int:
        """``ticket``'s place in the line, 1 first (0: not in it)."""
        with self._cond:
            order = self._order()
            return order.index(ticket) + 1 if ticket in order else 0

    def try_enter(self, ticket: int, timeout: float) -> bool | None:
        """Take a place if ``ticket`` is next and one is free, waiting at most ``timeout`` s; None when the
        ticket left the line (its session's next run took its place)."""
        with self._cond:
            deadline = time.monotonic() + timeout
            while True:
                order = self._order()
                if ticket not in order:
                    return None
                if self._running < self.at_once and order[0] == ticket:
                    self._line = [e for e in self._line if e[0] != ticket]
                    self._running += 1
                    self._cond.notify_all()
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)

    def give_up(self, ticket: int) -> None:
        with self._cond:
            self._line = [e for e in self._line if e[0] != ticket]
            self._cond.notify_all()

    def leave(self) -> None:
        with self._cond:
            self._running -= 1
            self._cond.notify_all()

    def enter_again(self) -> None:
        """Take a place again after :meth:`leave`, before the line (the run was already served once)."""
        with self._cond:
            while self._running >= self.at_once:
                self._cond.wait()
            self._running += 1


_turns = Turns(HEAVY_AT_ONCE)


def client_of(headers, ip: str | None, session: str) -> str:
    """Who a run is for, as :class:`Turns` counts clients: the address the proxy's header names (where
    ``SELFATTN_CLIENT_HEADER`` says which), else the connection's address, else the session."""
    header = os.environ.get(CLIENT_HEADER_ENV, "").strip()
    named = headers.get(header, "") if header and headers is not None else ""
    named = named.split(",")[0].strip()[:64]
    return f"ip:{named}" if named else f"ip:{ip}" if ip else f"session:{session}"


def _current_session() -> str:
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else ""


def _current_client(session: str) -> str:
    import streamlit as st

    try:
        return client_of(st.context.headers, st.context.ip_address, session)
    except Exception:  # AppTest has no connection
        return f"session:{session}"


@contextlib.contextmanager
def heavy_turn(waiting: Callable[[int], None], client: str | None = None) -> Iterator[None]:
    """Run the body when its turn comes: at most :data:`HEAVY_AT_ONCE` such runs at a time per process,
    first come, first served, one place per client and per session (:class:`Turns`).

    While it waits, ``waiting(n)`` is called with its place in the line, at most every :data:`NOTE_EVERY_S`
    (the page says so, again each time, even when the place has not changed: a Streamlit call there is what
    lets a visitor who left or changed something end a wait). Then ``waiting`` is called with 0 once, to clear
    what it said. That call too may end the run (the visitor changed something just as its turn came): the
    place is counted as held before it, so that it is given back (before, it stayed taken for good, and every
    heavy view of the process waited forever; tests/test_server_limits.py).
    """
    session = _current_session()
    who = client if client is not None else _current_client(session)
    ticket = _turns.join(who, session)
    entered = _turns.try_enter(ticket, 0.0)
    try:
        if entered:
            _holder.holds = True
        else:
            said_at = 0.0
            while not entered:
                if entered is None or time.monotonic() - said_at >= NOTE_EVERY_S:
                    said_at = time.monotonic()
                    waiting(_turns.place(ticket))  # a run whose session has moved on stops here (Streamlit's rerun)
                    if entered is None:  # it did not: wait again, as the session's newest run
                        ticket = _turns.join(who, session)
                entered = _turns.try_enter(ticket, 0.5)
            _holder.holds = True  # before the call below, which may end the run
            waiting(0)
        yield
    finally:
        if entered:
            if getattr(_holder, "holds", False):
                _holder.holds = False
                _turns.leave()
        else:
            _turns.give_up(ticket)


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
    _turns.leave()
    try:
        yield
    finally:
        _turns.enter_again()
        _holder.holds = True


# ── 5. Websocket messages ──────────────────────────────────────────────────────────────

class SessionGuard:
    """What :func:`check_message` keeps of one session: its message budget and its downloads."""

    def __init__(self):
        self.tokens = float(MESSAGE_BURST)
        self.at: float | None = None
        self.download_lock: tuple[object, asyncio.Lock] | None = None  # (its event loop, the lock)
        self.built: dict[str, object] = {}  # deferred file id -> the response built since the last rerun

    def take(self, now: float) -> bool:
        """One message from the budget (:data:`MESSAGES_PER_S`, bursts of :data:`MESSAGE_BURST`)."""
        elapsed = 0.0 if self.at is None else max(0.0, now - self.at)
        self.tokens = min(float(MESSAGE_BURST), self.tokens + elapsed * MESSAGES_PER_S)
        self.at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


_guards: dict[str, SessionGuard] = {}


def guard_of(session_id: str) -> SessionGuard:
    with _lock:
        return _guards.setdefault(session_id, SessionGuard())


def check_message(msg, guard: SessionGuard, known_widgets, *, hosted: bool, now: float | None = None) -> str | None:
    """Why ``msg`` (a BackMsg from a visitor) is refused, or None to take it (after dropping, from a
    rerun, the widget states of widgets ``known_widgets`` does not hold)."""
    kind = msg.WhichOneof("type")
    if kind in DEVELOPER_MESSAGES:
        if hosted:
            return f"{kind} is the developer's, not a visitor's, on a hosted server"
    elif kind not in VISITOR_MESSAGES:
        return f"no visitor sends {kind!r}"
    if not guard.take(time.monotonic() if now is None else now):
        return f"over {MESSAGES_PER_S:g} messages a second"
    if kind == "rerun_script":
        widgets = msg.rerun_script.widget_states.widgets
        if len(widgets) > MAX_WIDGET_STATES:
            return f"{len(widgets)} widget states, over {MAX_WIDGET_STATES}"
        kept = [w for w in widgets if w.id in known_widgets]
        if len(kept) != len(widgets):
            LOG.warning("%d widget states of widgets never drawn dropped", len(widgets) - len(kept))
            del widgets[:]
            widgets.extend(kept)
        guard.built.clear()  # a run may change what a download button offers
    elif kind == "file_urls_request":
        if len(msg.file_urls_request.file_names) > MAX_FILE_NAMES:
            return f"{len(msg.file_urls_request.file_names)} file names, over {MAX_FILE_NAMES}"
    elif kind == "backend_operation_request":
        operation = msg.backend_operation_request.WhichOneof("payload")
        if operation not in BACKEND_OPERATIONS:
            return f"backend operation {operation!r}"
    return None


def _known_widgets(session) -> set[str] | dict:
    """The ids of the widgets ``session`` has drawn (Streamlit's widget metadata), or every id when unknown."""
    try:
        return session._session_state._new_widget_state.widget_metadata
    except AttributeError:
        return _Everything()


class _Everything:
    def __contains__(self, _) -> bool:
        return True


def _guarded_backmsg(original):
    def handle_backmsg(self, msg) -> None:
        why = check_message(msg, guard_of(self.id), _known_widgets(self), hosted=is_hosted())
        if why is not None:
            LOG.warning("session %s: message refused: %s", self.id[:8], why)
            return None
        return original(self, msg)

    handle_backmsg.selfattn_bounded = True
    return handle_backmsg


def _one_download_at_a_time(original):
    async def handle(self, request, session_id: str):
        guard = guard_of(session_id)
        loop = asyncio.get_running_loop()
        if guard.download_lock is None or guard.download_lock[0] is not loop:
            guard.download_lock = (loop, asyncio.Lock())
        file_id = request.deferred_file.file_id
        async with guard.download_lock[1]:
            built = guard.built.get(file_id)
            if built is None:
                built = await original(self, request, session_id)
                if not built.error_msg:
                    guard.built[file_id] = built
            answer = type(built)()
            answer.CopyFrom(built)
            answer.request_id = request.request_id
            return answer

    handle.selfattn_bounded = True
    return handle
