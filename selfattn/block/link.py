"""The Transformer block page's link: its settings and the tables typed into, to and from URL parameters.

A table the visitor typed into goes as ``t<id>`` (every cell) or ``d<id>`` (the cells that differ from the
seeded table), whichever is shorter (:func:`selfattn.display.share.encode_cells`); table ids are
:mod:`selfattn.block.view`'s (``x``, ``1wq``, ``2ln``, ...).
"""

from __future__ import annotations

from collections.abc import Mapping

from selfattn.block.view import MAX_REAL_TOKENS, TABLES, View, view
from selfattn.display import share

TABLE_PARAMS = TABLES.table_params
# Links written before the page was in parts named a place on it (at=batch): each place opens the part that holds it.
OLD_AT = {"settings": "layer", "x": "layer", "steps": "layer", "norm": "layer", "export": "layer", "stack": "stack",
          "batch": "batch"}
LINK_PARAMS = (*TABLE_PARAMS, "at")  # the page's parameters beyond its settings table
encode = TABLES.encode  # the link's parameters for a View (defaults left out; the language is the frame's)


def decode(params: Mapping[str, str]) -> tuple[View, dict[str, share.BadValue]]:
    """The :class:`View` a link opens, and its parameters that could not be used, with why.

    Parameters neither the settings table nor :data:`LINK_PARAMS` names are left for the caller.
    """
    settings, bad = TABLES.decode_settings(params)
    if "at" in params:  # an old link's place; a part named too wins
        if params["at"] not in OLD_AT:
            bad["at"] = share.BadValue("not_offered", options=", ".join(OLD_AT))
        elif "part" not in params:
            settings["tb_part"] = OLD_AT[params["at"]]
    shown = view(settings)

    def offered(table: str) -> share.BadValue | None:
        if table != "x" and int(table[0]) > shown.layers:
            return share.BadValue("not_offered", options=f"1–{shown.layers}")
        return None

    edits = TABLES.decode_tables(params, shown, bad, offered)
    shown = view(settings, edits)
    top = len(shown.text) + 2 if shown.source == "real" else shown.n  # a sentence's tokens are known only later
    if not 0 <= shown.focus < min(top, MAX_REAL_TOKENS):
        bad["focus"] = share.BadValue("out_of_range", lo=1, hi=shown.n)
        shown = view({**settings, "tb_focus": 0}, edits)
    if not 0 <= shown.layer < shown.layers:
        bad["layer"] = share.BadValue("out_of_range", lo=1, hi=shown.layers)
        shown = view({**settings, "tb_layer": 0, "tb_focus": shown.focus}, edits)
    return shown, bad
