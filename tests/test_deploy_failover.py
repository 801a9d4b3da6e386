"""A replica lost in the middle of a lesson (issue 41, item 3), run for real: deploy/serve.sh with 3 replicas behind
nginx (sticky by cookie, each replica's pool backed by the others), a class of visitors through Streamlit's websocket.

Nine visitors open the Playground, each at their own link (the random preset, their own seed), and spread over the
three replicas, one cookie each. Replica 1 is killed (SIGKILL, as a crash or an evicted pod). Then: the visitors of
the other replicas edit on, on their own websockets, undisturbed; each visitor of the dead replica reloads (the
browser sends its stale cookie), lands on a live replica (the cookie is set again to it; serve.sh restarts the dead
one after a delay) and finds its view again from its link: the same numbers, step for step, as before the crash.
"""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from support.deploy import COOKIE, Served
from support.visitor import Tally, Visitor

pytestmark = pytest.mark.system

VISITORS = 9


def link(k: int) -> str:
    return f"preset=random&seed={100 + k}"


async def lesson(server: Served) -> None:
    base = f"http://127.0.0.1:{server.port}"
    tally = Tally()
    visitors = [Visitor(base, tally, timeout=120) for _ in range(VISITORS)]
    for k, v in enumerate(visitors):  # one after another, as a class comes in: new visitors spread over replicas
        await v.open("playground", link(k))
    where = [v.cookies[COOKIE] for v in visitors]
    assert set(where) == {"r0", "r1", "r2"}, where
    seen = [v.step_text() for v in visitors]
    assert all(seen) and len(set(seen)) == VISITORS  # each link its own numbers

    killed = server.replica_pids()[1]
    os.kill(killed, signal.SIGKILL)
    await asyncio.sleep(0.5)

    for k, v in enumerate(visitors):
        if where[k] != "r1":  # undisturbed: an edit on the websocket it has
            await v.edit(f"{k + 2}.5")
            assert v.step_text() != seen[k]
    assert not tally.errors, tally.errors

    for k, v in enumerate(visitors):
        if where[k] == "r1":  # the browser reloads its link, with its stale cookie
            await v.close()
            again = Visitor(base, Tally(), timeout=120)
            again.cookies = dict(v.cookies)
            await again.open("playground", link(k))
            # set again to the replica that answered: another one (or r1 only if serve.sh has restarted it since)
            assert again.cookies[COOKIE] != "r1" or server.replica_pids()[1] != killed, again.cookies
            assert again.step_text() == seen[k]  # its view, from its link
            await again.close()
    for k, v in enumerate(visitors):
        if where[k] != "r1":
            await v.close()


def test_a_replica_lost_mid_lesson_loses_only_its_own_visitors_who_find_their_view_again(nginx, tmp_path):
    server = Served(tmp_path, replicas=3)
    try:
        asyncio.run(lesson(server))
    finally:
        server.stop()
