"""The Transformer block page's numbers: a :class:`~selfattn.block.view.View` read into weights and run.

Pure functions, no Streamlit: :func:`compute_toy` parses every table, runs the stack (and the padded batch)
through :mod:`selfattn.core.block` and checks it against ``torch.nn.TransformerEncoderLayer``;
:func:`compute_real` recomputes a real model's layer and checks it against the model's own hidden state.
Every problem a visitor can fix is an :class:`~selfattn.errors.InputError`, raised before any work.
"""

from __future__ import annotations

import dataclasses
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

import numpy as np

from selfattn import memo

from selfattn.block.view import (MAX_BATCH, MAX_LAYERS, MAX_TOKENS, MIN_BATCH, ROWS_OF, View, fit_edits, split_id,
                                 table_shape)
from selfattn.core.block import (BatchTrace, LayerParams, LayerTrace, StackTrace, check_eps, transformer_batch,
                                 transformer_stack)
from selfattn.core.checks import check_heads
from selfattn.core.positions import positional_encoding
from selfattn.display.grid import parse_cell
from selfattn.errors import InputError

TABLE_NAMES = {"x": "X", "wq": "W_q", "wk": "W_k", "wv": "W_v", "wo": "W_o", "b": "b", "ln": "γ, β",
               "w1": "W_1", "b1": "b_1", "w2": "W_2", "b2": "b_2"}


def table_name(table: str) -> str:
    """A table's name as the page writes it: "X", "W_q (layer 2)"."""
    layer, part = split_id(table)
    return "X" if table == "x" else f"{TABLE_NAMES[part]} ({layer + 1})"


def tokens(n: int) -> list[str]:
    """The toy's token labels: t1 … tn."""
    return [f"t{i + 1}" for i in range(n)]


def parse_table(shown: View, table: str) -> np.ndarray:
    """One table as numbers, or InputError ``cell_*`` naming the table, row and column (counted from 1)."""
    layer, part = split_id(table)
    return _parsed(shown.rows(table), table_name(table), ROWS_OF.get(part), table_shape(shown, table)).copy()


@memo.cached("block.tables")
def _parsed(rows: tuple, name: str, row_names: tuple | None, shape: tuple[int, int]) -> np.ndarray:
    """A table's text parsed, once per process per text: an edit of X leaves every weight table's text as it was
    (at the hosted maximum, 60 tables and 20,000 cells took 18 ms to parse on every run). Errors are not cached."""
    return np.array([[parse_cell(cell, name, row_names[i] if row_names else str(i + 1), str(j + 1))
                      for j, cell in enumerate(row)] for i, row in enumerate(rows)], dtype=float).reshape(shape)


def check_sizes(shown: View) -> None:
    """The sizes of the toy, checked before any table is read (a link or a websocket may send any)."""
    for name, value, top in (("n", shown.n, MAX_TOKENS), ("layers", shown.layers, MAX_LAYERS)):
        if not 1 <= value <= top:
            raise InputError("block_too_big", f"{name} = {value} is over this page's limit of {top}.",
                             name=name, value=value, top=top)
    check_heads(shown.d, shown.heads)
    if not 0 <= shown.layer < shown.layers:
        raise InputError("block_layer", f"There is no layer {shown.layer + 1} in a stack of {shown.layers}.",
                         layer=shown.layer + 1, layers=shown.layers)


def read_eps(text: str) -> float:
    """ε as typed ("1e-5", "0.00001"), or InputError ``eps_bad``."""
    cleaned = unicodedata.normalize("NFKC", str(text)).strip().replace("−", "-")
    if not re.fullmatch(r"[0-9eE.+-]{1,24}", cleaned):
        raise InputError("eps_bad", f"ε must be a finite number above 0, got {text!r}.", eps=str(text)[:24])
    try:
        value = float(cleaned)
    except ValueError:
        raise InputError("eps_bad", f"ε must be a finite number above 0, got {text!r}.", eps=str(text)[:24]) from None
    try:
        return check_eps(value)
    except InputError:  # named as typed ("0", not "0.0")
        raise InputError("eps_bad", f"ε must be a finite number above 0, got {text!r}.", eps=str(text)[:24]) from None


def read_lengths(text: str, n: int) -> list[int]:
    """The padded batch's lengths as typed ("4 2 3"): 2 to 4 whole numbers from 1 to n, or InputError."""
    parts = [p for p in re.split(r"[\s,，、;]+", unicodedata.normalize("NFKC", str(text)).strip()) if p]
    if not MIN_BATCH <= len(parts) <= MAX_BATCH or not all(re.fullmatch(r"[0-9]{1,2}", p) for p in parts):
        raise InputError("batch_lengths", f"Type {MIN_BATCH} to {MAX_BATCH} lengths from 1 to {n}, e.g. \"4 2 3\".",
                         n=n, lo=MIN_BATCH, hi=MAX_BATCH)
    lengths = [int(p) for p in parts]
    if not all(1 <= length <= n for length in lengths):
        raise InputError("batch_lengths", f"Type {MIN_BATCH} to {MAX_BATCH} lengths from 1 to {n}, e.g. \"4 2 3\".",
                         n=n, lo=MIN_BATCH, hi=MAX_BATCH)
    return lengths


def layer_params(shown: View, layer: int) -> LayerParams:
    """Layer ``layer``'s (0-based) weights as typed."""
    part = {p: parse_table(shown, f"{layer + 1}{p}") for p in ("wq", "wk", "wv", "wo", "b", "ln", "w1", "b1", "w2", "b2")}
    return LayerParams.from_tables(part, shown.heads)


def settings_of(shown: View, eps: float) -> dict[str, Any]:
    """The keywords of :func:`selfattn.core.block.transformer_layer` the view asks for."""
    return {"norm_first": shown.norm == "pre", "activation": shown.act, "eps": eps, "causal": shown.causal}


def final_norm_of(shown: View, d: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The closing LayerNorm of a pre-LN stack (γ = 1, β = 0, as GPT-2's ln_f starts), or None."""
    return (np.ones(d), np.zeros(d)) if shown.final and shown.norm == "pre" else None


@dataclass(frozen=True, eq=False)
class ToyResult:
    """Everything the page draws for the toy."""

    tokens: list[str]  # (n,)
    x: np.ndarray  # (n, d) X as typed
    positions: np.ndarray | None  # (n, d) the position vectors added, or None
    params: tuple[LayerParams, ...]
    stack: StackTrace
    torch_difference: float  # the largest difference from torch.nn.TransformerEncoderLayer, every layer
    batch: BatchTrace | None
    batch_lengths: tuple[int, ...]
    padding_difference: float | None  # padded batch vs each sequence alone, real rows: how much padding changed


def positions_for(shown: View, n: int, d: int) -> np.ndarray | None:
    return None if shown.pos == "none" else positional_encoding(n, d, shown.pos, seed=shown.seed)


RESULT_FREE = {"layer": 0, "focus": 0, "source": "toy", "text": "", "rlayer": 0, "part": "layer"}  # drawn, not computed


def result_view(shown: View) -> View:
    """``shown`` less the settings the toy's result does not follow from (the layer shown, the token whose
    LayerNorm is written out, the real model's settings): the key of a cached result, so that clicking through
    layers or tokens computes nothing and keeps nothing new."""
    return dataclasses.replace(shown, **RESULT_FREE)


def compute_toy(shown: View, *, check: bool = True) -> ToyResult:
    """Read the view's tables and run the block (or stack), with its batch when asked.

    Raises:
        InputError: a size over the limits, heads that do not divide d_model, a bad ε, a cell that is not a finite
            number (named), bad batch lengths, or numbers that overflow.
    """
    check_sizes(shown)
    eps = read_eps(shown.eps)
    lengths = read_lengths(shown.lengths, shown.n) if shown.batch else []
    kept, _ = fit_edits(shown)
    if kept != shown.edited:  # tables of another size are not this view's
        shown = View(**{**shown.__dict__, "edits": tuple(sorted(kept.items()))})
    x = parse_table(shown, "x")
    params = tuple(layer_params(shown, layer) for layer in range(shown.layers))
    n, d = x.shape
    pe = positions_for(shown, n, d)
    x_in = x if pe is None else x + pe
    options = settings_of(shown, eps)
    final = final_norm_of(shown, d)
    stack = transformer_stack(x_in, params, final_norm=final, **options)
    difference = torch_difference(stack, params, final, options) if check else math.nan
    batch, padding = None, None
    if lengths:
        sequences = [x[:length] if pe is None else x[:length] + positional_encoding(length, d, shown.pos, seed=shown.seed)
                     for length in lengths]
        batch = transformer_batch(sequences, params, max_len=shown.maxlen, final_norm=final, **options)
        padding = 0.0
        for b, seq in enumerate(sequences):
            length = batch.lengths[b]
            alone = transformer_stack(seq[:length], params, final_norm=final, **options).outputs
            padding = max(padding, float(np.abs(batch.stacks[b].outputs[:length] - alone).max()))
    return ToyResult(tokens=tokens(n), x=x, positions=pe, params=params, stack=stack, torch_difference=difference,
                     batch=batch, batch_lengths=tuple(lengths), padding_difference=padding)


def torch_difference(stack: StackTrace, params: tuple[LayerParams, ...], final: Any, options: dict) -> float:
    """The largest difference between this stack and torch's own layers, every layer's outputs and weights."""
    from selfattn.core.torch_block import torch_stack

    outputs, weights, closing = torch_stack(stack.x, params, final_norm=final, **options)
    worst = 0.0
    for mine, out, att in zip(stack.layers, outputs, weights):
        worst = max(worst, float(np.abs(mine.outputs - out).max()), float(np.abs(mine.weights - att).max()))
    if closing is not None:
        worst = max(worst, float(np.abs(stack.outputs - closing).max()))
    return worst


@dataclass(frozen=True, eq=False)
class RealResult:
    """A real model's layer, recomputed."""

    model: str
    tokens: list[str]
    truncated: bool
    layer: int  # 0-based
    num_layers: int
    trace: LayerTrace
    model_output: np.ndarray  # (n, d) the model's own hidden_states[layer + 1]
    difference: float  # largest |trace.outputs − model_output|
    weights_difference: float  # largest |trace.weights − the model's attentions[layer]|
    similarity: np.ndarray  # (L + 1,) mean cosine similarity of the tokens, embeddings then each layer
    unknown: tuple[str, ...] = ()  # what the model read as [UNK] (MiniLM: most Chinese characters)
    labels: tuple[str, ...] = ()  # (n,) each token as the page labels it: an [UNK] with the text it stood for


def compute_real(bundle: Any, run: Any, layer: int) -> RealResult:
    """Recompute layer ``layer`` (0-based) of ``run`` from the model's weights and compare it with the model."""
    from selfattn.core.block import mean_similarity
    from selfattn.text.models import recompute_layer

    trace = recompute_layer(bundle, run, layer)
    own = run.hidden_states[layer + 1]
    similarity = [mean_similarity(state) for state in run.hidden_states]
    return RealResult(model=bundle.name, tokens=list(run.tokens), truncated=bool(run.truncated), layer=layer,
                      num_layers=bundle.num_layers, trace=trace, model_output=own,
                      difference=float(np.abs(trace.outputs - own).max()),
                      weights_difference=float(np.abs(trace.weights - run.attentions[layer]).max()),
                      similarity=np.array(similarity), unknown=tuple(run.unknown_text), labels=real_labels(run))


def real_labels(run: Any) -> tuple[str, ...]:
    """Each token of ``run`` as a row label, counted from 1: "3 我 [UNK]" where the model read 我 as [UNK], so that
    a learner can tell the rows apart."""
    from selfattn.text.models import originals_of

    unknown = dict(zip(run.unknown, originals_of(list(run.tokens), list(run.originals), list(run.unknown))))
    return tuple(f"{i + 1} {unknown[i]} {token}" if i in unknown and unknown[i] != token else f"{i + 1} {token}"
                 for i, token in enumerate(run.tokens))
