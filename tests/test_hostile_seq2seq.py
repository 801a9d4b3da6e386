"""A hostile visitor against the Encoder–decoder page of a real server in hosted mode (issue 39, item 5).

Crafted editor states and settings sent over Streamlit's websocket (support/hostile.py) and crafted links, as the
block page is attacked in tests/test_hostile_block.py: the server stays up, the page names what it refused, the
torch check of the last good result stays, and each message or link costs little server CPU and bytes.
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest

from support import hostile

pytestmark = pytest.mark.system  # a hosted Streamlit server process, attacked over its websocket

SOURCE = r"-s2sed_src_\d+$"  # the source X editor's widget id ends with its key, s2sed_src_<version> (ui/seq2seq/page.py)
MAX_CPU_S = 2.0  # one crafted message; a page run is ~0.1 s, the faults guarded against cost seconds to minutes
CHECKED = "Checked against `torch.nn.Transformer`"
FIRST_ROW = ["-1.84", "-1.49", "1.89", "0.86"]  # the default source X's first row (4 × 4, seed 0)


@pytest.fixture
def server(hosted):
    """The worker's hosted server (tests/conftest.py), shared with the other hostile modules."""
    return hosted


def sent_table(cells) -> tuple[str, str]:
    """The editor's widget state as the grid sends it, holding ``cells``."""
    return "json_value", json.dumps({"table": {"rev": 1, "cells": cells}})


def one_cell(value) -> list:
    """The default source with one cell replaced by ``value``."""
    return [list(FIRST_ROW), list(FIRST_ROW), [*FIRST_ROW[:2], value, FIRST_ROW[3]], list(FIRST_ROW)]


def check_lines(texts: list[str]) -> list[str]:
    return [t for t in texts if t.startswith(CHECKED)]


def test_a_crafted_editor_state_is_refused_by_name_and_the_checked_result_stays(server):
    """The page's one crafted table over the websocket, the heaviest: ~1 MB in one cell. Every other crafted state
    is refused by the kit's Editors.check, tried on every table of every editable page in tests/test_editor_guard.py."""
    cost, before, after = hostile.attack(server, "seq2seq", "", {SOURCE: sent_table(one_cell("9" * 900_000))})
    assert cost.cpu_s <= MAX_CPU_S and cost.exceptions == 0, cost
    assert any("A change to Source X was not used" in t and "longer than its column takes" in t for t in after), after
    assert check_lines(after) == check_lines(before) != []  # the numbers are as they were


@pytest.mark.parametrize("values", [
    {r"-s2s_n$": ("int_value", 10**9)},  # Streamlit puts a number input back in its range
    {r"-s2s_enc$": ("int_value", 99)},
    {r"-s2s_dec$": ("int_value", -5)},
    {r"-s2s_heads$": ("string_value", "3")},  # not an option of d_model 4: not read (a state of another type than
    # the widget's is one Streamlit cannot read before the page runs: its sender alone gets the generic error, as
    # tests/test_hostile.py shows)
    {r"-s2s_dff$": ("int_value", 10**6)},
])
def test_crafted_sizes_are_kept_in_bounds_and_the_page_stays_checked(server, values):
    cost, _, after = hostile.attack(server, "seq2seq", "", values)
    assert cost.exceptions == 0 and cost.cpu_s <= MAX_CPU_S, cost
    assert check_lines(after), after


def test_a_link_of_two_megabytes_is_bounded(server):
    """Every table parameter of every layer far over its limit, the sizes at their largest, and junk: ~2 MB."""
    from selfattn.seq2seq.link import TABLE_PARAMS

    params = {name: "1_" * (1_900_000 // len(TABLE_PARAMS) // 2) for name in TABLE_PARAMS}
    params.update({"n": "8", "m": "8", "d": "16", "heads": "4", "dff": "64", "enc": "4", "dec": "4",
                   "text": "早" * 5000, "temp": "9" * 5000})
    query = urlencode(params)
    assert 1_800_000 <= len(query) <= 2_100_000
    cost = hostile.open_cost(server, "seq2seq", query)
    assert cost.exceptions == 0
    assert cost.received <= hostile.MAX_LINK_BYTES and cost.cpu_s <= hostile.MAX_LINK_CPU_S, cost


def test_the_heaviest_encoder_decoder_link_is_bounded(server):
    """The hosted maximum: 8 + 8 tokens, d_model 16, 4 heads, d_ff 64, 4 + 4 layers, pre-LN with GELU-tanh."""
    query = "n=8&m=8&d=16&heads=4&dff=64&enc=4&dec=4&norm=pre&act=gelu_tanh&step=8"
    cost = hostile.open_cost(server, "seq2seq", query)
    assert cost.exceptions == 0 and check_lines(cost.texts), cost.texts[:5]
    assert cost.received <= hostile.MAX_LINK_BYTES and cost.cpu_s <= hostile.MAX_LINK_CPU_S, cost
