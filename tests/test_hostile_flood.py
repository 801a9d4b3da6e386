"""Issue 55: a stranger with many sockets, against one hosted process (the attacks of docs/reliability.md's
"A stranger, round four").

- Every run waits its turn, whole or a fragment's, on every page: a flood of edits (fragment reruns) of the
  heaviest Encoder–decoder view, or of whole reruns of the Playground, from ten sockets of one address, leaves
  another visitor's open and a plain GET answered at once.
- The last edit stands: a burst of edits over a session's message rate ends at its last edit, not at the
  fortieth (the rest used to be dropped without a word).

The server reads each visitor's address from X-Real-IP, as behind deploy/serve.sh's proxy; the flood's sockets and
the honest visitor send different ones (the same address, a class's, is measured by benchmarks/bench_flood.py).
"""

from __future__ import annotations

import asyncio
from urllib.parse import unquote

import pytest

from support import hostile, visitor as wire

pytestmark = pytest.mark.system  # a hosted Streamlit server process, flooded over its websocket

MAXIMAL_SEQ2SEQ = "n=8&m=8&d=16&heads=4&dff=64&enc=4&dec=4&norm=pre&act=gelu_tanh&step=8"
MAXIMAL_BLOCK = "n=16&d=16&heads=4&dff=64&layers=6&norm=pre&act=gelu_tanh&causal=1&final=1"
OPEN_S, GET_S = 2.0, 1.0  # the targets: an honest open within 2 s, a GET within 1 s, during any flood
# ... on a machine that gives them at once. Where the machine is busy with other work (the whole suite's four workers
# on two cores), the same probes just before the flood took longer already: the flood may then cost them up to
# CALM_TIMES their calm time, which still fails the old freeze (12-15 s against calm opens of 0.1-0.3 s).
# Three probes each: the middle one within the bound, the slowest within twice it (one probe of three may meet a
# busy moment of the machine's other work; the freeze held every probe: 2.9-27 s, docs/reliability.md).
CALM_TIMES = 4


def bound(target: float, calm: list[float]) -> float:
    return max(target, CALM_TIMES * max(calm))


def served(times: list[float], target: float, calm: list[float]) -> bool:
    return len(times) == 3 and sorted(times)[1] <= bound(target, calm) and max(times) <= 2 * bound(target, calm)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with hostile.hosted_server(tmp_path_factory.mktemp("hostile_flood")) as target:
        yield target


def flooded(target, page: str, query: str, **kwargs) -> hostile.Flood:
    result = asyncio.run(hostile.flood(target.url, page, query, pid=target.pids()[0], **kwargs))
    print(f"\n{page} flood: {result.sent} reruns in {result.seconds:.1f} s, {result.cpu_s:.1f} s of server CPU; "
          f"the honest visitor's opens {[round(s, 2) for s in result.opens]} s, GETs "
          f"{[round(s, 2) for s in result.gets]} s (before the flood: {[round(s, 2) for s in result.calm_opens]}, "
          f"{[round(s, 2) for s in result.calm_gets]} s)")
    assert len(result.calm_opens) == len(result.calm_gets) == 3, result
    assert not result.tally.errors and result.tally.exceptions == 0, result.tally
    return result


@pytest.mark.parametrize("page, query, honest_page", [
    ("seq2seq", MAXIMAL_SEQ2SEQ, "seq2seq"),  # its edits rerun a fragment: they skipped the heavy line
    ("block", MAXIMAL_BLOCK, "block"),  # the same (a fragment), its edits through the line too
    # a light page's fragment: it waits its turn too. It failed after the two maximal floods above, or beside other
    # work on the machine (the honest GET 2.3 s, the open 4-21 s): the flooding client held both of the process's
    # places, two busy threads left the event loop a third of the interpreter; a client now holds one (CLIENT_AT_ONCE)
    ("playground", "", "playground"),
])
def test_a_flood_of_fragment_edits_leaves_another_visitor_served(server, page, query, honest_page):
    """Sixteen sockets each edit a table of the page twice a second, a new number each time (each a fragment
    rerun, the whole model computed again); another visitor opens the same page three times meanwhile. Before,
    the Encoder–decoder's edits ran beside every other run: that visitor's open took 1.8-24.6 s."""
    result = flooded(server, page, query, sockets=16, per_s=2.0, edits=True, honest_page=honest_page)
    assert served(result.opens, OPEN_S, result.calm_opens), result
    assert served(result.gets, GET_S, result.calm_gets), result


def test_ten_sockets_of_whole_reruns_leave_another_visitor_served(server):
    """The review's attack: ten sockets each ask for a whole rerun of the Playground twice a second (a tenth of a
    session's message rate each), sending no cached message; another visitor opens the Playground and GETs it."""
    result = flooded(server, "playground", "", sockets=10, per_s=2.0, edits=False, warm_s=5.0)
    assert served(result.opens, OPEN_S, result.calm_opens), result
    assert served(result.gets, GET_S, result.calm_gets), result


def test_a_burst_of_45_edits_ends_at_the_45th(server):
    """45 edits of one cell at once (a paste, a fast typist on a slow link): more than a session's burst of
    messages (40). The page and its link end at the 45th edit; before, at the 40th (the rest dropped)."""
    async def scenario():
        v = wire.Visitor(server.url, wire.Tally(), hostile.TIMEOUT)
        try:
            await v.open("playground")
            for k in range(1, 46):
                await v.send_edit(str(100_000 + k))
            await hostile.read_until_quiet(v, quiet_s=3.0, limit_s=60.0)
            return v.step_text(), unquote(v.query_string), v.tally
        finally:
            await v.close()

    steps, link, tally = asyncio.run(scenario())
    assert tally.exceptions == 0 and not tally.errors, tally
    assert "dx=0.0.100045" in link, link  # X's first cell, x1, as the 45th edit typed it
    assert "100045×" in steps and "100040" not in steps, steps[:400]  # the steps computed from it
