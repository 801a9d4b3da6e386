"""The bounds on one browser message, one trigger list and one session's uploads: sizes, rates and allow-lists.

Plain Python, tested without Streamlit. ``ui/server_limits.py`` applies them to what Streamlit receives
(``selfattn/serving/backmsg.py`` reads it into the plain values below):

- **Component triggers.** A Components-v2 element's events reach the server as one JSON list, and Streamlit
  calls the element's callback once per event in it (a crafted list of 37,000 events cost minutes).
  :func:`read_trigger_list` reads it instead: over :data:`MAX_TRIGGER_BYTES` refused whole, else the last event
  of each name (a browser sends one event per name and rerun; a click is a click however often repeated).
- **Uploads.** Streamlit keeps every file PUT to a session in memory until the session closes. A session holds
  at most :data:`MAX_FILES` files and :data:`MAX_BYTES` (:func:`room`: a new file makes room by dropping the
  oldest); a file no uploader names is dropped once :data:`UPLOAD_GRACE_S` old (:class:`Uploads`), and every
  file as the websocket closes. ``server.maxUploadSize`` (``.streamlit/config.toml``) refuses a larger file.
- **Websocket messages** (:func:`check_message`): only the kinds a browser sends (:data:`VISITOR_MESSAGES`),
  the developer's (:data:`DEVELOPER_MESSAGES`) only when not hosted; :data:`MESSAGES_PER_S` a session (bursts
  of :data:`MESSAGE_BURST`, :class:`SessionGuard`); at most :data:`MAX_WIDGET_STATES` widget states a rerun and
  :data:`MAX_FILE_NAMES` names a request for upload URLs; of the backend operations, downloads and table chunks.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import threading
import time
from collections.abc import Iterable

LOG = logging.getLogger("selfattn.limits")

MAX_TRIGGER_BYTES = 16_384  # one trigger list as JSON; a browser's click sends ~40 bytes
MAX_FILES = 4  # files one session holds at once (the pages have one uploader each)
MAX_BYTES = 4 * 1024 * 1024  # bytes of files one session holds at once (two of the largest a page takes)
UPLOAD_GRACE_S = 10.0  # a file no uploader names yet is kept this long (its rerun is on the way)

CLIENT_HEADER_ENV = "SELFATTN_CLIENT_HEADER"  # the proxy's header naming the visitor's address (serve.sh: X-Real-IP)

# What a browser sends (Streamlit 1.67's frontend): a rerun per committed edit, click or page change, a
# heartbeat every few seconds, Stop, upload URLs before an upload, a download's file and a table's chunks.
VISITOR_MESSAGES = frozenset({"rerun_script", "app_heartbeat", "stop_script", "file_urls_request",
                              "backend_operation_request"})
# The developer's menu: git information (git runs on the event loop: 1,000 requests froze every visitor
# for 7-12 s), clearing every cache of the process (every visitor's next open 3.3x slower), run on save
# (the menu item is hidden by server.allowRunOnSave = false, but Streamlit still obeys the message).
DEVELOPER_MESSAGES = frozenset({"load_git_info", "clear_cache", "set_run_on_save"})
BACKEND_OPERATIONS = frozenset({"deferred_file", "dataframe_chunk"})  # downloads, st.dataframe's chunks
MESSAGES_PER_S = 20.0  # a session's messages a second, sustained: typing and clicking make a few
MESSAGE_BURST = 40  # and at once: a page switch after a burst of clicks
MAX_WIDGET_STATES = 200  # widget states in one rerun: the busiest page draws about 70 widgets
MAX_FILE_NAMES = 1  # file names in one request for upload URLs: each uploader of the app takes one file

OVER_RATE = f"over {MESSAGES_PER_S:g} messages a second"


# ── Component triggers ───────────────────────────────────────────────────────────────────

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


# ── Uploads ──────────────────────────────────────────────────────────────────────────────

def room(held: list[tuple[str, int]], size: int) -> list[str]:
    """The oldest of ``held`` (file id, bytes; oldest first) to drop so that one more file of
    ``size`` bytes keeps a session within :data:`MAX_FILES` and :data:`MAX_BYTES`."""
    drop, total = [], sum(n for _, n in held)
    for file_id, n in held:
        if len(held) - len(drop) < MAX_FILES and total + size <= MAX_BYTES:
            break
        drop.append(file_id)
        total -= n
    return drop


class Uploads:
    """When each session's files arrived, to tell a file on its way to its uploader from one no uploader holds."""

    def __init__(self):
        self.lock = threading.RLock()  # held while a session's files are counted and changed
        self._at: dict[tuple[str, str], float] = {}  # (session, file id) -> when it arrived

    def arrived(self, session_id: str, file_id: str, now: float | None = None) -> None:
        with self.lock:
            self._at[(session_id, file_id)] = time.monotonic() if now is None else now

    def gone(self, session_id: str, file_id: str) -> None:
        with self.lock:
            self._at.pop((session_id, file_id), None)

    def forget(self, session_id: str) -> None:
        with self.lock:
            for key in [k for k in self._at if k[0] == session_id]:
                del self._at[key]

    def stale(self, session_id: str, held: Iterable[str], in_use: Iterable[str], now: float | None = None) -> list[str]:
        """Of the session's ``held`` file ids, those no uploader names (``in_use``), :data:`UPLOAD_GRACE_S` old."""
        keep, now = set(in_use), time.monotonic() if now is None else now
        with self.lock:
            return [fid for fid in held
                    if fid not in keep and now - self._at.get((session_id, fid), 0.0) >= UPLOAD_GRACE_S]


# ── Who a run is for ─────────────────────────────────────────────────────────────────────

def client_of(headers, ip: str | None, session: str) -> str:
    """Who a run is for, as the line counts clients (``selfattn/serving/turns.py``): the address the proxy's
    header names (where ``SELFATTN_CLIENT_HEADER`` says which), else the connection's address, else the session."""
    header = os.environ.get(CLIENT_HEADER_ENV, "").strip()
    named = headers.get(header, "") if header and headers is not None else ""
    named = named.split(",")[0].strip()[:64]
    return f"ip:{named}" if named else f"ip:{ip}" if ip else f"session:{session}"


# ── Websocket messages ───────────────────────────────────────────────────────────────────

@dataclasses.dataclass(frozen=True)
class Message:
    """What the rules read of one websocket message from a browser."""

    kind: str  # which of Streamlit's message kinds ("rerun_script", "app_heartbeat", ...)
    widget_states: int = 0  # a rerun: how many widget states it carries
    file_names: int = 0  # a request for upload URLs: how many files it names
    operation: str | None = None  # a backend operation: which ("deferred_file", ...)


class SessionGuard:
    """What :func:`check_message` keeps of one session: its message budget, its downloads, its kept rerun."""

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


def check_message(msg: Message, guard: SessionGuard, *, hosted: bool, now: float | None = None) -> str | None:
    """Why ``msg`` from a visitor is refused, or None to take it (a message taken counts against ``guard``'s
    budget; a rerun taken forgets the downloads built, as a run may change what a download button offers)."""
    kind = msg.kind
    if kind in DEVELOPER_MESSAGES:
        if hosted:
            return f"{kind} is the developer's, not a visitor's, on a hosted server"
    elif kind not in VISITOR_MESSAGES:
        return f"no visitor sends {kind!r}"
    if not guard.take(time.monotonic() if now is None else now):
        return OVER_RATE
    if kind == "rerun_script":
        if msg.widget_states > MAX_WIDGET_STATES:
            return f"{msg.widget_states} widget states, over {MAX_WIDGET_STATES}"
        guard.built.clear()
    elif kind == "file_urls_request":
        if msg.file_names > MAX_FILE_NAMES:
            return f"{msg.file_names} file names, over {MAX_FILE_NAMES}"
    elif kind == "backend_operation_request":
        if msg.operation not in BACKEND_OPERATIONS:
            return f"backend operation {msg.operation!r}"
    return None
