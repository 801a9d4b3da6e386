"""selfattn/memo.py: caches bounded by bytes (issue 36)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from selfattn import memo
from selfattn.block.compute import result_view
from selfattn.block.view import View


def test_every_cache_of_a_process_holds_about_120_mb_at_most():
    # 100 MiB until the poet's poems were shared (16 MiB): a poem a session cost 11.6 MB a visitor on /poet
    assert memo.TOTAL_BUDGET <= 120 * memo.MIB


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


def test_the_seeded_tables_of_maximal_views_are_kept_within_their_byte_budgets():
    """Issue 55: the seeded tables as text (what an editor shows where nothing was typed) were kept in a dict of
    4,096 entries a page, outside the budgets: 74.8 MiB filled from maximal Encoder–decoder views, up to ~249 MiB.
    They are now two of memo's caches; one maximal view's tables still fit whole (an edit reads them again)."""
    from selfattn.block import view as bv
    from selfattn.seq2seq import view as sv

    assert not hasattr(sv, "_BASE_CACHE") and not hasattr(bv, "_BASE_CACHE")
    views = [(sv, sv.View(n=8, m=8, d=16, heads=4, dff=64, enc=4, dec=4, seed=seed), sv.table_ids(4, 4))
             for seed in range(900, 905)]
    views += [(bv, bv.View(n=16, d=16, dff=64, layers=6, seed=seed), bv.table_ids(6)) for seed in range(900, 905)]
    for module, shown, tables in views:
        for table in tables:
            module.base_rows(shown, table)
    for name, (module, shown, tables) in (("seq2seq.base", views[4]), ("block.base", views[-1])):
        cache = memo.cache(name)
        view_bytes = sum(memo.nbytes(module.base_rows(shown, table)) for table in tables)
        assert 0 < cache.bytes <= cache.max_bytes < 5 * view_bytes, (name, cache.bytes, view_bytes)
        kept = len(cache)
        for table in tables:  # the last view's tables are all kept: reading them again computes nothing
            module.base_rows(shown, table)
        assert len(cache) == kept and cache.bytes >= view_bytes


def test_a_fingerprint_tells_apart_what_a_result_follows_from():
    """Equal inputs give one key; a changed number, shape, type or order gives another; an unknown kind is refused
    (a cache keyed on less than its result follows from would show one visitor's chart to another)."""
    import numpy as np

    a = np.arange(6.0).reshape(2, 3)
    key = memo.fingerprint((a, [1, "x"], {"k": {(0, 1)}}, None))
    assert key == memo.fingerprint((a.copy(), [1, "x"], {"k": {(0, 1)}}, None))
    hash(key)
    b = a.copy()
    b[1, 2] = 5.000000001
    for other in ((b, [1, "x"], {"k": {(0, 1)}}, None), (a.reshape(3, 2), [1, "x"], {"k": {(0, 1)}}, None),
                  (a.astype(np.float32), [1, "x"], {"k": {(0, 1)}}, None), (a, ["x", 1], {"k": {(0, 1)}}, None),
                  (a, [1, "x"], {"k": {(1, 0)}}, None), (a, (1, "x"), {"k": {(0, 1)}}, None)):
        assert memo.fingerprint(other) != key
    assert memo.fingerprint(np.array(["a", None], dtype=object)) != memo.fingerprint(np.array(["b", None], dtype=object))
    with pytest.raises(TypeError):
        memo.fingerprint(object())
