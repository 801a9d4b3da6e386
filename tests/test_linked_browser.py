"""The Playground's linked view in a real Chromium: pointing at a weight lights up its query, key,
value and output rows at once, in the browser alone (no message to the server), and the chart
fits its column at desktop, projector and tablet widths."""

import pytest

from tests.browser import charts_fit, chromium_page, streamlit_server, wait_until_idle

pytestmark = pytest.mark.browser

N = 3  # the tutorial's example: 3 tokens, d_k = d_v = 3, so every panel has 9 cells
PANEL = {name: m * N * N for m, name in enumerate(("queries", "keys", "values", "scores", "weights", "outputs"))}
LINKED = "[data-testid='stVegaLiteChart']:has(g.layer_7_marks)"  # the one chart with an 8th (pointer) layer
HIT = f"{LINKED} g.layer_7_marks path"  # one path per cell, in the order of the cell records
LIT = f"{LINKED} g.layer_6_marks path"  # one path per cell that lights up
CANVAS = "[data-testid='stVegaLiteChart']:has(canvas)"


def lit(page) -> list[int]:
    """Cells whose highlight is drawn, by record number (Vega's SVG keeps each item on its element)."""
    return sorted(page.evaluate("(sel) => [...document.querySelectorAll(sel)].map(p => p.__data__.datum.k)", LIT))


def cells(panel: str, rows=range(N), cols=range(N)) -> list[int]:
    return [PANEL[panel] + r * N + c for r in rows for c in cols]


def test_pointing_at_a_weight_lights_up_its_rows_without_a_server_round_trip():
    sent: list[int] = []
    with streamlit_server() as url, chromium_page(height=1400) as page:
        page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(len(payload))))
        page.goto(f"{url}/playground")
        page.wait_for_selector(HIT, timeout=60000)
        wait_until_idle(page)
        page.locator(LINKED).scroll_into_view_if_needed()
        assert page.locator(HIT).count() == 6 * N * N and lit(page) == []
        page.wait_for_timeout(500)
        before = len(sent)

        # Weight (query 2, key 3): Q row 2, K and V rows 3, that score and weight, output row 2.
        page.locator(HIT).nth(PANEL["weights"] + 1 * N + 2).hover()
        page.wait_for_function("(sel) => document.querySelectorAll(sel).length > 0", arg=LIT, timeout=2000)
        assert lit(page) == sorted([*cells("queries", [1]), *cells("keys", [2]), *cells("values", [2]),
                                    PANEL["scores"] + 1 * N + 2, PANEL["weights"] + 1 * N + 2,
                                    *cells("outputs", [1])])

        # Output row 1: its weights and the values it mixed (no mask: all of them).
        page.locator(HIT).nth(PANEL["outputs"]).hover()
        page.wait_for_timeout(100)
        assert lit(page) == sorted([*cells("queries", [0]), *cells("values"), *cells("scores", [0]),
                                    *cells("weights", [0]), *cells("outputs", [0])])

        # Key row 2: the scores' and weights' column 2 and V row 2.
        page.locator(HIT).nth(PANEL["keys"] + 1 * N).hover()
        page.wait_for_timeout(100)
        assert lit(page) == sorted([*cells("keys", [1]), *cells("values", [1]), *cells("scores", cols=[1]),
                                    *cells("weights", cols=[1])])

        page.mouse.move(2, 2)  # off the chart: nothing lit
        page.wait_for_timeout(200)
        assert lit(page) == []

        # How soon: a pointer event on a weight, then count the animation frames until Q's row is lit.
        frames, ms = page.evaluate(FRAMES_TO_LIGHT, [HIT, LIT, PANEL["weights"] + 2 * N, PANEL["queries"] + 2 * N])
        print(f"highlight drawn after {frames} animation frame(s), {ms:.1f} ms")
        assert frames <= 2, (frames, ms)  # the next frame (one more on a loaded machine), never a rerun
        assert len(sent) == before, "pointing at the chart sent a message to the server"


# Dispatch a pointer event on cell ``target``'s path as a mouse would; resolve with the number of
# animation frames (and milliseconds) until cell ``watch`` is drawn in the highlight layer.
FRAMES_TO_LIGHT = """([sel, litSel, target, watch]) => new Promise(resolve => {
    const paths = document.querySelectorAll(sel), cell = paths[target], box = cell.getBoundingClientRect();
    const at = {bubbles: true, clientX: box.x + box.width / 2, clientY: box.y + box.height / 2, pointerId: 1};
    const start = performance.now();
    cell.dispatchEvent(new PointerEvent('pointerover', at));
    cell.dispatchEvent(new PointerEvent('pointermove', at));
    let frames = 0;
    const check = () => {
        frames += 1;
        const lit = [...document.querySelectorAll(litSel)].map(p => p.__data__.datum.k);
        if (lit.includes(watch) || frames > 30) {
            resolve([frames, performance.now() - start]);
        } else {
            requestAnimationFrame(check);
        }
    };
    requestAnimationFrame(check);
})"""


def test_the_linked_view_fits_its_column_at_n12_d16_and_lights_up_on_its_canvas():
    """The largest linked view (12 tokens of 16 dimensions, drawn on a canvas) at 1400, 1024 and 768 px:
    every chart, the linked view included, within its column; pointing at a weight changes the pixels of Q."""
    from io import BytesIO

    from PIL import Image, ImageChops

    with streamlit_server() as url, chromium_page(width=1400, height=1000) as page:
        page.goto(f"{url}/playground?size=12.16.16.16")
        page.wait_for_function("() => document.body.innerText.includes('12 × 12')", timeout=120000)
        wait_until_idle(page, timeout_ms=120000)
        page.wait_for_function("() => document.querySelectorAll(\"[data-testid='stVegaLiteChart'] canvas, "
                               "[data-testid='stVegaLiteChart'] svg\").length >= 8", timeout=60000)
        chart = page.locator(CANVAS).last
        for width in (1400, 1024, 768):
            page.set_viewport_size({"width": width, "height": 1000})
            page.wait_for_timeout(1500)
            fits = charts_fit(page)
            assert len(fits) >= 8 and all(drawn <= column + 1 for drawn, column in fits), (width, fits)
        chart.scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        box = chart.locator("canvas").bounding_box()
        shot = lambda: Image.open(BytesIO(chart.locator("canvas").screenshot())).convert("RGB")
        page.mouse.move(1, 1)
        page.wait_for_timeout(300)
        before = shot()
        # The middle of the second row of panels is the weights map (scores | weights | outputs).
        page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.75)
        page.wait_for_timeout(300)
        after = shot()
        top = (0, 0, before.width, before.height // 2)  # Q, K and V
        assert ImageChops.difference(before.crop(top), after.crop(top)).getbbox() is not None


def test_a_click_on_a_weights_row_makes_that_token_the_focus_of_steps_4_to_7():
    """Clicking weight (query 3, key 1) picks token 3: one fragment rerun, and the focus box, the step-4 line
    and the caption under the chart name it (hovering alone sent nothing, above)."""
    with streamlit_server() as url, chromium_page(height=1400) as page:
        page.goto(f"{url}/playground")
        page.wait_for_selector(HIT, timeout=60000)
        wait_until_idle(page)
        page.locator(LINKED).scroll_into_view_if_needed()
        assert "now: 1: “Input 1”" in page.inner_text("body")
        page.locator(HIT).nth(PANEL["weights"] + 2 * N).click()
        page.wait_for_function("() => document.body.innerText.includes('now: 3: “Input 3”')", timeout=30000)
        wait_until_idle(page)
        text = page.inner_text("body")
        assert "The query of “Input 3”" in text and "q3·k1 = " in text
