"""The browser's preview of the steps is its own file, named as the second implementation.

ui/components/attention.js works the steps out again in the browser; heatmap.js only draws. What
the preview computes is held to the core in a real Chromium (tests/test_preview_browser.py); these
tests hold the shape: the arithmetic is in one file, and the page gets that file with the maps."""

import re

from ui.components.heatmap import HERE, LIBRARY_JS
from ui.components.matrix_editor import compact_js

ATTENTION = (HERE / "attention.js").read_text(encoding="utf-8")
MAPS = (HERE / "heatmap.js").read_text(encoding="utf-8")
ARITHMETIC = ("function attend", "function stepCells", "function mapText", "function matmul", "const matmul",
              "Math.exp", "Math.sqrt", "toExponential")


def test_the_steps_are_worked_out_in_attention_js_and_nowhere_else_in_the_browser():
    in_maps = [token for token in ARITHMETIC if token in MAPS]
    in_attention = [token for token in ("function attend", "function stepCells", "function mapText", "Math.exp",
                                        "Math.sqrt") if token not in ATTENTION]
    assert not in_maps and not in_attention, (in_maps, in_attention)


def test_attention_js_says_what_it_is_a_second_implementation_of():
    header = ATTENTION.split("\n\n", 1)[0]
    assert "second implementation" in header and "selfattn/core/attention.py" in header
    assert "tests/test_preview_browser.py" in ATTENTION  # where it is held to the core


def test_the_page_gets_attention_js_before_the_maps_that_call_it():
    """One script (the library element): attention.js's code, then heatmap.js's, each without comments."""
    attention, maps = compact_js(ATTENTION), compact_js(MAPS)
    assert attention in LIBRARY_JS and maps in LIBRARY_JS
    assert LIBRARY_JS.index(attention) < LIBRARY_JS.index(maps)
    assert re.search(r"\bstepCells\(", maps) and re.search(r"\bmapText\(", maps)  # the maps call it
    assert "window.selfattnAttention" in attention and "export default" not in attention


BLOCK = (HERE / "block.js").read_text(encoding="utf-8")


def test_block_js_is_the_third_implementation_and_the_maps_only_draw_it():
    """The Transformer block's preview works the layer out in block.js (named as the third implementation, with
    where it is held to the core); heatmap.js calls blockCells and computes none of it."""
    header = BLOCK.split("\n\n", 1)[0]
    assert "third implementation" in header and "selfattn/core/block.py" in header
    assert "tests/test_block_preview_browser.py" in BLOCK
    assert all(token in BLOCK for token in ("function blockLayer", "function layerNorm", "function erf", "Math.exp"))
    assert not any(token in MAPS for token in ("function blockLayer", "function layerNorm", "function erf",
                                                "Math.tanh"))
    block, maps = compact_js(BLOCK), compact_js(MAPS)
    assert LIBRARY_JS.index(compact_js(ATTENTION)) < LIBRARY_JS.index(block) < LIBRARY_JS.index(maps)
    assert re.search(r"\bblockCells\(", maps) and "window.selfattnBlock" in block and "export default" not in block
