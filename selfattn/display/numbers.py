"""Numbers written for a reader: one function a place the text goes.

- :func:`editor_text`: the Playground's editors and its link (and settings.txt); every digit, so
  the text reads back as the same float.
- :func:`map_text`: a cell of the Playground's maps (the step maps, the shuffle's and the
  positions' maps) and their legends; 4 significant digits.
- :func:`step_text`, :func:`step_vector_text`: the Playground's step-by-step text (steps 4–7 for
  the focus token, ``q1·k2 = …``, and the scale in the scaled scores' caption); 6 significant
  digits.
- :func:`difference_text`: the word-order checks' differences and tolerance; 2 significant digits.
- :func:`chart_text`: a cell of the other pages' heatmaps (Vega charts); 3 significant digits.

Each writes −∞ (a masked score) as :data:`MINUS_INFINITY`, where one can reach it. The browser
writes the maps' numbers too, in the preview (``ui/components/attention.js``, ``mapText``), by
the same rule as :func:`map_text`; ``tests/test_preview_browser.py`` holds the two to each other.
Sizes with a unit (MiB, GiB) are written by :mod:`selfattn.display.units`; exact numbers for a
file (CSV) by :mod:`selfattn.display.export`.
"""

from __future__ import annotations

import math

MINUS_INFINITY = "−∞"  # a masked score, written the same way in charts, tables and the step-by-step text


def editor_text(value) -> str:
    """A number as the editors show it and the link carries it: the shortest text that reads back
    as the same float ("0.1", "3", "1e-300", "-0"); text is returned as it is.

    The editors hold text, not numbers, so that whatever a visitor types (``1e-3``, ``1,5``,
    ``abc``) reaches ``grid.parse_cell`` unchanged: it is read exactly or reported by name,
    never silently mangled by the browser's number input.
    """
    if isinstance(value, str):
        return value
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def map_text(value: float) -> str:
    """A value as written in a map's cell: four significant digits, −∞ for a masked score.

    The value is first rounded to 12 significant digits, then to 4, each time half to even, and
    written as ``%g`` writes it ("0.4683", "6.034e-06", "12"). The first rounding makes the
    result the same however the sum was ordered: typed decimals often give an exact tie such as
    −3.7505, which one order of summation leaves at −3.7504999999999997 and another at
    −3.7505000000000002; both read −3.75 here, and so does the browser's preview (``attention.js``).
    """
    if value == -math.inf:
        return MINUS_INFINITY
    if not math.isfinite(value):
        return str(value)
    twelve = f"{abs(value):.11e}"  # d.ddddddddddde±XX, correctly rounded (ties to even)
    digits, exponent = twelve[0] + twelve[2:13], int(twelve[14:])
    head, rest = int(digits[:4]), digits[4:]
    if rest > "50000000" or (rest == "50000000" and head % 2):
        head += 1
    if head == 10000:
        head, exponent = 1000, exponent + 1
    if head == 0:
        return "0"
    text = str(head)
    if -4 <= exponent < 4:
        point = exponent + 1
        whole = text[:point] if point > 0 else "0"
        frac = (text[point:] if point > 0 else "0" * -point + text).rstrip("0")
        shown = whole + ("." + frac if frac else "")
    else:
        mantissa = (text[0] + "." + text[1:]).rstrip("0").rstrip(".")
        shown = f"{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    return ("-" if value < 0 else "") + shown


def step_text(value: float) -> str:
    """A number as the step-by-step text writes it: six significant digits (``%g``), −∞ for a
    masked score, 0 for −0 (the tables beside it have every digit)."""
    if value == -math.inf:
        return MINUS_INFINITY
    text = f"{value:.6g}"
    return "0" if text == "-0" else text


def step_vector_text(values) -> str:
    """A vector as the step-by-step text writes it: ``[a, b, c]``, each by :func:`step_text`."""
    return "[" + ", ".join(step_text(v) for v in values) + "]"


def difference_text(value: float) -> str:
    """A difference as the word-order checks write it (largest change, tolerance): 0, or two
    significant digits (``%g``: "0.012", "3.4e-16")."""
    return "0" if value == 0 else f"{value:.2g}"


def chart_text(value: float) -> str:
    """A value in a cell of a heatmap drawn by :func:`selfattn.display.charts.heatmap` on the pages
    that do not pass their own writer: three significant digits between 0.001 and 100,000 (and
    for 0), else one decimal in scientific notation ("1.2e-04"); −∞ for a masked score."""
    if value == -math.inf:
        return MINUS_INFINITY
    if not math.isfinite(value):
        return str(value)
    if value == 0 or 1e-3 <= abs(value) < 1e5:
        return f"{value:.3g}"
    return f"{value:.1e}"
