"""Floods of reruns from many sockets, and the visitors they must not freeze (issue 55).

Usage:
    python benchmarks/bench_flood.py [--app-dir DIR [DIR ...]] [--repeat 2] [--only WORD ...] [--json out.json]

Each ``--app-dir`` is started as one hosted process reading each visitor's address from X-Real-IP (as behind
deploy/serve.sh's proxy; support/hostile.py's ``hosted_server``), then for each scenario below (``--repeat``
times): the flood's sockets each open the page, then ask for reruns at the rate given; after a few seconds of it,
three times, a plain GET of the page and another visitor's open of it are timed (support/hostile.py's ``flood``).

- ``whole``: ten sockets of one address each ask for a whole rerun of the default Playground twice a second,
  sending no cached message (the review's attack); the other visitor has another address.
- ``whole, one address``: the same, every socket and the other visitor from one address (a class's: 127.0.0.1).
- ``seq2seq edits``: sixteen sockets each edit the heaviest Encoder–decoder view twice a second, a new number
  each time (fragment reruns); the other visitor opens that page.
- ``class alone``: 30 visitors of one address open the Playground at once and make three edits each: the class's
  opens and edits.
- ``class``: the same while ten sockets of that same address flood as in ``whole`` (a class with one student
  flooding).

Checkouts are measured in turn, in the same run. Every loop is bounded (support/hostile.py's ``FLOOD_MAX_S``);
only loopback is targeted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from support import hostile, visitor as wire  # noqa: E402

MAXIMAL_SEQ2SEQ = "n=8&m=8&d=16&heads=4&dff=64&enc=4&dec=4&norm=pre&act=gelu_tanh&step=8"
SCENARIOS = {  # name -> flood's keyword arguments
    "whole": dict(page="playground", query="", sockets=10, per_s=2.0, edits=False, honest_page="playground"),
    "whole, one address": dict(page="playground", query="", sockets=10, per_s=2.0, edits=False,
                               honest_page="playground", attacker=None, honest=None),
    "seq2seq edits": dict(page="seq2seq", query=MAXIMAL_SEQ2SEQ, sockets=16, per_s=2.0, edits=True,
                          honest_page="seq2seq"),
}
CLASS = 30


def pct(values: list[float], q: float) -> float | None:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))], 2) if values else None


async def a_class(url: str, timeout: float) -> wire.Tally:
    """``CLASS`` visitors of one address open the Playground at once and edit it three times each."""
    tally = wire.Tally()

    async def student(k: int) -> None:
        v = wire.Visitor(url, tally, timeout)
        try:
            if await wire.attempt(tally, v.open("playground")):
                for e in range(3):
                    await wire.attempt(tally, v.edit(wire.edit_value(100 * k + e)))
        finally:
            await v.close()

    await asyncio.gather(*(student(k) for k in range(CLASS)))
    return tally


async def class_during_flood(target, timeout: float, sockets: int = 10) -> dict:
    stop = asyncio.Event()
    flooders = []
    try:
        for _ in range(sockets):
            v = wire.Visitor(target.url, wire.Tally(), timeout)
            flooders.append(v)
            await v.open("playground")
        floods = [asyncio.create_task(hostile._flood_from(v, "playground", 2.0, stop, False, 0)) for v in flooders]
        drains = [asyncio.create_task(hostile._drain(v.ws, stop)) for v in flooders]
        asyncio.get_running_loop().call_later(hostile.FLOOD_MAX_S, stop.set)
        await asyncio.sleep(3.0)
        try:
            tally = await asyncio.wait_for(a_class(target.url, timeout), hostile.FLOOD_MAX_S)
        finally:
            stop.set()
            await asyncio.gather(*floods, *drains, return_exceptions=True)
    finally:
        for v in flooders:
            await v.close()
    return {"opens_p50_s": pct(tally.opens, 0.5), "opens_p95_s": pct(tally.opens, 0.95),
            "opens_max_s": pct(tally.opens, 1.0), "edits_p50_s": pct(tally.edits, 0.5),
            "edits_p95_s": pct(tally.edits, 0.95), "served": len(tally.opens), "errors": dict(tally.errors),
            "exceptions": tally.exceptions}


def measure(app_dir: Path, args) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="selfattn-flood-") as work, \
            hostile.hosted_server(Path(work), app_dir) as target:
        pid = target.pids()[0]
        for name, kwargs in SCENARIOS.items():
            if args.only and not any(word in name for word in args.only):
                continue
            for _ in range(args.repeat):
                result = asyncio.run(hostile.flood(target.url, pid=pid, timeout=args.timeout, **kwargs))
                rows.append({"app": str(app_dir), "scenario": name, "opens_s": [round(s, 2) for s in result.opens],
                             "gets_s": [round(s, 2) for s in result.gets], "sent": result.sent,
                             "flood_s": round(result.seconds, 1), "server_cpu_s": round(result.cpu_s, 1),
                             "errors": dict(result.tally.errors), "exceptions": result.tally.exceptions})
                print(json.dumps(rows[-1]), flush=True)
        for name, sockets in (("class alone", 0), ("class", 10)):
            if args.only and not any(word in name for word in args.only):
                continue
            for _ in range(args.repeat):
                rows.append({"app": str(app_dir), "scenario": name,
                             **asyncio.run(class_during_flood(target, args.timeout, sockets))})
                print(json.dumps(rows[-1]), flush=True)
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app-dir", type=Path, nargs="+", default=[HERE.parent])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--only", nargs="*", default=[], help="scenarios whose name holds one of these words")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rows = [row for app_dir in args.app_dir for row in measure(app_dir.resolve(), args)]
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
