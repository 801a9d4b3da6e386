"""A page's state as short, readable URL parameters, and back: what a shared link carries.

Each setting a page keeps is a :class:`Field`: its session-state key, its URL parameter, a codec
that writes it as text and reads it back with its limits checked, and its default. A page's
fields are one table (see ``ui.state``), used for the link, for session state and by the fuzz
tests. Values equal to their default are left out of the link.

Tables of cells (the Playground's matrices, as typed) are written row by row::

    1_0_1_0~0_2_0_2        cells joined by "_", rows by "~"
    0.1.5_2.3.-0.25        or only the cells that differ: row.column.text (0-based)

``_``, ``~``, ``.`` and digits pass through ``urllib.parse.urlencode`` unescaped, so a link stays
short and readable; a cell's own ``_``, ``~`` or ``!`` are escaped as ``!u``, ``!t``, ``!!``.
Cells are kept as the exact text the editors hold (the shortest text that reads back as the
same float), so a reopened link computes bit-identical results.
"""

from __future__ import annotations

import numbers
import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

CELL_SEP, ROW_SEP, ESC = "_", "~", "!"
_ESCAPES = {ESC: "!!", CELL_SEP: "!u", ROW_SEP: "!t"}
_UNESCAPES = {"!": ESC, "u": CELL_SEP, "t": ROW_SEP}
MAX_VALUE_CHARS = 40_000  # one parameter; a whole link is bounded by MAX_LINK_CHARS
MAX_LINK_CHARS = 60_000  # under Tornado's 64 KiB request head (docs: README "Share what you see")


class BadValue(ValueError):
    """A parameter that cannot be used; ``reason`` is a catalog key (``share.why_<reason>``)."""

    def __init__(self, reason: str, **params):
        super().__init__(reason)
        self.reason, self.params = reason, params


def escape(text: str, special: str = ESC + CELL_SEP + ROW_SEP) -> str:
    """``text`` with the ``special`` characters escaped (:func:`unescape` reads every escape)."""
    return "".join(_ESCAPES[ch] if ch in special else ch for ch in text)


def unescape(text: str) -> str:
    out, chars = [], iter(text)
    for ch in chars:
        if ch == ESC:
            nxt = next(chars, None)
            if nxt not in _UNESCAPES:
                raise BadValue("garbled")
            ch = _UNESCAPES[nxt]
        out.append(ch)
    return "".join(out)


def split(text: str, sep: str) -> list[str]:
    """``text`` cut at ``sep`` (escaped separators inside items stay whole), items unescaped."""
    return [unescape(item) for item in text.split(sep)]


# ── Codecs: one per kind of value ────────────────────────────────────────────────────────

_WHOLE = re.compile(r"-?[0-9]{1,12}")  # ASCII digits only: Python's \d and str.isdigit take "٣", "²", "①"


def parse_whole(text: str, lo: int, hi: int) -> int:
    """The whole number ``text`` writes in ASCII digits (an optional "-" and 1-12 digits), from
    ``lo`` to ``hi``: the one parser of every integer in a link.

    Raises:
        BadValue: ``not_whole`` (lo, hi) or ``out_of_range`` (lo, hi).
    """
    if not isinstance(text, str) or not _WHOLE.fullmatch(text):
        raise BadValue("not_whole", lo=lo, hi=hi)
    value = int(text)
    if not lo <= value <= hi:
        raise BadValue("out_of_range", lo=lo, hi=hi)
    return value


@dataclass(frozen=True)
class Int:
    """A whole number from ``lo`` to ``hi`` as written in the link; kept as that number minus ``shift``
    (a 0-based index is written counted from 1)."""

    lo: int
    hi: int
    shift: int = 0

    def encode(self, value: int) -> str:
        return str(int(value) + self.shift)

    def decode(self, text: str) -> int:
        return parse_whole(text, self.lo, self.hi) - self.shift

    def fits(self, value) -> bool:
        """Whether a kept value (a widget's, from the browser) is one this setting can hold."""
        whole = isinstance(value, numbers.Integral) or (isinstance(value, float) and value.is_integer())
        return whole and not isinstance(value, bool) and self.lo - self.shift <= value <= self.hi - self.shift


@dataclass(frozen=True)
class Bool:
    """On or off, written 1 or 0."""

    def encode(self, value: bool) -> str:
        return "1" if value else "0"

    def decode(self, text: str) -> bool:
        if text not in ("0", "1"):
            raise BadValue("not_bool")
        return text == "1"

    def fits(self, value) -> bool:
        return isinstance(value, (bool, np.bool_))


@dataclass(frozen=True)
class Choice:
    """One of ``options``, written as itself (numbers as their digits)."""

    options: tuple

    def encode(self, value) -> str:
        return str(value)

    def decode(self, text: str):
        for option in self.options:
            if str(option) == text:
                return option
        raise BadValue("not_offered", options=", ".join(map(str, self.options)))

    def fits(self, value) -> bool:
        return any(_same_kind(value, option) and value == option for option in self.options)


@dataclass(frozen=True)
class Choices:
    """Several of ``options`` (no repeats), joined by ``~`` (names keep their own ``_``)."""

    options: tuple

    def encode(self, values) -> str:
        return ROW_SEP.join(escape(str(v), ESC + ROW_SEP) for v in values)

    def decode(self, text: str) -> list:
        if text == "":
            return []
        picked = [Choice(self.options).decode(item) for item in split(text, ROW_SEP)]
        if len(set(map(str, picked))) != len(picked):
            raise BadValue("repeated")
        return picked

    def fits(self, value) -> bool:
        one = Choice(self.options)
        return (isinstance(value, list) and len(value) <= len(self.options) and all(map(one.fits, value))
                and len(set(map(str, value))) == len(value))


@dataclass(frozen=True)
class Text:
    """Free text of at most ``max_chars`` characters, without control characters."""

    max_chars: int

    def encode(self, value: str) -> str:
        return str(value)

    def decode(self, text: str) -> str:
        if len(text) > self.max_chars:
            raise BadValue("too_long", n=self.max_chars)
        if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
            raise BadValue("control_chars")
        return text

    def fits(self, value) -> bool:
        """A widget's text: at most ``max_chars`` (the browser's own cap is not a check; a pasted line
        break in a text area is fine, the pages show text as text)."""
        return isinstance(value, str) and len(value) <= self.max_chars


def _same_kind(value, option) -> bool:
    """True for two values of one type, or two numbers neither of which is a bool (``True == 1``)."""
    if type(value) is type(option):
        return True
    number = (numbers.Number, np.number)
    return (isinstance(value, number) and isinstance(option, number)
            and not isinstance(value, (bool, np.bool_)) and not isinstance(option, (bool, np.bool_)))


@dataclass(frozen=True)
class Field:
    """One setting of a page: where it lives, how the link writes it, what it may be."""

    key: str  # session-state key
    param: str  # URL parameter
    codec: Any  # Int, Bool, Choice, Choices or Text
    default: Any  # left out of the link


def encode_fields(fields: Sequence[Field], values: dict) -> dict[str, str]:
    """URL parameters for the values that differ from their defaults."""
    params = {}
    for field in fields:
        value = values.get(field.key, field.default)
        if value != field.default:
            params[field.param] = field.codec.encode(value)
    return params


def decode_fields(fields: Sequence[Field], params: dict[str, str]) -> tuple[dict, dict[str, BadValue]]:
    """Values by session-state key for the parameters that are fine, and why each other one is not.

    Parameters no field names are left alone (the caller decides what else it reads).
    """
    values, bad = {}, {}
    for field in fields:
        if field.param in params:
            try:
                values[field.key] = field.codec.decode(_bounded(params[field.param]))
            except BadValue as exc:
                bad[field.param] = exc
    return values, bad


def _bounded(text: str) -> str:
    if len(text) > MAX_VALUE_CHARS:
        raise BadValue("too_long", n=MAX_VALUE_CHARS)
    return text


# ── Tables of cells ──────────────────────────────────────────────────────────────────────

def encode_table(rows: Sequence[Sequence[str]]) -> str:
    """Every cell, row by row."""
    return ROW_SEP.join(CELL_SEP.join(escape(cell) for cell in row) for row in rows)


def decode_table(text: str, shape: tuple[int, int] | None = None, *, max_rows: int, max_cols: int) -> list[list[str]]:
    """Rows of cells; every row as long as the first, within the limits (and ``shape`` when given)."""
    rows = [split(row, CELL_SEP) for row in _bounded(text).split(ROW_SEP)]
    width = len(rows[0])
    if any(len(row) != width for row in rows):
        raise BadValue("ragged")
    if not (1 <= len(rows) <= max_rows and 1 <= width <= max_cols):
        raise BadValue("table_size", rows=max_rows, cols=max_cols)
    if shape is not None and (len(rows), width) != tuple(shape):
        raise BadValue("wrong_shape", rows=shape[0], cols=shape[1])
    return rows


def encode_diff(base: Sequence[Sequence[str]], rows: Sequence[Sequence[str]]) -> str:
    """The cells of ``rows`` that differ from ``base`` (same shape), as ``row.column.text``."""
    return CELL_SEP.join(f"{i}.{j}.{escape(cell)}" for i, row in enumerate(rows) for j, cell in enumerate(row)
                         if cell != base[i][j])


def apply_diff(base: Sequence[Sequence[str]], text: str) -> list[list[str]]:
    """``base`` with the cells of an :func:`encode_diff` text put in."""
    rows = [list(row) for row in base]
    if text == "":
        return rows
    for item in split(_bounded(text), CELL_SEP):
        found = re.fullmatch(r"([0-9]{1,3})\.([0-9]{1,3})\.(.*)", item, flags=re.DOTALL)
        if not found:
            raise BadValue("garbled")
        i, j = int(found.group(1)), int(found.group(2))
        if i >= len(rows) or j >= len(rows[i]):
            raise BadValue("cell_outside", rows=len(rows), cols=len(rows[0]) if rows else 0)
        rows[i][j] = found.group(3)
    return rows


def encode_cells(base: Sequence[Sequence[str]] | None, rows: Sequence[Sequence[str]]) -> tuple[str, str] | None:
    """The shorter of the two ways to write ``rows``: ``("diff", text)`` against ``base`` (same
    shape) or ``("full", text)``; None when ``rows`` equal ``base``."""
    rows = [list(row) for row in rows]
    if base is not None and [list(r) for r in base] == rows:
        return None
    full = encode_table(rows)
    same_shape = base is not None and len(base) == len(rows) and all(len(a) == len(b) for a, b in zip(base, rows))
    if same_shape:
        diff = encode_diff(base, rows)
        if len(diff) < len(full):
            return "diff", diff
    return "full", full
