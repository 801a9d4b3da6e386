"""Felt speed of a Playground edit in Chromium: Enter pressed on a cell of X -> last chart redrawn.

Usage:
    python benchmarks/bench_browser.py [--repeats 15] [--sizes tutorial 32x16] [--app-dir DIR ...]
        [--url URL] [--breakdown] [--json out.json]
    python benchmarks/bench_browser.py --page block [--sizes tutorial block:default block:max ...]

``--page block`` (issue 32) times the Transformer block page (/block) instead: its sizes are
``block:default`` (the page as it opens: the "tiny" preset, n 4, d_model 4, 2 heads, d_ff 8, one
layer) and ``block:max`` (the hosted maximum, opened by the link ``?n=16&d=16&heads=4&dff=64&layers=6``),
or ``block:<query string>`` for any other link. The same cell of X (first row, first column of
its matrix editor) is edited; the edit is done when the last map on the page has changed, and
besides ``charts`` (every changed chart drawn) the script reports ``output_map``: Enter to the
frame that drew the new numbers of the layer's outputs map (the last map of the layer's flow, keyed
``map_tb_layer<L>_<step>``: ``_output`` before 4125963, ``_residual2`` or ``_norm2`` since). Playground sizes (``tutorial``, ``NxD``)
may be given in the same run, for comparison on the same machine.

For each app (a checkout given by ``--app-dir``, started here with ``streamlit run app.py``; or
a running server given by ``--url``) and each size (``tutorial``: the tutorial preset;
``NxD``: n=N tokens, d_in=d_k=d_v=D, set through the size inputs, then the random preset),
the script opens the Playground in headless Chromium and edits the same cell of X again and
again, each time to a value it never typed before, alternating between large and small so
that every chart changes. Nothing is read back from Streamlit's message cache that way, as for
a visitor typing new numbers.

What is timed, all in the page's own clock (``performance.now()``):

* ``charts``: from the Enter key's keydown event to the end of the frame that drew the last
  change of the last chart whose drawing changed. A MutationObserver sees every change to a
  chart's SVG (and a hook on the 2D canvas context every draw into a chart's canvas); the time
  is taken in a message posted from ``requestAnimationFrame``, which runs once that frame's
  style, layout and paint are done. Streamlit updates each Vega view in place; a chart
  element it replaced would be noticed within 50 ms. The page is left alone until nothing has changed for
  ``--quiet`` ms, so a chart drawn twice counts at its second drawing. Every chart's final
  drawing is compared with its drawing before the edit; the last chart on the page (the
  outputs) must have changed, or the edit is reported as failed.
* ``sent``: Enter to the rerun request leaving on the websocket. The matrix editor (issue 22)
  sends at once; Streamlit's data editor (checkouts before it) waits 150 ms after an edit
  before it sends it, so there this is never below ~150 ms;
* ``finished``: Enter to the ``script_finished`` message arriving (request, script run and
  every message of the run, as seen by the page's main thread); ``idle``: Enter to the first
  frame after that in which the status widget does not say "Running" (the same as
  ``finished`` when the run was too short for the widget to appear);
* ``server``: the script run itself and ``gc``: the ``gc.collect()`` Streamlit runs after it
  (``runner.postScriptGC``), both measured inside the server (only for servers started here,
  through a wrapper around Streamlit's script runner; the app is not changed);
* CPU time per edit, from Enter until the page is quiet, of all of Chromium's processes and of
  the server: on a shared VM it moves much less than wall time does.

Every run also counts the bytes received per rerun by kind of element (from the websocket
frames, decoded with Streamlit's protobuf classes), and how many of those bytes are elements
sent again exactly as in the run before. ``--breakdown`` adds, for more edits per size: a
cProfile of the script run (time per Streamlit command and per app function), a Chrome trace
(main-thread self time by activity: scripting, style, layout, paint, GC) and a JS CPU profile
(self time per script bundle; the probe's own functions appear as ``bench-probe``).

Several ``--app-dir`` are started together, each in its own Chromium, and their edits are
interleaved (A B, B A, ...), so old and new code meet the same load; the script prints, per
size, each app's medians and the median of its paired differences from the first app.
Servers started here are left to go quiet (the app loads a model in the background at start)
before the first edit; ``--warmup`` edits are not timed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import pstats
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter, defaultdict
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from support.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from support.server import free_port, stop_process  # noqa: E402

CHART = "[data-testid='stVegaLiteChart']"
# The Playground's maps (issue 22): a map component, keyed ``map_*``, drawn in its shadow root.
MAP = "[class*='st-key-map_'] [data-testid='stBidiComponentIsolated']"
# The cell edited: first row, column x1 of the X editor (its token column comes first). The
# matrix editor (issue 22): its second input, found through its shadow root; a checkout with
# st.data_editor: a place in px from the grid's top-left corner.
MATRIX_CELLS = "[data-testid='stBidiComponentIsolated'] input"
GRID = "[data-testid='stDataFrame']"
CELL = (96, 35 + 17)
# The Transformer block page (issue 32): X's matrix editor (key tbed_x_<version>, no label column, so its
# first input is row 1, column 1), the layer's outputs map, and the links that open it at each size.
BLOCK_CELLS = "[class*='st-key-tbed_x_'] [data-testid='stBidiComponentIsolated'] input"
BLOCK_FLOW = ("[class*='st-key-map_tb_layer'] [data-testid='stBidiComponentIsolated'],"  # the layer's flow maps, alone
              " [class*='st-key-maps_tb_layer'] [data-testid='stBidiComponentIsolated']")  # or as one row of maps
FLOW_KEY = re.compile(r"st-key-map_tb_layer\d+_\w+")  # the last of them, in page order, is the layer's outputs
BLOCK_SIZES = {"default": "", "max": "n=16&d=16&heads=4&dff=64&layers=6"}

# Runs the server with a timer (and, while ``<profile dir>/ON`` exists, cProfile) around each
# script run. It wraps the function Streamlit's script runner calls to execute the page, so the
# time covers the script and its widget callbacks, and nothing of the app is changed.
SERVER_WRAPPER = r"""
import cProfile, gc, json, os, sys, time
from streamlit.runtime.scriptrunner import script_runner
from streamlit.web import cli

log_path, profile_dir = sys.argv[1], sys.argv[2]
run_script = script_runner.exec_func_with_error_handling


def log(**entry):
    with open(log_path, "a") as out:
        out.write(json.dumps(entry) + "\n")


def timed(func, ctx):
    profile = cProfile.Profile() if os.path.exists(os.path.join(profile_dir, "ON")) else None
    wall, start = time.time(), time.perf_counter()
    if profile:
        profile.enable()
    try:
        return run_script(func, ctx)
    finally:
        ms = (time.perf_counter() - start) * 1000
        name = None
        if profile:
            profile.disable()
            name = os.path.join(profile_dir, f"run-{wall:.6f}.prof")
            profile.dump_stats(name)
        log(kind="run", wall=wall, ms=ms, profile=name)


class TimedGC:
    # Streamlit runs gc.collect(2) after every script run (runner.postScriptGC), holding the GIL.
    def __getattr__(self, name):
        return getattr(gc, name)

    def collect(self, *args):
        start = time.perf_counter()
        try:
            return gc.collect(*args)
        finally:
            log(kind="gc", ms=(time.perf_counter() - start) * 1000)


script_runner.exec_func_with_error_handling = timed
script_runner.gc = TimedGC()
sys.argv = ["streamlit", "run", "app.py", *sys.argv[3:]]
sys.exit(cli.main())
"""

# Installed in the page before any of its scripts run: see the module docstring.
PAGE_PROBE = r"""
(() => {
  if (window.__bench) return;
  const CHART = "[data-testid='stVegaLiteChart']";
  const MAP = "[class*='st-key-map_'] [data-testid='stBidiComponentIsolated']";
  const ROW = "[class*='st-key-maps_'] [data-testid='stBidiComponentIsolated']";  // maps side by side as one element
  const B = window.__bench = {armed: false};
  const reset = () => Object.assign(B, {enter: null, recv: [], sent: [], shown: new Map(), mutations: new Map(),
                                        pending: new Set(), lastChange: 0, probe: 0, lastRecv: 0, status: [], wasRunning: false});
  reset();

  // Top-level fields of a ForwardMsg (protobuf): 4 new_session, 5 delta, 6 script_finished.
  const varint = (b, i) => { let x = 0, m = 1, c; do { c = b[i++]; x += (c & 127) * m; m *= 128; } while (c & 128); return [x, i]; };
  const topFields = (buffer) => {
    const b = new Uint8Array(buffer), out = {};
    let i = 0;
    while (i < b.length) {
      let tag, v; [tag, i] = varint(b, i);
      const field = Math.floor(tag / 8), wire = tag & 7;
      if (wire === 0) { [v, i] = varint(b, i); out[field] = v; }
      else if (wire === 2) { [v, i] = varint(b, i); i += v; out[field] = -1; }
      else if (wire === 1) i += 8; else if (wire === 5) i += 4; else break;
    }
    return out;
  };
  const size = (d) => d.byteLength ?? d.size ?? d.length ?? 0;
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {  // added first: runs before Streamlit's handler
        if (!B.armed) return;
        const t = performance.now(), f = event.data instanceof ArrayBuffer ? topFields(event.data) : {};
        B.recv.push({t, bytes: size(event.data), finished: 6 in f ? f[6] : null});
        B.lastRecv = t;
      });
    }
    send(data) {
      if (B.armed) B.sent.push({t: performance.now(), bytes: size(data)});
      return super.send(data);
    }
  };

  // One observer per chart: its callback only notes the time, however many nodes Vega touched.
  const vegas = document.getElementsByClassName("stVegaLiteChart");  // live and cheap to walk
  const charts = {[Symbol.iterator]: function* () {  // a map of a row is a chart of its own: its slot (data-map)
    yield* vegas;
    yield* document.querySelectorAll(MAP);
    for (const row of document.querySelectorAll(ROW)) if (row.shadowRoot) yield* row.shadowRoot.querySelectorAll(".slot");
  }};
  const mark = (chart, t) => {
    B.pending.add(chart);
    B.mutations.set(chart, (B.mutations.get(chart) || 0) + 1);
    B.lastChange = t;
  };
  const watched = new WeakSet();
  const watch = (chart) => {
    watched.add(chart);
    const observer = new MutationObserver(() => {
      if (!B.armed) return;
      const t = performance.now();
      mark(chart, t);
      B.probe += performance.now() - t;
    });
    for (const root of [chart, chart.shadowRoot]) {  // a map component draws in its shadow root
      if (root) observer.observe(root, {subtree: true, childList: true, attributes: true, characterData: true});
    }
    if (B.armed) mark(chart, performance.now());  // a new chart: drawn in the frame that found it
  };
  const owner = new WeakMap();  // canvas -> its chart; Vega draws charts with many marks on a canvas
  const chartOf = (canvas) => {
    let chart = owner.get(canvas);
    if (chart === undefined) {
      chart = canvas.closest(CHART);
      if (canvas.isConnected) owner.set(canvas, chart);
    }
    return chart;
  };
  const ctx = CanvasRenderingContext2D.prototype;
  for (const name of ["fillRect", "fill", "fillText", "stroke", "strokeRect", "drawImage", "clearRect", "putImageData"]) {
    const draw = ctx[name];
    ctx[name] = function (...args) {
      if (B.armed && this.canvas) { const chart = chartOf(this.canvas); if (chart) mark(chart, performance.now()); }
      return draw.apply(this, args);
    };
  }

  // After each frame that changed a chart: the time once the frame's rendering work is done.
  const after = new MessageChannel();
  let painting = [];
  after.port1.onmessage = () => { const t = performance.now(); for (const c of painting.shift()) B.shown.set(c, t); };
  // The loop runs only while an edit is timed: a page left idle between edits costs nothing, and
  // the apps timed side by side do not slow each other down.
  let statusAt = 0, looping = false;
  const discover = () => { for (const chart of charts) if (!watched.has(chart)) watch(chart); };
  const frame = () => {
    if (!B.armed) { looping = false; return; }
    if (B.pending.size) { painting.push([...B.pending]); B.pending.clear(); after.port2.postMessage(0); }
    const t = performance.now();
    if (t - statusAt > 50) {  // walking a page of thousands of SVG nodes: not every frame
      statusAt = t;
      discover();  // a chart element Streamlit replaced (it updates them in place) counts from here
      const widget = document.querySelector("[data-testid='stStatusWidget']");
      const running = !!widget && widget.textContent.includes("Running");
      if (running !== B.wasRunning) { B.status.push({t, running}); B.wasRunning = running; }
    }
    B.probe += performance.now() - t;
    requestAnimationFrame(frame);
  };

  window.addEventListener("keydown", (e) => {
    if (B.armed && B.enter === null && e.key === "Enter") B.enter = e.timeStamp;
  }, true);

  const drawing = (chart) => {
    if (chart.shadowRoot) return chart.shadowRoot.innerHTML;
    if (chart.dataset.map) return chart.innerHTML;
    const svg = chart.querySelector("svg");
    if (svg) return svg.outerHTML;
    const canvas = chart.querySelector("canvas");
    return canvas ? canvas.toDataURL() : "";
  };
  B.arm = () => {
    reset();
    discover();
    B.before = [...charts].map(drawing);
    B.views = [...charts].map((c) => c.querySelector("svg, canvas"));  // replaced when Vega re-embeds
    B.mark = performance.mark("bench-arm").startTime;  // ties this clock to a Chrome trace's
    B.armed = true;
    if (!looping) { looping = true; requestAnimationFrame(frame); }
  };
  B.settled = (quiet) => {
    if (B.enter === null) return false;
    const done = B.recv.some((r) => r.t >= B.enter && r.finished !== null);
    const now = performance.now();
    return done && now - Math.max(B.lastChange, B.lastRecv) > quiet && !B.pending.size && !painting.length;
  };
  B.result = () => {
    B.armed = false;
    const e = B.enter, all = [...charts], now = all.map(drawing);
    const same = now.length === B.before.length;
    const keyOf = (c) => { if (c.dataset.map) return `st-key-${c.dataset.map}`;
                           const el = c.closest("[class*='st-key-']");
                           return el ? ([...el.classList].find((k) => k.startsWith("st-key-")) || "") : ""; };
    const perChart = all.map((c, i) => ({changed: !same || now[i] !== B.before[i], key: keyOf(c),
                                            shown: B.shown.has(c) ? B.shown.get(c) - e : null,
                                            mutations: B.mutations.get(c) || 0,
                                            new_view: !same || c.querySelector("svg, canvas") !== B.views[i]}));
    const sent = B.sent.filter((s) => s.t >= e), recv = B.recv.filter((r) => r.t >= e);
    const finished = recv.filter((r) => r.finished !== null);
    const last = finished.length ? finished[finished.length - 1].t : null;
    const idle = B.status.find((s) => !s.running && last !== null && s.t >= last);
    const changedShown = perChart.filter((c) => c.changed && c.shown !== null).map((c) => c.shown);
    const anyShown = perChart.filter((c) => c.shown !== null).map((c) => c.shown);
    return {
      charts: changedShown.length ? Math.max(...changedShown) : null,
      first_chart: changedShown.length ? Math.min(...changedShown) : null,
      any_redrawn: anyShown.length ? Math.max(...anyShown) : null,
      sent: sent.length ? sent[0].t - e : null,
      finished: last === null ? null : last - e,
      idle: idle ? idle.t - e : (last === null ? null : last - e),
      runs: finished.length, finish_status: finished.map((r) => r.finished),
      messages: recv.length, bytes_received: recv.reduce((a, r) => a + r.bytes, 0),
      bytes_sent: sent.reduce((a, s) => a + s.bytes, 0),
      per_chart: perChart, enter: e, arm_mark: B.mark, probe_ms: B.probe,
    };
  };
})();
//# sourceURL=bench-probe.js
"""


# ── Servers ─────────────────────────────────────────────────────────────────────────────
class Server:
    """``streamlit run app.py`` in ``app_dir`` on a free port, its script runs timed."""

    def __init__(self, app_dir: Path, work: Path):
        self.app_dir, self.port = app_dir, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = work / f"runs-{self.port}.jsonl"
        self.profile_dir = work / f"profiles-{self.port}"
        self.profile_dir.mkdir()
        self.log.touch()
        self.proc = None

    def __enter__(self) -> "Server":
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVER_WRAPPER, str(self.log), str(self.profile_dir),
             "--server.port", str(self.port), "--server.address", "127.0.0.1", "--server.headless", "true",
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=self.app_dir, env={**os.environ, "PYTHONUNBUFFERED": "1"},
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.time() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as reply:
                    if reply.status == 200:
                        return self
            except OSError:
                pass
            if self.proc.poll() is not None or time.time() > deadline:
                self.__exit__()
                raise RuntimeError(f"streamlit did not start in {self.app_dir} (exit code {self.proc.poll()})")
            time.sleep(0.3)

    def __exit__(self, *exc) -> None:
        if self.proc:
            stop_process(self.proc)

    def runs(self, kind: str = "run") -> list[dict]:
        """Every script run so far (wall-clock start, ms, profile file or None), or with ``kind="gc"``
        every garbage collection Streamlit ran after a script run (ms)."""
        entries = [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]
        return [entry for entry in entries if entry["kind"] == kind]

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def wait_quiet(self, timeout: float = 120.0) -> None:
        """Wait until the server uses < 5 % of a core over a second (the model load at start is over)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            before = self.cpu_seconds()
            time.sleep(1.0)
            if self.cpu_seconds() - before < 0.05:
                return


class RemoteServer:
    """A server started elsewhere (``--url``): no script timings, no profiles."""

    def __init__(self, url: str):
        self.url, self.app_dir, self.profile_dir = url.rstrip("/"), ROOT, None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def runs(self, kind: str = "run") -> list[dict]:
        return []

    def cpu_seconds(self) -> None:
        return None

    def wait_quiet(self) -> None:
        time.sleep(3)


def catalog_words(app_dir: Path) -> dict:
    """The English names of the random preset and the reload button, as that checkout spells them."""
    code = ("import json; from selfattn.i18n import t; "
            "print(json.dumps({'random': t('pg.preset_random', 'en'), 'load': t('pg.load_preset', 'en')}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=app_dir, capture_output=True, text=True, timeout=120)
    if done.returncode:
        raise RuntimeError(f"cannot read the UI strings of {app_dir}: {done.stderr[-500:]}")
    return json.loads(done.stdout)


# ── The page ────────────────────────────────────────────────────────────────────────────
def wait_idle(page, timeout_ms: int = 60000) -> None:
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => !(document.querySelector(\"[data-testid='stStatusWidget']\")?.textContent || '').includes('Running')",
        timeout=timeout_ms)
    page.wait_for_timeout(300)


def open_playground(page, url: str, size: str, words: dict) -> None:
    """Open the Playground and bring it to ``size`` ("tutorial" or "NxD")."""
    page.goto(f"{url}/playground")
    page.wait_for_selector(f"{MATRIX_CELLS}, {GRID} canvas", timeout=90000)
    page.wait_for_selector(f"{CHART}, {MAP}", timeout=90000)
    wait_idle(page)
    if size == "tutorial":
        return
    n, d = (int(v) for v in size.split("x"))
    for field, value in (("n", n), ("d_in", d), ("d_k", d), ("d_v", d)):
        box = page.locator(f".st-key-pg_{field} input")
        box.fill(str(value))
        box.press("Enter")
        wait_idle(page)
    preset = page.locator("[class*='st-key-pg_preset__'] input")
    for _ in range(5):  # the list does not always open on the first key press
        preset.focus()
        page.keyboard.press("ArrowDown")
        option = page.get_by_role("option", name=words["random"], exact=True)
        try:
            option.wait_for(timeout=3000)
            break
        except Exception:  # noqa: BLE001 - Playwright's TimeoutError: try again
            page.keyboard.press("Escape")
    option.click()
    wait_idle(page)
    page.locator("[data-testid='stButton'] button").filter(has_text=words["load"]).first.click()
    wait_idle(page)
    page.wait_for_function(f"() => document.body.innerText.includes('{n} × {d}')", timeout=60000)
    page.wait_for_timeout(1500)  # charts draw after the script has finished


def open_block(page, url: str, size: str) -> None:
    """Open the Transformer block page at ``size`` ("block:default", "block:max" or "block:<query>")."""
    query = size.split(":", 1)[1]
    query = BLOCK_SIZES.get(query, query)
    page.goto(f"{url}/block" + (f"?{query}" if query else ""))
    page.wait_for_selector(BLOCK_CELLS, timeout=90000)
    page.wait_for_selector(BLOCK_FLOW, timeout=90000)
    wait_idle(page)
    page.wait_for_timeout(1500)  # maps draw after the script has finished


def edit_value(k: int) -> str:
    """The k-th value typed: 5.00k, 1.00k, ... large and small in turn, never the same twice."""
    return f"{5 if k % 2 == 0 else 1}.{k + 1:04d}"


def edit_once(page, value: str, quiet_ms: int, before_enter=None) -> dict:
    """Type ``value`` into the first cell of X, press Enter, wait until the page is quiet."""
    page.evaluate("() => window.__bench.arm()")
    block = page.locator(BLOCK_CELLS)
    cells = page.locator(MATRIX_CELLS)
    if block.count():  # the Transformer block page: X's first cell
        block.nth(0).click()
        page.keyboard.type(value)
    elif cells.count():  # the matrix editor: a click selects the cell, typing replaces its text
        cells.nth(1).click()
        page.keyboard.type(value)
    else:  # st.data_editor: a double-click opens the cell's editor in a portal
        box = page.locator(GRID).first.bounding_box()
        page.mouse.dblclick(box["x"] + CELL[0], box["y"] + CELL[1])
        editor = page.locator("#portal input, #portal textarea").first
        editor.wait_for(timeout=10000)
        editor.fill(value)
    if before_enter:
        before_enter()
    page.keyboard.press("Enter")
    try:
        page.wait_for_function("(quiet) => window.__bench.settled(quiet)", arg=quiet_ms, timeout=60000, polling=50)
    except Exception as exc:  # noqa: BLE001 - Playwright's TimeoutError, explained
        state = page.evaluate("() => ({runs_finished: __bench.recv.filter((r) => r.finished !== null).length,"
                              " ms_since_last_chart_change: performance.now() - __bench.lastChange})")
        raise RuntimeError(f"the page did not settle within 60 s of typing {value}: {state}") from exc
    result = page.evaluate("() => window.__bench.result()")
    if result["charts"] is None or not result["per_chart"] or not result["per_chart"][-1]["changed"]:
        raise RuntimeError(f"the edit to {value} did not change the last chart: {result}")
    flow = [c for c in result["per_chart"] if FLOW_KEY.fullmatch(c["key"])]
    if flow and not (flow[-1]["changed"] and flow[-1]["shown"] is not None):
        raise RuntimeError(f"the edit to {value} did not redraw the block's outputs map: {flow[-1]}")
    result["output_map"] = flow[-1]["shown"] if flow else None
    return result


# ── Messages ────────────────────────────────────────────────────────────────────────────
def message_kind(msg) -> str:
    kind = msg.WhichOneof("type")
    if kind == "delta":
        delta = msg.delta.WhichOneof("type")
        return msg.delta.new_element.WhichOneof("type") if delta == "new_element" else delta
    return kind


def message_breakdown(frames: list[bytes], previous: dict) -> dict:
    """Count and bytes per kind of message (element type for new elements) in ``frames``, and how
    many of them were sent exactly as in the run before (``previous`` maps each delta path to the
    content hash last sent there; it is updated here)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    kinds: dict[str, dict] = defaultdict(lambda: {"count": 0, "bytes": 0, "unchanged": 0, "unchanged_bytes": 0})
    vega = {"spec": 0, "data": 0}
    for frame in frames:
        if not isinstance(frame, (bytes, bytearray)):
            continue
        msg = ForwardMsg.FromString(frame)
        kind = kinds[message_kind(msg)]
        kind["count"] += 1
        kind["bytes"] += len(frame)
        if message_kind(msg) == "vega_lite_chart":
            chart = msg.delta.new_element.vega_lite_chart
            vega["spec"] += len(chart.spec.encode("utf-8"))
            vega["data"] += len(chart.data.data) + sum(len(d.data.data) for d in chart.datasets)
        if msg.WhichOneof("type") in ("delta", "ref_hash"):
            path = tuple(msg.metadata.delta_path)
            content = msg.ref_hash or msg.hash
            if previous.get(path) == content:
                kind["unchanged"] += 1
                kind["unchanged_bytes"] += len(frame)
            previous[path] = content
    return {"kinds": dict(sorted(kinds.items(), key=lambda kv: -kv[1]["bytes"])), "vega_bytes": vega,
            "unchanged_bytes": sum(k["unchanged_bytes"] for k in kinds.values()),
            "unchanged_elements": sum(k["unchanged"] for k in kinds.values())}


# ── Breakdown: server profile, Chrome trace, JS profile ─────────────────────────────────
SERVER_FUNCTIONS = [  # (label, file ending, function): cumulative time per run, in ms
    ("st.data_editor (4 editors)", "elements/widgets/data_editor.py", "data_editor"),
    ("matrix editor (4 editors)", "bidi_component/main.py", "_bidi_component"),
    ("st.dataframe (result tables)", "elements/arrow.py", "dataframe"),
    ("st.vega_lite_chart", "elements/vega_charts.py", "vega_lite_chart"),
    ("st.download_button", "elements/widgets/button.py", "download_button"),
    ("st.markdown / st.caption", "elements/markdown.py", "markdown"),
    ("st.text (worked-out lines)", "elements/text.py", "text"),
    ("message hashing (serialise + md5)", "runtime/forward_msg_cache.py", "populate_hash_if_needed"),
    ("heatmap specs (charts.heatmap)", "selfattn/display/charts.py", "heatmap"),
    ("self_attention", "selfattn/core/attention.py", "self_attention"),
    ("playground: compute_view (parse + steps)", "selfattn/playground/inputs.py", "compute_view"),
    ("block: compute_toy (stack + torch check)", "selfattn/block/compute.py", "compute_toy"),
    ("block: torch_difference", "selfattn/block/compute.py", "torch_difference"),
    ("block: transformer_stack", "selfattn/core/block.py", "transformer_stack"),
    ("block: parse_table", "selfattn/block/compute.py", "parse_table"),
    ("block: show_map (maps + CSV buttons)", "ui/editing.py", "show"),
    ("block: map_data", "ui/components/heatmap.py", "map_data"),
    ("block: heatmap (component mount)", "ui/components/heatmap.py", "heatmap"),
    ("block: editor (matrix editors)", "ui/editable_page.py", "editor"),
    ("block: draw_norms", "ui/block/page.py", "draw_norms"),
    ("block: encode (link)", "selfattn/display/edits.py", "encode"),
    ("block: publish (link)", "ui/state.py", "publish"),
]


def server_profile(path: str) -> dict:
    stats = pstats.Stats(path).stats  # {(file, line, name): (cc, nc, tt, ct, callers)}
    total = max(ct for (_, _, _), (_, _, _, ct, _) in stats.items()) * 1000
    out = {"total_ms (profiled)": round(total, 1)}
    for label, file_end, name in SERVER_FUNCTIONS:
        hits = [(nc, ct) for (file, _, fn), (_, nc, _, ct, _) in stats.items() if fn == name and file.endswith(file_end)]
        if hits:
            out[label] = {"calls": sum(nc for nc, _ in hits), "ms": round(sum(ct for _, ct in hits) * 1000, 1)}
    return out


TRACE_CATEGORIES = ["devtools.timeline", "blink.user_timing", "toplevel", "v8.execute"]
ACTIVITY = {  # trace event name -> what DevTools calls it
    "scripting": {"FunctionCall", "EvaluateScript", "v8.compile", "v8.compileModule", "v8.evaluateModule",
                  "TimerFire", "FireAnimationFrame", "EventDispatch", "RunMicrotasks", "V8.Execute",
                  "v8.run", "XHRReadyStateChange", "FireIdleCallback", "v8.callFunction", "ParseHTML"},
    "style": {"UpdateLayoutTree", "RecalculateStyles", "ParseAuthorStyleSheet"},
    "layout": {"Layout", "UpdateLayerTree", "HitTest"},
    "paint": {"Paint", "PrePaint", "Layerize", "Commit", "PaintImage", "Decode Image", "UpdateLayer",
              "CompositeLayers"},
    "gc": {"MinorGC", "MajorGC", "V8.GCScavenger", "V8.GCIncrementalMarking", "V8.GCFinalizeMC",
           "BlinkGC.AtomicPhase", "ThreadState::performIdleLazySweep", "V8.GC_MC_BACKGROUND_EVACUATE_COPY",
           "GCEvent", "BlinkGC.CompleteSweep", "BlinkGC.LazySweepInIdle", "CppGC.IncrementalSweep"},
}


def trace_activity(trace: bytes, arm_mark: float, start_ms: float, end_ms: float) -> dict:
    """Main-thread self time per activity between ``start_ms`` and ``end_ms`` (page clock)."""
    events = json.loads(trace)
    events = events["traceEvents"] if isinstance(events, dict) else events
    mains = {(e["pid"], e["tid"]) for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"}
    marks = [e for e in events if e.get("name") == "bench-arm" and (e["pid"], e["tid"]) in mains]
    if not marks:
        return {"error": "no bench-arm mark in the trace"}
    thread = (marks[-1]["pid"], marks[-1]["tid"])
    offset_us = marks[-1]["ts"] - arm_mark * 1000  # trace clock minus page clock
    lo, hi = offset_us + start_ms * 1000, offset_us + end_ms * 1000
    spans = sorted(((e["ts"], e.get("dur", 0), e["name"]) for e in events
                    if (e["pid"], e["tid"]) == thread and e.get("ph") == "X" and lo <= e["ts"] <= hi),
                   key=lambda s: (s[0], -s[1]))
    self_time: Counter = Counter()
    busy = 0.0
    stack: list[list] = []  # [end, name, time in children, duration]
    def close(until: float) -> None:
        while stack and stack[-1][0] <= until:
            end, name, child, dur = stack.pop()
            self_time[name] += dur - child
    for ts, dur, name in spans:
        close(ts)
        if stack:
            stack[-1][2] += dur
        else:
            busy += dur
        stack.append([ts + dur, name, 0.0, dur])
    close(float("inf"))
    out = {"main thread busy": round(busy / 1000, 1)}
    named = set()
    for activity, names in ACTIVITY.items():
        out[activity] = round(sum(self_time[n] for n in names) / 1000, 1)
        named |= names
    out["other (task overhead, IPC, ...)"] = round(sum(t for n, t in self_time.items() if n not in named) / 1000, 1)
    return out


def js_profile(profile: dict, top: int = 12) -> dict:
    """Self time (ms) per script bundle and of the top functions, from a CDP CPU profile."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    self_us: Counter = Counter()
    deltas = profile["timeDeltas"][1:] + [0]
    for node_id, delta in zip(profile["samples"], deltas):
        self_us[node_id] += delta
    by_file: Counter = Counter()
    by_function: Counter = Counter()
    for node_id, us in self_us.items():
        frame = nodes[node_id]["callFrame"]
        url = frame.get("url", "")
        bundle = re.sub(r"\.[A-Za-z0-9_-]{8}\.js$", "", url.rsplit("/", 1)[-1]) if url else frame["functionName"]
        by_file[bundle] += us
        if url:
            by_function[f"{frame['functionName'] or '(anonymous)'} ({bundle})"] += us
    ms = lambda c: {k: round(v / 1000, 1) for k, v in c.most_common(top) if v >= 500}  # noqa: E731
    return {"by_bundle": ms(by_file), "by_function": ms(by_function)}


def breakdown(page, server, k: int, quiet_ms: int) -> dict:
    """One profiled edit of each kind; the timings of these edits are not reported."""
    out = {}
    runs_before = len(server.runs())
    if getattr(server, "profile_dir", None):
        (server.profile_dir / "ON").touch()
        edit_once(page, edit_value(k), quiet_ms)
        (server.profile_dir / "ON").unlink()
        profiles = [r["profile"] for r in server.runs()[runs_before:] if r.get("profile")]
        if profiles:
            out["server"] = server_profile(profiles[-1])
    browser = page.context.browser
    browser.start_tracing(page=page, categories=TRACE_CATEGORIES)
    result = edit_once(page, edit_value(k + 1), quiet_ms)
    trace = browser.stop_tracing()
    out["trace_edit_ms"] = round(result["charts"], 1)
    out["browser_trace"] = trace_activity(trace, result["arm_mark"], result["enter"], result["enter"] + result["charts"])
    if result["finished"] is not None:  # the drawing after the last message of the run
        out["browser_trace_after_finished"] = trace_activity(
            trace, result["arm_mark"], result["enter"] + result["finished"], result["enter"] + result["charts"])
    cdp = page.context.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 200})
    # Starting the profiler makes V8 recompile what runs next: one profiled edit is thrown away.
    edit_once(page, edit_value(k + 2), quiet_ms, before_enter=lambda: cdp.send("Profiler.start"))
    cdp.send("Profiler.stop")
    result = edit_once(page, edit_value(k + 3), quiet_ms, before_enter=lambda: cdp.send("Profiler.start"))
    profile = cdp.send("Profiler.stop")["profile"]
    cdp.detach()
    out["js_profile_edit_ms"] = round(result["charts"], 1)
    out["js_profile"] = js_profile(profile)
    return out


# ── Running it ──────────────────────────────────────────────────────────────────────────
def summarize(values: list[float]) -> dict:
    values = sorted(v for v in values if v is not None)
    if not values:
        return {}
    p90 = values[min(len(values) - 1, round(0.9 * (len(values) - 1)))]
    return {"median": round(statistics.median(values), 1), "p90": round(p90, 1),
            "min": round(values[0], 1), "max": round(values[-1], 1), "n": len(values)}


class Session:
    """One app in its own headless Chromium (so that apps timed side by side share no renderer)."""

    def __init__(self, pw, label: str, server, args):
        self.label, self.server, self.args = label, server, args
        self.words = catalog_words(server.app_dir)
        self.browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        self.cdp = self.browser.new_browser_cdp_session()
        self.page = None

    def open(self, size: str) -> None:
        if self.page:
            self.page.close()
        self.page = self.browser.new_page(viewport={"width": self.args.width, "height": self.args.height})
        self.page.add_init_script(PAGE_PROBE)
        self.frames: list = []
        self.page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: self.frames.append(payload)))
        if size.startswith("block:"):
            open_block(self.page, self.server.url, size)
        else:
            open_playground(self.page, self.server.url, size, self.words)
        self.size, self.k, self.previous, self.edits, self.failed = size, 0, {}, [], []

    def cpu(self) -> tuple[float, float | None]:
        """CPU seconds used so far by all of this Chromium's processes, and by the server."""
        chromium = sum(p["cpuTime"] for p in self.cdp.send("SystemInfo.getProcessInfo")["processInfo"])
        return chromium, self.server.cpu_seconds()

    def edit(self, timed: bool = True) -> None:
        first_frame, runs_before, gcs_before = len(self.frames), len(self.server.runs()), len(self.server.runs("gc"))
        cpu = {}
        try:
            result = edit_once(self.page, edit_value(self.k), self.args.quiet,
                               before_enter=lambda: cpu.update(before=self.cpu()))
        except RuntimeError as exc:
            # An edit whose drawing the probe could not time (seen on the block page with the VM at load 11:
            # every map changed, none with a frame time). Counted and reported, never silently left out.
            self.k += 1
            if not timed or not self.args.keep_going:
                raise
            self.failed.append(str(exc)[:300])
            print(f"  failed edit ({self.size}): {str(exc)[:160]}", flush=True)
            return
        self.k += 1
        if not timed:
            return
        self.page.evaluate("() => 0")  # lets Playwright deliver the websocket frames still queued
        # CPU time, unlike wall time, hardly depends on what else the shared VM is doing (it
        # includes the quiet wait at the end of the edit, when the page and server are idle).
        (chromium0, server0), (chromium1, server1) = cpu["before"], self.cpu()
        result["browser_cpu"] = round((chromium1 - chromium0) * 1000, 1)
        result["server_cpu"] = None if server0 is None else round((server1 - server0) * 1000, 1)
        result["server"] = sum(r["ms"] for r in self.server.runs()[runs_before:]) or None
        result["server_runs"] = len(self.server.runs()) - runs_before
        result["server_gc"] = sum(r["ms"] for r in self.server.runs("gc")[gcs_before:]) or None
        result["messages_by_kind"] = message_breakdown(self.frames[first_frame:], self.previous)
        self.edits.append(result)

    def row(self) -> dict:
        edits = self.edits
        row = {"app": self.label, "size": self.size, "edits": edits, "failed": self.failed}
        for key in ("charts", "output_map", "first_chart", "sent", "finished", "idle", "server", "bytes_received", "probe_ms",
                    "browser_cpu", "server_cpu", "server_gc"):
            row[key] = summarize([e[key] for e in edits])
        row["drawing_after_finished"] = summarize([e["charts"] - e["finished"] for e in edits
                                                   if e["finished"] is not None])
        if self.args.breakdown:
            row["breakdown"] = breakdown(self.page, self.server, self.k, self.args.quiet)
        return row


def bench(servers: list[tuple[str, object]], args) -> list[dict]:
    """Every size on every app, the apps' edits interleaved (A B B A ...) so that they share the
    machine's ups and downs: the VM is shared, and its speed drifts by tens of percent."""
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as pw:
        sessions = [Session(pw, label, server, args) for label, server in servers]
        try:
            for session in sessions:
                session.server.wait_quiet()
            for size in args.sizes:
                for session in sessions:
                    session.open(size)
                    for _ in range(args.warmup):
                        session.edit(timed=False)
                for repeat in range(args.repeats):
                    for session in sessions if repeat % 2 == 0 else sessions[::-1]:
                        session.edit()
                for session in sessions:
                    rows.append(session.row())
                    print_row(rows[-1])
                if len(sessions) > 1:
                    print_paired(rows[-len(sessions):])
        finally:
            for session in sessions:
                session.browser.close()
    return rows


def print_paired(rows: list[dict]) -> None:
    """Each app against the first: the median of the edit-by-edit differences (edits k of both
    apps ran next to each other), less sensitive to the VM's drift than two medians."""
    base = rows[0]["edits"]
    for row in rows[1:]:
        parts = []
        for key, unit in (("charts", "ms to the last chart"), ("browser_cpu", "browser CPU ms"),
                          ("server_cpu", "server CPU ms")):
            diffs = [b[key] - a[key] for a, b in zip(base, row["edits"]) if a[key] is not None and b[key] is not None]
            if diffs:
                parts.append(f"{statistics.median(diffs):+.0f} {unit} ({statistics.median(diffs) / rows[0][key]['median']:+.0%})")
        print(f"  {row['app']} vs {rows[0]['app']}, {row['size']}, median of paired differences: " + ", ".join(parts))


def print_header() -> None:
    print(f"{'app':<22}{'size':<14}{'charts median':>14}{'p90':>8}{'min':>8}{'max':>8}{'outmap':>8}{'p90':>7}"
          f"{'sent':>7}{'server':>8}{'gc':>6}{'finished':>10}{'draw after':>11}{'KB/edit':>9}{'CPU browser':>12}{'server':>8}")


def print_row(row: dict) -> None:
    c = row["charts"]
    get = lambda key: row[key].get("median", float("nan"))  # noqa: E731
    o = row["output_map"]
    print(f"{row['app'][-21:]:<22}{row['size']:<14}{c['median']:>14.1f}{c['p90']:>8.1f}{c['min']:>8.1f}{c['max']:>8.1f}"
          f"{o.get('median', float('nan')):>8.1f}{o.get('p90', float('nan')):>7.1f}"
          f"{get('sent'):>7.1f}{get('server'):>8.1f}{get('server_gc'):>6.0f}{get('finished'):>10.1f}{get('drawing_after_finished'):>11.1f}"
          f"{get('bytes_received') / 1000:>9.1f}{get('browser_cpu'):>12.0f}{get('server_cpu'):>8.0f}", flush=True)
    if row.get("failed"):
        print(f"  {len(row['failed'])} timed edit(s) failed and are not in the row above (--keep-going)", flush=True)


def print_breakdown(row: dict) -> None:
    b = row["breakdown"]
    line = lambda values: " | ".join(f"{k} {v}" for k, v in values.items())  # noqa: E731
    print(f"\nbreakdown: {row['app']}, {row['size']} (profiled edits; ms)")
    if "server" in b:
        server = {k: (f"x{v['calls']} {v['ms']}" if isinstance(v, dict) else v) for k, v in b["server"].items()}
        print("  server script run, cProfile, cumulative (overlapping):", line(server))
    print(f"  browser main thread, Enter -> last chart ({b['trace_edit_ms']} ms traced):", line(b["browser_trace"]))
    if "browser_trace_after_finished" in b:
        print("  ... of which after the run's last message:", line(b["browser_trace_after_finished"]))
    print(f"  JS self time by bundle ({b['js_profile_edit_ms']} ms profiled):", line(b["js_profile"]["by_bundle"]))
    print("  JS self time, top functions:", line(b["js_profile"]["by_function"]))
    kinds = row["edits"][-1]["messages_by_kind"]
    print("  messages of one rerun (count, KB, unchanged since the run before):",
          " | ".join(f"{k} {v['count']} {v['bytes'] / 1000:.1f} ({v['unchanged']})" for k, v in kinds["kinds"].items()))
    print(f"  vega: spec {kinds['vega_bytes']['spec'] / 1000:.1f} KB, data {kinds['vega_bytes']['data'] / 1000:.1f} KB;"
          f" unchanged elements {kinds['unchanged_elements']} ({kinds['unchanged_bytes'] / 1000:.1f} KB)")


def environment() -> dict:
    chromium = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True).stdout.strip()
    import streamlit

    return {"date": date.today().isoformat(), "python": platform.python_version(), "machine": platform.machine(),
            "cores": len(os.sched_getaffinity(0)), "chromium": chromium, "streamlit": streamlit.__version__}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15, help="timed edits per size and app")
    parser.add_argument("--warmup", type=int, default=2, help="untimed edits per size before the timed ones")
    parser.add_argument("--sizes", nargs="+",
                        help="'tutorial' and/or NxD (n=N, d_in=d_k=d_v=D, random preset): the Playground; "
                             "block:default, block:max or block:<query string>: the Transformer block page "
                             "(default: tutorial 32x16, or with --page block: block:default block:max)")
    parser.add_argument("--page", choices=("playground", "block"), default="playground",
                        help="the page whose sizes are timed when --sizes is left out")
    parser.add_argument("--app-dir", type=Path, nargs="+", default=[ROOT],
                        help="checkouts to start and time side by side, edits interleaved (default: this one)")
    parser.add_argument("--url", help="time a server already running here instead (no server-side timings)")
    parser.add_argument("--quiet", type=int, default=600, help="ms without changes after which an edit is done")
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=1000)
    parser.add_argument("--breakdown", action="store_true",
                        help="also profile four more edits per size: server cProfile, Chrome trace, JS CPU profile")
    parser.add_argument("--keep-going", action="store_true",
                        help="count a timed edit the probe could not time as failed (reported) and go on")
    parser.add_argument("--json", type=Path, help="write every edit's figures here")
    args = parser.parse_args()
    if args.sizes is None:
        args.sizes = ["block:default", "block:max"] if args.page == "block" else ["tutorial", "32x16"]
    for size in args.sizes:
        if size != "tutorial" and not re.fullmatch(r"\d+x\d+", size) and not size.startswith("block:"):
            parser.error(f"--sizes: {size!r} is neither 'tutorial', NxD such as 32x16, nor block:default/max/<query>")

    env = environment()
    print(f"python {env['python']}, {env['machine']}, cores: {env['cores']}, {env['chromium']}, "
          f"streamlit {env['streamlit']}")
    print("medians, ms from Enter: charts = last chart redrawn, outmap = the block's outputs map redrawn, sent = rerun request sent, server = script run, "
          "gc = Streamlit's gc.collect() after it, "
          "finished = last message of the run received; draw after = charts - finished; "
          "CPU = CPU ms used per edit by Chromium (all processes) and by the server")
    print_header()
    with tempfile.TemporaryDirectory(prefix="selfattn-bench-browser-") as work, contextlib.ExitStack() as stack:
        if args.url:
            servers = [("url", RemoteServer(args.url))]
        else:
            servers = [(str(app_dir), stack.enter_context(Server(app_dir.resolve(), Path(work))))
                       for app_dir in args.app_dir]
        rows = bench(servers, args)
    for row in rows:
        if "breakdown" in row:
            print_breakdown(row)
    if args.json:
        args.json.write_text(json.dumps({"environment": env, "rows": rows}, indent=1, ensure_ascii=False) + "\n",
                             encoding="utf-8")


if __name__ == "__main__":
    main()
