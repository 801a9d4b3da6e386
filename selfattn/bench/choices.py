"""What the Heads & devices page offers: its sizes, devices and bundled results (no Streamlit).

The settings table (``ui/state.py``) and the page (``ui/heads/page.py``) both read these, so the table
depends on no page helper.
"""

from __future__ import annotations

import functools
from pathlib import Path

from selfattn import bench
from selfattn.errors import InputError

MAX_N = 64  # tokens in the single-vs-multi comparison
D_CHOICES = (8, 16, 32, 64, 128)
SEQ_CHOICES = (32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)
MAX_HEADS = 16
BENCH_D_CHOICES = (64, 128, 256, 512, 1024, 2048)
BENCH_HEADS = (1, 2, 4, 8, 16)
RESULTS_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


def random_sizes(seed, n, d_model, max_seed: int) -> tuple[int, int, int]:
    """(seed, n, d_model) of the random input within the widgets' limits, whatever a browser sent:
    the seed to 0 .. max_seed, n to 1 .. MAX_N, d_model to one of D_CHOICES (else the first)."""
    return (min(max(int(seed), 0), max_seed), min(max(int(n), 1), MAX_N),
            int(d_model) if d_model in D_CHOICES else D_CHOICES[0])


def devices() -> list[str]:
    """The devices this machine can run the comparison and the benchmark on."""
    import torch

    return ["cpu", "cuda"] if torch.cuda.is_available() else ["cpu"]


def bench_choices(limits: dict) -> dict:
    """What the benchmark's widgets offer under ``limits`` (the caption states the same numbers).

    Returns:
        ``batch``: the largest batch; ``d_model``, ``heads``, ``seq_len``, ``impls``: the options.
    """
    return {"batch": int(limits["max_batch"]),
            "d_model": [d for d in BENCH_D_CHOICES if d <= limits["max_d_model"]],
            "heads": [h for h in BENCH_HEADS if h <= limits["max_heads"]],
            "seq_len": [n for n in SEQ_CHOICES if n <= limits["max_seq_len"]],
            "impls": list(bench.IMPLS)}


@functools.cache
def bundled_results() -> dict[str, list[dict]]:
    """The results files committed under benchmarks/results/, by file name (validated like uploads)."""
    out = {}
    for path in sorted(RESULTS_DIR.glob("*.json")):
        try:
            out[path.stem] = bench.load_results(path.read_bytes(), path.name)
        except (InputError, OSError):
            continue
    return out
