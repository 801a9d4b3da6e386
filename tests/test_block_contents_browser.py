"""Issue 37: the block page's contents jump to each part, and a teacher's link to one part opens there."""

from __future__ import annotations

import pytest

from tests.browser import browser_page, pick, wait_until_idle

pytestmark = pytest.mark.browser

IN_VIEW = """(id) => { const el = document.getElementById(id); if (!el) return null;
                       const box = el.getBoundingClientRect(); return box.top >= -2 && box.top < window.innerHeight / 2; }"""


def test_a_link_to_the_batch_opens_at_the_batch_and_the_contents_jump(url, browser):
    with browser_page(browser, width=1024, height=768) as page:
        page.goto(f"{url}/block?layers=2&batch=1&at=batch")
        page.wait_for_selector("text=Jump to", timeout=90000)
        wait_until_idle(page)
        page.wait_for_function(IN_VIEW, arg="tb-batch", timeout=15000)  # the batch's heading at the top of the view
        assert page.locator("[data-testid='stCheckbox']").filter(has_text="A padded batch").is_visible()
        pick(page, "Jump to", "LayerNorm, written out")
        page.wait_for_function(IN_VIEW, arg="tb-norm", timeout=15000)
        assert "at=norm" in page.url or page.wait_for_function("() => location.search.includes('at=norm')",
                                                               timeout=15000)
        page.mouse.wheel(0, -20000)  # reading on: a later run (an option changed) does not jump again
        page.wait_for_timeout(500)
        page.locator("[data-testid='stCheckbox']").filter(has_text="Causal mask").locator("label").click()
        wait_until_idle(page)
        page.wait_for_timeout(1500)
        assert not page.evaluate(IN_VIEW, "tb-norm")
        assert page.locator("[data-testid='stException']").count() == 0
