"""Hosted mode: the heaviest Playground link with positions and a shuffle of 32 tokens stays within the page's bounds.

Measured the way tests/test_hostile.py measures the heaviest link without them (a real server in
hosted mode, Streamlit's websocket protocol, the server's CPU seconds from /proc): PE and X + PE
(32 × 16), P (32 × 32) and the outputs before and after the shuffle come on top of every step.
Also: an order as long as its box takes, made of anything, costs milliseconds and is said in words.
"""

from __future__ import annotations

import asyncio
from urllib.parse import quote

import pytest

from support import hostile

pytestmark = pytest.mark.system  # a hosted Streamlit server process, attacked over its websocket

MAX_LINK_BYTES, MAX_LINK_CPU_S = hostile.MAX_LINK_BYTES, hostile.MAX_LINK_CPU_S  # any link
HEAVIEST = "preset=random&seed=7&size=32.16.16.16&scale=1&causal=1&bias=1&focus=32"
REVERSED = " ".join(str(32 - i) for i in range(32))


@pytest.fixture
def server(hosted):
    """The worker's hosted server (tests/conftest.py), shared with the other hostile modules."""
    return hosted


def open_cost(server, query: str) -> tuple[hostile.Cost, list[str]]:
    pid = server.pids()[0]

    async def run():
        async with hostile.visitor(server.url) as v:
            cost = await hostile.measure(pid, lambda: v.open_link("playground", query))
            cost.received, cost.exceptions = v.received, v.tally.exceptions
            return cost, v.texts()

    return asyncio.run(run())


@pytest.mark.parametrize("pos", ["sinusoidal", "learned"])
def test_the_heaviest_link_with_positions_and_a_shuffle_is_bounded(server, pos):
    base, _ = open_cost(server, HEAVIEST)  # the same link without them, for the figures in the report
    cost, texts = open_cost(server, f"{HEAVIEST}&pos={pos}&pseed=9&order={quote(REVERSED)}")
    print(f"\nwithout: {base.received} bytes, {base.cpu_s:.3f} s CPU; {pos}: {cost.received} bytes, "
          f"{cost.cpu_s:.3f} s CPU")
    assert cost.exceptions == 0
    assert cost.received <= MAX_LINK_BYTES and cost.cpu_s <= MAX_LINK_CPU_S, cost
    assert any("The outputs changed" in t for t in texts)


def test_a_crafted_order_is_said_in_words_and_costs_little(server):
    crafted = ("9" * 7 + ",") * 40 + "[x](http://example.com)"  # 400 characters, the box's limit
    cost, texts = open_cost(server, f"order={quote(crafted[:400])}")
    assert cost.exceptions == 0 and cost.cpu_s <= MAX_LINK_CPU_S, cost
    assert any("is not a token number" in t for t in texts)
