"""The Playground's state as one frozen, typed object: its settings and its tables as typed.

:data:`FIELDS` is the page's settings table (read by ``ui/state.py`` through ``ui/navigation.py``): session-state
key, link parameter, codec, default; :data:`KEPT` and :data:`WIDGETS` its other session keys. A :class:`View` holds one value per field (the field's key
without its ``pg_`` prefix) and the :class:`Tables`, so that the link is written from it
(:func:`selfattn.playground.link.encode`) and read back into it (:func:`~selfattn.playground.link.decode`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from selfattn.core.positions import KINDS, MAX_ORDER_CHARS
from selfattn.core.presets import PRESETS, preset
from selfattn.display.grid import MAX_TOKENS, Sizes
from selfattn.display.share import Bool, Choice, Field, Int, Text

MAX_SEED = 2**31 - 1
PREFIX = "pg_"  # every setting of the page: session-state key "pg_<name>", View.<name>
# The page's session keys beyond its settings (tests/test_session_keys.py holds the page to them; "*": a family).
KEPT = {
    "pg": "the Playground's tables, editors, undo and notices (ui/playground/page.py)",
    "pg_good": "last_good: the Playground's (inputs, trace, biases shown)",
    "pg_n": "the Playground's number of tokens (its size box)",
    "pg_d_in": "the Playground's d_in (its size box)",
    "pg_d_k": "the Playground's d_k (its size box)",
    "pg_d_v": "the Playground's d_v (its size box)",
    "pg_upload_*": "the Playground's CSV uploader (one per editor version) and which matrix it fills",
    "ed_*": "the Playground's matrix editors, one per matrix and version",
    "pg_order_good": "last_good: the Playground's last good order of the tokens, 0-based (ui/playground/positions.py)",
    "pg_order_undo": "the Playground's earlier orders of the tokens, for its Undo button (ui/playground/positions.py)",
}
WIDGETS = {
    "pg_undo": "the Playground's Undo button",
    "pg_upload_target": "the matrix the Playground's CSV upload fills",
    "pg_full_*": "the Playground's folded boxes of a step's sums in full (steps 4, 6, 7; made only while open)",
    "pg_import_panel": "the Playground's expander of the CSV import (its chooser and uploader are made only while open)",
    "pg_order_panel": "the Playground's folded box of the shuffle (its widgets and maps are made only while open)",
    "pg_order_draw": "the Playground's button that draws a new order",
    "pg_order_reset": "the Playground's button that puts the tokens back in order",
    "pg_order_undo_button": "the Playground's button that brings back the order before",
}
MATRICES = ("x", "w_q", "w_k", "w_v")
BIASES = ("b_q", "b_k", "b_v")
NAMES = {"x": "X", "w_q": "W_q", "w_k": "W_k", "w_v": "W_v", "b_q": "b_q", "b_k": "b_k", "b_v": "b_v"}

FIELDS = (Field("pg_preset", "preset", Choice(PRESETS), "tutorial"),
          Field("pg_seed", "seed", Int(0, MAX_SEED), 0),
          Field("pg_scale", "scale", Bool(), False),
          Field("pg_causal", "causal", Bool(), False),
          Field("pg_bias", "bias", Bool(), False),
          Field("pg_focus", "focus", Int(1, MAX_TOKENS, shift=1), 0),
          Field("pg_pos", "pos", Choice(KINDS), "none"),  # positions added to X (selfattn.core.positions)
          Field("pg_pos_seed", "pseed", Int(0, MAX_SEED), 0),
          Field("pg_order", "order", Text(MAX_ORDER_CHARS), ""),  # the tokens' new order as typed
          Field("pg_order_seed", "oseed", Int(0, MAX_SEED), 0))

Rows = tuple[tuple[str, ...], ...]  # a table's cells as text, row by row


@dataclass(frozen=True)
class Tables:
    """Every matrix of the Playground as typed: the token labels and each table's cells as text.

    X's cells are its numbers only (the labels are ``tokens``); a bias is one row.
    """

    tokens: tuple[str, ...]  # (n,)
    x: Rows  # (n, d_in)
    w_q: Rows  # (d_in, d_k)
    w_k: Rows  # (d_in, d_k)
    w_v: Rows  # (d_in, d_v)
    b_q: Rows  # (1, d_k)
    b_k: Rows  # (1, d_k)
    b_v: Rows  # (1, d_v)

    @property
    def sizes(self) -> Sizes:
        return Sizes(n=len(self.x), d_in=len(self.w_q), d_k=len(self.w_q[0]), d_v=len(self.w_v[0]))

    def rows(self, name: str) -> Rows:
        """One table's cells (``name`` one of :data:`MATRICES` or :data:`BIASES`)."""
        return getattr(self, name)

    def with_rows(self, name: str, rows) -> Tables:
        return replace(self, **{name: tuple(tuple(row) for row in rows)})


def tables(tokens, cells: dict) -> Tables:
    """:class:`Tables` from lists: the labels and every table's rows (``cells[name]``)."""
    return Tables(tokens=tuple(tokens), **{name: tuple(tuple(row) for row in cells[name]) for name in (*MATRICES, *BIASES)})


@dataclass(frozen=True)
class View:
    """What the Playground shows: every setting of :data:`FIELDS` and the tables they are computed from."""

    tables: Tables
    preset: str = "tutorial"  # the preset the tables are written against (their cells in the link: what differs)
    seed: int = 0  # the random preset's seed
    scale: bool = False  # divide scores by sqrt(d_k)
    causal: bool = False  # each token attends to itself and the tokens before it
    bias: bool = False  # add b_q, b_k, b_v to the projections
    focus: int = 0  # the token of steps 4-7, 0-based
    pos: str = "none"  # position vectors added to X: one of selfattn.core.positions.KINDS
    pos_seed: int = 0  # the learned-style positions' seed
    order: str = ""  # the tokens' new order as typed ("3 1 2"; "" none)
    order_seed: int = 0  # the seed of a drawn order

    def settings(self) -> dict:
        """Each setting by its session-state key (``pg_scale``: ``self.scale``)."""
        return {f.key: getattr(self, f.key[len(PREFIX):]) for f in FIELDS}


SETTING_NAMES = tuple(f.name for f in fields(View) if f.name != "tables")
assert SETTING_NAMES == tuple(f.key[len(PREFIX):] for f in FIELDS), "View's settings follow FIELDS"


def view(settings: dict, tables: Tables) -> View:
    """A :class:`View` from settings by session-state key (missing ones at their defaults)."""
    return View(tables=tables, **{f.key[len(PREFIX):]: settings.get(f.key, f.default) for f in FIELDS})


def natural_sizes(name: str, seed: int) -> Sizes:
    """The sizes the preset ``name`` comes in (the random one: its default sizes)."""
    example = preset(name, seed=seed)
    return Sizes(n=example.x.shape[0], d_in=example.x.shape[1], d_k=example.w_q.shape[1], d_v=example.w_v.shape[1])
