"""A crowd of heavy views: 30 visitors open the heaviest link a page allows, at once, while another
visitor opens the Playground. How long does that visitor wait? (Issue 29, part 5.)

Usage:
    python benchmarks/bench_crowd.py [--crowd 30] [--repeat 3] [--app-dir DIR [DIR ...]] [--json out.json]

Each ``--app-dir`` is started as one hosted process (``SELFATTN_HOSTED=1 streamlit run app.py``,
benchmarks/bench_load.py's ``LocalServer``), warmed up by one visit to each page, then for each
heavy link: the crowd opens it at once (each visitor a fresh session, Streamlit's websocket
protocol as bench_load.py speaks it); 0.5 s later, while the crowd is being served, one more
visitor opens the Playground. Reported per link: that visitor's open (median and worst of
``--repeat``), the crowd's opens (median, p95), the server's CPU seconds and its memory growth.
Checkouts are measured in turn, in the same run (old and new side by side).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_load  # noqa: E402
from support import server as servers, visitor as wire  # noqa: E402

LONG_EN = ("The animal didn't cross the street because it was too tired, and the rain kept falling on "
           "every roof of the old town while we talked. " * 10)[:500]
LONG_ZH = ("今天早上我和朋友一起去公园散步，看见很多人在跑步、打太极拳，还有小朋友在放风筝。" * 20)[:500]
# The heaviest links each page allows in hosted mode with what ships (tests/test_hostile_heads.py and
# tests/test_hostile_embeddings.py measure each of them alone).
HEAVY = {
    "heads: n 64, d 128, 16 heads, causal, both mistakes": (
        "heads", {"n": "64", "d": "128", "heads": "16", "causal": "1", "open": "bare_reshape~scale_after_softmax"}),
    "embeddings: en 500 chars, contextual, 64 dims": (
        "embeddings", {"text": LONG_EN, "source": "minilm", "kind": "contextual", "dims": "64"}),
    "embeddings: pair of 500 chars, 64 dims": (
        "embeddings", {"mode": "pair", "text": LONG_ZH, "text2": LONG_EN, "dims": "64"}),
    # every visitor a new seed, so that no two share a cached result (issue 36: 16 of them kept a Playground
    # visitor waiting 3.8-5.9 s when the block page did not take turns)
    "block: 16 tokens, 6 layers, pre-LN, GELU, causal, a batch; a new seed each": (
        "block", {"n": "16", "d": "16", "heads": "4", "dff": "64", "layers": "6", "norm": "pre", "act": "gelu_tanh",
                  "causal": "1", "final": "1", "pos": "sinusoidal", "batch": "1", "lengths": "16 8 4 1",
                  "seed": "{seed}"}),
}
_seeds = iter(range(1000, 10**9))  # a seed no visitor of this process asked for yet


async def crowd_once(target, page: str, query: str, crowd: int, timeout: float) -> dict:
    tally, other_tally = wire.Tally(), wire.Tally()
    pid = target.pids()[0]
    cpu0, rss0 = servers.cpu_seconds(pid), servers.rss_mb(pid)
    peak = [rss0]

    async def sample():
        while True:
            peak[0] = max(peak[0], servers.rss_mb(pid) or 0.0)
            await asyncio.sleep(0.1)

    async def heavy():
        v = wire.Visitor(target.url, tally, timeout)
        try:
            await wire.attempt(tally, v.open(page, query.replace("%7Bseed%7D", str(next(_seeds)))))
        finally:
            await v.close()

    async def other():
        await asyncio.sleep(0.5)
        v = wire.Visitor(target.url, other_tally, timeout)
        try:
            await wire.attempt(other_tally, v.open("playground"))
        finally:
            await v.close()

    sampler = asyncio.create_task(sample())
    start = time.perf_counter()
    await asyncio.gather(*(heavy() for _ in range(crowd)), other())
    wall = time.perf_counter() - start
    sampler.cancel()
    await target.wait_quiet()
    opens = sorted(tally.opens)
    return {"other_open_s": other_tally.opens[0] if other_tally.opens else None,
            "crowd_median_s": statistics.median(opens) if opens else None,
            "crowd_p95_s": opens[min(len(opens) - 1, int(0.95 * len(opens)))] if opens else None,
            "served": len(opens), "errors": dict(tally.errors + other_tally.errors),
            "exceptions": tally.exceptions + other_tally.exceptions, "wall_s": wall,
            "server_cpu_s": servers.cpu_seconds(pid) - cpu0, "rss_growth_mb": peak[0] - rss0}


async def measure(app_dir: Path, args) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="selfattn-crowd-") as work:
        target = servers.LocalServer(app_dir, str(app_dir), Path(work))
        await target.start()
        try:
            await bench_load.warm_up(target, ["playground", "heads", "embeddings", "block"], False, args.timeout)
            alone = []
            for _ in range(args.repeat):
                v = wire.Visitor(target.url, wire.Tally(), args.timeout)
                try:
                    alone.append(await v.open("playground"))
                finally:
                    await v.close()
            rows.append({"app": str(app_dir), "link": "(the Playground alone)", "other_open_s": statistics.median(alone)})
            print(json.dumps(rows[-1]), flush=True)
            for label, (page, params) in HEAVY.items():
                if args.links and not any(word in label for word in args.links):
                    continue
                runs = [await crowd_once(target, page, urlencode(params), args.crowd, args.timeout)
                        for _ in range(args.repeat)]
                waits = [r["other_open_s"] for r in runs if r["other_open_s"] is not None]
                row = {"app": str(app_dir), "link": label, "crowd": args.crowd,
                       "other_open_median_s": statistics.median(waits) if waits else None,
                       "other_open_worst_s": max(waits) if waits else None,
                       "crowd_median_s": statistics.median(r["crowd_median_s"] for r in runs if r["crowd_median_s"]),
                       "crowd_p95_s": max(r["crowd_p95_s"] for r in runs if r["crowd_p95_s"]),
                       "served": [r["served"] for r in runs], "errors": [r["errors"] for r in runs],
                       "exceptions": sum(r["exceptions"] for r in runs),
                       "server_cpu_s": statistics.median(r["server_cpu_s"] for r in runs),
                       "rss_growth_mb": max(r["rss_growth_mb"] for r in runs)}
                rows.append(row)
                print(json.dumps({k: round(v, 2) if isinstance(v, float) else v for k, v in row.items()}), flush=True)
        finally:
            target.stop()
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crowd", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--app-dir", type=Path, nargs="+", default=[HERE.parent])
    parser.add_argument("--json", type=Path)
    parser.add_argument("--links", nargs="+", help="only the links whose label holds one of these words")
    args = parser.parse_args(argv)
    rows = []
    for app_dir in args.app_dir:
        rows += asyncio.run(measure(app_dir.resolve(), args))
    if args.json:
        args.json.write_text(json.dumps({"environment": bench_load.environment(), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
