"""Every writer of numbers for a reader (selfattn/display/numbers.py), to the last character.

The expected strings are written out by hand: ties (exact in binary, so the rule decides),
negatives, −0, −∞, the ends of the float range and 0. The browser's copy of map_text is held to
the same strings in tests/test_preview_browser.py."""

import ast
import math
from pathlib import Path

import numpy as np
import pytest

from selfattn.display.grid import parse_cell
from selfattn.display.numbers import (MINUS_INFINITY, chart_text, difference_text, editor_text, map_text, step_text,
                                      step_vector_text)
from support.source import tree

ROOT = Path(__file__).resolve().parents[1]
INF, NAN = math.inf, math.nan


@pytest.mark.parametrize("value, text", [
    (0.0, "0"), (-0.0, "-0"), (3.0, "3"), (np.float64(7), "7"), (0.25, "0.25"), (-2.5, "-2.5"), (0.1, "0.1"),
    (1 / 3, "0.3333333333333333"), (-2 / 3, "-0.6666666666666666"), (123456789.123456789, "123456789.12345679"),
    (1e21, "1e+21"), (1e-300, "1e-300"), (5e-324, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"),
    (1e16, "1e+16"), (12345.0, "12345"), (-INF, "-inf"), (INF, "inf"),
    ("1,5", "1,5"), ("abc", "abc"), (" 2 ", " 2 "),  # text is the visitor's: returned as it is
])
def test_editor_text_is_the_shortest_text_of_the_same_float(value, text):
    assert editor_text(value) == text


@pytest.mark.parametrize("value", [0.1, 1.0, -0.0, 1e-300, 5e-324, 1e308, 123456789.123456789, 2 / 3, -1 / 3,
                                   np.float64(7), 0.1 + 0.2, 2.0 ** 0.5])
def test_editor_text_reads_back_as_the_same_float(value):
    back = parse_cell(editor_text(value), "X", "1", "x1")
    assert back == value and math.copysign(1, back) == math.copysign(1, value)


@pytest.mark.parametrize("value, text", [
    (0.0, "0"), (-0.0, "0"), (1.0, "1"), (-2.5, "-2.5"), (1 / 3, "0.3333"), (-2 / 3, "-0.6667"), (0.5, "0.5"),
    (12345, "1.234e+04"), (12355, "1.236e+04"), (-12345, "-1.234e+04"),  # exact ties: half to even
    (1234.5, "1234"), (1235.5, "1236"), (9998.5, "9998"), (9999.5, "1e+04"), (99995, "1e+05"),
    (1.0005, "1"), (9.9995, "10"), (0.99995, "1"), (0.00125, "0.00125"), (0.0001, "0.0001"),
    (0.000123456789, "0.0001235"), (-0.012345, "-0.01234"), (2.5e-5, "2.5e-05"), (6.034e-06, "6.034e-06"),
    (-3.7504999999999997, "-3.75"), (-3.7505000000000002, "-3.75"),  # one tie, summed in two orders
    (999950000, "1e+09"), (1e21, "1e+21"), (1e308, "1e+308"), (5e-324, "4.941e-324"),
    (1e-300, "1e-300"), (-INF, MINUS_INFINITY), (INF, "inf"), (NAN, "nan"),
])
def test_map_text_writes_four_significant_digits_after_twelve(value, text):
    assert map_text(value) == text


@pytest.mark.parametrize("value, text", [
    (0.0, "0"), (-0.0, "0"), (1.0, "1"), (-2.5, "-2.5"), (1 / 3, "0.333333"), (-2 / 3, "-0.666667"),
    (1234565.0, "1.23456e+06"), (1234575.0, "1.23458e+06"), (-1234565.0, "-1.23456e+06"),  # ties: half to even
    (123456.5, "123456"), (123457.5, "123458"), (999999.5, "1e+06"), (99995.0, "99995"),
    (2.0 ** 0.5 / 2, "0.707107"), (0.0001, "0.0001"), (0.00001234567, "1.23457e-05"), (6.034e-06, "6.034e-06"),
    (-3.7505, "-3.7505"), (1e21, "1e+21"), (1e308, "1e+308"), (5e-324, "4.94066e-324"), (-1e-300, "-1e-300"),
    (-INF, MINUS_INFINITY), (INF, "inf"), (NAN, "nan"),
])
def test_step_text_writes_six_significant_digits(value, text):
    assert step_text(value) == text


def test_step_vector_text_writes_each_number_as_step_text():
    assert step_vector_text([1.0, -0.0, 1 / 3, -INF]) == f"[1, 0, 0.333333, {MINUS_INFINITY}]"
    assert step_vector_text(np.array([2.5, 1234565.0])) == "[2.5, 1.23456e+06]"
    assert step_vector_text([]) == "[]"


@pytest.mark.parametrize("value, text", [
    (0.0, "0"), (-0.0, "0"), (1.0, "1"), (-2.5, "-2.5"), (1 / 3, "0.33"), (-2 / 3, "-0.67"),
    (0.125, "0.12"), (0.375, "0.38"), (-0.125, "-0.12"),  # exact ties: half to even
    (0.015, "0.015"), (0.00125, "0.0013"), (9.96, "10"), (12345.0, "1.2e+04"), (99995.0, "1e+05"),
    (3.4e-16, "3.4e-16"), (2.220446049250313e-16, "2.2e-16"), (1e-300, "1e-300"), (5e-324, "4.9e-324"),
    (1e308, "1e+308"), (-INF, "-inf"), (INF, "inf"), (NAN, "nan"),
])
def test_difference_text_writes_two_significant_digits(value, text):
    assert difference_text(value) == text


@pytest.mark.parametrize("value, text", [
    (0.0, "0"), (-0.0, "-0"), (1.0, "1"), (-2.5, "-2.5"), (1 / 3, "0.333"), (-2 / 3, "-0.667"),
    (1.125, "1.12"), (1.375, "1.38"), (-1.125, "-1.12"),  # exact ties: half to even
    (0.001, "0.001"), (0.00099999, "1.0e-03"), (0.0001, "1.0e-04"), (99999.0, "1e+05"), (100000.0, "1.0e+05"),
    (12345.0, "1.23e+04"), (-0.012345, "-0.0123"), (2.5e-5, "2.5e-05"), (1e21, "1.0e+21"), (5e-324, "4.9e-324"),
    (-INF, MINUS_INFINITY), (INF, "inf"), (NAN, "nan"),
])
def test_chart_text_writes_three_significant_digits_or_one_decimal_in_scientific_notation(value, text):
    assert chart_text(value) == text


WRITERS = {"editor_text", "map_text", "step_text", "step_vector_text", "difference_text", "chart_text"}
OLD_NAMES = {"cell_text", "fmt", "_fmt", "_short", "vec", "g4"}  # the names these writers had before one module


def test_numbers_are_written_by_one_module_under_one_name_each():
    """No module of the app defines a writer's name again, nor a number writer under an old name."""
    numbers = ROOT / "selfattn" / "display" / "numbers.py"
    offenders = []
    for path in sorted({ROOT / "app.py", *ROOT.glob("selfattn/**/*.py"), *ROOT.glob("ui/**/*.py"),
                        *ROOT.glob("pages/*.py")}):
        if path == numbers:
            continue
        for node in ast.walk(tree(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in WRITERS | OLD_NAMES:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not offenders, offenders
