"""Issue 37: every page fits a 1024 x 768 projector, in both languages, with and without the projector view.

Measured in a real Chromium: no control's text cut (tests/browser.py's CLIPPED_CONTROLS: a button, switch,
box or segmented control that shows less than it holds), no formula wider than the text around it, no chart
or map running past the main area. Before this issue the projector view cut something on every page (the
sidebar kept 300 of the 1,024 px and the main area its 5 rem margins: 397 px of zoomed page were left).
"""

from __future__ import annotations

import pytest

from tests.browser import CLIPPED_CONTROLS, browser_page, wait_until_idle

pytestmark = pytest.mark.browser

ZH_SENTENCE = "%E6%88%91%E5%96%9C%E6%AC%A2%E6%9C%BA%E5%99%A8%E5%AD%A6%E4%B9%A0"  # 我喜欢机器学习
PAGES = ["", "playground", f"embeddings?text={ZH_SENTENCE}", "heads", "block?layers=2&batch=1", "block?source=real"]

FORMULAS_PAST_TEXT = """() => [...document.querySelectorAll('[data-testid=stMain] .katex')].filter(k => {
    const holder = k.closest('[data-testid=stMarkdownContainer], [data-testid=stCaptionContainer]') || k.parentElement;
    return k.getBoundingClientRect().right > holder.getBoundingClientRect().right + 2;
  }).map(k => k.textContent.slice(0, 40))"""
PAST_MAIN = """() => { const main = document.querySelector('[data-testid=stMainBlockContainer]').getBoundingClientRect();
  return [...document.querySelectorAll('[data-testid=stMain] [data-testid=stVegaLiteChart],'
                                       + ' [data-testid=stMain] [data-testid=stBidiComponentIsolated]')]
    .map(e => Math.round(e.getBoundingClientRect().right - main.right)).filter(px => px > 2); }"""


@pytest.mark.parametrize("big", ["0", "1"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_fits_1024_by_768(url, browser, lang, big):
    found = {}
    with browser_page(browser, width=1024, height=768) as page:
        for path in PAGES:
            page.goto(f"{url}/{path}{'&' if '?' in path else '?'}lang={lang}&big={big}")
            page.wait_for_selector("[data-testid='stMain'] h1", timeout=90000)
            wait_until_idle(page, 120000)
            page.wait_for_timeout(2000)  # Vega and the maps draw after the run
            assert page.locator("[data-testid='stException']").count() == 0, path
            problems = {"cut": page.evaluate(CLIPPED_CONTROLS), "formulas": page.evaluate(FORMULAS_PAST_TEXT),
                        "past the main area (px)": page.evaluate(PAST_MAIN)}
            if any(problems.values()):
                found[path or "home"] = {k: v for k, v in problems.items() if v}
    assert not found, found
