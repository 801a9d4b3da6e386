"""Faults under load (issue 14): a replica killed while a class is editing, and visitors whose
browser closes in the middle of a page run.

Visitors speak Streamlit's own websocket protocol through ``benchmarks/bench_load.py``'s
``Visitor`` (the same client the load figures in docs/benchmarks.md come from), from one client
address, through ``deploy/serve.sh``'s nginx.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

from support.deploy import Served, alive, rss_mb

ROOT = Path(__file__).resolve().parents[1]

from support import visitor as wire  # noqa: E402

pytestmark = [pytest.mark.system, pytest.mark.timeout(600)]  # serve.sh: nginx and Streamlit processes
EDITORS_PER_REPLICA = 3


async def editing(url: str, edits: int, tally: "wire.Tally", pause: float = 0.3,
                  route: dict | None = None) -> None:
    """One visitor: open the Playground, then edit X ``edits`` times; its replica goes into ``route``."""
    visitor = wire.Visitor(url, tally, timeout=60)
    try:
        await visitor.open("playground")
        if route is not None:
            route["replica"] = visitor.cookies.get("selfattn_route", "?")
        for i in range(edits):
            await visitor.edit(wire.edit_value(i))
            await asyncio.sleep(pause)
    finally:
        await visitor.close()


async def class_with_a_kill(server: Served) -> dict:
    """Six editors (three per replica); replica 0 is SIGKILLed while they edit."""
    url = f"http://127.0.0.1:{server.port}"
    tallies = [wire.Tally() for _ in range(2 * EDITORS_PER_REPLICA)]
    routes = [{} for _ in tallies]
    tasks = [asyncio.create_task(editing(url, 12, tally, route=route)) for tally, route in zip(tallies, routes)]
    await asyncio.sleep(4)  # everyone has opened the page and is editing
    victim = server.replica_pids()[0]
    os.kill(victim, signal.SIGKILL)
    results = await asyncio.gather(*tasks, return_exceptions=True)
    return {"victim": victim, "results": results, "tallies": tallies, "routes": routes}


def test_a_replica_killed_while_a_class_edits_leaves_the_others_untouched_and_comes_back(nginx, tmp_path):
    server = Served(tmp_path)
    try:
        for _ in range(2):  # one untimed visit per replica first (round robin), as a warmed-up demo has had
            asyncio.run(editing(f"http://127.0.0.1:{server.port}", 1, wire.Tally()))
        seen = len(server.lines)
        outcome = asyncio.run(class_with_a_kill(server))
        by_replica: dict[str, list] = {}
        for result, tally, route in zip(outcome["results"], outcome["tallies"], outcome["routes"]):
            by_replica.setdefault(route.get("replica", "?"), []).append((result, tally))
        assert len(by_replica.get("r1", [])) == EDITORS_PER_REPLICA, by_replica  # spread by the proxy
        for result, tally in by_replica["r1"]:  # the visitors of the healthy replica did not notice
            assert result is None, result
            assert not tally.errors and not tally.exceptions, (dict(tally.errors), tally.exceptions)
            assert len(tally.edits) == 12
        # The killed replica comes back, and its visitors get a working page when they reload.
        new = int(server.wait_for_line(r"^replica 0: pid (\d+) ", timeout=90, start=seen)[1])
        assert new != outcome["victim"] and alive(new)
        tally = wire.Tally()
        deadline = time.monotonic() + 90
        while True:
            reloaded = wire.Tally()
            asyncio.run(editing(f"http://127.0.0.1:{server.port}", 2, reloaded))
            if not reloaded.errors and not reloaded.exceptions:
                break
            tally.errors.update(reloaded.errors)
            assert time.monotonic() < deadline, dict(tally.errors)
        print(f"\nkilled replica 0 (pid {outcome['victim']}) under 6 editors; restarted as pid {new}; "
              f"what its own visitors saw: {[repr(r)[:80] for r, _ in by_replica.get('r0', [])]}")
    finally:
        server.stop()


async def drop_mid_run(url: str, tally: "wire.Tally") -> None:
    """Open the Playground, send an edit and close the socket before the run has finished."""
    visitor = wire.Visitor(url, tally, timeout=60)
    await visitor.open("playground")
    await visitor.send_edit(wire.edit_value(3))
    await visitor.close()


def test_visitors_who_close_the_browser_mid_run_leave_nothing_behind(nginx, tmp_path):
    server = Served(tmp_path, replicas=1)
    try:
        url = f"http://127.0.0.1:{server.port}"
        pid = server.replica_pids()[0]
        for _ in range(3):  # warm: the model, the caches
            asyncio.run(editing(url, 1, wire.Tally()))
        time.sleep(2)
        before = rss_mb(pid)

        async def wave():
            tally = wire.Tally()
            await asyncio.gather(*(drop_mid_run(url, tally) for _ in range(20)))
            return tally

        for _ in range(5):  # 100 visitors who leave in the middle of a run
            tally = asyncio.run(wave())
            assert not tally.exceptions, tally.exceptions
        time.sleep(3)
        after = rss_mb(pid)
        healthy = wire.Tally()
        asyncio.run(editing(url, 2, healthy))  # the server still serves
        assert not healthy.errors and not healthy.exceptions
        print(f"\n100 visitors dropped mid-run: replica RSS {before:.0f} -> {after:.0f} MB")
        assert after - before < 40, (before, after)  # well under 0.5 MB per visitor
    finally:
        server.stop()
