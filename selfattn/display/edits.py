"""Tables a visitor typed into, kept as text by table id, against the seeded tables a page draws the rest from.

A page with editable weights (the Transformer block, the Encoder–decoder) keeps in its frozen ``View`` only the
tables that differ from the seeded ones, as ``edits``: ((table id, rows of text), ...), sorted. What a page says
is which ids it has, each table's shape, and the seeded table (``base``). From that, here, once:

- :class:`Edited`: the mixin of such a View (``edited``, ``rows``);
- :func:`fit_edits`: the edits that still fit after a size changed;
- :func:`encode_edits` / :func:`decode_edits`: the edits to and from a link, each table in full (``t<id>``) or as
  the cells that differ (``d<id>``), whichever is shorter (:func:`selfattn.display.share.encode_cells`), or under a
  page's own parameter names (the Playground's ``x`` / ``dx``, ``wq`` / ``dwq``, …);
- :func:`preset_of`: what the page's preset box says for its settings as they stand (a preset, or :data:`CUSTOM`);
- :class:`Editable`: all of it declared once for a page (its View, settings table, presets, tables and their shapes),
  with the View, the fit, the preset box and the link's settings and tables written here, not in each page.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from selfattn.display import share
from selfattn.display.numbers import editor_text

Rows = tuple[tuple[str, ...], ...]  # a table's cells as text, row by row
CUSTOM = "custom"  # the preset box's value while the settings are no preset's


def text_rows(matrix: np.ndarray) -> Rows:
    """A seeded table as the editors write it, row by row."""
    return tuple(tuple(editor_text(float(v)) for v in row) for row in matrix)


def check_fields(cls, fields, prefix: str) -> None:
    """A View's settings follow its settings table, name for name and in order (checked as its module loads); its
    other fields (``cls.STATE``: the edits, and what else the page's tables depend on) are not settings."""
    names = tuple(f.name for f in dataclasses.fields(cls) if f.name not in getattr(cls, "STATE", ("edits",)))
    if names != tuple(f.key[len(prefix):] for f in fields):
        raise AssertionError(f"{cls.__module__}.View's settings do not follow FIELDS")


class Edited:
    """A View's typed tables and settings: needs a field ``edits``, a method ``base(table)`` giving the seeded table
    and a class attribute ``PREFIX`` (its settings' session keys are ``PREFIX`` + the field's name). ``STATE`` names
    the fields that are not settings: the edits, and what else its seeded tables depend on (the Playground's sizes
    and the language of its tutorial's labels), which the page passes as its context (``EditablePage.context``)."""

    PREFIX = ""
    STATE = ("edits",)

    def settings(self) -> dict:
        """Each setting by its session-state key (``tb_seed``: ``shown.seed``)."""
        return {self.PREFIX + f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in self.STATE}

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


def encode_edits(kept: Mapping[str, Rows], base: Callable[[str], Rows],
                 names: Mapping[str, tuple[str, str]] | None = None) -> dict[str, str]:
    """The link's parameters for the edits ``kept`` (those that fit; a table as seeded writes none).

    Args:
        names: each table's (full, diff) parameter, in the link's order (the Playground's ``wq``, ``dwq``); by
            default ``t<id>``, ``d<id>`` in the order of the ids.
    """
    params = {}
    for table, (full, diff) in (names or {table: (f"t{table}", f"d{table}") for table in sorted(kept)}).items():
        written = share.encode_cells(base(table), kept[table]) if table in kept else None
        if written is not None:
            kind, text = written
            params[full if kind == "full" else diff] = text
    return params


def decode_edits(params: Mapping[str, str], ids: Iterable[str], shape: Callable[[str], tuple[int, int]],
                 base: Callable[[str], Rows], *, offered: Callable[[str], share.BadValue | None], max_rows: int,
                 max_cols: int, cell_chars: int, names: Mapping[str, tuple[str, str]] | None = None,
                 ) -> tuple[dict[str, Rows], dict[str, share.BadValue]]:
    """The tables a link carries, and its table parameters that could not be used, with why.

    Args:
        offered: why a table is not offered in this view (a layer beyond the view's layers), or None.
        names: each table's (full, diff) parameter, as for :func:`encode_edits` (default ``t<id>``, ``d<id>``).
    """
    edits, bad = {}, {}
    for table in ids:
        full, diff = names[table] if names else (f"t{table}", f"d{table}")
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


@dataclass(frozen=True)
class Editable:
    """A page of typed tables declared once (the Transformer block's, the Encoder–decoder's): what differs from page
    to page is data here; the View, the fit after a size change, the preset box and the link's settings and tables
    follow from it. The page's module keeps what is its own (its seeded tables, its ids, the link's checks of its
    layers and tokens)."""

    view_class: type  # the page's frozen View (an Edited dataclass: its settings in the order of fields, then edits)
    fields: tuple  # its settings table (share.Field); a field's key is the View's prefix + its name
    presets: Mapping[str, Mapping[str, Any]]  # what each preset sets, by session key, in the preset box's order
    ids: Callable[[Any], tuple[str, ...]]  # the tables a view's sizes have
    all_ids: tuple[str, ...]  # the tables any view may have (the link's table parameters)
    shape: Callable[[Any, str], tuple[int, int]]  # a table's (rows, columns) in a view
    max_heads: int  # the heads box offers the divisors of d_model up to this
    max_rows: int  # the most rows and columns a table in a link may have
    max_cols: int
    cell_chars: int  # the most characters of a cell
    changed_from: Callable[[str, dict], tuple[str, ...]] | None = None  # the settings differing from a preset's
    # (by session key); None: those whose value is not the preset's

    def __post_init__(self) -> None:
        check_fields(self.view_class, self.fields, self.view_class.PREFIX)

    @property
    def prefix(self) -> str:
        return self.view_class.PREFIX

    @property
    def table_params(self) -> tuple[str, ...]:
        """The link parameters that may carry tables: t<id> and d<id>."""
        return params_of(self.all_ids)

    def view(self, settings: dict, edits: dict[str, Rows] | None = None, **context):
        """A View from settings by session-state key (missing ones at their defaults), edits, and the page's context
        (the View's other fields: the Playground's sizes and language)."""
        values = {f.key[len(self.prefix):]: settings.get(f.key, f.default) for f in self.fields}
        return self.view_class(edits=tuple(sorted((edits or {}).items())), **values, **context)

    def fit_edits(self, shown) -> tuple[dict[str, Rows], list[str]]:
        """The edits that still fit the view's sizes and layers, and the ids of those that no longer do."""
        return fit_edits(shown.edits, set(self.ids(shown)), lambda table: self.shape(shown, table), shown.base)

    def preset_shown(self, settings: dict) -> tuple[str, str, tuple[str, ...]]:
        """(the preset box's value, the nearest preset, the settings that differ from it) for ``settings`` by session
        key: :func:`preset_of`."""
        def changed(name: str) -> tuple[str, ...]:
            if self.changed_from is not None:
                return self.changed_from(name, settings)
            return tuple(key for key, value in self.presets[name].items() if settings.get(key) != value)
        return preset_of(changed, self.presets)

    def divisors(self, d: int) -> list[int]:
        """The heads offered: the divisors of d_model, at most :attr:`max_heads`."""
        return [h for h in range(1, min(d, self.max_heads) + 1) if d % h == 0]

    def encode(self, shown) -> dict[str, str]:
        """The link's parameters for ``shown`` (defaults left out; the language is the frame's)."""
        return {**share.encode_fields(self.fields, shown.settings()), **encode_edits(self.fit_edits(shown)[0],
                                                                                     shown.base)}

    def decode_settings(self, params: Mapping[str, str]) -> tuple[dict, dict[str, share.BadValue]]:
        """A link's settings by session key, and its parameters that could not be used, with why; heads that do not
        divide d_model become the default (2) where it divides, else 1."""
        settings, bad = share.decode_fields(self.fields, dict(params))
        shown = self.view(settings)
        if shown.d % shown.heads:  # the heads box offers the divisors of d_model only
            offered = self.divisors(shown.d)
            if "heads" in params and "heads" not in bad:
                bad["heads"] = share.BadValue("not_offered", options=", ".join(map(str, offered)))
            settings[f"{self.prefix}heads"] = max(h for h in offered if h <= 2)
        return settings, bad

    def decode_tables(self, params: Mapping[str, str], shown, bad: dict,
                      offered: Callable[[str], share.BadValue | None]) -> dict[str, Rows]:
        """The tables a link carries for the view ``shown`` (its settings); those that could not be used go into
        ``bad`` with why (``offered``: why a table is not in this view, or None)."""
        edits, bad_tables = decode_edits(params, self.all_ids, lambda table: self.shape(shown, table), shown.base,
                                         offered=offered, max_rows=self.max_rows, max_cols=self.max_cols,
                                         cell_chars=self.cell_chars)
        bad.update(bad_tables)
        return edits
