"""A hostile visitor's attacks, measured on old and new checkouts in the same run (issue 21).

Usage:
    python benchmarks/bench_hostile.py [--app-dir OLD NEW] [--attack NAME ...] [--limit S] [--json out.json]

Each checkout is started as the public demo (``SELFATTN_HOSTED=1 streamlit run app.py``, one
process, its own .streamlit/config.toml), warmed up by one visit to every page, and then
attacked the way tests/test_hostile.py does: crafted widget states and links over Streamlit's
websocket protocol (tests/hostile.py), and crafted uploads parsed in a fresh process. For each
attack it prints the server's CPU seconds (read from ``/proc`` until the server is quiet again,
so a run that goes on after its sender left counts), the cores that is over the wall time, the
bytes the attacker received, the server's RSS growth, what the page said and whether a
traceback was shown. ``--limit`` bounds how long one attack may keep the server busy (then
the row says "> limit" and the server is restarted). Everything stays on the loopback interface.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import bench_load  # noqa: E402
from support import hostile, server as servers, visitor as wire  # noqa: E402

X = r"-pged_x_\d+$"
ROW = ["t", "1", "0", "1", "0"]  # a row of the tutorial's X: its label, then x1..x4


def table(cells: list) -> dict:
    """The Playground's X editor sending ``cells`` as its full table (the matrix editor, issue 22;
    a checkout with st.data_editor reads this as an edit that is not JSON of its kind)."""
    return {X: ("json_value", json.dumps({"table": {"rev": 1, "cells": cells}}))}


def rows_added(n: int) -> dict:
    return table([ROW] * n)


def big_cell(chars: int) -> dict:
    return table([ROW[:1] + ["1" * chars] + ROW[2:]] + [ROW] * 2)


@dataclass(frozen=True)
class Attack:
    name: str
    page: str
    query: str = ""  # the link opened
    send: Callable[[], dict] | None = None  # widget states sent after the page opened
    said: str = ""  # a phrase the page shows when it refuses the attack (new checkouts)
    trigger: tuple[str, str] | None = None  # a component's trigger list sent after the page opened: (id pattern, JSON)


def flood(event: str, n: int) -> str:
    """A trigger list of ``n`` copies of one event (issue 29), written compactly."""
    return "[" + ",".join([f'{{"event":"{event}","value":0}}'] * n) + "]"


ATTACKS = [
    Attack("2,000 rows sent for X", "playground", send=lambda: rows_added(2_000), said="not used"),
    Attack("4,000 rows sent for X", "playground", send=lambda: rows_added(4_000), said="not used"),
    Attack("10,000 rows sent for X", "playground", send=lambda: rows_added(10_000), said="not used"),
    Attack("a 0.4 MB cell in X", "playground", send=lambda: big_cell(400_000), said="not used"),
    Attack("a 4 MB cell in X", "playground", send=lambda: big_cell(4_000_000)),
    Attack("4,000 picks in one step-map trigger", "playground", trigger=(r"-map_weights$", flood("pick", 4_000))),
    Attack("36,000 picks in one trigger (under 1 MB)", "playground",
           trigger=(r"-map_weights$", flood("pick", 36_000))),
    Attack("a link with size=².4.3.3", "playground", "size=%C2%B2.4.3.3", said="except for these settings"),
    Attack("largest Playground link", "playground",
           "preset=random&seed=7&size=32.16.16.16&scale=1&causal=1&bias=1&focus=32"),
    Attack("heavy heads link", "heads", "n=64&d=128&heads=16&causal=1&open=bare_reshape~scale_after_softmax"),
    Attack("longest sentence, words, rollout", "embeddings",
           "source=minilm&text=" + "the cat sat on the mat and " * 18 + "&units=words&map=rollout"),
    Attack("heaviest Transformer block link", "block",
           "n=16&d=16&heads=4&dff=64&layers=6&norm=pre&act=gelu_tanh&causal=1&final=1&pos=sinusoidal&batch=1"
           "&lengths=16%208%204%201"),
    Attack("a 2 MB Transformer block link", "block", query=None),  # every table parameter, far over its limit
    Attack("the real model's layer, 32 tokens", "block",
           "source=real&rlayer=6&text=" + "the cat sat on the mat and " * 12),
]


def two_megabyte_block_link() -> str:
    """Every table parameter of every layer of the block page, each far over a parameter's limit: about 2 MB."""
    from urllib.parse import urlencode

    from selfattn.block.link import TABLE_PARAMS

    params = {name: "1_" * (1_900_000 // len(TABLE_PARAMS) // 2) for name in TABLE_PARAMS}
    params.update({"layers": "6", "n": "16", "d": "16", "dff": "64", "eps": "n" * 5000, "text": "x" * 5000})
    return urlencode(params)


ATTACKS = [a if a.query is not None else Attack(a.name, a.page, two_megabyte_block_link()) for a in ATTACKS]


async def run_attack(target: servers.LocalServer, attack: Attack, limit: float) -> dict:
    pid = target.pids()[0]
    row = {"target": target.label, "attack": attack.name}
    rss0 = servers.rss_mb(pid) or 0.0
    async with hostile.visitor(target.url) as v:
        if attack.trigger is not None:
            await v.open_link(attack.page, attack.query)
            v.received = 0

            async def act():
                await hostile.send_trigger(v, *attack.trigger)
                await v.finish_run()
        elif attack.send is None:
            act = lambda: v.open_link(attack.page, attack.query)  # noqa: E731
        else:
            await v.open_link(attack.page, attack.query)
            v.received = 0

            async def act():
                await v.send(**attack.send())
                await v.finish_run()
        try:
            cost = await asyncio.wait_for(hostile.measure(pid, act), limit)
        except (asyncio.TimeoutError, TimeoutError):
            row.update(cpu_s=f"> {limit:g}", cores="", received=v.received, rss_mb="", said="", exceptions="")
            return row
        except wire.VisitorError as exc:
            row.update(cpu_s="", cores="", received=v.received, rss_mb="", said=f"error: {exc}", exceptions="")
            return row
        texts = " ".join(v.texts())
    row.update(cpu_s=round(cost.cpu_s, 2), cores=round(cost.cores, 2), received=v.received,
               rss_mb=round((servers.rss_mb(pid) or 0.0) - rss0), exceptions=v.tally.exceptions,
               said=("connection closed" if cost.closed else
                     "refused in words" if attack.said and attack.said in texts else ""))
    return row


def upload_rows(app_dir: Path, label: str, work: Path) -> list[dict]:
    rows = []
    for name, text in hostile.UPLOADS.items():
        path = work / "upload.csv"
        path.write_text(text)
        cpu, grew, _ = hostile.upload_cost(app_dir, path)
        rows.append({"target": label, "attack": f"upload: {name}", "cpu_s": round(cpu, 3), "rss_mb": round(grew),
                     "cores": "", "received": "", "exceptions": "", "said": ""})
    return rows


def print_row(row: dict) -> None:
    print(f"{row['attack'][:42]:42} {row['target'][:10]:10} {str(row['cpu_s']):>8} {str(row['cores']):>6} "
          f"{str(row['received']):>10} {str(row['rss_mb']):>7} {str(row['exceptions']):>4}  {row['said']}", flush=True)


async def bench(args, work: Path) -> list[dict]:
    rows = []
    for app_dir in args.app_dir:
        label = app_dir.name if app_dir != ROOT else "this"
        for row in upload_rows(app_dir, label, work):
            rows.append(row)
            print_row(row)
        target = servers.LocalServer(app_dir, label, work)
        await target.start()
        try:
            await bench_load.warm_up(target, ["playground", "heads", "embeddings", "block"], edit=False, timeout=120)
            for attack in ATTACKS:
                if args.attack and attack.name not in args.attack:
                    continue
                row = await run_attack(target, attack, args.limit)
                rows.append(row)
                print_row(row)
                if str(row["cpu_s"]).startswith(">"):  # still busy: start afresh
                    target.stop()
                    target = servers.LocalServer(app_dir, label, work)
                    await target.start()
        finally:
            target.stop()
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app-dir", type=Path, nargs="+", default=[ROOT], help="checkouts to attack (default: this one)")
    parser.add_argument("--attack", nargs="*", choices=[a.name for a in ATTACKS], help="only these (default: all)")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds one attack may keep the server busy")
    parser.add_argument("--json", type=Path, help="write the rows here")
    args = parser.parse_args(argv)
    print(f"{'attack':42} {'checkout':10} {'CPU s':>8} {'cores':>6} {'bytes':>10} {'+RSS MB':>7} {'exc':>4}  page")
    with tempfile.TemporaryDirectory(prefix="selfattn-bench-hostile-") as work:
        rows = asyncio.run(bench(args, Path(work)))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
