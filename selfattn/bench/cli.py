"""``python -m selfattn.bench``: time the implementations, print a table and the ratios, save the records.

Command line (``python -m selfattn.bench --help``)::

    python -m selfattn.bench --device cpu --dtype float32 --batch 1 --d-model 512 \\
        --heads 1 8 --seq-len 256 1024 2048 --impl naive fused torch_mha --out results.json

writes one record per (heads, seq_len, impl) to each ``--out`` file: CSV when the name ends in
``.csv``, JSON otherwise (``--out r.json r.csv`` saves the same run both ways).
``python -m selfattn.bench --kv-cache --steps 16 64 256`` counts and times a decoder writing m tokens with and
without a key/value cache (:mod:`selfattn.bench.cache`).
Exit status: 0 when every run finished, 2 when the configuration is invalid (nothing runs) or
the memory guard refused a run, 3 when a run hit out-of-memory or another kernel error (the
file is still written).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

from selfattn.bench.limits import MiB, BenchConfig
from selfattn.bench.machine import device_name
from selfattn.bench.ratios import NOISY_IQR_SHARE, is_noisy, speed_ratios
from selfattn.bench.results import write_results
from selfattn.bench.sweep import run_benchmark
from selfattn.core.torch_attention import IMPLS
from selfattn.errors import InputError

DESCRIPTION = "Time naive, fused and reference multi-head attention on CPU or CUDA; save, load and check results."


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m selfattn.bench", description=DESCRIPTION)
    p.add_argument("--device", default="cpu", help="cpu or cuda")
    p.add_argument("--dtype", default="float32", help="float32, bfloat16 or float16")
    p.add_argument("--batch", type=int, default=1, help="B")
    p.add_argument("--seq-len", type=int, nargs="+", default=[256], help="one or more sequence lengths n")
    p.add_argument("--d-model", type=int, default=512, help="model width")
    p.add_argument("--heads", type=int, nargs="+", default=[1, 8], help="one or more head counts, e.g. 1 8")
    p.add_argument("--impl", nargs="+", default=list(IMPLS), help="any of " + " ".join(IMPLS))
    p.add_argument("--warmup", type=int, default=3, help="untimed calls before timing")
    p.add_argument("--min-run-time", type=float, default=1.0, help="seconds of timing per run")
    p.add_argument("--max-memory-mib", type=int, default=None, help="refuse runs estimated above this")
    p.add_argument("--no-guard", action="store_true", help="CUDA only: skip the memory guard (OOM becomes a record)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=None, help="CPU threads (default: torch's own setting)")
    p.add_argument("--out", nargs="+", default=[], help="results file(s): .csv for CSV, anything else JSON")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    return p


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status (see the module docstring). ``--kv-cache`` counts and
    times decoding with and without a key/value cache instead (:mod:`selfattn.bench.cache`)."""
    if "--kv-cache" in (sys.argv[1:] if argv is None else argv):
        from selfattn.bench import cache

        return cache.main(argv)
    args = _parser().parse_args(argv)
    config = BenchConfig(device=args.device, dtype=args.dtype, batch=args.batch, seq_lens=tuple(args.seq_len),
                         d_model=args.d_model, heads=tuple(args.heads), impls=tuple(args.impl), warmup=args.warmup,
                         min_run_time=args.min_run_time, guard=not args.no_guard, seed=args.seed, threads=args.threads,
                         memory_cap_bytes=None if args.max_memory_mib is None else args.max_memory_mib * MiB)
    say = (lambda *a: None) if args.quiet else (lambda *a: print(*a, file=sys.stderr, flush=True))
    try:
        records = run_benchmark(config, progress=lambda done, total, label: label and say(
            f"[{done + 1}/{total}] {label}"))  # counted from 1: the run starting now
    except InputError as exc:
        print(f"error [{exc.code}]: {exc}", file=sys.stderr)
        return 2
    print(f"{'impl':>9} {'h':>3} {'n':>6} {'median_ms':>10} {'iqr_ms':>8} {'GFLOP/s':>8} {'peakMiB':>9}  status")
    for r in records:
        num = lambda v, f: format(v, f) if v is not None else "-"
        peak = None if r["peak_mem_bytes"] is None else r["peak_mem_bytes"] / MiB
        print(f"{r['impl']:>9} {r['heads']:>3} {r['seq_len']:>6} {num(r['median_ms'], '10.3f')} "
              f"{num(r['iqr_ms'], '8.3f')} {num(r['gflops'], '8.1f')} {num(peak, '9.1f')}  {r['status']} {r['error']}"
              + ("noisy" if is_noisy(r) else ""))
    if any(is_noisy(r) for r in records):
        print(f"noisy: IQR above {NOISY_IQR_SHARE:.0%} of the median; time those runs again on a quiet machine.")
    for slower, faster in (("naive", "fused"), ("fused", "torch_mha")):
        for q in speed_ratios(records, slower, faster):
            print(f"{slower}/{faster} time ratio h={q['heads']} n={q['seq_len']}: {q['ratio']:.2f}")
    about = {"measured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
             "machine": f"{device_name(config.device)}, {platform.node() or platform.machine()}"}
    for out in args.out:
        print(f"wrote {write_results(records, out, about)}")
    statuses = {r["status"] for r in records}
    return 2 if "refused" in statuses else 3 if statuses - {"ok"} else 0
