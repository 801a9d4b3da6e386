"""Widgets and renderers every page uses. Pages stay thin by calling these."""

from __future__ import annotations

import zlib
from typing import Callable

import pandas as pd
import pyarrow as pa
import streamlit as st

from selfattn.display.charts import WORDS, level_titles
from selfattn.display.export import csv_bytes, to_csv
from selfattn.display.guard import short_name
from selfattn.errors import InputError
from selfattn.i18n import CATALOG, Markdown, escape_markdown, t_plain
from ui import state as settings
from ui.state import current_lang, tr  # the language helpers every page uses, here with the widgets

CANVAS_MIN_CELLS = 256  # charts with more cells are drawn on a canvas (docs/benchmarks.md, felt speed)


def tr_plain(key: str, **fmt) -> str:
    """The UI string ``key`` in the current language, unescaped: for places that are not markdown."""
    return t_plain(key, current_lang(), **fmt)


def tr_count(key: str, count: int, /, **fmt):
    """The UI string ``key``, or its singular ``<key>_one`` where ``count`` is 1 ("1 encoder layer", "2 encoder
    layers"); ``fmt`` names the count as the string does."""
    return tr(f"{key}_one" if count == 1 else key, **fmt)


def listed(names) -> str:
    """Short names one after another as the current language lists them: "a, b" in English, "a、b" in Chinese."""
    return tr_plain("common.names_sep").join(names)


def error_key(exc: InputError) -> str | None:
    """The catalog entry that explains ``exc``, or None when the catalog has none.

    A code whose wording depends on a ``reason`` or ``name`` parameter that is itself a code
    (``results_bad_value`` with reason ``not_allowed``, ``bench_empty`` with name ``seq_lens``)
    has one entry per value, ``err.<code>.<value>``, so no internal name reaches the page;
    ``err.<code>`` covers the rest.
    """
    for param in ("reason", "name"):
        key = f"err.{exc.code}.{exc.params.get(param)}"
        if key in CATALOG:
            return key
    return f"err.{exc.code}" if f"err.{exc.code}" in CATALOG else None


def error_text(exc: Exception) -> Markdown:
    """A bad-input error in the current language, from the catalog (see :func:`error_key`), as safe markdown."""
    key = error_key(exc) if isinstance(exc, InputError) else None
    if key is not None:
        try:
            return tr(key, **exc.params)
        except (KeyError, IndexError, ValueError):  # a message missing a parameter: fall back
            pass
    return escape_markdown(str(exc))  # the English message quotes what was typed


def show_error(exc: Exception, *, kept: bool = True) -> None:
    """Explain what is wrong in plain words, and say that the last good result is still shown."""
    message = error_text(exc)
    if kept:
        message += "\n\n" + tr("common.kept_last_good")
    st.error(message, icon=":material/error:")


def chart_words() -> dict:
    """Legend and tooltip words of the heatmaps, in the current language."""
    return {word: tr(f"chart.{word}") for word in WORDS}


def choice(widget: Callable, label: str, options, key: str, names: dict | None = None, *,
           on_pick: Callable[[object], None] | None = None, **kwargs):
    """A selectbox, radio or segmented control whose choice survives its option names changing.

    Streamlit maps the browser's answer back to an option through the name it displayed, so
    when the names change between runs (another language, a renamed token) the answer no
    longer maps and Streamlit hands back the bare name. The chosen option is therefore kept
    under ``key`` as a setting of ``ui.state`` (which also survives leaving the page); the
    widget's own key carries a fingerprint of the names, so new names make a fresh widget that
    starts at the kept option.

    Args:
        key: a setting of a page's table in ``ui.state`` (its default is the table's).
        on_pick: called after the visitor picks an option, with the option chosen before (the new
            choice is already under ``key``).

    Returns:
        The chosen option (always one of ``options``).
    """
    options = list(options)
    names = names if names is not None else {o: str(o) for o in options}
    current = settings.keep(key, options)
    fingerprint = zlib.crc32("\x1f".join(names[o] for o in options).encode("utf-8"))
    widget_key = f"{key}__{fingerprint:08x}"
    # Note the widget key for settings.put, which sets every box showing this setting; the
    # ones Streamlit has dropped (not drawn, older names) are forgotten, so the list stays short.
    made = st.session_state.setdefault(settings.CHOICE_WIDGETS, {})
    made[key] = [k for k in made.get(key, ()) if k != widget_key and k in st.session_state] + [widget_key]

    def picked() -> None:
        value = st.session_state.get(widget_key)
        if value in options:
            before = st.session_state.get(key)
            settings.put(key, value)
            if on_pick is not None:
                on_pick(before)

    if widget is st.segmented_control or getattr(widget, "__name__", "") == "segmented_control":
        kwargs.update(default=None if widget_key in st.session_state else current, required=True)
    else:
        kwargs.update(index=None if widget_key in st.session_state else options.index(current))
    if widget is st.selectbox or getattr(widget, "__name__", "") == "selectbox":
        kwargs.setdefault("placeholder", tr("common.choose_one"))  # shown while the visitor types to filter
    widget(label, options, format_func=names.__getitem__, key=widget_key, on_change=picked, **kwargs)
    return st.session_state[key]


def worked_lines(lines: list[str]) -> None:
    """Lines of arithmetic worked out (a step's sums, a LayerNorm's, a batch's rows): plain text, never markdown (token
    labels are visitor text), drawn in a code-like box (ui/projector.py's style sheet), wrapped at the column's width.
    Not ``st.code``: it loads Streamlit's code highlighter into the page, 0.3-0.4 s of a visitor's CPU on each load
    of the Playground, the block and the Encoder–decoder pages (docs/benchmarks.md). (Streamlit strips the text and
    takes off an indent every line shares; no line here begins with a space.)"""
    st.text("\n".join(lines), width="stretch")


def folded(label: str, key: str, *, icon: str | None = None, opened: bool = False):
    """A collapsed expander whose body runs only while it is open: the caller draws into it when ``.open`` (a click
    on its header reruns the page, or the fragment it sits in). Closed, it costs an open its header alone, not the
    widgets, tables and files inside (issue 52: only what a visitor opens runs).

    It stays as the visitor left it (kept in ``settings.FOLDED``): its label is in the visitor's language, and
    Streamlit makes a relabelled expander anew, closed. ``opened``: how it starts (a link naming what is inside)."""
    kept = st.session_state.get(settings.FOLDED, {})
    st.session_state[key] = kept.get(key, opened)  # before the widget is made, as the visitor left it
    return st.expander(label, key=key, icon=icon, on_change=_keep_folded, args=(key,))


def _keep_folded(key: str) -> None:
    """Callback of a folded box: keep whether it is open."""
    st.session_state.setdefault(settings.FOLDED, {})[key] = bool(st.session_state.get(key))


def csv_button(frame: pd.DataFrame | Callable[[], pd.DataFrame], file_name: str, key: str,
               label: str | None = None) -> None:
    """A download button for one table as CSV (labels in the first column), UTF-8 after a byte-order mark.

    The CSV text is written when the button is clicked, not on every rerun: a page offers
    dozens of tables, and writing them all each time cost more than drawing the page. For the
    same reason ``frame`` may be a function that builds the table then.
    """
    st.download_button(label or tr("common.download_csv"),
                       lambda: csv_bytes(to_csv(frame() if callable(frame) else frame)),
                       file_name=f"{file_name}.csv", mime="text/csv", key=key, on_click="ignore",
                       icon=":material/download:")


def vega(spec: dict, *, key: str | None = None, on_select: Callable[[], None] | None = None,
         selection: str | None = None) -> None:
    """Draw a Vega-Lite spec from :mod:`selfattn.display.charts` at its own size, or narrower in a narrow column.

    A spec from :mod:`ui.map_sizes` carries its natural width in ``usermeta.width_px``: Streamlit
    draws a chart given a width in pixels no wider than its column, and the spec's
    ``autosize: fit-x`` narrows the cells to match. (``width="content"`` would let the chart
    run past its column.) The cells go to Streamlit as an Arrow table built straight from
    the spec's list of records: handing Streamlit the list costs a trip through pandas,
    2-4 ms per chart.

    Args:
        key, on_select, selection: for a chart whose selection parameter ``selection`` comes back
            to the server (a click that picks something): its widget key and callback.
    """
    spec = level_titles(spec)  # a Chinese title of a vertical axis level, not on its side
    values = spec.pop("data")["values"]
    width = spec.get("usermeta", {}).get("width_px", "content")
    if len(values) > CANVAS_MIN_CELLS and not drawn_as_lines(spec):  # one canvas draws faster than thousands of
        # SVG nodes; a line of any length is one (and an SVG chart's legend and titles can be checked in a browser)
        spec["usermeta"] = {**spec.get("usermeta", {}), "embedOptions": {"renderer": "canvas"}}
    if on_select is None:
        st.vega_lite_chart(pa.Table.from_pylist(values), spec, width=width, theme=None)
    else:  # a chart that sends its selection ``selection`` back (under ``key``), which ``on_select`` reads
        st.vega_lite_chart(pa.Table.from_pylist(values), spec, width=width, theme=None, key=key,
                           on_select=on_select, selection_mode=selection)


def drawn_as_lines(spec: dict) -> bool:
    """Whether every mark of ``spec`` is a line (its top-level mark, or each layer's): a few SVG nodes however many
    points."""
    marks = [view.get("mark") for view in spec.get("layer", [spec])]
    return bool(marks) and all((m.get("type") if isinstance(m, dict) else m) in ("line", "rule") for m in marks)


def arrow_bytes(table: pa.Table) -> bytes:
    """A table as Arrow IPC stream bytes, the form Streamlit sends a chart's data in (its records are scalars: no
    list column for the browser's Arrow to refuse)."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def arrow_datasets(spec: dict) -> dict:
    """``spec`` with its records as Arrow IPC bytes, which Streamlit sends as they are: each named dataset (Altair
    writes a chart's records into ``datasets``), and top-level ``data.values`` as a dataset of its own. Handed records,
    Streamlit builds a pandas DataFrame and converts that (12 % of an open of Heads & devices under 40 visitors, in
    py-spy; docs/benchmarks.md)."""
    datasets = dict(spec.get("datasets") or {})
    values = (spec.get("data") or {}).get("values")
    if isinstance(values, list) and values and all(isinstance(row, dict) for row in values):
        datasets["selfattn_values"] = values
        spec = {**spec, "data": {"name": "selfattn_values"}}
    if not datasets:
        return spec
    return {**spec, "datasets": {name: rows if isinstance(rows, bytes) else
                                 arrow_bytes(pa.Table.from_pylist(rows))
                                 for name, rows in datasets.items()}}


def uploaded(value) -> tuple[str, bytes] | None:
    """An uploader's file as (name, bytes), its name shortened (:func:`selfattn.display.guard.short_name`);
    None when there is none.

    Raises:
        InputError: ``upload_gone``: the uploader names a file the server no longer holds (a
            crafted message, or one dropped to keep the session within its bounds, ui/server_limits.py).
    """
    if value is None:
        return None
    if not hasattr(value, "getvalue") or not hasattr(value, "name"):  # Streamlit's DeletedFile
        raise InputError("upload_gone", "The uploaded file is no longer on the server; please upload it again.")
    return short_name(value.name), value.getvalue()
