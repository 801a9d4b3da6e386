"""The Transformer block page's state as one frozen object: its settings table, presets and tables as typed.

:data:`FIELDS` is the page's settings table (read by ``ui/state.py`` through ``ui/navigation.py``), :data:`KEPT` and
:data:`WIDGETS` its other session keys. A :class:`View` holds one value
per field (the key without its ``tb_`` prefix) and :attr:`View.edits`: the tables the visitor typed into, as
text, by table id. Every table that was not edited is the seeded one (:func:`base_rows`), so the link carries
only the edits (:mod:`selfattn.block.link`).

Table ids: ``"x"`` for X, and ``"<layer><part>"`` for a layer's weights, the layer counted from 1:
``1wq``, ``1wk``, ``1wv``, ``1wo`` (d × d), ``1b`` (the four attention biases b_q, b_k, b_v, b_o as rows,
4 × d), ``1ln`` (γ₁, β₁, γ₂, β₂ as rows, 4 × d), ``1w1`` (d × d_ff), ``1b1`` (1 × d_ff), ``1w2`` (d_ff × d),
``1b2`` (1 × d).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from selfattn import memo
from selfattn.core.block import ACTIVATIONS, LayerParams
from selfattn.core.positions import KINDS
from selfattn.display.edits import CUSTOM, Editable, Edited, Rows, text_rows
from selfattn.display.share import Bool, Choice, Field, Int, Text

# The page's session keys beyond its settings (tests/test_session_keys.py holds the page to them; "*": a family).
KEPT = {
    "tb": "the Transformer block page's typed tables, editors' generation, undo and notice (ui/block/page.py SLOTS)",
    "tb_good": "last_good: the Transformer block page's toy result (selfattn.block.compute.ToyResult)",
    "tb_real_good": "last_good: the Transformer block page's real layer (selfattn.block.compute.RealResult)",
    "tbed_*": "the Transformer block page's matrix editors, one per table and version",
    "tb_weights": "the Transformer block page's weights' expander (set before it is made from weights_open in "
                 "tb, the page's state dict)",
}
WIDGETS = {
    "tb_undo": "the Transformer block page's Undo button",
    "tb_load": "the Transformer block page's button that reloads the preset",
    "tb_part_tabs": "the Transformer block page's parts' tab bar (its label; the part is tb_part)",
    "tb_part_next": "the Transformer block page's button to the next part",
    "tb_stack_make": "the Transformer block page's button that makes one layer a stack of two",
}
PREFIX = "tb_"
MAX_SEED = 2**31 - 1
MAX_TOKENS = 16  # toy tokens (hosted and local alike)
MAX_D = 16  # d_model
MAX_DFF = 64
MAX_LAYERS = 6
MAX_REAL_TOKENS = 32  # a real sentence's tokens, [CLS] and [SEP] included
MAX_TEXT = 300  # characters of a real sentence
MAX_EPS_CHARS = 24
MAX_BATCH = 4  # sequences in a padded batch
MIN_BATCH = 2
PRESETS = ("tiny", "vaswani", "gpt2", "bert")
PARTS = ("wq", "wk", "wv", "wo", "b", "ln", "w1", "b1", "w2", "b2")  # a layer's tables, in the page's order
ROWS_OF = {"b": ("b_q", "b_k", "b_v", "b_o"), "ln": ("γ₁", "β₁", "γ₂", "β₂")}  # row labels of the stacked vectors
CELL_CHARS = 40  # the most characters a cell takes (the editors' limit)

# The toy's parts (ui/parts.py), in a learner's order, the first open first: one layer (its editors, its flow, Add &
# Norm), the stack of layers, a padded batch. A link names one as part=stack.
PAGE_PARTS = ("layer", "stack", "batch")

FIELDS = (Field("tb_source", "source", Choice(("toy", "real")), "toy"),
          Field("tb_preset", "preset", Choice((*PRESETS, CUSTOM)), "tiny"),  # custom: the settings are no preset's
          Field("tb_seed", "seed", Int(0, MAX_SEED), 0),
          Field("tb_n", "n", Int(1, MAX_TOKENS), 4),
          Field("tb_d", "d", Int(1, MAX_D), 4),
          Field("tb_heads", "heads", Int(1, MAX_D), 2),
          Field("tb_dff", "dff", Int(1, MAX_DFF), 8),
          Field("tb_layers", "layers", Int(1, MAX_LAYERS), 1),
          Field("tb_norm", "norm", Choice(("post", "pre")), "post"),
          Field("tb_act", "act", Choice(ACTIVATIONS), "relu"),
          Field("tb_eps", "eps", Text(MAX_EPS_CHARS), "1e-05"),
          Field("tb_causal", "causal", Bool(), False),
          Field("tb_final", "final", Bool(), False),
          Field("tb_pos", "pos", Choice(KINDS), "none"),
          Field("tb_layer", "layer", Int(1, MAX_LAYERS, shift=1), 0),
          Field("tb_focus", "focus", Int(1, MAX_REAL_TOKENS, shift=1), 0),
          Field("tb_batch", "batch", Bool(), False),
          Field("tb_lengths", "lengths", Text(40), "4 2 3"),
          Field("tb_maxlen", "maxlen", Int(1, MAX_TOKENS), MAX_TOKENS),
          Field("tb_text", "text", Text(MAX_TEXT), "The cat sat on the mat because it was tired."),
          Field("tb_rlayer", "rlayer", Int(1, 64, shift=1), 0),
          Field("tb_part", "part", Choice(PAGE_PARTS), PAGE_PARTS[0]))

# What each preset sets (the tables then come from the seed). "tiny" is the smallest block worth reading.
PRESET_SETTINGS = {
    "tiny": {"tb_n": 4, "tb_d": 4, "tb_heads": 2, "tb_dff": 8, "tb_layers": 1, "tb_norm": "post", "tb_act": "relu",
             "tb_eps": "1e-05", "tb_causal": False, "tb_final": False, "tb_pos": "none"},
    "vaswani": {"tb_n": 5, "tb_d": 8, "tb_heads": 2, "tb_dff": 32, "tb_layers": 2, "tb_norm": "post", "tb_act": "relu",
                "tb_eps": "1e-05", "tb_causal": False, "tb_final": False, "tb_pos": "sinusoidal"},
    "gpt2": {"tb_n": 5, "tb_d": 8, "tb_heads": 2, "tb_dff": 32, "tb_layers": 2, "tb_norm": "pre", "tb_act": "gelu_tanh",
             "tb_eps": "1e-05", "tb_causal": True, "tb_final": True, "tb_pos": "learned"},
    "bert": {"tb_n": 5, "tb_d": 8, "tb_heads": 2, "tb_dff": 32, "tb_layers": 2, "tb_norm": "post", "tb_act": "gelu",
             "tb_eps": "1e-12", "tb_causal": False, "tb_final": False, "tb_pos": "learned"},
}

def changed_from(name: str, settings: dict) -> tuple[str, ...]:
    """The keys of :data:`PRESET_SETTINGS` whose value in ``settings`` (by session key) is not preset ``name``'s.
    The final LayerNorm counts only where it applies (pre-LN)."""
    preset = PRESET_SETTINGS[name]
    changed = [key for key, value in preset.items() if settings.get(key) != value]
    if settings.get("tb_norm") != "pre" and preset["tb_norm"] != "pre":
        changed = [key for key in changed if key != "tb_final"]
    return tuple(changed)


@dataclass(frozen=True)
class View(Edited):
    """What the page shows: every setting of :data:`FIELDS` and the tables typed into (``edited``, ``rows``)."""

    PREFIX = PREFIX
    edits: tuple[tuple[str, Rows], ...] = ()  # (table id, cells as typed), sorted by id: only tables that differ
    source: str = "toy"
    preset: str = "tiny"
    seed: int = 0
    n: int = 4
    d: int = 4
    heads: int = 2
    dff: int = 8
    layers: int = 1
    norm: str = "post"
    act: str = "relu"
    eps: str = "1e-05"
    causal: bool = False
    final: bool = False
    pos: str = "none"
    layer: int = 0  # the layer shown and edited, 0-based
    focus: int = 0  # the token whose LayerNorm is written out, 0-based
    batch: bool = False
    lengths: str = "4 2 3"
    maxlen: int = MAX_TOKENS
    text: str = "The cat sat on the mat because it was tired."
    rlayer: int = 0  # the real model's layer, 0-based
    part: str = PAGE_PARTS[0]  # the toy's part open (PAGE_PARTS)

    def base(self, table: str) -> Rows:
        return base_rows(self, table)


def table_ids(layers: int) -> tuple[str, ...]:
    """Every table of a stack of ``layers`` layers, X first."""
    return ("x", *(f"{layer}{part}" for layer in range(1, layers + 1) for part in PARTS))


ALL_TABLES = table_ids(MAX_LAYERS)


def split_id(table: str) -> tuple[int, str]:
    """(layer 0-based, part) of a layer's table id; (-1, "x") for X."""
    return (-1, "x") if table == "x" else (int(table[0]) - 1, table[1:])


def table_shape(shown: View, table: str) -> tuple[int, int]:
    layer, part = split_id(table)
    d, dff = shown.d, shown.dff
    return {"x": (shown.n, d), "wq": (d, d), "wk": (d, d), "wv": (d, d), "wo": (d, d), "b": (4, d), "ln": (4, d),
            "w1": (d, dff), "b1": (1, dff), "w2": (dff, d), "b2": (1, d)}[part]


def seeded_x(n: int, d: int, seed: int) -> np.ndarray:
    """The toy's X: two-decimal numbers from N(0, 1), the same for the same (n, d, seed)."""
    return np.round(np.random.default_rng([seed, n, d, 7]).normal(size=(n, d)), 2) + 0.0


def seeded_layer(d: int, heads: int, dff: int, seed: int, layer: int) -> LayerParams:
    """Layer ``layer``'s (0-based) seeded weights: each layer its own numbers."""
    return LayerParams.random(d, heads, dff, seed=seed * MAX_LAYERS + layer)


layer_tables = LayerParams.tables  # a layer's weights as the page's tables (part -> matrix)


def base_rows(shown: View, table: str) -> Rows:
    """The seeded table (what the page shows where nothing was typed), as text. Heads do not change it."""
    return _base(table, shown.n, shown.d, shown.dff, shown.seed)


# counted in bytes with the process's other caches (a W₁ of 16 × 64 is 64 KB of text); n matters to X only
@memo.cached("block.base", key=lambda table, n, d, dff, seed: (table, n if table == "x" else 0, d, dff, seed))
def _base(table: str, n: int, d: int, dff: int, seed: int) -> Rows:
    layer, part = split_id(table)
    matrix = seeded_x(n, d, seed) if table == "x" else layer_tables(seeded_layer(d, 1, dff, seed, layer))[part]
    return text_rows(matrix)


# The page declared once (selfattn/display/edits.py): the View from settings, the fit after a size change, the preset
# box and the link's settings and tables follow from it.
TABLES = Editable(View, FIELDS, PRESET_SETTINGS, lambda shown: table_ids(shown.layers), ALL_TABLES, table_shape,
                  max_heads=MAX_D, max_rows=max(MAX_TOKENS, MAX_DFF), max_cols=max(MAX_D, MAX_DFF),
                  cell_chars=CELL_CHARS, changed_from=changed_from)
view, fit_edits, preset_shown = TABLES.view, TABLES.fit_edits, TABLES.preset_shown
