"""The step maps' preview in a real Chromium: the browser works the steps out the moment a cell is
committed (ui/components/attention.js, the second implementation of the steps, which the maps of
ui/components/heatmap.js draw) and the server's numbers, which follow, must say the same.

attention.js is checked against the core library (itself checked against torch), as the page
loaded it: its number format (mapText) to the last character over 60,000 values with exact ties,
and every step (stepCells) of random examples with and without scaling, mask, biases and positions."""

import json
import math
import random

import numpy as np
import pytest

from selfattn import self_attention
from selfattn.core.positions import positional_encoding
from support.apptest import four_digits
from selfattn.display.numbers import map_text
from tests.browser import browser_page, wait_until_idle

pytestmark = pytest.mark.browser

MAPS = "[class*='st-key-map_outputs'] [data-testid='stBidiComponentIsolated']"
X_CELLS = "[class*='st-key-pged_x'] input"


def outputs_cells(page) -> list[list[str]]:
    """The outputs map's cells as written (textContent: a map below the window is not laid out)."""
    return page.evaluate("""(selector) => [...document.querySelector(selector).shadowRoot.querySelectorAll("tbody tr")]
        .map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent))""", MAPS)


written = map_text  # what the server writes in a map's cell

@pytest.fixture(scope="module")
def page(url, browser):
    with browser_page(browser) as page:
        page.goto(f"{url}/playground")
        page.wait_for_selector(MAPS, timeout=60000)
        wait_until_idle(page)
        page.wait_for_function("() => !!window.selfattnMaps && !!window.selfattnAttention", timeout=30000)
        yield page


def test_numbers_are_written_as_the_server_and_decimal_write_them_ties_included(page):
    """The browser's number format, the server's and one worked out with Python's decimal agree on
    60,000 values: exact ties, both ends of the float range, and sums that land either side of a tie."""
    rng = random.Random(7)
    values = [12345, 12355, 0.5, 1.0005, 99995, 9.9995, 0.00125, 2.5e-5, -0.0, 1e21, 6.034e-06, 0.0001, 9999.5,
              9998.5, 1234.5, 1235.5, -12345, 5e-324, 1e308, 1 / 3, -math.inf, -3.7504999999999997,
              -3.7505000000000002, 0.99995, 999950000]
    for _ in range(20000):
        values += [rng.choice([-1, 1]) * rng.random() * 10 ** rng.randint(-12, 12), rng.randint(-10**5, 10**5),
                   rng.randint(-99999, 99999) / rng.choice([2, 4, 8, 16, 1024])]
    shown = page.evaluate("(vals) => vals.map((v) => window.selfattnAttention.mapText(v === null ? -Infinity : v))",
                          [None if v == -math.inf else v for v in values])
    wrong = [(v, s, written(v), four_digits(v)) for v, s in zip(values, shown) if not s == written(v) == four_digits(v)]
    assert not wrong, wrong[:5]


def random_case(rng: random.Random) -> dict:
    n, d, dk, dv = rng.randint(1, 6), rng.randint(1, 5), rng.randint(1, 5), rng.randint(1, 5)
    number = lambda: rng.choice([f"{rng.uniform(-3, 3):.3f}", str(rng.randint(-9, 9)), f"{rng.uniform(-1, 1):.2e}",
                                 f"{rng.uniform(-20, 20):.6g}"])
    table = lambda rows, cols: [[number() for _ in range(cols)] for _ in range(rows)]
    return {"x": [[f"t{i}", *row] for i, row in enumerate(table(n, d))], "w_q": table(d, dk), "w_k": table(d, dk),
            "w_v": table(d, dv), "b_q": table(1, dk), "b_k": table(1, dk), "b_v": table(1, dv),
            "scale": rng.random() < 0.5, "causal": rng.random() < 0.5, "bias": rng.random() < 0.5,
            "focus": rng.randrange(n),
            "pe": positional_encoding(n, d, rng.choice(["sinusoidal", "learned"]), rng.randrange(100)).tolist()
            if rng.random() < 0.5 else None}


def test_every_step_of_the_preview_is_what_the_server_shows(page):
    """200 random examples (scale, mask, biases and positions each on or off): each step's cells, as the
    browser works them out, equal the core library's trace written as the maps write it; so a preview
    never differs from the numbers that follow."""
    rng = random.Random(22)
    cases = [random_case(rng) for _ in range(200)]
    got = page.evaluate("""(cases) => cases.map((c) => {
        const tables = {};
        for (const name of ["x", "w_q", "w_k", "w_v", "b_q", "b_k", "b_v"])
          tables[name] = {cells: c[name], labels: c[name][0].map((_, j) => name === "x" && j === 0)};
        return window.selfattnAttention.stepCells(tables, {scale: c.scale, causal: c.causal, bias: c.bias, pe: c.pe}, c.focus);
    })""", cases)
    for case, steps in zip(cases, got):
        m = {name: np.array(case[name], dtype=object) for name in ("w_q", "w_k", "w_v", "b_q", "b_k", "b_v")}
        x = np.array([[float(v) for v in row[1:]] for row in case["x"]])
        if case["pe"] is not None:  # X + PE, the position vectors sent exactly as JSON numbers
            x = x + np.array(case["pe"])
        biases = {name: m[name][0].astype(float) for name in ("b_q", "b_k", "b_v")} if case["bias"] else {}
        trace = self_attention(x, m["w_q"].astype(float), m["w_k"].astype(float), m["w_v"].astype(float),
                               scale=case["scale"], mask="causal" if case["causal"] else None, **biases)
        expected = {"q": trace.queries, "k": trace.keys, "v": trace.values, "scores": trace.scores,
                    "scaled": trace.scaled_scores, "weights": trace.weights,
                    "wv": trace.weighted_values[case["focus"]], "out": trace.outputs}
        assert steps is not None, case
        for link, matrix in expected.items():
            assert steps[link]["cells"] == [[written(float(v)) for v in row] for row in matrix], (link, case)


def test_an_edit_shows_in_the_maps_before_the_server_answers_and_the_answer_changes_nothing(page):
    page.evaluate("""(selector) => {
        window.__changed = [];
        const outputs = document.querySelector(selector).shadowRoot;
        new MutationObserver(() => window.__changed.push(performance.now()))
            .observe(outputs, {subtree: true, childList: true, characterData: true});
    }""", MAPS)
    cell = page.locator(X_CELLS).nth(1)  # Input 1, x1
    cell.click()
    before = outputs_cells(page)
    page.keyboard.type("5")
    t0 = page.evaluate("() => performance.now()")
    page.keyboard.press("Enter")
    shown_at_once = outputs_cells(page)
    assert shown_at_once != before  # drawn by the preview, in the Enter's own task: before any answer could come
    wait_until_idle(page)
    page.wait_for_timeout(500)
    after = outputs_cells(page)
    assert after == shown_at_once  # the server's numbers are the preview's
    changes = page.evaluate("() => window.__changed")
    assert len(changes) == 1 and changes[0] >= t0, changes  # drawn once: the server's answer redrew nothing
    x = np.array([[5, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]], dtype=float)
    w_q = np.array([[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]], dtype=float)
    w_k = np.array([[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]], dtype=float)
    w_v = np.array([[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]], dtype=float)
    out = self_attention(x, w_q, w_k, w_v, scale=False).outputs
    assert after == [[written(v) for v in row] for row in out]
    cell.click()
    page.keyboard.type("1")  # back to the tutorial's 1, for the tests after this one
    page.keyboard.press("Enter")
    wait_until_idle(page)


ERROR = "[data-testid='stAlertContentError']"


@pytest.mark.parametrize("typed", ["abc", "1,5", "1e400", "nan"])
def test_a_cell_that_is_not_a_plain_number_is_not_previewed(page, typed):
    """Only the server says what is wrong with a cell: the maps keep their numbers until it answers
    (and then keep the last good ones)."""
    cell = page.locator(X_CELLS).nth(2)  # Input 1, x2
    before = outputs_cells(page)
    cell.click()
    page.keyboard.type(typed)
    page.keyboard.press("Enter")
    assert outputs_cells(page) == before
    # the server's answer, waited for as what it shows (a run not started yet shows no running indicator)
    page.wait_for_function(f"() => document.querySelector({ERROR!r})", timeout=60_000)
    wait_until_idle(page)
    assert outputs_cells(page) == before
    cell.click()
    page.keyboard.type("0")  # back to the tutorial's 0
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => !document.querySelector({ERROR!r})", timeout=60_000)  # the tests after this one
    wait_until_idle(page)


def test_every_value_written_in_a_map_reads_at_a_contrast_of_4_5_or_more(page):
    """WCAG AA for text: each cell's value against its own colour, black or white as the map chose."""
    # Every map drawn, and read in the same task as that check: the browser mounts the components after the run has
    # ended, later still on a busy machine. A wait, then a read in a second call, once found 60 cells drawn and then
    # read 27: the maps changed between the two calls (a whole run, 2-core VM, 2026-11-30).
    ratios = page.wait_for_function("""() => {
        const hosts = [...document.querySelectorAll("[class*='st-key-map_'] [data-testid='stBidiComponentIsolated']")];
        const cells = hosts.map((h) => h.shadowRoot ? [...h.shadowRoot.querySelectorAll("td")] : []);
        if (!cells.every((tds) => tds.length) || cells.flat().length < 60) return null;
        const lum = (rgb) => {
            const [r, g, b] = rgb.match(/[\\d.]+/g).slice(0, 3).map(Number).map((v) => {
                v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
            return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        };
        return cells.flat().map((td) => {
            const style = getComputedStyle(td);
            const [a, b] = [lum(style.color), lum(style.backgroundColor)].sort((x, y) => y - x);
            return [(a + 0.05) / (b + 0.05), td.textContent];
        });
    }""", timeout=30000).json_value()
    assert len(ratios) >= 60
    low = [(round(r, 2), text) for r, text in ratios if r < 4.5]
    assert not low, low


def test_the_ink_chosen_for_any_colour_of_any_scheme_reads_at_4_5_or_more(page):
    """Every colour a map can give a cell (each scheme's stops, 501 points along the ramp) with the ink
    the map chooses for it: a contrast ratio of at least 4.5 (WCAG AA)."""
    from selfattn.display import colours

    worst = page.evaluate("""(ramps) => {
        const lum = (rgb) => rgb.map((v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
            .reduce((sum, v, k) => sum + [0.2126, 0.7152, 0.0722][k] * v, 0);
        let worst = 21;
        for (const stops of ramps) {
            const rgb = stops.map(window.selfattnMaps.hexRgb);
            for (let k = 0; k <= 500; k++) {
                const [fill, white] = window.selfattnMaps.colourAt(rgb, k / 500);
                const y = lum(fill.match(/\\d+/g).map(Number)), ink = white ? 1 : 0;
                worst = Math.min(worst, (Math.max(y, ink) + 0.05) / (Math.min(y, ink) + 0.05));
            }
        }
        return worst;
    }""", [list(stops) for stops in colours.STOPS.values()])
    assert worst >= 4.5, worst


def test_maps_draw_after_a_link_that_opened_with_no_good_result(page):
    """A link whose only numbers have a bad cell opens with no maps (nothing good to show yet); fixing
    the cell reruns only the steps, and the maps draw: their code came with the page, not the steps."""
    cell = page.locator(X_CELLS).nth(2)  # Input 1, x2
    cell.click()
    page.keyboard.type("abc")
    page.keyboard.press("Enter")
    wait_until_idle(page)
    page.wait_for_function("() => location.search.includes('abc')", timeout=30000)
    context = page.context.browser.new_context(viewport={"width": 1400, "height": 1000})
    fresh = context.new_page()
    try:
        fresh.goto(page.url)
        fresh.wait_for_selector(X_CELLS, timeout=60000)
        wait_until_idle(fresh)
        assert fresh.locator("[class*='st-key-map_'] td").count() == 0  # no good result: no maps
        fresh.locator(X_CELLS).nth(2).click()
        fresh.keyboard.type("0")
        fresh.keyboard.press("Enter")
        fresh.wait_for_selector(f"{MAPS} >> css=td", timeout=30000)
        wait_until_idle(fresh)
        assert outputs_cells(fresh) == [["1.937", "6.683", "1.595"], ["2", "7.964", "0.05398"], ["2", "7.76", "0.3584"]]
    finally:
        context.close()
        cell.click()
        page.keyboard.type("0")
        page.keyboard.press("Enter")
        wait_until_idle(page)


def test_with_positions_on_an_edit_is_previewed_too_and_the_answer_agrees(page):
    """X + PE: the outputs map brings the position vectors, the preview adds them as the server does."""
    context = page.context.browser.new_context(viewport={"width": 1400, "height": 1000})
    fresh = context.new_page()
    try:
        fresh.goto(page.url.split("?")[0] + "?pos=sinusoidal")
        fresh.wait_for_selector(f"{MAPS} >> css=td", timeout=60000)
        wait_until_idle(fresh)
        before = outputs_cells(fresh)
        fresh.locator(X_CELLS).nth(1).click()
        fresh.keyboard.type("5")
        fresh.keyboard.press("Enter")
        at_once = outputs_cells(fresh)
        assert at_once != before  # previewed, in the Enter's own task
        wait_until_idle(fresh)
        fresh.wait_for_timeout(500)
        assert outputs_cells(fresh) == at_once
    finally:
        context.close()
