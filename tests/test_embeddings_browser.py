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
        wait_until_idle(page)
        text = page.locator("body").inner_text()
        assert "句子嵌入" in text and "覆盖率" in text
        assert "第 1 层的所有头" not in text  # part 2 is closed: its maps are not made
        assert page.locator("[data-testid='stException']").count() == 0
        assert page.locator("[data-testid='stVegaLiteChart']").count() >= 4
        shot = tmp_path / "embeddings-zh.png"
        page.screenshot(path=str(shot))
        assert_rendered(shot)

        page.get_by_text("原句与译文对照").click()  # two sentences side by side: every heatmap fits its half
        page.wait_for_function("() => document.body.innerText.includes('向量：all-MiniLM-L6-v2')", timeout=60000)
        wait_until_idle(page)
        page.wait_for_timeout(1000)  # charts draw after the script has finished
        fits = charts_fit(page)
        assert len(fits) >= 8 and all(chart <= column for chart, column in fits), fits

        box = page.locator("[data-testid='stTextInput'] input").first  # a long sentence, 52 characters
        box.fill(LONG)
        box.press("Enter")
        page.wait_for_function("() => document.body.innerText.includes('今天 / 早上')", timeout=60000)
        wait_until_idle(page)
        page.wait_for_timeout(1000)
        fits = charts_fit(page)
        assert len(fits) >= 8 and all(chart <= column for chart, column in fits), fits
        page.screenshot(path=str(tmp_path / "embeddings-zh-pair-long.png"), full_page=True)

        page.get_by_role("tab", name="2 · 预训练模型的注意力头").click()  # part 2: both sentences' heads fit too
        page.wait_for_function("() => document.body.innerText.includes('第 1 层的所有头')", timeout=120000)
        wait_until_idle(page)
        page.wait_for_timeout(1000)
        fits = charts_fit(page)
        assert len(fits) >= 6 and all(chart <= column for chart, column in fits), fits
        assert "part=model" in page.url and "覆盖率" not in page.locator("body").inner_text()  # part 1 is closed


def scroll_height(page) -> int:
    """The main area's scroll height (what a visitor scrolls through), in pixels."""
    return page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollHeight")


def test_the_parts_round_trip_in_the_link_and_keep_the_closed_parts_settings(url, browser):
    """Issue 52: a teacher's link opens exactly the part and state it names; the tabs and the "next part" button
    open another part, the address bar follows, and the settings of the parts closed stay in it."""
    with browser_page(browser, width=1400, height=900) as page:
        page.goto(f"{url}/embeddings?part=model&layer=3&head=2&text=Good+morning")
        page.wait_for_function("() => document.body.innerText.includes('Every head of layer 3')", timeout=120000)
        wait_until_idle(page)
        assert page.get_by_role("tab", selected=True).inner_text() == "2 · A pretrained model's heads"
        assert "Layer 3, head 2" in page.locator("body").inner_text()
        heights = {"model": scroll_height(page)}
        page.get_by_role("tab", name="3 · Same words, another order").click()
        page.wait_for_selector(".st-key-emb_order_a", timeout=120000)
        wait_until_idle(page)
        assert "part=order" in page.url and "layer=3" in page.url and "head=2" in page.url, page.url
        assert "Every head of layer" not in page.locator("body").inner_text()
        heights["order"] = scroll_height(page)
        link = page.url
        page.goto("about:blank")
        page.goto(link)  # the link made on part 3 opens part 3
        page.wait_for_selector(".st-key-emb_order_a", timeout=120000)
        wait_until_idle(page)
        assert page.get_by_role("tab", selected=True).inner_text() == "3 · Same words, another order"
        page.locator(".st-key-emb_part_next button").click()  # the last part leads back to the first
        page.wait_for_selector("[data-testid='stMetric']", timeout=120000)
        wait_until_idle(page)
        assert page.get_by_role("tab", selected=True).inner_text().startswith("1 · ")
        assert "part=" not in page.url and "layer=3" in page.url and "head=2" in page.url, page.url
        heights["raw"] = scroll_height(page)
        page.locator(".st-key-emb_part_next button").click()  # and on to part 2, as the link left it
        page.wait_for_function("() => document.body.innerText.includes('Layer 3, head 2')", timeout=120000)
        wait_until_idle(page)
        assert "part=model" in page.url
        assert page.locator("[data-testid='stException']").count() == 0
        print("main area's scroll height at 1400 × 900, by part:", heights)
