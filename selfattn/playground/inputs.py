"""The Playground's tables as numbers, and the one computation the page shows.

``compute`` is the page's whole pipeline step between reading and drawing: the parsed tables and
the :class:`~selfattn.playground.view.View` in, the trace out (X + PE when positions are on).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from selfattn import AttentionTrace, self_attention
from selfattn.core.positions import positional_encoding
from selfattn.display.grid import frame_to_matrix, parse_labels
from selfattn.playground.view import BIASES, NAMES, View

TOKEN_COL = "token"  # X's first column in the editors: the token labels


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
