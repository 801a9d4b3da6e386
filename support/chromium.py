"""Debian's Chromium (``apt-get install chromium``), headless, driven by Playwright through ``executable_path``."""

from __future__ import annotations

import contextlib
import os

CHROMIUM = os.environ.get("SELFATTN_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
# Every page's main thread slowed this many times (Chromium's own CPU throttling), to find the races a busy machine
# shows: a whole-suite run found a map's note read 400 ms after a scroll empty; at 8 the race came every time.
SLOWDOWN = float(os.environ.get("SELFATTN_CHROMIUM_SLOWDOWN", "1"))


def slowed(browser):
    """``browser``, each page it opens slowed :data:`SLOWDOWN` times when that is over 1."""
    if SLOWDOWN <= 1:
        return browser

    def slow(page):
        page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": SLOWDOWN})
        return page

    def new_context(*args, **kwargs):
        context = open_context(*args, **kwargs)
        open_in = context.new_page
        context.new_page = lambda: slow(open_in())
        return context

    def new_page(*args, **kwargs):
        return slow(open_page(*args, **kwargs))

    open_context, open_page = browser.new_context, browser.new_page
    browser.new_context, browser.new_page = new_context, new_page
    return browser


@contextlib.contextmanager
def chromium_browser():
    """Headless Chromium, driven by Playwright (a module's fixture may share one)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield slowed(browser)
        finally:
            browser.close()


@contextlib.contextmanager
def chromium_page(width: int = 1400, height: int = 1000):
    """A Playwright page in headless Chromium."""
    with chromium_browser() as browser:
        yield browser.new_page(viewport={"width": width, "height": height})
