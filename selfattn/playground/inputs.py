"""The Playground's tables as numbers, and the one computation the page shows.

:func:`compute_view` is the page's whole pipeline step between reading and drawing: its
:class:`~selfattn.playground.view.View` (the tables as typed, the settings) and the order of the tokens to
shuffle them into in, a :class:`Result` out (the parsed tables, the trace with X + PE when positions are on, the
shuffled run). It is pure, parsing included, and kept once per view per process (``selfattn.memo``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from selfattn import AttentionTrace, memo, self_attention
from selfattn.core.positions import ShuffleTrace, positional_encoding, shuffle_check
from selfattn.display.export import column_names
from selfattn.display.grid import frame_to_matrix, parse_cell, parse_labels
from selfattn.errors import InputError
from selfattn.playground.tables import BIASES, COLUMN_PREFIX, MATRICES, NAMES, TOKEN_COL, Rows, Tables
from selfattn.playground.view import View



@dataclass(frozen=True)
class Inputs:
    """Parsed, valid numbers ready for ``self_attention``."""

    tokens: list[str]
    x: np.ndarray  # (n, d_in)
    w_q: np.ndarray  # (d_in, d_k)
    w_k: np.ndarray  # (d_in, d_k)
    w_v: np.ndarray  # (d_in, d_v)
    b_q: np.ndarray  # (d_k,), zeros when the biases are off
    b_k: np.ndarray  # (d_k,)
    b_v: np.ndarray  # (d_v,)


def parse_table(name: str, frame: pd.DataFrame) -> np.ndarray:
    """One editor's table as numbers (X: its numeric columns), or InputError naming row and column.

    Args:
        name: one of ``MATRICES`` or ``BIASES``.
        frame: its cells as text; X with its :data:`TOKEN_COL` first, a weight with the x1, x2, ... rows.
    """
    if name == "x":
        tokens = parse_labels(list(frame[TOKEN_COL]), len(frame))
        return frame_to_matrix(frame.drop(columns=[TOKEN_COL]), "X",
                               [f"{i + 1} ({tok})" for i, tok in enumerate(tokens)])
    rows = [NAMES[name]] if name in BIASES else list(frame.index)
    return frame_to_matrix(frame, NAMES[name], rows)




def row_labels(name: str, count: int, tokens=()) -> tuple[str, ...]:
    """How messages name the rows of ``name``'s table: X's "1 (Input 1)", a weight's x1, x2, ..., a bias's name."""
    if name == "x":
        return tuple(f"{i + 1} ({tok})" for i, tok in enumerate(parse_labels(list(tokens), count)))
    if name in BIASES:
        return (NAMES[name],)
    return tuple(column_names("x", count))


@functools.lru_cache(maxsize=256)  # 256 tables of at most 32 × 16 short texts: a few MB at most
def _parsed(name: str, rows: Rows, labels: tuple[str, ...]) -> np.ndarray | InputError:
    columns = column_names(COLUMN_PREFIX[name], len(rows[0]) if rows else 0)
    out = np.empty((len(rows), len(columns)), dtype=np.float64)
    try:
        for i, row in enumerate(rows):
            for j, value in enumerate(row):
                out[i, j] = parse_cell(value, NAMES[name], labels[i], columns[j])
    except InputError as exc:
        return exc
    out.flags.writeable = False  # shared by every run that reads these cells
    return out


def parse_rows(name: str, rows: Rows, tokens=()) -> np.ndarray:
    """One table as typed (X: its numbers, labelled by ``tokens``) as numbers, or InputError naming the matrix, row
    and column, as :func:`parse_table` names them. Kept per table per process: the editor's check and the page's
    computation read each table once."""
    rows = tuple(tuple(row) for row in rows)
    parsed = _parsed(name, rows, row_labels(name, len(rows), tokens))
    if isinstance(parsed, InputError):
        raise parsed.with_traceback(None)
    return parsed


def inputs_of(tables: Tables, bias: bool) -> Inputs:
    """Every table of ``tables`` as numbers (biases as zeros when they are off), or InputError naming the cell."""
    mats = {name: parse_rows(name, tables.rows(name), tables.tokens) for name in MATRICES}
    biases = {name: parse_rows(name, tables.rows(name))[0] if bias else np.zeros(len(tables.rows(name)[0]))
              for name in BIASES}
    return Inputs(tokens=parse_labels(list(tables.tokens), len(tables.x)), **mats, **biases)


@dataclass(frozen=True)
class Result:
    """What the Playground draws for one view: the parsed tables, every step, and the shuffled run."""

    inputs: Inputs
    trace: AttentionTrace  # on X + PE (X when positions are off)
    pe: np.ndarray  # (n, d_in) the position vectors added (zeros: none)
    bias: bool  # whether the biases were added
    shuffle: ShuffleTrace | None  # the run on the tokens in the order asked for (None: no order, or the same one)
    shuffle_error: InputError | None  # why the shuffled run has no numbers (an overflow the page's own run escaped)


def _result_key(shown: View, order: tuple[int, ...] | None):
    return (shown.tables, shown.scale, shown.causal, shown.bias, shown.pos, shown.pos_seed, order)


@memo.cached("playground.result", key=_result_key)
def compute_view(shown: View, order: tuple[int, ...] | None = None) -> Result:
    """Every step of self-attention for the tables and options of ``shown``, and (``order``: the tokens' new order,
    0-based) the run on the shuffled tokens compared with it.

    Raises:
        InputError: a cell that is not a finite number (named), or numbers the core refuses (an overflow).
    """
    inputs = inputs_of(shown.tables, shown.bias)
    n, d_in = inputs.x.shape
    pe = positions(shown, n, d_in)
    trace = compute(inputs, shown)
    shuffle, error = None, None
    if order is not None and len(order) == n and list(order) != list(range(n)):
        biases = {"b_q": inputs.b_q, "b_k": inputs.b_k, "b_v": inputs.b_v} if shown.bias else {}
        attention = partial(self_attention, w_q=inputs.w_q, w_k=inputs.w_k, w_v=inputs.w_v, scale=shown.scale,
                            mask="causal" if shown.causal else None, **biases)
        try:
            shuffle = shuffle_check(inputs.x, np.array(order, dtype=int), attention, pe=pe)
        except InputError as exc:
            error = exc
    return Result(inputs=inputs, trace=trace, pe=pe, bias=shown.bias, shuffle=shuffle, shuffle_error=error)


def permutation(order) -> np.ndarray:
    """(n, n) the permutation matrix P of ``order``: row r has its 1 in the column of the token it now holds."""
    n = len(order)
    perm = np.zeros((n, n))
    perm[np.arange(n), np.asarray(order, dtype=int)] = 1.0
    return perm


def positions(shown: View, n: int, d_in: int) -> np.ndarray:
    """(n, d_in) the position vectors ``shown`` adds to X (zeros for none)."""
    return positional_encoding(n, d_in, shown.pos, int(shown.pos_seed))


def compute(inputs: Inputs, shown: View) -> AttentionTrace:
    """Every step of self-attention for the parsed tables with the options of ``shown``.

    Raises:
        InputError: numbers the core refuses (an overflow).
    """
    biases = {"b_q": inputs.b_q, "b_k": inputs.b_k, "b_v": inputs.b_v} if shown.bias else {}
    return self_attention(inputs.x + positions(shown, *inputs.x.shape), inputs.w_q, inputs.w_k, inputs.w_v,
                          scale=shown.scale, mask="causal" if shown.causal else None, **biases)
