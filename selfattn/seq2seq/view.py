"""The Encoder–decoder page's state as one frozen object: its settings table, presets and tables as typed.

:data:`FIELDS` is the page's settings table (read by ``ui/state.py`` through ``ui/navigation.py``), :data:`KEPT` and
:data:`WIDGETS` its other session keys. A :class:`View` holds one value per field (the key without its ``s2s_``
prefix) and :attr:`View.edits`, the tables the visitor typed into, as text, by table id; every other table is the
seeded one (:func:`base_rows`), so the link carries only the edits (:mod:`selfattn.seq2seq.link`).

Table ids: ``src`` (the source X, n × d) and ``tgt`` (the target so far, m × d); an encoder layer's
``e<layer><part>`` with the block page's parts (``e1wq`` … ``e1b2``); a decoder layer's ``d<layer><part>``:
``wq wk wv wo`` (masked self-attention, d × d), ``cq ck cv co`` (cross-attention, d × d), ``b`` (the eight
attention biases as rows, 8 × d), ``ln`` (γ₁, β₁, γ₂, β₂, γ₃, β₃ as rows, 6 × d), ``w1``, ``b1``, ``w2``, ``b2``.
Layers are counted from 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from selfattn import memo
from selfattn.core.block import ACTIVATIONS, LayerParams
from selfattn.core.decoder import DecoderLayerParams
from selfattn.display.edits import CUSTOM, Editable, Edited, Rows, text_rows
from selfattn.display.share import Choice, Field, Int, Text

KEPT = {
    "s2s": "the Encoder–decoder page's typed tables, editors' generation, undo and notice (ui/seq2seq/page.py SLOTS)",
    "s2s_good": "last_good: the Encoder–decoder page's result (selfattn.seq2seq.compute.Result)",
    "s2s_tr_good": "last_good: the Encoder–decoder page's translation (selfattn.translate.Translation)",
    "s2s_train_model": "the Encoder–decoder page's translator: the visitor's own run (selfattn.translate.train.LiveRun), "
                       "used while it is kept",
    "s2s_train_chosen": "the Encoder–decoder page's translator: the settings of a run of one's own as last chosen (the "
                        "training box's widgets are made only while it is open)",
    "s2s_train_asked": "the Encoder–decoder page's translator: the run the Train button asked for, until the expander "
                       "starts it",
    "s2sed_*": "the Encoder–decoder page's matrix editors, one per table and version",
    "s2s_weights": "the Encoder–decoder page's weights' expander (set before it is made from weights_open in "
                  "s2s, the page's state dict)",
    "s2s_playing": "the Encoder–decoder page's generation playing: {moves left, when the step last moved} "
                   "(ui.play.Player), absent when paused",
    "s2s_tplaying": "the Encoder–decoder page's translator: its generation playing, as s2s_playing",
}
WIDGETS = {
    "s2s_undo": "the Encoder–decoder page's Undo button",
    "s2s_load": "the Encoder–decoder page's button that reloads the preset",
    "s2s_next": "the Encoder–decoder page's button that moves generation one step on",
    "s2s_tnext": "the Encoder–decoder page's translator: the button that moves generation one step on",
    "s2s_tex_trained": "the Encoder–decoder page's translator: the pills of sentences it was trained on (a click "
                       "puts one in the box, then none is picked)",
    "s2s_tex_held": "the Encoder–decoder page's translator: the pills of held-out sentences, as s2s_tex_trained",
    "s2s_play": "the Encoder–decoder page's Play/Pause button of generation",
    "s2s_tplay": "the Encoder–decoder page's translator: the Play/Pause button of its generation",
    "s2s_train_panel": "the Encoder–decoder page's translator: the folded box of training it again (its settings and "
                       "button are made only while open)",
    "s2s_train_epochs": "the Encoder–decoder page's translator: the epochs of a run of one's own",
    "s2s_train_d": "the Encoder–decoder page's translator: d_model of a run of one's own",
    "s2s_train_layers": "the Encoder–decoder page's translator: layers on each side of a run of one's own",
    "s2s_train_seed": "the Encoder–decoder page's translator: the seed of a run of one's own",
    "s2s_train_go": "the Encoder–decoder page's translator: the Train button",
    "s2s_train_back": "the Encoder–decoder page's translator: the button back to the shipped model",
    "s2s_part_tabs": "the Encoder–decoder page's parts' tab bar (its label; the part is s2s_part)",
    "s2s_part_next": "the Encoder–decoder page's button to the next part",
}
PREFIX = "s2s_"
MAX_SEED = 2**31 - 1
MAX_TOKENS = 8  # source and target tokens
MAX_D = 16
MAX_DFF = 64
MAX_LAYERS = 4  # encoder layers, and decoder layers
MAX_HEADS = 4  # each head is drawn (self, cross, its cache): 4 heads are 20 maps a layer shown
PRESETS = ("vaswani", "prenorm")
ENCODER_PARTS = ("wq", "wk", "wv", "wo", "b", "ln", "w1", "b1", "w2", "b2")
DECODER_PARTS = ("wq", "wk", "wv", "wo", "cq", "ck", "cv", "co", "b", "ln", "w1", "b1", "w2", "b2")
ROWS_OF = {"eb": ("b_q", "b_k", "b_v", "b_o"), "eln": ("γ₁", "β₁", "γ₂", "β₂"),
           "db": ("b_q", "b_k", "b_v", "b_o", "c_b_q", "c_b_k", "c_b_v", "c_b_o"),
           "dln": ("γ₁", "β₁", "γ₂", "β₂", "γ₃", "β₃")}
CELL_CHARS = 40
EDIT_GROUPS = tuple(f"{side}{layer}" for side in "ed" for layer in range(1, MAX_LAYERS + 1))  # e1 … e4, d1 … d4

SOURCES = ("toy", "translator")  # the editable toy, or the tiny translator trained here (selfattn.translate)
# The page's parts (ui/parts.py), in a learner's order, the first open first: one pass of the model over the whole
# sentence (the memory, the masked self-attention, the cross-attention: the maps an edit previews, linked on hover),
# generation one position at a time with its K/V cache, and (the translator's alone) how it learned.
PARTS = ("pass", "generation", "learned")
SOURCE_PARTS = {"toy": PARTS[:2], "translator": PARTS}  # the parts each source offers
MAX_TEXT = 40  # characters of a sentence to translate (selfattn.translate.MAX_CHARS)
MAX_TRANSLATED_WORDS = 16  # the translator's generation steps a link may name

FIELDS = (Field("s2s_source", "source", Choice(SOURCES), "toy"),
          Field("s2s_part", "part", Choice(PARTS), PARTS[0]),
          Field("s2s_preset", "preset", Choice((*PRESETS, CUSTOM)), "vaswani"),  # custom: the settings are no preset's
          Field("s2s_seed", "seed", Int(0, MAX_SEED), 0),
          Field("s2s_n", "n", Int(1, MAX_TOKENS), 4),
          Field("s2s_m", "m", Int(1, MAX_TOKENS), 3),
          Field("s2s_d", "d", Int(1, MAX_D), 4),
          Field("s2s_heads", "heads", Int(1, MAX_HEADS), 2),
          Field("s2s_dff", "dff", Int(1, MAX_DFF), 8),
          Field("s2s_enc", "enc", Int(1, MAX_LAYERS), 1),
          Field("s2s_dec", "dec", Int(1, MAX_LAYERS), 1),
          Field("s2s_norm", "norm", Choice(("post", "pre")), "post"),
          Field("s2s_act", "act", Choice(ACTIVATIONS), "relu"),
          Field("s2s_edit", "edit", Choice(EDIT_GROUPS), "d1"),
          Field("s2s_layer", "layer", Int(1, MAX_LAYERS, shift=1), 0),
          Field("s2s_focus", "focus", Int(1, MAX_TOKENS, shift=1), 0),
          Field("s2s_step", "step", Int(1, MAX_TOKENS, shift=1), 0),
          # the translator: the sentence, the temperature of the next-word probabilities (in hundredths), the
          # generation step shown, and the training checkpoint shown ("How it learned"; past the last: the last)
          Field("s2s_text", "text", Text(MAX_TEXT), "早上好"),
          Field("s2s_temp", "temp", Int(10, 300), 100),
          Field("s2s_tstep", "tstep", Int(1, MAX_TRANSLATED_WORDS, shift=1), 0),
          Field("s2s_ckpt", "ckpt", Int(1, 64, shift=1), 63))

# What each preset sets (the tables then come from the seed): Vaswani et al.'s post-LN with ReLU, and the pre-LN
# order most models use now, with GELU.
PRESET_SETTINGS = {
    "vaswani": {"s2s_n": 4, "s2s_m": 3, "s2s_d": 4, "s2s_heads": 2, "s2s_dff": 8, "s2s_enc": 1, "s2s_dec": 1,
                "s2s_norm": "post", "s2s_act": "relu"},
    "prenorm": {"s2s_n": 4, "s2s_m": 3, "s2s_d": 4, "s2s_heads": 2, "s2s_dff": 8, "s2s_enc": 1, "s2s_dec": 1,
                "s2s_norm": "pre", "s2s_act": "gelu"},
}
EPS = 1e-5  # nn.Transformer's default


@dataclass(frozen=True)
class View(Edited):
    """What the page shows: every setting of :data:`FIELDS` and the tables typed into (``edited``, ``rows``)."""

    PREFIX = PREFIX
    edits: tuple[tuple[str, Rows], ...] = ()  # (table id, cells as typed), sorted by id: only tables that differ
    source: str = "toy"  # the editable toy or the translator
    part: str = "pass"  # the part open (PARTS; the toy's are SOURCE_PARTS["toy"])
    preset: str = "vaswani"
    seed: int = 0
    n: int = 4  # source tokens
    m: int = 3  # target tokens so far
    d: int = 4
    heads: int = 2
    dff: int = 8
    enc: int = 1  # encoder layers
    dec: int = 1  # decoder layers
    norm: str = "post"
    act: str = "relu"
    edit: str = "d1"  # the layer whose weights the editors show: e1 … e4, d1 … d4
    layer: int = 0  # the decoder layer drawn, 0-based
    focus: int = 0  # the target token written out, 0-based
    step: int = 0  # the generation step drawn, 0-based
    text: str = "早上好"  # the translator's sentence
    temp: int = 100  # the temperature of its next-word probabilities × 100
    tstep: int = 0  # its generation step drawn, 0-based
    ckpt: int = 63  # its training checkpoint drawn, 0-based (past the last: the last)

    def base(self, table: str) -> Rows:
        return base_rows(self, table)


def table_ids(enc: int, dec: int) -> tuple[str, ...]:
    """Every table of a model of ``enc`` encoder and ``dec`` decoder layers: src, tgt, then the layers'."""
    return ("src", "tgt", *(f"e{layer}{part}" for layer in range(1, enc + 1) for part in ENCODER_PARTS),
            *(f"d{layer}{part}" for layer in range(1, dec + 1) for part in DECODER_PARTS))


ALL_TABLES = table_ids(MAX_LAYERS, MAX_LAYERS)


def split_id(table: str) -> tuple[str, int, str]:
    """(side "e" or "d", layer 0-based, part) of a layer's table id; ("", -1, id) for src and tgt."""
    if table in ("src", "tgt"):
        return "", -1, table
    return table[0], int(table[1]) - 1, table[2:]


def group_tables(group: str) -> tuple[str, ...]:
    """The tables of one layer (``e1``, ``d2``), in the page's order."""
    return tuple(f"{group}{part}" for part in (ENCODER_PARTS if group[0] == "e" else DECODER_PARTS))


def table_shape(shown: View, table: str) -> tuple[int, int]:
    side, _, part = split_id(table)
    d, dff = shown.d, shown.dff
    shapes = {"src": (shown.n, d), "tgt": (shown.m, d), "b": (4 if side == "e" else 8, d),
              "ln": (4 if side == "e" else 6, d), "w1": (d, dff), "b1": (1, dff), "w2": (dff, d), "b2": (1, d)}
    return shapes.get(part, (d, d))


def row_names(table: str) -> tuple[str, ...] | None:
    """The names of a stacked table's rows (biases, γ and β), or None (rows counted from 1)."""
    side, _, part = split_id(table)
    return ROWS_OF.get(side + part)


def seeded_tokens(rows: int, d: int, seed: int, salt: int) -> np.ndarray:
    """Source or target vectors: two-decimal numbers from N(0, 1), the same for the same (rows, d, seed)."""
    return np.round(np.random.default_rng([seed, rows, d, salt]).normal(size=(rows, d)), 2) + 0.0


def seeded_encoder(d: int, dff: int, seed: int, layer: int) -> LayerParams:
    return LayerParams.random(d, 1, dff, seed=seed * 4 * MAX_LAYERS + layer)


def seeded_decoder(d: int, dff: int, seed: int, layer: int) -> DecoderLayerParams:
    return DecoderLayerParams.random(d, 1, dff, seed=seed * 4 * MAX_LAYERS + MAX_LAYERS + 2 * layer)


encoder_tables = LayerParams.tables  # an encoder layer's weights as the page's tables (part -> matrix)


def decoder_tables(p: DecoderLayerParams) -> dict[str, np.ndarray]:
    return {"wq": p.w_q, "wk": p.w_k, "wv": p.w_v, "wo": p.w_o, "cq": p.c_w_q, "ck": p.c_w_k, "cv": p.c_w_v,
            "co": p.c_w_o, "b": np.stack([p.b_q, p.b_k, p.b_v, p.b_o, p.c_b_q, p.c_b_k, p.c_b_v, p.c_b_o]),
            "ln": np.stack([p.ln1_gamma, p.ln1_beta, p.ln2_gamma, p.ln2_beta, p.ln3_gamma, p.ln3_beta]),
            "w1": p.w_1, "b1": p.b_1[None, :], "w2": p.w_2, "b2": p.b_2[None, :]}


def base_rows(shown: View, table: str) -> Rows:
    """The seeded table (what the page shows where nothing was typed), as text. Heads do not change it."""
    rows = shown.n if table == "src" else shown.m if table == "tgt" else 0
    return _base(table, rows, shown.d, shown.dff, shown.seed)


@memo.cached("seq2seq.base")  # counted in bytes with the process's other caches (a W₁ of 16 × 64 is 64 KB of text)
def _base(table: str, rows: int, d: int, dff: int, seed: int) -> Rows:
    side, layer, part = split_id(table)
    if table in ("src", "tgt"):
        matrix = seeded_tokens(rows, d, seed, 11 if table == "src" else 13)
    elif side == "e":
        matrix = encoder_tables(seeded_encoder(d, dff, seed, layer))[part]
    else:
        matrix = decoder_tables(seeded_decoder(d, dff, seed, layer))[part]
    return text_rows(matrix)


def offered_groups(shown: View) -> tuple[str, ...]:
    """The layers whose weights can be edited: e1 … e<enc>, d1 … d<dec>."""
    return tuple(g for g in EDIT_GROUPS if int(g[1]) <= (shown.enc if g[0] == "e" else shown.dec))


# The page declared once (selfattn/display/edits.py): the View from settings, the fit after a size change, the preset
# box and the link's settings and tables follow from it.
TABLES = Editable(View, FIELDS, PRESET_SETTINGS, lambda shown: table_ids(shown.enc, shown.dec), ALL_TABLES, table_shape,
                  max_heads=MAX_HEADS, max_rows=MAX_DFF, max_cols=max(MAX_D, MAX_DFF), cell_chars=CELL_CHARS)
view, fit_edits, preset_shown = TABLES.view, TABLES.fit_edits, TABLES.preset_shown
