"""The link codecs (selfattn/display/share.py): every value the pages keep goes into a URL and comes back exactly."""

from __future__ import annotations

import re
import struct
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from selfattn.display import share
from selfattn.display.share import BadValue, Bool, Choice, Choices, Field, Int, Text
from selfattn.display.numbers import editor_text

# Text a visitor may type into a cell or a label: any printable text, the separators included.
cell_texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)


def through_url(params: dict[str, str]) -> dict[str, str]:
    """What the server reads back after the browser sent ``params`` as a query string."""
    return dict(parse_qsl(urlencode(params), keep_blank_values=True))


def bits(x: float) -> bytes:
    return struct.pack("<d", x)


@settings(max_examples=500, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_float_comes_back_bit_identical(x):
    text = editor_text(x)  # what the editor holds for it
    assert float(text) == x and bits(float(text)) == bits(x)
    for base in ([["0"]], None):
        kind, written = share.encode_cells(base, [[text]]) or ("same", "")
        back = through_url({"x": written})["x"] if written else ""
        rows = share.decode_table(back, max_rows=1, max_cols=1) if kind == "full" else share.apply_diff([["0"]], back)
        assert bits(float(rows[0][0])) == bits(x)


def test_signed_zero_subnormals_and_extremes_keep_their_bits():
    for x in (-0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.1 + 0.2, 1 / 3):
        text = editor_text(x)
        back = share.decode_table(through_url({"x": share.encode_table([[text]])})["x"], max_rows=1, max_cols=1)
        assert bits(float(back[0][0])) == bits(x), x


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(cell_texts, min_size=3, max_size=3), min_size=1, max_size=4))
def test_any_typed_text_round_trips_full_and_as_a_diff(rows):
    back = share.decode_table(through_url({"t": share.encode_table(rows)})["t"], max_rows=4, max_cols=3)
    assert back == rows
    base = [["0", "1", "2"] for _ in rows]
    written = share.encode_cells(base, rows)
    if written is None:
        assert rows == base
        return
    kind, text = written
    text = through_url({"t": text})["t"]
    got = share.apply_diff(base, text) if kind == "diff" else share.decode_table(text, max_rows=4, max_cols=3)
    assert got == rows


def test_a_diff_is_chosen_when_it_is_shorter_and_names_only_changed_cells():
    base = [[str(i * 4 + j) for j in range(4)] for i in range(4)]
    rows = [row[:] for row in base]
    rows[2][1] = "-0.5"
    assert share.encode_cells(base, rows) == ("diff", "2.1.-0.5")
    assert share.encode_cells(base, base) is None
    everything = [["7"] * 4 for _ in range(4)]
    assert share.encode_cells(base, everything)[0] == "full"


@pytest.mark.parametrize("codec, value, text", [
    (Int(0, 10), 3, "3"), (Int(1, 32, shift=1), 0, "1"), (Bool(), True, "1"), (Bool(), False, "0"),
    (Choice(("a", "b")), "b", "b"), (Choice((16, 32)), 32, "32"), (Choices((1, 8, 16)), [8, 1], "8~1"), (Choices(("a_b", "c")), ["c", "a_b"], "c~a_b"),
    (Choices(("a",)), [], ""), (Text(10), "早上好 ok", "早上好 ok"),
])
def test_codecs_write_and_read_back(codec, value, text):
    assert codec.encode(value) == text
    assert codec.decode(through_url({"v": text})["v"]) == value


@pytest.mark.parametrize("codec, text, reason", [
    (Int(0, 10), "11", "out_of_range"), (Int(0, 10), "-1", "out_of_range"), (Int(0, 10), "3.5", "not_whole"),
    (Int(0, 10), "nan", "not_whole"), (Int(0, 10), "9" * 400, "not_whole"), (Int(0, 10), "", "not_whole"),
    (Bool(), "yes", "not_bool"), (Choice(("a",)), "../../etc/passwd", "not_offered"),
    (Choices((1, 8)), "1~1", "repeated"), (Choices((1, 8)), "1~3", "not_offered"),
    (Text(5), "x" * 6, "too_long"), (Text(50), "a\x00b", "control_chars"), (Text(50), "a\nb", "control_chars"),
])
def test_bad_values_are_refused_with_a_reason(codec, text, reason):
    with pytest.raises(BadValue) as caught:
        codec.decode(text)
    assert caught.value.reason == reason


@pytest.mark.parametrize("text, reason", [
    ("1_2~3", "ragged"), ("!x", "garbled"), ("1!", "garbled"), ("~".join(["1"] * 33), "table_size"),
    ("_".join(["1"] * 17), "table_size"), ("1" * (share.MAX_VALUE_CHARS + 1), "too_long"),
])
def test_bad_tables_are_refused(text, reason):
    with pytest.raises(BadValue) as caught:
        share.decode_table(text, max_rows=32, max_cols=16)
    assert caught.value.reason == reason


@pytest.mark.parametrize("text, reason", [("3.0.5", "cell_outside"), ("0.9.5", "cell_outside"), ("a.b.c", "garbled"),
                                          ("0.0", "garbled"), ("1111.0.1", "garbled")])
def test_bad_diffs_are_refused(text, reason):
    with pytest.raises(BadValue) as caught:
        share.apply_diff([["0", "0"]] * 3, text)
    assert caught.value.reason == reason


def test_fields_leave_defaults_out_and_name_what_they_refuse():
    fields = (Field("a", "a", Int(0, 9), 0), Field("b", "b", Bool(), False), Field("c", "c", Choices((1, 2)), [1]))
    assert share.encode_fields(fields, {"a": 0, "b": True, "c": [1]}) == {"b": "1"}
    values, bad = share.decode_fields(fields, {"a": "12", "b": "1", "c": "2~1", "zzz": "1"})
    assert values == {"b": True, "c": [2, 1]}
    assert set(bad) == {"a"} and bad["a"].reason == "out_of_range"


def test_every_reason_is_said_in_both_languages():
    from selfattn.i18n import CATALOG

    root = Path(__file__).resolve().parents[1]
    reasons = {m for path in (root / "selfattn" / "display" / "share.py", *(root / "ui").rglob("*.py"))
               for m in re.findall(r'BadValue\("(\w+)"', path.read_text(encoding="utf-8"))}
    assert len(reasons) >= 12
    for reason in reasons:
        entry = CATALOG[f"share.why_{reason}"]
        assert entry["en"] and entry["zh"], reason
