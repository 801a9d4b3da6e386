"""The tiny poet's page in a real Chromium: it renders in both languages with no exception; the charts and maps of its
"one step" part (the candidates; each layer's attention, K and V cache as linked maps) and of "how it learned" (the
loss curve) stay in their columns at 1400 and 768 px (at 1024 px, the projector's, every part in both languages is
tests/test_look_browser.py's, with the same checks); hovering a character in an attention map lights its column in
every head's map and its K and V rows in every layer."""

import pytest

from selfattn.i18n import t
from selfattn.poet.view import PARTS
from tests.browser import assert_charts_fit, browser_page, click_part, settle, wait_for_text

pytestmark = pytest.mark.browser

STEP_CHARTS = 1  # the candidates (Vega-Lite)
STEP_MAPS = 6  # 2 layers' attention, K and V cache (ui/components/heatmap.py)
LEARNED_CHARTS = 1  # the loss curve

# Every linked map of the page: {key: {"rows": rows whose header is lit, "cols": columns whose header is lit,
# "right": its right edge, px}}.
MAPS = """() => {
    const out = {};
    for (const el of document.querySelectorAll("[class*='st-key-map_po_']")) {
        const key = [...el.classList].map(c => c.match(/^st-key-map_po_(\\w+)$/)).find(m => m);
        const root = el.querySelector("[data-testid='stBidiComponentIsolated']")?.shadowRoot;
        const body = root && root.querySelector("tbody");
        if (!key || !body) continue;
        out[key[1]] = {
            rows: [...body.rows].map((tr, r) => tr.cells[0].classList.contains("lit-row") ? r : null).filter(r => r !== null),
            cols: [...root.querySelectorAll("thead th")].slice(1).map((th, c) => th.classList.contains("lit-col") ? c : null)
                  .filter(c => c !== null),
            right: el.getBoundingClientRect().right,
        };
    }
    return out;
}"""


@pytest.mark.parametrize("width, lang", [(1400, "en"), (768, "zh"), (768, "en")])
def test_the_page_renders_and_its_charts_fit(url, browser, width, lang, tmp_path):
    with browser_page(browser, width=width, height=1400) as page:
        page.goto(f"{url}/poet?lang={lang}&part=step&step=3")
        wait_for_text(page, t("po.step_title", lang))
        settle(page, STEP_CHARTS)
        assert page.locator("[data-testid='stException']").count() == 0
        assert page.locator("[data-testid='stAlertContentError']").count() == 0
        assert page.locator("[data-testid='stAlertContentSuccess']").count() == 1  # this step's cache check
        assert_charts_fit(page, f"poet's step at {width} px", STEP_CHARTS)
        page.wait_for_function(f"() => ({MAPS})() && Object.keys(({MAPS})()).length === {STEP_MAPS}", timeout=30_000)
        maps = page.evaluate(MAPS)
        assert all(m["right"] <= width for m in maps.values()), maps
        cell = page.locator("[class*='st-key-map_po_attn1'] tbody tr:nth-child(2) td:nth-child(3)")  # head 2, "1春"
        cell.scroll_into_view_if_needed()
        cell.hover()
        page.wait_for_timeout(200)
        lit = page.evaluate(MAPS)
        assert lit["k1"]["rows"] == lit["v1"]["rows"] == lit["k2"]["rows"] == lit["v2"]["rows"] == [1], lit
        assert lit["attn1"]["cols"] == lit["attn2"]["cols"] == [1], lit
        page.screenshot(path=str(tmp_path / f"poet-step-{width}-{lang}.png"), full_page=True)
        click_part(page, "po", PARTS, lang, "learned")  # a rerun in the same tab, as a visitor picks it
        wait_for_text(page, t("po.learn_title", lang))
        settle(page, LEARNED_CHARTS)
        assert page.locator("[data-testid='stException']").count() == 0
        assert_charts_fit(page, f"poet's loss at {width} px", LEARNED_CHARTS)
