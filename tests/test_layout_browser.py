"""Every page at desktop (1400 px), projector (1024 px) and tablet (768 px) widths: no chart (a Vega
chart, or one of the Playground's step maps) leaves its column and none is drawn over another.

One server and one Chromium serve every case; each case opens the page in a fresh tab at its
window width (at 1024 px the sidebar is open, at 768 px Streamlit collapses it). The two
largest layouts (the Playground at n=32, d=16 and Heads & devices at d_model 128) are set up
once and then looked at in a window resized to each width, as on a projector that changes
resolution.
"""

import pytest

from selfattn.core.heads import MISTAKES
from tests.browser import (ALL_DRAWN, assert_charts_fit, CLIPPED_CONTROLS, settle, SMALL_CHART_LABELS,
                           SMALL_OR_CLIPPED_MAP_TEXT, wait_until_idle, release, tab)

pytestmark = pytest.mark.browser

WIDTHS = (1400, 1024, 768)
HEIGHT = 1000
# The Playground's: its 7 step maps. "page:part": one part of a page in parts (ui/parts.py), each drawn alone.
MIN_CHARTS = {"playground": 7, "embeddings": 4, "embeddings:model": 7, "embeddings:order": 3, "heads": 5,
              "heads:check": 6, "heads:bench": 4}


def open_page(browser, url: str, name: str, width: int, lang: str = "en"):
    page = tab(browser, width, HEIGHT)
    path, _, part = name.partition(":")
    extra = f"&open={'~'.join(MISTAKES)}" if path == "heads" else ""  # every mistake panel open (a link)
    extra += f"&part={part}" if part else ""
    page.goto(f"{url}/{path}?lang={lang}{extra}")
    page.wait_for_function(ALL_DRAWN, arg=MIN_CHARTS[name], timeout=120000)
    settle(page, MIN_CHARTS[name])
    return page



def sidebar_open(page) -> bool:
    return page.evaluate("() => document.querySelector(\"[data-testid='stSidebar']\").getBoundingClientRect().right > 0")


def set_number(page, key: str, value: int) -> None:
    box = page.locator(f".st-key-{key} input")
    box.fill(str(value))
    box.press("Enter")
    page.wait_for_timeout(500)
    wait_until_idle(page, timeout_ms=120000)


# Each page at each width in English, and at the projector's and the tablet's widths in Chinese too: one tab a case,
# both checks on it (a tab costs a page load of several seconds of CPU; two tests a case opened it twice).
CASES = [(name, width, lang) for name in MIN_CHARTS for width, lang in
         ((1400, "en"), (1024, "en"), (768, "en"), (1024, "zh"), (768, "zh"))]


@pytest.mark.parametrize("name, width, lang", CASES, ids=[f"{n}-{w}-{lang}" for n, w, lang in CASES])
def test_charts_stay_in_their_columns_and_no_control_is_cut_short(browser, url, name, width, lang):
    """No chart leaves its column or is drawn over another; the projector keeps the sidebar, the tablet hides it.
    On a projector (1024 px) and a tablet (768 px), in both languages, also: every button, box, chip and option shows
    its whole text (none cut, none hidden in a scroller), and chart labels are >= 12 px, as is every text of the step
    maps (cells, headers, legend), none of it cut: read from the back of a room."""
    page = open_page(browser, url, name, width, lang)
    what = f"{name} at {width} px ({lang})"
    try:
        assert sidebar_open(page) == (width >= 1024)
        assert_charts_fit(page, what, MIN_CHARTS[name])
        if width < 1400:
            assert page.evaluate(CLIPPED_CONTROLS) == [], what
            assert page.evaluate(SMALL_CHART_LABELS) == [], what
            assert page.evaluate(SMALL_OR_CLIPPED_MAP_TEXT) == [], what
    finally:
        release(page)


def fits_every_width(page, name: str, what: str) -> None:
    """Resize the window through WIDTHS; at each, every chart of page ``name`` fits and none overlaps."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": HEIGHT})
        settle(page, MIN_CHARTS[name])
        assert_charts_fit(page, f"{what} at {width} px", MIN_CHARTS[name])


def test_largest_playground_fits_every_width(browser, url):
    page = open_page(browser, url, "playground", WIDTHS[0])
    try:
        for key in ("pg_n", "pg_d_in", "pg_d_k", "pg_d_v"):
            set_number(page, key, 32 if key == "pg_n" else 16)
        page.wait_for_function("() => document.body.innerText.includes('32 × 32')", timeout=60000)
        fits_every_width(page, "playground", "playground n=32, d=16")
    finally:
        release(page)


def test_heads_at_d_model_128_fits_every_width(browser, url):
    page = open_page(browser, url, "heads", WIDTHS[0])
    try:
        page.locator(".st-key-hd_d [data-testid='stSelectbox']").click()
        page.get_by_role("option", name="128", exact=True).click()
        page.wait_for_function("() => document.body.innerText.includes('128 × 128')", timeout=60000)
        fits_every_width(page, "heads", "heads d_model=128")
    finally:
        release(page)
