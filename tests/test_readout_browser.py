"""Reading the heads in a real Chromium: a click on the pattern grid selects that layer and head."""

import pytest
from tests.browser import browser_page, wait_until_idle


pytestmark = pytest.mark.browser

SENTENCE = "The+animal+didn%27t+cross+the+street+because+it+was+too+tired"


def test_a_click_on_the_pattern_grid_selects_that_head(url, browser):
    with browser_page(browser, width=1280, height=1200) as page:
        page.goto(f"{url}/embeddings?text={SENTENCE}&part=model")  # part 2, the model's heads
        page.wait_for_selector("text=What each head does", timeout=90000)
        wait_until_idle(page)
        assert page.get_by_text("Head view: layer 1, head 1").count() == 1
        grid = page.locator("[data-testid='stVegaLiteChart']").filter(has_text="Pattern")
        grid.scroll_into_view_if_needed()
        cells = grid.locator("g.mark-rect").first.locator("path")  # the cells (the chosen head's frame is another layer)
        page.wait_for_timeout(500)
        assert cells.count() == 6 * 12, cells.count()  # MiniLM: 6 layers x 12 heads, drawn as SVG
        box = cells.nth(2).bounding_box()  # layer 1, head 3: the previous-token head
        page.mouse.move(box["x"] + 5, box["y"] + 5)
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_selector("text=Head view: layer 1, head 3", timeout=30000)
        wait_until_idle(page)
        # and the link says so: the address bar follows the run's query-string message, which comes after the
        # page's text. (It never came when the click cut the page's first run short: tests/test_link_race.py.)
        page.wait_for_function("() => location.search.includes('head=3')", timeout=30000)
        assert "head=3" in page.url
        assert page.locator("[data-testid='stException']").count() == 0
