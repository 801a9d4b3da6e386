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

4. **Turns.** Thirty visitors opening the heaviest Heads or Embeddings link at once kept a
   Playground visitor waiting 15-22 s (every run a thread, all sharing one interpreter); ten sockets
   asking for reruns twice a second froze everyone (issue 55). Every run now waits its turn as it
   starts, before any of the app's code and after the widgets' callbacks, whole runs and fragments'
   alike: ``ScriptRunContext.on_script_start`` is wrapped on the class (:func:`_waiting_run_start`),
   and ``exec_func_with_error_handling`` in Streamlit's script runner (one call a run,
   :func:`_run_boundary`) gives the place back whatever ends the run and counts its CPU. At most
   :data:`RUNS_AT_ONCE` runs at a time per process, of which :data:`HEAVY_AT_ONCE` of a page marked
   ``heavy`` (ui/navigation.py) and :data:`OVER_BUDGET_AT_ONCE` of sessions over their budget; the others
   wait, told so after :data:`NOTE_AFTER_S` (a fragment's run waits without a word).

   The line is fair (:class:`Turns`): by client, then session. A client's second waiting run is
   served after every other client's first, so a client with ten sockets waits as one visitor does;
   of two clients the one that used less CPU lately goes first (a new visitor before a flooding one);
   within a client (a class behind one school address) its sessions take turns in order; and a
   session that used more than :data:`SESSION_BUDGET_S` CPU seconds lately (halving every
   :data:`USAGE_HALF_LIFE_S`) waits behind every other run. That budget is what tells a class (many
   sessions, each modest) from one attacker (many sockets, each flooding). A client is its address
   as the proxy's header names it where ``SELFATTN_CLIENT_HEADER`` names one (``deploy/serve.sh``
   sets ``X-Real-IP``, which nginx writes itself), else the connection's address, else its session.
   :func:`heavy_turn` remains for a run that did not wait as it started (the first of the process).
5. **Websocket messages.** Streamlit answers some messages itself, without a run of the app:
   ``AppSession.handle_backmsg`` is wrapped on the class (:func:`check_message` decides), and
   ``DeferredFileHandler.handle`` (a download button's file, built when clicked) on its class:

   - only the kinds a browser sends are taken (:data:`VISITOR_MESSAGES`); the developer's
     (:data:`DEVELOPER_MESSAGES`: git information, clearing every cache of the process, run on
     save) only when not hosted; any other kind is refused;
   - a session sends at most :data:`MESSAGES_PER_S` messages a second (bursts of
     :data:`MESSAGE_BURST`); the rest are dropped, but for reruns: the newest rerun over the rate is
     kept, merged with the older kept one (:func:`newest_rerun`: their clicks kept), and sent on as
     soon as the budget allows, so a burst of edits ends at its last edit;
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
import dataclasses
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
RUNS_AT_ONCE = 2  # runs of any page at once per process (each a thread sharing one interpreter with the event loop)
HEAVY_AT_ONCE = 1  # heavy page runs at once per process (2: a Playground open during a crowd 0.85-1.54 s; 1: 0.64-1.18 s)
NOTE_EVERY_S = 2.0  # how often a waiting run may update its note
NOTE_AFTER_S = 1.0  # a run waiting as it starts says so only after this long (most waits are shorter)
POLL_S = 0.25  # how often a waiting run asks Streamlit whether its visitor moved on
USAGE_HALF_LIFE_S = 10.0  # a client's or session's CPU seconds count half after this long (Usage)
SESSION_BUDGET_S = 3.0  # a session whose CPU seconds so counted are over this waits behind all others (Turns)
OVER_BUDGET_AT_ONCE = 1  # and such sessions' runs take at most this many of the RUNS_AT_ONCE places
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
_holder = threading.local()  # .place: the _Place this thread's run holds (or None); .run: inside a run (_run_boundary)


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
    from streamlit.runtime.scriptrunner import script_runner
    from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext

    with _lock:
        if _installed:
            return
        bidi.deserialize_trigger_list = read_trigger_list
        if not getattr(script_runner.exec_func_with_error_handling, "selfattn_bounded", False):
            script_runner.exec_func_with_error_handling = _run_boundary(script_runner.exec_func_with_error_handling)
        if not getattr(ScriptRunContext.on_script_start, "selfattn_bounded", False):
            ScriptRunContext.on_script_start = _waiting_run_start(ScriptRunContext.on_script_start)
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


# ── 4. Turns: every run waits its turn, heavy views one at a time ────────────────────────

class Usage:
    """CPU seconds used, by key (a client, a session), each halving every ``half_life`` seconds: what a key used
    long ago counts less than what it used just now. At most ``most`` keys are kept (the least used go first)."""

    def __init__(self, half_life: float = USAGE_HALF_LIFE_S, most: int = 4096):
        self.half_life, self.most = half_life, most
        self._used: dict[tuple[str, str], tuple[float, float]] = {}  # key -> (seconds, when they were counted)

    def __len__(self) -> int:
        return len(self._used)

    def of(self, key: tuple[str, str], now: float | None = None) -> float:
        found = self._used.get(key)
        if found is None:
            return 0.0
        seconds, at = found
        now = time.monotonic() if now is None else now
        return seconds * 0.5 ** (max(0.0, now - at) / self.half_life)

    def add(self, key: tuple[str, str], seconds: float, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        self._used[key] = (self.of(key, now) + max(0.0, seconds), now)
        if len(self._used) > self.most:
            for old in sorted(self._used, key=lambda k: self.of(k, now))[:len(self._used) - self.most // 2]:
                del self._used[old]


class Turns:
    """Places for at most ``at_once`` runs, ``heavy_at_once`` of them heavy, given in a fair order.

    The line is served in the order (over budget, rank, client's usage, arrival):

    - *over budget*: a session that used more than ``budget_s`` CPU seconds lately (:class:`Usage`) waits behind
      every session that did not: a socket flooding reruns soon is, a visitor reading and editing rarely is;
    - *rank*: a client's runs in line are ranked in order of arrival (its sessions over budget last), and its
      rank-1 run is served only after every other client's rank-0 run, so a client with ten sockets waits as one
      visitor does; a session holds one entry, so the sessions of one client (a class behind one school address)
      take turns;
    - *usage*: of two clients' runs of the same rank, the client that used less CPU lately goes first (a new
      visitor before a flooding one), then the first to come.

    A run is served when it is the first in that order whose place fits (a heavy run waiting for the heavy place
    does not hold up the light runs behind it). A session holds one entry: its new run takes the place of its
    old one (:meth:`join`), whose :meth:`try_enter` then answers None.
    """

    def __init__(self, at_once: int, heavy_at_once: int | None = None, *, budget_s: float | None = None,
                 usage: Usage | None = None):
        self.at_once = at_once
        self.heavy_at_once = at_once if heavy_at_once is None else heavy_at_once
        self.budget_s = SESSION_BUDGET_S if budget_s is None else budget_s
        self.usage = Usage() if usage is None else usage
        self._cond = threading.Condition()
        self._line: list[tuple[int, str, str, bool]] = []  # (ticket, client, session, heavy), in order of arrival
        self._running = 0
        self._heavy = 0
        self._over = 0  # runs of sessions over budget, which take at most OVER_BUDGET_AT_ONCE places
        self._entered: dict[int, bool] = {}  # ticket -> whether its session was over budget as it entered
        self._next = 0

    def join(self, client: str, session: str = "", heavy: bool = False) -> int:
        with self._cond:
            self._next += 1
            self._line = [e for e in self._line if not session or e[2] != session]
            self._line.append((self._next, client, session, heavy))
            self._cond.notify_all()
            return self._next

    def _order(self) -> list[tuple[int, str, str, bool]]:
        return [entry for _, entry in self._keyed()]

    def _keyed(self) -> list[tuple[tuple, tuple[int, str, str, bool]]]:
        """The line in the order it is served, each entry with its key (whose first item: over budget)."""
        now = time.monotonic()

        def within(entry):
            used = self.usage.of(("session", entry[2]), now) if entry[2] else 0.0
            return used > self.budget_s, entry[0], used

        by_client: dict[str, list] = {}
        for entry in self._line:
            by_client.setdefault(entry[1], []).append(entry)
        keyed = []
        for client, entries in by_client.items():
            client_used = self.usage.of(("client", client), now)
            for rank, entry in enumerate(sorted(entries, key=within)):
                over, ticket, _ = within(entry)
                keyed.append(((over, rank, client_used, ticket), entry))
        return sorted(keyed)

    def place(self, ticket: int) -> int:
        """``ticket``'s place in the line, 1 first (0: not in it)."""
        with self._cond:
            tickets = [e[0] for e in self._order()]
            return tickets.index(ticket) + 1 if ticket in tickets else 0

    def _fits(self, heavy: bool, over: bool = False) -> bool:
        return (self._running < self.at_once and (not heavy or self._heavy < self.heavy_at_once)
                and (not over or self._over < OVER_BUDGET_AT_ONCE))

    def _take(self, heavy: bool, over: bool = False) -> None:
        self._running += 1
        self._heavy += bool(heavy)
        self._over += bool(over)

    def try_enter(self, ticket: int, timeout: float) -> bool | None:
        """Take a place if ``ticket`` is next and one is free, waiting at most ``timeout`` s; None when the
        ticket left the line (its session's next run took its place)."""
        with self._cond:
            deadline = time.monotonic() + timeout
            while True:
                keyed = self._keyed()
                mine = next((e for _, e in keyed if e[0] == ticket), None)
                if mine is None:
                    return None
                first = next(((key[0], e) for key, e in keyed if self._fits(e[3], key[0])), None)
                if first is not None and first[1] is mine:
                    self._line.remove(mine)
                    self._take(mine[3], first[0])
                    self._entered[ticket] = first[0]
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

    def over_budget(self, ticket: int) -> bool:
        """Whether the run that entered with ``ticket`` was over budget as it did (asked once, as it enters)."""
        with self._cond:
            return self._entered.pop(ticket, False)

    def leave(self, heavy: bool = False, over: bool = False) -> None:
        with self._cond:
            self._running -= 1
            self._heavy -= bool(heavy)
            self._over -= bool(over)
            self._cond.notify_all()

    def enter_again(self, heavy: bool = False, over: bool = False) -> None:
        """Take a place again after :meth:`leave`, before the line (the run was already served once)."""
        with self._cond:
            while not self._fits(heavy, over):
                self._cond.wait()
            self._take(heavy, over)

    def charge(self, client: str, session: str, seconds: float) -> None:
        """Count ``seconds`` of CPU to the client and the session (the order of the line reads them)."""
        with self._cond:
            self.usage.add(("client", client), seconds)
            if session:
                self.usage.add(("session", session), seconds)


_turns = Turns(RUNS_AT_ONCE, HEAVY_AT_ONCE)


@dataclasses.dataclass
class _Place:
    """A place a thread holds: what it counts against (:meth:`Turns.charge`) and since when."""

    heavy: bool
    client: str
    session: str
    by_run: bool = False  # taken as the run started (every run waits its turn: _run_turn), not by heavy_turn
    over: bool = False  # its session was over budget as it took it (Turns: such places are few)
    held: bool = True
    cpu_at: float = dataclasses.field(default_factory=time.thread_time)


def _release(place: _Place) -> None:
    """Give ``place`` back (once) and charge the CPU its thread used since it took it."""
    if place.held:
        place.held = False
        _turns.leave(place.heavy, place.over)
        _turns.charge(place.client, place.session, time.thread_time() - place.cpu_at)


def _wait(waiting: Callable[[int], None], *, heavy: bool, client: str, session: str,
          check: Callable[[], None] = lambda: None, note_after: float = 0.0, by_run: bool = False) -> _Place:
    """Join the line and wait for a place (see :func:`heavy_turn` for ``waiting``); ``check`` is called every
    :data:`POLL_S` while waiting (Streamlit's yield check: it ends the wait of a visitor who moved on); the note is
    said first after ``note_after`` s. Whatever ends the wait, the ticket leaves the line."""
    ticket = _turns.join(client, session, heavy)
    entered = _turns.try_enter(ticket, 0.0)
    said, started, said_at = False, time.monotonic(), -NOTE_EVERY_S
    try:
        while not entered:
            check()
            if entered is None:  # this session's newer run took the place of this one, which did not end:
                ticket = _turns.join(client, session, heavy)  # wait again, as the session's newest run
            now = time.monotonic()
            if now - started >= note_after and now - said_at >= NOTE_EVERY_S:
                said_at, said = now, True
                waiting(_turns.place(ticket))  # a run whose session has moved on stops here (Streamlit's rerun)
            entered = _turns.try_enter(ticket, POLL_S)
    finally:
        if not entered:
            _turns.give_up(ticket)
    place = _Place(heavy, client, session, by_run, _turns.over_budget(ticket))  # held before the call below,
    # which may end the run
    if said:
        try:
            waiting(0)
        except BaseException:
            _release(place)
            raise
    return place


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
    """Run the body when its turn comes: at most :data:`HEAVY_AT_ONCE` such runs at a time per process, in the
    order of :class:`Turns`. Within a run that waited for a heavy place as it started (:func:`_run_turn`: every
    run of a heavy page, its fragments' included), the body runs at once.

    While it waits, ``waiting(n)`` is called with its place in the line, at most every :data:`NOTE_EVERY_S`
    (the page says so, again each time, even when the place has not changed: a Streamlit call there is what
    lets a visitor who left or changed something end a wait). Then ``waiting`` is called with 0 once, to clear
    what it said. That call too may end the run (the visitor changed something just as its turn came): the
    place is counted as held before it, so that it is given back (before, it stayed taken for good, and every
    heavy view of the process waited forever; tests/test_server_limits.py).
    """
    held = getattr(_holder, "place", None)
    if held is not None and held.by_run and held.held and held.heavy:
        yield
        return
    if held is not None and held.by_run:
        _release(held)  # the run's light place: given back, to wait for a heavy one
    session = _current_session()
    who = client if client is not None else _current_client(session)
    place = _wait(waiting, heavy=True, client=who, session=session)
    _holder.place = place
    try:
        yield
    finally:
        _release(place)
        _holder.place = held


@contextlib.contextmanager
def outside_heavy_turn() -> Iterator[None]:
    """Give this run's place back while the body runs, and take one again after (waiting if need be).

    For work with a bound of its own that would otherwise hold every heavy view of the process
    up: a benchmark sweep (seconds; one at a time for all replicas, by its lock file).
    """
    place = getattr(_holder, "place", None)
    if place is None or not place.held:
        yield
        return
    _release(place)
    try:
        yield
    finally:
        _turns.enter_again(place.heavy, place.over)
        place.held, place.cpu_at = True, time.thread_time()


_heavy_hashes: set[str] = set()


def _run_is_heavy(ctx) -> bool:
    """Whether the run ``ctx`` starts is of a heavy page (ui/navigation.py): the page it asks for by hash (Streamlit's
    hash of a page's url path), or on a session's first run by name."""
    from streamlit.util import calc_hash

    from ui.navigation import PAGES

    heavy = {p.url_path for p in PAGES if p.heavy}
    if not _heavy_hashes:
        _heavy_hashes.update(calc_hash(path) for path in heavy)
    if ctx.page_script_hash in _heavy_hashes:
        return True
    manager = ctx.pages_manager
    return (ctx.page_script_hash == manager.main_script_hash
            and (manager.intended_page_name or "").strip("/") in heavy)


def _run_turn(ctx) -> _Place:
    """The place a run waits for as it starts, before any of the app's code: a heavy one on a heavy page, else a
    light one. A whole run that waits longer than :data:`NOTE_AFTER_S` says so at the top of the page; a fragment's
    run waits without a word (it may draw only inside its fragment, which has not started)."""
    session = ctx.session_id
    heavy = _run_is_heavy(ctx)
    whole = not ctx.fragment_ids_this_run
    box: list = []

    def note(n: int) -> None:
        if not whole:
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

    return _wait(note, heavy=heavy, client=_current_client(session), session=session, check=ctx.yield_check,
                 note_after=NOTE_AFTER_S, by_run=True)


def _waiting_run_start(original):
    """``ScriptRunContext.on_script_start`` (called as a run's code starts, after the widgets' callbacks, before the
    page or a fragment runs), wrapped: the run then waits its turn (:func:`_run_turn`)."""
    def on_script_start(self) -> None:
        original(self)
        if getattr(_holder, "run", False) and getattr(_holder, "place", None) is None:
            _holder.place = _run_turn(self)

    on_script_start.selfattn_bounded = True
    return on_script_start


def _run_boundary(original):
    """``exec_func_with_error_handling`` of Streamlit's script runner (one call a run, whole or fragment), wrapped:
    whatever ends the run, its place is given back and its CPU counted."""
    def exec_func_with_error_handling(func, ctx):
        _holder.run, _holder.place = True, None
        try:
            return original(func, ctx)
        finally:
            place, _holder.run, _holder.place = getattr(_holder, "place", None), False, None
            if place is not None:
                _release(place)

    exec_func_with_error_handling.selfattn_bounded = True
    return exec_func_with_error_handling


# ── 5. Websocket messages ──────────────────────────────────────────────────────────────

class SessionGuard:
    """What :func:`check_message` keeps of one session: its message budget and its downloads."""

    def __init__(self):
        self.tokens = float(MESSAGE_BURST)
        self.at: float | None = None
        self.download_lock: tuple[object, asyncio.Lock] | None = None  # (its event loop, the lock)
        self.built: dict[str, object] = {}  # deferred file id -> the response built since the last rerun
        self.pending = None  # a rerun over the rate, kept to be run as soon as the budget allows: the newest one

    def _refilled(self, now: float) -> float:
        elapsed = 0.0 if self.at is None else max(0.0, now - self.at)
        return min(float(MESSAGE_BURST), self.tokens + elapsed * MESSAGES_PER_S)

    def take(self, now: float) -> bool:
        """One message from the budget (:data:`MESSAGES_PER_S`, bursts of :data:`MESSAGE_BURST`)."""
        self.tokens = self._refilled(now)
        self.at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True

    def until_next(self, now: float) -> float:
        """Seconds until the budget holds a message again (0: now)."""
        return max(0.0, (1.0 - self._refilled(now)) / MESSAGES_PER_S)


_guards: dict[str, SessionGuard] = {}
OVER_RATE = f"over {MESSAGES_PER_S:g} messages a second"


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
        return OVER_RATE
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


def newest_rerun(older, newer):
    """The one rerun that stands for two of a session's, ``older`` then ``newer`` (BackMsgs): the newer, which
    carries every widget as the browser holds it, keeping the one-shot values (a click, a component's event) that
    the older carried and the newer does not (Streamlit's own coalescing of two requests); a whole run where the
    two asked for different fragments."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.runtime.scriptrunner_utils.script_requests import _coalesce_widget_states

    merged = BackMsg()
    merged.CopyFrom(newer)
    old, new = older.rerun_script, newer.rerun_script
    states = _coalesce_widget_states(old.widget_states, new.widget_states)
    del merged.rerun_script.widget_states.widgets[:]
    if states is not None:
        merged.rerun_script.widget_states.widgets.extend(states.widgets)
    if old.fragment_id != new.fragment_id:
        merged.rerun_script.fragment_id = ""
    merged.rerun_script.is_auto_rerun = old.is_auto_rerun and new.is_auto_rerun
    return merged


def hold_rerun(guard: SessionGuard, msg) -> bool:
    """Keep the rerun ``msg`` to run when the session's budget allows (:func:`_run_held`), in place of, and merged
    with, the one kept already (:func:`newest_rerun`): a burst over the rate ends with its last edit, never an older
    one. True when nothing was kept before (a delivery is to be planned)."""
    first = guard.pending is None
    guard.pending = msg if first else newest_rerun(guard.pending, msg)
    return first


def _run_held(session, guard: SessionGuard, original) -> None:
    """Send the session's kept rerun on to Streamlit once its budget holds a message; later again if not yet."""
    msg = guard.pending
    if msg is None or _guards.get(session.id) is not guard:  # delivered already, or the session has closed
        return
    why = check_message(msg, guard, _known_widgets(session), hosted=is_hosted())
    if why == OVER_RATE:
        _plan_delivery(session, guard, original)
        return
    guard.pending = None
    if why is not None:
        LOG.warning("session %s: message refused: %s", session.id[:8], why)
        return
    try:
        original(session, msg)
    except Exception:  # Streamlit handles its own; a failure here must not stop the event loop's callback
        LOG.exception("session %s: a kept rerun failed", session.id[:8])


def _plan_delivery(session, guard: SessionGuard, original) -> None:
    delay = guard.until_next(time.monotonic()) + 0.005
    try:
        asyncio.get_running_loop().call_later(delay, _run_held, session, guard, original)
    except RuntimeError:  # no event loop in this thread (Streamlit calls this on its loop): a timer instead
        timer = threading.Timer(delay, _run_held, (session, guard, original))
        timer.daemon = True
        timer.start()


def _guarded_backmsg(original):
    def handle_backmsg(self, msg) -> None:
        guard = guard_of(self.id)
        rerun = msg.WhichOneof("type") == "rerun_script"
        if rerun and guard.pending is not None:  # one is kept already: this newer one takes its place
            hold_rerun(guard, msg)
            return None
        why = check_message(msg, guard, _known_widgets(self), hosted=is_hosted())
        if why == OVER_RATE and rerun:
            hold_rerun(guard, msg)
            _plan_delivery(self, guard, original)
            LOG.info("session %s: a rerun over the rate is kept to run when the budget allows", self.id[:8])
            return None
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
