"""What a page load costs the visitor's browser: Chromium's CPU seconds for each page, loaded again and again in one tab.

Usage: python benchmarks/bench_load_cpu.py [--pages "" heads poet] [--repeat 3] [--app-dir A B ...] [--json FILE]

Each ``--app-dir`` (a checkout: old and new code in the same run) is served on its own port, one after the other, and
opened in one headless Chromium tab at 1024 x 768: every page ``--repeat`` times, each load timed from ``goto`` until
the run is over (Streamlit's run state) and a second more for the charts, Chromium's CPU read from /proc (all its
processes under this one, :func:`chromium_cpu`) around it. The server is not counted.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import suite_cpu  # noqa: E402 -- beside this script
from support.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402


def chromium_cpu() -> float:
    """CPU seconds (user and system) of this process's own Chromium: its processes among this process's descendants,
    each with the time of the children it has reaped (a renderer that ends moves its time into its parent's), so
    neither another program's Chromium (a whole test run's, whose ending processes made a load's CPU -25 s) nor a
    renderer that ends during a load makes the difference wrong. /proc is read as ``suite_cpu.py`` reads it."""
    procs = suite_cpu.read_procs()
    ours = suite_cpu.descendants(os.getpid(), procs) - {os.getpid()}
    return sum(procs[pid].own + procs[pid].reaped for pid in ours
               if b"chromium" in suite_cpu.read_bytes(f"/proc/{pid}/cmdline")) / suite_cpu.TICK


def measure(app_dir: Path, pages: list[str], repeat: int) -> dict[str, list[float]]:
    import support.server as servers
    from playwright.sync_api import sync_playwright

    def settle(page) -> None:  # the run over (Streamlit's own run state), then a second for the charts to draw
        page.wait_for_timeout(300)
        page.wait_for_function("() => document.querySelector('[data-testid=\"stApp\"]')"
                               "?.getAttribute('data-test-script-state') === 'notRunning'", timeout=120_000)
        page.wait_for_timeout(1000)

    servers.ROOT = app_dir  # streamlit_server runs app.py from here
    loads: dict[str, list[float]] = {}
    with servers.streamlit_server(timeout=120) as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        for path in ["", *pages]:  # a first load warms the tab's caches, as a visitor's second page would find them
            page.goto(f"{url}/{path}")
            page.wait_for_selector("[data-testid='stMain'] h1", timeout=120_000)
            settle(page)
        for _ in range(repeat):
            for path in pages:
                before = chromium_cpu()
                page.goto(f"{url}/{path}")
                page.wait_for_selector("[data-testid='stMain'] h1", timeout=120_000)
                settle(page)
                loads.setdefault(path or "home", []).append(round(chromium_cpu() - before, 2))
        browser.close()
    return loads


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="+", default=["", "heads", "embeddings", "efficient", "poet", "playground"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--app-dir", type=Path, nargs="+", default=[ROOT])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rows = []
    for app_dir in args.app_dir:
        loads = measure(app_dir.resolve(), args.pages, args.repeat)
        for page, cpu in loads.items():
            rows.append({"app": str(app_dir), "page": page, "chromium_cpu_s": cpu})
            print(f"{str(app_dir)[-30:]:>30}  {page:12s} Chromium CPU a load: {', '.join(f'{c:.2f}' for c in cpu)} s",
                  flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
