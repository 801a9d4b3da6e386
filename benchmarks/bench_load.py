"""A class at once: K visitors driven through Streamlit's own websocket protocol (no browsers).

Usage:
    python benchmarks/bench_load.py [--scenario open|edit|soak|all] [--page playground embeddings ...]
        [--visitors K] [--edits E] [--timeout S] [--repeat R] [--json out.json]
        [--app-dir DIR [DIR ...]] [--start] [--serve-replicas N [N ...]] | [--url URL --pids PID ...]

A visitor does what a browser tab does on the wire, and nothing more: it fetches the page
(``GET /playground``, keeping the cookies it is given, so that a proxy's sticky-route cookie
comes back with every later request), opens the websocket ``/_stcore/stream`` (subprotocol
``streamlit``, that Cookie header, the page's Origin) and sends the ``rerun_script`` BackMsg the
frontend sends on load: the page's url path as ``page_name``, the query string, the browser's
context. It then reads the ForwardMsgs (``streamlit.proto``) the way the frontend does:

* a run starts with ``new_session`` and ends with ``script_finished``. A run that ends early
  for a rerun (``st.rerun``: the first visit to a deep link after the server starts reruns
  once through ``app.py``'s frame) is followed by the next; the visitor is served when a run
  finishes successfully. Any other end (a compile error, a missing page) is an error;
* it keeps the messages Streamlit marks cacheable and names their hashes in every later
  rerun request, so unchanged elements come back as ``ref_hash`` references, as in a browser;
* it mirrors the browser's widget manager: every widget's value (value or default from its
  element, the element's value whenever the server sets one), sent back with each rerun;
  widgets of the kinds it does not mirror (buttons, uploads, segmented controls) are left
  out, and Streamlit keeps their last values;
* any ``exception`` element (a traceback shown in the page) counts as an exception shown.

An edit is what the Playground's matrix editor sends when a visitor types a number into the
first cell of X's column x1 and presses Enter: the editor's widget state, the JSON text
``{"table":{"rev":1,"cells":[["Input 1","5","0","1","0"],...]}}`` (the full table as typed, its
revision counting up; each edit a value not sent before), in a rerun request with all the other
widgets' values. The edit must change the
step-by-step text of the page (the ``st.code`` blocks), or it is counted as an error.

What is timed (wall clock, this process):

* page open: from the page's GET to the ``script_finished`` that ends the visit's last run;
  the page's static files (JS, CSS) are not fetched: a browser has them cached;
* edit: from sending the rerun request to its run's successful ``script_finished``;
* runs per second: page runs served (opens + edits) / wall time of the scenario;
* server RSS per process (``VmRSS``) before, after and at the peak (sampled every 0.25 s),
  and the server's CPU seconds, from ``/proc``.

Scenarios (``--scenario``; ``all`` runs them in this order):

* ``open``: K visitors (default 40) open each ``--page`` at once;
* ``edit``: K visitors (default 10) open the Playground at once, then each makes E edits of X
  (default 5), one after another, all visitors at the same time;
* ``soak``: V visitors (default 300) open the first ``--page`` and close it, one after another
  (at most ``--soak-seconds``); RSS growth per visitor. Streamlit keeps a closed visitor's
  session for ``server.disconnectedSessionTTL`` (120 s; at most 128 sessions), so the growth
  right after includes those; ``--settle S`` waits S seconds, makes one more visit (which lets
  Streamlit drop the expired sessions) and reads RSS again.

Servers: by default (``--start``) each ``--app-dir`` is started here as one process,
``SELFATTN_HOSTED=1 streamlit run app.py --server.headless true`` on a free port, after which
the script waits for ``/_stcore/health`` and for the server to go quiet (the app loads a model in
the background at start) and makes one warm-up visit to every page it will measure (and one
edit). ``--serve-replicas N`` measures the checkout's ``deploy/serve.sh --replicas N --port P``
(a proxy in front of N processes; their pids are found under it in ``/proc``, and each replica
is warmed up directly); ``--start --serve-replicas 2`` measures one process and two replicas in
the same run. ``--url URL --pids PID ...`` measures a server started elsewhere. With several
targets (old and new checkouts: ``--app-dir OLD NEW``) every measurement is taken on each in
turn, the order alternating with each ``--repeat``, so that they meet the same machine.

All traffic stays on the loopback interface; every wait is bounded (``--timeout`` per page run,
``--soak-seconds``), and the script stops the servers it started.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.typing import Origin, Subprotocol

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser import stop_process  # noqa: E402
from ui.pages import PAGES as APP_PAGES  # noqa: E402

PAGES = {page.name: page.url_path for page in APP_PAGES}  # name -> url path
DEFAULT_VISITORS = {"open": 40, "edit": 10, "soak": 300}
SCENARIOS = ("open", "edit", "soak")
X_EDITOR = re.compile(r"-ed_x_\d+$")  # the Playground's X editor: its key is ed_x_<version> (ui/playground.py)
EDIT_ROW, EDIT_COLUMN = 0, 1  # first token, first number x1 (the label column comes first)
FINISHED = ForwardMsg.FINISHED_SUCCESSFULLY
EARLY_FOR_RERUN = ForwardMsg.FINISHED_EARLY_FOR_RERUN
FRAGMENT_FINISHED = ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY


# ── The wire: what the frontend sends ──────────────────────────────────────────────────
def rerun_request(*, url: str, page_name: str = "", page_hash: str = "", query_string: str = "",
                  widgets=(), cached_hashes=(), fragment_id: str = "") -> bytes:
    """A ``rerun_script`` BackMsg as the frontend sends it (on load: ``page_name``; later: ``page_hash``).

    ``fragment_id``: a widget inside an ``st.fragment`` (the Playground's editors) reruns only its
    fragment, as the browser asks for it.
    """
    msg = BackMsg()
    state = msg.rerun_script
    state.query_string = query_string
    state.page_script_hash = page_hash
    state.page_name = page_name
    state.fragment_id = fragment_id
    state.widget_states.widgets.extend(widgets)
    state.cached_message_hashes.extend(cached_hashes)
    context = state.context_info
    context.timezone, context.timezone_offset, context.locale = "UTC", 0, "en-US"
    context.url, context.color_scheme = url, "light"
    return msg.SerializeToString()


def editor_state(cells: list[list[str]], rev: int) -> str:
    """A matrix editor's widget value as the frontend writes it (``JSON.stringify`` of its state)."""
    return json.dumps({"table": {"rev": rev, "cells": cells}}, separators=(",", ":"), ensure_ascii=False)


def edit_value(k: int) -> str:
    """The text typed at the k-th edit: large and small in turn, never the same twice."""
    return str(10 + k) if k % 2 == 0 else str(-(10 + k))


def widget_state(element) -> WidgetState | None:
    """The value the browser's widget manager holds for a widget element when it first draws it.

    That is the element's ``value`` when the server set one, else its ``default`` (the rule
    of Streamlit's frontend). None for kinds this script does not mirror, or no value.
    """
    kind = element.WhichOneof("type")
    widget = getattr(element, kind)
    state = WidgetState(id=widget.id)
    if kind == "checkbox":  # st.checkbox and st.toggle
        state.bool_value = widget.value if widget.set_value else widget.default
    elif kind == "number_input":
        source = "value" if widget.set_value else "default"
        if not widget.HasField(source):
            return None
        if widget.data_type == NumberInput.INT:
            state.int_value = int(getattr(widget, source))
        else:
            state.double_value = getattr(widget, source)
    elif kind in ("selectbox", "radio"):  # the formatted option text
        if widget.set_value:
            if not widget.HasField("raw_value"):
                return None
            state.string_value = widget.raw_value
        elif widget.HasField("default") and 0 <= widget.default < len(widget.options):
            state.string_value = widget.options[widget.default]
        else:
            return None
    else:
        return None
    return state


# ── One visitor ────────────────────────────────────────────────────────────────────────
@dataclass
class Tally:
    """What the visitors of one measurement saw."""

    opens: list[float] = field(default_factory=list)  # seconds
    edits: list[float] = field(default_factory=list)  # seconds
    errors: Counter = field(default_factory=Counter)  # kind -> count
    exceptions: int = 0
    samples: list[str] = field(default_factory=list)  # a few of the errors and exceptions, for the report

    def note(self, text: str) -> None:
        if len(self.samples) < 5 and text not in self.samples:
            self.samples.append(text)


class VisitorError(Exception):
    """A visit that could not go on; ``kind`` names its column in the report's errors."""

    def __init__(self, kind: str, detail: str = ""):
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind = kind


class Visitor:
    """One browser tab on one page, speaking Streamlit's websocket protocol."""

    def __init__(self, base_url: str, tally: Tally, timeout: float):
        self.base, self.tally, self.timeout = base_url.rstrip("/"), tally, timeout
        self.ws = None
        self.url = self.base
        self.cookies: dict[str, str] = {}
        self.query_string = ""
        self.page_hash = ""
        self.cache: dict[str, ForwardMsg] = {}  # hash -> message, the browser's message cache
        self.elements: dict[tuple, object] = {}  # delta path -> element, of the current run
        self.widgets: dict[str, WidgetState] = {}  # widget id -> value, the browser's widget manager
        self.drawn: set[str] = set()  # widget ids drawn in the current run
        self.revs: dict[str, int] = {}  # matrix editor id -> the last revision sent
        self.fragments: dict[str, str] = {}  # widget id -> the id of the fragment it is drawn in ("" for none)

    async def open(self, page: str, query: str = "") -> float:
        """Load ``page`` (a name of PAGES), at the link's ``query`` string when given; return the
        seconds until its last run finished."""
        path = PAGES[page]
        self.query_string = query
        self.url = f"{self.base}/{path}" + (f"?{query}" if query else "")
        start = time.perf_counter()
        self.cookies = await http_get(self.url, self.timeout)
        host = urlsplit(self.base).netloc
        headers = [("Cookie", "; ".join(f"{k}={v}" for k, v in self.cookies.items()))] if self.cookies else []
        try:
            self.ws = await connect(f"ws://{host}/_stcore/stream", subprotocols=[Subprotocol("streamlit")],
                                    origin=Origin(f"http://{host}"), additional_headers=headers, proxy=None,
                                    max_size=None, open_timeout=self.timeout)
        except (OSError, InvalidHandshake, TimeoutError) as exc:
            raise VisitorError("connect", f"websocket: {exc!r}") from exc
        await self.ws.send(rerun_request(url=self.url, page_name=path, query_string=query))
        await self.finish_run()
        seconds = time.perf_counter() - start
        self.tally.opens.append(seconds)
        return seconds

    async def send_edit(self, value: str) -> None:
        """Send the rerun request of typing ``value`` into X's first cell of column x1 (no waiting)."""
        editor = next((wid for wid in self.drawn if X_EDITOR.search(wid)), None)
        element = next((e for e in self.elements.values() if e.WhichOneof("type") == "bidi_component"
                        and e.bidi_component.id == editor), None)
        if element is None:
            raise VisitorError("no_editor", "no matrix editor with key ed_x_* on the page")
        cells = self.typed_table(editor, element)
        cells[EDIT_ROW][EDIT_COLUMN] = value
        self.revs[editor] = self.revs.get(editor, 0) + 1
        self.widgets[editor] = WidgetState(id=editor, json_value=editor_state(cells, self.revs[editor]))
        await self.ws.send(rerun_request(url=self.url, page_hash=self.page_hash, query_string=self.query_string,
                                         widgets=self.widgets.values(), cached_hashes=self.cache,
                                         fragment_id=self.fragments.get(editor, "")))

    def typed_table(self, editor: str, element) -> list[list[str]]:
        """The table a matrix editor holds, as the browser keeps it: what this visitor last sent
        to that instance, else what the instance was mounted with."""
        sent = self.widgets.get(editor)
        if sent is not None and sent.json_value:
            table = json.loads(sent.json_value).get("table")
            if table:
                return [list(row) for row in table["cells"]]
        return [list(row) for row in json.loads(element.bidi_component.json)["cells"]]

    async def edit(self, value: str) -> float:
        """Type ``value`` into X's first cell of column x1; return the seconds until the run finished."""
        before = self.step_text()
        start = time.perf_counter()
        await self.send_edit(value)
        await self.finish_run()
        seconds = time.perf_counter() - start
        self.tally.edits.append(seconds)
        after = self.step_text()
        if not after or after == before:
            self.tally.errors["no_effect"] += 1
            self.tally.note(f"no_effect: typing {value} did not change the page's step-by-step text")
        return seconds

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 10)

    def step_text(self) -> str:
        """The step-by-step text of the page (every ``st.code`` block), in page order."""
        codes = [(path, el.code.code_text) for path, el in self.elements.items() if el.WhichOneof("type") == "code"]
        return "\n".join(text for _, text in sorted(codes))

    async def finish_run(self) -> None:
        """Read messages until a run finishes successfully (runs ended early for a rerun are followed)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        while True:
            try:
                data = await asyncio.wait_for(self.ws.recv(), max(0.0, deadline - loop.time()))
            except (TimeoutError, asyncio.TimeoutError) as exc:
                raise VisitorError("timeout", f"no finished run within {self.timeout:g} s") from exc
            except ConnectionClosed as exc:
                raise VisitorError("closed", repr(exc)) from exc
            if isinstance(data, str):
                continue
            msg = ForwardMsg()
            msg.ParseFromString(data)
            status = self.handle(msg)
            if status in (FINISHED, FRAGMENT_FINISHED):
                self.widgets = {wid: state for wid, state in self.widgets.items() if wid in self.drawn}
                return
            if status is not None and status != EARLY_FOR_RERUN:
                raise VisitorError("run_status", ForwardMsg.ScriptFinishedStatus.Name(status))

    def handle(self, msg: ForwardMsg):
        """Apply one ForwardMsg as the frontend would; return the run's status if it ends one."""
        if msg.WhichOneof("type") == "ref_hash":  # an element this visitor already holds
            cached = self.cache.get(msg.ref_hash)
            if cached is None:
                raise VisitorError("protocol", f"ref_hash {msg.ref_hash} not in the cache")
            metadata = msg.metadata
            msg = ForwardMsg()
            msg.CopyFrom(cached)
            msg.metadata.CopyFrom(metadata)
        elif msg.metadata.cacheable:
            self.cache[msg.hash] = msg
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            self.page_hash = msg.new_session.page_script_hash
            self.elements, self.drawn = {}, set()
        elif kind == "navigation":  # st.navigation: the page shown (new_session names app.py)
            self.page_hash = msg.navigation.page_script_hash
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            self.draw(tuple(msg.metadata.delta_path), msg.delta.new_element, msg.delta.fragment_id)
        elif kind == "page_info_changed":  # the app set a query parameter: the tab's URL now has it
            self.query_string = msg.page_info_changed.query_string
        elif kind == "session_event" and msg.session_event.HasField("script_compilation_exception"):
            self.shown_exception(msg.session_event.script_compilation_exception)
        elif kind == "page_not_found":
            raise VisitorError("page_not_found", msg.page_not_found.page_name)
        elif kind == "script_finished":
            return msg.script_finished
        return None

    def draw(self, path: tuple, element, fragment_id: str = "") -> None:
        self.elements[path] = element
        kind = element.WhichOneof("type")
        if kind == "exception":
            self.shown_exception(element.exception)
        widget_id = getattr(getattr(element, kind), "id", "") if kind else ""
        if widget_id:
            self.drawn.add(widget_id)
            self.fragments[widget_id] = fragment_id  # its change reruns this fragment only (or all: "")
            if widget_id not in self.widgets or getattr(getattr(element, kind), "set_value", False):
                state = widget_state(element)
                if state is not None:
                    self.widgets[widget_id] = state

    def shown_exception(self, exc) -> None:
        self.tally.exceptions += 1
        self.tally.note(f"exception: {exc.type}: {exc.message[:200]}")


async def http_get(url: str, timeout: float) -> dict[str, str]:
    """GET ``url`` (plain HTTP/1.1, loopback); return the cookies it set. Raises VisitorError."""
    parts = urlsplit(url)
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(parts.hostname, parts.port or 80), timeout)
        try:
            writer.write(f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\nAccept: text/html\r\n"
                         "User-Agent: selfattn-bench-load\r\nConnection: close\r\n\r\n".encode())
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
            await asyncio.wait_for(reader.read(), timeout)  # the page itself, read and dropped
        finally:
            writer.close()
    except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError) as exc:
        raise VisitorError("connect", f"GET {url}: {exc!r}") from exc
    lines = head.decode("latin-1").split("\r\n")
    status = lines[0].split(" ")[1] if len(lines[0].split(" ")) > 1 else "?"
    if status != "200":
        raise VisitorError("connect", f"GET {url}: {lines[0]}")
    cookies = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "set-cookie":
            key, _, rest = value.strip().partition("=")
            cookies[key] = rest.split(";", 1)[0]
    return cookies


async def attempt(tally: Tally, action) -> bool:
    """Await one visitor action; count a failure under its kind instead of raising."""
    try:
        await action
        return True
    except VisitorError as exc:
        tally.errors[exc.kind] += 1
        tally.note(str(exc))
    except (OSError, ConnectionClosed) as exc:
        tally.errors["connect"] += 1
        tally.note(f"connect: {exc!r}")
    return False


# ── Scenarios ──────────────────────────────────────────────────────────────────────────
async def scenario_open(url: str, page: str, visitors: int, args, tally: Tally) -> int:
    """``visitors`` tabs open ``page`` at once; return the number of visitors."""
    async def one() -> None:
        visitor = Visitor(url, tally, args.timeout)
        try:
            await attempt(tally, visitor.open(page))
        finally:
            await visitor.close()

    await asyncio.gather(*(one() for _ in range(visitors)))
    return visitors


async def scenario_edit(url: str, page: str, visitors: int, args, tally: Tally) -> int:
    """``visitors`` tabs open the Playground at once, then each edits X ``args.edits`` times."""
    tabs = [Visitor(url, tally, args.timeout) for _ in range(visitors)]
    try:
        opened = await asyncio.gather(*(attempt(tally, tab.open("playground")) for tab in tabs))

        async def edits(tab: Visitor) -> None:
            for k in range(args.edits):
                if not await attempt(tally, tab.edit(edit_value(k))):
                    return

        await asyncio.gather(*(edits(tab) for tab, ok in zip(tabs, opened) if ok))
    finally:
        await asyncio.gather(*(tab.close() for tab in tabs))
    return visitors


async def scenario_soak(url: str, page: str, visitors: int, args, tally: Tally) -> int:
    """Tabs open ``page`` and close it one after another; return how many did (time-bounded)."""
    deadline = time.monotonic() + args.soak_seconds
    done = 0
    while done < visitors and time.monotonic() < deadline:
        visitor = Visitor(url, tally, args.timeout)
        try:
            await attempt(tally, visitor.open(page))
        finally:
            await visitor.close()
        done += 1
    return done


RUNNERS = {"open": scenario_open, "edit": scenario_edit, "soak": scenario_soak}


# ── Server processes: memory and CPU from /proc ────────────────────────────────────────
def rss_mb(pid: int) -> float | None:
    """Resident memory of one process in MB (``VmRSS``), or None when it is gone."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return None


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds used so far by one process (0 when it is gone)."""
    with contextlib.suppress(OSError, IndexError, ValueError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


def children(pid: int) -> list[int]:
    """Every live descendant of ``pid``, from the parent ids in ``/proc/*/stat``."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        kids = [child for child, ppid in parents.items() if ppid == parent]
        found += kids
        frontier += kids
    return found


def cmdline(pid: int) -> list[str]:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    return []


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def wait_health(url: str, timeout: float, alive=lambda: True) -> None:
    """Wait until ``url/_stcore/health`` answers 200 (RuntimeError after ``timeout`` s or if not ``alive()``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and alive():
        with contextlib.suppress(VisitorError):
            await http_get(f"{url}/_stcore/health", 5)
            return
        await asyncio.sleep(0.3)
    raise RuntimeError(f"{url} did not answer /_stcore/health within {timeout:g} s")


class Target:
    """A server to measure: its base URL, its app processes, the URLs that reach each one directly."""

    label = "?"
    url = ""
    direct_urls: list[str] = []

    def pids(self) -> list[int]:
        return []

    async def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def rss(self) -> dict[int, float | None]:
        return {pid: rss_mb(pid) for pid in self.pids()}

    def cpu(self) -> dict[int, float]:
        return {pid: cpu_seconds(pid) for pid in self.pids()}

    async def wait_quiet(self, timeout: float = 90.0) -> None:
        """Wait until the app processes use < 5 % of a core over a second (``timeout`` at most)."""
        deadline = time.monotonic() + timeout
        while self.pids() and time.monotonic() < deadline:
            before = sum(self.cpu().values())
            await asyncio.sleep(1.0)
            if sum(self.cpu().values()) - before < 0.05:
                return


class LocalServer(Target):
    """``SELFATTN_HOSTED=1 streamlit run app.py`` in ``app_dir``, one process on a free port."""

    def __init__(self, app_dir: Path, label: str, work: Path):
        self.app_dir, self.label, self.port = app_dir, label, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.direct_urls = [self.url]
        self.log = work / f"server-{self.port}.log"
        self.proc = None

    def pids(self) -> list[int]:
        return [self.proc.pid] if self.proc and self.proc.poll() is None else []

    async def start(self) -> None:
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                 "--server.port", str(self.port), "--server.address", "127.0.0.1",
                 "--browser.gatherUsageStats", "false"],  # the rest from the checkout's .streamlit/config.toml
                cwd=self.app_dir, env={**os.environ, "SELFATTN_HOSTED": "1", "PYTHONUNBUFFERED": "1"},
                stdout=log, stderr=subprocess.STDOUT)
        try:
            await wait_health(self.url, 90, alive=lambda: self.proc.poll() is None)
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}; its log: {self.log.read_text(errors='replace')[-2000:]}") from exc

    def stop(self) -> None:
        if self.proc:
            stop_process(self.proc, 15)


class Replicas(Target):
    """``deploy/serve.sh --replicas N --port P`` in ``app_dir``: a proxy in front of N app processes."""

    def __init__(self, app_dir: Path, replicas: int, label: str, work: Path):
        self.app_dir, self.replicas, self.label, self.port = app_dir, replicas, label, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = work / f"serve-{self.port}.log"
        self.proc = None
        self.app_pids: list[int] = []

    def pids(self) -> list[int]:
        return [pid for pid in self.app_pids if rss_mb(pid) is not None]

    async def start(self) -> None:
        script = self.app_dir / "deploy" / "serve.sh"
        if not script.exists():
            raise RuntimeError(f"{script} does not exist (needed by --serve-replicas)")
        command = ["bash", str(script), "--replicas", str(self.replicas), "--port", str(self.port)]
        if "--bind" in script.read_text(errors="replace"):
            command += ["--bind", "127.0.0.1"]  # loopback only
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(command, cwd=self.app_dir,
                                         env={**os.environ, "SELFATTN_HOSTED": "1", "PYTHON": sys.executable},
                                         stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        alive = lambda: self.proc.poll() is None  # noqa: E731
        try:
            await wait_health(self.url, 120, alive=alive)
            deadline = time.monotonic() + 120
            while alive() and time.monotonic() < deadline:
                self.app_pids = [pid for pid in children(self.proc.pid) if is_streamlit_server(pid)]
                ports = [replica_port(pid) for pid in self.app_pids]
                if len(self.app_pids) >= self.replicas and all(ports):
                    self.direct_urls = [f"http://127.0.0.1:{port}" for port in ports]
                    for url in self.direct_urls:
                        await wait_health(url, max(1.0, deadline - time.monotonic()))
                    return
                await asyncio.sleep(0.5)
            raise RuntimeError(f"found {len(self.app_pids)} of {self.replicas} streamlit processes under serve.sh")
        except RuntimeError as exc:
            self.stop()
            raise RuntimeError(f"{exc}; its log: {self.log.read_text(errors='replace')[-2000:]}") from exc

    def stop(self) -> None:
        """SIGTERM to serve.sh (it stops what it started); then kill, by pid, whatever it left."""
        if self.proc is None:
            return
        started = {pid: cmdline(pid) for pid in children(self.proc.pid)}
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        for pid, args in started.items():
            if cmdline(pid) == args:  # still the process serve.sh started, not a new one with its pid
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)


def is_streamlit_server(pid: int) -> bool:
    args = cmdline(pid)
    return any(arg.endswith("streamlit") or arg == "streamlit" for arg in args[:4]) and "run" in args


def replica_port(pid: int) -> int | None:
    """The port one app process listens on (its ``--server.port`` argument), or None."""
    args = cmdline(pid)
    for i, arg in enumerate(args):
        if arg == "--server.port" and i + 1 < len(args) and args[i + 1].isdigit():
            return int(args[i + 1])
        if arg.startswith("--server.port="):
            return int(arg.split("=", 1)[1])
    return None


class RemoteServer(Target):
    """A server started elsewhere (``--url``), its app processes given by ``--pids``."""

    def __init__(self, url: str, pids: list[int]):
        self.url, self.label, self._pids = url.rstrip("/"), url.rstrip("/"), pids
        self.direct_urls = [self.url]

    def pids(self) -> list[int]:
        return [pid for pid in self._pids if rss_mb(pid) is not None]

    async def start(self) -> None:
        await wait_health(self.url, 30)


async def warm_up(target: Target, pages: list[str], edit: bool, timeout: float) -> Tally:
    """One visit per page (and one edit) on every app process of ``target``, untimed."""
    tally = Tally()
    for url in target.direct_urls or [target.url]:
        for page in pages:
            visitor = Visitor(url, tally, timeout)
            try:
                if await attempt(tally, visitor.open(page)) and edit and page == "playground":
                    await attempt(tally, visitor.edit(edit_value(0)))
            finally:
                await visitor.close()
    await target.wait_quiet()
    return tally


# ── Measuring and reporting ────────────────────────────────────────────────────────────
def summarize(seconds: list[float]) -> dict:
    """p50, p95 and max in seconds (p95 interpolated between ranks), and the count."""
    values = sorted(seconds)
    if not values:
        return {"n": 0}
    p95 = statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]
    return {"p50": round(statistics.median(values), 3), "p95": round(p95, 3), "max": round(values[-1], 3),
            "n": len(values)}


async def sample_peak(target: Target, peak: dict) -> None:
    """Keep the highest RSS seen per process in ``peak`` until cancelled."""
    while True:
        for pid, mb in target.rss().items():
            if mb is not None:
                peak[pid] = max(peak.get(pid, 0.0), mb)
        await asyncio.sleep(0.25)


async def measure(target: Target, scenario: str, page: str, args, repeat: int) -> dict:
    """Run one scenario against one target; return its row of the report."""
    visitors = args.visitors or DEFAULT_VISITORS[scenario]
    await target.wait_quiet(30)
    tally, peak = Tally(), {}
    before, cpu0, client0 = target.rss(), target.cpu(), time.process_time()
    sampler = asyncio.create_task(sample_peak(target, peak))
    start = time.perf_counter()
    try:
        done = await RUNNERS[scenario](target.url, page, visitors, args, tally)
    finally:
        wall = time.perf_counter() - start
        sampler.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sampler
    after = target.rss()
    server_cpu = {pid: seconds - cpu0.get(pid, 0.0) for pid, seconds in target.cpu().items()}
    row = {"target": target.label, "scenario": scenario, "page": "playground" if scenario == "edit" else page,
           "repeat": repeat, "visitors": done, "edits_each": args.edits if scenario == "edit" else 0,
           "open": summarize(tally.opens), "edit": summarize(tally.edits),
           "runs": len(tally.opens) + len(tally.edits), "wall_s": round(wall, 2),
           "runs_per_s": round((len(tally.opens) + len(tally.edits)) / wall, 2),
           "errors": dict(tally.errors), "exceptions": tally.exceptions, "samples": tally.samples,
           "rss_mb_before": rounded(before), "rss_mb_after": rounded(after), "rss_mb_peak": rounded(peak),
           "server_cpu_s": round(sum(server_cpu.values()), 1), "server_cpu_s_per_process": rounded(server_cpu),
           "client_cpu_s": round(time.process_time() - client0, 1)}
    if scenario == "soak":
        row["growth_mb_per_visitor"] = round((total(after) - total(before)) / max(done, 1), 3)
        if args.settle:
            await asyncio.sleep(args.settle)
            await scenario_soak(target.url, page, 1, args, Tally())
            row["settle_s"], row["rss_mb_settled"] = args.settle, rounded(target.rss())
            row["growth_mb_per_visitor_settled"] = round((total(target.rss()) - total(before)) / max(done, 1), 3)
    return row


def rounded(rss: dict) -> dict:
    return {str(pid): None if mb is None else round(mb, 1) for pid, mb in rss.items()}


def total(rss: dict) -> float:
    return sum(mb for mb in rss.values() if mb is not None)


def fmt_latency(summary: dict) -> str:
    if not summary.get("n"):
        return f"{'-':>7}{'-':>7}{'-':>7}"
    return f"{summary['p50']:>7.2f}{summary['p95']:>7.2f}{summary['max']:>7.2f}"


HEADER = (f"{'target':<24}{'scenario':<9}{'page':<11}{'K':>4}  {'open p50':>7}{'p95':>7}{'max':>7}  "
          f"{'edit p50':>7}{'p95':>7}{'max':>7}{'runs/s':>8}{'errors':>7}{'exc':>5}"
          f"{'RSS MB before':>15}{'after':>7}{'peak':>7}{'MB/vis':>8}{'CPU s':>7}{'wall s':>8}")


def print_row(row: dict) -> None:
    errors = sum(row["errors"].values())
    growth = f"{row['growth_mb_per_visitor']:>8.3f}" if "growth_mb_per_visitor" in row else f"{'':>8}"
    print(f"{row['target'][-23:]:<24}{row['scenario']:<9}{row['page']:<11}{row['visitors']:>4}  "
          f"{fmt_latency(row['open'])}  {fmt_latency(row['edit'])}{row['runs_per_s']:>8.2f}{errors:>7}{row['exceptions']:>5}"
          f"{total(row['rss_mb_before']):>15.0f}{total(row['rss_mb_after']):>7.0f}{total(row['rss_mb_peak']):>7.0f}"
          f"{growth}{row['server_cpu_s']:>7.1f}{row['wall_s']:>8.1f}", flush=True)
    if len(row["rss_mb_after"]) > 1:
        print("    per process: RSS MB before -> after (peak), CPU s: " + "; ".join(
            f"pid {pid} {row['rss_mb_before'].get(pid)} -> {mb} ({row['rss_mb_peak'].get(pid)}), "
            f"{row['server_cpu_s_per_process'].get(pid)}" for pid, mb in row["rss_mb_after"].items()))
    if "rss_mb_settled" in row:
        print(f"    after {row['settle_s']:g} s and one more visit: RSS {total(row['rss_mb_settled']):.0f} MB, "
              f"{row['growth_mb_per_visitor_settled']:.3f} MB per visitor")
    if errors:
        print("    errors: " + ", ".join(f"{kind} {n}" for kind, n in sorted(row["errors"].items())))
    for sample in row["samples"]:
        print(f"    e.g. {sample}")


def environment() -> dict:
    import streamlit

    return {"date": date.today().isoformat(), "python": platform.python_version(), "machine": platform.machine(),
            "cores": len(os.sched_getaffinity(0)), "streamlit": streamlit.__version__,
            "load_average": [round(x, 2) for x in os.getloadavg()]}


def plan(args) -> list[tuple[str, str]]:
    """The (scenario, page) measurements to take, in order."""
    scenarios = SCENARIOS if args.scenario == "all" else (args.scenario,)
    steps = []
    for scenario in scenarios:
        if scenario == "open":
            steps += [("open", page) for page in args.page]
        else:
            steps.append((scenario, "playground" if scenario == "edit" else args.page[0]))
    return steps


def make_targets(args, work: Path) -> list[Target]:
    """The servers to measure: ``--url``, or per checkout one process and/or serve.sh replicas."""
    if args.url:
        return [RemoteServer(args.url, args.pids)]
    dirs = [d.resolve() for d in args.app_dir]
    many = len(dirs) > 1
    targets: list[Target] = []
    for app_dir in dirs:
        name = f"{app_dir.name or app_dir} " if many else ""
        if args.start or not args.serve_replicas:
            targets.append(LocalServer(app_dir, f"{name}1 process", work))
        for n in args.serve_replicas or ():
            targets.append(Replicas(app_dir, n, f"{name}serve.sh x{n}", work))
    return targets


async def bench(args, targets: list[Target]) -> list[dict]:
    steps = plan(args)
    for target in targets:
        await target.start()
    for target in targets:
        await target.wait_quiet()
        if args.warmup:
            pages = list(dict.fromkeys(page for _, page in steps))
            tally = await warm_up(target, pages, edit=any(s == "edit" for s, _ in steps), timeout=args.timeout)
            if tally.errors or tally.exceptions:
                print(f"warm-up of {target.label}: errors {dict(tally.errors)}, exceptions {tally.exceptions}; "
                      + "; ".join(tally.samples), flush=True)
    print(HEADER, flush=True)
    rows = []
    for scenario, page in steps:
        for repeat in range(args.repeat):
            for target in targets if repeat % 2 == 0 else targets[::-1]:
                rows.append(await measure(target, scenario, page, args, repeat))
                print_row(rows[-1])
    return rows


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", choices=[*SCENARIOS, "all"], default="open")
    parser.add_argument("--page", nargs="+", choices=list(PAGES), default=["playground"],
                        help="pages opened by 'open' (each in turn); 'soak' opens the first")
    parser.add_argument("--visitors", type=int,
                        help=f"visitors per scenario (default: {', '.join(f'{k} {v}' for k, v in DEFAULT_VISITORS.items())})")
    parser.add_argument("--edits", type=int, default=5, help="edits per visitor in 'edit'")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds a page run may take before it counts as an error")
    parser.add_argument("--repeat", type=int, default=1, help="measurements per scenario and target (order alternating)")
    parser.add_argument("--soak-seconds", type=float, default=600.0, help="the soak stops after this long")
    parser.add_argument("--settle", type=float, default=0.0,
                        help="after the soak, wait this long, visit once more and read RSS again")
    parser.add_argument("--app-dir", type=Path, nargs="+", default=[ROOT], help="checkouts to measure (default: this one)")
    parser.add_argument("--start", action="store_true",
                        help="start each checkout as one process (the default unless --serve-replicas or --url)")
    parser.add_argument("--serve-replicas", type=int, nargs="+", metavar="N",
                        help="also (or instead) measure deploy/serve.sh --replicas N of each checkout")
    parser.add_argument("--url", help="measure a server already running, e.g. http://127.0.0.1:8501")
    parser.add_argument("--pids", type=int, nargs="*", default=[], help="with --url: its app processes, for RSS")
    parser.add_argument("--no-warmup", dest="warmup", action="store_false", help="skip the warm-up visits")
    parser.add_argument("--json", type=Path, help="write the report here")
    args = parser.parse_args(argv)
    if args.url and (args.start or args.serve_replicas):
        parser.error("--url measures a running server: leave out --start and --serve-replicas")
    if urlsplit(args.url or "http://127.0.0.1").hostname not in ("127.0.0.1", "localhost", "::1"):
        parser.error("--url must be a loopback address (127.0.0.1 or localhost)")
    for name in ("visitors", "edits", "repeat"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f"--{name} must be at least 1")
    return args


def main(argv=None) -> None:
    args = parse_args(argv)
    env = environment()
    print(f"python {env['python']}, {env['machine']}, cores: {env['cores']}, streamlit {env['streamlit']}, "
          f"load average {env['load_average']}")
    print("seconds; open = GET of the page to its last run finished; edit = rerun request to its run finished; "
          "runs/s = runs served / wall time; RSS = sum over the app processes; CPU s = the server's")
    with tempfile.TemporaryDirectory(prefix="selfattn-bench-load-") as work:
        targets = make_targets(args, Path(work))
        try:
            rows = asyncio.run(bench(args, targets))
        finally:
            for target in targets:
                target.stop()
    env["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        args.json.write_text(json.dumps({"environment": env, "argv": sys.argv, "rows": rows}, indent=1,
                                        ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
