"""The Encoder–decoder page's translator source (issue 40) in a real Chromium.

* ``/seq2seq?source=translator`` in English and Chinese at desktop (1400 px), projector (1024 px) and tablet
  (768 px) widths, each of its three parts opened by its tab: no exception, the translation of 早上好 and torch's
  check on screen, nothing wider than the window or its box, no text cut or drawn over other text, no map or chart
  past its column.
* Typing 人咬狗 and Enter translates it: "the man bites the dog".
* A cross-attention weight of the whole translation's maps (word i reading character j) lights word i's row in the
  decoder-row map, character j's row in the memory, and the cell (i, j) in every layer and head.

Retraining is not driven here (tests/test_translator_train.py does it in AppTest).
"""

from __future__ import annotations

import re

import pytest

from selfattn.i18n import t_plain
from selfattn.seq2seq.view import SOURCE_PARTS
from tests.browser import click_part as click_tab
from tests.browser import (ALL_DRAWN, assert_charts_fit, CLIPPED_CONTROLS, CUT_CHART_TITLES, linked_maps, map_td,
                           maps_fit, maps_within, whole_row,
                           settle, sidebar_open, SMALL_CHART_LABELS, SMALL_OR_CLIPPED_MAP_TEXT, TEXT_LAYOUT,
                           wait_until_idle, release, tab)

pytestmark = pytest.mark.browser

HEIGHT = 1000
PARTS = SOURCE_PARTS["translator"]
# The whole sentence: the memory 1, the masked self-attention 8 and cross-attention 8 (2 layers × 4 heads), the
# decoder rows 1; generation: a step's 8 (per decoder layer: the K and V caches, the new row's self- and
# cross-attention) and the next word's probabilities; how it learned: 8 and the loss chart.
MIN_MAPS = {"pass": 18, "generation": 8, "learned": 8}
DRAWN = {part: maps + (part != "pass") for part, maps in MIN_MAPS.items()}
WHOLE = tuple(f"cross_l{layer}h{h}" for layer in (1, 2) for h in (1, 2, 3, 4))


def open_translator(browser, url: str, lang: str, width: int):
    page = tab(browser, width, HEIGHT)
    page.goto(f"{url}/seq2seq?source=translator&lang={lang}")
    page.wait_for_selector("[data-testid='stMain'] h1", timeout=120_000)
    page.wait_for_function(ALL_DRAWN, arg=DRAWN["pass"], timeout=120_000)
    settle(page, DRAWN["pass"])
    return page


def click_part(page, lang: str, part: str) -> None:
    """A click on the part's tab ("3 · How it learned"): the link follows."""
    click_tab(page, "s2s", PARTS, lang, part)
    settle(page, DRAWN[part])


def translation(page) -> str:
    """The translation as shown: the h4 heading of "The translation" (the page's other h4s are sections')."""
    lang = page.evaluate("() => new URL(location.href).searchParams.get('lang')") or "en"
    sections = {t_plain(key, lang) for key in ("tr.probs_title", "tr.align_title")}
    found = [t.strip() for t in page.locator("[data-testid='stMain'] h4").all_inner_texts()
             if t.strip() not in sections]
    assert len(found) == 1, found
    return found[0]


def assert_laid_out(page, where: str, part: str = "pass") -> None:
    lang = where[-2:]
    assert page.locator("[data-testid='stException']").count() == 0, where
    if lang == "en":
        assert translation(page) == "good morning", where
    words = t_plain("tr.checked_torch", lang).split("{")[0].replace("`", "").strip()
    line = page.locator("[data-testid='stAlertContentSuccess']").filter(has_text=words)
    assert line.count() == 1, (where, words)
    assert re.search(r"\d\.\de-\d\d|\b0\b", line.first.inner_text()), (where, line.first.inner_text())
    found = page.evaluate(TEXT_LAYOUT)
    assert found["page"][0] <= found["page"][1], (where, "the page scrolls sideways", found["page"])
    assert found["block"][0] <= found["block"][1] + 1, (where, "the main block overflows", found["block"])
    assert not found["wide"], (where, "text wider than its box: [what, text, px drawn, px of its box]", found["wide"])
    over = [pair for pair in found["over"] if not slider_pair(pair)]
    assert not over, (where, "text drawn over other text", over)
    assert page.evaluate(SLIDER_TEXT_OVER) == [], (where, "a slider's value drawn over its label's text")
    assert page.evaluate(CLIPPED_CONTROLS) == [], where
    assert page.evaluate(SMALL_OR_CLIPPED_MAP_TEXT) == [], where
    assert page.evaluate(SMALL_CHART_LABELS) == [], where
    assert page.evaluate(CUT_CHART_TITLES) == [], (where, "a chart's title cut short")
    fits = maps_fit(page)
    assert len(fits) >= MIN_MAPS[part] and maps_within(fits), (where, fits)
    assert_charts_fit(page, where, DRAWN[part])


# A slider's label box spans its whole row, and the value over its thumb sits in that row: TEXT_LAYOUT's boxes meet
# wherever the thumb is. What must not meet is the label's drawn text and the value: [label, value] of each slider
# whose two do.
SLIDER_TEXT_OVER = r"""() => {
  const drawn = el => {
    const range = document.createRange(), rects = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!n.textContent.trim()) continue;
      range.selectNodeContents(n);
      rects.push(...[...range.getClientRects()].filter(r => r.width > 0));
    }
    return rects;
  };
  const meet = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1
                      && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  const out = [];
  for (const w of document.querySelectorAll('[data-testid="stMain"] [data-testid="stSlider"]')) {
    const label = w.querySelector('[data-testid="stWidgetLabel"]');
    const value = w.querySelector('[data-testid="stSliderThumbValue"]');
    if (!label || !value || !label.getClientRects().length) continue;
    if (drawn(label).some(a => drawn(value).some(b => meet(a, b))))
      out.push([label.innerText.trim(), value.innerText.trim()]);
  }
  return out;
}"""


def slider_pair(pair) -> bool:
    """A pair TEXT_LAYOUT found that is a slider's label and the value over its thumb (SLIDER_TEXT_OVER checks
    their text)."""
    (a, text_a), (b, text_b) = pair
    return a == "stWidgetLabel" and b == "stMarkdownContainer" and re.fullmatch(r"[\d.]+", text_b.strip()) is not None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_translator_fits_desktop_projector_and_tablet(browser, url, lang):
    page = open_translator(browser, url, lang, 1400)
    try:
        for part in PARTS:
            if part != PARTS[0]:
                page.set_viewport_size({"width": 1400, "height": HEIGHT})
                click_part(page, lang, part)
            for width in (1400, 1024, 768):
                if width != 1400:
                    page.set_viewport_size({"width": width, "height": HEIGHT})
                    settle(page, DRAWN[part])
                assert sidebar_open(page) == (width >= 1024), width
                assert_laid_out(page, f"translator, {part}, at {width} px, {lang}", part)
    finally:
        release(page)


MAPS = linked_maps("s2t_")  # every translator map (tests/browser.py): its lit cells, rows, columns


def td(key: str, i: int, j: int) -> str:
    return map_td("s2t_", key, i, j)


def test_typing_translates_and_a_cross_attention_weight_lights_its_word_and_its_character(browser, url):
    page = open_translator(browser, url, "en", 1400)
    try:
        box = page.locator("[data-testid='stMain'] [data-testid='stTextInput']").filter(
            has_text=t_plain("tr.text", "en")).locator("input")
        box.fill("人咬狗")
        box.press("Enter")
        page.wait_for_function("() => [...document.querySelectorAll(\"[data-testid='stMain'] h4\")]"
                               ".some(h => h.innerText.trim() === 'the man bites the dog')", timeout=60_000)
        settle(page, DRAWN["pass"])
        assert translation(page) == "the man bites the dog"
        page.wait_for_function(f"() => (({MAPS})().cross_l1h1 || {{}}).n === 5", timeout=30_000)  # redrawn

        found = page.evaluate(MAPS)
        assert set(WHOLE + ("memory", "rows")) <= set(found), sorted(found)
        assert (found["cross_l1h1"]["n"], found["cross_l1h1"]["cols"]) == (5, 3)  # the man bites the dog × 人咬狗
        assert not any(m["lit"] for m in found.values())

        # "bites" (word 3, row 2) reading 咬 (character 2, column 1), in layer 2, head 3
        target = page.locator(td("cross_l2h3", 2, 1))
        target.scroll_into_view_if_needed()
        target.hover()
        page.wait_for_timeout(200)
        found = page.evaluate(MAPS)
        assert found["rows"]["lit"] == whole_row(2, found["rows"]["cols"]), found["rows"]
        assert found["memory"]["lit"] == whole_row(1, found["memory"]["cols"]), found["memory"]
        for key in WHOLE:
            assert found[key]["lit"] == [[2, 1]], (key, found[key])
        assert not {"step_l1", "ckpt_l1h1"} & set(found)  # the step's and the record's: in their own parts

        page.mouse.move(5, 5)
        page.wait_for_timeout(200)
        assert not any(m["lit"] for m in page.evaluate(MAPS).values())
        wait_until_idle(page)
        assert page.locator("[data-testid='stException']").count() == 0
    finally:
        release(page)
