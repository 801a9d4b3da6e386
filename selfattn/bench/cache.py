"""What a key/value cache saves when a decoder writes one token after another: counted, and timed.

Generating m target tokens runs the decoder m times. Without a cache, step t runs it on all t + 1 rows written so
far (every row's queries, keys and values again, and the memory's keys and values again) to get the last row.
With a cache (:func:`selfattn.core.decoder.decode_with_cache`), step t computes row t only: its query, key and
value, attention over the t + 1 cached keys, and the rest of the layer for that one row; the memory's keys and
values are computed once, before step 0.

:func:`step_costs` counts the multiply-adds of each step both ways (matrix products only: the softmax, the
LayerNorms and the activation are a few operations per number, left out alike on both sides); :func:`time_decoding`
times both ways with the core's own float64 code. ``python -m selfattn.bench --kv-cache`` prints both.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass

import numpy as np

from selfattn.errors import InputError

MAX_STEPS = 4096  # positions counted; far more than the page draws
MAX_TIMED = 512  # positions timed (the uncached side grows with the square of it)


@dataclass(frozen=True)
class StepCost:
    t: int  # the step (0-based): the target has t + 1 rows once it is done
    cached: int  # multiply-adds with the cache
    uncached: int  # multiply-adds recomputing every row


def _check(name: str, value: int, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise InputError("size_not_positive", f"{name} must be a whole number from {low} to {high}, got {value!r}.",
                         name=name, value=str(value))
    return int(value)


def layer_cost(rows: int, keys: int, n: int, d: int, d_ff: int, *, memory: bool) -> int:
    """Multiply-adds of one decoder layer computing ``rows`` query rows that attend over ``keys`` target rows and
    ``n`` memory rows: self-attention (Q, K, V of the new rows, scores, weights × V, W_o), cross-attention (Q,
    scores, weights × V, W_o, and the memory's K and V when ``memory``), the feed-forward network."""
    self_attention = 3 * rows * d * d + 2 * rows * keys * d + rows * d * d
    cross = rows * d * d + 2 * rows * n * d + rows * d * d + (2 * n * d * d if memory else 0)
    return self_attention + cross + 2 * rows * d * d_ff


def step_costs(steps: int, n: int, d_model: int, d_ff: int, layers: int) -> list[StepCost]:
    """Each step's multiply-adds with and without a cache, for a target of ``steps`` tokens over ``n`` source
    positions. With the cache, step 0 also computes the memory's keys and values, once for all steps."""
    steps = _check("steps", steps, 1, MAX_STEPS)
    n, d, d_ff, layers = (_check(name, v, 1, 100_000) for name, v in
                          (("n", n), ("d_model", d_model), ("d_ff", d_ff), ("layers", layers)))
    return [StepCost(t=t, cached=layers * layer_cost(1, t + 1, n, d, d_ff, memory=t == 0),
                     uncached=layers * layer_cost(t + 1, t + 1, n, d, d_ff, memory=True))
            for t in range(steps)]


def time_decoding(steps: int, n: int, d_model: int, num_heads: int, d_ff: int, layers: int, *, repeats: int = 3,
                  seed: int = 0) -> dict[str, float]:
    """Seconds to decode ``steps`` positions with the cache and without it (the median of ``repeats``), with the
    core's float64 code on random weights, and the largest difference between the two outputs."""
    from selfattn.core.decoder import DecoderLayerParams, decode_with_cache, decoder_layer

    steps = _check("steps", steps, 1, MAX_TIMED)
    rng = np.random.default_rng(seed)
    params = [DecoderLayerParams.random(d_model, num_heads, d_ff, seed=seed + 2 * k) for k in range(layers)]
    tgt, memory = rng.normal(size=(steps, d_model)), rng.normal(size=(n, d_model))

    def uncached() -> np.ndarray:
        rows = []
        for t in range(steps):
            state = tgt[:t + 1]
            for p in params:
                state = decoder_layer(state, memory, p, causal=True).outputs
            rows.append(state[-1])
        return np.stack(rows)

    def timed(run) -> tuple[float, np.ndarray]:
        seconds, out = [], None
        for _ in range(repeats):
            start = time.perf_counter()
            out = run()
            seconds.append(time.perf_counter() - start)
        return statistics.median(seconds), out

    with_cache, a = timed(lambda: decode_with_cache(tgt, memory, params).outputs)
    without, b = timed(uncached)
    return {"cached_s": with_cache, "uncached_s": without, "max_difference": float(np.max(np.abs(a - b)))}


def main(argv: list[str] | None = None) -> int:
    """``python -m selfattn.bench --kv-cache [--steps 32 128] ...``: the counts and the times, as a table."""
    p = argparse.ArgumentParser(prog="python -m selfattn.bench --kv-cache",
                                description="What a key/value cache saves in decoding: multiply-adds and time.")
    p.add_argument("--kv-cache", action="store_true", help="this mode")
    p.add_argument("--steps", type=int, nargs="+", default=[16, 64, 256], help="target lengths m")
    p.add_argument("--src-len", type=int, default=16, help="source length n (the memory's rows)")
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--d-ff", type=int, default=256)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--no-time", action="store_true", help="count only")
    args = p.parse_args(argv)
    try:
        print(f"# decoder: {args.layers} layers, d_model {args.d_model}, {args.heads} heads, d_ff {args.d_ff}, "
              f"source {args.src_len} positions; numpy float64 (selfattn.core.decoder)")
        print(f"{'m':>5} {'madds cached':>14} {'madds uncached':>15} {'saved ×':>8}"
              + ("" if args.no_time else f" {'cached s':>9} {'uncached s':>11} {'faster ×':>9} {'max diff':>9}"))
        for m in args.steps:
            costs = step_costs(m, args.src_len, args.d_model, args.d_ff, args.layers)
            cached, uncached = sum(c.cached for c in costs), sum(c.uncached for c in costs)
            line = f"{m:>5} {cached:>14,} {uncached:>15,} {uncached / cached:>8.1f}"
            if not args.no_time:
                t = time_decoding(m, args.src_len, args.d_model, args.heads, args.d_ff, args.layers,
                                  repeats=args.repeats)
                line += (f" {t['cached_s']:>9.4f} {t['uncached_s']:>11.4f} {t['uncached_s'] / t['cached_s']:>9.1f}"
                         f" {t['max_difference']:>9.1e}")
            print(line, flush=True)
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0
