"""Numbers written for a reader: one function a place the text goes.

The Playground's step maps (``ui/components/heatmap.py``, previewed in ``heatmap.js`` by the same
rule) and its other maps (``selfattn.display.charts`` given ``write=map_text``) write a matrix's
cells with :func:`map_text`, so one matrix reads the same wherever it appears.
"""

from __future__ import annotations

import math

MINUS_INFINITY = "−∞"  # a masked score, written the same way in charts, tables and the step-by-step text


def map_text(value: float) -> str:
    """A value as written in a map's cell: four significant digits, −∞ for a masked score.

    The value is first rounded to 12 significant digits, then to 4, each time half to even, and
    written as ``%g`` writes it ("0.4683", "6.034e-06", "12"). The first rounding makes the
    result the same however the sum was ordered: typed decimals often give an exact tie such as
    −3.7505, which one order of summation leaves at −3.7504999999999997 and another at
    −3.7505000000000002; both read −3.75 here, and so does the browser's preview (``heatmap.js``).
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
