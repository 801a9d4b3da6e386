"""The browser's previews are their own files, named as the second and third implementations, on one maths file.

ui/components/maths.js holds the arithmetic every preview shares (parsing, products, softmax, LayerNorm, the
activations, mapText); attention.js (the Playground's steps) and block.js (a Transformer layer) are engines built on
it, each registered for its group of maps; heatmap.js only draws. What the previews compute is held to the core in
a real Chromium (tests/test_preview_browser.py, tests/test_block_preview_browser.py); these tests hold the shape."""

import re

from ui.components.heatmap import HERE, LIBRARY_JS
from ui.components.matrix_editor import compact_js

ATTENTION = (HERE / "attention.js").read_text(encoding="utf-8")
MATHS = (HERE / "maths.js").read_text(encoding="utf-8")
BLOCK = (HERE / "block.js").read_text(encoding="utf-8")
MAPS = (HERE / "heatmap.js").read_text(encoding="utf-8")
ARITHMETIC = ("function attend", "function stepCells", "function mapText", "function matmul", "const matmul",
              "Math.exp", "Math.sqrt", "toExponential")


def test_the_steps_are_worked_out_in_attention_js_on_the_shared_maths_and_nowhere_else_in_the_browser():
    in_maps = [token for token in ARITHMETIC if token in MAPS]
    in_attention = [token for token in ("function attend", "function stepCells") if token not in ATTENTION]
    in_maths = [token for token in ("function mapText", "const matmul", "Math.exp", "Math.sqrt", "toExponential",
                                    "function softmaxRow", "function layerNorm", "function erf", "function readNumbers")
                if token not in MATHS]
    assert not in_maps and not in_attention and not in_maths, (in_maps, in_attention, in_maths)


def test_no_engine_keeps_its_own_copy_of_the_shared_maths():
    """One parser, one product, one softmax, one LayerNorm, one number writer: the engines call maths.js's."""
    for name, text in (("attention.js", ATTENTION), ("block.js", BLOCK)):
        copies = [token for token in ("PLAIN = /", "toExponential", "function erf", "function layerNorm",
                                      "function activate", "function mapText", "function readNumbers",
                                      "=> a.map((row) => b[0].map") if token in text]
        assert not copies, (name, copies)
        assert "Math.max(...row)" not in text and "Math.exp(s - top)" not in text, name  # softmax: softmaxRow


def test_each_engine_registers_for_its_group_and_the_maps_ask_the_registry():
    assert 'window.selfattnPreviews.set("pg"' in ATTENTION and 'window.selfattnPreviews.set("tb"' in BLOCK
    assert "window.selfattnPreviews ||= new Map()" in MATHS
    assert "window.selfattnPreviews" in MAPS and "stepCells(" not in MAPS and "blockCells(" not in MAPS


def test_attention_js_says_what_it_is_a_second_implementation_of():
    header = ATTENTION.split("\n\n", 1)[0]
    assert "second implementation" in header and "selfattn/core/attention.py" in header
    assert "tests/test_preview_browser.py" in ATTENTION  # where it is held to the core


def test_the_page_gets_the_maths_and_the_engines_before_the_maps():
    """One script (the library element): maths.js's code, then attention.js's, block.js's and heatmap.js's, each
    without comments."""
    maths, attention, block, maps = (compact_js(text) for text in (MATHS, ATTENTION, BLOCK, MAPS))
    assert LIBRARY_JS.index(maths) < LIBRARY_JS.index(attention) < LIBRARY_JS.index(block) < LIBRARY_JS.index(maps)
    assert re.search(r"\bmapText\(", maps)  # the maps write a legend's ends as the engines write cells
    assert "window.selfattnAttention" in attention and "export default" not in attention


def test_block_js_is_the_third_implementation_and_the_maps_only_draw_it():
    """The Transformer block's preview works the layer out in block.js (named as the third implementation, with
    where it is held to the core) on maths.js's arithmetic; heatmap.js computes none of it."""
    header = BLOCK.split("\n\n", 1)[0]
    assert "third implementation" in header and "selfattn/core/block.py" in header
    assert "tests/test_block_preview_browser.py" in BLOCK
    assert all(token in BLOCK for token in ("function blockLayer", "layerNorm(", "activate(", "softmaxRow("))
    assert not any(token in MAPS for token in ("function blockLayer", "function layerNorm", "function erf",
                                                "Math.tanh"))
    assert "window.selfattnBlock" in BLOCK and "export default" not in BLOCK
