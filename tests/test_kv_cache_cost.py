"""Issue 39: what a key/value cache saves, counted (selfattn.bench.cache) and checked against the shapes of the
products the core's decoder actually computes; timed cached and uncached with the same outputs."""

from __future__ import annotations

import numpy as np
import pytest

from selfattn.bench import cache
from selfattn.core.decoder import DecoderLayerParams, decode_with_cache, decoder_layer
from selfattn.errors import InputError

D, H, D_FF, N, M = 8, 2, 16, 5, 6


def matmul_madds(a_shape, b_shape) -> int:
    """Multiply-adds of (…, r, k) @ (…, k, c): every leading dimension times r·k·c."""
    *lead, r, k = a_shape
    c = b_shape[-1]
    return int(np.prod(lead, dtype=int)) * r * k * c


def counted_from_trace(trace) -> int:
    """The multiply-adds of one decoder layer, read off the shapes of what it computed."""
    total = 0
    for att in (trace.self_attention, trace.cross_attention):
        rows, keys = att.query_input.shape[0], att.key_input.shape[0]
        total += matmul_madds((rows, D), (D, D))  # Q
        total += 2 * matmul_madds((keys, D), (D, D))  # K and V
        total += matmul_madds(att.queries.shape, att.keys.swapaxes(-1, -2).shape)  # scores
        total += matmul_madds(att.weights.shape, att.values.shape)  # weights × V
        total += matmul_madds(att.concat.shape, (D, D))  # W_o
    total += matmul_madds(trace.ff_input.shape, (D, D_FF)) + matmul_madds(trace.ff_act.shape, (D_FF, D))
    return total


def test_the_uncached_count_is_what_the_full_pass_computes_at_every_step():
    params = DecoderLayerParams.random(D, H, D_FF, seed=0)
    rng = np.random.default_rng(1)
    tgt, memory = rng.normal(size=(M, D)), rng.normal(size=(N, D))
    costs = cache.step_costs(M, N, D, D_FF, layers=1)
    for t, cost in enumerate(costs):
        trace = decoder_layer(tgt[:t + 1], memory, params)
        assert cost.uncached == counted_from_trace(trace), t


def test_the_cached_count_is_one_row_over_the_cache_and_the_memory_once():
    params = DecoderLayerParams.random(D, H, D_FF, seed=0)
    rng = np.random.default_rng(1)
    run = decode_with_cache(rng.normal(size=(M, D)), rng.normal(size=(N, D)), [params])
    costs = cache.step_costs(M, N, D, D_FF, layers=1)
    for step, cost in zip(run.steps, costs):
        keys = step.cached_keys[0].shape[1]
        expected = (5 * D * D  # Q, K, V and W_o of the self-attention, Q of the cross-attention (one row each)
                    + D * D  # the cross-attention's W_o
                    + 2 * keys * D + 2 * N * D  # scores and weights × V over the cache and over the memory
                    + 2 * D * D_FF  # the feed-forward network
                    + (2 * N * D * D if step.t == 0 else 0))  # the memory's K and V, once
        assert keys == step.t + 1 and cost.cached == expected
    assert costs[0].cached == costs[0].uncached  # one row, nothing to reuse yet
    assert all(c.uncached > c.cached for c in costs[1:])


def test_the_saving_grows_with_the_length():
    ratio = [sum(c.uncached for c in cs) / sum(c.cached for c in cs)
             for cs in (cache.step_costs(m, 16, 64, 256, 2) for m in (16, 64, 256))]
    assert ratio[0] < ratio[1] < ratio[2] and ratio[2] > 50


def test_timing_both_ways_gives_the_same_outputs():
    timed = cache.time_decoding(6, N, D, H, D_FF, layers=2, repeats=1)
    assert timed["max_difference"] < 1e-12 and timed["cached_s"] > 0 and timed["uncached_s"] > 0


@pytest.mark.parametrize("steps", [0, -1, cache.MAX_STEPS + 1, 2.5, True])
def test_bad_sizes_are_refused(steps):
    with pytest.raises(InputError):
        cache.step_costs(steps, 4, 8, 16, 1)


def test_the_command_prints_a_row_per_length(capsys):
    from selfattn.bench.cli import main

    assert main(["--kv-cache", "--steps", "4", "8", "--no-time", "--d-model", "8", "--heads", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("# decoder") and len(out) == 4 and out[2].split()[0] == "4"
    assert main(["--kv-cache", "--steps", "0", "--no-time"]) == 2
