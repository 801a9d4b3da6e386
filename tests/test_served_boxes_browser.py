"""Issue 50 (items 11 and 3) on the Encoder–decoder page, in a real Chromium.

* Item 11: after an edit the maps are redrawn at once by the browser's preview, while the boxes the server writes
  ("Cross-attention for y1, head by head", the check against torch, the generation's step) keep their numbers until
  the server answers, a second or more later. Every animation frame from the key press to the answer is recorded:
  in none may a map show the new numbers beside the box's old ones unless the box is marked out of date (dimmed, with
  "Updating…"), and once the answer is in, nothing is marked.
* Item 3: the masked self-attention's masked cells read 0 (the weight; −∞ was the score) and are drawn masked, with
  the note under the map saying so, before and after an edit.
"""

from __future__ import annotations

import json

import pytest

from selfattn.i18n import t_plain
from tests.browser import MAP_BOXES, map_sel, release, tab, wait_until_idle

pytestmark = pytest.mark.browser

# One frame of the page: a cross-attention weight (a map the preview redraws), the box's text, whether the box is
# marked out of date and how it is drawn, and the masked self-attention's cell (1, 2) with its class.
SNAP = """() => {
    const boxes = (MAP_BOXES)("s2s_");
    const cell = (key, i, j) => {
        const td = boxes[key]?.querySelectorAll('tbody tr')[i]?.querySelectorAll('td')[j];
        return td ? [td.textContent, td.classList.contains('masked')] : [null, false];
    };
    const code = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stText]')]
        .find(c => c.innerText.startsWith(FOCUS_LINE));  // the box's first line: "Head 1: q = [..."
    const box = code && code.closest('[data-testid=stVerticalBlock]');
    let opacity = 1;
    for (let e = code; e && e !== document.body; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    return {map: cell('d1_cross1', 0, 0)[0], box: code ? code.innerText : null,
            outdated: box ? box.dataset.outdated || null : null, opacity,
            note: box ? getComputedStyle(box, '::after').content : null, self: cell('d1_self1', 0, 1)};
}""".replace("MAP_BOXES", MAP_BOXES).replace("FOCUS_LINE", json.dumps(  # the first line's words before its numbers
    t_plain("s2s.focus_line", "en", h=1, q="{q}", w="").split("{q}")[0]))

RECORD = """(snap) => {
    const take = new Function('return (' + snap + ')()');
    window.__frames = [];
    window.addEventListener('selfattn-edit', () => window.__frames.push({edit: true, ...take()}));
    const loop = () => { window.__frames.push(take()); if (!window.__stop) requestAnimationFrame(loop); };
    requestAnimationFrame(loop);
}"""


def test_the_boxes_the_server_writes_are_marked_while_the_maps_show_a_newer_edit(browser, url):
    page = tab(browser, 1400, 1000)
    try:
        page.goto(f"{url}/seq2seq")
        page.wait_for_selector(f"{map_sel('s2s_outputs')} td", timeout=120_000)
        page.wait_for_function(f"() => !!({SNAP})().box", timeout=60_000)
        wait_until_idle(page)
        before = page.evaluate(SNAP)
        assert before["map"] and before["box"] and before["outdated"] is None, before
        note = page.locator(map_sel("s2s_d1_self1")).evaluate("box => box.querySelector('.mask-note')?.innerText")

        page.evaluate(RECORD, SNAP)
        cell = page.get_by_role("textbox", name="Target Y, y1, 1", exact=True)
        cell.click()
        page.keyboard.press("Control+A")
        page.keyboard.type("2.5")
        page.keyboard.press("Enter")
        page.wait_for_function(f"(old) => {{ const s = ({SNAP})(); return s.box !== old && !s.outdated; }}",
                               arg=before["box"], timeout=60_000)
        wait_until_idle(page)
        frames = page.evaluate("() => { window.__stop = true; return window.__frames; }")
        after = page.evaluate(SNAP)
    finally:
        release(page)

    assert after["map"] != before["map"] and after["box"] != before["box"] and after["outdated"] is None, after
    ahead = [f for f in frames if f["map"] != before["map"] and f["box"] == before["box"]]
    assert ahead, "the preview never drew the maps before the server's answer: nothing was tested"
    assert ahead[0].get("edit"), "the maps were not redrawn in the key press's own task"
    unmarked = [f for f in ahead if not f["outdated"]]
    assert not unmarked, f"{len(unmarked)} of {len(ahead)} frames showed old numbers unmarked beside new maps"
    updating = t_plain("common.updating", "en")
    assert all(f["outdated"] == updating and updating in f["note"] and f["opacity"] < 0.5 for f in ahead), ahead[:3]
    # item 3: the masked cell's weight, 0, drawn masked, and the note under the map, before, during and after the edit
    assert note == t_plain("common.map_masked", "en"), note
    assert all(f["self"] == ["0", True] for f in [before, *frames, after]), [before["self"], after["self"]]
