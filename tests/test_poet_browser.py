"""The tiny poet's page in a real Chromium: it renders in both languages with no exception, and its charts (the
candidates, each layer's attention, the loss curve) stay in their columns at 1400 and 1024 (the projector's) px."""

import pytest

from selfattn.i18n import t
from tests.browser import assert_charts_fit, browser_page, settle, wait_for_text

pytestmark = pytest.mark.browser

CHARTS = 4  # the candidates, layer 1's and layer 2's attention, the loss curve


@pytest.mark.parametrize("width, lang", [(1400, "en"), (1024, "zh")])
def test_the_page_renders_and_its_charts_fit(url, browser, width, lang, tmp_path):
    with browser_page(browser, width=width, height=1400) as page:
        page.goto(f"{url}/poet?lang={lang}&step=3")
        wait_for_text(page, t("po.step_title", lang))
        settle(page, CHARTS)
        assert page.locator("[data-testid='stException']").count() == 0
        assert page.locator("[data-testid='stAlertContentError']").count() == 0
        assert page.locator("[data-testid='stAlertContentSuccess']").count() == 2  # the cache and torch checks
        assert_charts_fit(page, f"poet at {width} px", CHARTS)
        page.screenshot(path=str(tmp_path / f"poet-{width}.png"), full_page=True)
