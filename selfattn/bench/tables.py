"""The Heads & devices page's results as tables: one row per run, and the ratios that compare implementations.

Pure: records in, pandas frames out, in the language asked for (files and links keep the field names and
the implementation ids naive, fused, torch_mha).
"""

from __future__ import annotations

import pandas as pd

from selfattn.bench.ratios import is_noisy, speed_ratios
from selfattn.core.torch_attention import IMPLS
from selfattn.display.units import memory_text
from selfattn.i18n import Markdown, t, t_plain

RESULT_COLUMNS = ("source", "impl", "heads", "seq_len", "batch", "d_model", "dtype", "device_name", "median_ms",
                  "iqr_ms", "iqr_share", "noisy", "min_ms", "gflops", "peak_mem", "num_threads", "status", "error")
NOISY_MARK = "⚠"  # the noisy column's mark; the warning above the table explains it
CHART_FIELDS = ("source", "series", "device_name", "dtype", "batch", "d_model", "seq_len", "median_ms", "gflops",
                "peak_mem")  # the fields a benchmark chart's tooltip names


def impl_name(impl: str, lang: str) -> str:
    """An implementation's name in ``lang`` (files and links keep the ids naive, fused, torch_mha)."""
    return t_plain(f"hd.impl_{impl}", lang) if impl in IMPLS else str(impl)


def column_title(field: str, lang: str) -> Markdown:
    """A record field's column header in ``lang`` (exports keep the field names)."""
    return t(f"hd.col_{field}", lang)


def chart_field_titles(lang: str) -> dict[str, str]:
    """Tooltip titles of :func:`selfattn.display.charts.benchmark_chart`, in ``lang``."""
    return {field: column_title(field, lang) for field in CHART_FIELDS}


def shown_record(record: dict, lang: str) -> dict:
    """A record as the table shows it: IQR as a share of the median, the noisy mark, status and refusal in words."""
    median, iqr = record.get("median_ms"), record.get("iqr_ms")
    error = record.get("error", "")
    if record.get("error_code") == "bench_memory" and record.get("est_mem_bytes"):
        error = t("hd.error_bench_memory", lang, mib=round(record["est_mem_bytes"] / 2**20))
    elif record.get("error_code") in ("bench_time", "bench_rss"):  # runs a hosted sweep skipped, in words
        error = t(f"hd.error_{record['error_code']}", lang)
    return {**record, "iqr_share": round(100 * iqr / median, 1) if median and iqr is not None else None,
            "noisy": NOISY_MARK if is_noisy(record) else "", "status": t(f"hd.status_{record['status']}", lang),
            "impl": impl_name(record.get("impl", ""), lang), "peak_mem": memory_text(record.get("peak_mem_bytes")),
            "error": error}


def results_table(records: list[dict], lang: str) -> pd.DataFrame:
    """The columns a reader compares, one row per run, with headers and statuses in ``lang``."""
    frame = pd.DataFrame([shown_record(r, lang) for r in records])
    frame = frame[[c for c in RESULT_COLUMNS if c in frame.columns]]
    return frame.rename(columns={c: column_title(c, lang) for c in frame.columns})


def ratio_title(what: str, a: str, b: str, lang: str) -> str:
    """A ratio column's header, the implementations named in ``lang``."""
    return t_plain(f"hd.col_{what}_ratio", lang, a=impl_name(a, lang), b=impl_name(b, lang))


def ratio_table(records: list[dict], lang: str) -> pd.DataFrame:
    """naive/fused (medians and best rounds) and fused/torch_mha time ratios, and naive/fused peak memory."""
    rows = []
    for source in dict.fromkeys(r.get("source", "") for r in records):
        mine = [r for r in records if r.get("source", "") == source]
        naive = {(r["heads"], r["seq_len"]): r for r in speed_ratios(mine, "naive", "fused")}
        mha = {(r["heads"], r["seq_len"]): r for r in speed_ratios(mine, "fused", "torch_mha")}
        best = {(r["heads"], r["seq_len"]): r for r in speed_ratios(mine, "naive", "fused", "min_ms")}
        # Files written before the best round was kept have none: the column says so, not a bare dash (and so
        # holds text: 4 significant digits where there is a ratio).
        no_best = t_plain("hd.best_missing", lang) if not any(r.get("min_ms") for r in mine) else None
        mem = {(r["impl"], r["heads"], r["seq_len"]): r.get("peak_mem_bytes") for r in mine if r["status"] == "ok"}
        for key in sorted(set(naive) | set(mha)):
            h, n = key
            m_naive, m_fused = mem.get(("naive", h, n)), mem.get(("fused", h, n))
            rows.append({
                column_title("source", lang): source, column_title("heads", lang): h,
                column_title("seq_len", lang): n,
                ratio_title("time", "naive", "fused", lang): naive[key]["ratio"] if key in naive else None,
                ratio_title("best", "naive", "fused", lang): f"{best[key]['ratio']:.4g}" if key in best else no_best,
                ratio_title("time", "fused", "torch_mha", lang): mha[key]["ratio"] if key in mha else None,
                ratio_title("mem", "naive", "fused", lang): (m_naive / m_fused) if m_naive and m_fused else None,
            })
    return pd.DataFrame(rows)


def values_text(records: list[dict], field: str) -> str:
    """The distinct values of ``field`` in ``records``, sorted, joined with commas ("" when none)."""
    return ", ".join(str(v) for v in sorted({r[field] for r in records if r.get(field) is not None}))
