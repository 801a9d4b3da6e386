"""Parsing edited tables and uploaded CSV files; CSV and zip exports read back exactly."""

import io
import zipfile

import numpy as np
import pandas as pd
import pytest

from selfattn.display.export import BOM, csv_bytes, labelled, to_csv, zip_tables
from selfattn.display.grid import MAX_UPLOAD_BYTES, frame_to_matrix, parse_cell, parse_labels, read_csv_matrix, resize
from selfattn.errors import InputError


def test_parse_cell_accepts_numbers_and_numeric_text():
    assert parse_cell(" 2.5 ", "X", "1", "x1") == 2.5
    assert parse_cell("−3", "X", "1", "x1") == -3.0
    assert parse_cell(np.int64(4), "X", "1", "x1") == 4.0
    assert parse_cell("1e-3", "X", "1", "x1") == 0.001  # scientific notation, read exactly
    assert parse_cell("１．５", "X", "1", "x1") == 1.5  # full-width digits from a Chinese input method
    assert parse_cell("0.1", "X", "1", "x1") == 0.1


@pytest.mark.parametrize("value, code", [("abc", "cell_not_number"), ("", "cell_empty"), (None, "cell_empty"),
                                         (float("nan"), "cell_empty"), (float("inf"), "cell_not_finite"),
                                         ("-inf", "cell_not_finite"), (pd.NA, "cell_empty"),
                                         ("1,5", "cell_not_number"), ("1e400", "cell_too_large"), ("-1e400", "cell_too_large"), ("inf", "cell_not_finite"),
                                         ("nan", "cell_not_finite"), ("   ", "cell_empty")])
def test_parse_cell_names_matrix_row_and_column(value, code):
    with pytest.raises(InputError) as info:
        parse_cell(value, "W_q", "x2", "q3")
    assert info.value.code == code
    assert info.value.params["matrix"] == "W_q" and info.value.params["row"] == "x2"
    assert "W_q, row x2, column q3" in str(info.value)


def test_frame_to_matrix_reports_the_first_bad_cell():
    frame = pd.DataFrame({"x1": [1.0, 2.0], "x2": [3.0, None]})
    with pytest.raises(InputError, match="X, row b, column x2 is empty"):
        frame_to_matrix(frame, "X", ["a", "b"])
    np.testing.assert_array_equal(frame_to_matrix(frame.fillna(4), "X"), [[1, 3], [2, 4]])


def test_labels_default_and_stay_distinct():
    assert parse_labels(["早", None, "早", " "], 4) == ["早", "t2", "早 (2)", "t4"]
    assert len(parse_labels(["x" * 100], 1)[0]) == 24


def test_resize_keeps_what_fits():
    m = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(resize(m, 3, 2), [[0, 1], [3, 4], [0, 0]])


def test_export_round_trips_through_csv_upload():
    values = np.random.default_rng(0).standard_normal((3, 4)) * 1e-3
    frame = labelled(values, ["早", "上", "好"], ["x1", "x2", "x3", "x4"])
    data = csv_bytes(to_csv(frame))
    assert data.startswith(b"\xef\xbb\xbf,x1,x2,x3,x4") and BOM == "\ufeff".encode("utf-8")  # Excel reads it as UTF-8
    assert data[3:].decode("utf-8").splitlines()[1].startswith("早,")  # the mark alone, not on the labels
    parsed, labels = read_csv_matrix(data, "X", cols=4)
    assert labels == ["早", "上", "好"]
    np.testing.assert_array_equal(parsed, values)  # full precision, not rounded
    assert csv_bytes(to_csv(labelled(parsed, labels, frame.columns))) == data  # and written again, the same bytes


def test_an_upload_with_or_without_the_byte_order_mark_reads_the_same():
    plain = "早,1,2,3\n上,4,5,6.25\n".encode("utf-8")
    with_mark, labels = read_csv_matrix(BOM + plain, "W_q", cols=3, rows=2)
    without, same_labels = read_csv_matrix(plain, "W_q", cols=3, rows=2)
    assert labels == same_labels == ["早", "上"]  # not "\ufeff早"
    np.testing.assert_array_equal(with_mark, [[1, 2, 3], [4, 5, 6.25]])
    np.testing.assert_array_equal(without, with_mark)


def test_upload_plain_numbers_without_header():
    parsed, labels = read_csv_matrix(b"1,2,3\n4,5,6\n", "W_q", cols=3, rows=2)
    assert labels is None
    np.testing.assert_array_equal(parsed, [[1, 2, 3], [4, 5, 6]])


def test_upload_with_header_only():
    parsed, labels = read_csv_matrix(b"a,b\n1,2\n", "X", cols=2)
    assert labels is None and parsed.tolist() == [[1, 2]]


@pytest.mark.parametrize("data, code", [
    (b"1,2\n3,4\n", "upload_shape"),  # wrong number of columns
    (b"1,2,3\n", "upload_shape"),  # W needs 2 rows
    (b"1,x,3\n4,5,6\n", "cell_not_number"),
    (b"1,,3\n4,5,6\n", "cell_empty"),
    (b"\xff\xfe\x00bad", "upload_not_text"),
    (b"", "upload_empty"), (b"\n\n", "upload_empty"),
    (b'1,2,3\n"4,5,6\n', "upload_not_csv"),
    (b"1,2,3\n" * (MAX_UPLOAD_BYTES // 6 + 10), "upload_too_big"),
])
def test_malformed_uploads_are_refused(data, code):
    with pytest.raises(InputError) as info:
        read_csv_matrix(data, "W_q", cols=3, rows=2)
    assert info.value.code == code


def test_zip_holds_one_csv_per_table_each_with_the_byte_order_mark():
    x = np.random.default_rng(1).standard_normal((2, 2)) / 3
    tables = {"x": labelled(x, ["早", "好"], ["x1", "x2"]), "outputs": lambda: labelled([[1.5]], ["a"], ["v1"])}
    notes = {"settings.txt": "preset: 教程\n"}
    with zipfile.ZipFile(io.BytesIO(zip_tables(tables, notes))) as archive:
        assert sorted(archive.namelist()) == ["outputs.csv", "settings.txt", "x.csv"]
        files = {name: archive.read(name) for name in archive.namelist()}
    assert files["x.csv"] == csv_bytes(to_csv(tables["x"])) and files["x.csv"].startswith(BOM + b",x1,x2")
    assert files["outputs.csv"] == BOM + b",v1\na,1.5\n"
    assert files["settings.txt"] == "preset: 教程\n".encode("utf-8")  # a text file, as given
    back, labels = read_csv_matrix(files["x.csv"], "X", cols=2)
    assert labels == ["早", "好"]
    np.testing.assert_array_equal(back, x)  # to the last digit


@pytest.mark.parametrize("label", ['=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", "-1+1", "@SUM(A1:A2)",
                                   "\tx", "\rx"])
def test_a_label_that_looks_like_a_formula_is_not_one_in_the_csv_and_reads_back(label):
    """OWASP's CSV injection advice: a cell starting with = + - @ tab or CR gets a leading '."""
    import csv
    import io

    from selfattn.display.export import labelled, to_csv
    from selfattn.display.grid import read_csv_matrix

    values = np.array([[-1.5, 2.0], [0.1, -3e-300]])
    text = to_csv(labelled(values, [label, "ok"], [label, "c2"]))
    cells = [cell for row in csv.reader(io.StringIO(text, newline="")) for cell in row]
    assert not any(cell.startswith(("=", "+", "@", "\t", "\r")) for cell in cells)
    assert all(not cell.startswith("-") or float(cell) < 0 for cell in cells)  # only numbers start with -
    if "\r" in label:  # the Playground never exports one: parse_labels turns control characters into spaces
        assert parse_labels([label], 1) == ["x"]
        return
    data = csv_bytes(text)
    assert data == BOM + text.encode("utf-8")  # the escaped text, after the mark
    back, labels = read_csv_matrix(data, "X", cols=2)
    assert labels == [label, "ok"]
    np.testing.assert_array_equal(back, values)


def test_the_same_tables_make_the_same_zip_bytes_at_any_time(monkeypatch):
    """Every member is dated ZIP_DATE, not the clock: a view downloaded twice is the same file."""
    import time

    tables = {"x": pd.DataFrame([[1.5, -2.0]], index=["早"], columns=["a", "b"])}
    first = zip_tables(tables, {"settings.txt": "seed=0"})
    later = time.time() + 3 * 86400
    monkeypatch.setattr(time, "time", lambda: later)
    monkeypatch.setattr(time, "localtime", lambda *a: __import__("time").struct_time((2031, 5, 6, 7, 8, 10, 1, 126, 0)))
    assert zip_tables(tables, {"settings.txt": "seed=0"}) == first
    with zipfile.ZipFile(io.BytesIO(first)) as archive:
        assert {info.date_time for info in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}
