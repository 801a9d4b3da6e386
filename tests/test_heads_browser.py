"""The Heads & devices page in a real Chromium: maps, the PyTorch check and a tiny benchmark."""

import pytest

from selfattn.core.heads import MISTAKES
from tests.browser import assert_rendered, browser_page, wait_until_idle

pytestmark = pytest.mark.browser

# Each chart's drawing (Vega's canvas) and the column, or full-width block, that holds it.
CHART_BOXES = """() => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')].map(el => {
    const drawn = el.querySelector('canvas, svg.marks').getBoundingClientRect();
    const holder = (el.closest('[data-testid=stColumn]') || el.closest('[data-testid=stVerticalBlock]'))
        .getBoundingClientRect();
    return {left: drawn.left, right: drawn.right, top: drawn.top, bottom: drawn.bottom,
            holder_left: holder.left, holder_right: holder.right};
})"""


def assert_charts_fit(page, where: str) -> None:
    boxes = page.evaluate(CHART_BOXES)
    assert len(boxes) >= 11, where
    for box in boxes:
        assert box["left"] >= box["holder_left"] - 1 and box["right"] <= box["holder_right"] + 1, (where, box)
    for i, a in enumerate(boxes):  # no chart is drawn over another (e.g. the head grid over a legend)
        for b in boxes[i + 1:]:
            apart = (a["right"] <= b["left"] + 1 or b["right"] <= a["left"] + 1
                     or a["bottom"] <= b["top"] + 1 or b["bottom"] <= a["top"] + 1)
            assert apart, (where, a, b)


def wait_for_rerun(page) -> None:
    page.wait_for_timeout(800)
    page.wait_for_function("() => !document.querySelector('[data-testid=stStatusWidget]')", timeout=90000)
    wait_until_idle(page)


def test_heads_page_renders_and_agrees_with_pytorch(tmp_path, url, browser):
    with browser_page(browser, width=1280, height=2400) as page:
        page.goto(f"{url}/heads?open={'~'.join(MISTAKES)}")  # every mistake panel open (a link)
        page.wait_for_selector("[data-testid='stMetric']", timeout=90000)
        wait_until_idle(page)
        metrics = page.locator("[data-testid='stMetricValue']").all_inner_texts()
        assert float(metrics[0]) <= 1e-10 and float(metrics[1]) <= 1e-10
        assert page.locator("[data-testid='stVegaLiteChart']").count() >= 4
        assert page.locator("[data-testid='stException']").count() == 0
        shot = tmp_path / "heads.png"
        page.screenshot(path=str(shot))
        assert_rendered(shot)
        assert_charts_fit(page, "default")

        # The QA pass's overflowing case: 64 tokens, d_model 64, 16 heads, in a 1280 px window.
        tokens = page.locator("[data-testid='stNumberInput'] input").nth(1)
        tokens.fill("64")
        tokens.press("Enter")
        wait_for_rerun(page)
        page.locator("[data-testid='stSelectbox']").nth(1).click()
        page.get_by_role("option", name="64", exact=True).click()
        wait_for_rerun(page)
        heads = page.locator("[data-testid='stSlider'] input[type=range]").first
        heads.focus()
        heads.press("End")
        wait_for_rerun(page)
        assert "16 × 64 × 64" in page.locator("[data-testid='stMarkdownContainer']").all_inner_texts().__str__()
        assert page.locator("[data-testid='stException']").count() == 0
        assert_charts_fit(page, "n=64, d_model=64, 16 heads")
