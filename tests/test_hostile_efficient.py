"""A hostile visitor against Efficient attention on a real server in hosted mode (issue 53).

Crafted widget states sent over Streamlit's websocket (support/hostile.py, support/visitor.py) and crafted links:
the server stays up, the page names what it refused, the last good result (the torch check at the last tile)
stays, each message costs little server CPU, and the timing button is bounded (one at a time, a cooldown).
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlencode

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetState

from support import hostile, visitor as wire

pytestmark = pytest.mark.system  # a hosted Streamlit server process, attacked over its websocket

MAX_CPU_S = 2.0  # a tiles rerun is ~0.1-0.3 s; a wide bound, as shared-machine noise
LAST = "step=6"  # the default tiles at their last step: the torch check is shown
CHECKED = "Equal to torch's `scaled_dot_product_attention`"
KEPT = "last good result"


@pytest.fixture
def server(hosted):
    """The worker's hosted server (tests/conftest.py), shared with the other hostile modules."""
    return hosted


def checked(texts: list[str]) -> list[str]:
    return [t for t in texts if t.startswith(CHECKED)]


@pytest.mark.parametrize("query, values, said", [
    (LAST, {r"-ef_n$": ("int_value", 99)}, "n = 99 is over this page's limit of 12"),
    (LAST, {r"-ef_n$": ("int_value", 10**9)}, "a value for `n` that this page does not offer"),
    (LAST, {r"-ef_d$": ("int_value", 9)}, "d = 9 is over this page's limit of 8"),
    (LAST + "&typed=1", {r"-ef_qkv$": ("string_value", "# Q\n1,x\n# K\n1,2\n# V\n1,2")}, "is not a finite number"),
    (LAST + "&typed=1", {r"-ef_qkv$": ("string_value", "1," * 450_000)}, None),  # ~1 MB: cut or put back, bounded
])
def test_crafted_widget_states_are_refused_by_name_and_the_last_good_kept(server, query, values, said):
    cost, before, after = hostile.attack(server, "efficient", query, values)
    assert cost.exceptions == 0 and cost.cpu_s <= MAX_CPU_S, cost
    if said:
        assert any(said in t for t in after), after
        assert checked(after) == checked(before) != []  # the last good result's check is still shown
        if "over this page's limit" in said or "finite" in said:
            assert any(said in t and KEPT in t for t in after), after


@pytest.mark.parametrize("params, named", [
    ({"bq": "0", "step": "6"}, "bq"),
    ({"n": "-3", "step": "6"}, "n"),
    ({"qkv": "1\x01", "typed": "1", "step": "6"}, "qkv"),
    ({"qkv": "x" * 20_000, "typed": "1", "step": "6"}, "qkv"),
    ({"part": "evil", "step": "6"}, "part"),
])
def test_crafted_links_are_refused_by_name(server, params, named):
    cost = hostile.open_cost(server, "efficient", urlencode(params))
    assert cost.exceptions == 0 and cost.cpu_s <= hostile.MAX_LINK_CPU_S, cost
    assert any(t.startswith("This link was opened, except") and named in t for t in cost.texts), cost.texts[:6]
    assert checked(cost.texts), cost.texts[:6]  # the default tiles, computed and checked


def test_the_timing_button_is_bounded_in_hosted_mode(server):
    """Hosted: the button times n = 256 and 512 only, and a second press at once is refused by its cooldown."""
    pid = server.pids()[0]

    async def run():
        async with hostile.visitor(server.url) as v:
            await v.open_link("efficient", "part=traffic")

            async def click():
                wid = v.widget_id(r"-ef_time$")
                states = [*(s for w, s in v.widgets.items() if w != wid), WidgetState(id=wid, trigger_value=True)]
                await v.ws.send(wire.rerun_request(url=v.url, page_hash=v.page_hash, query_string=v.query_string,
                                                   widgets=states, cached_hashes=v.cache))
                await v.finish_run()

            first = await hostile.measure(pid, click)
            texts_first = v.texts()
            await click()
            first.exceptions = v.tally.exceptions
            return first, texts_first, v.texts()

    cost, first, second = asyncio.run(run())
    assert cost.exceptions == 0 and cost.cpu_s <= 20, cost
    assert any(t.startswith("Measured just now on this server") for t in first), first
    assert any("At n = 512, SDPA took" in t for t in first), first
    assert any("You ran a benchmark moments ago" in t for t in second), second
