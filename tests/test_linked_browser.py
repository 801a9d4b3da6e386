"""The Playground's step maps, linked in a real Chromium: pointing at a weight lights up its query, key,
value and output rows in every map at once, in the browser alone (no message to the server, by the
next animation frame), a tap does the same on a tablet, and a click on a query's row makes it the
focus of steps 4-7. At desktop (1400 px), projector (1024 px) and tablet (768 px) widths, and at 32 tokens.

Each map is one component element (key ``map_<name>``) holding a table in an open shadow root: a cell
(i, j) is the ``td`` of body row i, column j; Playwright's CSS pierces the shadow root.
"""

import pytest
from tests.browser import linked_maps, map_row_head, map_td, release, tab, wait_until_idle, whole_rows


pytestmark = pytest.mark.browser

N = 3  # the tutorial's example: 3 tokens, d_k = d_v = 3
WIDTHS = (1400, 1024, 768)
LINKED = ("queries", "keys", "values", "scores", "weights", "outputs")  # the maps without scaling or a mask

MAPS = linked_maps("")  # every map on the page (tests/browser.py): its lit cells, row headers' classes, rows

# Counts every message the page sends on a websocket (Streamlit's one), from before the app loads.
COUNT_SENDS = """(() => {
    window.__sent = 0;
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (...args) { window.__sent += 1; return send.apply(this, args); };
})();"""


def td(name: str, i: int, j: int) -> str:
    return map_td("", name, i, j)


def row_head(name: str, i: int) -> str:
    return map_row_head("", name, i)


def lit(page) -> dict[str, list[list[int]]]:
    return {name: m["lit"] for name, m in page.evaluate(MAPS).items()}


def open_maps(page, url: str, query: str = "", n: int = N) -> None:
    page.goto(f"{url}/playground{query}")
    page.wait_for_selector(td("outputs", n - 1, 0), timeout=120000)
    wait_until_idle(page, timeout_ms=120000)
    page.wait_for_function("(n) => document.body.innerText.includes(`${n} × ${n}`)", arg=n, timeout=60000)
    assert isinstance(page.evaluate("window.__sent"), int)  # the page counts what it sends


def wait_lit(page, name: str, i: int, j: int) -> None:
    """Wait (a few seconds at most) until cell (i, j) of map ``name`` is lit."""
    page.wait_for_function("""([name, i, j]) => document.querySelector(`[class*='st-key-map_${name}'] [data-testid='stBidiComponentIsolated']`)
        ?.shadowRoot?.querySelectorAll('tbody tr')[i]?.querySelectorAll('td')[j]?.classList.contains('lit')""",
                           arg=[name, i, j], timeout=5000)


_COUNTING: list = []  # the pages COUNT_SENDS was added to (an init script stays with its page), held


@pytest.fixture
def new_page(browser):
    """The module's tab at a width (tests/browser.py's tab: a new context costs Chromium a renderer and Streamlit's
    frontend compiled again, about 2 s of CPU), or with ``options`` (touch) a context of its own; each counts the
    messages it sends from before the app loads."""
    pages, contexts = [], []

    def make(width: int = 1400, height: int = 1200, **options):
        if options:
            context = browser.new_context(viewport={"width": width, "height": height}, **options)
            contexts.append(context)
            page = context.new_page()
        else:
            page = tab(browser, width, height)
            pages.append(page)
        if not any(counting is page for counting in _COUNTING):
            page.add_init_script(COUNT_SENDS)
            _COUNTING.append(page)
        return page

    yield make
    for page in pages:
        release(page)
    for context in contexts:
        context.close()


def expected_for_weight(i: int, j: int, cols: int = N) -> dict[str, list[list[int]]]:
    """Weight (i, j): Q and output row i, K and V row j, that one score and weight."""
    return {"queries": whole_rows([i], cols), "keys": whole_rows([j], cols), "values": whole_rows([j], cols),
            "scores": [[i, j]], "weights": [[i, j]], "outputs": whole_rows([i], cols), "weighted_values_1": []}


@pytest.mark.parametrize("width", WIDTHS)
def test_pointing_at_a_weight_lights_up_its_rows_in_every_map_without_a_message(new_page, url, width):
    page = new_page(width)
    open_maps(page, url)
    maps = page.evaluate(MAPS)
    assert set(maps) == {*LINKED, "weighted_values_1"}, sorted(maps)
    assert all(m["lit"] == [] for m in maps.values())
    page.wait_for_timeout(500)
    before = page.evaluate("window.__sent")
    assert before >= 1  # the hook counts Streamlit's own messages

    # Weight (query 2, key 3): exactly Q row 2, K and V row 3, that score and weight, output row 2.
    page.hover(td("weights", 1, 2))
    wait_lit(page, "queries", 1, 0)
    assert lit(page) == expected_for_weight(1, 2)
    page.hover(td("scores", 2, 0))  # another cell, from another map: the old lights go
    wait_lit(page, "queries", 2, 0)
    assert lit(page) == expected_for_weight(2, 0)

    # Output row 1: its weights row and the values it mixed (no mask: all of them); that query.
    page.hover(td("outputs", 0, 1))
    wait_lit(page, "weights", 0, 0)
    got = lit(page)
    assert got["weights"] == whole_rows([0], N) and got["values"] == whole_rows(range(N), N), got
    assert got["queries"] == whole_rows([0], N) and got["outputs"] == whole_rows([0], N), got
    assert got["keys"] == whole_rows(range(N), N), got  # the keys its weights came from
    assert got["weighted_values_1"] == whole_rows(range(N), N), got  # output 1 is the focus: all it added

    # A key row: that column of scores and weights, the value row of the same token.
    page.hover(td("keys", 1, 0))
    wait_lit(page, "values", 1, 0)
    got = lit(page)
    assert got["scores"] == [[r, 1] for r in range(N)] and got["weights"] == [[r, 1] for r in range(N)], got
    assert got["values"] == whole_rows([1], N) and got["queries"] == [] and got["outputs"] == [], got

    page.mouse.move(2, 2)  # off the maps: nothing lit
    page.wait_for_function(f"() => !({MAPS})().weights.lit.length", timeout=5000)
    assert all(cells == [] for cells in lit(page).values())

    # How soon: a pointer event on weight (3, 1); the next animation frame has Q's row 3 and V's row 1 lit.
    frames = page.evaluate(FRAMES_TO_LIGHT, [["map_weights", 2, 0], "map_queries", "map_values"])
    assert frames == 1, frames  # drawn by the very next frame: no round trip to the server
    page.wait_for_timeout(500)
    assert page.evaluate("window.__sent") == before, "pointing at the maps sent a message to the server"


# Dispatch a pointerover on the cell ``target`` (inside its shadow root) as a mouse does; resolve with the
# number of animation frames until row 3 of map ``q`` and row 1 of map ``v`` hold td.lit (31: never).
FRAMES_TO_LIGHT = """([target, q, v]) => new Promise(resolve => {
    const shadow = key => document.querySelector(`[class*='st-key-${key}'] [data-testid='stBidiComponentIsolated']`).shadowRoot;
    const cell = shadow(target[0]).querySelectorAll('tbody tr')[target[1]].querySelectorAll('td')[target[2]];
    const box = cell.getBoundingClientRect();
    cell.dispatchEvent(new PointerEvent('pointerover', {bubbles: true, composed: true, pointerType: 'mouse',
        clientX: box.x + box.width / 2, clientY: box.y + box.height / 2, pointerId: 1}));
    let frames = 0;
    const check = () => {
        frames += 1;
        const ok = shadow(q).querySelectorAll('tbody tr:nth-child(3) td.lit').length > 0
                && shadow(v).querySelectorAll('tbody tr:nth-child(1) td.lit').length > 0;
        if (ok || frames > 30) resolve(ok ? frames : 31); else requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
})"""


def test_an_output_row_under_the_causal_mask_lights_only_the_values_it_mixed(new_page, url):
    page = new_page(1024)
    open_maps(page, url)
    page.locator(".st-key-pg_causal label").click()  # the mask's toggle, as a visitor flips it
    page.wait_for_selector(td("scaled_scores", N - 1, 0), timeout=60000)
    wait_until_idle(page)
    masked = page.locator(td("scaled_scores", 0, 2)).text_content()
    assert masked == "−∞", masked
    before = page.evaluate("window.__sent")
    for i in range(N):
        page.hover(td("outputs", i, 0))
        wait_lit(page, "weights", i, 0)
        got = lit(page)
        assert got["weights"] == whole_rows([i], N), (i, got)
        assert got["values"] == whole_rows(range(i + 1), N), (i, got)  # j <= i only
        assert got["keys"] == whole_rows(range(i + 1), N), (i, got)
        assert got["queries"] == whole_rows([i], N) and got["outputs"] == whole_rows([i], N), (i, got)
    page.hover(td("weights", 2, 1))  # a weight under the mask lights up as without it, the scaled score too
    wait_lit(page, "scaled_scores", 2, 1)
    assert lit(page) == {**expected_for_weight(2, 1), "scaled_scores": [[2, 1]]}
    page.wait_for_timeout(300)
    assert page.evaluate("window.__sent") == before


def test_a_tap_on_a_tablet_lights_the_same_rows_and_a_second_tap_picks(new_page, url):
    """A tap lights up what pointing would, and stays (nothing is sent); a second tap on the same cell is
    the click that makes its query the focus, and the lights stay through that rerun."""
    page = new_page(768, 1400, has_touch=True, is_mobile=True)
    open_maps(page, url)
    before = page.evaluate("window.__sent")
    page.locator(td("weights", 1, 2)).tap()
    wait_lit(page, "queries", 1, 0)
    assert lit(page) == expected_for_weight(1, 2)  # the focus (token 1) added nothing of key 3 for query 2
    page.wait_for_timeout(500)
    assert page.evaluate("window.__sent") == before and focus_box(page) == "1: Input 1"  # lit, not picked
    page.locator(td("weights", 1, 2)).tap()  # the same cell again: query 2 becomes the focus (one rerun)
    page.wait_for_function("() => [...document.querySelectorAll('[data-testid=\"stSelectbox\"] input')]"
                           ".some(e => e.value === '2: Input 2')", timeout=30000)
    wait_until_idle(page)
    page.wait_for_timeout(1000)
    got = lit(page)
    assert {k: v for k, v in got.items() if not k.startswith("weighted")} == \
        {k: v for k, v in expected_for_weight(1, 2).items() if not k.startswith("weighted")}, got
    assert got["weighted_values_2"] == whole_rows([2], N), got  # the focus's own map: the value row it added


def test_the_keyboard_reaches_each_map_once_and_a_row_lights_up_and_picks(new_page, url):
    """Tab reaches a map's row names (one stop a map); arrows move, the focused row lights up as a
    pointed-at one does, Enter on a query's row makes that token the focus."""
    page = new_page(1400, 1400)
    open_maps(page, url)
    stops = page.evaluate("""() => [...document.querySelectorAll("[class*='st-key-map_'] [data-testid='stBidiComponentIsolated']")]
        .map((host) => host.shadowRoot.querySelectorAll("tbody th[tabindex='0']").length)""")
    assert stops == [1] * 7, stops
    page.locator(row_head("outputs", 0)).focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")  # output row 3: its weights row, the V rows it mixed
    wait_lit(page, "outputs", 2, 0)
    assert lit(page)["weights"] == whole_rows([2], N) and lit(page)["queries"] == whole_rows([2], N)
    page.keyboard.press("Enter")
    page.wait_for_function("() => [...document.querySelectorAll('[data-testid=\"stSelectbox\"] input')]"
                           ".some(e => e.value === '3: Input 3')", timeout=30000)


def focus_box(page) -> str:
    """What the focus selectbox of steps 4-7 shows."""
    return page.locator("[data-testid='stSelectbox']").filter(has_text="Focus on token").locator("input").input_value()


@pytest.mark.parametrize("name, header", [("weights", False), ("outputs", True)])
def test_a_click_on_a_query_row_makes_that_token_the_focus(new_page, url, name, header):
    """Clicking weight (query 3, key 1), or the row header of output 3, picks token 3: the focus box of
    steps 4-7 shows it, step 4 is about its query, and every map marks row 3 as the focus."""
    page = new_page(1400, 1400)
    open_maps(page, url)
    assert "The query of “Input 1”" in page.inner_text("body") and focus_box(page) == "1: Input 1"
    assert [[r for r, h in enumerate(m["heads"]) if "focus" in h.split()] for m in page.evaluate(MAPS).values()] == [[0]] * 7
    before = page.evaluate("window.__sent")
    page.locator(row_head(name, 2) if header else td(name, 2, 0)).click()
    page.wait_for_function("() => document.body.innerText.includes('The query of “Input 3”')", timeout=30000)
    wait_until_idle(page)
    assert page.evaluate("window.__sent") > before  # this one is a message: the page reruns
    assert focus_box(page) == "3: Input 3"
    text = page.inner_text("body")
    assert "The query of “Input 3”" in text and "q3·k1 = " in text
    maps = page.evaluate(MAPS)
    assert set(maps) == {*LINKED, "weighted_values_3"}, sorted(maps)
    for key, m in maps.items():
        assert [r for r, h in enumerate(m["heads"]) if "focus" in h.split()] == [2], (key, m["heads"])


def test_the_maps_draw_and_link_at_32_tokens(new_page, url):
    page = new_page(1024, 1200)
    open_maps(page, url, "?size=32.16.16.16", n=32)
    maps = page.evaluate(MAPS)
    assert {k: m["n"] for k, m in maps.items()} == {k: 32 for k in (*LINKED, "weighted_values_1")}
    cells = page.evaluate("""() => [...document.querySelectorAll("[class*='st-key-map_']")]
        .map(el => el.querySelector("[data-testid='stBidiComponentIsolated']")?.shadowRoot?.querySelectorAll('td').length)""")
    assert sorted(cells) == sorted([32 * 16] * 3 + [32 * 32] * 2 + [32 * 16] * 2), cells  # Q K V, S W, wv, out
    before = page.evaluate("window.__sent")
    page.hover(td("weights", 20, 5))
    wait_lit(page, "queries", 20, 0)
    got = lit(page)
    assert got["queries"] == whole_rows([20], 16) and got["outputs"] == whole_rows([20], 16), got
    assert got["keys"] == whole_rows([5], 16) and got["values"] == whole_rows([5], 16), got
    assert got["scores"] == [[20, 5]] and got["weights"] == [[20, 5]], got
    page.hover(td("outputs", 31, 15))
    wait_lit(page, "weights", 31, 0)
    got = lit(page)
    assert got["weights"] == whole_rows([31], 32) and got["queries"] == whole_rows([31], 16), got
    mixed = page.evaluate("""() => [...document.querySelector("[class*='st-key-map_weights'] [data-testid='stBidiComponentIsolated']")
        .shadowRoot.querySelectorAll('tbody tr')[31].querySelectorAll('td')].map((td, j) => parseFloat(td.textContent) !== 0 ? j : -1)
        .filter(j => j >= 0)""")
    assert mixed and got["values"] == whole_rows(mixed, 16), (mixed, got["values"][:5])
    page.wait_for_timeout(300)
    assert page.evaluate("window.__sent") == before
