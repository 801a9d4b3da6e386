"""The browser's previews are their own files, named as the second, third and fourth implementations, on one maths
file.

ui/components/maths.js holds the arithmetic every preview shares (parsing, products, softmax, LayerNorm, the
activations, a layer's attention and feed-forward sub-layers, mapText); attention.js (the Playground's steps),
block.js (a Transformer layer) and s2s.js (the Encoder–decoder's model) are engines built on it, each registered for
its group of maps; heatmap.js only draws. What the previews compute is held to the core in a real Chromium
(tests/test_preview_browser.py, tests/test_block_preview_browser.py, tests/test_seq2seq_preview_browser.py); these
tests hold the shape."""

import re

from ui.components.heatmap import HERE, LIBRARY_JS
from ui.components.matrix_editor import compact_js

ATTENTION = (HERE / "attention.js").read_text(encoding="utf-8")
MATHS = (HERE / "maths.js").read_text(encoding="utf-8")
BLOCK = (HERE / "block.js").read_text(encoding="utf-8")
S2S = (HERE / "s2s.js").read_text(encoding="utf-8")
ENGINES = (("attention.js", ATTENTION), ("block.js", BLOCK), ("s2s.js", S2S))
MAPS = (HERE / "heatmap.js").read_text(encoding="utf-8")
ARITHMETIC = ("function attend", "function stepCells", "function mapText", "function matmul", "const matmul",
              "Math.exp", "Math.sqrt", "toExponential")


def test_the_steps_are_worked_out_in_attention_js_on_the_shared_maths_and_nowhere_else_in_the_browser():
    in_maps = [token for token in ARITHMETIC if token in MAPS]
    in_attention = [token for token in ("function attend", "function stepCells") if token not in ATTENTION]
    in_maths = [token for token in ("function mapText", "const matmul", "Math.exp", "Math.sqrt", "toExponential",
                                    "function softmaxRow", "function layerNorm", "function erf", "function readNumbers",
                                    "function attendHeads", "function attentionSublayer", "function feedForward")
                if token not in MATHS]
    assert not in_maps and not in_attention and not in_maths, (in_maps, in_attention, in_maths)


def test_no_engine_keeps_its_own_copy_of_the_shared_maths():
    """One parser, one product, one softmax, one LayerNorm, one number writer, one multi-head attention and one
    feed-forward sub-layer (block.js's encoder layer and s2s.js's encoder and decoder layers are made of them): the
    engines call maths.js's."""
    for name, text in ENGINES:
        copies = [token for token in ("PLAIN = /", "toExponential", "function erf", "function layerNorm",
                                      "function activate", "function mapText", "function readNumbers",
                                      "=> a.map((row) => b[0].map", "function attendHeads", "function attentionSublayer",
                                      "function feedForward") if token in text]
        assert not copies, (name, copies)
        assert "Math.max(...row)" not in text and "Math.exp(s - top)" not in text, name  # softmax: softmaxRow


def test_each_engine_registers_for_its_group_and_the_maps_ask_the_registry():
    assert 'window.selfattnPreviews.set("pg"' in ATTENTION and 'window.selfattnPreviews.set("tb"' in BLOCK
    assert 'window.selfattnPreviews.set("s2s"' in S2S
    assert "window.selfattnPreviews ||= new Map()" in MATHS
    assert "window.selfattnPreviews" in MAPS and not any(f"{cells}(" in MAPS
                                                         for cells in ("stepCells", "blockCells", "s2sCells"))


def test_attention_js_says_what_it_is_a_second_implementation_of():
    header = ATTENTION.split("\n\n", 1)[0]
    assert "second implementation" in header and "selfattn/core/attention.py" in header
    assert "tests/test_preview_browser.py" in ATTENTION  # where it is held to the core


def test_the_page_gets_the_maths_and_the_engines_before_the_maps():
    """One script (the library element): maths.js's code, then attention.js's, block.js's, s2s.js's and
    heatmap.js's, each without comments."""
    parts = [LIBRARY_JS.index(compact_js(text)) for text in (MATHS, ATTENTION, BLOCK, S2S, MAPS)]
    assert parts == sorted(parts)
    maps, attention = compact_js(MAPS), compact_js(ATTENTION)
    assert re.search(r"\bmapText\(", maps)  # the maps write a legend's ends as the engines write cells
    assert "window.selfattnAttention" in attention and "export default" not in attention


def test_block_js_is_the_third_implementation_and_the_maps_only_draw_it():
    """The Transformer block's preview works the layer out in block.js (named as the third implementation, with
    where it is held to the core) on maths.js's arithmetic; heatmap.js computes none of it."""
    header = BLOCK.split("\n\n", 1)[0]
    assert "third implementation" in header and "selfattn/core/block.py" in header
    assert "tests/test_block_preview_browser.py" in BLOCK
    assert all(token in BLOCK for token in ("function blockLayer", "attentionSublayer(", "feedForward("))
    assert not any(token in MAPS for token in ("function blockLayer", "function layerNorm", "function erf",
                                                "Math.tanh"))
    assert "window.selfattnBlock" in BLOCK and "export default" not in BLOCK


def test_s2s_js_is_the_fourth_implementation_and_the_maps_only_draw_it():
    """The Encoder–decoder's preview works its model out in s2s.js (named as the fourth implementation, with where it
    is held to the core) from maths.js's sub-layers, the encoder's layers and the decoder's (cross-attention with
    keys and values from the memory) alike; heatmap.js computes none of it."""
    header = S2S.split("\n\n", 1)[0]
    assert "fourth implementation" in header and "selfattn/core/decoder.py" in header
    assert "tests/test_seq2seq_preview_browser.py" in S2S
    assert all(token in S2S for token in ("function decoderLayer", "function s2sCells", "attentionSublayer(",
                                          "feedForward(", "layerNorm("))
    assert not any(token in MAPS for token in ("function decoderLayer", "attentionSublayer(", "feedForward("))
    assert "window.selfattnS2s" in S2S and "export default" not in S2S
