"""The Sentence embeddings page in a real Chromium, with a Chinese sentence."""

import pytest
from tests.browser import assert_rendered, browser_page, charts_fit, wait_for_text, wait_until_idle


pytestmark = pytest.mark.browser

LONG = "今天早上我和朋友一起去公园散步，看见很多人在跑步、打太极拳，还有小朋友在放风筝，天气非常好，我们都很开心"


def test_chinese_sentence_renders_with_heatmaps(tmp_path, url, browser):
    with browser_page(browser, height=2400) as page:
        page.goto(f"{url}/embeddings?lang=zh")
        page.wait_for_selector("[data-testid='stTextInput'] input", timeout=60000)
        box = page.locator("[data-testid='stTextInput'] input").first
        box.fill("我爱自然语言处理")
        box.press("Enter")
        wait_for_text(page, "jieba 分词：我 / 爱")
        page.wait_for_selector("[data-testid='stVegaLiteChart'] canvas, [data-testid='stVegaLiteChart'] svg",
                               timeout=60000)
        page.wait_for_function("() => document.body.innerText.includes('第 1 层的所有头')", timeout=120000)
        wait_until_idle(page)
        text = page.locator("body").inner_text()
        assert "句子嵌入" in text and "覆盖率" in text
        assert page.locator("[data-testid='stException']").count() == 0
        assert page.locator("[data-testid='stVegaLiteChart']").count() >= 8
        shot = tmp_path / "embeddings-zh.png"
        page.screenshot(path=str(shot))
        assert_rendered(shot)

        page.get_by_text("原句与译文对照").click()  # two sentences side by side: every heatmap fits its half
        page.wait_for_function("() => document.body.innerText.includes('向量：all-MiniLM-L6-v2')", timeout=60000)
        wait_until_idle(page)
        page.wait_for_timeout(1000)  # charts draw after the script has finished
        fits = charts_fit(page)
        assert len(fits) >= 10 and all(chart <= column for chart, column in fits), fits

        box = page.locator("[data-testid='stTextInput'] input").first  # a long sentence, 52 characters
        box.fill(LONG)
        box.press("Enter")
        page.wait_for_function("() => document.body.innerText.includes('今天 / 早上')", timeout=60000)
        wait_until_idle(page)
        page.wait_for_timeout(1000)
        fits = charts_fit(page)
        assert len(fits) >= 15 and all(chart <= column for chart, column in fits), fits
        page.screenshot(path=str(tmp_path / "embeddings-zh-pair-long.png"), full_page=True)
