"""The Transformer block page (issue 32) in a real Chromium.

* Its three views (the default toy, the GPT-2 preset at 2 layers with a padded batch, the real model's layer)
  in English and Chinese, at desktop (1400 px), projector (1024 px) and tablet (768 px) widths, the GPT-2 view in
  each of the toy's parts (one layer, opened first; the stack and the batch, opened by their tabs): no exception,
  the check against PyTorch (or the model) on screen, nothing wider than the window or its box, no control or
  map text cut, no map or chart past its column or over another, no title over another piece of text.
* Its maps linked in the browser: a token's row lights up in every ``row:`` map and in each head's weights;
  a head's weight (i, j) lights up row i in the token-row maps; a click on a row makes that token the one whose
  LayerNorm is written out; an edit of X changes the layer's output and keeps the check.

One server and one Chromium serve the module; each view is loaded once, at 1400 px, and looked at again in the
same tab resized to 1024 px (the sidebar stays open, as on a projector) and to 768 px (Streamlit closes the
sidebar, as it does on a tablet's first load).
"""

from __future__ import annotations

import re

import pytest

from selfattn.block.view import PAGE_PARTS
from selfattn.i18n import t_plain
from tests.browser import (ALL_DRAWN, assert_charts_fit, assert_text_fits, click_part, hover, linked_maps, map_cells,
                           map_row_head, map_td, maps_within, settle, sidebar_open, wait_until_idle, release, tab,
                           whole_row)

pytestmark = pytest.mark.browser

HEIGHT = 1000
GPT2 = ("preset=gpt2&n=5&d=8&dff=32&layers=2&norm=pre&act=gelu_tanh&causal=1&final=1&pos=learned&batch=1"
        "&lengths=5%202%203")
VIEWS = {"toy": "", "gpt2": GPT2, "real": "source=real"}
PARTS = {"toy": PAGE_PARTS[:1], "gpt2": PAGE_PARTS, "real": PAGE_PARTS[:1]}  # the real model's layer: one section
# The maps each view's part draws at least: the toy's 11 boxes (Q, K, V three) and 2 heads; GPT-2's 13 boxes and 2
# heads, its stack's 2 layers' means and final norm (and the similarity chart), its batch's mask and 3 outputs; the
# real model's 13 boxes (its 12 heads are one chart of small maps).
MIN_MAPS = {("toy", "layer"): 12, ("gpt2", "layer"): 14, ("gpt2", "stack"): 3, ("gpt2", "batch"): 4,
            ("real", "layer"): 13}
DRAWN = {key: maps + (key[1] == "stack") for key, maps in MIN_MAPS.items()}


def check_words(view: str, lang: str) -> str:
    """The check line's words before its first number (the catalog's, markdown's backticks dropped)."""
    key = "tb.checked_model" if view == "real" else "tb.checked_torch"
    return t_plain(key, lang).split("{")[0].replace("`", "").strip()


def open_block(browser, url: str, view: str, lang: str, width: int):
    page = tab(browser, width, HEIGHT)
    query = "&".join(q for q in (f"lang={lang}", VIEWS[view]) if q)
    page.goto(f"{url}/block?{query}")
    page.wait_for_selector("[data-testid='stMain'] h1", timeout=120_000)
    page.wait_for_function(ALL_DRAWN, arg=DRAWN[view, "layer"], timeout=120_000)
    settle(page, DRAWN[view, "layer"])
    return page


def assert_laid_out(page, view: str, part: str, where: str) -> None:
    assert page.locator("[data-testid='stException']").count() == 0, where
    check = page.locator("[data-testid='stAlertContentSuccess']").filter(has_text=check_words(view, where[-2:]))
    assert check.count() >= 1, (where, "no check line")
    check.first.scroll_into_view_if_needed()
    assert check.first.is_visible(), where
    assert re.search(r"\d\.\de-\d\d", check.first.inner_text()), (where, check.first.inner_text())
    fits = assert_text_fits(page, where)
    assert len(fits) >= MIN_MAPS[view, part] and maps_within(fits), (where, fits)
    assert_charts_fit(page, where, DRAWN[view, part])


CASES = [(view, lang) for view in VIEWS for lang in ("en", "zh")]


@pytest.mark.parametrize("view, lang", CASES, ids=[f"{v}-{lang}" for v, lang in CASES])
def test_every_view_fits_desktop_projector_and_tablet(browser, url, view, lang):
    page = open_block(browser, url, view, lang, 1400)
    try:
        for part in PARTS[view]:
            if part != PAGE_PARTS[0]:
                page.set_viewport_size({"width": 1400, "height": HEIGHT})
                click_part(page, "tb", PAGE_PARTS, lang, part)
                settle(page, DRAWN[view, part])
            for width in (1400, 1024, 768):
                if width != 1400:
                    page.set_viewport_size({"width": width, "height": HEIGHT})
                    settle(page, DRAWN[view, part])
                assert sidebar_open(page) == (width >= 1024), width  # below 1024 px Streamlit closes the sidebar
                assert_laid_out(page, view, part, f"{view} {part} at {width} px, {lang}")
    finally:
        release(page)


# ── The maps, linked ──────────────────────────────────────────────────────────────────────────────────

MAPS, CELLS = linked_maps("tb_"), map_cells("tb_")  # every map of the block; one map's cells (tests/browser.py)


def cells(page, key: str) -> list[list[str]]:
    return page.evaluate(CELLS, key)


def maps(page) -> dict:
    return page.evaluate(MAPS)


def row_head(key: str, i: int) -> str:
    return map_row_head("tb_", key, i)


def td(key: str, i: int, j: int) -> str:
    return map_td("tb_", key, i, j)


# The layer's token-row maps (link "row:<step>") and its heads' weights (link "att:<h>"), by key.
STEPS = ("input", "norm1", "q", "k", "v", "concat", "projected", "residual1", "norm2", "ff_pre", "ff_act", "ff_out",
         "residual2")  # pre-LN: ⑬ residual2 is the layer's output


def test_maps_light_up_together_a_click_picks_the_token_and_an_edit_recomputes(browser, url):
    page = open_block(browser, url, "gpt2", "en", 1400)
    try:
        found = maps(page)
        rows = [f"layer1_{s}" for s in STEPS]  # the final norm is the stack's part
        heads = ["layer1_att1", "layer1_att2"]
        assert set(rows + heads) <= set(found), sorted(found)
        assert not any(m["lit"] for m in found.values())

        # a token's row header in the input map: that row, in every step and in each head's weights
        hover(page, row_head("layer1_input", 2))
        found = maps(page)
        for key in rows + heads:
            assert found[key]["lit"] == whole_row(2, found[key]["cols"]), (key, found[key])
            assert found[key]["rows"] == [2], (key, found[key])
        assert not {"stack1", "final", "batch_mask"} & set(found)  # the other parts' maps are not drawn

        # a head's weight (3, 1): row 3 of the token-row maps, the one cell in that head, row 3 in the other head
        hover(page, td("layer1_att2", 3, 1))
        found = maps(page)
        for key in rows:
            assert found[key]["lit"] == whole_row(3, found[key]["cols"]), (key, found[key])
        assert found["layer1_att2"]["lit"] == [[3, 1]], found["layer1_att2"]
        assert found["layer1_att1"]["lit"] == [[3, 1]], found["layer1_att1"]  # the same pair in the other head

        # leaving a map puts every light out
        page.mouse.move(5, 5)
        page.wait_for_timeout(200)
        assert not any(m["lit"] for m in maps(page).values())

        # a click on token 4's row (in a map far down the flow): its LayerNorm is written out after the rerun
        title = t_plain("tb.norm_title", "en", token="t4")
        assert page.get_by_role("heading", name=title).count() == 0
        page.locator(row_head("layer1_ff_act", 3)).click()
        page.get_by_role("heading", name=title).wait_for(timeout=30_000)
        wait_until_idle(page)
        assert page.locator(f"{row_head('layer1_residual2', 3)}.focus").count() == 1  # its row bold in the maps

        # an edit of X: the layer's output map changes, the check stays
        before = cells(page, "layer1_residual2")
        cell = page.get_by_role("textbox", name="X, t1, 1", exact=True)
        cell.scroll_into_view_if_needed()
        cell.click()
        page.keyboard.press("Control+A")
        page.keyboard.type("3.5")
        page.keyboard.press("Enter")
        page.wait_for_function(f"(old) => JSON.stringify(({CELLS})('layer1_residual2')) !== JSON.stringify(old)",
                               arg=before, timeout=30_000)
        wait_until_idle(page)
        after = cells(page, "layer1_residual2")
        assert after[0] != before[0] and after[1:] != before[1:]  # t1's row changed, and (attending to t1) others
        assert page.locator("[data-testid='stException']").count() == 0
        check = page.locator("[data-testid='stAlertContentSuccess']").filter(has_text=check_words("gpt2", "en"))
        assert check.count() == 1 and check.is_visible()
        diff = float(re.search(r"difference (\d\.\de-\d\d)", check.inner_text()).group(1))
        assert diff < 1e-9, check.inner_text()
        assert page.get_by_role("heading", name=title).count() == 1  # the focus kept
    finally:
        release(page)
