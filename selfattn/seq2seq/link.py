"""The Encoder–decoder page's link: its settings and the tables typed into, to and from URL parameters.

A table the visitor typed into goes as ``t<id>`` (every cell) or ``d<id>`` (the cells that differ from the seeded
table), whichever is shorter (:func:`selfattn.display.share.encode_cells`); table ids are
:mod:`selfattn.seq2seq.view`'s (``src``, ``tgt``, ``e1wq``, ``d2cq``, ...).
"""

from __future__ import annotations

from collections.abc import Mapping

from selfattn.display import share
from selfattn.seq2seq.view import TABLES, View, offered_groups, split_id, view

TABLE_PARAMS = TABLES.table_params
LINK_PARAMS = TABLE_PARAMS  # the page's parameters beyond its settings table
encode = TABLES.encode  # the link's parameters for a View (defaults left out; the language is the frame's)


def translator_params() -> dict[str, str]:
    """The link's parameters that open the page on its translator (the home page's one click to it)."""
    return encode(View(source="translator"))


def decode(params: Mapping[str, str]) -> tuple[View, dict[str, share.BadValue]]:
    """The :class:`View` a link opens, and its parameters that could not be used, with why."""
    settings, bad = TABLES.decode_settings(params)
    shown = view(settings)

    def offered(table: str) -> share.BadValue | None:
        side, layer, _ = split_id(table)
        top = shown.enc if side == "e" else shown.dec
        return share.BadValue("not_offered", options=f"1–{top}") if side and layer + 1 > top else None

    edits = TABLES.decode_tables(params, shown, bad, offered)
    fixed = {}
    for name, key, top in (("focus", "s2s_focus", shown.m), ("step", "s2s_step", shown.m),
                           ("layer", "s2s_layer", shown.dec)):
        if not 0 <= settings.get(key, 0) < top:
            bad[name] = share.BadValue("out_of_range", lo=1, hi=top)
            fixed[key] = 0
    if settings.get("s2s_edit", "d1") not in offered_groups(shown):
        bad["edit"] = share.BadValue("not_offered", options=", ".join(offered_groups(shown)))
        fixed["s2s_edit"] = "d1"
    return view({**settings, **fixed}, edits), bad
