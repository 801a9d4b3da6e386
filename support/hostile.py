"""A hostile visitor: crafted websocket messages against a real server, with what each one cost.

Built on support/visitor.py's :class:`Visitor`, which speaks Streamlit's protocol as a
browser tab does; a hostile one also sends widget states no browser would (rows added to a fixed
table, megabytes in a cell, values outside a widget's range) and counts what came back. The
server's CPU seconds are read from ``/proc`` around each attack, until the server is quiet again
(a run that goes on after its sender left still counts).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from streamlit.proto.WidgetStates_pb2 import WidgetState

from support import server as servers, visitor as wire

ROOT = Path(__file__).resolve().parents[1]

TIMEOUT = 60.0
MAX_LINK_BYTES = 2_000_000  # what one open of any link may send, in hosted mode
# Server CPU of one open of any link: 0.3-0.9 s on a quiet 2-core machine, 1.8 s seen on a loaded CI run;
# the faults the hostile tests guard against cost 10 s and more. A wide margin: a CPU bound is shared-machine noise.
MAX_LINK_CPU_S = 4.0


@dataclass
class Cost:
    """What one attack cost the server, and what its sender saw."""

    cpu_s: float = 0.0  # server CPU seconds, until it was quiet again
    wall_s: float = 0.0  # sending to quiet
    received: int = 0  # bytes of ForwardMsgs received by the sender
    exceptions: int = 0  # tracebacks shown
    texts: list[str] = field(default_factory=list)  # every markdown, alert and code text of the last run
    closed: bool = False  # the server closed the connection

    @property
    def cores(self) -> float:
        return self.cpu_s / self.wall_s if self.wall_s else 0.0


class Hostile(wire.Visitor):
    """A visitor that counts the bytes it receives and can set any widget to anything."""

    received = 0

    async def open_link(self, page: str, query: str = "") -> None:
        """Open ``page`` with ``query`` as its link's query string (what pasting the link does)."""
        self.query_string = query
        path = wire.PAGES[page]
        self.url = f"{self.base}/{path}" + (f"?{query}" if query else "")
        self.cookies = await wire.http_get(self.url, self.timeout)
        host = self.base.split("//", 1)[1]
        self.ws = await wire.connect(
            f"ws://{host}/_stcore/stream", subprotocols=[wire.Subprotocol("streamlit")],
            origin=wire.Origin(f"http://{host}"), proxy=None, max_size=None, open_timeout=self.timeout)
        recv = self.ws.recv

        async def counted(*args, **kwargs):
            data = await recv(*args, **kwargs)
            self.received += len(data)
            return data

        self.ws.recv = counted
        await self.ws.send(wire.rerun_request(url=self.url, page_name=path, query_string=query))
        await self.finish_run()

    def widget_id(self, pattern: str) -> str:
        """The id of the drawn widget whose id (``...-<key>``) matches ``pattern``."""
        found = [wid for wid in self.drawn if re.search(pattern, wid)]
        if len(found) != 1:
            raise AssertionError(f"{pattern!r} matches {found} of {sorted(self.drawn)}")
        return found[0]

    async def send(self, **values) -> None:
        """Send a rerun with widget states set: ``values`` maps a key pattern to a WidgetState field
        and value, e.g. ``{"pged_x_": ("json_value", "...")}`` given as ``pged_x_=("json_value", ...)``."""
        for pattern, (kind, value) in values.items():
            wid = self.widget_id(pattern)
            state = WidgetState(id=wid)
            setattr(state, kind, value)
            self.widgets[wid] = state
        # As the browser does: a widget drawn in a fragment (the Playground's editors) reruns only it.
        fragment = next((self.fragments.get(self.widget_id(p), "") for p in values), "")
        await self.ws.send(wire.rerun_request(
            url=self.url, page_hash=self.page_hash, query_string=self.query_string,
            widgets=self.widgets.values(), cached_hashes=self.cache, fragment_id=fragment))


async def quiet_cpu(pid: int, start_cpu: float, *, settle: float = 0.6, limit: float = 120.0) -> float:
    """CPU seconds the server used since ``start_cpu``, once it used < 2 % of a core over ``settle`` s."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        before = servers.cpu_seconds(pid)
        await asyncio.sleep(settle)
        if servers.cpu_seconds(pid) - before < 0.02 * settle:
            break
    return servers.cpu_seconds(pid) - start_cpu


async def measure(pid: int, act) -> Cost:
    """Run ``act()`` (a coroutine function that sends and reads), and what it cost the server."""
    cost = Cost()
    await quiet_cpu(pid, 0.0, settle=0.3, limit=30)
    start_cpu, start = servers.cpu_seconds(pid), time.monotonic()
    try:
        await act()
    except wire.VisitorError as exc:
        if exc.kind != "closed":
            raise
        cost.closed = True
    busy = servers.cpu_seconds(pid) - start_cpu
    cost.wall_s = time.monotonic() - start
    cost.cpu_s = await quiet_cpu(pid, start_cpu)
    if cost.cpu_s > busy + 0.05:  # it went on after the answer: count that time too
        cost.wall_s = max(cost.wall_s, cost.cpu_s)
    return cost


@contextlib.asynccontextmanager
async def visitor(url: str):
    tally = wire.Tally()
    v = Hostile(url, tally, TIMEOUT)
    try:
        yield v
    finally:
        await v.close()


# ── Uploads ──────────────────────────────────────────────────────────────────────────────
UPLOADS = {"one row of 524,288 columns": "1," * 524_287 + "1\n",  # each within the page's 1 MB
           "25 rows with 40,000 trailing commas": ("1,2,3,4" + "," * 40_000 + "\n") * 25,
           "a million rows": "1\n" * 500_000}
_PROBE = """
import sys, time
from selfattn.display.grid import read_csv_matrix
data = open(sys.argv[1], "rb").read()
status = lambda key: int(open("/proc/self/status").read().split(key + ":")[1].split()[0]) / 1024
open("/proc/self/clear_refs", "w").write("5")  # the peak (VmHWM) starts again from here: imports left out
before, start = status("VmRSS"), time.process_time()
try:
    read_csv_matrix(data, "X", cols=4)
    code = "ok"
except Exception as exc:
    code = getattr(exc, "code", type(exc).__name__)
print(time.process_time() - start, max(status("VmRSS"), status("VmHWM")) - before, code)
"""


def upload_cost(app_dir: Path, path: Path) -> tuple[float, float, str]:
    """(CPU seconds, MB of RSS growth, error code or "ok") of the Playground parsing the file at
    ``path`` as X, in a fresh process of ``app_dir``'s code (its modules imported before the clock)."""
    done = subprocess.run([sys.executable, "-c", _PROBE, str(path)], cwd=app_dir, capture_output=True, text=True,
                          timeout=300)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    cpu_s, grew_mb, code = done.stdout.split()
    return float(cpu_s), float(grew_mb), code


@contextlib.contextmanager
def hosted_playground(work: Path):
    """The app in hosted mode, one process, warmed up by one visit to the Playground; stopped after."""
    target = servers.LocalServer(ROOT, "hostile", work)
    asyncio.run(target.start())
    yield from _warmed(target)


def _warmed(target: servers.LocalServer):
    """Yield ``target`` once one visit to the Playground has warmed it; stop it after."""
    try:
        async def warm():
            async with visitor(target.url) as v:
                await v.open_link("playground")
        asyncio.run(warm())
        yield target
    finally:
        target.stop()


# ── Component triggers: what a click on a step map sends ────────────────────────────────
def trigger_state(component_id: str, payload: str) -> WidgetState:
    """The trigger widget state of a Components-v2 element: ``payload`` is the JSON text of its event
    list as sent (``[{"event": "pick", "value": 2}]`` from a browser; anything from an attacker)."""
    return WidgetState(id=f"$$STREAMLIT_INTERNAL_KEY_{component_id}__events", json_trigger_value=payload)


async def send_trigger(v: Hostile, pattern: str, payload: str) -> None:
    """Send the rerun a click on the component whose id matches ``pattern`` asks for: its trigger
    once (the browser does not keep a trigger), the other widgets as held, its fragment rerun."""
    wid = v.widget_id(pattern)
    widgets = [*v.widgets.values(), trigger_state(wid, payload)]
    await v.ws.send(wire.rerun_request(
        url=v.url, page_hash=v.page_hash, query_string=v.query_string, widgets=widgets,
        cached_hashes=v.cache, fragment_id=v.fragments.get(wid, "")))


def pick_payload(value_json: str) -> str:
    """A ``pick`` trigger whose value is the JSON text ``value_json`` (NaN, Infinity and all)."""
    return '[{"event": "pick", "value": ' + value_json + "}]"


def component_data(v: Hostile, pattern: str) -> dict | None:
    """The JSON the last run drew the component whose id matches ``pattern`` with (None: not drawn)."""
    import re as _re

    for element in v.elements.values():
        if element.WhichOneof("type") == "bidi_component" and _re.search(pattern, element.bidi_component.id):
            return wire.component_data(element.bidi_component.json)
    return None


def attack(target, page: str, query: str, *widgets: dict) -> tuple[Cost, list[str], list[str]]:
    """Open ``page`` at ``query`` on ``target``, then send each of ``widgets`` (pattern -> (kind, value)) in turn.

    Returns:
        What the last message cost, and the page's texts before the first and after the last.
    """
    pid = target.pids()[0]

    async def run():
        async with visitor(target.url) as v:
            await v.open_link(page, query)
            before = v.texts()
            cost = Cost()
            for values in widgets:
                async def act():
                    await v.send(**values)
                    await v.finish_run()
                cost = await measure(pid, act)
            cost.exceptions = v.tally.exceptions
            return cost, before, v.texts()

    return asyncio.run(run())


def open_cost(target, page: str, query: str) -> Cost:
    """What opening ``page`` at ``query`` costs the server, with the bytes received, exceptions and texts."""
    pid = target.pids()[0]

    async def run():
        async with visitor(target.url) as v:
            cost = await measure(pid, lambda: v.open_link(page, query))
            cost.received, cost.exceptions = v.received, v.tally.exceptions
            cost.texts = v.texts()
            return cost

    return asyncio.run(run())


# ── Issue 55: a flood of reruns from many sockets, and an honest visitor meanwhile ─────────
ATTACKER, HONEST = "10.0.0.66", "10.0.0.7"  # their X-Real-IP, read where SELFATTN_CLIENT_HEADER names it
FLOOD_MAX_S = 90.0  # no flood runs longer than this, whatever happens


@dataclass
class Flood:
    """What an honest visitor saw during a flood, and what the flood sent."""

    opens: list[float] = field(default_factory=list)  # seconds of each of the honest visitor's opens
    gets: list[float] = field(default_factory=list)  # seconds of each plain GET of the page (the event loop's answer)
    calm_opens: list[float] = field(default_factory=list)  # the same opens and GETs just before the flood began:
    calm_gets: list[float] = field(default_factory=list)  # what this machine gives them now, flood or not
    sent: int = 0  # reruns the flood sent
    cpu_s: float = 0.0  # the server's CPU seconds during the flood
    seconds: float = 0.0  # how long the flood lasted
    tally: wire.Tally = field(default_factory=wire.Tally)  # the honest visitor's errors and exceptions


async def _drain(ws, stop: asyncio.Event) -> None:
    """Read and drop what the server sends a flooding socket (as a browser reads it), until ``stop``."""
    while not stop.is_set():
        try:
            await asyncio.wait_for(ws.recv(), 0.5)
        except (TimeoutError, asyncio.TimeoutError):
            continue
        except Exception:
            return


async def _flood_from(v: wire.Visitor, page: str, per_s: float, stop: asyncio.Event, edits: bool, first: int) -> int:
    """Send ``per_s`` reruns a second until ``stop``: the page's edit, a new value each time, as the browser sends
    it (its fragment's rerun where it is drawn in one), or a whole rerun with every widget as it is and no message
    cached (so that the server sends the whole page again each time)."""
    sent = 0
    while not stop.is_set():
        if edits:
            await v.send_edit(wire.typed(page, first + sent), wire.EDITS[page])
        else:
            await v.ws.send(wire.rerun_request(url=v.url, page_hash=v.page_hash, query_string=v.query_string,
                                               widgets=v.widgets.values()))  # no cached message: all sent again
        sent += 1
        with contextlib.suppress(TimeoutError, asyncio.TimeoutError):
            await asyncio.wait_for(stop.wait(), 1.0 / per_s)
    return sent


async def _probe(url: str, page: str, honest: str | None, timeout: float, tally: wire.Tally, gets: list[float],
                 opens: list[float]) -> None:
    """A plain GET of ``page``, then an honest visitor (from the address ``honest``) opens it: their seconds."""
    began = time.perf_counter()
    await wire.attempt(tally, wire.http_get(f"{url}/{wire.PAGES[page]}", timeout))
    gets.append(time.perf_counter() - began)
    other = wire.Visitor(url, tally, timeout)
    other.headers = [("X-Real-IP", honest)] if honest else []
    try:
        if await wire.attempt(tally, other.open(page)):
            opens.append(tally.opens[-1])
    finally:
        await other.close()


async def flood(url: str, page: str, query: str = "", *, sockets: int = 10, per_s: float = 2.0, edits: bool = False,
                warm_s: float = 3.0, probes: int = 3, honest_page: str = "playground", attacker: str | None = ATTACKER,
                honest: str | None = HONEST, pid: int | None = None, timeout: float = 60.0) -> Flood:
    """``sockets`` websockets (one session each, from the address ``attacker``) open ``page`` at ``query``, then
    each asks for ``per_s`` reruns a second (``edits``: the page's edit with a new value each time, else a whole
    rerun); after ``warm_s`` s of that, ``probes`` times: a plain GET of ``honest_page``, then an honest visitor
    (from ``honest``) opens it; the same probes first, before the flood begins (``calm_gets``, ``calm_opens``). The
    flood stops once the probes are done (:data:`FLOOD_MAX_S` at most).
    An address of None sends no X-Real-IP (every socket the connection's address, 127.0.0.1)."""
    result = Flood()
    flooders = []
    try:
        for _ in range(sockets):
            v = wire.Visitor(url, wire.Tally(), timeout)
            v.headers = [("X-Real-IP", attacker)] if attacker else []
            flooders.append(v)
            await v.open(page, query)
        for _ in range(probes):  # the same probes before the flood: the machine's own pace, as loaded as it is now
            await _probe(url, honest_page, honest, timeout, result.tally, result.calm_gets, result.calm_opens)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        cpu0, start = (servers.cpu_seconds(pid) if pid else 0.0), loop.time()
        drains = [asyncio.create_task(_drain(v.ws, stop)) for v in flooders]
        floods = [asyncio.create_task(_flood_from(v, page, per_s, stop, edits, 1000 * k))
                  for k, v in enumerate(flooders)]
        loop.call_later(FLOOD_MAX_S, stop.set)
        try:
            await asyncio.wait_for(stop.wait(), warm_s)
        except (TimeoutError, asyncio.TimeoutError):
            pass
        try:
            for _ in range(probes):
                if stop.is_set():
                    break
                await _probe(url, honest_page, honest, timeout, result.tally, result.gets, result.opens)
                await asyncio.sleep(0.5)
        finally:
            stop.set()
            result.sent = sum(n for n in await asyncio.gather(*floods, return_exceptions=True) if isinstance(n, int))
            await asyncio.gather(*drains, return_exceptions=True)
            result.seconds = loop.time() - start
            result.cpu_s = (servers.cpu_seconds(pid) - cpu0) if pid else 0.0
    finally:
        for v in flooders:
            await v.close()
    return result


@contextlib.contextmanager
def hosted_server(work: Path, app_dir: Path = ROOT, *, client_header: bool = True):
    """The app in hosted mode, one process (``app_dir``'s code), reading each visitor's address from X-Real-IP
    (``client_header``: as behind deploy/serve.sh's proxy), warmed up by one visit to the Playground; stopped after."""
    import os

    saved = os.environ.get("SELFATTN_CLIENT_HEADER")
    os.environ["SELFATTN_CLIENT_HEADER"] = "X-Real-IP" if client_header else ""
    target = servers.LocalServer(app_dir, "hostile", work)
    try:
        asyncio.run(target.start())
    finally:
        if saved is None:
            os.environ.pop("SELFATTN_CLIENT_HEADER", None)
        else:
            os.environ["SELFATTN_CLIENT_HEADER"] = saved
    yield from _warmed(target)


async def read_until_quiet(v: wire.Visitor, quiet_s: float = 3.0, limit_s: float = 60.0) -> None:
    """Read and apply what the server sends ``v`` until it sends nothing for ``quiet_s`` s (``limit_s`` at most)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit_s
    while loop.time() < deadline:
        try:
            data = await asyncio.wait_for(v.ws.recv(), min(quiet_s, max(0.0, deadline - loop.time())))
        except (TimeoutError, asyncio.TimeoutError):
            return
        if isinstance(data, str):
            continue
        msg = ForwardMsg()
        msg.ParseFromString(data)
        v.handle(msg)

