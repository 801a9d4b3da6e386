"""The Sentence embeddings page on a projector: a pair in Chinese shows both sentences' heads and typeset maths. (Its
layout at each width and language, no control cut, its map choice whole, and a head picked in the pattern grid shown
where the visitor is looking: tests/test_layout_browser.py, on the loads its layout table makes.)"""

import pytest
from tests.browser import release, tab, wait_until_idle

pytestmark = pytest.mark.browser

HEIGHT = 1000


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
