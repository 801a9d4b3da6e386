"""The Encoder–decoder page's numbers: a :class:`~selfattn.seq2seq.view.View` read into weights and run.

Pure, no Streamlit: :func:`compute` parses every table, runs the source through the encoder and the target through
the decoder over its memory (:func:`selfattn.core.decoder.encoder_decoder`), decodes again one row at a time with a
key/value cache (:func:`~selfattn.core.decoder.decode_with_cache`), and checks both against ``torch.nn.Transformer``
holding the same weights. Every problem a visitor can fix is an :class:`~selfattn.errors.InputError`, raised before
any work. A result is kept once per view per process (``selfattn.memo``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from selfattn import memo
from selfattn.bench.cache import StepCost, step_costs
from selfattn.core.block import LayerParams
from selfattn.core.checks import check_heads
from selfattn.core.decoder import CacheTrace, DecoderLayerParams, EncoderDecoderTrace, decode_with_cache, encoder_decoder
from selfattn.display.grid import parse_cell
from selfattn.errors import InputError
from selfattn.seq2seq.view import (EPS, MAX_HEADS, MAX_LAYERS, MAX_TOKENS, View, fit_edits, group_tables, row_names, split_id,
                                   table_shape)

TABLE_NAMES = {"src": "X", "tgt": "Y", "wq": "W_q", "wk": "W_k", "wv": "W_v", "wo": "W_o", "cq": "W_q (cross)",
               "ck": "W_k (cross)", "cv": "W_v (cross)", "co": "W_o (cross)", "b": "b", "ln": "γ, β", "w1": "W_1",
               "b1": "b_1", "w2": "W_2", "b2": "b_2"}
COST_STEPS = 256  # the positions the cache's saving is counted over (the page's chart)


def table_name(table: str) -> str:
    """A table's name as errors write it: "X", "W_q (cross) (decoder 2)"."""
    side, layer, part = split_id(table)
    if not side:
        return TABLE_NAMES[table]
    return f"{TABLE_NAMES[part]} ({'encoder' if side == 'e' else 'decoder'} {layer + 1})"


def source_tokens(n: int) -> list[str]:
    return [f"x{i + 1}" for i in range(n)]


def target_tokens(m: int) -> list[str]:
    return [f"y{i + 1}" for i in range(m)]


def parse_table(shown: View, table: str) -> np.ndarray:
    """One table as numbers, or InputError ``cell_*`` naming the table, row and column (counted from 1)."""
    return _parsed(shown.rows(table), table_name(table), row_names(table), table_shape(shown, table))


@memo.cached("seq2seq.tables")
def _parsed(rows: tuple, name: str, names: tuple | None, shape: tuple[int, int]) -> np.ndarray:
    out = np.array([[parse_cell(cell, name, names[i] if names else str(i + 1), str(j + 1))
                     for j, cell in enumerate(row)] for i, row in enumerate(rows)], dtype=float).reshape(shape)
    out.flags.writeable = False  # shared by every run that reads this text
    return out


def check_sizes(shown: View) -> None:
    """The sizes, checked before any table is read (a link or a websocket may send any)."""
    for name, value, top in (("n", shown.n, MAX_TOKENS), ("m", shown.m, MAX_TOKENS), ("enc", shown.enc, MAX_LAYERS),
                             ("dec", shown.dec, MAX_LAYERS), ("heads", shown.heads, MAX_HEADS)):
        if not 1 <= value <= top:
            raise InputError("block_too_big", f"{name} = {value} is over this page's limit of {top}.",
                             name=name, value=value, top=top)
    check_heads(shown.d, shown.heads)


def encoder_params(shown: View, layer: int) -> LayerParams:
    return LayerParams.from_tables({p[2:]: parse_table(shown, p) for p in group_tables(f"e{layer + 1}")}, shown.heads)


def decoder_params(shown: View, layer: int) -> DecoderLayerParams:
    part = {p[2:]: parse_table(shown, p) for p in group_tables(f"d{layer + 1}")}
    b, ln = part["b"], part["ln"]
    return DecoderLayerParams.checked(
        w_q=part["wq"], w_k=part["wk"], w_v=part["wv"], w_o=part["wo"], b_q=b[0], b_k=b[1], b_v=b[2], b_o=b[3],
        c_w_q=part["cq"], c_w_k=part["ck"], c_w_v=part["cv"], c_w_o=part["co"],
        c_b_q=b[4], c_b_k=b[5], c_b_v=b[6], c_b_o=b[7],
        ln1_gamma=ln[0], ln1_beta=ln[1], ln2_gamma=ln[2], ln2_beta=ln[3], ln3_gamma=ln[4], ln3_beta=ln[5],
        w_1=part["w1"], b_1=part["b1"][0], w_2=part["w2"], b_2=part["b2"][0], num_heads=shown.heads)


@dataclass(frozen=True, eq=False)
class Result:
    """Everything the page draws."""

    src_tokens: list[str]  # (n,) x1 … xn
    tgt_tokens: list[str]  # (m,) y1 … ym
    encoder: tuple[LayerParams, ...]
    decoder: tuple[DecoderLayerParams, ...]
    trace: EncoderDecoderTrace  # the whole model, the target causal (teacher forcing: every row at once)
    cache: CacheTrace  # the decoder again, one row at a time with a key/value cache
    torch_difference: float  # the largest difference from torch.nn.Transformer: memory and outputs
    cache_difference: float  # the largest difference between the cached rows and the full pass
    costs: tuple[StepCost, ...]  # multiply-adds per step with and without the cache, up to COST_STEPS positions


RESULT_FREE = {"edit": "d1", "layer": 0, "focus": 0, "step": 0, "source": "toy", "text": "", "temp": 100, "tstep": 0,
               "ckpt": 63}  # drawn, or the translator's: not the toy's numbers


def result_view(shown: View) -> View:
    """``shown`` less what is drawn but not computed (the layer shown, the focus, the step): a result's key."""
    return dataclasses.replace(shown, **RESULT_FREE)


def compute(shown: View) -> Result:
    """:func:`compute_view` for the view's numbers (kept once per result per process)."""
    check_sizes(shown)
    return _kept(result_view(shown))


@memo.cached("seq2seq.result")
def _kept(shown: View) -> Result:
    return compute_view(shown)


def compute_view(shown: View, *, check: bool = True) -> Result:
    """Read the tables and run the model, cached decoding and the torch check.

    Raises:
        InputError: a size over the limits, heads that do not divide d_model, a cell that is not a finite number
            (named), or numbers that overflow.
    """
    check_sizes(shown)
    kept, _ = fit_edits(shown)
    if kept != shown.edited:  # tables of another size are not this view's
        shown = dataclasses.replace(shown, edits=tuple(sorted(kept.items())))
    src, tgt = parse_table(shown, "src"), parse_table(shown, "tgt")
    encoder = tuple(encoder_params(shown, layer) for layer in range(shown.enc))
    decoder = tuple(decoder_params(shown, layer) for layer in range(shown.dec))
    d = shown.d
    norms = (np.ones(d), np.zeros(d))  # nn.Transformer's two final norms, as torch makes them
    options = {"norm_first": shown.norm == "pre", "activation": shown.act, "eps": EPS}
    trace = encoder_decoder(src, tgt, encoder, decoder, encoder_final_norm=norms, decoder_final_norm=norms, **options)
    cache = decode_with_cache(tgt, trace.memory, decoder, decoder_final_norm=norms, **options)
    cache_difference = float(np.abs(cache.outputs - trace.outputs).max())
    difference = torch_difference(src, tgt, trace, encoder, decoder, options) if check else float("nan")
    costs = tuple(step_costs(COST_STEPS, shown.n, d, shown.dff, shown.dec))
    return Result(src_tokens=source_tokens(shown.n), tgt_tokens=target_tokens(shown.m), encoder=encoder,
                  decoder=decoder, trace=trace, cache=cache, torch_difference=difference,
                  cache_difference=cache_difference, costs=costs)


def torch_difference(src, tgt, trace: EncoderDecoderTrace, encoder, decoder, options: dict) -> float:
    """The largest difference between this model and ``torch.nn.Transformer`` holding its weights: the memory and
    the decoder's outputs."""
    from selfattn.core.torch_block import torch_encoder_decoder, torch_transformer

    model = torch_transformer(encoder, decoder, **options)
    memory, outputs = torch_encoder_decoder(src, tgt, model)
    return max(float(np.abs(trace.memory - memory).max()), float(np.abs(trace.outputs - outputs).max()))
