"""Helpers of the Heads & devices page: inputs, the PyTorch check, what the maps may send, benchmark tables."""

from __future__ import annotations

import functools
import math
import time

import numpy as np
import pandas as pd
import streamlit as st

from selfattn import bench
from selfattn.bench import guard, summary
from selfattn.bench.choices import (BENCH_D_CHOICES, BENCH_HEADS, D_CHOICES, MAX_HEADS, MAX_N,  # noqa: F401
                                    RESULTS_DIR, SEQ_CHOICES, bench_choices, bundled_results, devices)
from selfattn.core.heads import (MultiHeadTrace, multi_head_attention, multi_head_attention_with_mistake,
                                 weight_row_sums)
from selfattn.core.presets import xavier
from selfattn.display.charts import benchmark_chart
from selfattn.display.export import column_names, labelled
from selfattn.display.units import memory_text
from selfattn.errors import InputError
from selfattn.i18n import Markdown
from selfattn.hosting import is_hosted
from ui import fit, server_limits
from ui import state as settings
from ui.common import csv_button, tr, tr_plain, vega

MAX_TEXT = 200  # characters of the sentence box
MIN_RUN_TIME = 0.2  # seconds per timed configuration on the page (the CLI defaults to 1 s; hosted: its limit)
WARMUP = 3  # untimed calls before a run (hosted: its limit)
CPU_THREADS = 1  # the page times CPU runs on one thread: two sweeps back to back agree on a busy machine


def input_matrix(source: str, seed: int, n: int | None, d_model: int | None, text: str):
    """The (n, d_model) input and its token labels: random, or a sentence's embedding vectors."""
    if source == "random":
        # Within the widgets' limits whatever the browser sent (ui.guard has checked them too).
        n = min(max(int(n), 1), MAX_N)
        d_model = int(d_model) if d_model in D_CHOICES else D_CHOICES[0]
        rng = np.random.default_rng(min(max(int(seed), 0), settings.MAX_SEED))
        return rng.standard_normal((n, d_model)), [f"t{i + 1}" for i in range(n)]
    from ui.embeddings import embeddings

    emb = embeddings(str(text)[:MAX_TEXT], "auto", "static", None, None)
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


# ── Words and formulas taken from the state they describe ────────────────────────────

def _mask_tex(causal: bool) -> Markdown:
    return tr("hd.tex_mask") if causal else Markdown("")


def attention_tex(d_k: int, causal: bool) -> Markdown:
    """softmax(QKᵀ/√d_k [+ M]) in KaTeX, with this d_k and the mask term only while the causal mask is on."""
    return tr("hd.tex_attention", dk=int(d_k), mask=_mask_tex(causal))


def _shared_domain(*matrices) -> tuple[float, float]:
    """One colour scale for maps meant to be compared: one colour, one number."""
    values = np.concatenate([np.asarray(m, dtype=float).ravel() for m in matrices])
    return float(values.min()), float(values.max())


def show_bare_reshape(right: MultiHeadTrace, wrong: MultiHeadTrace, tokens, n: int, d_model: int) -> None:
    """Mistake 1: the right and the wrong outputs on one colour scale, and their difference."""
    h, hdim = right.num_heads, right.head_dim
    st.markdown(tr("hd.mistake_bare_reshape_explain", n=n, d=d_model, h=h, hd=hdim))
    if h == 1 or n == 1:
        st.info(tr("hd.mistake_same_heads" if h == 1 else "hd.mistake_same_tokens"))
    diff = wrong.outputs - right.outputs
    st.metric(tr("hd.mistake_diff"), f"{np.max(np.abs(diff)):.3g}")
    spread = float(np.max(np.abs(diff))) or 1.0
    shared = _shared_domain(right.outputs, wrong.outputs)
    outs = column_names("o", d_model)
    (a, b, c), third_px = fit.side_by_side(3, d_model, tokens, fit.EXPANDER_PX)
    budget = draw_budget("mistake")
    with a:
        show_part(tr("hd.right_output"), right.outputs, tokens, outs, key="hd_right_bare_reshape", width=third_px,
                  budget=budget, domain=shared)
    with b:
        show_part(tr("hd.wrong_output"), wrong.outputs, tokens, outs, key="hd_wrong_bare_reshape", width=third_px,
                  budget=budget, domain=shared)
    with c:
        show_part(tr("hd.difference"), diff, tokens, outs, key="hd_diff_bare_reshape", width=third_px,
                  budget=budget, role="signed", domain=(-spread, spread))


def show_scale_after_softmax(right: MultiHeadTrace, wrong: MultiHeadTrace, tokens, causal: bool) -> None:
    """Mistake 2: head 1's weights, right and wrong, on one 0–1 scale, and their row sums (computed here)."""
    h, hdim = right.num_heads, right.head_dim
    st.markdown(tr("hd.mistake_scale_after_softmax_explain", hd=hdim, root=f"{math.sqrt(hdim):.4g}",
                   right=attention_tex(hdim, causal),
                   wrong=tr("hd.tex_wrong", dk=hdim, mask=_mask_tex(causal))))
    diff = wrong.outputs - right.outputs
    st.metric(tr("hd.mistake_diff"), f"{np.max(np.abs(diff)):.3g}")
    sums = {"right": weight_row_sums(right), "wrong": weight_row_sums(wrong)}  # (h, n) each
    st.caption(tr("hd.row_sums_range", h=h, **{f"{which}_{end}": f"{fn(sums[which]):.6g}"
                                              for which in sums for end, fn in (("lo", np.min), ("hi", np.max))}))
    names = [tr_plain("hd.right"), tr_plain("hd.wrong")]
    table = np.stack([sums["right"][0], sums["wrong"][0]], axis=1)  # (n, 2): head 1's row sums
    (a, b, c), third_px = fit.side_by_side(3, len(tokens), tokens, fit.EXPANDER_PX)
    budget = draw_budget("mistake")
    weight_title = tr("chart.weight")
    for block, which, trace in ((a, "hd.right", right), (b, "hd.wrong", wrong)):
        with block:
            show_part(tr("hd.weights_of", which=tr(which)), trace.head_weights[0], tokens, tokens,
                      key=f"hd_{which[3:]}_scale_after_softmax", width=third_px, budget=budget, role="weights",
                      domain=(0.0, 1.0), value_title=weight_title)
    with c:
        # Sums, not weights (the right ones may be 1 + 2e-16): the values' colours, from 0, both columns on one scale.
        show_part(tr("hd.row_sums"), table, tokens, names, key="hd_sums_scale_after_softmax", width=third_px,
                  budget=budget, domain=(0.0, max(1.0, float(table.max()))))


# ── What one page run may send and draw ──────────────────────────────────────────────
# Bytes one cell of a map costs on the websocket, besides its row and column labels (the Arrow
# records of selfattn.display.charts, measured: heatmap 61, head grid 110), and what the maps of
# one run may take, by part. Hosted, a page run sends at most ~1.8 MB (docs/reliability.md); the
# browser draws that in about a second. Locally twice that: bounded, and still drawn quickly.
CELL_BYTES = {"map": 64, "grid": 112}
DRAW_BYTES = {"one": 300_000, "grid": 1_000_000, "matrix": 90_000, "mistake": 45_000}  # hosted; local x2


def draw_budget(part: str) -> int:
    """Bytes the maps of ``part`` (a key of DRAW_BYTES, per map) may send in one run."""
    return DRAW_BYTES[part] * (1 if is_hosted() else 2)


def _label_bytes(labels) -> int:
    return sum(len(str(label).encode("utf-8")) for label in labels)


def fit_block(row_labels, col_labels, budget: int, kind: str = "map") -> tuple[int, int]:
    """The top-left block (rows, columns) of a map with these labels that costs at most ``budget`` bytes.

    Every row is kept while one column fits (the rows are tokens, which the mistakes mix); then
    as many columns as fit, at least one.
    """
    rows, cols = len(row_labels), len(col_labels)
    per_cell = CELL_BYTES[kind] + _label_bytes(row_labels) / max(rows, 1) + _label_bytes(col_labels) / max(cols, 1)
    cells = max(1, int(budget // per_cell))
    c = min(cols, max(1, cells // max(rows, 1)))
    return min(rows, max(1, cells // c)), c


def heads_shown(num_heads: int, tokens) -> int:
    """How many of the heads' maps the head grid draws within its budget (at least one)."""
    n = len(tokens)
    per_head = n * n * CELL_BYTES["grid"] + 2 * n * _label_bytes(tokens)
    return min(num_heads, max(1, draw_budget("grid") // max(per_head, 1)))


def part_note(rows: int, cols: int, shape: tuple[int, int]) -> str:
    """The words under a map drawn in part: what is shown, and that the CSV has everything ("" if whole)."""
    if (rows, cols) == tuple(shape):
        return ""
    return tr("hd.shown_block", r=rows, rows=shape[0], c=cols, cols=shape[1])


def show_part(title: str, matrix, row_labels, col_labels, *, key: str, width: float, budget: int, **kwargs) -> None:
    """:func:`ui.fit.show_map` within ``budget`` bytes: its top-left block, the shape and the CSV of all of it."""
    values = np.asarray(matrix, dtype=float)
    rows, cols = fit_block(row_labels, col_labels, budget)
    fit.map_header(title, values.shape, part_note(rows, cols, values.shape))
    vega(fit.fit_heatmap(values[:rows, :cols], list(row_labels)[:rows], list(col_labels)[:cols], width, **kwargs))
    csv_button(functools.partial(labelled, values, list(row_labels), list(col_labels)), key, key=f"dl_{key}")


def heads_frame(head_weights, tokens, titles) -> pd.DataFrame:
    """Every head's weights in one table: a row per (head, query token), a column per key token."""
    stack = np.asarray(head_weights, dtype=float)  # (h, n, n)
    rows = [f"{title} · {token}" for title in titles for token in tokens]
    return labelled(stack.reshape(-1, stack.shape[-1]), rows, list(tokens))


def torch_checks(x, weights, num_heads: int) -> dict[str, float]:
    """Max |ours − torch.nn.MultiheadAttention| (float64, same weights), without and with a causal mask."""
    import torch

    from selfattn.core.torch_attention import build_attention, set_projection_weights

    bench.limit_threads()  # hosted: one core per computation, like the benchmark's
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


# ── Benchmark ────────────────────────────────────────────────────────────────────────

def device_label(device: str) -> str:
    """The device box's short name (CPU, GPU), which fits the box; the caption under it names the machine."""
    return tr_plain(f"hd.device_{device}") if device in bench.DEVICES else str(device)


def impl_name(impl: str) -> str:
    """An implementation's name in the current language (files and links keep the ids naive, fused, torch_mha)."""
    return tr_plain(f"hd.impl_{impl}") if impl in bench.IMPLS else str(impl)


def run_threads(config: bench.BenchConfig, limits: dict) -> int:
    """The CPU threads a sweep of ``config`` computes on (what bench.run_benchmark will set)."""
    import torch

    return limits["threads"] or (config.threads if config.device == "cpu" and config.threads else
                                 torch.get_num_threads())


def device_caption(config: bench.BenchConfig, limits: dict) -> Markdown:
    """What the runs will run on, from the chosen device and precision: the machine's name and its threads."""
    return tr("hd.device_caption", name=bench.device_name(config.device), threads=run_threads(config, limits),
              dtype=config.dtype)


def method_caption(config: bench.BenchConfig, limits: dict) -> Markdown:
    """How the visitor's runs are timed, from the sweep's own settings."""
    return tr("hd.bench_method", warmup=config.warmup, rounds=bench.ROUNDS, ms=round(config.min_run_time * 1000),
              threads=run_threads(config, limits))


def limits_caption(limits: dict) -> str:
    """The limits the choosers really offer, in words (not the core's looser sanity bounds)."""
    offer = bench_choices(limits)
    every = len(offer["heads"]) * len(offer["seq_len"]) * len(offer["impls"])  # runs when everything is chosen
    return tr("hd.bench_limits", n=max(offer["seq_len"]), d=max(offer["d_model"]), heads=max(offer["heads"]),
              batch=offer["batch"], runs=min(int(limits["max_runs"]), every))


def progress_text(done: int, total: int, label: str) -> str:
    """The progress bar's words for ``bench.run_benchmark``'s callback: the run starting now, counted from 1."""
    if done >= total:
        return tr("hd.bench_finished", total=total)
    impl, _, sizes = label.partition(" ")  # "naive h=1 n=256": the implementation named in the page's language
    return tr("hd.bench_progress", run=done + 1, total=total, label=f"{impl_name(impl)} {sizes}".strip())


def bench_settings(limits: dict) -> bench.BenchConfig:
    """The benchmark's widgets; their choices stay when the visitor leaves the page and comes back.

    Option names are language-independent (device names, numbers, implementation names), so a
    language switch keeps the selection.

    Args:
        limits: :func:`selfattn.bench.limits_for`, which bounds the choices offered.

    Returns:
        The sweep the widgets describe (validated when it runs).
    """
    offer = bench_choices(limits)
    one, some = tr("common.choose_one"), tr("hd.bench_placeholder")  # Streamlit's own are English
    # Three rows, each box wide enough for its whole value at 1024 and 768 px in both languages.
    f1, f2, f3, f4 = st.columns(4)
    choices = devices()
    settings.keep("hd_device", choices)
    device = f1.selectbox(tr("hd.device"), choices, format_func=device_label, key="hd_device", placeholder=one)
    settings.keep("hd_dtype", list(bench.DTYPES))
    dtype = f2.selectbox(tr("hd.dtype"), list(bench.DTYPES), key="hd_dtype", help=tr("hd.dtype_help"),
                         placeholder=one)
    max_batch = offer["batch"]
    settings.keep("hd_batch", range(1, max_batch + 1))
    batch = f3.number_input(tr("hd.batch"), 1, max_batch, key="hd_batch")
    d_choices = offer["d_model"]
    settings.keep("hd_bench_d", d_choices)
    d_model = f4.selectbox(tr("hd.bench_d_model"), d_choices, key="hd_bench_d", placeholder=one)
    # wrap=True: chips that do not fit go onto a second line instead of scrolling out of sight.
    g1, g2 = st.columns([2, 3])
    head_choices_ = offer["heads"]
    settings.keep("hd_bench_heads", head_choices_)
    heads = g1.multiselect(tr("hd.bench_heads"), head_choices_, key="hd_bench_heads", wrap=True, placeholder=some)
    len_choices = offer["seq_len"]
    settings.keep("hd_bench_lens", len_choices)
    lens = g2.multiselect(tr("hd.bench_lens"), len_choices, key="hd_bench_lens", wrap=True, placeholder=some)
    settings.keep("hd_bench_impls", offer["impls"])
    impls = st.multiselect(tr("hd.bench_impls"), offer["impls"], format_func=impl_name, key="hd_bench_impls",
                           wrap=True, placeholder=some)
    # Only what was offered, once each, whatever a crafted message said (validate_config checks the rest).
    offered = lambda values, options: tuple(dict.fromkeys(v for v in values if v in options))  # noqa: E731
    return bench.BenchConfig(device=device if device in choices else choices[0],
                             dtype=dtype if dtype in bench.DTYPES else "float32",
                             batch=min(max(int(batch), 1), max_batch) if isinstance(batch, (int, float)) else 1,
                             seq_lens=tuple(sorted(offered(lens, len_choices))),
                             d_model=int(d_model) if d_model in d_choices else min(d_choices),
                             heads=tuple(sorted(offered(heads, head_choices_))), impls=offered(impls, offer["impls"]),
                             warmup=min(WARMUP, limits["max_warmup"]),
                             min_run_time=min(MIN_RUN_TIME, limits["max_min_run_time"]), threads=CPU_THREADS)


def run_benchmark(config: bench.BenchConfig, progress) -> list[dict]:
    """Run a benchmark sweep, if this server may: one sweep at a time for every replica, and on a
    hosted demo a cooldown per visitor and a cost known before it starts.

    Raises:
        InputError: ``bench_cooldown`` (this visitor ran one less than ``cooldown_s`` ago),
            ``bench_cost`` (the sweep's estimate is over the budget), ``bench_busy`` (another
            sweep holds the lock), and those of :func:`selfattn.bench.validate_config`.
    """
    limits = bench.limits_for()
    bench.validate_config(config)
    expected = bench.check_cost(config)
    session = _session_id()
    last = _finished_at().get(session)
    wait = limits["cooldown_s"] - (time.monotonic() - last) if last is not None else 0
    if wait > 0:
        raise InputError("bench_cooldown", f"You ran a benchmark moments ago; you can run again in "
                         f"{math.ceil(wait)} s.", wait_s=math.ceil(wait), cooldown_s=limits["cooldown_s"])
    # the sweep has its own bounds (one at a time for all replicas, its CPU and memory): while it runs, the
    # process's other heavy views go on (ui/server_limits.py)
    with guard.one_sweep_at_a_time(expected), guard.MemoryWatch() as memory, server_limits.outside_heavy_turn():
        try:
            return bench.run_benchmark(config, progress=progress, memory=memory)
        finally:
            _note_finished(session, limits["cooldown_s"])


def _session_id() -> str:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else ""


@st.cache_resource(show_spinner=False)
def _finished_at() -> dict[str, float]:
    """When each visitor's last sweep ended (``time.monotonic``), by session; only the last cooldown's."""
    return {}


def _note_finished(session: str, cooldown_s: float) -> None:
    finished, now = _finished_at(), time.monotonic()
    for old in [s for s, at in list(finished.items()) if now - at >= cooldown_s]:  # forget what no longer counts
        finished.pop(old, None)
    if cooldown_s > 0:
        finished[session] = now


@st.cache_resource(show_spinner=False)
def bundled_about() -> dict[str, dict[str, str]]:
    """Where and when each bundled results file was measured (its ``about``), by file name."""
    return {name: bench.read_about((RESULTS_DIR / f"{name}.json").read_bytes()) for name in bundled_results()}


def _values(records: list[dict], field: str) -> str:
    return ", ".join(str(v) for v in sorted({r[field] for r in records if r.get(field) is not None}))


def bundled_label(name: str) -> str:
    """A bundled file's name on the page, from its records: the machine and precision it was measured with."""
    records = bundled_results().get(name) or [{}]
    return tr_plain("hd.bundled_name", device=records[0].get("device_name", name), dtype=records[0].get("dtype", ""))


def bundled_caption(name: str) -> Markdown:
    """What a bundled file holds, from its records and its ``about``: machine, date and the sweep's settings."""
    records, about = bundled_results()[name], bundled_about().get(name, {})
    return tr("hd.bundled_about", name=bundled_label(name), date=about.get("measured", "?")[:10],
              machine=about.get("machine", _values(records, "device_name")), dtype=_values(records, "dtype"),
              batch=_values(records, "batch"), d_model=_values(records, "d_model"), heads=_values(records, "heads"),
              lens=_values(records, "seq_len"), torch=_values(records, "torch_version"),
              threads=_values(records, "num_threads"))


def results_chart(records: list[dict], field: str, title: str) -> dict:
    """:func:`selfattn.display.charts.benchmark_chart` of one setup in the current language.

    Implementations are named in the current language in the legend (the records keep their ids), in
    the page's order (three steps, fused, PyTorch).
    """
    named = [{**r, "impl": impl_name(r["impl"])} for r in records]
    chart = benchmark_chart(named, y=field, y_title=title, x_title=tr_plain("hd.axis_n"),
                            series_title=column_title("series"), field_titles=chart_field_titles(),
                            impls=tuple(impl_name(i) for i in bench.IMPLS))
    # fit-x: the height is the plot's own, so the legend underneath adds to it instead of squeezing it.
    return {**chart, "autosize": {"type": "fit-x", "contains": "padding"}}


@st.cache_resource(show_spinner=False)
def bundled_sdpa() -> dict[str, summary.SdpaRun]:
    """The SDPA backend measurements committed under benchmarks/results/ (``*sdpa-backends.txt``), by file path."""
    out = {}
    for path in sorted(RESULTS_DIR.glob("*sdpa-backends.txt")):
        try:
            out[str(path.relative_to(RESULTS_DIR.parents[1]))] = summary.read_sdpa_file(path)
        except (OSError, ValueError):
            continue
    return out


def sentence_text(sentence: summary.Sentence) -> Markdown:
    """A summary sentence in the current language: implementations and backends named in it."""
    params = dict(sentence.params)
    if "backend" in params:
        params["backend"] = backend_name(params["backend"])
    if "refused" in params:
        params["refused"] = ", ".join(backend_name(b) for b in params["refused"]) or tr_plain("hd.backend_none")
    return tr(sentence.key, **params)


def backend_name(backend: str) -> str:
    """An SDPA backend's name (flash, cudnn, efficient) as the page writes it."""
    return tr_plain(f"hd.backend_{backend}") if backend in ("flash", "cudnn", "efficient") else str(backend)


def setup_title(setup: summary.Setup, heads: tuple[int, ...] | None = None) -> Markdown:
    """A chart's heading: the results, the machine and the sizes it was timed at (and its heads, when split)."""
    if setup.device_name in setup.source:  # a bundled file's name says its machine and precision already
        title = tr("hd.setup_sizes", source=setup.source, batch=setup.batch, d_model=setup.d_model)
    else:
        title = tr("hd.setup_source", source=setup.source, title=tr(
            "hd.setup_title", device=setup.device_name, dtype=setup.dtype, batch=setup.batch, d_model=setup.d_model))
    return tr("hd.setup_heads", title=title, heads=", ".join(map(str, heads))) if heads else title


MAX_CHARTS = 6  # (setup, heads) pairs drawn, each a time and a memory chart; the table holds every record


def show_setups(records: list[dict]) -> None:
    """Per machine and sizes: its heading, what its runs show in two to four sentences, its time and memory charts
    (at most six lines each: more head counts go on charts of their own), for the first MAX_CHARTS of them."""
    planned, total = summary.chart_plan(records, MAX_CHARTS)
    if total > len(planned):
        st.caption(tr("hd.charts_capped", shown=len(planned), total=total))
    for k, (setup, heads) in enumerate(planned):
        split = len(summary.head_groups(setup.records)) > 1
        if k == 0 or planned[k - 1][0] is not setup:  # a setup's first charts: its heading and what it shows
            st.markdown(f"#### {setup_title(setup)}")
            said = summary.summarize(setup, bundled_sdpa())
            if said:
                st.markdown("\n".join(f"- {sentence_text(s)}" for s in said))
        if split:
            st.markdown(f"**{setup_title(setup, heads)}**")
        mine = [r for r in setup.records if r["heads"] in heads]
        for title, field, axis in (("hd.chart_time", "median_ms", "hd.axis_time"),
                                   ("hd.chart_mem", "peak_mem_bytes", "hd.axis_mem")):
            st.caption(tr(title))
            st.vega_lite_chart(spec=results_chart(mine, field, tr_plain(axis)), width="stretch")


RESULT_COLUMNS = ("source", "impl", "heads", "seq_len", "batch", "d_model", "dtype", "device_name", "median_ms",
                  "iqr_ms", "iqr_share", "noisy", "min_ms", "gflops", "peak_mem", "num_threads", "status", "error")
NOISY_MARK = "⚠"  # the noisy column's mark; the warning above the table explains it


def column_title(field: str) -> str:
    """A record field's column header in the current language (exports keep the field names)."""
    return tr(f"hd.col_{field}")


def chart_field_titles() -> dict[str, str]:
    """Tooltip titles of :func:`selfattn.display.charts.benchmark_chart`, in the current language."""
    fields = ("source", "series", "device_name", "dtype", "batch", "d_model", "seq_len", "median_ms", "gflops",
              "peak_mem")
    return {field: column_title(field) for field in fields}


def shown_record(record: dict) -> dict:
    """A record as the table shows it: IQR as a share of the median, the noisy mark, status and refusal in words."""
    median, iqr = record.get("median_ms"), record.get("iqr_ms")
    error = record.get("error", "")
    if record.get("error_code") == "bench_memory" and record.get("est_mem_bytes"):
        error = tr("hd.error_bench_memory", mib=round(record["est_mem_bytes"] / 2**20))
    elif record.get("error_code") in ("bench_time", "bench_rss"):  # runs a hosted sweep skipped, in words
        error = tr(f"hd.error_{record['error_code']}")
    return {**record, "iqr_share": round(100 * iqr / median, 1) if median and iqr is not None else None,
            "noisy": NOISY_MARK if bench.is_noisy(record) else "", "status": tr(f"hd.status_{record['status']}"),
            "impl": impl_name(record.get("impl", "")), "peak_mem": memory_text(record.get("peak_mem_bytes")),
            "error": error}


def results_table(records: list[dict]) -> pd.DataFrame:
    """The columns a reader compares, one row per run, with headers and statuses in the current language."""
    frame = pd.DataFrame([shown_record(r) for r in records])
    frame = frame[[c for c in RESULT_COLUMNS if c in frame.columns]]
    return frame.rename(columns={c: column_title(c) for c in frame.columns})


def ratio_title(what: str, a: str, b: str) -> str:
    """A ratio column's header, the implementations named in the current language."""
    return tr_plain(f"hd.col_{what}_ratio", a=impl_name(a), b=impl_name(b))


def ratio_table(records: list[dict]) -> pd.DataFrame:
    """naive/fused (medians and best rounds) and fused/torch_mha time ratios, and naive/fused peak memory."""
    rows = []
    for source in dict.fromkeys(r.get("source", "") for r in records):
        mine = [r for r in records if r.get("source", "") == source]
        naive = {(r["heads"], r["seq_len"]): r for r in bench.speed_ratios(mine, "naive", "fused")}
        mha = {(r["heads"], r["seq_len"]): r for r in bench.speed_ratios(mine, "fused", "torch_mha")}
        best = {(r["heads"], r["seq_len"]): r for r in bench.speed_ratios(mine, "naive", "fused", "min_ms")}
        # Files written before the best round was kept have none: the column says so, not a bare dash (and so
        # holds text: 4 significant digits where there is a ratio).
        no_best = tr_plain("hd.best_missing") if not any(r.get("min_ms") for r in mine) else None
        mem = {(r["impl"], r["heads"], r["seq_len"]): r.get("peak_mem_bytes") for r in mine if r["status"] == "ok"}
        for key in sorted(set(naive) | set(mha)):
            h, n = key
            m_naive, m_fused = mem.get(("naive", h, n)), mem.get(("fused", h, n))
            rows.append({
                column_title("source"): source, column_title("heads"): h, column_title("seq_len"): n,
                ratio_title("time", "naive", "fused"): naive[key]["ratio"] if key in naive else None,
                ratio_title("best", "naive", "fused"): f"{best[key]['ratio']:.4g}" if key in best else no_best,
                ratio_title("time", "fused", "torch_mha"): mha[key]["ratio"] if key in mha else None,
                ratio_title("mem", "naive", "fused"): (m_naive / m_fused) if m_naive and m_fused else None,
            })
    return pd.DataFrame(rows)
