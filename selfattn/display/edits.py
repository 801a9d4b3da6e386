"""Tables a visitor typed into, kept as text by table id, against the seeded tables a page draws the rest from.

A page with editable weights (the Transformer block, the Encoder–decoder) keeps in its frozen ``View`` only the
tables that differ from the seeded ones, as ``edits``: ((table id, rows of text), ...), sorted. What a page says
is which ids it has, each table's shape, and the seeded table (``base``). From that, here, once:

- :class:`Edited`: the mixin of such a View (``edited``, ``rows``);
- :func:`fit_edits`: the edits that still fit after a size changed;
- :func:`encode_edits` / :func:`decode_edits`: the edits to and from a link, each table in full (``t<id>``) or as
  the cells that differ (``d<id>``), whichever is shorter (:func:`selfattn.display.share.encode_cells`);
- :func:`preset_of`: what the page's preset box says for its settings as they stand (a preset, or :data:`CUSTOM`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping

from selfattn.display import share

Rows = tuple[tuple[str, ...], ...]  # a table's cells as text, row by row
CUSTOM = "custom"  # the preset box's value while the settings are no preset's


def settings_of(shown, fields, prefix: str) -> dict:
    """Each setting of a View by its session-state key (``tb_seed``: ``shown.seed``)."""
    return {f.key: getattr(shown, f.key[len(prefix):]) for f in fields}


def view_of(cls, fields, prefix: str, settings: dict, edits: dict[str, Rows] | None = None):
    """A View of class ``cls`` from settings by session-state key (missing ones at their defaults) and edits."""
    values = {f.key[len(prefix):]: settings.get(f.key, f.default) for f in fields}
    return cls(edits=tuple(sorted((edits or {}).items())), **values)


def check_fields(cls, fields, prefix: str) -> None:
    """A View's settings follow its settings table, name for name and in order (checked as its module loads)."""
    names = tuple(f.name for f in dataclasses.fields(cls) if f.name != "edits")
    if names != tuple(f.key[len(prefix):] for f in fields):
        raise AssertionError(f"{cls.__module__}.View's settings do not follow FIELDS")


class Edited:
    """A View's typed tables: needs a field ``edits`` and a method ``base(table)`` giving the seeded table."""

    @property
    def edited(self) -> dict[str, Rows]:
        return dict(self.edits)

    def rows(self, table: str) -> Rows:
        """A table as typed (the seeded one where not edited)."""
        return self.edited.get(table) or self.base(table)


def preset_of(changed: Callable[[str], tuple[str, ...]],
              presets: Iterable[str]) -> tuple[str, str, tuple[str, ...]]:
    """What a page's preset box says, from the settings alone (so a link opens the same box and note).

    Args:
        changed: the settings (by session key) that differ from a preset's, given the preset's name.
        presets: the page's presets in the box's order; a tie goes to the first.

    Returns:
        (the box's value: the first preset nothing differs from, else :data:`CUSTOM`; the nearest preset, the one
        the fewest settings differ from; those settings, empty unless the box says :data:`CUSTOM`)
    """
    differ = {name: tuple(changed(name)) for name in presets}
    nearest = min(differ, key=lambda name: len(differ[name]))  # min keeps the first of a tie
    return (CUSTOM if differ[nearest] else nearest), nearest, differ[nearest]


def params_of(ids: Iterable[str]) -> tuple[str, ...]:
    """The link parameters that may carry these tables: t<id> and d<id>."""
    return tuple(f"{kind}{table}" for table in ids for kind in "td")


def fit_edits(edits, valid: set[str], shape: Callable[[str], tuple[int, int]],
              base: Callable[[str], Rows]) -> tuple[dict[str, Rows], list[str]]:
    """The edits that still fit (their id among ``valid``, their shape ``shape(id)``) and differ from the seeded
    table, and the ids of those that no longer fit."""
    kept, dropped = {}, []
    for table, rows in edits:
        size = shape(table) if table in valid else None
        if size is not None and len(rows) == size[0] and all(len(r) == size[1] for r in rows):
            if rows != base(table):
                kept[table] = rows
        else:
            dropped.append(table)
    return kept, dropped


def encode_edits(kept: Mapping[str, Rows], base: Callable[[str], Rows]) -> dict[str, str]:
    """The link's parameters for the edits ``kept`` (those that fit)."""
    params = {}
    for table, rows in sorted(kept.items()):
        written = share.encode_cells(base(table), rows)
        if written is not None:
            kind, text = written
            params[("t" if kind == "full" else "d") + table] = text
    return params


def decode_edits(params: Mapping[str, str], ids: Iterable[str], shape: Callable[[str], tuple[int, int]],
                 base: Callable[[str], Rows], *, offered: Callable[[str], share.BadValue | None], max_rows: int,
                 max_cols: int, cell_chars: int) -> tuple[dict[str, Rows], dict[str, share.BadValue]]:
    """The tables a link carries, and its table parameters that could not be used, with why.

    Args:
        offered: why a table is not offered in this view (a layer beyond the view's layers), or None.
    """
    edits, bad = {}, {}
    for table in ids:
        full, diff = f"t{table}", f"d{table}"
        if full not in params and diff not in params:
            continue
        param = full if full in params else diff
        try:
            why = offered(table)
            if why is not None:
                raise why
            if param == full:
                cells = share.decode_table(params[param], shape(table), max_rows=max_rows, max_cols=max_cols)
            else:
                cells = share.apply_diff(base(table), params[param])
            if any(len(cell) > cell_chars for row in cells for cell in row):
                raise share.BadValue("too_long", n=cell_chars)
        except share.BadValue as exc:
            bad[param] = exc
            continue
        edits[table] = tuple(tuple(row) for row in cells)
    return edits, bad
