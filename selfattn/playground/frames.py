"""The Playground's editor tables: a preset's matrices as labelled tables, translated and resized.

A table is a DataFrame labelled as the editors show it: X with its :data:`TOKEN_COL` first and the
columns x1, x2, ...; a weight with the rows x1, x2, ... and the columns q1, k1 or v1, ...; a bias one
row named b_q, b_k or b_v. The tutorial's token labels ("Input i") are written in the language asked for.
"""

from __future__ import annotations

import functools
import re

import numpy as np
import pandas as pd

from selfattn.core.presets import Example
from selfattn.display.export import column_names
from selfattn.display.grid import Sizes
from selfattn.i18n import LANGS, t, t_plain
from selfattn.playground.inputs import TOKEN_COL
from selfattn.playground.view import BIASES, NAMES

COLUMNS = {"w_q": "q", "w_k": "k", "w_v": "v", "b_q": "q", "b_k": "k", "b_v": "v"}  # each table's column prefix


def x_frame(tokens, x: np.ndarray) -> pd.DataFrame:
    """X's table: the labels, then (n, d_in) numbers."""
    frame = pd.DataFrame(x, columns=column_names("x", x.shape[1]))
    frame.insert(0, TOKEN_COL, list(tokens))
    return frame


def w_frame(w: np.ndarray, name: str) -> pd.DataFrame:
    """A weight's table: (d_in, d_k or d_v), ``name`` one of w_q, w_k, w_v."""
    return pd.DataFrame(w, index=column_names("x", w.shape[0]), columns=column_names(COLUMNS[name], w.shape[1]))


def b_frame(b: np.ndarray, name: str) -> pd.DataFrame:
    """A bias's table: one row, ``name`` one of b_q, b_k, b_v."""
    return pd.DataFrame([b], index=[NAMES[name]], columns=column_names(COLUMNS[name], len(b)))


@functools.cache
def _input_label_patterns() -> list[re.Pattern]:
    """ "Input 3", "输入 3": the tutorial's label in every language, as patterns catching i."""
    return [re.compile("^" + re.escape(t_plain("pg.input_label", lang, i="\x00")).replace("\x00", r"([0-9]{1,2})") + "$")
            for lang in LANGS]


def translate_label(label, lang: str) -> object:
    """A token label in ``lang`` when it is the tutorial's "Input i" in any language.

    Hand-typed labels come back unchanged.
    """
    if isinstance(label, str):
        for pattern in _input_label_patterns():
            found = pattern.match(label)
            if found:
                return t("pg.input_label", lang, i=int(found.group(1)))
    return label


def frames_from_example(example: Example, lang: str) -> dict[str, pd.DataFrame]:
    """Editor tables for every matrix of ``example`` (the tutorial's "Input i" labels in ``lang``)."""
    frames = {"x": x_frame([translate_label(tok, lang) for tok in example.tokens], example.x)}
    for name in ("w_q", "w_k", "w_v"):
        frames[name] = w_frame(getattr(example, name), name)
    for name in BIASES:
        frames[name] = b_frame(getattr(example, name), name)
    return frames


def _reframe(frame: pd.DataFrame, index, columns) -> pd.DataFrame:
    """``frame`` cut or zero-padded to new labels, keeping every value that still fits."""
    return frame.reindex(index=index, columns=columns, fill_value="0")


def fit_frames(frames: dict[str, pd.DataFrame], sizes: Sizes, lang: str) -> dict[str, pd.DataFrame]:
    """Every table cut or zero-padded to ``sizes``, keeping the numbers that still fit (new tokens Input 4, ...)."""
    n, d_in, d_k, d_v = sizes.n, sizes.d_in, sizes.d_k, sizes.d_v
    x = frames["x"]
    tokens = list(x[TOKEN_COL])[:n] + [t("pg.input_label", lang, i=i + 1) for i in range(len(x), n)]
    x_num = _reframe(x.drop(columns=[TOKEN_COL]).reset_index(drop=True), range(n), column_names("x", d_in))
    new = {"x": pd.concat([pd.DataFrame({TOKEN_COL: tokens}), x_num], axis=1)}
    rows = column_names("x", d_in)
    for name, width in (("w_q", d_k), ("w_k", d_k), ("w_v", d_v)):
        new[name] = _reframe(frames[name], rows, column_names(COLUMNS[name], width))
    for name, width in (("b_q", d_k), ("b_k", d_k), ("b_v", d_v)):
        new[name] = _reframe(frames[name], [NAMES[name]], column_names(COLUMNS[name], width))
    return new
