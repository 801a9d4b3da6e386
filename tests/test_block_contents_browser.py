"""The block page's parts in Chromium (issue 52; its "Jump to" box before, issue 37): an old link to a place opens the
part that holds it, a tab opens its part and the address bar names it, "next part" walks on, and a later run (an
option changed) stays on the part."""

from __future__ import annotations

import pytest

from selfattn.block.view import PAGE_PARTS
from selfattn.i18n import t_plain
from tests.browser import browser_page, map_sel, part_tab, wait_until_idle

pytestmark = pytest.mark.browser

PART_IN_URL = "(part) => new URLSearchParams(location.search).get('part') === part"


def tab_of(page, part: str):
    return part_tab(page, "tb", PAGE_PARTS, "en", part)


def test_an_old_link_to_the_batch_opens_its_part_and_the_tabs_and_next_part_walk_the_page(url, browser):
    with browser_page(browser, width=1024, height=768) as page:
        page.goto(f"{url}/block?layers=2&batch=1&at=batch")  # a link from the "Jump to" days
        tab_of(page, "batch").wait_for(timeout=90000)
        wait_until_idle(page)
        assert tab_of(page, "batch").get_attribute("aria-selected") == "true"
        shared = page.locator("[data-testid='stSidebar'] .st-key-share_link code").first.inner_text()
        assert "part=batch" in shared and "at=" not in shared, shared  # the link to share names the part
        assert page.locator("[data-testid='stCheckbox']").filter(has_text="A padded batch").is_visible()
        assert page.get_by_text("Jump to", exact=True).count() == 0
        assert page.locator(map_sel("tb_batch_mask")).count() == 1
        assert page.locator(map_sel("tb_layer1_input")).count() == 0  # a closed part draws nothing

        tab_of(page, "layer").click()  # the first part: no part in the link
        page.wait_for_function("() => !new URLSearchParams(location.search).has('part')", timeout=30000)
        page.locator(map_sel("tb_layer1_input")).wait_for(timeout=30000)
        wait_until_idle(page)
        assert page.get_by_text(t_plain("tb.norm_title", "en", token="t1")).count() == 1  # LayerNorm written out
        assert page.locator(map_sel("tb_batch_mask")).count() == 0

        page.get_by_role("button", name=t_plain("parts.next", "en", name=f"2 · {t_plain('tb.part_stack', 'en')}"))\
            .click()
        page.wait_for_function(PART_IN_URL, arg="stack", timeout=30000)
        page.locator(map_sel("tb_stack2")).wait_for(timeout=30000)
        wait_until_idle(page)

        page.locator("[data-testid='stCheckbox']").filter(has_text="Causal mask").locator("label").click()
        page.wait_for_function("() => new URLSearchParams(location.search).get('causal') === '1'", timeout=30000)
        wait_until_idle(page)
        assert tab_of(page, "stack").get_attribute("aria-selected") == "true"  # a later run stays on its part
        assert "part=stack" in page.url
        assert page.locator("[data-testid='stException']").count() == 0
