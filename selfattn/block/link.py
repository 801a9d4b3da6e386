"""The Transformer block page's link: its settings and the tables typed into, to and from URL parameters.

A table the visitor typed into goes as ``t<id>`` (every cell) or ``d<id>`` (the cells that differ from the
seeded table), whichever is shorter (:func:`selfattn.display.share.encode_cells`); table ids are
:mod:`selfattn.block.view`'s (``x``, ``1wq``, ``2ln``, ...).
"""

from __future__ import annotations

from collections.abc import Mapping

from selfattn.block.view import (ALL_TABLES, CELL_CHARS, FIELDS, MAX_DFF, MAX_D, MAX_REAL_TOKENS, MAX_TOKENS, View,
                                 fit_edits, table_shape, view)
from selfattn.display import share
from selfattn.display.edits import decode_edits, encode_edits, params_of

TABLE_PARAMS = params_of(ALL_TABLES)
LINK_PARAMS = TABLE_PARAMS  # the page's parameters beyond its settings table


def encode(shown: View) -> dict[str, str]:
    """The link's parameters for ``shown`` (defaults left out; the language is the frame's)."""
    return {**share.encode_fields(FIELDS, shown.settings()), **encode_edits(fit_edits(shown)[0], shown.base)}


def decode(params: Mapping[str, str]) -> tuple[View, dict[str, share.BadValue]]:
    """The :class:`View` a link opens, and its parameters that could not be used, with why.

    Parameters neither the settings table nor :data:`LINK_PARAMS` names are left for the caller.
    """
    settings, bad = share.decode_fields(FIELDS, dict(params))
    shown = view(settings)
    if shown.d % shown.heads:  # the heads box offers the divisors of d_model only
        offered = [h for h in range(1, shown.d + 1) if shown.d % h == 0]
        if "heads" in params and "heads" not in bad:
            bad["heads"] = share.BadValue("not_offered", options=", ".join(map(str, offered)))
        settings["tb_heads"] = max(h for h in offered if h <= 2)  # the default (2) where it divides, else 1
        shown = view(settings)
    def offered(table: str) -> share.BadValue | None:
        if table != "x" and int(table[0]) > shown.layers:
            return share.BadValue("not_offered", options=f"1–{shown.layers}")
        return None

    edits, bad_tables = decode_edits(params, ALL_TABLES, lambda table: table_shape(shown, table), shown.base,
                                     offered=offered, max_rows=max(MAX_TOKENS, MAX_DFF), max_cols=max(MAX_D, MAX_DFF),
                                     cell_chars=CELL_CHARS)
    bad.update(bad_tables)
    shown = view(settings, edits)
    top = len(shown.text) + 2 if shown.source == "real" else shown.n  # a sentence's tokens are known only later
    if not 0 <= shown.focus < min(top, MAX_REAL_TOKENS):
        bad["focus"] = share.BadValue("out_of_range", lo=1, hi=shown.n)
        shown = view({**settings, "tb_focus": 0}, edits)
    if not 0 <= shown.layer < shown.layers:
        bad["layer"] = share.BadValue("out_of_range", lo=1, hi=shown.layers)
        shown = view({**settings, "tb_layer": 0, "tb_focus": shown.focus}, edits)
    return shown, bad
