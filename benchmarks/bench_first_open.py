"""The first open of every page on a fresh server process: the seconds a visitor waits, from the page's address to
the end of its first run, through Streamlit's websocket protocol (support/visitor.py), then a second open.

Usage: python benchmarks/bench_first_open.py [--hosted] [--warm] [--after 0] [--pages home,playground]

Each (page, language, projector view) gets a server of its own, started for it, so every figure is a first open:
the process has run nothing before (no module of the page imported, no cache filled). ``--after S`` waits S seconds
after the server says it is healthy before the visitor comes (the teacher started it before the class arrived);
0 is a visitor who comes the moment it is up. ``--warm`` first runs deploy/warm.py against the server (as
deploy/serve.sh and the container do: one open of the home page, which starts the app's background load), then
waits ``--after`` seconds: the first open of each page as a class meets it on a deployed replica.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from support import visitor as wire  # noqa: E402
from support.server import streamlit_server  # noqa: E402

WARM = [sys.executable, str(ROOT / "deploy" / "warm.py")]

LANGS = ("en", "zh")


async def opens(url: str, page: str, query: str) -> tuple[float, float]:
    """(first open, second open) seconds of ``page`` at ``query``, two visitors one after the other."""
    times = []
    for _ in range(2):
        v = wire.Visitor(url, wire.Tally(), 120)
        try:
            times.append(await v.open(page, query))
            if v.tally.exceptions:
                raise SystemExit(f"{page}?{query}: the page showed an exception")
        finally:
            await v.close()
    return times[0], times[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosted", action="store_true", help="run the servers as the public demo")
    parser.add_argument("--warm", action="store_true", help="warm the server with deploy/warm.py first")
    parser.add_argument("--after", type=float, default=0.0, help="seconds between healthy and the first visitor")
    parser.add_argument("--pages", default=",".join(wire.PAGES), help="comma-separated page names")
    parser.add_argument("--rounds", type=int, default=1, help="fresh servers per case (the median is printed)")
    args = parser.parse_args()
    print(f"# first opens on fresh processes: {platform.node()}, python {platform.python_version()}, "
          f"hosted={args.hosted}, warmed={args.warm}, visitor {args.after:g} s after healthy, {args.rounds} round(s)")
    print(f"{'page':12} {'lang':4} {'big':3} {'first s':>8} {'second s':>9}  (each: median of rounds)")
    worst = 0.0
    for page in args.pages.split(","):
        for lang in LANGS:
            for big in (False, True):
                query = f"lang={lang}" + ("&big=1" if big else "")
                firsts, seconds = [], []
                for _ in range(args.rounds):
                    with streamlit_server(hosted=args.hosted) as url:
                        if args.warm:
                            subprocess.run([*WARM, "--port", url.rsplit(":", 1)[1]], check=True,
                                           stdout=subprocess.DEVNULL)
                        time.sleep(args.after)
                        first, second = asyncio.run(opens(url, page, query))
                    firsts.append(first)
                    seconds.append(second)
                first, second = statistics.median(firsts), statistics.median(seconds)
                worst = max(worst, first)
                print(f"{page:12} {lang:4} {'on' if big else 'off':3} {first:8.2f} {second:9.2f}", flush=True)
    print(f"worst first open: {worst:.2f} s")


if __name__ == "__main__":
    main()
