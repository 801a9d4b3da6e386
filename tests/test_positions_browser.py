"""The Playground's positions and shuffle sections in a real Chromium at 1024 px (a projector).

Opened from a link with sinusoidal positions and an order, the section draws PE, X + PE, P and
the outputs before and after inside their columns, none over another; typing a new order in the
box and pressing Enter redraws the check. The shuffle's folded box (opened by the link's order) closes and opens
again with the order as typed.
"""

from pathlib import Path

import pytest
from tests.browser import ALL_DRAWN, assert_charts_fit, assert_rendered, browser_page, settle, wait_until_idle


pytestmark = pytest.mark.browser

CHARTS = 12  # the steps' 7 maps, and as Vega charts PE and X + PE, P, the outputs before and after the shuffle


def test_the_shuffle_section_draws_at_1024_px(tmp_path: Path, url, browser):
    with browser_page(browser, 1024, 1000) as page:
        page.goto(f"{url}/playground?order=3+1+2&pos=sinusoidal")
        page.wait_for_function(ALL_DRAWN, arg=CHARTS, timeout=120000)
        settle(page, CHARTS)
        assert_charts_fit(page, "playground shuffle at 1024 px", CHARTS)
        assert page.locator("[data-testid='stVegaLiteChart']").count() == CHARTS - 7  # the sections' own charts
        body = page.inner_text("body")
        assert "Output of Input 2 (row 2) changed: in row 3" in body
        assert "Permutation matrix P" in body and "Position vectors PE" in body
        section = page.locator(".st-key-pg_order_panel")  # the shuffle's folded box, opened by the link's order
        section.scroll_into_view_if_needed()
        box = page.locator(".st-key-pg_order input")
        box.fill("2 1 3")
        box.press("Enter")
        page.wait_for_timeout(500)
        wait_until_idle(page, timeout_ms=120000)
        page.wait_for_function("() => document.body.innerText.includes('it moved to row 2') || "
                               "document.body.innerText.includes('in row 2 it differs')", timeout=60000)
        settle(page, CHARTS)
        assert_charts_fit(page, "after a typed order", CHARTS)
        page.locator("[class*='st-key-pg_pos__']").get_by_text("None", exact=True).click()  # positions off: only moved
        page.wait_for_function("() => document.body.innerText.includes('Every output only moved')", timeout=60000)
        wait_until_idle(page, timeout_ms=120000)
        assert "Output of Input 1 (row 1) is unchanged; it moved to row 2" in page.inner_text("body")
        section.locator("summary").click()  # closed: its controls and maps are no longer made
        page.locator(".st-key-pg_order input").wait_for(state="detached", timeout=60000)
        wait_until_idle(page, timeout_ms=120000)
        assert page.locator("[data-testid='stVegaLiteChart']").count() == 0, "P and the outputs before and after gone"
        section.locator("summary").click()  # opened again: the order as typed
        page.locator(".st-key-pg_order input").wait_for(timeout=60000)
        wait_until_idle(page, timeout_ms=120000)
        assert page.locator(".st-key-pg_order input").input_value() == "2 1 3"
        settle(page, CHARTS - 2)  # positions off: no PE, no X + PE
        shot = tmp_path / "shuffle.png"
        section.scroll_into_view_if_needed()
        page.screenshot(path=str(shot))
        assert_rendered(shot)
