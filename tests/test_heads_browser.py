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


def assert_charts_fit(page, where: str, at_least: int) -> None:
    """Every chart of the part shown (at least ``at_least``: 5 maps in the comparison part, 3 in each mistake panel
    of the check part) inside its column, none over another."""
    boxes = page.evaluate(CHART_BOXES)
    assert len(boxes) >= at_least, where
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
        # the check part (ui/parts.py), every mistake panel open (a link)
        page.goto(f"{url}/heads?part=check&open={'~'.join(MISTAKES)}")
        page.wait_for_selector("[data-testid='stMetric']", timeout=90000)
        wait_until_idle(page)
        metrics = page.locator("[data-testid='stMetricValue']").all_inner_texts()
        assert float(metrics[0]) <= 1e-10 and float(metrics[1]) <= 1e-10
        assert page.locator("[data-testid='stVegaLiteChart']").count() >= 4
        assert page.locator("[data-testid='stException']").count() == 0
        shot = tmp_path / "heads.png"
        page.screenshot(path=str(shot))
        assert_rendered(shot)
        assert_charts_fit(page, "default", 6)
        assert "part=check" in page.url

        # The first part, by its tab (a click: the tab bar's callback opens it, the link follows)
        page.get_by_role("tab", name="1 · One head or many").click()
        page.wait_for_selector("[data-testid='stSlider']", timeout=90000)
        wait_until_idle(page)
        assert page.locator("[data-testid='stMetric']").count() == 0  # the closed check part drew nothing
        assert "part=" not in page.url  # the first part is the link's default
        assert_charts_fit(page, "default, comparison", 5)

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
        assert_charts_fit(page, "n=64, d_model=64, 16 heads", 5)


def test_the_parts_are_tabs_the_next_button_opens_the_next_and_the_link_reopens_it(url, browser):
    """Issue 52: one part at a time; its tab and the "next part" button open another, the address bar names it,
    and the link opens exactly that part in a new tab."""
    with browser_page(browser, width=1280, height=1000) as page:
        page.goto(f"{url}/heads")
        page.wait_for_selector("[data-testid='stVegaLiteChart']", timeout=90000)
        wait_until_idle(page)
        tabs = page.get_by_role("tab")
        assert tabs.all_inner_texts()[:3] == ["1 · One head or many", "2 · Checked against PyTorch, and two bugs",
                                              "3 · Timing"]
        assert page.get_by_role("tab", selected=True).inner_text() == "1 · One head or many"
        page.locator(".st-key-hd_part_next button").click()
        page.wait_for_selector("[data-testid='stMetric']", timeout=90000)
        wait_until_idle(page)
        assert page.get_by_role("tab", selected=True).inner_text().startswith("2 · ")
        assert "part=check" in page.url and page.locator("[data-testid='stSlider']").count() == 0
        page.get_by_role("tab", name="3 · Timing").click()
        page.wait_for_selector(".st-key-hd_run", timeout=90000)
        wait_until_idle(page)
        assert "part=bench" in page.url and page.locator("[data-testid='stMetric']").count() == 0
        link = page.url
        page.goto("about:blank")
        page.goto(link)
        page.wait_for_selector(".st-key-hd_run", timeout=90000)
        wait_until_idle(page)
        assert page.get_by_role("tab", selected=True).inner_text() == "3 · Timing"
        assert page.locator("[data-testid='stException']").count() == 0
