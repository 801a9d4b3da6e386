"""selfattn/memo.py: caches bounded by bytes (issue 36)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from selfattn import memo
from selfattn.block.compute import result_view
from selfattn.block.view import View


def test_every_cache_of_a_process_holds_about_100_mb_at_most():
    assert memo.TOTAL_BUDGET <= 100 * memo.MIB


def test_a_cache_evicts_the_least_recently_used_to_stay_within_its_bytes():
    cache = memo.ByteCache("t", 10 * 8 * 1000 + 4000)  # room for ten arrays of 8 kB
    for k in range(30):
        cache.get(k, lambda: np.zeros(1000))
        cache.get(0, lambda: pytest.fail("0 was evicted though it was just used"))
    assert cache.bytes <= cache.max_bytes and len(cache) == 10
    assert 0 in cache._entries and 28 in cache._entries and 5 not in cache._entries


def test_a_value_over_a_quarter_of_the_budget_is_returned_but_not_kept():
    cache = memo.ByteCache("t", 100_000)
    value = cache.get("big", lambda: np.zeros(5_000))  # 40 kB
    assert value.shape == (5_000,) and len(cache) == 0


def test_errors_are_not_cached_and_one_key_is_computed_once_at_a_time():
    cache = memo.ByteCache("t", 1_000_000)
    with pytest.raises(ValueError):
        cache.get("k", lambda: (_ for _ in ()).throw(ValueError("bad")))
    calls = []

    def slow():
        calls.append(1)
        time.sleep(0.2)
        return np.ones(3)

    threads = [threading.Thread(target=cache.get, args=("k", slow)) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1  # a class opening one link computes it once


def test_sizes_count_arrays_by_buffer_and_a_shared_array_once():
    a = np.zeros((100, 100))
    assert memo.nbytes(a) >= a.nbytes
    assert memo.nbytes((a, a, a[:10])) < 2 * a.nbytes  # the same buffer three times
    assert memo.nbytes({"x": a, "text": "y" * 1000}) >= a.nbytes + 1000


def test_the_block_result_does_not_follow_the_layer_shown_or_the_focus():
    shown = View(layers=3, layer=2, focus=1)
    assert result_view(shown) == result_view(View(layers=3, layer=0, focus=3))
    assert result_view(shown) != result_view(View(layers=3, seed=1))
