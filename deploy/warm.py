"""Warm a fresh server before its first visitor: wait until http://127.0.0.1:$PORT answers /_stcore/health, then
open the home page once through Streamlit's websocket, as a browser tab does. That first run starts the app's
background load (ui/warmup.py: torch, the core's modules, the English model), so the class's first opens of every
page find them ready (docs/benchmarks.md, "First opens"). Exits 0 once the run finished, 1 if it could not.

Usage: python deploy/warm.py [--port 7860] [--wait 180]   (deploy/serve.sh runs it for each replica it starts;
the Dockerfile's command starts it beside the server)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.visitor import Tally, Visitor, VisitorError  # noqa: E402


def healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as reply:
            return reply.status == 200
    except OSError:
        return False


async def visit(base: str) -> float:
    tab = Visitor(base, Tally(), timeout=120)
    try:
        return await tab.open("home")
    finally:
        await tab.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "7860")))
    parser.add_argument("--wait", type=float, default=180.0, help="seconds to wait for the server to be healthy")
    args = parser.parse_args()
    base = f"http://127.0.0.1:{args.port}"
    deadline = time.monotonic() + args.wait
    while not healthy(base):
        if time.monotonic() > deadline:
            print(f"warm: {base} was not healthy after {args.wait:g} s", file=sys.stderr)
            return 1
        time.sleep(0.25)
    try:
        seconds = asyncio.run(visit(base))
    except (VisitorError, OSError, TimeoutError) as error:
        print(f"warm: opening {base}/ failed: {error}", file=sys.stderr)
        return 1
    print(f"warm: {base}/ opened in {seconds:.2f} s; the app loads the rest in the background")
    return 0


if __name__ == "__main__":
    sys.exit(main())
