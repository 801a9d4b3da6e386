"""The Playground's tables as the editors hold them: a preset's matrices as text, translated and resized.

The tables are a :class:`~selfattn.playground.view.Tables`: X's token labels, then each matrix's cells as text
(a bias one row); :func:`seeded_tables` are a preset's at some sizes, what the page's typed tables are written
against. The tutorial's token labels ("Input i") are written in the language asked for. The editors' row and column
names are here too.
"""

from __future__ import annotations

import functools
import re

from selfattn.core.presets import Example, preset
from selfattn.display.edits import Rows, text_rows
from selfattn.display.export import column_names
from selfattn.display.grid import Sizes
from selfattn.i18n import LANGS, t, t_plain
from selfattn.playground.tables import BIASES, COLUMN_PREFIX, MATRICES, NAMES, TOKEN_COL, Tables

def columns(name: str, width: int) -> list[str]:
    """The columns of ``name``'s editor: X's :data:`TOKEN_COL` and x1, x2, ...; a weight's or bias's q1, k1, v1, ..."""
    names = column_names(COLUMN_PREFIX[name], width)
    return [TOKEN_COL, *names] if name == "x" else names


def row_names(name: str, count: int) -> list[str]:
    """The rows of a weight's editor (x1, x2, ...) or a bias's (its name); X's rows are its tokens' numbers."""
    return [NAMES[name]] if name in BIASES else column_names("x", count)


@functools.cache
def _input_label_patterns() -> list[re.Pattern]:
    """ "Input 3", "输入 3": the tutorial's label in every language, as patterns catching i."""
    return [re.compile("^" + re.escape(t_plain("pg.input_label", lang, i="\x00")).replace("\x00", r"([0-9]{1,2})")
                       + "$") for lang in LANGS]


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


def example_tables(example: Example, lang: str) -> Tables:
    """Every matrix of ``example`` as text (the tutorial's "Input i" labels in ``lang``)."""
    return Tables(tokens=tuple(translate_label(tok, lang) for tok in example.tokens), x=text_rows(example.x),
                  **{name: text_rows(getattr(example, name)) for name in MATRICES[1:]},
                  **{name: text_rows([getattr(example, name)]) for name in BIASES})


def _fit(rows: Rows, height: int, width: int) -> Rows:
    """``rows`` cut or padded with "0" to height × width, keeping every cell that still fits."""
    return tuple(tuple(rows[i][j] if i < len(rows) and j < len(rows[i]) else "0" for j in range(width))
                 for i in range(height))


def fit_tables(tables: Tables, sizes: Sizes, lang: str) -> Tables:
    """Every table cut or zero-padded to ``sizes``, keeping the numbers that still fit (new tokens Input 4, ...)."""
    n, d_in, d_k, d_v = sizes.n, sizes.d_in, sizes.d_k, sizes.d_v
    tokens = tables.tokens[:n] + tuple(t("pg.input_label", lang, i=i + 1) for i in range(len(tables.tokens), n))
    widths = {"w_q": d_k, "w_k": d_k, "w_v": d_v, "b_q": d_k, "b_k": d_k, "b_v": d_v}
    fitted = {name: _fit(tables.rows(name), 1 if name in BIASES else d_in, width) for name, width in widths.items()}
    return Tables(tokens=tokens, x=_fit(tables.x, n, d_in), **fitted)


@functools.lru_cache(maxsize=64)
def seeded_tables(name: str, seed: int, sizes: Sizes, lang: str) -> Tables:
    """The tables the preset ``name`` gives at ``sizes`` (random: drawn at those sizes, another preset's cut or
    zero-padded), as text, the tutorial's "Input i" labels in ``lang``: what the page's edits are written against."""
    if name == "random":
        example = preset(name, seed=seed, n=sizes.n, d_in=sizes.d_in, d_k=sizes.d_k, d_v=sizes.d_v)
    else:
        example = preset(name, seed=seed)
    return fit_tables(example_tables(example, lang), sizes, lang)
