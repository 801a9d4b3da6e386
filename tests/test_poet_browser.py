"""The tiny poet's page in a real Chromium: it renders in both languages with no exception, and the charts of its
"one step" part (the candidates, each layer's attention, each layer's K and V cache) and of "how it learned" (the
loss curve) stay in their columns at 1400, 1024 (the projector's) and 768 px."""

import pytest

from selfattn.i18n import t
from tests.browser import assert_charts_fit, browser_page, settle, wait_for_text

pytestmark = pytest.mark.browser

STEP_CHARTS = 7  # the candidates, 2 layers' attention, 2 layers' K and V cache
LEARNED_CHARTS = 1  # the loss curve


@pytest.mark.parametrize("width, lang", [(1400, "en"), (1024, "zh"), (1024, "en"), (768, "zh"), (768, "en")])
def test_the_page_renders_and_its_charts_fit(url, browser, width, lang, tmp_path):
    with browser_page(browser, width=width, height=1400) as page:
        page.goto(f"{url}/poet?lang={lang}&part=step&step=3")
        wait_for_text(page, t("po.step_title", lang))
        settle(page, STEP_CHARTS)
        assert page.locator("[data-testid='stException']").count() == 0
        assert page.locator("[data-testid='stAlertContentError']").count() == 0
        assert page.locator("[data-testid='stAlertContentSuccess']").count() == 1  # this step's cache check
        assert_charts_fit(page, f"poet's step at {width} px", STEP_CHARTS)
        page.screenshot(path=str(tmp_path / f"poet-step-{width}-{lang}.png"), full_page=True)
        page.goto(f"{url}/poet?lang={lang}&part=learned")
        wait_for_text(page, t("po.learn_title", lang))
        settle(page, LEARNED_CHARTS)
        assert page.locator("[data-testid='stException']").count() == 0
        assert_charts_fit(page, f"poet's loss at {width} px", LEARNED_CHARTS)
