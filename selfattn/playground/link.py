"""The Playground's link: its settings, sizes, labels and cells as typed, to and from URL parameters.

Cells are written against the preset they came from (at the current sizes and seed): only the
cells that differ, or every cell when that is shorter, by the kit's table codec
(:func:`selfattn.display.edits.encode_edits` / :func:`~selfattn.display.edits.decode_edits`, the Playground's
tables under their own parameter names, :data:`TABLE_PARAMS`); the sizes and labels are the Playground's own.
What a preset gives at some sizes is the caller's to say (:data:`Base`: the tutorial's labels
are in the visitor's language), so this module needs neither Streamlit nor the catalog.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import replace

from selfattn.display import share
from selfattn.display.edits import decode_edits, encode_edits
from selfattn.display.grid import MAX_DIM, MAX_LABEL_CHARS, MAX_TOKENS, Sizes, parse_labels
from selfattn.playground.tables import Tables
from selfattn.playground.view import CELL_CHARS, FIELDS, View, natural_sizes, view

CELL_PARAMS = {"x": "x", "w_q": "wq", "w_k": "wk", "w_v": "wv", "b_q": "bq", "b_k": "bk", "b_v": "bv"}
TABLE_PARAMS = {matrix: (param, f"d{param}") for matrix, param in CELL_PARAMS.items()}  # a table's full, diff param
CELL_LINK_PARAMS = (*CELL_PARAMS.values(), *(f"d{p}" for p in CELL_PARAMS.values()))  # dropped from a link too long
LINK_PARAMS = ("size", "tok", *CELL_LINK_PARAMS)  # the page's parameters beyond its settings table
LINK_LABEL_CHARS = 2 * MAX_LABEL_CHARS  # a label in a link; the tables use the first MAX_LABEL_CHARS only

Base = Callable[[str, int, Sizes], Tables]  # (preset, seed, sizes) -> the tables that preset gives there


def sizes_text(sizes: Sizes) -> str:
    """"n.d_in.d_k.d_v", as the link's ``size`` says it."""
    return ".".join(str(v) for v in (sizes.n, sizes.d_in, sizes.d_k, sizes.d_v))


def parse_sizes(text: str) -> Sizes:
    """The link's ``size`` read back, or BadValue ``bad_sizes`` (four whole numbers within the limits)."""
    parts = text.split(".")
    tops = (MAX_TOKENS, MAX_DIM, MAX_DIM, MAX_DIM)
    if len(parts) != 4:
        raise share.BadValue("bad_sizes", n=MAX_TOKENS, d=MAX_DIM)
    try:
        return Sizes(*(share.parse_whole(p, 1, top) for p, top in zip(parts, tops)))
    except share.BadValue:
        raise share.BadValue("bad_sizes", n=MAX_TOKENS, d=MAX_DIM) from None


@functools.lru_cache(maxsize=64)
def encode_tables(tables: Tables, base: Tables, natural: Sizes) -> dict[str, str]:
    """The link's parameters for ``tables``: sizes, labels and cells that differ from ``base``.

    Args:
        tables: the tables on screen.
        base: what the preset gives at ``tables``' sizes.
        natural: the preset's own sizes (``size`` is written only when the tables' differ).

    Returns:
        A new dict on every call (the cached one is copied).
    """
    return dict(_encode_tables(tables, base, natural))


def _encode_tables(tables: Tables, base: Tables, natural: Sizes) -> dict[str, str]:
    params = {}
    if tables.sizes != natural:
        params["size"] = sizes_text(tables.sizes)
    if tables.tokens != base.tokens:  # an uploaded label longer than a link takes goes as the tables show it
        shown = parse_labels(list(tables.tokens), len(tables.tokens))
        params["tok"] = share.encode_table([[label if len(label) <= LINK_LABEL_CHARS else shown[i]
                                             for i, label in enumerate(tables.tokens)]])
    params.update(encode_edits({matrix: tables.rows(matrix) for matrix in CELL_PARAMS}, base.rows,
                               TABLE_PARAMS))
    return params


def decode_tables(params: Mapping[str, str], preset: str, seed: int, base: Base) -> tuple[Tables, dict[str, share.BadValue]]:
    """The tables a link names: the preset's at the link's sizes, with its labels and cells.

    Returns:
        (the tables, the parameters that could not be used with why); what is fine is applied.
    """
    bad: dict[str, share.BadValue] = {}
    sizes = natural_sizes(preset, seed)
    if "size" in params:
        try:
            sizes = parse_sizes(params["size"])
        except share.BadValue as exc:
            bad["size"] = exc
    tables = base(preset, seed, sizes)
    if "tok" in params:
        try:
            tokens = share.decode_table(params["tok"], (1, sizes.n), max_rows=1, max_cols=MAX_TOKENS)[0]
            if any(len(label) > LINK_LABEL_CHARS for label in tokens):
                raise share.BadValue("too_long", n=LINK_LABEL_CHARS)
            tables = replace(tables, tokens=tuple(tokens))
        except share.BadValue as exc:
            bad["tok"] = exc
    seeded = tables
    edits, bad_cells = decode_edits(params, CELL_PARAMS, lambda m: (len(seeded.rows(m)), len(seeded.rows(m)[0])),
                                    seeded.rows, offered=lambda _: None, max_rows=MAX_TOKENS, max_cols=MAX_DIM,
                                    cell_chars=CELL_CHARS, names=TABLE_PARAMS)  # the editors' own limit on a cell
    bad.update(bad_cells)
    for matrix, cells in edits.items():
        tables = tables.with_rows(matrix, cells)
    return tables, bad


def check_focus(settings: dict, n: int) -> dict[str, share.BadValue]:
    """Put a linked focus that names no token of ``n`` back to the first (in ``settings``); say why."""
    focus = settings.get("pg_focus", 0)
    if 0 <= focus < n:
        return {}
    settings["pg_focus"] = 0
    return {"focus": share.BadValue("out_of_range", lo=1, hi=n)}


def encode(shown: View, base: Base) -> dict[str, str]:
    """The link's parameters for ``shown`` (defaults left out; the language is the frame's)."""
    params = share.encode_fields(FIELDS, shown.settings())
    preset, seed = shown.preset, shown.seed
    params.update(encode_tables(shown.tables, base(preset, seed, shown.tables.sizes), natural_sizes(preset, seed)))
    return params


def decode(params: Mapping[str, str], base: Base, lang: str = "en") -> tuple[View, dict[str, share.BadValue]]:
    """The :class:`View` a link opens (``base``: what a preset gives, the tutorial's labels in ``lang``), and its
    parameters that could not be used, with why.

    Parameters neither the settings table nor :data:`LINK_PARAMS` names are left for the caller.
    """
    settings, bad = share.decode_fields(FIELDS, dict(params))
    preset = settings.get("pg_preset", "tutorial")
    seed = settings.get("pg_seed", 0)
    tables, bad_tables = decode_tables(params, preset, seed, base)
    bad.update(bad_tables)
    bad.update(check_focus(settings, tables.sizes.n))
    return view(settings, tables, lang), bad

