"""A hostile visitor against the Playground of a real server in hosted mode (issue 21).

Each attack is sent the way an attacker would send it: crafted widget states over Streamlit's
websocket protocol (tests/hostile.py) and crafted uploads; crafted links in a real Chromium are in
tests/test_hostile_browser.py. Each test asserts the attack's bound; the
figures before and after are in docs/reliability.md ("A hostile visitor").
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest

from support import hostile, server as servers

pytestmark = pytest.mark.system  # a hosted Streamlit server process, attacked over its websocket

ROOT = Path(__file__).resolve().parents[1]
X = r"-pged_x_\d+$"  # the X editor's widget id ends with its key
MAX_CPU_S = 1.0  # any crafted widget message
MAX_LINK_BYTES, MAX_LINK_CPU_S = hostile.MAX_LINK_BYTES, hostile.MAX_LINK_CPU_S  # any link


@pytest.fixture
def server(hosted):
    """The worker's hosted server (tests/conftest.py), shared with the other hostile modules."""
    return hosted


def attack(server, query: str, *widgets: dict) -> tuple[hostile.Cost, list[str], list[str]]:
    """Open /playground at ``query``, then send each of ``widgets`` in turn (``support.hostile.attack``)."""
    return hostile.attack(server, "playground", query, *widgets)


ROW = ["t", "1", "0", "1", "0"]  # a row of the tutorial's X: its label, then x1..x4


def editor(cells, rev=1) -> tuple[str, str]:
    """The X editor's state as the browser's matrix editor sends it: its full table as typed."""
    return "json_value", json.dumps({"table": {"rev": rev, "cells": cells}})


def with_cell(row: int, col: int, value) -> list:
    """The tutorial's X (3 rows) with one cell set to ``value``."""
    cells = [list(ROW) for _ in range(3)]
    cells[row][col] = value
    return cells


def numbers(texts: list[str]) -> list[str]:
    """The step-by-step code blocks: they change with every number of the tables."""
    return [t for t in texts if "q1·k1" in t or "softmax(" in t]


def test_rows_sent_for_a_fixed_table_cost_milliseconds_and_change_nothing(server):
    """The Playground's one crafted table over the websocket: every other crafted state is refused by the kit's
    Editors.check, tried on every table of every editable page in tests/test_editor_guard.py."""
    cost, before, after = attack(server, "", {X: editor([ROW] * 10_000)})
    assert cost.cpu_s <= MAX_CPU_S, cost  # was 4.2 s for 2,000 rows, minutes for 10,000
    assert cost.exceptions == 0
    assert any("A change to X was not used" in t and "fixed size" in t for t in after), after
    assert numbers(after) == numbers(before)  # the table is as it was


def test_the_page_serves_others_at_once_after_an_attack(server):
    async def run():
        async with hostile.visitor(server.url) as attacker, hostile.visitor(server.url) as other:
            await attacker.open_link("playground")
            await attacker.send(**{X: editor([ROW] * 10_000)})
            await attacker.close()  # the sender leaves at once
            loop = asyncio.get_running_loop()
            start = loop.time()
            await other.open_link("playground")
            return loop.time() - start, other.tally.exceptions

    seconds, exceptions = asyncio.run(run())
    assert exceptions == 0, exceptions  # served (~0.3 s on a quiet server; timings are the benchmarks')


def test_an_edit_reruns_only_the_fragment_and_a_crafted_one_is_still_refused(server):
    """The editors sit in a fragment, so the browser asks for a fragment rerun: the page's checks run
    there too, and a refusal reruns the whole page to say so (the attack above, as the browser sends it)."""
    async def run():
        async with hostile.visitor(server.url) as v:
            await v.open_link("playground")
            fragment = v.fragments[v.widget_id(X)]
            await v.send_edit("7")
            await v.finish_run()
            edited = v.texts()
            await v.send(**{X: editor([ROW] * 10_000)})
            await v.finish_run()
            return fragment, edited, v.texts(), v.tally.exceptions

    fragment, edited, after, exceptions = asyncio.run(run())
    assert fragment and exceptions == 0
    assert any("[7" in t for t in edited)
    assert any("A change to X was not used" in t and "fixed size" in t for t in after), after
    assert numbers(after) == numbers(edited)


@pytest.mark.parametrize("values", [
    {X: ("json_value", "not json {")},  # a component's state is JSON text
    {r"-pg_seed$": ("double_value", float("nan"))},  # a whole-number box: int(nan) raises
])
def test_what_streamlit_cannot_read_fails_only_its_sender(server, values):
    """Streamlit reads these states itself before the page runs (to see which widgets changed), so
    the page cannot catch them: the sender alone gets Streamlit's generic error, with no details,
    and everyone else goes on."""
    async def run():
        async with hostile.visitor(server.url) as attacker, hostile.visitor(server.url) as other:
            await attacker.open_link("playground")
            await other.open_link("playground")
            pid = server.pids()[0]

            async def act():
                await attacker.send(**values)
                await attacker.finish_run()
            cost = await hostile.measure(pid, act)
            await other.send_edit("7")
            await other.finish_run()
            return cost, attacker.tally, other

    cost, tally, other = asyncio.run(run())
    assert cost.cpu_s <= MAX_CPU_S, cost
    assert tally.exceptions == 1 and "redacted" in tally.samples[0] and "File " not in tally.samples[0]
    assert other.tally.exceptions == 0 and any("7×" in t or "7 ×" in t or "[7" in t for t in other.texts())


def test_a_message_over_one_megabyte_is_not_read(server):
    """Streamlit closes a connection whose message is over server.maxWidgetStateSize (1 MB)."""
    cost, _, _ = attack(server, "", {X: editor(with_cell(0, 1, "1" * 4_000_000))})
    assert cost.closed and cost.cpu_s <= MAX_CPU_S, cost  # a 4 MB cell was accepted before


@pytest.mark.parametrize("values", [
    {r"-pg_seed$": ("int_value", 2**62)},  # Streamlit itself puts a number input back in its range
    {r"-pg_seed$": ("double_value", 1e300)},  # beyond its box: Streamlit itself puts it back
    {r"-pg_focus__\w+$": ("string_value", "99: [evil](http://127.0.0.1:9/)")},  # not an option
    {r"-pg_preset__\w+$": ("string_value", "x" * 100_000), r"-pg_causal$": ("string_value", "")},
])
def test_widget_values_no_browser_sends_change_nothing(server, values):
    cost, before, after = attack(server, "", values)
    assert cost.exceptions == 0 and cost.cpu_s <= MAX_CPU_S, cost
    assert numbers(after) == numbers(before)


def test_a_text_longer_than_its_box_takes_is_cut_on_the_server():
    """The browser's max_chars is no check: a websocket client can send any text; Streamlit 1.67 cuts
    a text input's value to its max_chars on the server, and the settings' own check stands behind it."""
    from support.apptest import open_page

    at = open_page("heads")
    at.session_state["hd_input"] = "sentence"
    at.run()
    at.session_state["hd_text"] = "我" * 100_000  # AppTest's own input() keeps to max_chars, as a browser does
    at.run()
    assert not at.exception and len(at.session_state["hd_text"]) <= 200


def test_a_setting_its_table_cannot_hold_is_put_back_and_said():
    from support.apptest import open_page, shown

    at = open_page("playground")
    at.session_state["pg_focus"] = 2
    at.run()
    for value in (10**9, -1, "2", None, [1]):
        at.session_state["pg_focus"] = value
        at.run()
        assert not at.exception and at.session_state["pg_focus"] == 2, value  # as it was before
        assert any("`focus`" in w.value and "does not offer" in shown(w.value) for w in at.warning), value


def test_the_heaviest_playground_link_is_bounded(server):
    """The largest tables the page takes, random numbers, every option on."""
    pid = server.pids()[0]

    async def run():
        async with hostile.visitor(server.url) as v:
            cost = await hostile.measure(pid, lambda: v.open_link(
                "playground", "preset=random&seed=7&size=32.16.16.16&scale=1&causal=1&bias=1&focus=32"))
            cost.received, cost.exceptions = v.received, v.tally.exceptions
            return cost

    cost = asyncio.run(run())
    assert cost.exceptions == 0
    assert cost.received <= MAX_LINK_BYTES and cost.cpu_s <= MAX_LINK_CPU_S, cost


# ── Uploads: scanned before they are parsed ──────────────────────────────────────────────
@pytest.mark.parametrize("name", list(hostile.UPLOADS))
def test_an_upload_within_the_size_limit_costs_little(tmp_path, name):
    """Each file is under the page's 1 MB limit; the parse runs in a fresh process to read its memory."""
    path = tmp_path / "upload.csv"
    path.write_text(hostile.UPLOADS[name])
    assert path.stat().st_size <= 1024 * 1024
    cpu_s, grew_mb, code = hostile.upload_cost(ROOT, path)
    assert code == "upload_shape", (name, code)
    assert cpu_s <= 0.5 and grew_mb <= 100, (name, cpu_s, grew_mb)  # was 21 s and +1,223 MB


# ── The step maps' pick trigger: a click on a query's row makes that token the focus ─────
CRAFTED_PICKS = {  # a pick trigger's value as JSON text: none of these names a row of a 3-token map
    "1e9": "1e9", "-1": "-1", "1.5": "1.5", "true": "true", '"1"': '"1"', "[1]": "[1]", '{"x": 1}': '{"x": 1}',
    "NaN": "NaN", "Infinity": "Infinity", "-Infinity": "-Infinity", "null": "null", "3": "3",
    "2**70": str(2**70), "10**400": str(10**400),  # no float holds it: compared as the whole number it is
    "0.9 MB of text": json.dumps("1" * 900_000),  # under the 1 MB a message may hold
}
MAP_WEIGHTS = r"-map_weights$"


def test_picked_takes_only_a_whole_number_naming_a_row():
    from ui.components.heatmap import PICK, picked

    for text in CRAFTED_PICKS.values():
        assert picked({PICK: json.loads(text)}, 3) is None, text[:20]
    for value in (10**9, -1, 1.5, True, False, "1", [1], {"x": 1}, float("nan"), float("inf"), -float("inf"), None,
                  3, 2**70, 10**400, -10**400, "1" * 4_000_000, b"1", 1j):
        assert picked({PICK: value}, 3) is None, repr(value)[:20]
    for state in (None, 2, "pick", [2], {"other": 2}, {PICK + " ": 2}, [[PICK, 2]]):  # not a component's state
        assert picked(state, 3) is None, state
    assert picked({PICK: 2}, 3) == 2 and picked({PICK: 0}, 3) == 0 and picked({PICK: 2.0}, 3) == 2
    assert isinstance(picked({PICK: 2.0}, 3), int)
    assert picked({PICK: 2}, 2) is None and picked({PICK: 0}, 0) is None  # a map of 0 rows (the focus's) picks none


def test_a_crafted_pick_sent_to_a_row_of_maps_changes_nothing_and_a_click_picks():
    """The block's flow is one element, a row of maps (ui.components.heatmap.MapRow): its trigger names a map and a
    row. A value that is not {"map": a key of this row, "row": one of that map's rows} picks nothing: another row's
    map, a key of no map, a key that is not text, or any crafted row."""
    from support.apptest import mounted_maps, open_page, send_trigger, step_maps

    at = open_page("block")
    row = mounted_maps(at)["map_tb_layer1_q"][0]
    assert row.startswith("maps_") and {m for m, (r, _) in mounted_maps(at).items() if r == row} >= {
        "map_tb_layer1_input", "map_tb_layer1_q", "map_tb_layer1_att1"}
    shown_before = {key: data["cells"] for key, data in step_maps(at).items()}
    crafted = [*({"map": "map_tb_layer1_q", "row": json.loads(text)} for text in CRAFTED_PICKS.values() if text != "3"),
               {"map": "map_tb_layer1_q", "row": 4},  # the block's 4 tokens: rows 0-3
               {"map": "map_tb_layer1_qq", "row": 1}, {"map": "map_outputs", "row": 1}, {"map": ["map_tb_layer1_q"]},
               {"map": {"map_tb_layer1_q": 1}, "row": 1}, {"map": None, "row": 1}, {"row": 1}, "map_tb_layer1_q",
               [1], 1, None, {"map": "map_tb_layer1_q"}, {"map": "map_tb_layer1_q", "row": [1]},
               {"map": "map_tb_layer1_q" * 50_000, "row": 1}]
    for value in crafted:
        send_trigger(at, row, value)
        assert not at.exception, (repr(value)[:40], [e.value for e in at.exception])
        assert at.session_state["tb_focus"] == 0, repr(value)[:40]
        assert {key: data["cells"] for key, data in step_maps(at).items()} == shown_before, repr(value)[:40]
    send_trigger(at, row, {"map": "map_tb_layer1_att2", "row": 2})  # a click on query 3 of head 2's weights
    assert not at.exception and at.session_state["tb_focus"] == 2
    assert {data["focus"] for data in step_maps(at).values() if data["link"]} == {2}
    at.run()  # sent once: the next run does not pick again
    assert not at.exception and at.session_state["tb_focus"] == 2


def test_a_crafted_pick_through_apptest_changes_nothing_and_a_click_picks():
    from support.apptest import open_page, send_pick, step_maps

    at = open_page("playground")
    shown_before = {key: data["cells"] for key, data in step_maps(at).items()}
    for text in CRAFTED_PICKS.values():
        send_pick(at, "weights", json.loads(text))
        assert not at.exception, (text[:20], [e.value for e in at.exception])
        assert at.session_state["pg_focus"] == 0, text[:20]
        assert {data["focus"] for data in step_maps(at).values()} == {0}, text[:20]
        assert {key: data["cells"] for key, data in step_maps(at).items()} == shown_before, text[:20]
    send_pick(at, "weights", 2)  # a click on row 3 of the weights
    assert not at.exception and at.session_state["pg_focus"] == 2
    maps = step_maps(at)
    assert {data["focus"] for data in maps.values()} == {2} and "weighted_values_3" in maps
    assert any(c.value.startswith("q3·k1") for c in at.text)  # step 4 of token 3
    send_pick(at, "outputs", 1)  # a click on row 2 of the outputs
    assert at.session_state["pg_focus"] == 1
    send_pick(at, "weighted_values_2", 0)  # the focus's own map picks nothing
    assert at.session_state["pg_focus"] == 1
    at.run()  # a trigger is sent once: the next run does not pick again
    assert not at.exception and at.session_state["pg_focus"] == 1


def test_map_data_writes_torch_computed_steps_to_four_digits_with_their_colours():
    """map_data against attention computed apart, by torch: every cell's text, −∞ where masked (grey,
    never sent as a number), the colour scale's ends and stops by role."""
    import math

    import torch

    from selfattn.display import colours
    from ui.components.heatmap import map_data

    gen = torch.Generator().manual_seed(5)
    x, w_q, w_k, w_v = (torch.randn(shape, generator=gen, dtype=torch.float64) * 3
                        for shape in ((5, 4), (4, 3), (4, 3), (4, 2)))
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T
    masked = (scores / math.sqrt(3)).masked_fill(torch.ones(5, 5, dtype=torch.bool).triu(1), -math.inf)
    weights = torch.softmax(masked, dim=-1)
    outputs = weights @ v
    tokens = [f"t{i}" for i in range(5)]

    from support.apptest import four_digits as text  # worked out with decimal: 12, then 4 significant digits

    for matrix, cols, role, domain, link in ((q, ["q1", "q2", "q3"], "values", None, "q"),
                                             (masked, tokens, "values", None, "scaled"),
                                             (weights, tokens, "weights", (0.0, 1.0), "weights"),
                                             (outputs, ["v1", "v2"], "outputs", None, "out")):
        data = map_data(matrix.numpy(), tokens, cols, name="m", role=role, domain=domain, link=link, focus=3)
        assert data["cells"] == [[text(float(c)) for c in row] for row in matrix.tolist()], link
        finite = matrix[torch.isfinite(matrix)]
        lo, hi = domain or (float(finite.min()), float(finite.max()))
        assert (data["lo"], data["hi"]) == pytest.approx((lo, hi), rel=1e-12, abs=1e-15), link
        assert (data["low_text"], data["high_text"]) == (text(lo), text(hi)), link
        assert data["stops"] == list(colours.stops(role)) and data["masked"] == colours.MASKED_GREY, link
        assert data["rows"] == tokens and data["cols"] == cols and data["focus"] == 3 and data["link"] == link
        json.dumps(data, allow_nan=False)  # no NaN or ±Infinity sent as a number: the browser's JSON has none
    assert map_data(masked.numpy(), tokens, tokens, name="m")["cells"][0][1:] == ["−∞"] * 4  # above the diagonal
    assert sum(row.count("−∞") for row in map_data(masked.numpy(), tokens, tokens, name="m")["cells"]) == 10
    empty = map_data(np.full((2, 2), -np.inf), ["a", "b"], ["a", "b"], name="m")  # every cell masked
    assert (empty["lo"], empty["hi"]) == (0.0, 0.0) and json.dumps(empty, allow_nan=False)
    with pytest.raises(ValueError):
        map_data(q.numpy(), tokens, ["q1", "q2", "q3"], name="m", link="nowhere")


def test_the_playground_maps_show_torch_computed_attention_of_its_own_tables():
    """The page's step maps (support/apptest.step_maps) against torch, from the tables the page holds."""
    import math

    import torch

    from selfattn.display import colours
    from support.apptest import assert_map_shows, open_link, playground_tables, step_maps

    at = open_link("playground", {"preset": "random", "seed": "7", "causal": "1", "scale": "1"})
    assert not at.exception and not at.error and at.session_state["pg_scale"]
    tables = playground_tables(at)

    def tensor(name: str) -> torch.Tensor:
        return torch.tensor([[float(cell) for cell in row] for row in tables[name]], dtype=torch.float64)

    x, w_q, w_k, w_v = (tensor(name) for name in ("x", "w_q", "w_k", "w_v"))
    n, d_k = x.shape[0], w_q.shape[1]
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scaled = (q @ k.T / math.sqrt(d_k)).masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), -math.inf)
    weights = torch.softmax(scaled, dim=-1)
    for key, matrix in (("queries", q), ("keys", k), ("values", v), ("scores", q @ k.T), ("scaled_scores", scaled),
                        ("weights", weights), ("outputs", weights @ v), ("weighted_values_1", weights[0, :, None] * v)):
        assert_map_shows(at, key, matrix.numpy())
    maps = step_maps(at)
    assert (maps["weights"]["lo"], maps["weights"]["hi"]) == (0.0, 1.0)
    assert maps["outputs"]["hi"] == pytest.approx(float((weights @ v).max()), rel=1e-12)
    assert {key: m["stops"] for key, m in maps.items()} == {
        key: list(colours.stops("weights" if key == "weights" else "outputs" if key == "outputs" else "values"))
        for key in maps}


def pick_attack(server, payloads: list[str], pattern: str = MAP_WEIGHTS):
    """Open the Playground, then send each trigger ``payload`` of map ``pattern`` in turn.

    Returns:
        For each message: what it cost, and the focus every map marked and the page's texts after it;
        and the page's texts before the first.
    """
    pid = server.pids()[0]

    async def run():
        async with hostile.visitor(server.url) as v:
            await v.open_link("playground")
            before, results = v.texts(), []
            for payload in payloads:
                async def act():
                    await hostile.send_trigger(v, pattern, payload)
                    await v.finish_run()
                cost = await hostile.measure(pid, act)
                cost.exceptions = v.tally.exceptions
                focus = {hostile.component_data(v, key)["focus"] for key in (r"-map_queries$", MAP_WEIGHTS,
                                                                              r"-map_outputs$")}
                results.append((cost, focus, v.texts()))
            return before, results

    return asyncio.run(run())


def focus_token(texts: list[str]) -> list[str]:
    """Which query step 4 works through: "q1" in "q1·k1 = ...", from the page's code blocks."""
    return sorted({t.split("·k1", 1)[0].rsplit("\n", 1)[-1] for t in texts if "·k1 = " in t})


@pytest.mark.parametrize("name", list(CRAFTED_PICKS))
def test_a_crafted_pick_is_ignored_quickly_and_a_real_one_still_picks(server, name):
    before, results = pick_attack(server, [hostile.pick_payload(CRAFTED_PICKS[name]), hostile.pick_payload("2")])
    (cost, focus, after), (click_cost, click_focus, clicked) = results
    assert cost.exceptions == 0 and not cost.closed, cost
    assert cost.cpu_s <= MAX_CPU_S, cost  # ~0.1 s: the page's rerun, nothing left running
    assert focus == {0} and focus_token(after) == focus_token(before) == ["q1"], (focus, focus_token(after))
    assert numbers(after) == numbers(before) and numbers(after)  # the page still shows its numbers
    assert not any("Traceback" in t or "Error" in t for t in after)
    # the same session, a click on row 3 of the weights: token 3 becomes the focus
    assert click_cost.exceptions == 0 and click_cost.cpu_s <= MAX_CPU_S, click_cost
    assert click_focus == {2} and focus_token(clicked) == ["q3"], (click_focus, focus_token(clicked))


@pytest.mark.parametrize("payload", [
    '{"event": "pick", "value": 2}',  # one event, not a list: Streamlit makes it a list of one (a real pick)
    '[{"event": "pick"}]', '[{"value": 2}]', '[{"event": 7, "value": 2}]', '[{"event": "pick ", "value": 2}]',
    '[2]', '"pick"', "[]", "null", "not json {", '[{"event": "pick", "value": 2}' + ', {"x": 1}' * 20_000 + "]",
])
def test_crafted_trigger_lists_pick_nothing_else(server, payload):
    """The trigger's whole event list crafted: only a well-formed pick event of a row is used."""
    before, [(cost, focus, after)] = pick_attack(server, [payload])
    assert cost.exceptions == 0 and not cost.closed and cost.cpu_s <= MAX_CPU_S, cost
    assert numbers(after) and focus_token(after) == [f"q{min(focus) + 1}"]
    from selfattn.serving.limits import MAX_TRIGGER_BYTES  # a longer list is refused whole (issue 29)

    real = ('"value": 2}' in payload and payload.startswith(("{", '[{"event": "pick", "value": 2}'))
            and len(payload) <= MAX_TRIGGER_BYTES)
    assert focus == ({2} if real else {0}), (payload[:60], focus)
    if not real:
        assert numbers(after) == numbers(before)


def test_a_pick_over_one_megabyte_closes_only_its_senders_connection(server):
    """A 4 MB string as the pick: over server.maxWidgetStateSize (1 MB), Streamlit closes the connection
    before anything reads it; the page serves the next visitor at once, its focus untouched."""
    pid = server.pids()[0]

    async def run():
        async with hostile.visitor(server.url) as attacker, hostile.visitor(server.url) as other:
            await attacker.open_link("playground")
            await other.open_link("playground")

            async def act():
                await hostile.send_trigger(attacker, MAP_WEIGHTS, hostile.pick_payload(json.dumps("1" * 4_000_000)))
                await attacker.finish_run()
            cost = await hostile.measure(pid, act)
            await hostile.send_trigger(other, MAP_WEIGHTS, hostile.pick_payload("1"))
            await other.finish_run()
            return cost, other

    cost, other = asyncio.run(run())
    assert cost.closed and cost.cpu_s <= MAX_CPU_S, cost
    assert other.tally.exceptions == 0 and hostile.component_data(other, MAP_WEIGHTS)["focus"] == 1
    assert focus_token(other.texts()) == ["q2"]


# ── Issue 29: a flood of events in one trigger list (Streamlit calls a callback per event) ─
FLOODED = {"weights map": (MAP_WEIGHTS, "pick"), "queries map": (r"-map_queries$", "pick"),
           "outputs map": (r"-map_outputs$", "pick"), "focus's map": (r"-map_weighted_values_\d+$", "pick"),
           "X editor": (X, "table"), "W_v editor": (r"-pged_w_v_\d+$", "table")}


def flood(event: str, n: int, value: str = "0") -> str:
    """A trigger list of ``n`` copies of one event, written compactly: 36,000 fit under the 1 MB message cap."""
    return "[" + ",".join([f'{{"event":"{event}","value":{value}}}'] * n) + "]"


@pytest.mark.parametrize("n", [4_000, None])  # None: as many as fit under the 1 MB cap beside the other widgets
@pytest.mark.parametrize("name", list(FLOODED))
def test_a_flood_of_trigger_events_costs_at_most_one_event(server, name, n):
    """Before: 4,000 picks cost 3.7-12 s of server CPU, 16,000 88 s (one callback per event, each
    reading the whole list again); now a list over 16 KB is refused whole (ui/server_limits.py)."""
    pattern, event = FLOODED[name]
    payload = flood(event, n or 972_000 // len(flood(event, 1)))  # ~36,000
    assert len(payload) < 1_000_000  # under server.maxWidgetStateSize: Streamlit reads it
    before, [(cost, focus, after)] = pick_attack(server, [payload], pattern)
    assert cost.exceptions == 0 and not cost.closed, cost
    assert cost.cpu_s <= MAX_CPU_S, cost  # ~0.1 s: the page's rerun
    assert focus == {0} and numbers(after) == numbers(before)


def test_a_page_opens_at_once_while_three_visitors_flood_their_triggers(server):
    """Three sessions each send ten 1 MB floods of picks while another visitor opens the Playground: it is
    served, and the thirty floods together cost the server little CPU. How long the open takes (0.03-0.10 s
    alone, ~0.1 s during the floods, 1-3.4 s before the trigger cap) is benchmarks/bench_hostile.py's to time."""
    payload = flood("pick", 36_000)

    async def attacker():
        async with hostile.visitor(server.url) as v:
            await v.open_link("playground")
            for _ in range(10):
                await hostile.send_trigger(v, MAP_WEIGHTS, payload)
                await v.finish_run()

    pid = server.pids()[0]

    async def run():
        start_cpu = servers.cpu_seconds(pid)
        attacks = [asyncio.create_task(attacker()) for _ in range(3)]
        await asyncio.sleep(1.0)  # the floods are under way
        async with hostile.visitor(server.url) as v:
            start = asyncio.get_running_loop().time()
            await v.open_link("playground")
            opened = asyncio.get_running_loop().time() - start
            exceptions = v.tally.exceptions
        await asyncio.gather(*attacks)
        return opened, exceptions, await hostile.quiet_cpu(pid, start_cpu)

    opened, exceptions, cpu_s = asyncio.run(run())
    assert exceptions == 0, exceptions
    # 30 floods and 4 opens: ~3 s (0.1 s each, the page's rerun); minutes before the trigger cap (issue 29)
    assert cpu_s <= 30 * MAX_CPU_S, cpu_s
    print(f"\nthe other visitor's open took {opened:.2f} s during the floods; the server spent {cpu_s:.1f} s of CPU")


@pytest.mark.parametrize("state", ['{"pick": 1e9}', '{"pick": "1"}', '{"pick": [1]}', '{"pick": NaN}', "[1]", '"x"'])
def test_a_crafted_map_state_is_ignored(server, state):
    """The map's own state (not its trigger): a browser sends none, a visitor may; Streamlit shows a
    ``pick`` in it as the trigger's value, so it goes through the same check."""
    cost, before, after = attack(server, "", {MAP_WEIGHTS: ("json_value", state)})
    assert cost.exceptions == 0 and cost.cpu_s <= MAX_CPU_S, cost
    assert numbers(after) == numbers(before) and focus_token(after) == ["q1"]
