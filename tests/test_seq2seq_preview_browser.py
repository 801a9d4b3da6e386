"""The Encoder–decoder page's preview in a real Chromium: the browser works the model out the moment a cell is
committed (ui/components/s2s.js, the fourth implementation of the maths, which heatmap.js draws) and the server's
numbers, which follow, must say the same.

s2s.js is checked against the core library (``encoder_decoder``, ``decoder_layer``; themselves checked against
torch) as the page loaded it: every linked box of random models (post-LN and pre-LN, the three activations, 1-3
encoder and decoder layers, any layer edited and any decoder layer shown), written as the maps write them; and on
the page, in both orders, an edit redraws the maps before the server answers, and the answer changes no map."""

import random

import numpy as np
import pytest

from selfattn.core.block import LayerParams
from selfattn.core.decoder import DecoderLayerParams, encoder_decoder
from selfattn.display.numbers import map_text
from selfattn.i18n import t_plain
from selfattn.seq2seq.text import merged
from selfattn.seq2seq.view import EPS, decoder_tables, encoder_tables
from tests.browser import MAP_BOXES, as_text, assert_preview_cells, browser_page, map_sel, shaken, wait_until_idle

pytestmark = pytest.mark.browser


def random_case(rng: random.Random, norm_first: bool) -> dict:
    heads = rng.choice([1, 2, 4])
    d = heads * rng.randint(1, 3)
    n, m, d_ff = rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 9)
    encoder = [shaken(LayerParams.random(d, heads, d_ff, seed=rng.randrange(10**6)), rng)
               for _ in range(rng.randint(1, 3))]
    decoder = [shaken(DecoderLayerParams.random(d, heads, d_ff, seed=rng.randrange(10**6)), rng)
               for _ in range(rng.randint(1, 3))]
    scale = rng.choice([1.0, 3.0])  # larger numbers reach GELU's far tails
    src, tgt = (np.round(np.array([[rng.uniform(-2, 2) * scale for _ in range(d)] for _ in range(rows)]), 3)
                for rows in (n, m))
    side = rng.choice("ed")
    edited = f"{side}{rng.randint(1, len(encoder if side == 'e' else decoder))}"
    return {"src": src, "tgt": tgt, "encoder": encoder, "decoder": decoder, "heads": heads, "d": d, "dff": d_ff,
            "act": rng.choice(["relu", "gelu", "gelu_tanh"]), "norm_first": norm_first, "edited": edited,
            "layer": rng.randrange(len(decoder))}


def engine(case: dict) -> dict:
    """The typed tables (X, Y and the edited layer's, as the editors hold them) and the engine's options, as
    ui.seq2seq.page.preview_engine writes them."""
    tables = {"s2s_src": as_text(case["src"]), "s2s_tgt": as_text(case["tgt"])}
    layers = {}
    for side, params_of, tables_of in (("e", case["encoder"], encoder_tables), ("d", case["decoder"], decoder_tables)):
        for k, params in enumerate(params_of):
            name = f"{side}{k + 1}"
            if name == case["edited"]:
                tables.update({f"s2s_{name}{part}": as_text(m) for part, m in tables_of(params).items()})
                layers[name] = None
            else:
                layers[name] = {part: m.tolist() for part, m in tables_of(params).items()}
    return {"tables": {name: {"instance": "i", "cells": cells} for name, cells in tables.items()}, "engine": {
        "norm_first": case["norm_first"], "activation": case["act"], "eps": EPS, "heads": case["heads"],
        "n": len(case["src"]), "m": len(case["tgt"]), "d": case["d"], "dff": case["dff"], "layer": case["layer"],
        "encoder": [layers[f"e{k + 1}"] for k in range(len(case["encoder"]))],
        "decoder": [layers[f"d{k + 1}"] for k in range(len(case["decoder"]))],
        "instances": {name: "i" for name in tables}}}


def written(matrix) -> list[list[str]]:
    return [[map_text(float(v)) for v in row] for row in matrix]


def expected(case: dict) -> dict:
    """Every linked box of the page, from the core library (the typed text read back, as the server reads it),
    written as the server writes a map: the boxes pages/seq2seq.py draws, by their links."""
    norms = (np.ones(case["d"]), np.zeros(case["d"]))
    trace = encoder_decoder(case["src"], case["tgt"], case["encoder"], case["decoder"], norm_first=case["norm_first"],
                            activation=case["act"], eps=EPS, encoder_final_norm=norms, decoder_final_norm=norms)
    lt = trace.decoder_layers[case["layer"]]
    boxes = {"src:x": trace.src, "src:memory": trace.memory, "src:k": merged(lt.cross_attention.keys),
             "src:v": merged(lt.cross_attention.values), "row:input": lt.y, "row:h1": lt.after_self,
             "row:h2": lt.after_cross, "row:out": lt.outputs, "row:final": trace.outputs}
    boxes.update({f"self:{h}": w for h, w in enumerate(lt.self_weights)})  # 0 where masked: the map draws the mask
    boxes.update({f"cross:{h}": w for h, w in enumerate(lt.cross_weights)})
    return {link: written(matrix) for link, matrix in boxes.items()}


@pytest.fixture(scope="module")
def page(url, browser):
    with browser_page(browser) as page:
        page.goto(f"{url}/seq2seq")
        page.wait_for_selector(map_sel("s2s_outputs"),
                               timeout=120_000)
        wait_until_idle(page)
        page.wait_for_function("() => !!window.selfattnMaps && !!window.selfattnS2s", timeout=30_000)
        yield page


@pytest.mark.parametrize("norm_first", [False, True], ids=["post-LN", "pre-LN"])
def test_every_linked_box_of_the_preview_is_what_the_server_shows(page, norm_first):
    """120 random models in each order: each linked box's cells, as the browser works them out, equal the core
    library's trace written as the maps write it. A cell may differ only where the two sides' last bits fall either
    side of a rounding tie, or where a sum cancels (0 on one side, 1e-17 on the other): at most 1 in 2,000 cells;
    the server's answer then redraws that map."""
    rng = random.Random(39 + norm_first)
    cases = [random_case(rng, norm_first) for _ in range(120)]
    got = page.evaluate("(cases) => cases.map((c) => window.selfattnS2s.s2sCells(c.tables, c.engine))",
                        [engine(c) for c in cases])
    want = [expected(case) for case in cases]
    for boxes, cells in zip(want, got):
        assert cells is not None and set(cells) == set(boxes), sorted(cells or ())
    assert assert_preview_cells(want, got) > 20_000


def test_a_bad_cell_a_wrong_shape_or_a_stale_editor_leaves_the_maps_to_the_server(page):
    """The preview draws only what the server would: a cell that is not a plain number (the server reads "１２" and
    names "abc"), a table of another size or a table from an older editor instance gives no preview."""
    case = engine(random_case(random.Random(5), False))
    assert page.evaluate("(c) => window.selfattnS2s.s2sCells(c.tables, c.engine) !== null", case)
    for name, change in (("s2s_src", lambda t: t["cells"][0].__setitem__(0, "abc")),
                         ("s2s_tgt", lambda t: t["cells"][0].__setitem__(0, "１２")),
                         ("s2s_src", lambda t: t["cells"].pop()),
                         ("s2s_tgt", lambda t: t.__setitem__("instance", "older"))):
        bad = {**case, "tables": {**case["tables"], name: {**case["tables"][name],
                                                           "cells": [list(r) for r in case["tables"][name]["cells"]]}}}
        change(bad["tables"][name])
        assert page.evaluate("(c) => window.selfattnS2s.s2sCells(c.tables, c.engine)", bad) is None, name


# Every map of the page's group: {key: rows of cells as shown}; the generation's maps (cache_*, step_*) link to
# nothing and are left to the server.
MAP_CELLS = """() => {
    const out = {};
    for (const [key, box] of Object.entries((MAP_BOXES)("s2s_"))) {
        const body = box.querySelector("tbody");
        if (!body || /^(cache_|step_)/.test(key)) continue;
        out[key] = [...body.rows].map(tr => [...tr.cells].slice(1).map(td => td.textContent));
    }
    return out;
}""".replace("MAP_BOXES", MAP_BOXES)


def type_enter(page, name: str, text: str) -> tuple[dict, dict]:
    """Type ``text`` into the editor cell ``name`` and press Enter: the linked maps before, and as they stand when
    the key press's task is over (before any answer of the server could come)."""
    cell = page.get_by_role("textbox", name=name, exact=True)
    cell.scroll_into_view_if_needed()
    cell.click()
    before = page.evaluate(MAP_CELLS)
    page.keyboard.press("Control+A")
    page.keyboard.type(text)
    page.keyboard.press("Enter")
    return before, page.evaluate(MAP_CELLS)


@pytest.mark.parametrize("view, cell, changed, same", [
    ("", f"{t_plain('s2s.table_src', 'en')}, x1, 1",
     ("src", "memory", "d1_cross_k", "d1_cross_v", "d1_cross1", "d1_h2", "d1_out", "outputs"),
     ("d1_input", "d1_self1", "d1_h1")),
    ("enc=2&dec=2&d=6&heads=3&dff=8&norm=pre&act=gelu&layer=2&edit=d2",
     "W_k, cross (decoder 2), 1, 1",
     ("d2_cross_k", "d2_cross1", "d2_h2", "d2_out", "outputs"),
     ("src", "memory", "d2_input", "d2_self1", "d2_h1", "d2_cross_v", "d2_cross2")),
], ids=["post-LN, the source", "pre-LN, 2 + 2 layers, a cross-attention weight"])
def test_an_edit_shows_in_the_maps_before_the_server_answers_and_the_answer_changes_nothing(url, browser, view, cell,
                                                                                            changed, same):
    with browser_page(browser) as page:
        page.goto(f"{url}/seq2seq?{view}")
        page.wait_for_selector(map_sel("s2s_outputs"),
                               timeout=120_000)
        wait_until_idle(page)
        editors = "[class*='st-key-s2sed_'] [data-testid='stBidiComponentIsolated']"
        if "edit=d2" in view:  # the weights' expander opened: its editors are made, the layer's weights read from them
            page.get_by_text(t_plain("s2s.weights_title", "en")).click()
            page.wait_for_function(f"() => document.querySelectorAll({editors!r}).length === 16", timeout=30_000)
            wait_until_idle(page)
        else:  # closed: the source and target alone are made, every layer's weights come with the engine
            assert page.locator(editors).count() == 2
        before, at_once = type_enter(page, cell, "2.5")
        assert set(at_once) == set(before) and len(at_once) >= 13, sorted(at_once)
        for key in changed:  # drawn by the preview, in the Enter's own task
            assert at_once[key] != before[key], key
        for key in same:
            assert at_once[key] == before[key], key
        wait_until_idle(page)
        page.wait_for_timeout(500)
        assert page.evaluate(MAP_CELLS) == at_once  # the server's numbers are the preview's, map for map
