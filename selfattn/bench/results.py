"""Benchmark results as files: write records as JSON or CSV, and read back an uploaded file.

``load_results`` is strict because the Heads & devices page lets visitors upload a results file
written on another machine (a GPU server): size and row caps, required fields, types, allowed
values and finite numbers are all checked, and every problem is an InputError naming the row
and field.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path
from typing import Any

from selfattn.core.torch_attention import IMPLS
from selfattn.display.export import csv_safe, from_csv_label
from selfattn.errors import InputError

DTYPE_NAMES = ("float32", "bfloat16", "float16")  # the keys of selfattn.bench.DTYPES
DEVICES = ("cpu", "cuda")
STATUSES = ("ok", "oom", "refused", "error")
RECORD_FIELDS = (
    "impl", "heads", "head_dim", "device", "device_name", "dtype", "batch", "seq_len", "d_model",
    "median_ms", "iqr_ms", "min_ms", "runs", "flops", "gflops", "peak_mem_bytes", "peak_mem_kind", "est_mem_bytes",
    "torch_version", "num_threads", "status", "error_code", "error",
)
SCHEMA = "selfattn-bench/1"
RESULTS_MAX_BYTES = 2 * 1024 * 1024  # biggest results file load_results accepts
RESULTS_MAX_ROWS = 2000  # well above one sweep (LIMITS local max_runs = 500)
# The shape of a results file, checked by a scan before it is parsed (scan_results): a CSV's columns,
# a JSON's nesting ({"records": [{...}]} is 3 deep) and its values (brackets and commas, counted
# inside texts too: a file of RESULTS_MAX_ROWS records has about 50,000).
RESULTS_MAX_COLUMNS = 64
RESULTS_MAX_DEPTH = 4
RESULTS_MAX_VALUES = 120_000
_JSON_TOKENS = re.compile(rb'\\.|["\[\]{}]')  # an escape (skipped whole), a quote or a bracket


def flop_count(batch: int, seq_len: int, d_model: int) -> int:
    """FLOPs of one forward call: 4*B*h*n^2*head_dim (= 4*B*n^2*d_model) plus 4 projections of 2*B*n*d_model^2."""
    return 4 * batch * seq_len**2 * d_model + 4 * 2 * batch * seq_len * d_model**2


def records_to_json(records: list[dict], about: dict[str, str] | None = None) -> str:
    """Serialise records as ``{"schema": SCHEMA, "about": {...}, "records": [...]}`` (missing numbers are null).

    ``about`` says where and when they were measured (``measured``: an ISO date, ``machine``: words); see
    :func:`read_about`.
    """
    head = {"schema": SCHEMA, **({"about": {k: str(v) for k, v in about.items()}} if about else {})}
    return json.dumps({**head, "records": [{k: r.get(k) for k in RECORD_FIELDS} for r in records]},
                      indent=1, allow_nan=False) + "\n"


ABOUT_FIELDS = ("measured", "machine")  # what a results file may say about itself
ABOUT_MAX_CHARS = 120


def read_about(raw: bytes) -> dict[str, str]:
    """The ``about`` of a JSON results file (``measured``, ``machine``: short texts), {} when it has none.

    Only for files already read by :func:`load_results` (the bundled ones): it trusts their size and nesting.
    """
    try:
        about = json.loads(raw.decode("utf-8")).get("about", {})
    except (ValueError, AttributeError):
        return {}
    if not isinstance(about, dict):
        return {}
    return {k: about[k][:ABOUT_MAX_CHARS] for k in ABOUT_FIELDS if isinstance(about.get(k), str)}


def records_to_csv(records: list[dict]) -> str:
    """Serialise records as CSV with a RECORD_FIELDS header (missing numbers are empty cells).

    Text cells are made safe for spreadsheets (:func:`selfattn.display.export.csv_safe`): a device name
    or error from an uploaded file such as ``=HYPERLINK(...)`` is written ``'=HYPERLINK(...)``, and
    :func:`load_results` takes the ``'`` off again. Numbers are written as they are. Lines end in
    ``\r\n`` (RFC 4180), so a text holding a lone ``\r`` is quoted instead of breaking its row.
    """
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=RECORD_FIELDS, lineterminator="\r\n")
    writer.writeheader()
    for r in records:
        writer.writerow({k: "" if r.get(k) is None else csv_safe(r.get(k)) for k in RECORD_FIELDS})
    return buf.getvalue()


def write_results(records: list[dict], path: str | Path, about: dict[str, str] | None = None) -> Path:
    """Write records to ``path``: CSV when it ends in .csv, JSON otherwise (with ``about``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(records_to_csv(records) if path.suffix.lower() == ".csv" else records_to_json(records, about),
                    encoding="utf-8")
    return path


_TEXT = {"impl": IMPLS, "device": DEVICES, "dtype": DTYPE_NAMES, "status": STATUSES,
         "device_name": None, "torch_version": None, "peak_mem_kind": None, "error_code": None, "error": None}
_INTS = ("heads", "head_dim", "batch", "seq_len", "d_model", "num_threads", "runs", "flops",
         "peak_mem_bytes", "est_mem_bytes")
_FLOATS = ("median_ms", "iqr_ms", "min_ms", "gflops")
_OPTIONAL = ("min_ms",)  # fields files written before them lack
REQUIRED_FIELDS = ("impl", "heads", "device", "device_name", "dtype", "batch", "seq_len", "d_model", "median_ms",
                   "iqr_ms", "gflops", "peak_mem_bytes", "torch_version", "num_threads", "status")
_AT_LEAST_ONE = ("heads", "head_dim", "batch", "seq_len", "d_model", "num_threads")
_MAX_TEXT = 300


_REASONS = {  # reason code (a param for translation) -> English
    "not_text": f"text of at most {_MAX_TEXT} characters expected", "not_allowed": "expected one of {allowed}",
    "not_number": "a number expected", "out_of_range": "out of range", "not_whole": "a whole number expected",
    "not_divisor": "does not divide d_model", "required_when_ok": 'a number is needed when status is "ok"',
}


def _bad(row: int, name: str, value: Any, reason: str, allowed: str = "") -> InputError:
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    why = _REASONS[reason].format(allowed=allowed)
    return InputError("results_bad_value", f"Row {row}: {name} = {shown} is not valid ({why}).",
                      row=row, field=name, value=shown, reason=reason, allowed=allowed, max_chars=_MAX_TEXT)


def _number(row: int, name: str, value: Any, from_csv: bool) -> int | float:
    """One numeric cell: finite, not negative, whole where the field counts things."""
    if from_csv:
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise _bad(row, name, value, "not_number") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _bad(row, name, value, "not_number")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError("results_not_finite", f"Row {row}: {name} is {value}; only finite numbers are allowed.",
                         row=row, field=name)
    if value < 0 or (name in _AT_LEAST_ONE and value < 1) or value > 1e18:
        raise _bad(row, name, value, "out_of_range")
    if name in _INTS:
        if value != int(value):
            raise _bad(row, name, value, "not_whole")
        return int(value)
    return float(value)


def _check_row(raw: Any, row: int, from_csv: bool) -> dict:
    """Validate one uploaded record and return it with every RECORD_FIELDS key, typed."""
    if not isinstance(raw, dict):
        raise InputError("results_structure", f"Row {row} is not an object of named fields.", row=row)
    for name in REQUIRED_FIELDS:
        if name not in raw:
            raise InputError("results_missing_field", f"Row {row} has no {name} field.", row=row, field=name)
    out: dict[str, Any] = {}
    for name in RECORD_FIELDS:
        value = raw.get(name)
        if from_csv and value == "":
            value = None
        if name in _TEXT:
            value = "" if value is None else value
            if from_csv and isinstance(value, str):
                value = from_csv_label(value)  # the ' that records_to_csv put before a formula-like text
            if not isinstance(value, str) or len(value) > _MAX_TEXT:
                raise _bad(row, name, value, "not_text")
            if _TEXT[name] is not None and value not in _TEXT[name]:
                raise _bad(row, name, value, "not_allowed", ", ".join(_TEXT[name]))
        elif value is not None:
            value = _number(row, name, value, from_csv)
        out[name] = value
    for name in ("heads", "batch", "seq_len", "d_model", "num_threads"):
        if out[name] is None:
            raise _bad(row, name, None, "not_number")
    if out["d_model"] % out["heads"]:
        raise _bad(row, "heads", out["heads"], "not_divisor")
    if out["head_dim"] is None:
        out["head_dim"] = out["d_model"] // out["heads"]
    if out["flops"] is None:
        out["flops"] = flop_count(out["batch"], out["seq_len"], out["d_model"])
    if out["status"] == "ok":
        for name in _FLOATS:
            if out[name] is None and name not in _OPTIONAL:
                raise _bad(row, name, None, "required_when_ok")
    return out


def _shape_error(what: str, value: int, limit: int) -> InputError:
    words = {"columns": f"has {value} columns; at most {limit} are read",
             "depth": f"nests {value} levels deep; a results file nests at most {limit}",
             "values": f"holds more than {limit} values; a results file of {RESULTS_MAX_ROWS} records holds fewer"}
    return InputError(f"results_too_many_{what}" if what != "depth" else "results_too_deep",
                      f"The file {words[what]}.", value=value, limit=limit, rows=RESULTS_MAX_ROWS)


def scan_results(data: bytes, suffix: str) -> None:
    """Refuse a results file beyond the page's shape before it is parsed, in time linear in its bytes.

    CSV: the csv module counts rows and cells (RESULTS_MAX_ROWS records, RESULTS_MAX_COLUMNS cells a row).
    JSON: brackets and commas are counted (RESULTS_MAX_VALUES), then the nesting followed through
    quotes and escapes (RESULTS_MAX_DEPTH), so ``json.loads`` only ever builds a small tree.

    Raises:
        InputError: results_too_many_rows, results_too_many_columns, results_too_many_values,
            results_too_deep. A file this scan lets through may still be refused by the parser.
    """
    if suffix == ".csv":
        try:
            lines = csv.reader(io.StringIO(data.decode("utf-8-sig", errors="replace"), newline=""))
            for count, row in enumerate(lines):
                if len(row) > RESULTS_MAX_COLUMNS:
                    raise _shape_error("columns", len(row), RESULTS_MAX_COLUMNS)
                if count > RESULTS_MAX_ROWS:  # the header and RESULTS_MAX_ROWS records, blank lines counted too
                    raise InputError("results_too_many_rows", f"The file has more than {RESULTS_MAX_ROWS} records.",
                                     rows=count, limit=RESULTS_MAX_ROWS)
        except csv.Error:
            return  # the parser says what is wrong, with its line
        return
    values = sum(data.count(ch) for ch in (b",", b"[", b"{"))
    texts = data.count(b'"') + data.count(b"\\")  # what the nesting scan below steps through besides brackets
    if values > RESULTS_MAX_VALUES or texts > 4 * RESULTS_MAX_VALUES:
        raise _shape_error("values", values, RESULTS_MAX_VALUES)
    depth = 0
    in_text = False
    for token in _JSON_TOKENS.findall(data):  # at most 5 x RESULTS_MAX_VALUES tokens
        if in_text:
            in_text = token != b'"'
        elif token == b'"':
            in_text = True
        elif token in (b"[", b"{"):
            depth += 1
            if depth > RESULTS_MAX_DEPTH:
                raise _shape_error("depth", depth, RESULTS_MAX_DEPTH)
        elif token in (b"]", b"}"):
            depth -= 1


def load_results(data: bytes | str, filename: str) -> list[dict]:
    """Parse and strictly validate an uploaded results file (as written by :func:`write_results`).

    Args:
        data: the file's bytes (UTF-8).
        filename: its name; ``.json`` or ``.csv`` decides the format.

    Returns:
        list of records with every RECORD_FIELDS key (missing optional fields are None or derived).

    Raises:
        InputError: results_too_big, results_format, results_encoding, those of :func:`scan_results`,
            results_bad_json,
            results_json_unreadable, results_not_records, results_bad_csv, results_csv_cells,
            results_structure, results_empty, results_too_many_rows, results_missing_field,
            results_bad_value, results_not_finite. Rows, lines and bytes are counted from 1.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    if len(data) > RESULTS_MAX_BYTES:
        raise InputError("results_too_big",
                         f"The file has {len(data)} bytes; at most {RESULTS_MAX_BYTES} are accepted.",
                         size=len(data), limit=RESULTS_MAX_BYTES)
    suffix = Path(str(filename)).suffix.lower()
    if suffix not in (".json", ".csv"):
        raise InputError("results_format", f"{filename!r} is neither a .json nor a .csv file.", filename=str(filename))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError("results_encoding", f"The file is not UTF-8 text (byte {exc.start + 1}).",
                         position=exc.start + 1) from None  # bytes counted from 1, like rows and lines
    scan_results(data, suffix)
    if suffix == ".json":
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError("results_bad_json", f"The file is not valid JSON: {exc.msg} (line {exc.lineno}).",
                             detail=exc.msg, line=exc.lineno) from None
        except (ValueError, RecursionError):  # a 5000-digit number, or brackets nested thousands deep
            raise InputError("results_json_unreadable", "The JSON nests too deeply or holds a number too long "
                             "to read.") from None
        rows = parsed.get("records") if isinstance(parsed, dict) else parsed
        if not isinstance(rows, list):
            raise InputError("results_not_records", 'The JSON must be a list of records or {"records": [...]}.')
    else:
        try:
            reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
            rows = []
            for row in reader:
                if None in row or None in row.values():
                    raise InputError("results_csv_cells",
                                     f"Row {len(rows) + 1} (line {reader.line_num}) has a different number of "
                                     "cells than the header.", row=len(rows) + 1, line=reader.line_num)
                rows.append(row)
                if len(rows) > RESULTS_MAX_ROWS:
                    break
        except csv.Error as exc:
            raise InputError("results_bad_csv", f"The file is not valid CSV: {exc}.", detail=str(exc),
                             line=reader.line_num) from None
    if not rows:
        raise InputError("results_empty", "The file holds no records.")
    if len(rows) > RESULTS_MAX_ROWS:
        raise InputError("results_too_many_rows", f"The file has more than {RESULTS_MAX_ROWS} records.",
                         rows=len(rows), limit=RESULTS_MAX_ROWS)
    return [_check_row(raw, i + 1, suffix == ".csv") for i, raw in enumerate(rows)]
