"""Crafted links against the Playground of a real server in hosted mode (issue 21), in a real Chromium, with a canary
server standing in for the attacker's site: text a link brings is shown as text, and the maps still draw.

The module's Chromium and tab (tests/browser.py), on the worker's hosted server (tests/conftest.py's ``hosted``): these
tests were in tests/test_hostile.py, where each started a Chromium of its own (a module-wide one holds an event loop
open while that module's other tests call asyncio.run), and loaded its first page in a new renderer.
"""

from __future__ import annotations

import http.server
import json
import threading
from urllib.parse import quote

import pytest

from tests.browser import browser_page, wait_until_idle

pytestmark = pytest.mark.browser  # a hosted Streamlit server and Chromium


@pytest.fixture
def server(hosted):
    """The worker's hosted server (tests/conftest.py), shared with the hostile modules."""
    return hosted


class Canary(http.server.BaseHTTPRequestHandler):
    """The attacker's site: counts every request a victim's browser makes to it."""

    hits: list[str] = []

    def do_GET(self):  # noqa: N802 (the name http.server calls)
        Canary.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/gif")
        self.end_headers()
        self.wfile.write(b"GIF89a")

    def log_message(self, *args):
        pass


@pytest.fixture
def canary():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Canary)
    Canary.hits = []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


def payloads(site: str) -> list[str]:
    """Each at most 40 characters, what a cell of a link may hold (a label may hold 48)."""
    return [f"[Log in]({site}/p)", f"![]({site}/i.gif)", f"<{site}/a>", f"{site}/b", f"<img src={site}/c>",
            f":red[{site}/d]", f"$\\href{{{site}/e}}{{x}}$"]


@pytest.mark.browser
def test_crafted_links_show_visitor_text_as_text(canary, server, browser):
    """Cells and token labels with markdown links, images, autolinks and HTML, in every message that
    quotes them (the bad-cell error, the labels-cut notice, the step-4 text, a heading)."""
    site = canary
    with browser_page(browser) as page:
        url = server.url
        for payload in payloads(site):
            cell = quote(payload.replace("!", "!!").replace("_", "!u").replace("~", "!t"), safe="")
            label = quote(payload.replace("!", "!!").replace("_", "!u").replace("~", "!t"), safe="")
            for query in (f"dx=0.0.{cell}", f"tok={label}_b_c&focus=1"):
                page.goto(f"{url}/playground?{query}")
                wait_until_idle(page, 60000)
                shown = "[data-testid='stAlert']" if query.startswith("dx") else "[class*='st-key-map_outputs'] td"
                page.wait_for_selector(shown, timeout=60000)  # the cell's error; the results' last map
                page.wait_for_timeout(500)  # an image would be fetched by now
                links = page.evaluate(f"""() => [...document.querySelectorAll("a[href*='127.0.0.1'], img[src*='127.0.0.1']")]
                    .map(e => e.outerHTML).filter(h => h.includes({json.dumps(site)}))""")
                assert links == [], (query, links)
                assert payload.split("(")[0][:8] in page.inner_text("[data-testid='stMain']").replace("\u2060", ""), query
    assert Canary.hits == [], Canary.hits  # no request reached the attacker's site


# Every step map's labels as drawn: {map key: [row headers, column headers]}, the number of img elements in
# its shadow root, and whether its table has cells.
MAP_LABELS = """() => Object.fromEntries([...document.querySelectorAll("[class*='st-key-map_']")].map(el => {
    const key = [...el.classList].find(c => c.startsWith("st-key-map_")).slice("st-key-map_".length);
    const root = el.querySelector("[data-testid='stBidiComponentIsolated']").shadowRoot;
    return [key, {rows: [...root.querySelectorAll("tbody th")].map(th => th.textContent),
                  cols: [...root.querySelectorAll("thead th:not(.corner)")].map(th => th.textContent),
                  imgs: root.querySelectorAll("img").length, cells: root.querySelectorAll("td").length,
                  height: Math.round(root.querySelector(".map").getBoundingClientRect().height)}];
}))"""


def drawn_maps(page, url: str, query: str) -> dict:
    """Open the Playground at ``query``; the labels of every step map once the last one is drawn."""
    page.goto(f"{url}/playground?{query}")
    wait_until_idle(page, 60000)
    page.wait_for_selector("[class*='st-key-map_outputs'] td", timeout=60000)
    page.wait_for_timeout(1000)
    return page.evaluate(MAP_LABELS)


@pytest.mark.browser
def test_line_separators_in_labels_do_not_blank_the_charts(server, browser):
    """A U+2028 or U+2029 in a token label used to make Vega fail to parse every chart (0 px high); the
    step maps draw, those labels written on one line (the separators become spaces, grid.parse_labels)."""
    errors = []
    with browser_page(browser, own=True) as page:  # its listeners go with its context
        url = server.url
        page.on("console", lambda msg: errors.append(msg.text) if "parse error" in msg.text.lower() else None)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        maps = drawn_maps(page, url, "tok=a_x%E2%80%A8y_c%E2%80%A9d&focus=2")
    assert sorted(maps) == ["keys", "outputs", "queries", "scores", "values", "weighted_values_2", "weights"], sorted(maps)
    labels = ["a", "x y", "c d"]
    for key, drawn in maps.items():
        assert drawn["rows"] == labels and drawn["cells"] >= 9 and drawn["height"] > 50, (key, drawn)
    assert maps["scores"]["cols"] == labels and maps["weights"]["cols"] == labels
    assert errors == [], errors


@pytest.mark.browser
def test_html_in_a_label_is_written_as_text_in_the_maps(server, browser):
    """A token label that is HTML shows as its literal text in every map's headers: no img element is made
    in a map's shadow root (nor anywhere), and no script runs (no alert). (A label keeps 24 characters,
    so the tag is one that fits.)"""
    label = "<img src=x onerror=f()>"
    dialogs, errors = [], []
    with browser_page(browser, own=True) as page:  # its init script goes with its context
        url = server.url
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.add_init_script("window.f = () => alert('ran')")
        maps = drawn_maps(page, url, "tok=" + quote(label, safe="") + "_" + quote("<b>b</b>", safe="") + "_c&focus=1")
        page.wait_for_timeout(500)  # an image's error would have run by now
        imgs = page.evaluate("() => document.querySelectorAll(\"img[src='x']\").length")
    assert len(maps) == 7, sorted(maps)
    for key, drawn in maps.items():
        assert drawn["rows"] == [label, "<b>b</b>", "c"] and drawn["imgs"] == 0 and drawn["cells"] >= 9, (key, drawn)
    assert maps["scores"]["cols"] == maps["weights"]["cols"] == [label, "<b>b</b>", "c"]
    assert imgs == 0 and dialogs == [] and errors == [], (imgs, dialogs, errors)
