"""Playground state: the editable matrices, their data editors, resizing, presets and uploads.

The numbers live in ``st.session_state["pg"]`` as DataFrames, one per matrix, exactly as the
visitor last left them (bad cells included, so nothing typed is lost). Each data editor is
seeded from those frames; its key carries a version number that changes whenever the frames
are replaced from outside the editor (a preset, a resize, an upload), which resets the editor.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from selfattn.errors import InputError
from selfattn.export import column_names
from selfattn.grid import MAX_DIM, MAX_TOKENS, Sizes, frame_to_matrix, parse_labels, read_csv_matrix
from selfattn.presets import Example, preset
from ui.common import tr

STATE = "pg"
TOKEN_COL = "token"
MATRICES = ("x", "w_q", "w_k", "w_v")
BIASES = ("b_q", "b_k", "b_v")
NAMES = {"x": "X", "w_q": "W_q", "w_k": "W_k", "w_v": "W_v", "b_q": "b_q", "b_k": "b_k", "b_v": "b_v"}


@dataclass(frozen=True)
class Inputs:
    """Parsed, valid numbers ready for ``self_attention``."""

    tokens: list[str]
    x: np.ndarray
    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    b_q: np.ndarray
    b_k: np.ndarray
    b_v: np.ndarray


def cell_text(value) -> str:
    """A number as the editors show it: the shortest text that reads back as the same float.

    The editors hold text, not numbers, so that whatever a visitor types (``1e-3``, ``1,5``,
    ``abc``) reaches ``grid.parse_cell`` unchanged: it is read exactly or reported by name,
    never silently mangled by the browser's number input.
    """
    if isinstance(value, str):
        return value
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def _as_text(frames: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    return {name: frame.map(cell_text) for name, frame in frames.items()}


def _x_frame(tokens, x: np.ndarray) -> pd.DataFrame:
    frame = pd.DataFrame(x, columns=column_names("x", x.shape[1]))
    frame.insert(0, TOKEN_COL, list(tokens))
    return frame


def _w_frame(w: np.ndarray, prefix: str) -> pd.DataFrame:
    return pd.DataFrame(w, index=column_names("x", w.shape[0]), columns=column_names(prefix, w.shape[1]))


def _b_frame(b: np.ndarray, prefix: str, name: str) -> pd.DataFrame:
    return pd.DataFrame([b], index=[name], columns=column_names(prefix, len(b)))


PREFIX = {"w_q": "q", "w_k": "k", "w_v": "v", "b_q": "q", "b_k": "k", "b_v": "v"}


def frames_from_example(example: Example) -> dict[str, pd.DataFrame]:
    """Editor tables for every matrix of ``example`` (the tutorial's "Input i" labels translated)."""
    tokens = [tr("pg.input_label", i=t.split()[-1]) if t.startswith("Input ") else t for t in example.tokens]
    frames = {"x": _x_frame(tokens, example.x)}
    for name in ("w_q", "w_k", "w_v"):
        frames[name] = _w_frame(getattr(example, name), PREFIX[name])
    for name in BIASES:
        frames[name] = _b_frame(getattr(example, name), PREFIX[name], NAMES[name])
    return frames


def state() -> dict:
    """The Playground's state, created with the tutorial preset on first open."""
    if STATE not in st.session_state:
        example = preset("tutorial")
        st.session_state[STATE] = {"frames": _as_text(frames_from_example(example)), "version": 0,
                                   "good": None, "upload_seen": None, "notice": None}
        st.session_state["pg_scale"] = example.scale
    return st.session_state[STATE]


def editor_key(name: str) -> str:
    return f"ed_{name}_{state()['version']}"


def replace_frames(frames: dict[str, pd.DataFrame]) -> None:
    """Replace matrices from outside the editors (preset, resize, upload) and reset the editors."""
    pg = state()
    pg["frames"].update(_as_text(frames))
    pg["version"] += 1


def current_sizes() -> Sizes:
    frames = state()["frames"]
    return Sizes(n=len(frames["x"]), d_in=frames["x"].shape[1] - 1, d_k=frames["w_q"].shape[1],
                 d_v=frames["w_v"].shape[1])


def load_preset(name: str, seed: int) -> None:
    """Callback: load a preset (random uses the current sizes and the chosen seed)."""
    sizes = current_sizes()
    example = preset(name, seed=seed, n=sizes.n, d_in=sizes.d_in, d_k=sizes.d_k, d_v=sizes.d_v)
    replace_frames(frames_from_example(example))
    st.session_state["pg_scale"] = example.scale
    st.session_state["pg_causal"] = False
    st.session_state["pg_bias"] = False
    sync_size_widgets()


def sync_size_widgets() -> None:
    sizes = current_sizes()
    for field in ("n", "d_in", "d_k", "d_v"):
        st.session_state[f"pg_{field}"] = getattr(sizes, field)


def _reframe(frame: pd.DataFrame, index, columns) -> pd.DataFrame:
    """``frame`` cut or zero-padded to new labels, keeping every value that still fits."""
    return frame.reindex(index=index, columns=columns, fill_value="0")


def resize_to_widgets() -> None:
    """Callback: apply the size widgets, keeping the numbers that still fit."""
    frames = state()["frames"]
    n, d_in = st.session_state["pg_n"], st.session_state["pg_d_in"]
    d_k, d_v = st.session_state["pg_d_k"], st.session_state["pg_d_v"]
    x = frames["x"]
    tokens = list(x[TOKEN_COL])[:n] + [f"t{i + 1}" for i in range(len(x), n)]
    x_num = _reframe(x.drop(columns=[TOKEN_COL]).reset_index(drop=True), range(n), column_names("x", d_in))
    new = {"x": pd.concat([pd.DataFrame({TOKEN_COL: tokens}), x_num], axis=1)}
    rows = column_names("x", d_in)
    for name, width in (("w_q", d_k), ("w_k", d_k), ("w_v", d_v)):
        new[name] = _reframe(frames[name], rows, column_names(PREFIX[name], width))
    for name, width in (("b_q", d_k), ("b_k", d_k), ("b_v", d_v)):
        new[name] = _reframe(frames[name], [NAMES[name]], column_names(PREFIX[name], width))
    replace_frames(new)


def size_widgets() -> None:
    """Number inputs for n, d_in, d_k, d_v; a change resizes every matrix at once."""
    sizes = current_sizes()
    for field in ("n", "d_in", "d_k", "d_v"):
        st.session_state.setdefault(f"pg_{field}", getattr(sizes, field))
    cols = st.columns(4)
    limits = {"n": MAX_TOKENS, "d_in": MAX_DIM, "d_k": MAX_DIM, "d_v": MAX_DIM}
    for col, field in zip(cols, ("n", "d_in", "d_k", "d_v")):
        col.number_input(tr(f"pg.size_{field}"), min_value=1, max_value=limits[field], step=1,
                         key=f"pg_{field}", on_change=resize_to_widgets, help=tr(f"pg.size_{field}_help"))


def editor(name: str, *, height: int | str = "auto") -> pd.DataFrame:
    """Draw the data editor for one matrix and return its current (edited) table."""
    frames = state()["frames"]
    base = frames[name]
    config = {c: st.column_config.TextColumn(c, alignment="right", max_chars=40) for c in base.columns
              if c != TOKEN_COL}
    if name == "x":
        config[TOKEN_COL] = st.column_config.TextColumn(tr("pg.token_col"), max_chars=24, width="small")
    edited = st.data_editor(base, key=editor_key(name), num_rows="fixed", column_config=config,
                            hide_index=name == "x", height=height, width="content")
    frames[name] = edited  # keep exactly what was typed, so leaving the page loses nothing
    return edited


def parse_inputs(use_bias: bool) -> Inputs:
    """Every edited table as numbers, or InputError naming the matrix, row and column."""
    frames = state()["frames"]
    x_frame = frames["x"]
    tokens = parse_labels(list(x_frame[TOKEN_COL]), len(x_frame))
    x = frame_to_matrix(x_frame.drop(columns=[TOKEN_COL]), "X", [f"{i + 1} ({tok})" for i, tok in enumerate(tokens)])
    mats = {name: frame_to_matrix(frames[name], NAMES[name], list(frames[name].index))
            for name in ("w_q", "w_k", "w_v")}
    biases = {}
    for name in BIASES:
        width = frames[name].shape[1]
        biases[name] = (frame_to_matrix(frames[name], NAMES[name], [NAMES[name]])[0] if use_bias
                        else np.zeros(width))
    return Inputs(tokens=tokens, x=x, **mats, **biases)


def on_upload(uploader_key: str, target_key: str) -> None:
    """Callback of the CSV uploader: apply the file, or keep everything and say why not."""
    pg = state()
    upload = st.session_state.get(uploader_key)
    if upload is None:
        return
    try:
        apply_upload(st.session_state[target_key], upload.getvalue())
        pg["notice"] = ("success", "pg.upload_ok", {"name": upload.name})
    except InputError as exc:
        pg["notice"] = ("error", exc, {})


def apply_upload(target: str, data: bytes) -> None:
    """Replace one matrix with an uploaded CSV, or raise InputError and change nothing.

    X may bring any number of tokens (1-32) but must have d_in columns; a weight must be
    exactly (d_in, d_k) or (d_in, d_v).
    """
    sizes = current_sizes()
    if target == "x":
        values, labels = read_csv_matrix(data, "X", cols=sizes.d_in)
        tokens = labels or [f"t{i + 1}" for i in range(len(values))]
        frame = _x_frame(tokens, values)
        replace_frames({"x": frame})
    else:
        width = sizes.d_v if target == "w_v" else sizes.d_k
        values, _ = read_csv_matrix(data, NAMES[target], cols=width, rows=sizes.d_in)
        replace_frames({target: _w_frame(values, PREFIX[target])})
    sync_size_widgets()
