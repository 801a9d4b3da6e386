"""A real browser on a real server: the page helpers of the browser tests.

The server and Chromium themselves come from support/ (shared with the benchmarks); the fixtures
that start them are in tests/conftest.py.
"""

from __future__ import annotations

from pathlib import Path

from support.chromium import CHROMIUM, CHROMIUM_ARGS, chromium_browser, chromium_page  # noqa: F401
from support.server import ROOT, free_port, stop_process, streamlit_server  # noqa: F401


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
