"""The Transformer block page's preview in a real Chromium: the browser works the layer shown out the moment a
cell is committed (ui/components/block.js, the third implementation of the maths, which heatmap.js draws) and the
server's numbers, which follow, must say the same.

block.js is checked against the core library (itself checked against torch) as the page loaded it: every box of
random layers (both orders, the three activations, causal or not, positions or not, earlier layers or not),
written as the maps write them; and on the page, an edit redraws the maps before the server answers, and the
answer changes nothing."""

import random

import numpy as np
import pytest

from selfattn.block.view import layer_tables
from selfattn.core.block import LayerParams, transformer_layer
from selfattn.core.positions import positional_encoding
from selfattn.display.numbers import map_text
from selfattn.i18n import t_plain
from tests.browser import as_text, assert_preview_cells, browser_page, map_cells, map_sel, shaken, wait_until_idle

pytestmark = pytest.mark.browser

LINKS = ("input", "norm1", "q", "k", "v", "concat", "projected", "residual1", "norm2", "ff_pre", "ff_act", "ff_out",
         "residual2")
OUTPUTS = map_sel("tb_layer1_norm2")  # post-LN: ⑫ the output


@pytest.fixture(scope="module")
def page(url, browser):
    with browser_page(browser) as page:
        page.goto(f"{url}/block")
        page.wait_for_selector(OUTPUTS, timeout=60000)
        wait_until_idle(page)
        page.wait_for_function("() => !!window.selfattnMaps && !!window.selfattnBlock", timeout=30000)
        yield page


def random_case(rng: random.Random) -> dict:
    heads = rng.choice([1, 2, 4])
    d = heads * rng.randint(1, 3)
    n, d_ff = rng.randint(1, 6), rng.randint(1, 9)
    act = rng.choice(["relu", "gelu", "gelu_tanh"])
    before = [shaken(LayerParams.random(d, heads, d_ff, seed=rng.randrange(10**6)), rng)
              for _ in range(rng.randint(0, 2))]
    shown = shaken(LayerParams.random(d, heads, d_ff, seed=rng.randrange(10**6)), rng)
    scale = rng.choice([1.0, 3.0])  # larger numbers reach GELU's far tails (erfc's continued fraction)
    x = np.round(np.array([[rng.uniform(-2, 2) * scale for _ in range(d)] for _ in range(n)]), 3)
    pe = positional_encoding(n, d, rng.choice(["sinusoidal", "learned"]), rng.randrange(100)) \
        if rng.random() < 0.5 else None
    return {"x": x, "pe": pe, "before": before, "shown": shown, "heads": heads, "act": act,
            "norm_first": rng.random() < 0.5, "causal": rng.random() < 0.5, "eps": rng.choice([1e-5, 1e-12, 0.1])}


def engine(case: dict, closed: bool = False) -> dict:
    """The typed tables and the engine a case gives the preview: the layer's weights typed in their editors, or
    (``closed``: the weights' expander closed, its editors not made) sent by the server with the engine."""
    tables = {"tb_x": {"instance": "i", "cells": as_text(case["x"])}}
    for part, matrix in layer_tables(case["shown"]).items():
        if not closed:
            tables[f"tb_{len(case['before']) + 1}{part}"] = {"instance": "i", "cells": as_text(matrix)}
    return {"tables": tables, "engine": {
        "norm_first": case["norm_first"], "activation": case["act"], "eps": case["eps"], "causal": case["causal"],
        "heads": case["heads"], "layer": len(case["before"]),
        "before": [{p: m.tolist() for p, m in layer_tables(params).items()} for params in case["before"]],
        "shown": {p: m.tolist() for p, m in layer_tables(case["shown"]).items()} if closed else None,
        "pe": None if case["pe"] is None else case["pe"].tolist(),
        "instances": {name: "i" for name in tables}}}


def expected(case: dict) -> dict:
    """Every box of the layer shown, from the core library, written as the server writes a map."""
    options = {"norm_first": case["norm_first"], "activation": case["act"], "eps": case["eps"],
               "causal": case["causal"]}
    state = case["x"] if case["pe"] is None else case["x"] + case["pe"]
    for params in case["before"]:
        state = transformer_layer(state, params, **options).outputs
    t = transformer_layer(state, case["shown"], **options)
    joined = lambda m: m.transpose(1, 0, 2).reshape(m.shape[1], -1)
    boxes = {"input": t.x, "norm1": t.norm1.outputs, "q": joined(t.queries), "k": joined(t.keys),
             "v": joined(t.values), "concat": t.concat, "projected": t.projected, "residual1": t.residual1,
             "norm2": t.norm2.outputs, "ff_pre": t.ff_pre, "ff_act": t.ff_act, "ff_out": t.ff_out,
             "residual2": t.residual2}
    out = {f"row:{k}": [[map_text(float(v)) for v in row] for row in m] for k, m in boxes.items()}
    out.update({f"att:{h + 1}": [[map_text(float(v)) for v in row] for row in w] for h, w in enumerate(t.weights)})
    return out


def test_every_box_of_the_preview_is_what_the_server_shows(page):
    """150 random layers: each box's cells, as the browser works them out, equal the core library's trace
    written as the maps write it. A cell may differ only where the two sides' last bits fall either side of a
    rounding tie, or where a sum cancels (0 on one side, 1e-17 on the other): at most 1 in 2,000 cells (3 in
    35,847 when this was written, all cancellations); the server's answer then redraws that map. Every other case
    has the weights' expander closed: the layer's weights come with the engine, X alone is typed."""
    rng = random.Random(32)
    cases = [random_case(rng) for _ in range(150)]
    got = page.evaluate("(cases) => cases.map((c) => window.selfattnBlock.blockCells(c.tables, c.engine))",
                        [engine(c, closed=k % 2 == 1) for k, c in enumerate(cases)])
    assert_preview_cells([expected(case) for case in cases], got)


def test_erf_is_the_error_function_to_the_last_digits(page):
    """block.js's erf (GELU's exact form) against scipy's, over the whole range the layer meets."""
    from scipy.special import erf

    xs = [i / 97 for i in range(-800, 801)] + [1e-9, -1e-9, 2.4999, 2.5, 2.5001, 6.0, -6.0, 30.0]
    got = page.evaluate("(xs) => xs.map((x) => window.selfattnBlock.erf(x))", xs)
    worst = max(abs(a - b) for a, b in zip(got, erf(np.array(xs))))
    assert worst < 5e-15, worst


def outputs_cells(page) -> list[list[str]]:
    return page.evaluate(map_cells("tb_"), "layer1_norm2")


EDITORS = "[class*='st-key-tbed_'] [data-testid='stBidiComponentIsolated']"  # the matrix editors on the page


@pytest.mark.parametrize("weights", ["closed", "open"])
def test_an_edit_shows_in_the_maps_before_the_server_answers_and_the_answer_changes_nothing(page, weights):
    """Typed into X, with the weights' expander closed (its editors not made: the layer's weights come with the
    engine) and open (read from its editors)."""
    if weights == "open":
        page.get_by_text(t_plain("tb.weights_title", "en", layer=1)).click()
        page.wait_for_function(f"() => document.querySelectorAll({EDITORS!r}).length === 11", timeout=30000)
        wait_until_idle(page)
    else:
        assert page.locator(EDITORS).count() == 1  # X alone
    cell = page.get_by_role("textbox", name="X, t1, 1", exact=True)
    cell.scroll_into_view_if_needed()
    cell.click()
    before = outputs_cells(page)
    page.keyboard.press("Control+A")
    page.keyboard.type("2.5" if weights == "closed" else "-1.25")
    page.keyboard.press("Enter")
    shown_at_once = outputs_cells(page)
    assert shown_at_once != before  # drawn by the preview, in the Enter's own task: before any answer could come
    wait_until_idle(page)
    page.wait_for_timeout(500)
    assert outputs_cells(page) == shown_at_once  # the server's numbers are the preview's
