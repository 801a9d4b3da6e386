"""A real browser on a real server: the page helpers of the browser tests.

The server and Chromium themselves come from support/ (shared with the benchmarks); the fixtures
that start them are in tests/conftest.py.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from support.chromium import CHROMIUM, CHROMIUM_ARGS, chromium_browser, chromium_page  # noqa: F401
from support.server import ROOT, free_port, stop_process, streamlit_server  # noqa: F401


# One tab a module's Chromium, emptied between tests. A page opened in a new tab starts a new renderer process, which
# compiles Streamlit's frontend again: on the 2-core VM a Playground load cost Chromium 2.7 s of CPU in a new tab and
# 1.5 s in a tab that had loaded a page before (docs/benchmarks.md, "Toward 15 minutes"); Chromium was over 40 % of
# the whole suite's CPU. Between tests the tab keeps nothing a page could read: its cookies, local and session
# storage are cleared and it goes to about:blank (the page's websocket closes with it); if that fails, the tab is
# closed and the next test opens a new one. Tests that need a browser of their own state (touch, a second visitor,
# history) make their own contexts.
_TABS: dict = {}  # a module's browser -> its tab
_LENT: set = set()  # the tabs a test holds now


def tab(browser, width: int = 1400, height: int = 1000):
    """A page for one test at ``width`` x ``height``: the module's tab in ``browser`` (a context of its own, shared with
    no other module), or, while another test or fixture holds it, a page in a new context; give it back with
    :func:`release`."""
    for gone in [b for b in _TABS if not b.is_connected()]:
        del _TABS[gone]
    page = _TABS.get(browser)
    if page is not None and not page.is_closed() and page not in _LENT:
        page.set_viewport_size({"width": width, "height": height})
    else:
        page = browser.new_context(viewport={"width": width, "height": height}).new_page()
        watch_runs(page)
        if browser not in _TABS or _TABS[browser].is_closed():
            _TABS[browser] = page
    _LENT.add(page)
    return page


def release(page) -> None:
    """A test is done with its page: the module's tab is emptied for the next test (cookies, local and session storage,
    about:blank), or closed when it cannot be; any other page is closed with its context."""
    _LENT.discard(page)
    try:
        if page not in _TABS.values():
            page.context.close()
            return
        if page.url.startswith("http"):
            page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        page.context.clear_cookies()
        page.goto("about:blank")
    except Exception:  # a test that failed may leave it stuck: the next test gets a new tab
        with contextlib.suppress(Exception):
            page.context.close()


@contextlib.contextmanager
def browser_page(browser, width: int = 1400, height: int = 1000, own: bool = False, **options):
    """A page for one test: the module's tab (:func:`tab`), or with ``options`` (touch, mobile) or ``own`` a context of
    its own (what the test adds to the page, listeners or init scripts, goes with it)."""
    if options or own:
        context = browser.new_context(viewport={"width": width, "height": height}, **options)
        try:
            page = context.new_page()
            watch_runs(page)
            yield page
        finally:
            context.close()
        return
    page = tab(browser, width, height)
    try:
        yield page
    finally:
        release(page)


# While a run goes on, Streamlit 1.67's status widget shows a "Stop" button (older ones wrote "Running...");
# it is gone once the run is over. Waiting for the word "Running" alone waited for nothing: tests clicked
# during the first run of a page, which is how test_readout_browser.py met the race of tests/test_link_race.py.
# Streamlit's own run state on the app's root (what its e2e tests wait on): the status widget says "Running" only
# after a delay, so a short run's end (the link it writes, the last maps) could come after it looked idle.
RUNNING = """() => { const w = document.querySelector('[data-testid="stStatusWidget"]');
                     const app = document.querySelector('[data-testid="stApp"]');
                     const state = app ? app.getAttribute('data-test-script-state') : null;
                     return (!!w && /Running|Stop/.test(w.innerText)) || state === 'running'
                            || state === 'rerunRequested'; }"""


def part_tab(page, prefix: str, parts: tuple[str, ...], lang: str, part: str):
    """A page's part's tab (ui/parts.py: labelled "2 · <its name>", the name ``<prefix>.part_<part>``)."""
    from selfattn.i18n import t_plain

    return page.get_by_role("tab", name=f"{parts.index(part) + 1} · {t_plain(f'{prefix}.part_{part}', lang)}",
                            exact=True)


def click_part(page, prefix: str, parts: tuple[str, ...], lang: str, part: str) -> None:
    """A click on a part's tab: the address bar follows (``part=``; none for the first part)."""
    part_tab(page, prefix, parts, lang, part).click()
    page.wait_for_function("([part, first]) => (new URLSearchParams(location.search).get('part') ?? first) === part",
                           arg=[part, parts[0]], timeout=30_000)


# ── Linked step maps (ui/components/heatmap.js): a map is drawn alone, as one component element (key class
# st-key-map_<prefix><key>) holding its box (.map) in an open shadow root, or as a slot of a row of maps (one element,
# key class st-key-maps_…, its slots .slot[data-map=map_<prefix><key>] in its shadow root). Cell (i, j) is the td of
# body row i, column j of the box's table (Playwright's CSS pierces shadow roots).

MAP_BOXES = r"""(prefix) => {
    const out = {}, own = "st-key-map_" + prefix;
    for (const el of document.querySelectorAll(`[class*='${own}']`)) {
        const name = [...el.classList].find(c => c.startsWith(own) && /^\w+$/.test(c.slice(own.length)));
        const box = el.querySelector("[data-testid='stBidiComponentIsolated']")?.shadowRoot?.querySelector(".map");
        if (name && box) out[name.slice(own.length)] = box;
    }
    for (const host of document.querySelectorAll("[class*='st-key-maps_'] [data-testid='stBidiComponentIsolated']")) {
        for (const slot of host.shadowRoot?.querySelectorAll(".slot[data-map]") || []) {
            const box = slot.querySelector(".map");
            if (box && slot.dataset.map.startsWith("map_" + prefix)) out[slot.dataset.map.slice(4 + prefix.length)] = box;
        }
    }
    return out;
}"""


def map_boxes(prefix: str) -> str:
    """A script, ``() => {key: box}``: the box (``.map``) of every step map whose key is ``map_<prefix><key>``, drawn
    alone or in a row of maps."""
    return f"() => ({MAP_BOXES})({json.dumps(prefix)})"


def map_sel(key: str) -> str:
    """The selector of step map ``map_<key>``'s box (``.map``), drawn alone or in a row of maps."""
    return f":is([class*='st-key-map_{key}'], [data-map='map_{key}']) .map"


_LINKED_MAPS = r"""(prefix) => {
    const out = {};
    for (const [key, box] of Object.entries((MAP_BOXES)(prefix))) {
        const body = box.querySelector("tbody");
        if (!body) continue;
        const rows = [...body.rows];
        out[key] = {
            lit: rows.flatMap((tr, r) => [...tr.querySelectorAll("td")].map((td, c) => td.classList.contains("lit") ? [r, c] : null))
                     .filter(x => x),
            rows: rows.map((tr, r) => tr.cells[0].classList.contains("lit-row") ? r : null).filter(r => r !== null),
            heads: rows.map(tr => tr.cells[0].className),
            cols_lit: [...box.querySelectorAll("thead th")].slice(1).map((th, c) => th.classList.contains("lit-col") ? c : null)
                     .filter(c => c !== null),
            n: rows.length, cols: rows.length ? rows[0].cells.length - 1 : 0,
        };
    }
    return out;
}""".replace("MAP_BOXES", MAP_BOXES)
_MAP_CELLS = """(prefix, key) => [...(MAP_BOXES)(prefix)[key].querySelector('tbody').rows]
    .map(tr => [...tr.cells].slice(1).map(td => td.textContent))""".replace("MAP_BOXES", MAP_BOXES)


def linked_maps(prefix: str) -> str:
    """A script, ``() => {key: map}``: every linked map of a page whose keys are ``map_<prefix><key>`` (block "tb_",
    Encoder–decoder "s2s_", translator "s2t_", Playground ""), each {"lit": [[row, col], ...] of its lit cells, "rows":
    rows whose header is lit, "heads": each row header's classes, "cols_lit": columns whose header is lit, "n": rows,
    "cols": columns}. A map out of sight is found all the same (it is not laid out, but its table is there)."""
    return f"() => ({_LINKED_MAPS})({json.dumps(prefix)})"


def map_cells(prefix: str) -> str:
    """A script, ``(key) => rows``: the text of every cell of map ``<prefix><key>``, row by row."""
    return f"(key) => ({_MAP_CELLS})({json.dumps(prefix)}, key)"


def map_td(prefix: str, key: str, i: int, j: int) -> str:
    """The selector of cell (i, j) (0-based) of map ``<prefix><key>``."""
    return f"{map_sel(prefix + key)} tbody tr:nth-child({i + 1}) td:nth-child({j + 2})"


def map_row_head(prefix: str, key: str, i: int) -> str:
    """The selector of row i's header (its token) in map ``<prefix><key>``."""
    return f"{map_sel(prefix + key)} tbody tr:nth-child({i + 1}) th"


def hover(page, selector: str) -> None:
    """Point at ``selector`` (scrolled into view), and give the maps a frame or two to light up."""
    target = page.locator(selector)
    target.scroll_into_view_if_needed()
    target.hover()
    page.wait_for_timeout(150)


def whole_rows(rows, cols: int) -> list[list[int]]:
    """Every cell of ``rows`` in a map of ``cols`` columns, as [row, col] pairs."""
    return [[r, c] for r in rows for c in range(cols)]


def whole_row(i: int, cols: int) -> list[list[int]]:
    """Every cell of row ``i`` in a map of ``cols`` columns."""
    return whole_rows([i], cols)


class RunWatch:
    """What a page's websocket says of its runs, frame by frame: a rerun the browser asked for (``rerun_script``) is
    answered once a run starts after it (``new_session``) and that run ends (``script_finished``, not one stopped for
    another run). The page's own run state cannot tell an asked-for run the server has not started yet from no run at
    all: that gap, wide on a busy machine, let tests read a page before the run their click asked for (docs/
    benchmarks.md, the preview race of 2026-11-30)."""

    def __init__(self, page, late: bool = False) -> None:
        self.socket = None  # the app's websocket now open, None before the first and after it closes
        self.asked = False  # a rerun asked for since the last run started
        self.running = False
        self.late = late  # made after the page opened its websocket: it knows nothing until the next one
        self.runs = self.asks = 0  # runs started on the page's websockets, and reruns the page asked for
        page.on("websocket", self._opened)

    def _opened(self, ws) -> None:
        if "/_stcore/stream" not in ws.url:
            return
        self.socket, self.asked, self.running, self.late = ws, True, False, False  # it asks for a first run
        ws.on("framesent", lambda payload: self._sent(ws, payload))
        ws.on("framereceived", lambda payload: self._received(ws, payload))
        ws.on("close", lambda _: self._closed(ws))

    def _sent(self, ws, payload) -> None:
        if ws is self.socket and isinstance(payload, bytes) and \
                BackMsg.FromString(payload).WhichOneof("type") == "rerun_script":
            self.asked, self.asks = True, self.asks + 1

    def _received(self, ws, payload) -> None:
        if ws is not self.socket or not isinstance(payload, bytes):
            return
        msg = ForwardMsg.FromString(payload)
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            self.asked, self.running, self.runs = False, True, self.runs + 1
        elif kind == "script_finished":
            self.running = False
            if msg.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:  # the run that replaces it is to come
                self.asked = True

    def _closed(self, ws) -> None:
        if ws is self.socket:
            self.socket = None

    def idle(self) -> bool:
        return self.late or (self.socket is not None and not self.asked and not self.running)


def watch_runs(page, late: bool = False) -> RunWatch:
    """The page's :class:`RunWatch`, made with the page (:func:`tab`, :func:`browser_page`); a page made elsewhere
    gets one ``late``, at its first wait: it answers from the next websocket the page opens."""
    if getattr(page, "_selfattn_runs", None) is None:
        page._selfattn_runs = RunWatch(page, late)
    return page._selfattn_runs


def wait_until_idle(page, timeout_ms: int = 30000) -> None:
    """Wait until Streamlit has run every run the page asked for, to its end (:class:`RunWatch`, where the page is
    watched), and the page shows no running indicator, no Stop button."""
    page.wait_for_timeout(300)
    watch, deadline = watch_runs(page, late=True), time.monotonic() + timeout_ms / 1000
    while not watch.idle():
        if time.monotonic() > deadline:
            raise AssertionError(f"a run was still to come or going after {timeout_ms / 1000:g} s: websocket "
                                 f"{'open' if watch.socket else 'not open'}, a rerun asked for and not started "
                                 f"{watch.asked}, a run going {watch.running}")
        page.wait_for_timeout(50)
    page.wait_for_function(f"() => !({RUNNING})()", timeout=max(1, int((deadline - time.monotonic()) * 1000)))
    page.wait_for_timeout(300)


def wait_for_text(page, *texts: str, timeout_ms: int = 60000) -> None:
    """Wait until the page shows one of ``texts``; if it never does, fail saying what it showed instead (the
    end of its text and what its text boxes hold), so that a failure in a whole-suite run can be read."""
    check = "(texts) => texts.some(t => document.body.innerText.includes(t))"
    try:
        page.wait_for_function(check, arg=list(texts), timeout=timeout_ms)
    except Exception as exc:
        shown = page.locator("body").inner_text()[-1500:]
        boxes = page.locator("[data-testid='stTextInput'] input").evaluate_all("els => els.map(e => e.value)")
        raise AssertionError(f"none of {texts} shown in {timeout_ms / 1000:g} s; text boxes {boxes}; "
                             f"the page ends with:\n{shown}") from exc


def assert_rendered(png: Path, min_bytes: int = 20000) -> None:
    """A screenshot of a real page is large and has many colours; a blank one is neither."""
    from PIL import Image

    data = png.read_bytes()
    assert len(data) > min_bytes, f"screenshot {png} is only {len(data)} bytes"
    with Image.open(png) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1_000_000)
    assert colours is not None and len(colours) > 200, "screenshot looks blank"


def pick(page, label: str, option: str) -> None:
    """Choose ``option`` in the selectbox labelled ``label`` the way a keyboard user does."""
    box = page.locator("[data-testid='stSelectbox']").filter(has_text=label).locator("input")
    choice = page.get_by_role("option", name=option, exact=True)
    for _ in range(5):
        box.scroll_into_view_if_needed()
        box.focus()
        page.keyboard.press("ArrowDown")
        try:
            choice.wait_for(timeout=3000)
            break
        except Exception:  # the list did not open yet: try again
            page.keyboard.press("Escape")
    choice.click()
    wait_until_idle(page)


def charts_fit(page) -> list[list[int]]:
    """[drawn width, width of the column holding it (or of the page's main block)] of every chart."""
    return page.evaluate("""() => [...document.querySelectorAll("[data-testid='stVegaLiteChart']")].map(el => {
        const column = el.closest("[data-testid='stColumn']") || el.closest("[data-testid='stMainBlockContainer']");
        return [Math.round(el.scrollWidth), Math.round(column.getBoundingClientRect().width)];
    })""")


# Controls whose text does not fit, on the whole page (main area and sidebar): the one check of a control's text that
# every layout test uses. [widget, what, its text, px needed, px shown] each, what being
#  "cut": a part of a widget that hides overflowing text (cut, "…", or a scroller) and holds more than it shows: a button
#         "Reload pr…", a chip with only "×", a selectbox's value "Randon" (an input's value counts, except a text box's:
#         a visitor's own typing scrolls in its box);
#  "past its widget": in the main area, a piece of text drawn past its widget's box (a device name running out of
#                     its selectbox);
#  "in a scroller": a part of a widget that scrolls sideways (a segmented control whose last option sits in a scroller);
#  "hidden": in the main area, a button, option, label or value lying outside a box around it that clips (an option
#            of a radio or a segmented control cut off by its row, with no scrollbar to say so).
# Text inside a chart or a tooltip is the chart checks' business.
CLIPPED_CONTROLS = """(values = true) => {  // values: whether an input's value counts
  const widgets = ["stButton", "stDownloadButton", "stSelectbox", "stMultiSelect", "stRadio", "stButtonGroup",
                   "stCheckbox", "stNumberInput", "stTextInput", "stSlider", "stSelectSlider", "stFileUploader",
                   "stExpander", "stMetricLabel"].map(id => `[data-testid=${id}]`).join(", ");
  const textual = "button, [role=radio], input[role=combobox], label, [data-testid=stWidgetLabel]";
  const out = [];
  const textOf = el => el.tagName === "INPUT" ? el.value || "" : el.innerText || "";
  for (const w of document.querySelectorAll(widgets)) {
    const box = w.getBoundingClientRect();
    if (!box.width || w.closest("[data-testid=stVegaLiteChart], [data-testid=stTooltipContent]")) continue;
    const name = w.dataset.testid, main = w.closest("[data-testid=stMain]");  // the sidebar folds away below 1024 px
    for (const el of [w, ...w.querySelectorAll("*")]) {
      if (!el.getClientRects().length || el.closest("svg, .katex-mathml")) continue;  // not drawn; MathML: for readers
      const style = getComputedStyle(el);
      const input = values && el.tagName === "INPUT" && el.type !== "file" && !el.closest("[data-testid=stTextInput]");
      if (el.tagName === "INPUT" && !input) continue;
      const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
      const text = textOf(el).trim();
      if (text && el.scrollWidth > el.clientWidth + 1
          && (input || style.overflowX !== "visible" || style.textOverflow === "ellipsis"))
        out.push([name, "cut", text.slice(0, 60), el.scrollWidth, el.clientWidth]);
      else if (["auto", "scroll"].includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1)
        out.push([name, "in a scroller", text.slice(0, 60), el.scrollWidth, el.clientWidth]);
      if (main && own) {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1))
          out.push([name, "past its widget", text.slice(0, 60), Math.round(r.right), Math.round(box.right)]);
      }
      if (main && el.matches(textual) && text) {
        const r = el.getBoundingClientRect();
        for (let up = el.parentElement; up && up !== main; up = up.parentElement) {
          if (getComputedStyle(up).overflowX === "visible") continue;
          const outer = up.getBoundingClientRect();
          if (r.right > outer.right + 1 || r.left < outer.left - 1) {
            out.push([name, "hidden", text.slice(0, 60), Math.round(r.right), Math.round(outer.right)]);
            break;
          }
        }
      }
    }
  }
  return out;
}"""

# Axis and legend labels and titles of the charts drawn in SVG that are smaller than 12 px.
SMALL_CHART_LABELS = """() => [...document.querySelectorAll("[data-testid=stVegaLiteChart] svg text")]
  .filter(t => t.closest("g[class*=role-axis-label], g[class*=role-legend-label], g[class*=role-axis-title],"
                         + " g[class*=role-legend-title]"))
  .map(t => [t.textContent.slice(0, 20), parseFloat(getComputedStyle(t).fontSize)]).filter(([, px]) => px < 12)"""


# The step maps (ui/components/heatmap.py): one component element a map, key map_<name>, or a row of them, key
# maps_<row>, their tables in its open shadow root.
MAP_HOSTS = ("[class*='st-key-map_'] [data-testid='stBidiComponentIsolated'],"
             " [class*='st-key-maps_'] [data-testid='stBidiComponentIsolated']")
EDITOR_HOSTS = "[class*='st-key-pged_'] [data-testid='stBidiComponentIsolated']"  # the matrix editors


def maps_fit(page) -> list[list[int]]:
    """[left, right] edges of every step map's frame, from the left of the column holding it (or of the
    page's main block), and that column's width: a map wider than its column scrolls inside its frame.
    A map not drawn (no frame, or 0 px wide) gives [0, 0, 0]."""
    return page.evaluate("""(sel) => [...document.querySelectorAll(sel)].flatMap(host => {
        const boxes = host.shadowRoot ? [...host.shadowRoot.querySelectorAll(".map")] : [];
        return boxes.length ? boxes.map(box => [host, box.querySelector(".wrap")]) : [[host, null]];
    }).map(([host, wrap]) => {
        if (!wrap || !wrap.getBoundingClientRect().width) return [0, 0, 0];
        const column = host.closest("[data-testid='stColumn']") || host.closest("[data-testid='stMainBlockContainer']");
        const box = wrap.getBoundingClientRect(), holder = column.getBoundingClientRect();
        return [Math.round(box.left - holder.left), Math.round(box.right - holder.left), Math.round(holder.width)];
    })""", MAP_HOSTS)


def maps_within(fits: list[list[int]]) -> bool:
    """Every map of :func:`maps_fit` is drawn and lies within its column."""
    return all(right > left >= -1 and right <= width + 1 for left, right, width in fits)


# Text in the step maps (cells, row and column headers, the legend's low and high values) that is
# smaller than 12 px or cut: [map key, its text, font px, px needed, px shown] each.
SMALL_OR_CLIPPED_MAP_TEXT = """() => {
  const out = [];
  for (const [key, box] of Object.entries((MAP_BOXES)(""))) {
    for (const t of box.querySelectorAll("td, th, .legend span:not(.ramp)")) {
      const text = t.textContent.trim();
      if (!text) continue;
      const px = parseFloat(getComputedStyle(t).fontSize);
      if (px < 12 || t.scrollWidth > t.clientWidth + 1) out.push([key, text.slice(0, 20), px, t.scrollWidth, t.clientWidth]);
    }
  }
  return out;
}""".replace("MAP_BOXES", MAP_BOXES)


# ── Charts in their columns (the layout tests) ──────────────────────────────────────────

HOLDERS = ("[data-testid='stColumn'], [data-testid='stVerticalBlock'], [data-testid='stHorizontalBlock'],"
           " [data-testid='stMainBlockContainer']")

# The charts: Vega's, and the step maps (tables in a component's shadow root: key map_<name> for one map, maps_<row>
# for a row of them); each map of a row is a chart of its own.
CHARTS = ("[data-testid='stVegaLiteChart'], [class*='st-key-map_'] [data-testid='stBidiComponentIsolated'],"
          " [class*='st-key-maps_'] [data-testid='stBidiComponentIsolated']")
# [element, its drawing] for every chart: Vega's canvas or svg; a map's box (.map: its table and legend), or null while
# a map element has drawn none yet (its code still on its way): not drawn.
DRAWINGS = """[...document.querySelectorAll(CHARTS)].flatMap(el => {
    if (!el.shadowRoot) return [[el, el.querySelector('canvas, svg.marks')]];
    const maps = [...el.shadowRoot.querySelectorAll('.map')];
    return maps.length ? maps.map(map => [el, map]) : [[el, null]];
})"""
DRAWINGS = DRAWINGS.replace("CHARTS", json.dumps(CHARTS))

# Each chart's drawing and how far it runs past the nearest block that holds it (a column, a block of a row, an
# expander, the main block) or any block around that.
CHART_BOXES = """(holders) => DRAWINGS.map(([el, drawing]) => {
    const drawn = (drawing || el).getBoundingClientRect();
    let past = 0, holder = null;
    for (let up = el.parentElement; up; up = up.parentElement) {
        if (!up.matches(holders)) continue;
        const box = up.getBoundingClientRect();
        holder = holder || [Math.round(box.left), Math.round(box.right)];
        past = Math.max(past, box.left - drawn.left, drawn.right - box.right);
    }
    return {left: drawn.left, right: drawn.right, top: drawn.top, bottom: drawn.bottom,
            width: Math.round(drawn.width), holder, past: Math.round(past)};
})""".replace("DRAWINGS", DRAWINGS)

# Drawn: no element still waiting for its code (Streamlit draws a skeleton where an element whose code it loads on
# first use will be: every component, the maps and the sidebar's link included, for about 0.5 s after a page's first
# run on an idle machine; a page once looked at with only its skeletons had "every map drawn", there being none yet, and
# under load the sidebar's link was still a skeleton a second later), and the ``count`` charts or more, each drawn.
ALL_DRAWN = """(count) => {
    if (document.querySelector('[data-testid=stSkeleton]')) return false;
    const charts = DRAWINGS;
    const drawn = ([el, drawing]) => ((el.shadowRoot ? drawing?.querySelector('td') && drawing : drawing)
                                      ?.getBoundingClientRect().width || 0) > 0;
    return charts.length >= count && charts.every(drawn);
}""".replace("DRAWINGS", DRAWINGS)


def settle(page, charts: int) -> None:
    """Wait for the script to finish and for Vega to draw (and re-fit) every chart."""
    wait_until_idle(page, timeout_ms=120000)
    page.wait_for_function(ALL_DRAWN, arg=charts, timeout=60000)
    page.wait_for_timeout(1000)


def chart_misfits(page) -> tuple[list, list, list]:
    """Every chart (:data:`CHARTS`) as drawn now; those drawn past a block that holds them, as (drawn width, column
    [left, right], px past); and the pairs drawn over each other, by index."""
    boxes = page.evaluate(CHART_BOXES, HOLDERS)
    past = [(b["width"], b["holder"], b["past"]) for b in boxes if b["past"] > 1]
    overlapping = [(i, j) for i, a in enumerate(boxes) for j, b in enumerate(boxes[i + 1:], i + 1)
                   if not (a["right"] <= b["left"] + 1 or b["right"] <= a["left"] + 1
                           or a["bottom"] <= b["top"] + 1 or b["bottom"] <= a["top"] + 1)]
    return boxes, past, overlapping


def assert_charts_fit(page, where: str, charts: int) -> None:
    assert page.locator("[data-testid='stException']").count() == 0, where
    boxes, past, overlapping = chart_misfits(page)
    assert len(boxes) >= charts, (where, len(boxes))
    assert not past, (where, "charts past their column: (drawn width, column [left, right], px past)", past)
    assert not overlapping, (where, "charts drawn over each other", overlapping, boxes)


# ── The Playground: cells, typing, the output ───────────────────────────────────────────

def output_text(page) -> str:
    """The written-out sum of step 7, whose last line is the output of the focused input."""
    return page.locator("[data-testid='stMain'] [data-testid='stText']:visible").last.inner_text()  # not the full lines


def cell(page, name: str):
    """A cell of a matrix editor by its accessible name, "X, Input 1, x1" (inside the editor's shadow root)."""
    return page.get_by_role("textbox", name=name, exact=True)


def open_playground(page, url: str, query: str = "", first: str = "X, Input 1, x1") -> None:
    page.goto(f"{url}/playground{query}")
    cell(page, first).wait_for(timeout=60000)
    page.wait_for_selector("[class*='st-key-map_outputs'] td", timeout=60000)  # the last step map, drawn
    wait_until_idle(page)


def wait_for_new_output(page, before: str) -> str:
    """The last line of step 7 once it differs from ``before`` (the page has recomputed)."""
    page.wait_for_function(
        "(old) => { const c = document.querySelectorAll('[data-testid=\"stMain\"] [data-testid=\"stText\"]');"
        " return c.length && c[c.length - 1].innerText !== old; }", arg=before, timeout=30000)
    wait_until_idle(page)
    return output_text(page).splitlines()[-1]


def type_into(page, name: str, text: str) -> str:
    """Click the cell ``name``, type ``text``, press Enter; return the new last line of step 7
    (the focused input's output) once the page has recomputed."""
    before = output_text(page)
    cell(page, name).click()
    page.keyboard.type(text)
    page.keyboard.press("Enter")
    return wait_for_new_output(page, before)


# Text in the main area wider than its box, and pieces of text drawn over one another: every heading, paragraph,
# caption, alert, code block and map title, [what, its text, px needed, px shown] and [[what, text], [what, text]].
TEXT_LAYOUT = r"""() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const sel = 'h1, h2, h3, h4, [data-testid="stMarkdownContainer"] > p, [data-testid="stCaptionContainer"],'
            + ' [data-testid="stAlertContentSuccess"], [data-testid="stAlertContentInfo"], [data-testid="stText"],'
            + ' [data-testid="stWidgetLabel"]';
  const els = [...main.querySelectorAll(sel)].filter(e => e.getClientRects().length && e.innerText.trim());
  const name = e => (e.closest('[data-testid]') || {dataset: {}}).dataset.testid || e.tagName;
  const wide = [];
  for (const e of els) {
    const style = getComputedStyle(e);
    if (e.tagName === 'PRE' && style.overflowX !== 'visible') {  // a code block scrolls: only if it has to
      if (e.scrollWidth > e.clientWidth + 1) wide.push([name(e), e.innerText.slice(0, 40), e.scrollWidth, e.clientWidth]);
      continue;
    }
    // what is drawn of its text (KaTeX's and the line boxes') reaches past its box
    const box = e.getBoundingClientRect(), range = document.createRange(), drawn = [];
    const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!n.textContent.trim() || n.parentElement.closest('.katex-mathml')) continue;  // MathML: for readers only
      range.selectNodeContents(n);
      drawn.push(...[...range.getClientRects()].filter(r => r.width > 0));
    }
    if (!drawn.length) continue;
    const right = Math.max(...drawn.map(r => r.right)), left = Math.min(...drawn.map(r => r.left));
    if (right > box.right + 2 || left < box.left - 2)
      wide.push([name(e), e.innerText.slice(0, 40), Math.round(right - left), Math.round(box.width)]);
  }
  const boxes = els.map(e => [e, e.getBoundingClientRect()]);
  const over = [];
  for (let a = 0; a < boxes.length; a++)
    for (let b = a + 1; b < boxes.length; b++) {
      const [ea, ra] = boxes[a], [eb, rb] = boxes[b];
      if (ea.contains(eb) || eb.contains(ea)) continue;
      const x = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const y = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (x > 2 && y > 2) over.push([[name(ea), ea.innerText.slice(0, 30)], [name(eb), eb.innerText.slice(0, 30)]]);
    }
  const block = document.querySelector('[data-testid="stMainBlockContainer"]');
  return {wide, over, page: [document.documentElement.scrollWidth, window.innerWidth],
          block: [block.scrollWidth, block.clientWidth]};
}"""


# A chart's text drawn past the chart's own box (cut off there), or cut short by Vega with "…".
CUT_CHART_TITLES = """() => [...document.querySelectorAll("[data-testid=stVegaLiteChart] svg text")].filter(t => {
    const box = t.getBoundingClientRect(), chart = t.closest("svg").getBoundingClientRect();
    // a glyph box's line gap, which Vega does not count in a text's bounds: a third of the font as drawn (zoomed)
    const zoom = Number(getComputedStyle(t.closest("[data-testid=stMain]") || document.body).zoom) || 1;
    const slack = Math.max(3, parseFloat(getComputedStyle(t).fontSize) * zoom / 3);
    return t.textContent.includes("…") || box.top < chart.top - slack || box.bottom > chart.bottom + slack
           || box.left < chart.left - slack || box.right > chart.right + slack;
  }).map(t => t.textContent)"""


def sidebar_open(page) -> bool:
    return page.evaluate("() => document.querySelector(\"[data-testid='stSidebar']\").getBoundingClientRect().right > 0")


def assert_text_fits(page, where: str) -> list[list[int]]:
    """No text, control, map or chart label past its box, cut short or drawn over other text, and the page never
    wider than the window; returns the maps' fits (:func:`maps_fit`) for the caller's count."""
    found = page.evaluate(TEXT_LAYOUT)
    assert found["page"][0] <= found["page"][1], (where, "the page scrolls sideways", found["page"])
    assert found["block"][0] <= found["block"][1] + 1, (where, "the main block overflows", found["block"])
    assert not found["wide"], (where, "text wider than its box: [what, text, px drawn, px of its box]", found["wide"])
    assert not found["over"], (where, "text drawn over other text", found["over"])
    assert page.evaluate(CLIPPED_CONTROLS) == [], where
    assert page.evaluate(SMALL_OR_CLIPPED_MAP_TEXT) == [], where
    assert page.evaluate(SMALL_CHART_LABELS) == [], where
    assert page.evaluate(CUT_CHART_TITLES) == [], (where, "a chart's title cut short")
    fits = maps_fit(page)
    return fits


def as_text(matrix) -> list[list[str]]:
    """A matrix as an editor holds it: each number written as the server writes an editor's cell."""
    from selfattn.display.numbers import editor_text
    import numpy as np

    return [[editor_text(float(v)) for v in row] for row in np.atleast_2d(matrix)]


def shaken(params, rng):
    """``params`` (a layer's, from ``LayerParams.random`` or ``DecoderLayerParams.random``) with every number moved
    by ``rng`` (a ``random.Random``): ``random`` starts the attention biases and β at 0 and γ at 1, which would leave a
    swapped bias row or a LayerNorm's γ untested."""
    import numpy as np

    noise = np.random.default_rng(rng.randrange(10**6))
    return type(params).checked(**{name: np.round(m + noise.normal(0.0, 0.3, m.shape), 3)
                                   for name, m in params.arrays().items()}, num_heads=params.num_heads)


def assert_preview_cells(expected: list[dict], got: list[dict | None]) -> int:
    """A browser preview's boxes against the core's, case by case: ``got`` as an engine returns them ({link: {cells,
    lo, hi}}, or None), ``expected`` as the server writes them ({link: rows of map_text}); every expected box must be
    there, of its shape. A cell may differ only where the two sides' last bits fall either side of a rounding tie
    (neighbours in the 4th significant digit), or where a sum cancels (0 on one side, a residue of 1e-17 on the
    other): at most 1 cell in 2,000, the server's answer then redraws that map. Returns the cells compared."""
    total, off = 0, []
    for want, cells in zip(expected, got, strict=True):
        assert cells is not None
        for link, rows in want.items():
            assert link in cells, link
            mine = cells[link]["cells"]
            assert len(mine) == len(rows) and all(len(a) == len(b) for a, b in zip(mine, rows)), link
            for a_row, b_row in zip(mine, rows):
                for a, b in zip(a_row, b_row):
                    total += 1
                    if a != b:
                        off.append((link, a, b))
    assert len(off) <= total / 2000, off[:10]
    for _, a, b in off:
        a, b = float(a), float(b)
        assert abs(a - b) <= 1.01e-3 * max(abs(a), abs(b)) or max(abs(a), abs(b)) < 1e-14, (a, b)
    return total
