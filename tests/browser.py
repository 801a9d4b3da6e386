"""A real browser on a real server: start `streamlit run app.py`, drive Debian's Chromium.

Used by the browser tests of every page. Chromium comes from `apt-get install chromium`
(the test command installs it); Playwright drives it through ``executable_path``.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("SELFATTN_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(timeout: float = 60.0, *, hosted: bool = False):
    """Run the app on a free local port (as the public demo with ``hosted``); yield its base URL; stop it afterwards."""
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **({"SELFATTN_HOSTED": "1"} if hosted else {})}
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true",
         "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"streamlit did not start (exit code {proc.poll()})")
            time.sleep(0.3)
        yield url
    finally:
        stop_process(proc)


def stop_process(proc: subprocess.Popen, wait: float = 10) -> None:
    """Ask a server to stop (SIGTERM), and kill it if it has not within ``wait`` seconds."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(wait)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


@contextlib.contextmanager
def chromium_browser():
    """Headless Chromium, driven by Playwright (a module's fixture may share one)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def chromium_page(width: int = 1400, height: int = 1000):
    """A Playwright page in headless Chromium."""
    with chromium_browser() as browser:
        yield browser.new_page(viewport={"width": width, "height": height})


def wait_until_idle(page, timeout_ms: int = 30000) -> None:
    """Wait until Streamlit has finished running the script (no 'Running...' indicator)."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.includes('Running')",
        timeout=timeout_ms)
    page.wait_for_timeout(300)


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


# Controls whose text does not fit: any part of a widget that hides overflowing text (cut, "…", or a
# scroller) and holds more than it shows: a button "Reload pr…", a chip with only "×", a segmented
# control whose last option sits in a scroller. [widget, its text, px needed, px shown] each.
CLIPPED_CONTROLS = """() => {
  const widgets = ["stButton", "stDownloadButton", "stSelectbox", "stMultiSelect", "stRadio", "stButtonGroup",
                   "stCheckbox", "stNumberInput", "stTextInput", "stSlider", "stSelectSlider", "stFileUploader"]
                  .map(id => `[data-testid=${id}]`).join(", ");
  const out = [];
  for (const w of document.querySelectorAll(widgets)) {
    for (const el of [w, ...w.querySelectorAll("*")]) {
      if (!el.offsetParent || el.tagName === "INPUT" || el.closest("svg")) continue;
      const style = getComputedStyle(el);
      if (style.overflowX === "visible" && style.textOverflow !== "ellipsis") continue;
      if (el.scrollWidth > el.clientWidth + 1 && el.innerText.trim()) {
        out.push([w.dataset.testid, el.innerText.trim().slice(0, 60), el.scrollWidth, el.clientWidth]);
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


# The Playground's step maps (ui/components/heatmap.py): one component element a map, key map_<name>,
# its table in an open shadow root.
MAP_HOSTS = "[class*='st-key-map_'] [data-testid='stBidiComponentIsolated']"
EDITOR_HOSTS = "[class*='st-key-ed_'] [data-testid='stBidiComponentIsolated']"  # the matrix editors


def maps_fit(page) -> list[list[int]]:
    """[left, right] edges of every step map's frame, from the left of the column holding it (or of the
    page's main block), and that column's width: a map wider than its column scrolls inside its frame.
    A map not drawn (no frame, or 0 px wide) gives [0, 0, 0]."""
    return page.evaluate("""(sel) => [...document.querySelectorAll(sel)].map(host => {
        const wrap = host.shadowRoot && host.shadowRoot.querySelector(".wrap");
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
  for (const el of document.querySelectorAll("[class*='st-key-map_']")) {
    const host = el.querySelector("[data-testid='stBidiComponentIsolated']");
    if (!host || !host.shadowRoot) continue;
    const key = [...el.classList].find(c => c.startsWith("st-key-map_"));
    for (const t of host.shadowRoot.querySelectorAll("td, th, .legend span:not(.ramp)")) {
      const text = t.textContent.trim();
      if (!text) continue;
      const px = parseFloat(getComputedStyle(t).fontSize);
      if (px < 12 || t.scrollWidth > t.clientWidth + 1) out.push([key, text.slice(0, 20), px, t.scrollWidth, t.clientWidth]);
    }
  }
  return out;
}"""
