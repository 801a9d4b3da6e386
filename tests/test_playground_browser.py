"""The Playground in a real Chromium: edit a cell of X and watch an output change."""

import io
import zipfile

import numpy as np
import pandas as pd
import pytest

from selfattn import self_attention
from selfattn.core.presets import tutorial_example
from tests.browser import assert_rendered, charts_fit, chromium_page, pick, streamlit_server, wait_until_idle

pytestmark = pytest.mark.browser


def output_text(page) -> str:
    """The written-out sum of step 7, whose last line is the output of the focused input."""
    return page.locator("[data-testid='stMain'] [data-testid='stCode']").last.inner_text()


def test_edit_a_cell_in_the_browser_changes_the_output(tmp_path):
    with streamlit_server() as url, chromium_page(height=1600) as page:
        page.goto(f"{url}/playground")
        page.wait_for_selector("[data-testid='stDataFrame'] canvas", timeout=60000)
        page.wait_for_selector("[data-testid='stVegaLiteChart']", timeout=60000)
        wait_until_idle(page)
        before = output_text(page)
        assert "= [1.93662, 6.68311, 1.59507]" in before  # the tutorial's output 1

        grid = page.locator("[data-testid='stDataFrame']").first
        box = grid.bounding_box()
        # Double-click x1 of the first row (after the token column), type 5, press Enter.
        page.mouse.dblclick(box["x"] + 96, box["y"] + 35 + 17)
        editor = page.locator("#portal input, #portal textarea").first
        editor.wait_for(timeout=10000)
        editor.fill("5")
        page.keyboard.press("Enter")
        page.wait_for_function(
            "(old) => { const c = document.querySelectorAll('[data-testid=\"stMain\"] [data-testid=\"stCode\"]');"
            " return c.length && c[c.length - 1].innerText !== old; }", arg=before, timeout=30000)
        wait_until_idle(page)
        after = output_text(page)
        assert after != before
        # Input 1 becomes [5, 0, 1, 0]: q1 = [5, 0, 6], k1 = [0, 1, 5], v1 = [1, 10, 3]; the score
        # q1·k1 = 30 beats 20 and 16, so output 1 is almost exactly v1.
        assert "= [1.00005, 9.99991, 2.99986]" in after

        shot = tmp_path / "playground.png"
        page.screenshot(path=str(shot))
        assert_rendered(shot)
        assert page.locator("[data-testid='stException']").count() == 0

        # The files are written when a download button is clicked: they hold the edited numbers.
        example = tutorial_example()
        x = example.x.copy()
        x[0, 0] = 5
        want = self_attention(x, example.w_q, example.w_k, example.w_v, scale=False).outputs
        with page.expect_download(timeout=30000) as info:
            page.locator(".st-key-dl_outputs button").click()
        assert info.value.suggested_filename == "outputs.csv"
        got = pd.read_csv(info.value.path(), index_col=0)
        assert list(got.index) == ["Input 1", "Input 2", "Input 3"]
        np.testing.assert_array_equal(got.to_numpy(), want)  # every digit, read back from the file
        with page.expect_download(timeout=30000) as info:
            page.locator(".st-key-dl_zip button").click()
        with zipfile.ZipFile(info.value.path()) as archive:
            x_back = pd.read_csv(io.BytesIO(archive.read("x.csv")), index_col=0).to_numpy()
            out_back = pd.read_csv(io.BytesIO(archive.read("outputs.csv")), index_col=0).to_numpy()
        np.testing.assert_array_equal(x_back, x)
        np.testing.assert_array_equal(out_back, want)


def test_playground_in_chinese_renders(tmp_path):
    with streamlit_server() as url, chromium_page(height=1200) as page:
        page.goto(f"{url}/playground?lang=zh")
        page.wait_for_selector("[data-testid='stDataFrame'] canvas", timeout=60000)
        wait_until_idle(page)
        assert "动手实验" in page.locator("h1").first.inner_text()
        assert "首页" in page.locator("[data-testid='stSidebar']").inner_text()
        shot = tmp_path / "playground-zh.png"
        page.screenshot(path=str(shot))
        assert_rendered(shot)


def test_renamed_tokens_and_a_language_switch_keep_the_focus(tmp_path):
    """Renaming a token relabels the focus selector; the chosen input and the page survive it
    (Streamlit maps a selectbox's answer back by its label, so changed labels once crashed here)."""
    with streamlit_server() as url, chromium_page(height=1600) as page:
        page.goto(f"{url}/playground")
        page.wait_for_selector("[data-testid='stDataFrame'] canvas", timeout=60000)
        wait_until_idle(page)
        pick(page, "Focus on input", "3: Input 3")
        page.wait_for_function("() => document.body.innerText.includes('q3·k1 = 2×0 + 1×1 + 3×1 = 4')",
                               timeout=30000)

        grid = page.locator("[data-testid='stDataFrame']").first
        grid.scroll_into_view_if_needed()
        box = grid.bounding_box()
        cell = (box["x"] + 30, box["y"] + 35 + 2 * 35 + 17)  # the token of the third row
        page.mouse.click(*cell)  # the first click only takes the focus from the selectbox
        page.wait_for_timeout(300)
        page.mouse.dblclick(*cell)
        editor = page.locator("#portal textarea.gdg-input")
        editor.wait_for(timeout=10000)
        editor.fill("猫")
        page.keyboard.press("Enter")
        page.wait_for_function("() => [...document.querySelectorAll('[data-testid=\"stSelectbox\"] input')]"
                               ".some(e => e.value === '3: 猫')", timeout=30000)
        wait_until_idle(page)
        assert "q3·k1 = 2×0 + 1×1 + 3×1 = 4" in page.locator("[data-testid='stMain'] [data-testid='stCode']").first.inner_text()

        page.locator("[data-testid='stSidebar']").get_by_text("简体中文").click()
        page.wait_for_function("() => document.body.innerText.includes('动手实验')", timeout=30000)
        wait_until_idle(page)
        values = [box.get_attribute("value") for box in page.locator("[data-testid='stSelectbox'] input").all()]
        assert "3: 猫" in values and "教程中的例子" in values
        shot = tmp_path / "playground-renamed.png"
        page.screenshot(path=str(shot), full_page=True)
        assert_rendered(shot)
        assert page.locator("[data-testid='stException']").count() == 0


def test_heatmaps_fit_their_columns_at_the_largest_sizes(tmp_path):
    with streamlit_server() as url, chromium_page(width=1280, height=2400) as page:
        page.goto(f"{url}/playground?lang=zh")
        page.wait_for_selector("[data-testid='stVegaLiteChart']", timeout=60000)
        wait_until_idle(page)
        sizes = page.locator("[data-testid='stNumberInput'] input")  # seed, then n, d_in, d_k, d_v
        assert [sizes.nth(i).input_value() for i in range(5)] == ["0", "3", "4", "3", "3"]
        for index, value in ((1, "32"), (2, "16"), (3, "16"), (4, "16")):
            sizes.nth(index).fill(value)
            sizes.nth(index).press("Enter")
            page.wait_for_timeout(500)
            wait_until_idle(page)
        page.wait_for_function("() => document.body.innerText.includes('32 × 32')", timeout=60000)
        page.wait_for_timeout(1000)  # charts draw after the script has finished
        fits = charts_fit(page)
        assert len(fits) == 7 and all(chart <= column for chart, column in fits), fits
        shot = tmp_path / "playground-32.png"
        page.screenshot(path=str(shot))
        assert_rendered(shot)


def type_into(page, grid_index: int, dx: float, dy: float, text: str) -> str:
    """Double-click a cell of the grid_index-th editor, type ``text``, press Enter; return the
    new last line of step 7 (the focused input's output) once the page has recomputed."""
    grid = page.locator("[data-testid='stDataFrame']").nth(grid_index)
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    before = output_text(page)
    # The pointer travels over the grid before the double-click, as a person's does: the grid
    # takes a click only once it has seen the pointer move over it (see README, "Editing").
    page.mouse.move(box["x"] + dx - 20, box["y"] + dy)
    page.mouse.move(box["x"] + dx, box["y"] + dy, steps=8)
    page.mouse.dblclick(box["x"] + dx, box["y"] + dy)
    editor = page.locator("#portal input, #portal textarea").first
    editor.wait_for(timeout=10000)
    editor.fill(text)
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(old) => { const c = document.querySelectorAll('[data-testid=\"stMain\"] [data-testid=\"stCode\"]');"
        " return c.length && c[c.length - 1].innerText !== old; }", arg=before, timeout=30000)
    wait_until_idle(page)
    return output_text(page).splitlines()[-1]


def test_an_edit_back_to_the_original_value_sticks_and_editors_switch_at_once():
    """Streamlit issue 7749: an editor fed its own output forgot an edit back to the original
    value. Each edit here must show in the outputs, in X and then straight away in W_q."""
    with streamlit_server() as url, chromium_page(width=1024, height=1600) as page:
        page.goto(f"{url}/playground")
        page.wait_for_selector("[data-testid='stDataFrame'] canvas", timeout=60000)
        wait_until_idle(page)
        assert output_text(page).splitlines()[-1] == "= [1.93662, 6.68311, 1.59507]"
        assert type_into(page, 0, 96, 52, "5") == "= [1.00005, 9.99991, 2.99986]"
        assert type_into(page, 0, 96, 52, "1") == "= [1.93662, 6.68311, 1.59507]"  # back to the tutorial
        # W_q's first cell (q1 of x1) from 1 to 0: q1 = [0, 0, 2] -> output 1 is exactly computable
        line = type_into(page, 1, 60, 52, "0")
        example = tutorial_example()
        w_q = example.w_q.copy()
        w_q[0, 0] = 0
        out = self_attention(example.x, w_q, example.w_k, example.w_v, scale=False).outputs[0]
        assert line == "= [" + ", ".join(f"{v:.6g}" for v in out) + "]"
        # All three weight editors show every column at a projector's 1024 px: none is cut off.
        widths = page.evaluate("""() => [...document.querySelectorAll("[data-testid='stDataFrame']")].slice(1, 4)
            .map(el => [Math.round(el.scrollWidth), Math.round(el.clientWidth)])""")
        assert all(scroll <= client for scroll, client in widths), widths
        assert page.locator("[data-testid='stException']").count() == 0


def test_a_double_tap_edits_a_cell_on_a_tablet():
    from playwright.sync_api import sync_playwright

    from tests.browser import CHROMIUM, CHROMIUM_ARGS

    with streamlit_server() as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_context(viewport={"width": 768, "height": 1400}, has_touch=True,
                                       is_mobile=True).new_page()
            page.goto(f"{url}/playground")
            page.wait_for_selector("[data-testid='stDataFrame'] canvas", timeout=60000)
            wait_until_idle(page)
            box = page.locator("[data-testid='stDataFrame']").first.bounding_box()
            x, y = box["x"] + 96, box["y"] + 52  # x1 of Input 1
            page.touchscreen.tap(x, y)
            page.wait_for_timeout(80)
            page.touchscreen.tap(x, y)
            editor = page.locator("#portal input, #portal textarea").first
            editor.wait_for(timeout=10000)
            editor.fill("5")
            page.keyboard.press("Enter")
            page.wait_for_function("() => document.body.innerText.includes('= [1.00005, 9.99991, 2.99986]')",
                                   timeout=30000)
        finally:
            browser.close()
