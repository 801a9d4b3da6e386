"""The Sentence embeddings page at 1400, 1024 and 768 px in both languages: no control's text is clipped
or hidden in a scroller, and a head picked in the pattern grid shows up where the visitor is looking."""

import pytest
from tests.browser import release, tab, wait_until_idle


pytestmark = pytest.mark.browser

SENTENCE = "The+animal+didn%27t+cross+the+street+because+it+was+too+tired"
WIDTHS = (1400, 1024, 768)
HEIGHT = 1000

# Every control of the main block (buttons, options of a segmented control or radio, a selectbox's value,
# widget labels) whose text is cut: an element narrower than its text (an ellipsis), or a control that
# lies outside a box that clips or scrolls (an option hidden in a scroller without a scrollbar).
CLIPPED = """() => {
    const main = document.querySelector("[data-testid='stMain']");
    const controls = main.querySelectorAll(
        "button, [role='radio'], input[role='combobox'], [data-testid='stWidgetLabel'], "
        + "[data-testid='stMetricLabel'], label");
    const found = [];
    for (const el of controls) {
        const text = (el.tagName === 'INPUT' ? el.value : el.innerText || '').trim();
        if (!text || el.closest("[data-testid='stVegaLiteChart']") || el.closest("[data-testid='stTooltipContent']"))
            continue;
        const box = el.getBoundingClientRect();
        if (box.width === 0 && box.height === 0) continue;  // not drawn (a closed popover)
        for (const part of [el, ...el.querySelectorAll('*')]) {
            const style = getComputedStyle(part);
            const cuts = style.overflowX !== 'visible' || style.textOverflow === 'ellipsis';
            const own = part.tagName === 'INPUT' ? part.value : part.innerText;
            if (cuts && part.scrollWidth > part.clientWidth + 1 && own.trim()) {
                found.push(['cut', text, part.scrollWidth, part.clientWidth]);
                break;
            }
        }
        for (let up = el.parentElement; up && up !== main; up = up.parentElement) {
            const style = getComputedStyle(up);
            if (style.overflowX === 'visible') continue;
            const outer = up.getBoundingClientRect();
            if (box.right > outer.right + 1 || box.left < outer.left - 1) {
                found.push(['hidden', text, Math.round(box.left), Math.round(box.right),
                            Math.round(outer.left), Math.round(outer.right)]);
                break;
            }
        }
    }
    return found;
}"""


def open_embeddings(browser, url: str, width: int, lang: str, extra: str = ""):
    page = tab(browser, width, HEIGHT)
    page.goto(f"{url}/embeddings?lang={lang}&text={SENTENCE}{extra}")
    page.wait_for_selector("[data-testid='stVegaLiteChart']", timeout=120000)
    wait_until_idle(page, timeout_ms=120000)
    page.wait_for_timeout(1500)  # charts and widgets settle after the script
    return page


CASES = [(width, lang) for width in WIDTHS for lang in ("en", "zh")]


@pytest.mark.parametrize("width, lang", CASES, ids=[f"{w}-{lang}" for w, lang in CASES])
def test_no_control_is_clipped(browser, url, width, lang):
    page = open_embeddings(browser, url, width, lang)
    try:
        assert page.locator("[data-testid='stException']").count() == 0
        clipped = page.evaluate(CLIPPED)
        assert not clipped, (width, lang, clipped)
        view = page.locator("[data-testid='stSelectbox']").filter(has_text="Map" if lang == "en" else "要看的注意力图")
        assert view.count() == 1
        options = page.locator("[role='option']")
        for _ in range(3):  # open it: every option whole, none in a hidden scroller (a late rerun may close it)
            view.locator("input[role='combobox']").click()
            page.wait_for_timeout(800)
            if options.count():
                break
        names = [options.nth(i).inner_text().strip() for i in range(options.count())]
        assert len(names) == 4 and names[-1] in ("Rollout over all layers", "跨所有层的逐层累积"), names
        assert not page.evaluate("""() => [...document.querySelectorAll("[role='option']")].some(
            o => o.scrollWidth > o.clientWidth + 1 || o.getBoundingClientRect().right > window.innerWidth)""")
        page.keyboard.press("Escape")
    finally:
        release(page)


def test_a_picked_head_is_shown_where_the_visitor_is_looking(browser, url):
    page = open_embeddings(browser, url, 1024, "en")
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
    """At 1024 px in Chinese: the pair's model heads for both sentences, the state's numbers in the text,
    and the formulas typeset by KaTeX (not XXᵀ/√d as plain text)."""
    page = tab(browser, 1024, HEIGHT)
    try:
        page.goto(f"{url}/embeddings?lang=zh&mode=pair")
        page.wait_for_function("() => document.body.innerText.split('第 1 层第 1 个头：模型自己的注意力').length === 3",
                               timeout=120000)  # one map per sentence
        wait_until_idle(page, timeout_ms=120000)
        text = page.locator("[data-testid='stMain']").inner_text()
        assert "“早上好”" in text and "“Good morning”" in text
        assert page.locator("[data-testid='stException']").count() == 0
        katex = page.locator("[data-testid='stMain'] .katex")
        assert katex.count() >= 20, katex.count()  # headings, titles and paragraphs of both sentences
        formulas = " ".join(katex.evaluate_all("els => els.map(e => e.querySelector('annotation')?.textContent || '')"))
        assert r"\sqrt{64}" in formulas and r"\sqrt{384}" in formulas  # each sentence's own d
        assert "Softmax(XXᵀ / 1)" not in text and "√64 = ÷8" not in text
    finally:
        release(page)
