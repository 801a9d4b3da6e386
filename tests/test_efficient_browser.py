"""The Efficient attention page in a real Chromium: every part renders, in both languages, and its charts stay in
their columns at 1400 and 768 px (at 1024 px, the projector's width, every part in both languages is
tests/test_look_browser.py's, with the same checks); each part is picked in the page's tabs, as a visitor does."""

import pytest

from selfattn.efficient.view import PARTS
from selfattn.i18n import t
from tests.browser import assert_charts_fit, browser_page, click_part, settle, wait_for_text, wait_until_idle

pytestmark = pytest.mark.browser

CHARTS = {"tiles": 1, "traffic": 3, "heads": 2, "window": 2, "rotary": 1}


@pytest.mark.parametrize("width, lang", [(1400, "en"), (768, "en"), (768, "zh")])
def test_every_part_renders_and_its_charts_fit(url, browser, width, lang, tmp_path):
    with browser_page(browser, width=width, height=1400) as page:
        page.goto(f"{url}/efficient?lang={lang}&step=3")  # the first part, tiles, at its third step
        for part in PARTS:
            if part != PARTS[0]:
                click_part(page, "ef", PARTS, lang, part)
            wait_for_text(page, t(f"ef.part_{part}", lang))
            settle(page, CHARTS[part])
            assert page.locator("[data-testid='stException']").count() == 0, part
            assert page.locator("[data-testid='stAlertContentError']").count() == 0, part
            assert_charts_fit(page, f"{part} at {width} px", CHARTS[part])
            page.screenshot(path=str(tmp_path / f"{part}-{width}.png"), full_page=True)


def test_next_walks_the_tiles_to_the_torch_check(url, browser):
    with browser_page(browser, width=1400, height=1400) as page:
        page.goto(f"{url}/efficient")
        wait_for_text(page, t("ef.part_tiles", "en"))
        wait_until_idle(page)
        next_button = page.get_by_role("button", name=t("ef.next", "en"), exact=True)  # not "Next part: …"
        for step in range(1, 7):  # the default: 6 queries in tiles of 2 × 3, all 6 tiles computed
            next_button.click()
            wait_for_text(page, f"Step {step} of 6")
            wait_until_idle(page)
        wait_for_text(page, "largest difference")
        text = page.locator("[data-testid='stAlertContentSuccess']").first.inner_text()
        assert "scaled_dot_product_attention" in text
        assert "step=6" in page.url


def test_the_step_buttons_show_their_whole_labels_at_1024_px_in_chinese(url, browser):
    from tests.browser import CLIPPED_CONTROLS

    with browser_page(browser, width=1024, height=1000) as page:
        page.goto(f"{url}/efficient?lang=zh&step=2")
        wait_for_text(page, t("ef.next", "zh"))
        wait_until_idle(page)
        clipped = [c for c in page.evaluate(CLIPPED_CONTROLS) if c[0] == "stButton"]
        assert not clipped, clipped


def test_play_walks_the_tiles_with_the_step_in_the_link_at_768_px_in_chinese(url, browser):
    with browser_page(browser, width=768, height=1400) as page:
        page.goto(f"{url}/efficient?lang=zh")
        wait_for_text(page, t("ef.part_tiles", "zh"))
        wait_until_idle(page)
        page.get_by_role("button", name=t("ef.play", "zh")).click()
        wait_for_text(page, "第 2 步，共 6 步")
        page.wait_for_function("() => location.search.includes('step=2') || location.search.includes('step=3')",
                               timeout=30000)
        page.get_by_role("button", name=t("ef.pause", "zh")).click()
        wait_until_idle(page)
        assert page.locator("[data-testid='stException']").count() == 0
