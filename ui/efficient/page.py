"""Efficient attention: each part of the page as read → compute (selfattn/efficient/compute.py) → draw.

A part reads its widgets (settings of ``selfattn/efficient/view.py``, kept with ``ui.state``), computes its view with
``last_good`` (sizes over the page's limits, a g that does not divide h, an odd d: a message, the last good view
kept) and draws it. Every sentence that states a number takes it from the view.
"""

from __future__ import annotations

import math
import time
from functools import partial
from typing import Any, Callable

import numpy as np
import pandas as pd
import streamlit as st

from selfattn import memo
from selfattn.display.charts import level_titles
from selfattn.display.export import column_names
from selfattn.display.numbers import MINUS_INFINITY, chart_text, difference_text, step_text, step_vector_text
from selfattn.efficient import charts
from selfattn.efficient import compute as ef
from selfattn.efficient import timing
from selfattn.efficient.view import MAX_QKV_CHARS, MAX_SEED, PART_KEYS, TRAFFIC_BLOCKS, limits
from selfattn.errors import InputError
from selfattn.hosting import is_hosted
from selfattn.i18n import Markdown
from ui import links
from ui import state as settings
from ui.widgets import arrow_datasets, choice, csv_button, folded, listed, show_error, tr, tr_plain
from ui.components.heatmap import heatmap, library, map_data
from ui.play import Player

PLAYER = Player("ef_playing", "ef_step", "ef_play", "efficient", words="ef")  # the tiles' Play/Pause (ui/play.py)
CHECK_TOLERANCE = 1e-10  # a difference to torch above this is a failure, said in red


def limits_now() -> dict:
    return limits(is_hosted())


def draw(build: Callable[..., Any], *args) -> None:
    """The chart ``build(*args)`` of :mod:`selfattn.efficient.charts` as wide as its column, its records sent as
    Arrow. Its Vega-Lite dict is kept per process by what it is drawn from (:func:`chart_spec`)."""
    st.vega_lite_chart(arrow_datasets(chart_spec(build, args)), theme=None, width="stretch")


@memo.cached("ef.charts", key=lambda build, args: (build.__name__, memo.fingerprint(args)))
def chart_spec(build: Callable[..., Any], args: tuple) -> dict:
    """``build(*args)`` as its Vega-Lite dict, once a process for the same inputs (a class opening one link builds it
    once: building and validating the tiles' Altair chart was over half the tiles part's server time an open,
    docs/benchmarks.md; the charts are dicts now, written out)."""
    return level_titles(build(*args))  # a Chinese title of a vertical axis level, not on its side


def words() -> dict:
    """The charts' labels in the visitor's language."""
    return {name: tr_plain(f"ef.chart_{name}") for name in (
        "query", "key", "score", "cell", "tile", "seen", "masked", "reached", "unreached", "position", "layers", "n",
        "moved", "q_head", "kv_head", "g", "kib", "before", "after", "first", "second")}


def number_frame(matrix, rows: list[str], cols: list[str]) -> pd.DataFrame:
    """A matrix as a table of text, each number as the charts write it (−∞ for a masked score, – for none yet)."""
    return pd.DataFrame([["–" if isinstance(v, float) and math.isnan(v) else chart_text(float(v)) for v in row]
                         for row in np.asarray(matrix, dtype=float).tolist()], index=rows, columns=cols)


def labels(prefix: str, count: int, start: int = 0) -> list[str]:
    return [f"{prefix}{i + 1}" for i in range(start, start + count)]


def check_line(key: str, difference: float, **fmt) -> None:
    """A check against torch or transformers: green when the difference is tiny, red when not."""
    text = tr(key, diff=difference_text(difference), **fmt)
    (st.success if difference <= CHECK_TOLERANCE else st.error)(text, icon=":material/check_circle:"
                                                               if difference <= CHECK_TOLERANCE else ":material/error:")


def size_input(column, key: str, label_key: str, lowest: int = 1) -> int:
    """A whole-number box with no upper end (the page names a size over its limit, keeping the last good view)."""
    settings.keep(key)
    return int(column.number_input(tr(label_key), min_value=lowest, max_value=None, step=1, key=key))


def seed_input(column) -> int:
    settings.keep("ef_seed")
    return int(column.number_input(tr("ef.seed"), 0, MAX_SEED, key="ef_seed", help=tr("ef.seed_help")))


# ── 1. Tiles, step by step ───────────────────────────────────────────────────────────────────

def _go(step: int) -> None:
    settings.put("ef_step", step)


def tiles() -> None:
    st.markdown(tr("ef.tiles_intro"))
    with st.container(border=True):
        c = st.columns(5, vertical_alignment="bottom")
        seed = seed_input(c[0])
        n = size_input(c[1], "ef_n", "ef.n")
        d = size_input(c[2], "ef_d", "ef.d")
        block_q = size_input(c[3], "ef_bq", "ef.block_q")
        block_k = size_input(c[4], "ef_bk", "ef.block_k")
        settings.keep("ef_causal")
        settings.keep("ef_windowed")
        settings.keep("ef_typed")
        # the switches as wide as their words, wrapping on a narrow screen (four columns cut them at 1024 px)
        with st.container(horizontal=True, wrap=True, vertical_alignment="bottom", gap="medium"):
            causal = st.toggle(tr("ef.causal"), key="ef_causal", width="content")
            windowed = st.toggle(tr("ef.windowed"), key="ef_windowed", help=tr("ef.windowed_help"), width="content")
            w = size_input(st.container(width=160), "ef_window", "ef.window") if windowed else None
            typed = st.toggle(tr("ef.typed"), key="ef_typed", help=tr("ef.typed_help"), width="content")
        if typed:
            text = typed_box(seed, n, d)
    if typed:
        compute = partial(ef.typed_tiles_view, text, block_q, block_k, causal, w, limits_now())
    else:
        compute = partial(ef.tiles_view, seed, n, d, block_q, block_k, causal, w, limits_now())
    view, error = settings.last_good("ef_tiles_good", compute)
    if error is not None:
        show_error(error, kept=view is not None)
    if view is None:
        links.publish("efficient")
        return
    PLAYER.run(partial(_steps, view), always=False)  # while playing, a fragment rerun every second (ui/play.py)


def typed_box(seed: int, n: int, d: int) -> str:
    """The pasted Q, K, V: a text area that starts from the seed's tables (when the box is empty and the seed's
    sizes are within the limits). The server recomputes in a few ms, so no browser preview is offered."""
    if not str(settings.value("ef_qkv")).strip():
        top = limits_now()
        if n <= top["n"] and d <= top["d"]:
            settings.put("ef_qkv", ef.qkv_text(*(ef.random_matrix(seed, (n, d), salt) for salt in (1, 2, 3))))
    settings.keep("ef_qkv")
    text = st.text_area(tr("ef.qkv_box"), key="ef_qkv", height=220, max_chars=MAX_QKV_CHARS,
                        help=tr("ef.qkv_box_help"))
    st.caption(tr("ef.qkv_no_preview"))
    return str(text)


def _steps(view: ef.TilesView) -> None:
    """The tiles' step control, Play, the grid at that step, its words and tables, and the link (a fragment rerun
    alone once a second while playing, so the link is written here: the step in it follows the play)."""
    n, d = view.q.shape
    total = view.steps
    PLAYER.advance(total)  # while playing: a step on, before anything reads the step
    step = settings.keep("ef_step", range(0, total + 1))
    playing = PLAYER.playing()
    with st.container(horizontal=True, wrap=True, gap="small"):  # whole labels at 1024 px in Chinese too
        st.button(tr("ef.first"), key="ef_first", on_click=_go, args=(0,), disabled=step == 0,
                  icon=":material/first_page:")
        st.button(tr("ef.back"), key="ef_back", on_click=_go, args=(max(step - 1, 0),), disabled=step == 0,
                  icon=":material/chevron_left:")
        st.button(tr("ef.next"), key="ef_next", on_click=_go, args=(min(step + 1, total),), disabled=step == total,
                  type="primary", icon=":material/chevron_right:")
        st.button(tr("ef.last"), key="ef_last", on_click=_go, args=(total,), disabled=step == total,
                  icon=":material/last_page:")
        with st.container(width=140):
            PLAYER.draw_button(total)
    if playing:  # read-only and new at each step: a box sent back as it was before a move names a box not drawn now
        st.slider(tr("ef.step"), 0, total, value=step, disabled=True, help=tr("ef.step_help"))
    else:
        st.slider(tr("ef.step"), 0, total, key="ef_step", help=tr("ef.step_help"))

    trace = view.trace
    current = trace.tiles[step - 1] if step else None
    left, right = st.columns([5, 6])
    with left:
        st.markdown(f"**{tr('ef.grid', n=n, bq=trace.block_q, bk=trace.block_k)}**")
        grid = ef.tile_grid(n, n, trace.block_q, trace.block_k)
        draw(charts.tiles_chart, view.scores, ef.done_cells(view, step), grid,
                                None if current is None else (current.query_block, current.key_block),
                                set(trace.skipped), words())
        st.caption(tr("ef.grid_caption"))
    with right:
        if current is None:
            st.info(tr("ef.step_zero", total=total, tiles=len(grid), skipped=len(trace.skipped)))
        else:
            _tile_text(view, step, current)
    skipped = ef.skipped_before(view, step)
    if skipped:
        st.caption(tr("ef.skipped", tiles=listed(f"({qb + 1}, {kb + 1})" for qb, kb in skipped), n=len(skipped)))
    st.markdown(tr("ef.never_stored", nn=n * n, n=n, never=trace.never_stored,
                   computed=total, skipped=len(trace.skipped)))
    so_far = ef.outputs_so_far(view, step)
    st.markdown(f"**{tr('ef.outputs_so_far', step=step, total=total)}**")
    st.dataframe(number_frame(so_far, labels("q", n), labels("o", d)), width="content")
    if step == total:
        check_line("ef.torch_equal", view.torch_difference)
        st.caption(tr("ef.attend_equal", diff=difference_text(view.attend_difference)))
    else:
        st.caption(tr("ef.check_at_end", left=total - step))
    qkv = folded(tr("ef.qkv"), "ef_qkv_panel", icon=":material/table:")
    if qkv.open:  # closed, its three tables and four CSVs are not made
        with qkv:
            q1, q2, q3 = st.columns(3)
            for col, name, matrix in ((q1, "Q", view.q), (q2, "K", view.k), (q3, "V", view.v)):
                with col:
                    st.markdown(f"**{name}**")
                    frame = number_frame(matrix, labels("q" if name == "Q" else "k", n), labels("c", d))
                    st.dataframe(frame, width="content")
                    csv_button(pd.DataFrame(matrix, index=frame.index, columns=frame.columns), f"efficient-{name}",
                               key=f"dl_ef_{name}")
            csv_button(pd.DataFrame(trace.outputs, index=labels("q", n), columns=column_names("o", d)),
                       "efficient-outputs", key="dl_ef_outputs", label=tr("ef.download_outputs"))
    links.publish("efficient")


def _tile_text(view: ef.TilesView, step: int, tile) -> None:
    """The current tile: where it is, its scores, its rows' statistics, and one row's update with its numbers."""
    (r0, r1), (c0, c1) = tile.rows, tile.cols
    st.markdown(tr("ef.step_at", step=step, total=view.steps, qb=tile.query_block + 1, kb=tile.key_block + 1,
                   r0=r0 + 1, r1=r1, c0=c0 + 1, c1=c1))
    st.dataframe(number_frame(tile.scores, labels("q", r1 - r0, r0), labels("k", c1 - c0, c0)), width="content")
    stats = pd.DataFrame({tr_plain("ef.col_m_before"): [step_text(v) for v in tile.row_max_before],
                          tr_plain("ef.col_m"): [step_text(v) for v in tile.row_max],
                          tr_plain("ef.col_rescale"): [step_text(v) for v in tile.rescale],
                          tr_plain("ef.col_l"): [step_text(v) for v in tile.row_sum]},
                         index=labels("q", r1 - r0, r0))
    st.dataframe(stats, width="content")
    row = ef.row_step(view, step - 1)
    first = row.l_old == 0 and row.m_old == -math.inf
    st.markdown(tr("ef.row_title", q=row.row + 1))
    st.markdown(tr("ef.row_max", scores=step_vector_text(row.scores), m_old=step_text(row.m_old),
                   m_new=step_text(row.m_new)))
    st.markdown(tr("ef.row_rescale_first" if first else "ef.row_rescale", m_old=step_text(row.m_old),
                   m_new=step_text(row.m_new), rescale=step_text(row.rescale)))
    st.markdown(tr("ef.row_l", l_old=step_text(row.l_old), rescale=step_text(row.rescale),
                   exps=step_vector_text(row.exps), exp_sum=step_text(row.exp_sum), l_new=step_text(row.l_new)))
    st.markdown(tr("ef.row_acc", acc_old=step_vector_text(row.acc_old), rescale=step_text(row.rescale),
                   acc_new=step_vector_text(row.acc_new)))


# ── 2. Traffic ───────────────────────────────────────────────────────────────────────────────

def traffic() -> None:
    st.markdown(tr("ef.traffic_intro"))
    top = limits_now()
    with st.container(border=True):
        settings.keep("ef_tcausal")
        # as wide as their words, wrapping on a narrow screen (four columns cut the block choice at 1024 px)
        with st.container(horizontal=True, wrap=True, vertical_alignment="bottom", gap="medium"):
            n = size_input(st.container(width=160), "ef_tn", "ef.tn")
            d = size_input(st.container(width=160), "ef_td", "ef.td")
            with st.container(width="content"):
                blocks = choice(st.segmented_control, tr("ef.blocks"), TRAFFIC_BLOCKS, "ef_tblocks",
                                {b: tr_plain(f"ef.blocks_{b}") for b in TRAFFIC_BLOCKS})
            causal = st.toggle(tr("ef.causal"), key="ef_tcausal", width="content")
        s = st.columns(3, vertical_alignment="bottom")
        for key in ("ef_sram", "ef_tbq", "ef_tbk"):
            settings.keep(key)
        if blocks == "sram":
            sram = size_input(s[0], "ef_sram", "ef.sram")
            block_q, block_k = st.session_state["ef_tbq"], st.session_state["ef_tbk"]
        else:
            sram = st.session_state["ef_sram"]
            block_q = size_input(s[0], "ef_tbq", "ef.block_q")
            block_k = size_input(s[1], "ef_tbk", "ef.block_k")
        st.caption(tr("ef.traffic_limits", n=top["traffic_n"], d=top["traffic_d"], tiles=top["tiles"]))
    view, error = settings.last_good("ef_traffic_good", partial(ef.traffic_view, n, d, blocks, sram, block_q, block_k,
                                                                causal, top))
    if error is not None:
        show_error(error, kept=view is not None)
    if view is None:
        return
    last = view.rows[-1]
    if blocks == "sram" and view.n == n and view.d == d:
        st.markdown(tr("ef.paper_blocks", sram=sram, d=view.d, bk=view.block_k, bq=view.block_q))
    more = last["tiled"] > last["standard"]
    st.markdown(tr("ef.traffic_more" if more else "ef.traffic_fewer", n=view.n, d=view.d, bq=view.block_q,
                   bk=view.block_k, std=last["standard"], sr=last["standard_reads"], sw=last["standard_writes"],
                   tiled=last["tiled"], tr=last["tiled_reads"], tw=last["tiled_writes"],
                   ratio=step_text(ef.ratio(last["tiled"], last["standard"]) if more
                                   else ef.ratio(last["standard"], last["tiled"]))))
    st.markdown(tr("ef.traffic_passes", passes=view.passes, bq=view.block_q, n=view.n, d=view.d,
                   pass_numbers=2 * view.n * view.d, kv=view.kv_reads,
                   share=f"{ef.ratio(view.kv_reads, last['tiled']):.0%}"))
    if view.d > view.block_q:
        st.warning(tr("ef.traffic_big_d", d=view.d, bq=view.block_q, passes=view.passes, n=view.n),
                   icon=":material/warning:")
    st.caption(tr("ef.traffic_stats", stats=last["row_stats"], n=view.n))
    names = {"standard": tr_plain("ef.standard"), "tiled": tr_plain("ef.tiled")}
    left, right = st.columns([6, 5])
    with left:
        draw(charts.traffic_chart, list(view.rows), names, words())
    with right:
        table = pd.DataFrame([{tr_plain("ef.col_n"): r["n"],
                               tr_plain("ef.col_standard_reads"): r["standard_reads"],
                               tr_plain("ef.col_standard_writes"): r["standard_writes"],
                               tr_plain("ef.col_tiled_reads"): r["tiled_reads"],
                               tr_plain("ef.col_tiled_writes"): r["tiled_writes"]} for r in view.rows])
        st.dataframe(table, hide_index=True, width="content")
        csv_button(table, "efficient-traffic", key="dl_ef_traffic")
    measured()


# ── 2b. Traffic, measured: SDPA against the materialised softmax on this machine ───────────────

def page_sizes() -> tuple[int, ...]:
    """The sizes the button times: small ones only on a shared demo."""
    return timing.PAGE_SIZES["hosted" if is_hosted() else "local"]


@st.cache_resource(show_spinner=False)
def _timed_at() -> dict[str, float]:
    """When each visitor's last timing ended (``time.monotonic``), by session: the cooldown's table."""
    return {}


@st.cache_data(show_spinner=False, ttl=600)
def committed_results() -> dict | None:
    """The figures committed in benchmarks/bench_efficient.json (machine named), or None."""
    return timing.read_results()


def time_here(progress) -> dict:
    """Time both ways at :func:`page_sizes` on this server, one size after another, if it may: one benchmark at a
    time for every replica (the Heads page's lock), a visitor's cooldown on a hosted demo.

    Raises:
        InputError: ``bench_busy`` (another benchmark holds the lock), ``bench_cooldown``.
    """
    from selfattn.bench import guard
    from selfattn.bench.limits import limits_for
    from ui import server_limits
    from ui.streamlit_hooks import current_session

    cooldown = limits_for()["cooldown_s"]
    session = current_session()
    guard.check_cooldown(_timed_at(), session, cooldown, time.monotonic())
    sizes = page_sizes()
    expected = 2.0 if is_hosted() else 6.0
    with guard.one_sweep_at_a_time(expected), server_limits.outside_heavy_turn():
        try:
            rows = timing.run(sizes, timing.D, timing.PAGE_REPEATS,
                              progress=lambda i, row: progress.progress((i + 1) / len(sizes), tr_plain(
                                  "ef.time_progress", n=row["n"], i=i + 1, k=len(sizes))))
        finally:
            guard.give_back_memory()
            guard.note_finished(_timed_at(), session, cooldown, time.monotonic())
    return {"machine": timing.machine(), "rows": rows, "repeats": timing.PAGE_REPEATS}


def measured() -> None:
    """SDPA against the materialised softmax: the committed figures, or this server's once the button ran."""
    st.subheader(tr("ef.sdpa_header"))
    st.markdown(tr("ef.sdpa_intro"))
    sizes = page_sizes()
    # A callback, not the button's return value: it survives require_frame's rerun on a first visit (as Heads').
    st.button(tr("ef.time_button"), key="ef_time", icon=":material/timer:", on_click=st.session_state.update,
              kwargs={"ef_time_requested": True},
              help=tr("ef.time_help", sizes=listed(f"{n:,}" for n in sizes), d=timing.D))
    if st.session_state.pop("ef_time_requested", False):
        bar = st.progress(0.0, tr_plain("ef.time_progress", n=sizes[0], i=1, k=len(sizes)))
        try:
            st.session_state["ef_sdpa_run"] = time_here(bar)
        except InputError as exc:
            show_error(exc, kept=True)
        bar.empty()
    if is_hosted():
        st.caption(tr("ef.time_hosted", sizes=listed(f"{n:,}" for n in sizes)))
    run = st.session_state.get("ef_sdpa_run")
    if run is not None:
        about, rows = run["machine"], run["rows"]
        st.markdown(tr("ef.sdpa_ran", cpu=about["cpu"], threads=about["threads"], torch=about["torch"],
                       repeats=run["repeats"]))
    else:
        committed = committed_results()
        if committed is None:
            st.info(tr("ef.sdpa_none"))
            return
        about, rows = committed["machine"], committed["rows"]
        st.markdown(tr("ef.sdpa_committed", cpu=about["cpu"], cores=about["cores"], threads=about["threads"],
                       torch=about["torch"], date=about["date"], command=committed["command"]))
    s = timing.summary(rows)
    st.markdown(tr("ef.sdpa_time_faster" if s["sdpa_faster"] else "ef.sdpa_time_slower", n=s["n"],
                   s=f"{s['sdpa_ms']:.3g}", m=f"{s['materialised_ms']:.3g}", ratio=f"{s['time_ratio']:.1f}",
                   at=s["faster_at"] if s["sdpa_faster"] else s["sizes"] - s["faster_at"], sizes=s["sizes"]))
    st.markdown(tr("ef.sdpa_memory_less" if s["sdpa_lighter"] else "ef.sdpa_memory_more", n=s["n"],
                   s=timing.mib(s["sdpa_peak"]), m=timing.mib(s["materialised_peak"]),
                   ratio=f"{s['memory_ratio']:.1f}", nn=timing.mib(s["n"] ** 2 * 4),
                   at=s["lighter_at"] if s["sdpa_lighter"] else s["sizes"] - s["lighter_at"], sizes=s["sizes"]))
    names = {"sdpa": tr_plain("ef.way_sdpa"), "materialised": tr_plain("ef.way_materialised")}
    left, right = st.columns(2)
    with left:
        draw(charts.timing_chart, rows, "ms", names, tr_plain("ef.chart_ms"), words())
    with right:
        draw(charts.timing_chart, rows, "mib", names, tr_plain("ef.chart_mib"), words())
    table = pd.DataFrame([{tr_plain("ef.col_n"): r["n"], tr_plain("ef.col_sdpa_ms"): round(r["sdpa_ms"], 3),
                           tr_plain("ef.col_mat_ms"): round(r["materialised_ms"], 3),
                           tr_plain("ef.col_sdpa_mib"): timing.mib(r["sdpa_peak_bytes"]),
                           tr_plain("ef.col_mat_mib"): timing.mib(r["materialised_peak_bytes"]),
                           tr_plain("ef.col_nn_mib"): timing.mib(r["scores_bytes"])} for r in rows])
    st.dataframe(table, hide_index=True, width="content")
    csv_button(table, "efficient-sdpa-timing", key="dl_ef_timing")
    st.caption(tr("ef.sdpa_how"))


# ── 3. Grouped-query heads ───────────────────────────────────────────────────────────────────

def heads() -> None:
    st.markdown(tr("ef.heads_intro"))
    with st.container(border=True):
        c = st.columns(5, vertical_alignment="bottom")
        seed = seed_input(c[0])
        h = size_input(c[1], "ef_h", "ef.h")
        g = size_input(c[2], "ef_g", "ef.g")
        n = size_input(c[3], "ef_hn", "ef.n")
        d = size_input(c[4], "ef_d", "ef.d")
        settings.keep("ef_causal")
        settings.keep("ef_tile_mistake")
        with st.container(horizontal=True, wrap=True, gap="medium"):
            causal = st.toggle(tr("ef.causal"), key="ef_causal", width="content")
            mistake = st.toggle(tr("ef.tile_mistake"), key="ef_tile_mistake", help=tr("ef.tile_mistake_help"),
                                width="content")
        st.caption(tr("ef.divisors", h=h, divisors=listed(str(x) for x in ef.divisors(h))))
    view, error = settings.last_good("ef_heads_good", partial(ef.heads_view, seed, h, g, n, d, causal, mistake,
                                                              limits_now()))
    if error is not None:
        show_error(error, kept=view is not None)
    if view is None:
        return
    h, g = view.h, view.g
    kind = "mha" if g == h else "mqa" if g == 1 else "gqa"
    st.markdown(tr(f"ef.heads_kind_{kind}", h=h, g=g, group=h // g))
    left, right = st.columns([6, 5])
    with left:
        draw(charts.heads_chart, view.shown.kv_head, g, view.wrong_heads, words())
        st.caption(tr("ef.heads_tile_rule" if view.mistake else "ef.heads_rule", h=h, g=g, group=h // g))
    with right:
        reads = pd.DataFrame({tr_plain("ef.col_kv_head"): [view.shown.kv_head[i] + 1 for i in range(h)],
                              tr_plain("ef.col_torch_kv_head"): [view.right.kv_head[i] + 1 for i in range(h)],
                              tr_plain("ef.col_difference"): [difference_text(x) for x in view.head_differences]},
                             index=[tr_plain("ef.q_head_n", i=i + 1) for i in range(h)])
        st.dataframe(reads, width="content")
    if view.wrong_heads:
        st.error(tr("ef.heads_wrong", heads=listed(str(i + 1) for i in view.wrong_heads), n=len(view.wrong_heads),
                    h=h, diff=difference_text(view.difference)), icon=":material/error:")
    elif view.mistake:
        st.info(tr("ef.heads_tile_same", h=h, g=g))
    if not view.wrong_heads:
        check_line("ef.heads_equal", view.difference, h=h, g=g)
    head_maps(view)
    nq = view.shown.weights.shape[1]
    csv_button(pd.DataFrame([[i + 1, r + 1, *row] for i in range(h) for r, row in
                             enumerate(view.shown.weights[i].tolist())],
                            columns=[tr_plain("ef.col_q_head"), tr_plain("ef.col_query"), *labels("k", nq)]),
               "efficient-head-weights", key="dl_ef_head_weights", label=tr("ef.download_weights"))

    st.subheader(tr("ef.kv_header"))
    rows = ef.kv_cache_rows()
    for r in rows:
        st.markdown(tr("ef.kv_line_mha" if r["kv_heads"] == r["heads"] else "ef.kv_line", model=r["model"], g=r["kv_heads"], h=r["heads"], layers=r["layers"],
                       hd=r["head_dim"], kib=r["bytes"] // 1024, mha=r["bytes_mha"] // 1024,
                       saved=step_text(r["saved"])))
    table = pd.DataFrame([{tr_plain("ef.col_model"): r["model"], tr_plain("ef.col_layers"): r["layers"],
                           tr_plain("ef.col_heads"): r["heads"], tr_plain("ef.col_kv_heads"): r["kv_heads"],
                           tr_plain("ef.col_head_dim"): r["head_dim"], tr_plain("ef.col_bytes"): r["bytes"],
                           tr_plain("ef.col_bytes_mha"): r["bytes_mha"]} for r in rows])
    left, right = st.columns([6, 5])
    with left:
        draw(charts.kv_cache_chart, ef.kv_cache_curve(), words())
    with right:
        st.dataframe(table, hide_index=True, width="content")
    st.caption(tr("ef.kv_source", sources=Markdown(listed(f"[{r['model']}](https://huggingface.co/{r['repo']})"
                                                          for r in rows))))


def head_maps(view: ef.HeadsView) -> None:
    """Each query head's weights as a map (ui/components/heatmap.py) with its CSV, titled with the key/value head it
    reads; with the mistake on, the heads that read the wrong one are marked in red, naming torch's."""
    weights = view.shown.weights  # (h, n, n)
    n = weights.shape[1]
    st.markdown(f"**{tr('ef.head_maps', h=view.h)}**")
    library()  # the maps' drawing code, once on the page (this part is not a fragment)
    with st.container(horizontal=True, wrap=True, gap="medium"):
        for i in range(view.h):
            j, right = view.shown.kv_head[i], view.right.kv_head[i]
            with st.container(width="content"):
                if i in view.wrong_heads:
                    st.markdown(f":red[{tr('ef.head_map_wrong', i=i + 1, j=j + 1, right=right + 1)}]")
                else:
                    st.markdown(tr("ef.head_map", i=i + 1, j=j + 1))
                rows, cols = labels("q", n), labels("k", n)
                heatmap(f"map_ef_head_{i}", map_data(weights[i], rows, cols, name=tr_plain("ef.q_head_n", i=i + 1),
                                                     role="weights", domain=(0.0, 1.0), group="ef"))
                csv_button(pd.DataFrame(weights[i], index=rows, columns=cols), f"efficient-head-{i + 1}",
                           key=f"dl_ef_head_{i}")


# ── 4. Sliding window ────────────────────────────────────────────────────────────────────────

def window() -> None:
    st.markdown(tr("ef.window_intro"))
    with st.container(border=True):
        c = st.columns(5, vertical_alignment="bottom")
        seed = seed_input(c[0])
        n = size_input(c[1], "ef_wn", "ef.n")
        w = size_input(c[2], "ef_ww", "ef.window")
        layers = size_input(c[3], "ef_layers", "ef.layers")
        d = size_input(c[4], "ef_d", "ef.d")
    view, error = settings.last_good("ef_window_good", partial(ef.window_view, seed, n, w, d, layers, limits_now()))
    if error is not None:
        show_error(error, kept=view is not None)
    if view is None:
        return
    left, right = st.columns(2)
    with left:
        st.markdown(f"**{tr('ef.mask_title', n=view.n, w=view.w)}**")
        draw(charts.mask_chart, view.keep, words())
        check_line("ef.window_equal", view.difference, w=view.w)
    with right:
        st.markdown(f"**{tr('ef.reach_title', n=view.n)}**")
        draw(charts.reach_chart, view.reach, words())
    last_field, last_formula = view.field[-1], view.formula[-1]
    st.markdown(tr("ef.reach_line", layers=view.layers, field=last_field, w=view.w, n=view.n,
                   formula=1 + view.layers * (view.w - 1)))
    if last_field != last_formula:
        st.error(tr("ef.reach_mismatch"))
    table = pd.DataFrame({tr_plain("ef.col_layers_n"): list(range(view.layers + 1)),
                          tr_plain("ef.col_field"): list(view.field),
                          tr_plain("ef.col_formula"): list(view.formula)})
    st.dataframe(table, hide_index=True, width="content")


# ── 5. Rotary positions ──────────────────────────────────────────────────────────────────────

def rotary() -> None:
    st.markdown(tr("ef.rotary_intro"))
    with st.container(border=True):
        c = st.columns(5, vertical_alignment="bottom")
        seed = seed_input(c[0])
        d = size_input(c[1], "ef_rd", "ef.d")
        m = size_input(c[2], "ef_m", "ef.m", lowest=0)
        kn = size_input(c[3], "ef_kn", "ef.kn", lowest=0)
        pair = size_input(c[4], "ef_pair", "ef.pair", lowest=0)
    view, error = settings.last_good("ef_rotary_good", partial(ef.rotary_view, seed, d, m, kn, pair, limits_now()))
    if error is not None:
        show_error(error, kept=view is not None)
    if view is None:
        return
    d, i = view.d, view.pair
    before, after = ef.rotated_pair(view)
    left, right = st.columns([4, 6])
    with left:
        draw(charts.rotation_chart, before, after, {**words(), "first": tr_plain("ef.dim_n", i=i),
                                                   "second": tr_plain("ef.dim_n", i=i + d // 2)})
    with right:
        st.markdown(tr("ef.angle", i=i, d=d, theta=step_text(view.theta), m=view.m, angle=step_text(view.angle),
                       degrees=step_text(math.degrees(view.angle))))
        st.markdown(tr("ef.pair_moved", i=i, j=i + d // 2, a=step_text(before[0]), b=step_text(before[1]),
                       a2=step_text(after[0]), b2=step_text(after[1])))
    st.subheader(tr("ef.pairings_header"))
    dims = list(range(d))
    half, inter = st.columns(2)
    with half:
        st.markdown(tr("ef.half_pairs", pairs=listed(f"({j}, {j + d // 2})" for j in range(d // 2))))
        st.dataframe(number_frame([view.q, view.half], [tr_plain("ef.row_q"), tr_plain("ef.row_rotated")],
                                  [str(j) for j in dims]), width="content")
    with inter:
        st.markdown(tr("ef.interleaved_pairs", pairs=listed(f"({2 * j}, {2 * j + 1})" for j in range(d // 2))))
        st.dataframe(number_frame([view.q, view.interleaved], [tr_plain("ef.row_q"), tr_plain("ef.row_rotated")],
                                  [str(j) for j in dims]), width="content")
    st.markdown(tr("ef.permutation", p=", ".join(str(int(j)) for j in view.permutation)))
    check_line("ef.permutation_equal", view.permuted_difference)
    check_line("ef.llama_equal", view.transformers_difference, m=view.m)
    check_line("ef.gptj_equal", view.gptj_difference, m=view.m)
    st.subheader(tr("ef.shift_header"))
    st.markdown(tr("ef.shift_intro", m=view.m, n=view.n_k, distance=view.m - view.n_k))
    table = pd.DataFrame([{tr_plain("ef.col_shift"): r["s"], tr_plain("ef.col_qpos"): r["m"],
                           tr_plain("ef.col_kpos"): r["n"], tr_plain("ef.col_rotary_score"): step_text(r["rotary"]),
                           tr_plain("ef.col_added_score"): step_text(r["added"])} for r in view.shifts])
    st.dataframe(table, hide_index=True, width="content")
    spread = ef.spread([r["rotary"] for r in view.shifts])
    added = ef.spread([r["added"] for r in view.shifts])
    st.markdown(tr("ef.shift_words", rotary=difference_text(spread), added=step_text(added), k=len(view.shifts)))


PARTS = {"tiles": tiles, "traffic": traffic, "heads": heads, "window": window, "rotary": rotary}
PUBLISHES = {"tiles"}  # parts that write the link themselves (inside their fragment)


def drawn_keys(part: str) -> frozenset:
    """The settings whose widgets ``part`` draws in this run (some only when a switch shows them)."""
    keys = set(PART_KEYS[part])
    if part == "tiles":
        keys -= {k for k, on in (("ef_window", "ef_windowed"), ("ef_qkv", "ef_typed")) if not settings.value(on)}
    if part == "traffic":
        keys -= {"ef_tbq", "ef_tbk"} if settings.value("ef_tblocks") == "sram" else {"ef_sram"}
    return frozenset(keys)


def draw_part(part: str) -> None:
    """One part of the page, then the link (the tiles write it in their steps' fragment, or stop without a view).

    First the settings of the parts not shown are put back from their shadows: Streamlit drops an undrawn widget's state, and the link is
    written from session state, so a link made on one part would lose the others' (found by the fuzz walk)."""
    drawn = drawn_keys(part)
    before = st.session_state.get("ef_drawn", drawn)
    for f in settings.fields("efficient"):
        if f.key not in drawn or f.key not in before:  # its shadow: Streamlit may hand back a widget's first value
            settings.put(f.key, st.session_state.get(settings.shadow(f.key), f.default))  # when it was not drawn
    st.session_state["ef_drawn"] = drawn
    PARTS[part]()
    if part not in PUBLISHES:
        links.publish("efficient")
