"""The Heads & devices page in a real Chromium: maps, the PyTorch check and a tiny benchmark."""

import pytest

from tests.browser import assert_rendered, chromium_page, streamlit_server, wait_until_idle

pytestmark = pytest.mark.browser


def test_heads_page_renders_and_agrees_with_pytorch(tmp_path):
    with streamlit_server() as url, chromium_page(height=2400) as page:
        page.goto(f"{url}/heads")
        page.wait_for_selector("[data-testid='stMetric']", timeout=90000)
        wait_until_idle(page)
        metrics = page.locator("[data-testid='stMetricValue']").all_inner_texts()
        assert float(metrics[0]) <= 1e-10 and float(metrics[1]) <= 1e-10
        assert page.locator("[data-testid='stVegaLiteChart']").count() >= 4
        assert page.locator("[data-testid='stException']").count() == 0
        shot = tmp_path / "heads.png"
        page.screenshot(path=str(shot))
        assert_rendered(shot)
