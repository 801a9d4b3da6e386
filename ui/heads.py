"""Helpers of the Heads & devices page: inputs, the PyTorch check, benchmark tables."""

from __future__ import annotations

import math
import unicodedata
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from selfattn import bench
from selfattn.charts import heatmap, heatmap_grid
from selfattn.errors import InputError
from selfattn.export import labelled
from selfattn.heads import MultiHeadTrace, multi_head_attention, multi_head_attention_with_mistake
from selfattn.presets import xavier
from ui.common import chart_words, csv_button, persist, tr, vega

MAX_N = 64  # tokens in the single-vs-multi comparison
D_CHOICES = (8, 16, 32, 64, 128)
SEQ_CHOICES = (32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)
MAX_HEADS = 16
MIN_RUN_TIME = 0.2  # seconds per timed configuration on the page (the CLI defaults to 1 s)
RESULTS_DIR = Path(__file__).resolve().parents[1] / "benchmarks" / "results"
BENCH_D_CHOICES = (64, 128, 256, 512, 1024, 2048)
BENCH_HEADS = (1, 2, 4, 8, 16)

# Chart sizes. A script cannot ask how wide a column is, so sizes are worked out for the
# narrowest window the page is laid out for (1280 px, sidebar open): every chart fits its
# column there, and wider windows only leave room to spare.
PAGE_PX = 800  # main column of a 1280 px window with the sidebar open (820 px measured)
EXPANDER_PX = 760  # inside an expander, whose border and padding take about 35 px
GAP_PX = 16  # between st.columns (gap="small")
FONT_PX = 10  # Vega's axis label size
LABEL_GAP_PX = 12  # least distance between two neighbouring axis labels
Y_LABEL_PX = 80  # longest row label drawn; longer ones end in "…" (the tooltip has them whole)
X_LABEL_PX = 60  # the same for column labels, which stand upright
CHART_PAD_PX = 24  # Vega's padding (5 + 5), ticks, label padding and some slack
GRID_SPACING_PX = 12  # between two panels of the head grid
ANNOTATE_MIN_CELL = 36  # print values only in cells that hold "0.0964" at 11 px
STROKE_MIN_CELL = 6  # in smaller cells the white outline would wash the colours out
SIDE_MIN_CELL = 20  # the one-head map sits beside the head grid while its cells are this big
STACKED_MAP_PX = 520  # cells of the one-head map on its own row span at most this


def input_matrix(source: str, seed: int, n: int | None, d_model: int | None, text: str):
    """The (n, d_model) input and its token labels: random, or a sentence's embedding vectors."""
    if source == "random":
        rng = np.random.default_rng(seed)
        return rng.standard_normal((int(n), int(d_model))), [f"t{i + 1}" for i in range(int(n))]
    from ui.embeddings import embeddings

    emb = embeddings(text, "auto", "static", None, None)
    x, tokens = emb.vectors[:MAX_N], emb.tokens[:MAX_N]
    return x, [f"{i + 1}·{t}" for i, t in enumerate(tokens)]


def head_choices(d_model: int) -> list[int]:
    """Head counts that divide d_model, up to MAX_HEADS."""
    return [h for h in range(1, MAX_HEADS + 1) if d_model % h == 0]


def random_weights(d_model: int, seed: int) -> dict[str, np.ndarray]:
    """Xavier-uniform W_q, W_k, W_v, W_o of shape (d_model, d_model), reproducible from ``seed``."""
    rng = np.random.default_rng(seed + 1)
    return {name: xavier(rng, d_model, d_model) for name in ("w_q", "w_k", "w_v", "w_o")}


def _args(x, weights):
    return x, weights["w_q"], weights["w_k"], weights["w_v"], weights["w_o"]


def compare(x, weights, num_heads: int, causal: bool) -> tuple[MultiHeadTrace, MultiHeadTrace]:
    """The same weights used as one head and as ``num_heads`` heads."""
    mask = "causal" if causal else None
    return (multi_head_attention(*_args(x, weights), 1, mask=mask),
            multi_head_attention(*_args(x, weights), num_heads, mask=mask))


def mistake(x, weights, num_heads: int, causal: bool, name: str) -> MultiHeadTrace:
    return multi_head_attention_with_mistake(*_args(x, weights), num_heads, mistake=name,
                                             mask="causal" if causal else None)


def torch_checks(x, weights, num_heads: int) -> dict[str, float]:
    """Max |ours − torch.nn.MultiheadAttention| (float64, same weights), without and with a causal mask."""
    import torch

    from selfattn.torch_attention import build_attention, set_projection_weights

    d_model = x.shape[1]
    module = build_attention("torch_mha", d_model, num_heads, bias=False, dtype=torch.float64)
    set_projection_weights(module, *(weights[k] for k in ("w_q", "w_k", "w_v", "w_o")))
    out = {}
    with torch.inference_mode():
        for name, causal in (("none", False), ("causal", True)):
            theirs = module(torch.as_tensor(x, dtype=torch.float64)[None], causal=causal)[0].numpy()
            ours = multi_head_attention(*_args(x, weights), num_heads, mask="causal" if causal else None).outputs
            out[name] = float(np.max(np.abs(ours - theirs)))
    return out


# ── Chart sizes ──────────────────────────────────────────────────────────────────────

def column_px(weights, total: float = PAGE_PX) -> list[float]:
    """Widths in pixels of ``st.columns(weights)`` in a block ``total`` px wide."""
    spare = total - GAP_PX * (len(weights) - 1)
    return [spare * w / sum(weights) for w in weights]


def text_px(text, font: float = FONT_PX) -> float:
    """Rough width of a label: wide (CJK) characters take a full em, others about 0.6 em."""
    return sum(font if unicodedata.east_asian_width(ch) in "WF" else 0.6 * font for ch in str(text))


def _row_label_px(labels) -> float:
    return min(Y_LABEL_PX, max((text_px(label) for label in labels), default=0.0))


def _cell(space: float, count: int, max_cell: float) -> int:
    """The largest cell (whole pixels, at least 1) such that ``count`` cells span at most ``space`` px.

    Whole pixels: cells at fractional positions leave light anti-aliased seams between them.
    """
    return max(1, math.floor(min(max_cell, space / max(count, 1))))


def label_stride(cell: int, need: float = LABEL_GAP_PX) -> int:
    """Label every k-th cell so that neighbouring labels are at least ``need`` px apart."""
    return max(1, math.ceil(need / cell))


def _legend_below(space: float, title: str) -> dict:
    """Vega-Lite config: a horizontal legend under the chart, no longer than ``space`` px."""
    length = max(40, min(180, space - text_px(title, 11) - 24))
    return {"legend": {"orient": "bottom", "direction": "horizontal", "titleOrient": "left",
                       "gradientLength": length, "titleLimit": 100}}


def fit_heatmap(matrix, row_labels, col_labels, width: float, *, max_cell: float = 46, value_title: str = "",
                **kwargs) -> dict:
    """A :func:`selfattn.charts.heatmap` that fits ``width`` pixels, legend underneath.

    Cells shrink with the number of columns; values are printed in the cells only while they
    fit; axis labels stand upright when they are wider than a cell and are thinned to every
    k-th once they would overlap (the tooltips still name every cell).

    Args:
        matrix: (rows, cols) numbers.
        width: the column's width in pixels (see :func:`column_px`).
        max_cell: the largest cell size in pixels.
        **kwargs: passed on to ``heatmap`` (scheme, domain, ...).

    Returns:
        The Vega-Lite spec; ``usermeta.fit_px`` records ``width`` for the tests.
    """
    words = chart_words()
    value_title = value_title or words["value"]
    rows, cols = np.shape(matrix)
    y_labels = _row_label_px(row_labels)
    cell = _cell(width - y_labels - CHART_PAD_PX, cols, max_cell)
    spec = heatmap(matrix, row_labels, col_labels, cell=cell, max_width=cell * cols,
                   annotate=None if cell >= ANNOTATE_MIN_CELL else False, value_title=value_title,
                   words=words, **kwargs)
    spec["width"] = spec["height"] = {"step": cell}  # heatmap() keeps cells of at least 8 px
    x_axis, y_axis = spec["encoding"]["x"]["axis"], spec["encoding"]["y"]["axis"]
    widest = max((text_px(label) for label in col_labels), default=0.0)
    if widest + 6 <= cell:
        x_axis["labelAngle"] = 0
    else:  # upright: nothing sticks out past the right edge, as slanted labels would
        x_axis.update(labelAngle=-90, labelLimit=X_LABEL_PX)
        _thin(x_axis, cols, cell)
    y_axis["labelLimit"] = Y_LABEL_PX
    _thin(y_axis, rows, cell)
    if cell < STROKE_MIN_CELL:
        spec["layer"][0]["mark"]["strokeWidth"] = 0
    spec["config"] = _legend_below(width - y_labels - CHART_PAD_PX, value_title)
    spec["usermeta"] = {"fit_px": width}
    return spec


def _thin(axis: dict, count: int, cell: int) -> None:
    stride = label_stride(cell)
    if stride > 1:
        axis["values"] = list(range(0, count, stride))


def grid_layout(panels: int, size: int, titles, width: float, *, max_cell: float = 18,
                max_columns: int = 4) -> tuple[int, int, float]:
    """Panels per row, cell size and spacing of a head grid that fits ``width`` pixels.

    Up to ``max_columns`` panels share a row; fewer when the panels' titles would not fit.

    Returns:
        (columns, cell, spacing) in panels and pixels.
    """
    header = max((text_px(title, 12) for title in titles), default=0.0)
    for columns in range(min(panels, max_columns), 0, -1):
        cell = _cell((width - CHART_PAD_PX - (columns - 1) * GRID_SPACING_PX) / columns, size, max_cell)
        spacing = max(GRID_SPACING_PX, header + 6 - size * cell)  # titles wider than a panel
        if columns * size * cell + (columns - 1) * spacing + CHART_PAD_PX <= width:
            return columns, cell, spacing
    return 1, _cell(width - CHART_PAD_PX, size, max_cell), GRID_SPACING_PX


def fit_grid(stack, row_labels, col_labels, titles, width: float, *, max_cell: float = 18) -> dict:
    """A :func:`selfattn.charts.heatmap_grid` of attention maps that fits ``width`` pixels.

    Args:
        stack: (panels, n, n) attention weights, one map per head.
        titles: (panels,) a title per map.
        width: the column's width in pixels.

    Returns:
        The Vega-Lite spec, legend underneath; ``usermeta.fit_px`` records ``width``.
    """
    panels, size, _ = np.shape(stack)
    columns, cell, spacing = grid_layout(panels, size, titles, width, max_cell=max_cell)
    words = chart_words()
    spec = heatmap_grid(stack, row_labels, col_labels, titles, columns=columns, cell=cell, words=words)
    spec["spacing"] = spacing
    spec["config"] = _legend_below(width - CHART_PAD_PX, words["weight"])
    spec["usermeta"] = {"fit_px": width}
    return spec


def compare_layout(tokens) -> tuple[list[int], float, float]:
    """How the one-head map and the head grid share the page.

    Returns:
        (column weights, map width, grid width) in pixels: ``[2, 3]`` side by side while the
        map keeps cells of at least SIDE_MIN_CELL px there, else ``[1]``: one above the other.
    """
    left, right = column_px([2, 3])
    labels = _row_label_px(tokens)
    if (left - labels - CHART_PAD_PX) / max(len(tokens), 1) >= SIDE_MIN_CELL:
        return [2, 3], left, right
    return [1], min(PAGE_PX, STACKED_MAP_PX + labels + CHART_PAD_PX), PAGE_PX


def show_map(title: str, matrix, row_labels, col_labels, *, key: str, width: float, **kwargs) -> pd.DataFrame:
    """One matrix: its name and shape, a heatmap that fits ``width`` px and a CSV download.

    Returns:
        The labelled DataFrame that was offered for download.
    """
    values = np.asarray(matrix, dtype=float)
    st.markdown(f"**{title}** &nbsp; `{' × '.join(str(s) for s in values.shape)}`")
    vega(fit_heatmap(values, row_labels, col_labels, width, **kwargs))
    frame = labelled(values, row_labels, col_labels)
    csv_button(frame, key, key=f"dl_{key}")
    return frame


# ── Benchmark ────────────────────────────────────────────────────────────────────────

def devices() -> list[str]:
    import torch

    return ["cpu", "cuda"] if torch.cuda.is_available() else ["cpu"]


def device_label(device: str) -> str:
    return f"{device.upper()} · {bench.device_name(device)}"


def _keep(key: str, default, options: list, *, multi: bool = False) -> None:
    """:func:`ui.common.persist` for a choice, dropping kept values the options no longer offer."""
    persist(key, default)
    value = st.session_state[key]
    if multi and any(v not in options for v in value):
        st.session_state[key] = [v for v in value if v in options]
    elif not multi and value not in options:
        st.session_state[key] = default if default in options else options[0]


def bench_settings(limits: dict) -> bench.BenchConfig:
    """The benchmark's widgets; their choices stay when the visitor leaves the page and comes back.

    Option names are language-independent (device names, numbers, implementation names), so a
    language switch keeps the selection.

    Args:
        limits: :func:`selfattn.bench.limits_for`, which bounds the choices offered.

    Returns:
        The sweep the widgets describe (validated when it runs).
    """
    f1, f2, f3, f4 = st.columns(4)
    choices = devices()
    _keep("hd_device", choices[0], choices)
    device = f1.selectbox(tr("hd.device"), choices, format_func=device_label, key="hd_device")
    _keep("hd_dtype", "float32", list(bench.DTYPES))
    dtype = f2.selectbox(tr("hd.dtype"), list(bench.DTYPES), key="hd_dtype", help=tr("hd.dtype_help"))
    max_batch = int(limits["max_batch"])
    persist("hd_batch", 1)
    st.session_state["hd_batch"] = min(max(int(st.session_state["hd_batch"]), 1), max_batch)
    batch = f3.number_input(tr("hd.batch"), 1, max_batch, key="hd_batch")
    d_choices = [d for d in BENCH_D_CHOICES if d <= limits["max_d_model"]]
    _keep("hd_bench_d", 512, d_choices)
    d_model = f4.selectbox(tr("hd.bench_d_model"), d_choices, key="hd_bench_d")
    # wrap=True: chips that do not fit go onto a second line instead of scrolling out of sight.
    g1, g2, g3 = st.columns([2, 3, 4])
    head_choices_ = [h for h in BENCH_HEADS if h <= limits["max_heads"]]
    _keep("hd_bench_heads", [1, 8], head_choices_, multi=True)
    heads = g1.multiselect(tr("hd.bench_heads"), head_choices_, key="hd_bench_heads", wrap=True)
    len_choices = [n for n in SEQ_CHOICES if n <= limits["max_seq_len"]]
    _keep("hd_bench_lens", [128, 256, 512], len_choices, multi=True)
    lens = g2.multiselect(tr("hd.bench_lens"), len_choices, key="hd_bench_lens", wrap=True)
    _keep("hd_bench_impls", list(bench.IMPLS), list(bench.IMPLS), multi=True)
    impls = g3.multiselect(tr("hd.bench_impls"), list(bench.IMPLS), key="hd_bench_impls", wrap=True)
    return bench.BenchConfig(device=device, dtype=dtype, batch=int(batch), seq_lens=tuple(sorted(lens)),
                             d_model=int(d_model), heads=tuple(sorted(heads)), impls=tuple(impls),
                             min_run_time=MIN_RUN_TIME)


def run_benchmark(config: bench.BenchConfig, progress) -> list[dict]:
    """Run a benchmark sweep; only one visitor's sweep runs at a time on a hosted demo."""
    with _bench_lock():
        return bench.run_benchmark(config, progress=progress)


@st.cache_resource(show_spinner=False)
def _bench_lock():
    import threading

    return threading.Lock()


@st.cache_resource(show_spinner=False)
def bundled_results() -> dict[str, list[dict]]:
    """The results files committed under benchmarks/results/, by file name (validated like uploads)."""
    out = {}
    for path in sorted(RESULTS_DIR.glob("*.json")):
        try:
            out[path.stem] = bench.load_results(path.read_bytes(), path.name)
        except (InputError, OSError):
            continue
    return out


RESULT_COLUMNS = ("source", "impl", "heads", "seq_len", "batch", "d_model", "dtype", "device_name", "median_ms",
                  "iqr_ms", "gflops", "peak_mem_bytes", "num_threads", "status", "error")


def column_title(field: str) -> str:
    """A record field's column header in the current language (exports keep the field names)."""
    return tr(f"hd.col_{field}")


def chart_field_titles() -> dict[str, str]:
    """Tooltip titles of :func:`selfattn.charts.benchmark_chart`, in the current language."""
    fields = ("source", "series", "device_name", "dtype", "batch", "d_model", "seq_len", "median_ms", "gflops",
              "peak_mem_bytes")
    return {field: column_title(field) for field in fields}


def results_table(records: list[dict]) -> pd.DataFrame:
    """The columns a reader compares, one row per run, with headers in the current language."""
    frame = pd.DataFrame(records)
    frame = frame[[c for c in RESULT_COLUMNS if c in frame.columns]]
    return frame.rename(columns={c: column_title(c) for c in frame.columns})


def ratio_table(records: list[dict]) -> pd.DataFrame:
    """naive/fused and fused/torch_mha time ratios, and naive/fused peak memory, per configuration."""
    rows = []
    for source in dict.fromkeys(r.get("source", "") for r in records):
        mine = [r for r in records if r.get("source", "") == source]
        naive = {(r["heads"], r["seq_len"]): r for r in bench.speed_ratios(mine, "naive", "fused")}
        mha = {(r["heads"], r["seq_len"]): r for r in bench.speed_ratios(mine, "fused", "torch_mha")}
        mem = {(r["impl"], r["heads"], r["seq_len"]): r.get("peak_mem_bytes") for r in mine if r["status"] == "ok"}
        for key in sorted(set(naive) | set(mha)):
            h, n = key
            m_naive, m_fused = mem.get(("naive", h, n)), mem.get(("fused", h, n))
            rows.append({
                column_title("source"): source, column_title("heads"): h, column_title("seq_len"): n,
                tr("hd.col_time_ratio", a="naive", b="fused"): naive[key]["ratio"] if key in naive else None,
                tr("hd.col_time_ratio", a="fused", b="torch_mha"): mha[key]["ratio"] if key in mha else None,
                tr("hd.col_mem_ratio"): (m_naive / m_fused) if m_naive and m_fused else None,
            })
    return pd.DataFrame(rows)
