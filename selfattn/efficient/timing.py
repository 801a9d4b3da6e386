"""Issue 53, item 3's measurement: torch's ``scaled_dot_product_attention`` against the materialised softmax
(q kᵀ / √d → softmax → @ v), timed on this machine, with the peak memory of each measured.

* Time: the median wall time of ``repeats`` calls after one warm-up call (``time.perf_counter``).
* Peak memory: **measured**, by ``torch.profiler`` with ``profile_memory=True``: the largest running sum of the CPU
  allocator's alloc/free events during one call (:func:`selfattn.bench.sweep.cpu_peak_bytes`, as Heads & devices
  measures its sweeps). It counts torch's allocations only (the inputs already exist; the output is counted), made
  by the calling thread and the intra-op threads it starts, not the process's resident memory.
* ``scores_bytes`` is **computed**, not measured: n · n · 4, the bytes of one float32 n × n matrix, for scale.

Run by ``benchmarks/bench_efficient.py`` (figures committed in ``benchmarks/bench_efficient.json`` and
docs/benchmarks.md) and by the page's "Time it on this server" (a bounded version: :data:`PAGE_SIZES`).
No Streamlit here; torch is imported when a measurement runs.
"""

from __future__ import annotations

import json
import math
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

SIZES = (256, 512, 1024, 2048, 4096)  # the script's n
PAGE_SIZES = {"local": (256, 512, 1024, 2048), "hosted": (256, 512)}  # the page's button, smaller on a shared demo
D = 64
SCRIPT_REPEATS = 7
PAGE_REPEATS = 3
RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_efficient.json"
COMMAND = "python benchmarks/bench_efficient.py --write"
FIELDS = ("n", "d", "sdpa_ms", "materialised_ms", "sdpa_peak_bytes", "materialised_peak_bytes", "scores_bytes",
          "difference")


def materialised(q, k, v):
    """softmax(q kᵀ / √d) v with the n × n scores and weights stored, as standard attention does."""
    import torch

    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return torch.softmax(scores, dim=-1) @ v


def _median_ms(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def measure(n: int, d: int = D, repeats: int = SCRIPT_REPEATS, seed: int = 0) -> dict:
    """Both ways at one n: median milliseconds, measured peak bytes, the n × n matrix's computed bytes, and the
    largest difference between their outputs."""
    import torch
    import torch.nn.functional as F

    from selfattn.bench.sweep import cpu_peak_bytes

    gen = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(1, 1, n, d, generator=gen) for _ in range(3))
    sdpa = lambda: F.scaled_dot_product_attention(q, k, v)  # noqa: E731
    plain = lambda: materialised(q, k, v)  # noqa: E731
    with torch.no_grad():
        difference = float((sdpa() - plain()).abs().max())  # also the warm-up call of each
        row = {"n": n, "d": d, "sdpa_ms": _median_ms(sdpa, repeats), "materialised_ms": _median_ms(plain, repeats),
               "sdpa_peak_bytes": int(cpu_peak_bytes(sdpa)), "materialised_peak_bytes": int(cpu_peak_bytes(plain)),
               "scores_bytes": n * n * 4, "difference": difference}
    return row


def run(sizes=SIZES, d: int = D, repeats: int = SCRIPT_REPEATS, progress: Callable[[int, dict], None] | None = None
        ) -> list[dict]:
    """:func:`measure` at each n in turn; ``progress(i, row)`` after each."""
    rows = []
    for i, n in enumerate(sizes):
        rows.append(measure(n, d, repeats))
        if progress is not None:
            progress(i, rows[-1])
    return rows


def machine() -> dict:
    """Where the figures were measured: the CPU, its cores, torch's threads and version, the date."""
    import torch

    from selfattn.bench.machine import device_name

    return {"cpu": device_name("cpu"), "cores": os.cpu_count() or 1, "threads": torch.get_num_threads(),
            "torch": torch.__version__.split("+")[0], "python": platform.python_version(),
            "date": time.strftime("%Y-%m-%d")}


def read_results(path: Path = RESULTS) -> dict | None:
    """The committed figures ({"machine", "command", "rows"}), or None when the file is missing or not of this
    form (the page then offers only the button)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        rows = [{f: row[f] for f in FIELDS} for row in data["rows"]]
        about = {k: data["machine"][k] for k in ("cpu", "cores", "threads", "torch", "date")}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not rows:
        return None
    return {"machine": about, "command": str(data.get("command", COMMAND)), "rows": rows}


def summary(rows: list[dict]) -> dict:
    """What the words say of a run, at its largest n: which was faster and by how much, which peaked lower and by
    how much, and at how many sizes SDPA was the faster and the lighter."""
    last = max(rows, key=lambda r: r["n"])
    s_ms, m_ms = last["sdpa_ms"], last["materialised_ms"]
    s_b, m_b = max(last["sdpa_peak_bytes"], 1), max(last["materialised_peak_bytes"], 1)
    return {"n": last["n"], "sdpa_ms": s_ms, "materialised_ms": m_ms,
            "sdpa_faster": s_ms <= m_ms, "time_ratio": max(s_ms, m_ms) / max(min(s_ms, m_ms), 1e-9),
            "sdpa_lighter": s_b <= m_b, "memory_ratio": max(s_b, m_b) / min(s_b, m_b),
            "sdpa_peak": last["sdpa_peak_bytes"], "materialised_peak": last["materialised_peak_bytes"],
            "faster_at": sum(r["sdpa_ms"] <= r["materialised_ms"] for r in rows),
            "lighter_at": sum(r["sdpa_peak_bytes"] <= r["materialised_peak_bytes"] for r in rows), "sizes": len(rows)}


def mib(nbytes: float) -> str:
    """Bytes as MiB with two decimals."""
    return f"{nbytes / 2**20:.2f}"
