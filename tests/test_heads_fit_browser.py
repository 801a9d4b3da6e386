"""Heads & devices on a projector (issue 23): at 1400, 1024 and 768 px, in English and Chinese, every
control shows its whole text (no value cut to "Randon", no chip reduced to its "×", no device name cut
off, nothing hidden in a scroller), and the benchmark charts' axis and legend words are at least 12 px.

One server and one Chromium serve every case; each opens the page in a fresh tab at its width.
"""

import pytest

from selfattn.core.heads import MISTAKES
from tests.browser import release, tab, wait_until_idle

pytestmark = pytest.mark.browser

WIDTHS = (1400, 1024, 768)
MIN_FONT_PX = 12
CONTROLS = ", ".join(f"[data-testid='{name}']" for name in (
    "stSelectbox", "stMultiSelect", "stNumberInput", "stTextInput", "stCheckbox", "stRadio", "stSlider",
    "stButton", "stDownloadButton", "stFileUploader", "stExpander"))

# Every piece of text inside a control of the main area that is cut: a text element (or an input's value)
# wider than its box (ellipsis or hidden overflow), a text running past its control's box, and a box
# that scrolls sideways to hide part of a control.
CLIPPED = """(controls) => {
    const main = document.querySelector("[data-testid='stMain']");
    const out = [];
    const name = el => (el.closest('[data-testid]')?.dataset.testid || '') + ' ' + (el.innerText || el.value || '')
        .slice(0, 60);
    for (const control of main.querySelectorAll(controls)) {
        const box = control.getBoundingClientRect();
        if (box.width === 0) continue;  // not drawn (a closed panel's content)
        for (const el of [control, ...control.querySelectorAll('*')]) {
            const style = getComputedStyle(el);
            const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
            const text = own || (el.tagName === 'INPUT' && el.type !== 'file');  // a file input is never shown
            if (text && el.scrollWidth > el.clientWidth + 1  // a chip squeezed to 0 px too (not drawn: both 0)
                    && (style.overflowX !== 'visible' || style.textOverflow === 'ellipsis' || el.tagName === 'INPUT'))
                out.push(['cut', name(el), el.scrollWidth, el.clientWidth]);
            if (own) {
                const r = el.getBoundingClientRect();
                if (r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1))
                    out.push(['past its control', name(el), Math.round(r.right), Math.round(box.right)]);
            }
            if (['auto', 'scroll'].includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1)
                out.push(['in a scroller', name(el), el.scrollWidth, el.clientWidth]);
        }
    }
    return out;
}"""

# The words of the benchmark charts (Altair, drawn as SVG): their size, and whether a legend word is cut.
CHART_WORDS = """() => {
    const charts = [...document.querySelectorAll("[data-testid='stVegaLiteChart']")]
        .filter(el => el.querySelector('.role-legend-symbol'));  // the line charts, not the heatmaps
    return charts.map(el => {
        const svg = el.querySelector('svg').getBoundingClientRect();
        const words = [...el.querySelectorAll('.role-axis-label text, .role-axis-title text, .role-legend-label text, '
                                              + '.role-legend-title text')];
        return words.map(t => {
            const r = t.getBoundingClientRect();
            return {text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize || t.getAttribute('font-size')),
                    inside: r.left >= svg.left - 1 && r.right <= svg.right + 1 && r.width > 0
                            && !t.textContent.endsWith('…'),
                    legend: !!t.closest('.role-legend-label, .role-legend-title')};
        });
    });
}"""


def open_heads(browser, url: str, width: int, lang: str, extra: str = "", part: str = "bench"):
    """The page at ``width`` on one of its parts (ui/parts.py; the benchmark's by default), every mistake panel open
    (a link)."""
    page = tab(browser, width, 1000)
    page.goto(f"{url}/heads?lang={lang}&part={part}&open={'~'.join(MISTAKES)}{extra}")
    if part == "bench":
        page.wait_for_function("() => document.querySelectorAll(\"[data-testid='stVegaLiteChart'] "
                               ".role-legend-symbol\").length >= 2", timeout=120000)  # the bundled results' charts
    else:
        page.wait_for_selector("[data-testid='stVegaLiteChart']", timeout=120000)
    wait_until_idle(page, timeout_ms=120000)
    page.wait_for_timeout(1000)
    return page


CASES = [(width, lang, "") for lang in ("en", "zh") for width in WIDTHS]
CASES += [(1024, "zh", "&input=sentence&causal=1")]  # the sentence box and the mask's note instead


@pytest.mark.parametrize("width, lang, extra", CASES, ids=[f"{w}-{lang}{x and '-sentence'}" for w, lang, x in CASES])
def test_every_control_shows_its_whole_text(browser, url, width, lang, extra):
    page = open_heads(browser, url, width, lang, extra)
    try:
        assert page.locator("[data-testid='stException']").count() == 0
        clipped = page.evaluate(CLIPPED, CONTROLS)
        assert not clipped, (width, lang, clipped)
        for part in ("compare", "check"):  # the other parts' controls (each part is drawn alone)
            other = open_heads(browser, url, width, lang, extra, part)
            try:
                assert other.locator("[data-testid='stException']").count() == 0
                clipped = other.evaluate(CLIPPED, CONTROLS)
                assert not clipped, (width, lang, part, clipped)
            finally:
                if other is not page:
                    release(other)
        chips = page.locator(".st-key-hd_bench_heads .react-aria-ComboBox [data-tag] > span[title]")
        assert [c.strip() for c in chips.all_inner_texts()] == ["1", "8"]  # the values, not only their "×"
        assert all(box["width"] >= 6 for box in (chips.nth(i).bounding_box() for i in range(chips.count())))
        assert page.locator(".st-key-hd_device input").input_value() == "CPU"
        for words in page.evaluate(CHART_WORDS):
            words = [w for w in words if w["text"].strip()]  # Vega keeps empty texts for labels it left out
            cut = [w for w in words if w["legend"] and not w["inside"]]
            assert sum(w["legend"] for w in words) >= 4 and not cut, cut
            if width == 1024:
                small = [(w["text"], w["px"]) for w in words if w["px"] < MIN_FONT_PX]
                assert not small, small
    finally:
        release(page)
