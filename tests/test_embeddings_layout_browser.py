"""The Sentence embeddings page on a projector: a head picked in the pattern grid shows up where the visitor is
looking, and a pair in Chinese shows both sentences' heads and typeset maths. (Its layout at each width and language,
no control cut, its map choice whole: tests/test_layout_browser.py.)"""

import pytest
from tests.browser import release, tab, wait_until_idle


pytestmark = pytest.mark.browser

SENTENCE = "The+animal+didn%27t+cross+the+street+because+it+was+too+tired"
HEIGHT = 1000


def open_embeddings(browser, url: str, width: int, lang: str, extra: str = ""):
    page = tab(browser, width, HEIGHT)
    page.goto(f"{url}/embeddings?lang={lang}&text={SENTENCE}{extra}")
    page.wait_for_selector("[data-testid='stVegaLiteChart']", timeout=120000)
    wait_until_idle(page, timeout_ms=120000)
    page.wait_for_timeout(1500)  # charts and widgets settle after the script
    return page


def test_a_picked_head_is_shown_where_the_visitor_is_looking(browser, url):
    page = open_embeddings(browser, url, 1024, "en", "&part=model")  # part 2, the model's heads
    try:
        grid = page.locator("[data-testid='stVegaLiteChart']").filter(has_text="Pattern")
        grid.scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        cells = grid.locator("g.mark-rect").first.locator("path")  # the cells (the chosen head's frame is another layer)
        box = cells.nth(2).bounding_box()  # layer 1, head 3
        page.mouse.move(box["x"] + 5, box["y"] + 5)
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        title = page.get_by_text("Layer 1, head 3: the model's own attention")
        title.wait_for(timeout=30000)
        wait_until_idle(page)
        page.wait_for_timeout(500)
        top = title.bounding_box()["y"]
        assert 0 <= top <= HEIGHT - 150, top  # in the window, with room for the map under it: no scrolling
        grid_top = grid.bounding_box()["y"]
        assert top > grid_top  # under the grid the visitor clicked, not 1,500 px above it
        head_view = page.locator("[data-testid='stVegaLiteChart']").filter(has=page.locator("g.mark-rule.role-mark"))
        assert head_view.count() == 1
        for chart in (head_view, grid):  # read from the back of a room: no label under 12 px at 1024
            sizes = chart.locator("text").evaluate_all(
                "els => els.filter(e => e.textContent.trim()).map(e => parseFloat(getComputedStyle(e).fontSize))")
            assert sizes and min(sizes) >= 12, sizes
        rows = head_view.locator("g.mark-text.role-mark").first.locator("text").evaluate_all(
            "els => els.map(e => e.getBoundingClientRect().top)")
        assert min(b - a for a, b in zip(rows, rows[1:])) >= 24  # a row per token, labels never crowded
    finally:
        release(page)


def test_a_pair_in_chinese_shows_both_sentences_heads_and_typeset_maths(browser, url):
    """At 1024 px in Chinese: the pair's model heads for both sentences (part 2), the state's numbers in the text,
    and the formulas typeset by KaTeX, not XXᵀ/√d as plain text (part 1)."""
    page = tab(browser, 1024, HEIGHT)
    try:
        page.goto(f"{url}/embeddings?lang=zh&mode=pair&part=model")
        page.wait_for_function("() => document.body.innerText.split('第 1 层第 1 个头：模型自己的注意力').length === 3",
                               timeout=120000)  # one map per sentence
        wait_until_idle(page, timeout_ms=120000)
        text = page.locator("[data-testid='stMain']").inner_text()
        assert "“早上好”" in text and "“Good morning”" in text
        assert page.locator("[data-testid='stException']").count() == 0
        page.get_by_role("tab", name="1 · 句子的向量与注意力").click()
        page.wait_for_function("() => document.body.innerText.includes('覆盖率')", timeout=120000)
        wait_until_idle(page, timeout_ms=120000)
        text = page.locator("[data-testid='stMain']").inner_text()
        katex = page.locator("[data-testid='stMain'] .katex")
        assert katex.count() >= 20, katex.count()  # headings, titles and paragraphs of both sentences
        formulas = " ".join(katex.evaluate_all("els => els.map(e => e.querySelector('annotation')?.textContent || '')"))
        assert r"\sqrt{64}" in formulas and r"\sqrt{384}" in formulas  # each sentence's own d
        assert "Softmax(XXᵀ / 1)" not in text and "√64 = ÷8" not in text
    finally:
        release(page)
