"""Felt speed of the translator's generation steps in Chromium: a Next step click, and Play.

Usage:
    python benchmarks/bench_translator_step.py [--text 人咬狗] [--repeats 8] [--app-dir DIR] [--url URL]

The script opens ``/seq2seq?source=translator&part=generation&text=<text>`` (English: the generation part) in headless
Chromium on a server it starts from ``--app-dir`` (default: this checkout) or on ``--url``, waits until the page is
drawn and idle, then:

* ``next``: clicks "Next step" ``--repeats`` times (round the steps), each time from the click to the step title
  showing the new step (``shown``) and to the status widget being idle again (``idle``);
* ``play``: from step 1, presses Play and records when the step title changes, in the page's own clock, until
  the last step or 60 s; prints the moments and the gaps between them.

A step's title is the bold line "Step N: …" under the step box. Times are wall time on whatever the machine is
doing; run old and new one after the other on the same machine, and compare the medians.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from support.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from support.server import free_port, stop_process  # noqa: E402

SHOWN_STEP = """() => {
    for (const el of document.querySelectorAll("[data-testid='stMain'] strong")) {
        const m = el.innerText.match(/^Step (\\d+):/);
        if (m) return Number(m[1]);
    }
    return null;
}"""
RUNNING = """() => { const w = document.querySelector('[data-testid="stStatusWidget"]');
                     return !!w && /Running|Stop/.test(w.innerText); }"""
# Every change of the step shown, in the page's clock: window.__steps = [[ms, step], ...].
WATCH = """() => {
    const shown = SHOWN_STEP;
    window.__steps = [[performance.now(), shown()]];
    new MutationObserver(() => {
        const now = shown(), last = window.__steps[window.__steps.length - 1][1];
        if (now !== null && now !== last) window.__steps.push([performance.now(), now]);
    }).observe(document.body, {subtree: true, childList: true, characterData: true});
}""".replace("SHOWN_STEP", SHOWN_STEP)


@contextlib.contextmanager
def server(app_dir: Path):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                             "--server.address", "127.0.0.1", "--server.headless", "true",
                             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
                            cwd=app_dir, env={**os.environ, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                    if reply.status == 200:
                        break
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("streamlit did not start")
            time.sleep(0.3)
        yield url
    finally:
        stop_process(proc)


def idle(page, timeout_ms: int = 120_000) -> None:
    page.wait_for_timeout(200)
    page.wait_for_function(f"() => !({RUNNING})()", timeout=timeout_ms)


def summary(name: str, values: list[float]) -> str:
    if not values:
        return f"{name}: none"
    spread = f", min {min(values):.2f}, max {max(values):.2f}" if len(values) > 1 else ""
    return f"{name}: median {statistics.median(values):.2f} s{spread} (n={len(values)})"


def measure(url: str, text: str, repeats: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        query = urllib.parse.urlencode({"source": "translator", "part": "generation", "text": text, "lang": "en"})
        started = time.perf_counter()
        page.goto(f"{url}/seq2seq?{query}")
        page.wait_for_function(f"() => ({SHOWN_STEP})() === 1", timeout=180_000)
        idle(page)
        print(f"opened in {time.perf_counter() - started:.2f} s")
        page.wait_for_timeout(2000)  # the first run's leftovers (the maps' drawing) done

        next_button = page.get_by_role("button", name="Next step")
        shown_s, idle_s = [], []
        for _ in range(repeats):
            before = page.evaluate(SHOWN_STEP)
            t0 = time.perf_counter()
            next_button.click()
            page.wait_for_function(f"(b) => {{ const s = ({SHOWN_STEP})(); return s !== null && s !== b; }}",
                                   arg=before, timeout=60_000)
            shown_s.append(time.perf_counter() - t0)
            idle(page)
            idle_s.append(time.perf_counter() - t0)
        print(summary("next step, click → new step shown", shown_s))
        print(summary("next step, click → idle", idle_s))

        while page.evaluate(SHOWN_STEP) != 1:  # back to the first step for Play
            next_button.click()
            page.wait_for_timeout(300)
            idle(page)
        page.evaluate(WATCH)
        t0 = page.evaluate("() => performance.now()")
        page.get_by_role("button", name="Play").click()
        deadline = time.time() + 60
        page.wait_for_timeout(500)
        while time.time() < deadline:
            steps = page.evaluate("() => window.__steps")
            if len(steps) > 1 and page.get_by_role("button", name="Pause").count() == 0:
                break  # Pause is Play again: the play stopped at its last step
            page.wait_for_timeout(100)
        moments = [(ms - t0) / 1000 for ms, _ in page.evaluate("() => window.__steps")[1:]]
        gaps = [b - a for a, b in zip([0.0, *moments], moments)]
        print("play: steps shown at " + ", ".join(f"{m:.1f}" for m in moments) + " s after the click")
        print(summary("play, gap between steps", gaps[1:]))
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--text", default="人咬狗")
    parser.add_argument("--repeats", type=int, default=8)
    parser.add_argument("--app-dir", type=Path, default=ROOT)
    parser.add_argument("--url", default=None)
    args = parser.parse_args()
    if args.url:
        measure(args.url, args.text, args.repeats)
        return
    with server(args.app_dir) as url:
        measure(url, args.text, args.repeats)


if __name__ == "__main__":
    main()
