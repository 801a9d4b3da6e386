"""Drawing the Heads & devices page: its widgets, maps and charts, the cooldown between sweeps, cached results.

What needs no Streamlit lives in ``selfattn/``: the comparison (:mod:`selfattn.core.compare`), what a run
may draw (:mod:`selfattn.display.budget`), the result tables (:mod:`selfattn.bench.tables`) and the words
that describe a state (:mod:`selfattn.bench.captions`); the helpers here call them in the visitor's language.
"""

from __future__ import annotations

import functools
import time

import numpy as np
import pandas as pd
import streamlit as st

from selfattn.bench.view import MAX_SEED
from selfattn import bench
from selfattn.bench import captions, guard, summary, tables
from selfattn.bench.choices import (BENCH_D_CHOICES, BENCH_HEADS, D_CHOICES, MAX_HEADS, MAX_N,  # noqa: F401
                                    RESULTS_DIR, SEQ_CHOICES, bench_choices, bundled_results, devices, random_sizes)
from selfattn.bench.tables import NOISY_MARK, RESULT_COLUMNS  # noqa: F401 - the page's names for them
from selfattn.core import compare as core_compare
from selfattn.core.compare import head_choices as _head_choices
from selfattn.core.heads import MultiHeadTrace, stack_heads, weight_row_sums
from selfattn.display import budget as draw_limits
from selfattn.display.budget import CELL_BYTES, DRAW_BYTES, fit_block  # noqa: F401 - the page's names for them
from selfattn.display.charts import benchmark_chart, level_titles
from selfattn.display.export import column_names, labelled
from selfattn.i18n import Markdown
from selfattn.hosting import is_hosted
from ui import server_limits
from ui import map_sizes as fit
from ui import state as settings
from ui.widgets import arrow_datasets, csv_button, current_lang, tr, tr_plain, vega

MAX_TEXT = 200  # characters of the sentence box
MIN_RUN_TIME = 0.2  # seconds per timed configuration on the page (the CLI defaults to 1 s; hosted: its limit)
WARMUP = 3  # untimed calls before a run (hosted: its limit)
CPU_THREADS = 1  # the page times CPU runs on one thread: two sweeps back to back agree on a busy machine


def input_matrix(source: str, seed: int, n: int | None, d_model: int | None, text: str):
    """The (n, d_model) input and its token labels: random, or a sentence's embedding vectors."""
    if source == "random":
        # Within the widgets' limits whatever the browser sent (ui.guard has checked them too).
        return core_compare.random_input(*random_sizes(seed, n, d_model, MAX_SEED))
    from ui.models import embeddings

    emb = embeddings(str(text)[:MAX_TEXT], "auto", "static", None, None)
    return emb.vectors[:MAX_N], core_compare.sentence_labels(emb.tokens[:MAX_N])


def head_choices(d_model: int) -> list[int]:
    """Head counts that divide d_model, up to MAX_HEADS."""
    return _head_choices(d_model, MAX_HEADS)


# ── Words and formulas taken from the state they describe ────────────────────────────

def attention_tex(d_k: int, causal: bool) -> Markdown:
    """softmax(QKᵀ/√d_k [+ M]) in KaTeX, with this d_k and the mask term only while the causal mask is on."""
    return captions.attention_tex(d_k, causal, current_lang())


def show_bare_reshape(right: MultiHeadTrace, wrong: MultiHeadTrace, tokens, n: int, d_model: int) -> None:
    """Mistake 1: the right and the wrong outputs on one colour scale, and their difference."""
    h, hdim = right.num_heads, right.head_dim
    st.markdown(tr("hd.mistake_bare_reshape_explain", n=n, d=d_model, h=h, hd=hdim))
    if h == 1 or n == 1:
        st.info(tr("hd.mistake_same_heads" if h == 1 else "hd.mistake_same_tokens"))
    diff, largest = core_compare.difference(right.outputs, wrong.outputs)
    st.metric(tr("hd.mistake_diff"), f"{largest:.3g}")
    spread = largest or 1.0
    shared = core_compare.shared_domain(right.outputs, wrong.outputs)
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
    st.markdown(captions.scale_after_softmax_text(hdim, causal, current_lang()))
    st.metric(tr("hd.mistake_diff"), f"{core_compare.largest_difference(right.outputs, wrong.outputs):.3g}")
    sums = {"right": weight_row_sums(right), "wrong": weight_row_sums(wrong)}  # (h, n) each
    ranges = {which: core_compare.extent(sums[which]) for which in sums}
    st.caption(tr("hd.row_sums_range", h=h, **{f"{which}_{end}": f"{ranges[which][k]:.6g}"
                                              for which in sums for k, end in enumerate(("lo", "hi"))}))
    names = [tr_plain("hd.right"), tr_plain("hd.wrong")]
    table = core_compare.columns(sums["right"][0], sums["wrong"][0])  # (n, 2): head 1's row sums
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
                  budget=budget, domain=(0.0, max(1.0, core_compare.extent(table)[1])))


# ── What one page run may send and draw (selfattn.display.budget) ────────────────────

def draw_budget(part: str) -> int:
    """Bytes the maps of ``part`` (a key of DRAW_BYTES, per map) may send in one run."""
    return draw_limits.draw_budget(part, is_hosted())


def heads_shown(num_heads: int, tokens) -> int:
    """How many of the heads' maps the head grid draws within its budget (at least one)."""
    return draw_limits.heads_shown(num_heads, tokens, is_hosted())


def part_note(rows: int, cols: int, shape: tuple[int, int]) -> str:
    """The words under a map drawn in part: what is shown, and that the CSV has everything ("" if whole)."""
    return captions.part_note(rows, cols, shape, current_lang())


def show_part(title: str, matrix, row_labels, col_labels, *, key: str, width: float, budget: int, **kwargs) -> None:
    """:func:`ui.map_sizes.show_map` within ``budget`` bytes: its top-left block, the shape and the CSV of all of it."""
    values = np.asarray(matrix, dtype=float)
    rows, cols = fit_block(row_labels, col_labels, budget)
    fit.map_header(title, values.shape, part_note(rows, cols, values.shape))
    vega(fit.fit_heatmap(values[:rows, :cols], list(row_labels)[:rows], list(col_labels)[:cols], width, **kwargs))
    csv_button(functools.partial(labelled, values, list(row_labels), list(col_labels)), key, key=f"dl_{key}")


def heads_frame(head_weights, tokens, titles) -> pd.DataFrame:
    """Every head's weights in one table: a row per (head, query token), a column per key token."""
    rows = [f"{title} · {token}" for title in titles for token in tokens]
    return labelled(stack_heads(head_weights), rows, list(tokens))


def torch_checks(x, weights, num_heads: int) -> dict[str, float]:
    """Max |ours − torch.nn.MultiheadAttention| (float64, same weights), without and with a causal mask.

    Once per process per input, weights and head count: visitors who open the same view share one check.
    """
    return _torch_checks(np.asarray(x), tuple(weights[k] for k in ("w_q", "w_k", "w_v", "w_o")), int(num_heads))


@st.cache_resource(show_spinner=False, max_entries=64)
def _torch_checks(x: np.ndarray, weights: tuple[np.ndarray, ...], num_heads: int) -> dict[str, float]:
    bench.limit_threads()  # hosted: one core per computation, like the benchmark's
    named = dict(zip(("w_q", "w_k", "w_v", "w_o"), weights))
    return core_compare.torch_differences(x, named, num_heads)


# ── Benchmark ────────────────────────────────────────────────────────────────────────

def device_label(device: str) -> str:
    """The device box's short name (CPU, GPU), which fits the box; the caption under it names the machine."""
    return captions.device_label(device, current_lang())


def impl_name(impl: str) -> str:
    """An implementation's name in the current language (files and links keep the ids naive, fused, torch_mha)."""
    return tables.impl_name(impl, current_lang())


def device_caption(config: bench.BenchConfig, limits: dict) -> Markdown:
    """What the runs will run on, from the chosen device and precision: the machine's name and its threads."""
    return captions.device_caption(config, limits, current_lang())


def method_caption(config: bench.BenchConfig, limits: dict) -> Markdown:
    """How the visitor's runs are timed, from the sweep's own settings."""
    return captions.method_caption(config, limits, current_lang())


def limits_caption(limits: dict) -> str:
    """The limits the choosers really offer, in words (not the core's looser sanity bounds)."""
    return captions.limits_caption(limits, current_lang())


def progress_text(done: int, total: int, label: str) -> str:
    """The progress bar's words for ``bench.run_benchmark``'s callback: the run starting now, counted from 1."""
    return captions.progress_text(done, total, label, current_lang())


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
    guard.check_cooldown(_finished_at(), session, limits["cooldown_s"], time.monotonic())
    # the sweep has its own bounds (one at a time for all replicas, its CPU and memory): while it runs, the
    # process's other heavy views go on (ui/server_limits.py)
    with guard.one_sweep_at_a_time(expected), guard.MemoryWatch() as memory, server_limits.outside_heavy_turn():
        try:
            return bench.run_benchmark(config, progress=progress, memory=memory)
        finally:
            guard.note_finished(_finished_at(), session, limits["cooldown_s"], time.monotonic())


def _session_id() -> str:
    from ui.streamlit_hooks import current_session

    return current_session()


@st.cache_resource(show_spinner=False)
def _finished_at() -> dict[str, float]:
    """When each visitor's last sweep ended (``time.monotonic``), by session; only the last cooldown's."""
    return {}


@st.cache_resource(show_spinner=False)
def bundled_about() -> dict[str, dict[str, str]]:
    """Where and when each bundled results file was measured (its ``about``), by file name."""
    return {name: bench.read_about((RESULTS_DIR / f"{name}.json").read_bytes()) for name in bundled_results()}


def bundled_label(name: str) -> str:
    """A bundled file's name on the page, from its records: the machine and precision it was measured with."""
    return captions.bundled_label(name, bundled_results().get(name), current_lang())


def bundled_caption(name: str) -> Markdown:
    """What a bundled file holds, from its records and its ``about``: machine, date and the sweep's settings."""
    return captions.bundled_caption(name, bundled_results()[name], bundled_about().get(name, {}), current_lang())


def results_chart(records: list[dict], field: str, title: str) -> dict:
    """:func:`selfattn.display.charts.benchmark_chart` of one setup in the current language.

    Implementations are named in the current language in the legend (the records keep their ids), in
    the page's order (three steps, fused, PyTorch).
    """
    named = [{**r, "impl": impl_name(r["impl"])} for r in records]
    chart = benchmark_chart(named, y=field, y_title=title, x_title=tr_plain("hd.axis_n"),
                            series_title=column_title("series"), field_titles=tables.chart_field_titles(current_lang()),
                            impls=tuple(impl_name(i) for i in bench.IMPLS))
    # fit-x: the height is the plot's own, so the legend underneath adds to it instead of squeezing it.
    return level_titles({**chart, "autosize": {"type": "fit-x", "contains": "padding"}})


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
    return captions.sentence_text(sentence, current_lang())


def setup_title(setup: summary.Setup, heads: tuple[int, ...] | None = None) -> Markdown:
    """A chart's heading: the results, the machine and the sizes it was timed at (and its heads, when split)."""
    return captions.setup_title(setup, current_lang(), heads)


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
            st.vega_lite_chart(spec=arrow_datasets(results_chart(mine, field, tr_plain(axis))), width="stretch")


def column_title(field: str) -> str:
    """A record field's column header in the current language (exports keep the field names)."""
    return tables.column_title(field, current_lang())


def results_table(records: list[dict]) -> pd.DataFrame:
    """The columns a reader compares, one row per run, with headers and statuses in the current language."""
    return tables.results_table(records, current_lang())


def ratio_table(records: list[dict]) -> pd.DataFrame:
    """naive/fused (medians and best rounds) and fused/torch_mha time ratios, and naive/fused peak memory."""
    return tables.ratio_table(records, current_lang())
