"""Shareable links in a real Chromium: copy the link, open it in a new browser, get the same numbers;
reload, Back and Forward behave as a visitor expects."""

from __future__ import annotations

import io
import zipfile
from urllib.parse import parse_qsl, urlencode

import numpy as np
import pytest

from selfattn import self_attention
from selfattn.display import share
from selfattn.i18n import t_plain
from tests.browser import browser_page, output_text, pick, type_into, wait_until_idle

pytestmark = pytest.mark.browser


def sidebar_link(page) -> str:
    return page.locator("[data-testid='stSidebar'] .st-key-share_link code").inner_text().strip()


def step_texts(page) -> list[str]:
    """Every written-out step of the main area (steps 4 to 7 for the focused input)."""
    return page.locator("[data-testid='stMain'] [data-testid='stText']").all_inner_texts()


def zip_download(page) -> dict[str, bytes]:
    """Every table of the Playground's ZIP download, as the files' bytes."""
    with page.expect_download(timeout=30000) as info:
        page.locator(".st-key-dl_zip button").click()
    with zipfile.ZipFile(info.value.path()) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def open_playground(page, url: str) -> None:
    page.goto(url)
    page.get_by_role("textbox", name="X, Input 1, x1", exact=True).wait_for(timeout=60000)  # the matrix editor
    page.wait_for_selector("[class*='st-key-map_outputs'] td", timeout=60000)  # the last step map, drawn
    wait_until_idle(page)


@pytest.mark.parametrize("secure", [True, False], ids=["clipboard API", "plain http"])
def test_the_copy_button_puts_the_link_on_the_clipboard_and_says_so(browser, url, secure):
    """The sidebar's link has its copy button (ui/components/share_link.py), in the visitor's language: a click puts
    the link, as shown, on the clipboard and the button says it did. Over plain http from another machine (a
    classroom's server: not a secure context, no clipboard API for the page) it copies through a selected hidden
    text box; here 127.0.0.1 is a secure context, so the page is told it is not."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    if not secure:  # and each command the page gives the document noted: the copy must go through the text box
        context.add_init_script("""Object.defineProperty(window, 'isSecureContext', {get: () => false});
            window.commands = []; const run = document.execCommand.bind(document);
            document.execCommand = (name, ...rest) => { window.commands.push(name); return run(name, ...rest); };""")
    try:
        page = context.new_page()
        page.goto(f"{url}/heads?lang=zh&d=8")
        page.wait_for_selector("[data-testid='stSidebar'] .st-key-share_link code", timeout=60000)
        wait_until_idle(page)
        link = sidebar_link(page)
        assert link.startswith(f"{url}/heads?") and "d=8" in link and "lang=zh" in link, link
        button = page.locator("[data-testid='stSidebar'] .st-key-share_link button")
        assert button.inner_text() == t_plain("share.copy", "zh")
        button.click()
        page.wait_for_function("(want) => navigator.clipboard.readText().then(t => t === want)", arg=link, timeout=10000)
        assert button.inner_text() == t_plain("share.copied", "zh")
        assert page.evaluate("() => window.commands") == (None if secure else ["copy"])
    finally:
        context.close()


def test_a_copied_link_opens_the_same_numbers_in_a_new_browser(browser, url):
    with browser_page(browser, 1400, 1600) as page:
        open_playground(page, f"{url}/playground")
        type_into(page, "X, Input 1, x1", "0.1")  # a number with no short binary form
        type_into(page, "W_q, x1, q1", "-2.5e-3")
        link = sidebar_link(page)
        assert link.startswith(f"{url}/playground?") and "dx=0.0.0.1" in link and "dwq=0.0.-2.5e-3" in link
        page.wait_for_function("(want) => window.location.href === want", arg=link, timeout=10000)  # the address bar
        mine, my_files = step_texts(page), zip_download(page)

    context = browser.new_context(viewport={"width": 1024, "height": 1600})  # a browser of its own: nothing shared
    try:
        other = context.new_page()
        open_playground(other, link)
        assert step_texts(other) == mine
        assert zip_download(other) == my_files  # every table, to the last digit
        assert other.locator("[data-testid='stException']").count() == 0
    finally:
        context.close()
    x = np.array([[0.1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]])
    got = np.loadtxt(io.StringIO(my_files["x.csv"].decode()), delimiter=",", skiprows=1, usecols=(1, 2, 3, 4))
    np.testing.assert_array_equal(got, x)


def test_history_has_one_entry_per_page_and_reload_keeps_everything(browser, url):
    context = browser.new_context(viewport={"width": 1400, "height": 1600})  # a new tab: its history starts here
    try:
        walk_history(context.new_page(), url)
    finally:
        context.close()


def walk_history(page, url: str) -> None:
    open_playground(page, f"{url}/playground")
    start = page.evaluate("history.length")
    assert start == 2, "the new tab's blank page and the Playground: opening it adds no second entry"
    type_into(page, "X, Input 1, x1", "5")
    page.get_by_text("简体中文", exact=True).click()  # language switches: no history entries
    wait_until_idle(page)
    page.get_by_text("English", exact=True).click()
    wait_until_idle(page)
    assert page.evaluate("history.length") == start, "edits and language switches add no history entry"
    edited = step_texts(page)
    link = page.url
    assert "dx=0.0.5" in link

    page.reload()  # F5 brings back exactly what was there
    open_playground(page, page.url)
    assert step_texts(page) == edited and page.url == link

    page.locator("[data-testid='stSidebarNav'] a[href$='/heads']").click()  # a page change is one entry
    page.wait_for_url("**/heads*", timeout=30000)
    wait_until_idle(page)
    assert page.evaluate("history.length") == start + 1
    page.go_back()
    page.wait_for_url("**/playground?*", timeout=30000)
    open_playground(page, page.url)
    assert step_texts(page) == edited and page.url == link
    page.go_forward()
    page.wait_for_url("**/heads*", timeout=30000)
    wait_until_idle(page)
    assert page.locator("[data-testid='stException']").count() == 0


def test_the_largest_playground_with_every_cell_typed_opens_from_its_link(browser, url):
    """32 tokens, d = 16, every cell a 17-digit float: the longest link the editors can make in practice."""
    rng = np.random.default_rng(1)
    mats = {"x": rng.standard_normal((32, 16)), "wq": rng.standard_normal((16, 16)),
            "wk": rng.standard_normal((16, 16)), "wv": rng.standard_normal((16, 16))}
    params = {"size": "32.16.16.16", "scale": "1",
              **{k: share.encode_table([[repr(float(v)) for v in row] for row in m]) for k, m in mats.items()}}
    query = urlencode(params)
    assert 20_000 < len(query) <= share.MAX_LINK_CHARS, len(query)  # about 25,000 characters
    want = self_attention(mats["x"], mats["wq"], mats["wk"], mats["wv"], scale=True).outputs[0]
    with browser_page(browser, 1400, 1600) as page:
        open_playground(page, f"{url}/playground?{query}")
        assert page.locator("[data-testid='stException']").count() == 0
        assert page.locator("[data-testid='stAlert']").filter(has_text="link").count() == 0
        assert output_text(page).splitlines()[-1] == "= [" + ", ".join(f"{v:.6g}" for v in want) + "]"
        assert dict(parse_qsl(sidebar_link(page).split("?", 1)[1])) == params


def test_a_mangled_link_opens_with_a_plain_message(browser, url):
    with browser_page(browser, 1400, 1200) as page:
        page.goto(f"{url}/heads?seed=abc&n=99999&zzz=1&heads=3")
        page.wait_for_selector("[data-testid='stVegaLiteChart']", timeout=60000)
        wait_until_idle(page)
        message = page.locator("[data-testid='stAlert']").first.inner_text()
        assert "seed" in message and "zzz" in message and "n" in message
        assert page.locator("[data-testid='stException']").count() == 0
        pick(page, "Input", t_plain("hd.input_sentence", "en"))  # the page works on
        assert page.locator("[data-testid='stException']").count() == 0

