"""A visitor as a browser tab is on the wire: Streamlit's websocket protocol, spoken without a browser.

Shared by the tests (hostile visitors, the container's pages) and the benchmarks (a class at once,
a crowd, hostile costs). benchmarks/bench_load.py's docstring tells what a visitor does and why.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.typing import Origin, Subprotocol

from ui.navigation import PAGES as APP_PAGES


def component_data(text: str):
    """What a selfattn component (a map, an editor) was drawn with, from its element's ``json``: the browser gets one
    JSON string and parses it (``ui.components.matrix_editor.payload``); None for the maps' code (no data)."""
    value = json.loads(text or "null")
    return json.loads(value) if isinstance(value, str) else value

PAGES = {page.name: page.url_path for page in APP_PAGES}  # name -> url path
# the Playground's X editor: its key is pged_x_<version> (the kit's, ui/editable_page.py; ed_x_ before issue 51, which
# the benchmarks' old checkouts still draw)
X_EDITOR = re.compile(r"-(pg)?ed_x_\d+$")
EDIT_ROW, EDIT_COLUMN = 0, 1  # first token, first number x1 (the label column comes first)


@dataclass(frozen=True)
class Edit:
    """What one visitor's edit is on a page, sent as the browser sends it."""

    key: re.Pattern  # the widget's id ends with its key
    kind: str  # "editor": a cell of a matrix editor (the grid's JSON state); "text": a text box; "int": a number box
    cell: tuple[int, int] = (0, 0)  # "editor": the (row, column) typed into, label columns counted
    check: str = "content"  # what the edit must change: "steps" (the worked-out lines) or "content" (see content())


EDITS = {  # page name -> its edit
    "playground": Edit(X_EDITOR, "editor", (EDIT_ROW, EDIT_COLUMN), "steps"),  # X's first token, x1
    "embeddings": Edit(re.compile(r"-emb_text$"), "text"),  # a new sentence in the text box
    "heads": Edit(re.compile(r"-hd_seed$"), "int"),  # a setting: another seed, new random input and weights
    "block": Edit(re.compile(r"-tbed_x_\d+$"), "editor"),  # X's first cell (ui/block/page.py: tbed_<table>_<version>)
    "seq2seq": Edit(re.compile(r"-s2sed_src_\d+$"), "editor"),  # the source X's first cell (ui/seq2seq/page.py)
    "efficient": Edit(re.compile(r"-ef_seed$"), "int"),  # the tiles' seed: new Q, K and V, every tile again
    "poet": Edit(re.compile(r"-po_seed$"), "int"),  # the draws' seed: another poem, every step again
}
# Kinds of element that take input rather than show a result: left out of Visitor.content()
INPUTS = frozenset({"button", "button_group", "checkbox", "color_picker", "date_input", "download_button",
                    "file_uploader", "multiselect", "number_input", "radio", "selectbox", "slider", "text_area",
                    "text_input", "time_input"})
# Six-character sentences for the embeddings page, 8 x 8 x 8 of them: the same length, so each costs the same
SUBJECTS, VERBS, OBJECTS = "我你他她猫狗鸟鱼", "看想爱要找听写画", "书花山水月车门球"
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


def typed(page: str, k: int) -> str:
    """What the k-th edit of ``page`` types (its :data:`EDITS` kind): never the same twice for k < 512."""
    kind = EDITS[page].kind
    if kind == "editor":
        return edit_value(k)
    if kind == "int":
        return str(1 + k)
    k %= len(SUBJECTS) * len(VERBS) * len(OBJECTS)
    subject, verb, thing = SUBJECTS[k % 8], VERBS[k // 8 % 8], OBJECTS[k // 64]
    return f"{subject}们{verb}了{thing}。"


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


async def _read_to_the_end(ws) -> None:
    """Read and drop a socket's frames until it is closed."""
    with contextlib.suppress(Exception):
        while True:
            await ws.recv()


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
        self.headers: list[tuple[str, str]] = []  # sent with the websocket's request (a proxy's X-Real-IP)

    async def open(self, page: str, query: str = "") -> float:
        """Load ``page`` (a name of PAGES), at the link's ``query`` string when given; return the
        seconds until its last run finished."""
        path = PAGES[page]
        self.query_string = query
        self.url = f"{self.base}/{path}" + (f"?{query}" if query else "")
        start = time.perf_counter()
        self.cookies = {**self.cookies, **await http_get(self.url, self.timeout, self.cookies)}  # as a browser keeps them
        host = urlsplit(self.base).netloc
        headers = [("Cookie", "; ".join(f"{k}={v}" for k, v in self.cookies.items()))] if self.cookies else []
        headers += self.headers
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

    async def send_edit(self, value: str, edit: Edit = EDITS["playground"]) -> None:
        """Send the rerun request of typing ``value`` into the widget ``edit`` names (no waiting);
        by default X's first cell of column x1 on the Playground."""
        widget = next((wid for wid in self.drawn if edit.key.search(wid)), None)
        if widget is None:
            raise VisitorError("no_editor", f"no widget with key {edit.key.pattern} on the page")
        if edit.kind == "editor":
            element = next((e for e in self.elements.values() if e.WhichOneof("type") == "bidi_component"
                            and e.bidi_component.id == widget), None)
            if element is None:
                raise VisitorError("no_editor", f"{widget} is not a matrix editor")
            cells = self.typed_table(widget, element)
            row, column = edit.cell
            cells[row][column] = value
            self.revs[widget] = self.revs.get(widget, 0) + 1
            state = WidgetState(id=widget, json_value=editor_state(cells, self.revs[widget]))
        elif edit.kind == "text":
            state = WidgetState(id=widget, string_value=value)
        else:
            state = WidgetState(id=widget, int_value=int(value))
        self.widgets[widget] = state
        await self.ws.send(rerun_request(url=self.url, page_hash=self.page_hash, query_string=self.query_string,
                                         widgets=self.widgets.values(), cached_hashes=self.cache,
                                         fragment_id=self.fragments.get(widget, "")))

    def typed_table(self, editor: str, element) -> list[list[str]]:
        """The table a matrix editor holds, as the browser keeps it: what this visitor last sent
        to that instance, else what the instance was mounted with."""
        sent = self.widgets.get(editor)
        if sent is not None and sent.json_value:
            table = json.loads(sent.json_value).get("table")
            if table:
                return [list(row) for row in table["cells"]]
        return [list(row) for row in component_data(element.bidi_component.json)["cells"]]

    async def edit(self, value: str, edit: Edit = EDITS["playground"]) -> float:
        """Type ``value`` into the widget ``edit`` names (by default X's first cell of column x1 on the
        Playground); return the seconds until the run finished. An edit that does not change what
        ``edit.check`` names is counted as a ``no_effect`` error."""
        seen = self.step_text if edit.check == "steps" else self.content
        before = seen()
        start = time.perf_counter()
        await self.send_edit(value, edit)
        await self.finish_run()
        seconds = time.perf_counter() - start
        self.tally.edits.append(seconds)
        after = seen()
        if not after or after == before:
            self.tally.errors["no_effect"] += 1
            what = "step-by-step text" if edit.check == "steps" else "content"
            self.tally.note(f"no_effect: typing {value} did not change the page's {what}")
        return seconds

    async def rerun(self) -> float:
        """Ask for a rerun of the page, every widget as it is (what a widget change costs Streamlit's own
        floor, a page without widgets); return the seconds until the run finished."""
        start = time.perf_counter()
        await self.ws.send(rerun_request(url=self.url, page_hash=self.page_hash, query_string=self.query_string,
                                         widgets=self.widgets.values(), cached_hashes=self.cache))
        await self.finish_run()
        seconds = time.perf_counter() - start
        self.tally.edits.append(seconds)
        return seconds

    async def close(self) -> None:
        """The closing handshake, reading what the server still sends meanwhile, as a browser does. Unread, a
        socket's buffer of received frames stops the reading once full (websockets' flow control), so the server's
        close frame queued behind them never arrived and every close of a flooding socket waited out its 10 s."""
        if self.ws is None:
            return
        reading = asyncio.create_task(_read_to_the_end(self.ws))
        try:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 10)
        finally:
            reading.cancel()
            await asyncio.gather(reading, return_exceptions=True)

    def step_text(self) -> str:
        """The step-by-step text of the page (every box of worked-out lines, ``ui.widgets.worked_lines``), in page order."""
        lines = [(path, el.text.body) for path, el in self.elements.items() if el.WhichOneof("type") == "text"]
        return "\n".join(text for _, text in sorted(lines))

    def content(self) -> str:
        """A digest of what the last run showed: every element but the inputs (texts, maps' and
        editors' data, charts), in page order."""
        digest = hashlib.sha256()
        for path, element in sorted(self.elements.items()):
            if element.WhichOneof("type") not in INPUTS:
                digest.update(repr(path).encode() + element.SerializeToString(deterministic=True))
        return digest.hexdigest() if self.elements else ""

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

    def texts(self) -> list[str]:
        """Every piece of text the last run drew: markdown, alerts, worked-out lines, captions, headings."""
        out = []
        for _, element in sorted(self.elements.items()):
            kind = element.WhichOneof("type")
            if kind == "markdown":
                out.append(element.markdown.body)
            elif kind == "alert":
                out.append(element.alert.body)
            elif kind == "text":
                out.append(element.text.body)
        return out

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
        elif kind == "delta" and msg.delta.WhichOneof("type") == "add_block" and msg.delta.add_block.expandable.id:
            self.drawn.add(msg.delta.add_block.expandable.id)  # an expander with a state (ui.widgets.folded): a widget
            self.fragments[msg.delta.add_block.expandable.id] = msg.delta.fragment_id
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


async def http_get(url: str, timeout: float, cookies: dict[str, str] | None = None) -> dict[str, str]:
    """GET ``url`` (plain HTTP/1.1, loopback) with the ``cookies`` a browser would send; return the cookies it set.
    Raises VisitorError."""
    parts = urlsplit(url)
    cookie = "Cookie: " + "; ".join(f"{k}={v}" for k, v in cookies.items()) + "\r\n" if cookies else ""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(parts.hostname, parts.port or 80), timeout)
        try:
            writer.write(f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\nAccept: text/html\r\n"
                         f"User-Agent: selfattn-bench-load\r\n{cookie}Connection: close\r\n\r\n".encode())
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
