"""A hostile visitor against the tiny poet (写诗) on a real server in hosted mode (issue 54, item 6).

Crafted widget states sent over Streamlit's websocket (support/hostile.py, support/visitor.py) and crafted links:
the server stays up, the page names what it refused, the last good poem stays on screen, and each message or link
costs little server CPU: the sampling is bounded per request (one poem and the checkpoint's, a hosted top-k of at
most 200, 16 characters typed).
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from support import hostile

pytestmark = pytest.mark.system  # a hosted Streamlit server process, attacked over its websocket

MAX_CPU_S = 2.0  # a poet run is ~0.1-0.4 s (one poem of 20-40 steps, the checks); wide: shared-machine noise
KEPT = "last good result"
FIRST = "春"  # the default acrostic's first character opens the poem


@pytest.fixture
def server(hosted):
    """The worker's hosted server (tests/conftest.py), shared with the other hostile modules."""
    return hosted


def poem_of(texts: list[str]) -> list[str]:
    """The poem's lines as the page shows them (one markdown of headings "### 春风……，", a line each)."""
    shown = next((t for t in texts if t.startswith("### ")), "")
    return [line.strip("# ") for line in shown.splitlines()]


@pytest.mark.parametrize("values, said", [
    ({r"-po_acrostic$": ("string_value", "春" * 10_000)}, "`acrostic`"),  # put back by the guard, named
    ({r"-po_acrostic$": ("string_value", "春夏秋冬😀")}, "😀: the poet writes Chinese characters only"),
    ({r"-po_acrostic$": ("string_value", "")}, "The acrostic is empty"),
    ({r"-po_acrostic$": ("string_value", "鑫花春夏")}, "鑫: not in the poems it learned from"),
    ({r"-po_acrostic$": ("string_value", "春夏秋冬" * 5)}, "at most 16"),  # hosted: 16 characters typed
    ({r"-po_top_k$": ("int_value", 500)}, "top-k must be a whole number from 1 to 200"),  # hosted top-k
    ({r"-po_top_k$": ("int_value", 10**12)}, "a value for `topk` that this page does not offer"),
    ({r"-po_seed$": ("int_value", -5)}, None),  # Streamlit puts a number input back in its range
    ({r"-po_seed$": ("int_value", 2**62)}, None),
])
def test_crafted_widget_states_are_refused_by_name_and_the_last_good_poem_kept(server, values, said):
    cost, before, after = hostile.attack(server, "poet", "", values)
    assert cost.exceptions == 0 and cost.cpu_s <= MAX_CPU_S, cost
    poem = poem_of(before)
    assert len(poem) in (4, 8) and poem[0].startswith(FIRST), before
    if said:
        assert any(said in t for t in after), after
    assert poem_of(after) == poem  # the last good poem is still shown, line for line


def test_a_refused_state_says_the_last_good_poem_is_kept(server):
    cost, before, after = hostile.attack(server, "poet", "", {r"-po_acrostic$": ("string_value", "鑫花春夏")})
    assert any("鑫" in t and KEPT in t for t in after), after


@pytest.mark.parametrize("params, named", [
    ({"temp": "9999"}, "temp"),
    ({"topk": "-1"}, "topk"),
    ({"topp": "abc"}, "topp"),
    ({"seed": str(2**64)}, "seed"),
    ({"acrostic": "x" * 20_000}, "acrostic"),
    ({"mode": "evil"}, "mode"),
    ({"step": "0"}, "step"),
    ({"ckpt": "-3"}, "ckpt"),
    ({"greedy": "2"}, "greedy"),
])
def test_crafted_links_are_refused_by_name(server, params, named):
    cost = hostile.open_cost(server, "poet", urlencode(params))
    assert cost.exceptions == 0 and cost.cpu_s <= hostile.MAX_LINK_CPU_S, cost
    assert any(t.startswith("This link was opened, except") and named in t for t in cost.texts), cost.texts[:6]
    assert len(poem_of(cost.texts)) in (4, 8), cost.texts[:10]  # the default poem, written


def test_the_heaviest_poet_link_is_bounded(server):
    """The hosted maximum a link may ask: eight lines given as an acrostic, the hosted top-k, top-p off, the
    highest temperature, a large seed, the last step and the first checkpoint (two poems written)."""
    query = urlencode({"acrostic": "春夏秋冬山水花鸟", "topk": "200", "topp": "100", "temp": "300",
                       "seed": str(2**32 - 1), "step": "40", "ckpt": "0"})
    cost = hostile.open_cost(server, "poet", query)
    assert cost.exceptions == 0, cost.texts[:6]
    assert len(poem_of(cost.texts)) == 8, cost.texts[:12]
    assert cost.received <= hostile.MAX_LINK_BYTES and cost.cpu_s <= hostile.MAX_LINK_CPU_S, cost


def test_a_link_of_two_megabytes_is_bounded(server):
    """Every setting far over its limit, and junk: ~2 MB that must cost no more than any link."""
    params = {"acrostic": "春" * 300_000, "first": "白" * 300_000, "temp": "9" * 5000, "seed": "1" * 5000,
              "junk": "x" * 1_000_000}
    query = urlencode(params)
    assert len(query) >= 1_800_000
    cost = hostile.open_cost(server, "poet", query)
    assert cost.exceptions == 0
    assert cost.received <= hostile.MAX_LINK_BYTES and cost.cpu_s <= hostile.MAX_LINK_CPU_S, cost
