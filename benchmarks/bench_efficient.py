"""torch's scaled_dot_product_attention against the materialised softmax on this machine (issue 53, item 3).

Usage:
    python benchmarks/bench_efficient.py [--sizes 256 512 1024 2048 4096] [--d 64] [--repeats 7] [--threads T]
                                         [--write]

For each n (one query head, float32, CPU), both ways are called once (the warm-up, and their largest difference),
then timed ``--repeats`` times each (the median is printed), then called once each under ``torch.profiler`` with
``profile_memory=True``: the peak is the largest running sum of the CPU allocator's alloc/free events in that
call (measured; torch's allocations only, not the process's resident memory). "n×n" is computed: the bytes of one
float32 n × n matrix, n · n · 4, for scale. ``--write`` writes the figures to benchmarks/bench_efficient.json
(read by the Efficient attention page, which names the machine); the figures in docs/benchmarks.md come from it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from selfattn.efficient import timing  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(timing.SIZES))
    parser.add_argument("--d", type=int, default=timing.D)
    parser.add_argument("--repeats", type=int, default=timing.SCRIPT_REPEATS)
    parser.add_argument("--threads", type=int, default=None, help="torch's CPU threads (default: torch's own)")
    parser.add_argument("--write", action="store_true", help=f"write {timing.RESULTS.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    about = timing.machine()
    print(f"{about['cpu']}, {about['cores']} cores, {about['threads']} torch threads, torch {about['torch']}, "
          f"d = {args.d}, float32, median of {args.repeats}")
    print(f"{'n':>6} {'SDPA ms':>9} {'softmax ms':>11} {'time ×':>7} {'SDPA MiB':>9} {'softmax MiB':>12} "
          f"{'n×n MiB':>8} {'max diff':>9}")

    def show(_, r):
        print(f"{r['n']:>6} {r['sdpa_ms']:>9.2f} {r['materialised_ms']:>11.2f} "
              f"{r['materialised_ms'] / r['sdpa_ms']:>7.2f} {timing.mib(r['sdpa_peak_bytes']):>9} "
              f"{timing.mib(r['materialised_peak_bytes']):>12} {timing.mib(r['scores_bytes']):>8} "
              f"{r['difference']:>9.1e}", flush=True)

    rows = timing.run(args.sizes, args.d, args.repeats, progress=show)
    s = timing.summary(rows)
    print(f"At n = {s['n']}: SDPA {'faster' if s['sdpa_faster'] else 'slower'} by {s['time_ratio']:.1f}×, peak "
          f"memory {'lower' if s['sdpa_lighter'] else 'higher'} by {s['memory_ratio']:.1f}×; SDPA faster at "
          f"{s['faster_at']} of {s['sizes']} sizes, lighter at {s['lighter_at']} of {s['sizes']}.")
    if args.write:
        data = {"machine": about, "command": "python benchmarks/bench_efficient.py --write"
                + (f" --threads {args.threads}" if args.threads else ""), "memory": "measured: torch.profiler "
                "profile_memory, the peak running sum of CPU alloc/free events in one call; scores_bytes computed "
                "(n * n * 4)", "rows": rows}
        timing.RESULTS.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {timing.RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
