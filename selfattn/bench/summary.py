"""What benchmark records say, in numbers taken from them: one setup (machine and sizes) per chart,
at most six lines a chart, and the sentences that sum a setup up.

Nothing here is worded: a sentence is a catalog key and its parameters (:class:`Sentence`), so the
page says it in the visitor's language and a test can hold every number to the records. Records
are those of :mod:`selfattn.bench` (``load_results`` or ``run_benchmark``), with an optional
``source`` naming the run or file. Plain Python: no torch, no Streamlit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from selfattn.display.units import memory_text

MAX_SERIES = 6  # lines one chart may hold and still tell apart (one hue each)


@dataclass(frozen=True)
class Setup:
    """The records of one chart: one source, one machine, one precision, batch and d_model."""

    source: str
    device: str  # "cpu" or "cuda"
    device_name: str
    dtype: str
    batch: int
    d_model: int
    records: tuple[dict, ...] = field(compare=False, repr=False)


@dataclass(frozen=True)
class Sentence:
    """A sentence of the summary: a catalog key and the numbers and names it says (already written as text)."""

    key: str
    params: dict


def setups(records: list[dict]) -> list[Setup]:
    """The records split by source and by (device, precision, batch, d_model), in the order they come.

    Timings of different machines or sizes are not drawn on one chart: a 2-core CPU at d_model 512 and an
    H100 at d_model 2048 and batch 4 differ by orders of magnitude for reasons no line of the chart shows.
    """
    groups: dict[tuple, list[dict]] = {}
    for r in records:
        key = (r.get("source", ""), r["device"], r["device_name"], r["dtype"], r["batch"], r["d_model"])
        groups.setdefault(key, []).append(r)
    return [Setup(*key, records=tuple(rs)) for key, rs in groups.items()]


def head_groups(records, max_series: int = MAX_SERIES) -> list[tuple[int, ...]]:
    """The head counts of ``records`` in groups whose lines (implementations x heads) number at most ``max_series``."""
    impls = max(1, len({r["impl"] for r in records}))
    heads = sorted({r["heads"] for r in records})
    size = max(1, max_series // impls)
    return [tuple(heads[i:i + size]) for i in range(0, len(heads), size)]


def chart_plan(records: list[dict], max_charts: int = 6) -> tuple[list[tuple[Setup, tuple[int, ...]]], int]:
    """Which (setup, head counts) pairs get a chart: the first ``max_charts`` of them, in order, and how many
    there are in all (an uploaded file may hold thousands of setups; the table shows every record).

    Only pairs with a finished run count: a setup whose runs were all refused has nothing to draw.
    """
    pairs = [(setup, heads) for setup in setups(records) for heads in head_groups(setup.records)
             if any(r["heads"] in heads and r.get("status") == "ok" for r in setup.records)]
    return pairs[:max_charts], len(pairs)


def ratio_text(value: float) -> str:
    """A ratio as the sentences write it: two decimals ("0.44", "4.82")."""
    return f"{value:.2f}"


def span_text(values) -> str:
    """Low to high ratios, "2.20–4.82" (one value alone when they agree to two decimals)."""
    lo, hi = ratio_text(min(values)), ratio_text(max(values))
    return lo if lo == hi else f"{lo}–{hi}"


def _ok(records, impl: str) -> dict[tuple[int, int], dict]:
    return {(r["heads"], r["seq_len"]): r for r in records
            if r["impl"] == impl and r.get("status") == "ok" and r.get("median_ms")}


def time_ratios(records, slower: str = "naive", faster: str = "fused") -> dict[int, list[tuple[int, float]]]:
    """``slower`` / ``faster`` median time by head count: [(seq_len, ratio), ...] in order of n (above 1:
    ``faster`` is faster). Only (heads, n) where both ran."""
    a, b = _ok(records, slower), _ok(records, faster)
    out: dict[int, list[tuple[int, float]]] = {}
    for h, n in sorted(set(a) & set(b)):
        out.setdefault(h, []).append((n, a[(h, n)]["median_ms"] / b[(h, n)]["median_ms"]))
    return out


def time_spreads(records, slower: str = "naive", faster: str = "fused") -> dict[int, list[float]]:
    """By head count, in order of n as :func:`time_ratios`: the run's spread at each (heads, n), the larger of the
    two implementations' IQR / median (0 where a record has no IQR)."""
    a, b = _ok(records, slower), _ok(records, faster)
    out: dict[int, list[float]] = {}
    for h, n in sorted(set(a) & set(b)):
        spread = max((r.get("iqr_ms") or 0.0) / r["median_ms"] for r in (a[(h, n)], b[(h, n)]))
        out.setdefault(h, []).append(spread)
    return out


def summarize(setup: Setup, sdpa: dict[str, SdpaRun] | None = None) -> list[Sentence]:
    """Two to four sentences on one setup, every number from its records (and the SDPA file's).

    1. For the fewest and the most heads timed, how much faster fused is than three steps over the
       lengths timed (or slower): ``hd.sum_faster``, ``hd.sum_slower`` or ``hd.sum_mixed``; ``hd.sum_noise``
       when every gap is inside its run's spread (IQR / median of either), so no winner can be named.
    2. Peak memory of both at the longest length with the most heads: ``hd.sum_memory``.
    3. On a GPU where fused loses at some head count: why, from the SDPA backend measurement of
       that GPU in ``sdpa`` (by file name), :func:`why_fused_slower`.
    """
    said = []
    ratios, spreads = time_ratios(setup.records), time_spreads(setup.records)
    ends = sorted(ratios)[::max(1, len(ratios) - 1)]  # the fewest and the most heads: the others lie between
    for h in ends:
        pairs = ratios[h]
        values = [r for _, r in pairs]
        lengths = {"n_lo": pairs[0][0], "n_hi": pairs[-1][0]}
        if all(0 < s and abs(r - 1) <= s for r, s in zip(values, spreads[h])):  # every gap inside its spread
            said.append(Sentence("hd.sum_noise", {"heads": h, "ratio": span_text(values),
                                                  "spread": f"{100 * max(spreads[h]):.1f}", **lengths}))
        elif min(values) > 1:
            said.append(Sentence("hd.sum_faster", {"heads": h, "times": span_text(values), **lengths}))
        elif max(values) < 1:
            said.append(Sentence("hd.sum_slower", {"heads": h, "ratio": span_text(values),
                                                   "times": span_text([1 / v for v in values]), **lengths}))
        else:
            said.append(Sentence("hd.sum_mixed", {"heads": h, "first": ratio_text(values[0]),
                                                  "last": ratio_text(values[-1]), **lengths}))
    naive, fused = _ok(setup.records, "naive"), _ok(setup.records, "fused")
    both = [k for k in set(naive) & set(fused) if naive[k].get("peak_mem_bytes") and fused[k].get("peak_mem_bytes")]
    if both:
        h, n = max(both, key=lambda k: (k[1], k[0]))
        a, b = naive[(h, n)]["peak_mem_bytes"], fused[(h, n)]["peak_mem_bytes"]
        said.append(Sentence("hd.sum_memory", {"heads": h, "n": n, "naive": memory_text(a), "fused": memory_text(b),
                                               "ratio": ratio_text(a / b)}))
    slower = [h for h, pairs in ratios.items() if max(r for _, r in pairs) < 1]
    if setup.device == "cuda" and slower:
        why = why_fused_slower(setup, min(slower), sdpa or {})
        if why is not None:
            said.append(why)
    return said


# ── The SDPA backends file (benchmarks/bench_sdpa_backends.py's console output) ──────────────

@dataclass(frozen=True)
class SdpaRun:
    """One run of ``benchmarks/bench_sdpa_backends.py``: the GPU, the shape timed and a row per (n, backend)."""

    device_name: str
    head_dim: int | None  # None: the file does not say
    heads: int | None
    rows: tuple[dict, ...]  # {"seq_len", "backend", "sdpa_ms", "sdpa_tflops", "module_ms", "module_tflops"}
    #                         or {"seq_len", "backend", "unavailable": the error's first words}


_SHAPE = re.compile(r"shape: batch (\d+), heads (\d+), head_dim (\d+)")
_ROW = re.compile(r"^\s*(\d+)\s+(default|flash|cudnn|efficient)\s+(.*)$")


def read_sdpa_backends(text: str) -> SdpaRun:
    """Read the console output of ``bench_sdpa_backends.py`` (first line: the GPU; a ``shape:`` line; the table).

    Raises:
        ValueError: no row could be read.
    """
    lines = text.splitlines()
    name = lines[0].split("  torch ")[0].strip() if lines else ""
    shape = _SHAPE.search(text)
    rows = []
    for line in lines:
        m = _ROW.match(line)
        if not m:
            continue
        n, backend, rest = int(m.group(1)), m.group(2), m.group(3).strip()
        numbers = rest.split()
        if len(numbers) == 4 and all(re.fullmatch(r"[\d.]+", x) for x in numbers):
            rows.append({"seq_len": n, "backend": backend, "sdpa_ms": float(numbers[0]),
                         "sdpa_tflops": float(numbers[1]), "module_ms": float(numbers[2]),
                         "module_tflops": float(numbers[3])})
        else:
            rows.append({"seq_len": n, "backend": backend, "unavailable": rest})
    if not rows:
        raise ValueError("no backend rows in the SDPA backends file")
    return SdpaRun(device_name=name, heads=int(shape.group(2)) if shape else None,
                   head_dim=int(shape.group(3)) if shape else None, rows=tuple(rows))


def read_sdpa_file(path: str | Path) -> SdpaRun:
    return read_sdpa_backends(Path(path).read_text(encoding="utf-8"))


def default_backend(run: SdpaRun) -> str | None:
    """The backend whose SDPA times the default's are nearest at most lengths (the one PyTorch picked)."""
    votes: dict[str, int] = {}
    for n in sorted({r["seq_len"] for r in run.rows}):
        at = {r["backend"]: r for r in run.rows if r["seq_len"] == n and "sdpa_ms" in r}
        if "default" not in at:
            continue
        forced = {b: abs(r["sdpa_ms"] - at["default"]["sdpa_ms"]) for b, r in at.items() if b != "default"}
        if forced:
            best = min(forced, key=forced.get)
            votes[best] = votes.get(best, 0) + 1
    return max(votes, key=votes.get) if votes else None


def why_fused_slower(setup: Setup, heads: int, sdpa: dict[str, SdpaRun]) -> Sentence | None:
    """Why fused loses to three steps at ``heads`` heads on this GPU, from its SDPA backend file.

    With a file that timed this head size: which backends refused it and which one the default
    matched (``hd.why_backend``). With one that timed another head size only: what it does show
    (the default's backend and pace there), fused's and three steps' pace here, and that it does
    not say which backend runs at this head size (``hd.why_unmeasured``). None without a file for
    this GPU.
    """
    found = [(name, run) for name, run in sdpa.items() if run.device_name == setup.device_name]
    if not found:
        return None
    name, run = found[0]
    head_dim = setup.d_model // heads
    mine = [r for r in setup.records if r["heads"] == heads and r.get("status") == "ok" and r.get("gflops")]
    pace = {impl: [r["gflops"] / 1000 for r in mine if r["impl"] == impl] for impl in ("naive", "fused")}
    common = {"heads": heads, "head_dim": head_dim, "file": name,
              "fused": _tflops_span(pace["fused"]), "naive": _tflops_span(pace["naive"])}
    backend = default_backend(run)
    if run.head_dim == head_dim:
        refused = sorted({r["backend"] for r in run.rows if "unavailable" in r})
        return Sentence("hd.why_backend", {**common, "backend": backend or "", "refused": refused})
    default = [r["sdpa_tflops"] for r in run.rows if r["backend"] == "default" and "sdpa_tflops" in r]
    return Sentence("hd.why_unmeasured", {**common, "measured": run.head_dim if run.head_dim else "?",
                                          "backend": backend or "", "default": _tflops_span(default)})


def _tflops_span(values) -> str:
    """TFLOP/s low to high, whole numbers: "158–257"."""
    if not values:
        return "–"
    lo, hi = f"{min(values):.0f}", f"{max(values):.0f}"
    return lo if lo == hi else f"{lo}–{hi}"

