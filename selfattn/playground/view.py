"""The Playground's state as one frozen, typed object: its settings and its tables as typed.

:data:`FIELDS` is the page's settings table (read by ``ui/state.py`` through ``ui/navigation.py``): session-state
key, link parameter, codec, default; :data:`KEPT` and :data:`WIDGETS` its other session keys. A :class:`View` holds one
value per field (the field's key without its ``pg_`` prefix) and the tables typed into by id against the preset's, as
the kit's pages keep theirs (:class:`selfattn.display.edits.Edited`), so that the link is written from it
(:func:`selfattn.playground.link.encode`) and read back into it (:func:`~selfattn.playground.link.decode`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

from selfattn.core.positions import KINDS, MAX_ORDER_CHARS
from selfattn.core.presets import PRESETS, preset
from selfattn.display.grid import MAX_DIM, MAX_TOKENS, Sizes
from selfattn.display.edits import Editable, Edited
from selfattn.display.share import Bool, Choice, Field, Int, Text
from selfattn.playground.seeded import seeded_tables
from selfattn.playground.tables import BIASES, MATRICES, TABLE_IDS, Rows, Tables

MAX_SEED = 2**31 - 1
CELL_CHARS = 40  # the most characters a number's cell takes (the editors' limit)
PREFIX = "pg_"  # every setting of the page: session-state key "pg_<name>", View.<name>
# The page's session keys beyond its settings (tests/test_session_keys.py holds the page to them; "*": a family).
KEPT = {
    "pg": "the Playground's typed tables, sizes, editors, undo and notices (ui/playground/page.py)",
    "pg_good": "last_good: the Playground's (inputs, trace, biases shown)",
    "pg_n": "the Playground's number of tokens (its size box)",
    "pg_d_in": "the Playground's d_in (its size box)",
    "pg_d_k": "the Playground's d_k (its size box)",
    "pg_d_v": "the Playground's d_v (its size box)",
    "pg_upload_*": "the Playground's CSV uploader (one per editor version) and which matrix it fills",
    "pged_*": "the Playground's matrix editors, one per matrix and version",
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


@dataclass(frozen=True)
class View(Edited):
    """What the Playground shows: every setting of :data:`FIELDS`, and its tables as the kit's pages keep theirs, the
    tables typed into by id (:data:`TABLE_IDS`, X with its labels first) against the preset's at ``size`` with the
    tutorial's labels in ``lang`` (:meth:`base`). :attr:`tables` is all of them as one :class:`Tables`."""

    PREFIX = PREFIX
    STATE = ("size", "lang", "edits")  # not settings: what the seeded tables depend on, and the typed tables

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
    size: Sizes = Sizes()  # the tables' sizes (the tutorial's own)
    lang: str = "en"  # the language of the tutorial's "Input i" labels
    edits: tuple = ()  # ((table id, rows of text), ...), sorted: the tables that differ from the seeded ones

    def base(self, table: str) -> Rows:
        """A table as the preset seeds it at these sizes (X with its labels first)."""
        return editor_rows(seeded_tables(self.preset, self.seed, self.size, self.lang), table)

    @functools.cached_property
    def tables(self) -> Tables:
        """Every table as typed, the seeded one where not edited."""
        return from_editor_rows({table: self.rows(table) for table in TABLE_IDS})


def _shape(shown: View, table: str) -> tuple[int, int]:
    size = shown.size
    width = {"x": size.d_in + 1, "w_v": size.d_v, "b_v": size.d_v}.get(table, size.d_k)
    return (size.n if table == "x" else 1 if table in BIASES else size.d_in), width


# The page declared on the kit (ui/editable_page.py): its View, settings table, presets (the switches each sets) and
# tables by id with their shapes; its link is its own (selfattn/playground/link.py: sizes and labels, the cells
# through the kit's table codec under the Playground's own parameter names).
TABLES = Editable(View, FIELDS, {name: {"pg_scale": bool(preset(name).scale), "pg_causal": False, "pg_bias": False}
                                 for name in PRESETS},
                  ids=lambda shown: TABLE_IDS, all_ids=TABLE_IDS, shape=_shape, max_heads=1, max_rows=MAX_TOKENS,
                  max_cols=MAX_DIM + 1, cell_chars=CELL_CHARS)


def editor_rows(tables: Tables, table: str) -> Rows:
    """One table as its editor holds it: X's rows with each token's label first."""
    if table == "x":
        return tuple((label, *row) for label, row in zip(tables.tokens, tables.x))
    return tables.rows(table)


def from_editor_rows(rows: dict) -> Tables:
    """:class:`Tables` from every table as its editor holds it (:func:`editor_rows`)."""
    x = rows["x"]
    return Tables(tokens=tuple(row[0] for row in x), x=tuple(tuple(row[1:]) for row in x),
                  **{name: rows[name] for name in (*MATRICES[1:], *BIASES)})


def view(settings: dict, shown: Tables, lang: str = "en") -> View:
    """A :class:`View` of the tables ``shown`` in full, with settings by session-state key (missing ones at their
    defaults): its edits are the tables that differ from the preset's at their sizes."""
    values = {f.key[len(PREFIX):]: settings.get(f.key, f.default) for f in FIELDS}
    seeded = View(size=shown.sizes, lang=lang, **values)
    edits = {table: editor_rows(shown, table) for table in TABLE_IDS}
    return replace(seeded, edits=tuple(sorted((t, rows) for t, rows in edits.items() if rows != seeded.base(t))))


def natural_sizes(name: str, seed: int) -> Sizes:
    """The sizes the preset ``name`` comes in (the random one: its default sizes)."""
    example = preset(name, seed=seed)
    return Sizes(n=example.x.shape[0], d_in=example.x.shape[1], d_k=example.w_q.shape[1], d_v=example.w_v.shape[1])
