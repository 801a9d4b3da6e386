"""Issue 53's core, held to torch and transformers on random inputs: the tiled loop with its online softmax equals
``scaled_dot_product_attention`` (shapes and blocks that do not divide n, causal, sliding windows), its running
statistics are the full matrix's, grouped-query heads equal ``enable_gqa``, rotary positions equal transformers'
own ``apply_rotary_pos_emb`` for both pairings."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from selfattn import attention_traffic, grouped_query_attention, rotary, tiled_attention
from selfattn.core.efficient import kv_head_of, pairing_permutation, paper_blocks, visible
from selfattn.errors import InputError

CASES = [  # n_q, n_k, d, d_v, block_q, block_k, causal, window
    (5, 5, 4, 3, 2, 3, False, None), (7, 7, 8, 8, 3, 2, True, None), (9, 9, 4, 2, 4, 4, True, 3),
    (6, 11, 3, 5, 5, 4, False, None), (11, 8, 6, 6, 2, 5, True, None), (13, 13, 2, 4, 1, 1, False, 1),
    (16, 16, 4, 4, 4, 4, True, 5), (3, 3, 5, 5, 8, 8, False, None), (10, 10, 4, 4, 3, 3, False, 2),
]


def sdpa(q, k, v, keep=None) -> np.ndarray:
    t = [torch.tensor(a, dtype=torch.float64) for a in (q, k, v)]
    mask = None if keep is None else torch.tensor(keep)
    return F.scaled_dot_product_attention(*t, attn_mask=mask).numpy()


@pytest.mark.parametrize("n_q, n_k, d, d_v, bq, bk, causal, window", CASES)
def test_the_tiled_loop_equals_torch_and_its_statistics_are_the_whole_matrix_s(n_q, n_k, d, d_v, bq, bk, causal, window):
    rng = np.random.default_rng(n_q * 100 + n_k * 10 + d)
    q, k, v = rng.normal(size=(n_q, d)) * 3, rng.normal(size=(n_k, d)) * 3, rng.normal(size=(n_k, d_v))
    t = tiled_attention(q, k, v, block_q=bq, block_k=bk, causal=causal, window=window)
    keep = visible(n_q, n_k, causal, window)
    np.testing.assert_allclose(t.outputs, sdpa(q, k, v, keep), rtol=0, atol=1e-12)
    s = np.where(keep, q @ k.T / math.sqrt(d), -np.inf)
    blocks_q = math.ceil(n_q / bq)
    for qb in range(blocks_q):
        last = [tile for tile in t.tiles if tile.query_block == qb][-1]  # the block's statistics after its last tile
        r0, r1 = last.rows
        m = s[r0:r1].max(axis=1)
        np.testing.assert_allclose(last.row_max, m, rtol=1e-14)  # a block product rounds as BLAS may
        np.testing.assert_allclose(last.row_sum, np.exp(s[r0:r1] - m[:, None]).sum(axis=1), rtol=1e-13)
        np.testing.assert_allclose(last.acc / last.row_sum[:, None], t.outputs[r0:r1], rtol=0, atol=1e-13)
    # the order computed: query blocks in turn, key blocks in turn within each; skipped ones are all masked
    order = [(tile.query_block, tile.key_block) for tile in t.tiles]
    assert order == sorted(order) and not set(order) & set(t.skipped)
    assert len(order) + len(t.skipped) == blocks_q * math.ceil(n_k / bk)
    for qb, kb in t.skipped:
        assert not keep[qb * bq:(qb + 1) * bq, kb * bk:(kb + 1) * bk].any(), (qb, kb)
    for tile in t.tiles:  # a tile computed has a visible cell, or could not be told apart by its corners
        r0, r1 = tile.rows
        c0, c1 = tile.cols
        assert keep[r0:r1, c0:c1].any() or not (causal or window), (tile.query_block, tile.key_block)
        seen = np.isfinite(tile.row_max)  # exp(m_before − m): 0 where a row meets its first keys, 1 before that
        np.testing.assert_array_equal(tile.rescale[seen], np.exp(tile.row_max_before[seen] - tile.row_max[seen]))
        assert (tile.rescale[~seen] == 1).all()


def test_every_all_masked_tile_is_skipped_and_the_page_can_count_them():
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(3, 12, 4))
    causal = tiled_attention(q, k, v, block_q=3, block_k=3, causal=True)
    assert sorted(causal.skipped) == [(i, j) for i in range(4) for j in range(4) if j > i]  # the upper triangle
    banded = tiled_attention(q, k, v, block_q=3, block_k=3, window=3)
    keep = visible(12, 12, True, 3)
    expected = {(i, j) for i in range(4) for j in range(4) if not keep[3 * i:3 * i + 3, 3 * j:3 * j + 3].any()}
    assert set(banded.skipped) == expected and len(expected) == 9


def test_traffic_is_counted_as_the_paper_models_it():
    n, d = 1024, 64
    t = attention_traffic(n, n, d, block_q=64, block_k=128)
    assert t["standard"] == {"reads": 2 * n * d + 2 * n * n + n * d, "writes": 2 * n * n + n * d}
    # Q once; K and V once a query block (16 of them); O once
    assert t["tiled"] == {"reads": n * d + 16 * n * 2 * d, "writes": n * d, "row_stats": 2 * n}
    causal = attention_traffic(n, n, d, block_q=64, block_k=64, causal=True)
    assert causal["tiled"]["reads"] == n * d + sum(i + 1 for i in range(16)) * 64 * 2 * d
    rng = np.random.default_rng(1)
    small = tiled_attention(*rng.normal(size=(3, 7, 4)), block_q=2, block_k=3)
    assert small.traffic == attention_traffic(7, 7, 4, 4, 2, 3) and small.never_stored == 49
    # a head wider than a block: the tiled loop reads K and V once a query block, more than the standard reads them
    wide = attention_traffic(256, 256, 256, block_q=16, block_k=16)
    assert wide["tiled"]["reads"] > 256 * 256 * 2
    assert paper_blocks(100_000, 64) == (64, 391) and paper_blocks(100_000, 256) == (98, 98)


@pytest.mark.parametrize("h, g, causal, window", [(4, 4, False, None), (4, 1, True, None), (6, 2, False, None),
                                                  (8, 4, True, 3), (6, 3, True, None)])
def test_grouped_query_heads_equal_torch_s_enable_gqa(h, g, causal, window):
    rng = np.random.default_rng(h * 10 + g)
    n, d, d_v = 7, 4, 3
    q, k, v = rng.normal(size=(h, n, d)), rng.normal(size=(g, n, d)), rng.normal(size=(g, n, d_v))
    got = grouped_query_attention(q, k, v, causal=causal, window=window)
    t = [torch.tensor(a) for a in (q, k, v)]
    keep = torch.tensor(visible(n, n, causal, window))
    expected = F.scaled_dot_product_attention(*t, attn_mask=keep, enable_gqa=True).numpy()
    np.testing.assert_allclose(got.outputs, expected, rtol=0, atol=1e-13)
    np.testing.assert_allclose(got.weights.sum(axis=2), 1.0, atol=1e-15)
    repeated = [torch.repeat_interleave(a, h // g, dim=0) for a in t[1:]]
    np.testing.assert_allclose(got.outputs, F.scaled_dot_product_attention(t[0], *repeated, attn_mask=keep).numpy(),
                               atol=1e-13)
    wrong = grouped_query_attention(q, k, v, causal=causal, window=window, mistake="tile")
    tiled = [a.repeat(h // g, 1, 1) for a in t[1:]]  # the classic bug: torch's tile order
    np.testing.assert_allclose(wrong.outputs, F.scaled_dot_product_attention(t[0], *tiled, attn_mask=keep).numpy(),
                               atol=1e-13)
    differ = [i for i in range(h) if wrong.kv_head[i] != got.kv_head[i]]
    assert bool(differ) == (1 < g < h)
    for i in range(h):
        assert (np.abs(wrong.outputs[i] - expected[i]).max() > 1e-6) == (i in differ)


def test_kv_heads_are_read_in_repeat_interleave_s_order():
    assert kv_head_of(8, 2) == (0, 0, 0, 0, 1, 1, 1, 1)
    assert kv_head_of(8, 2, "tile") == (0, 1, 0, 1, 0, 1, 0, 1)


def llama_rope(x: np.ndarray, positions: np.ndarray, base: float) -> np.ndarray:
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb
    d = x.shape[-1]
    inv_freq = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    freqs = torch.tensor(positions, dtype=torch.float64)[:, None] * inv_freq[None, :]
    emb = torch.cat([freqs, freqs], dim=-1)[None]  # (1, n, d), as LlamaRotaryEmbedding builds it
    t = torch.tensor(x)[None]  # (1, heads, n, d)
    q, _ = apply_rotary_pos_emb(t, t, emb.cos(), emb.sin())
    return q[0].numpy()


def gptj_rope(x: np.ndarray, positions: np.ndarray, base: float) -> np.ndarray:
    from transformers.models.gptj.modeling_gptj import apply_rotary_pos_emb
    d = x.shape[-1]
    inv_freq = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    freqs = torch.tensor(positions, dtype=torch.float64)[:, None] * inv_freq[None, :]  # (n, d/2)
    t = torch.tensor(x).permute(1, 0, 2)[None]  # GPT-J's (batch, n, heads, d)
    out = apply_rotary_pos_emb(t, freqs.sin()[None], freqs.cos()[None])
    return out[0].permute(1, 0, 2).numpy()


@pytest.mark.parametrize("d, base, positions", [(8, 10000.0, None), (6, 500.0, [3, 0, 7, 7, 12]), (2, 10.0, None)])
def test_rotary_equals_transformers_for_both_pairings(d, base, positions):
    rng = np.random.default_rng(d)
    x = rng.normal(size=(2, 5, d))  # two heads, five positions
    where = np.arange(5) if positions is None else np.array(positions)
    np.testing.assert_allclose(rotary(x, positions, base, "half"), llama_rope(x, where, base), rtol=0, atol=1e-14)
    np.testing.assert_allclose(rotary(x, positions, base, "interleaved"), gptj_rope(x, where, base), rtol=0, atol=1e-14)
    p = pairing_permutation(d)
    np.testing.assert_allclose(rotary(x[..., p], positions, base, "half"),
                               rotary(x, positions, base, "interleaved")[..., p], atol=1e-15)
    if d > 2:  # the two pairings differ on the same vector
        assert np.abs(rotary(x, positions, base, "half") - rotary(x, positions, base, "interleaved")).max() > 1e-3


def test_a_rotated_score_depends_only_on_the_distance():
    rng = np.random.default_rng(5)
    q, k = rng.normal(size=(2, 1, 8))
    score = lambda m, n: (rotary(q, [m]) @ rotary(k, [n]).T).item()  # noqa: E731
    for shift in (1, 5, 40):
        assert score(3, 1) == pytest.approx(score(3 + shift, 1 + shift), abs=1e-12)
    assert abs(score(3, 1) - score(1, 3)) > 1e-3  # the distance's sign counts


@pytest.mark.parametrize("call, code", [
    (lambda q: tiled_attention(q, q, q, block_q=0), "bad_block"),
    (lambda q: tiled_attention(q, q, q, block_q=2.5), "bad_block"),
    (lambda q: tiled_attention(q, q, q, window=0), "bad_window"),
    (lambda q: tiled_attention(q[:2], q, q, window=None, causal=False, block_k=True), "bad_block"),
    (lambda q: tiled_attention(q, q[:2], q[:2], window=1), "blind_query"),
    (lambda q: tiled_attention(q, q[:, :2], q), "qk_width"),
    (lambda q: tiled_attention(q, q, q[:3]), "kv_rows"),
    (lambda q: tiled_attention(q * np.nan, q, q), "not_finite"),
    (lambda q: grouped_query_attention(np.stack([q] * 3), np.stack([q] * 2), np.stack([q] * 2)), "gqa_groups"),
    (lambda q: grouped_query_attention(np.stack([q] * 2), np.stack([q] * 2), np.stack([q] * 2), mistake="x"),
     "bad_mistake"),
    (lambda q: rotary(q[:, :3]), "odd_width"),
    (lambda q: rotary(q, positions=[1, 2]), "positions_rows"),
    (lambda q: rotary(q, pairing="neox"), "bad_pairing"),
])
def test_bad_input_is_refused_by_name(call, code):
    with pytest.raises(InputError) as caught:
        call(np.ones((4, 4)))
    assert caught.value.code == code


# ── item 3's measurement: SDPA against the materialised softmax ────────────────────────────────

def test_the_timing_measures_both_ways_and_the_materialised_one_stores_n_by_n():
    from selfattn.efficient import timing

    row = timing.measure(256, d=16, repeats=2)
    assert row["difference"] < 1e-5 and row["sdpa_ms"] > 0 and row["materialised_ms"] > 0
    assert row["scores_bytes"] == 256 * 256 * 4
    # measured by the profiler: the materialised softmax holds the scores and the weights at once
    assert row["materialised_peak_bytes"] >= 2 * row["scores_bytes"]
    assert 0 < row["sdpa_peak_bytes"] < row["materialised_peak_bytes"]


def test_the_timing_summary_says_what_the_run_shows():
    from selfattn.efficient import timing

    rows = [{"n": 256, "sdpa_ms": 2.0, "materialised_ms": 1.0, "sdpa_peak_bytes": 10, "materialised_peak_bytes": 40},
            {"n": 512, "sdpa_ms": 3.0, "materialised_ms": 6.0, "sdpa_peak_bytes": 20, "materialised_peak_bytes": 10}]
    s = timing.summary(rows)
    assert s["n"] == 512 and s["sdpa_faster"] and s["time_ratio"] == 2.0 and s["faster_at"] == 1
    assert not s["sdpa_lighter"] and s["memory_ratio"] == 2.0 and s["lighter_at"] == 1


def test_the_committed_figures_name_their_machine_and_read_back(tmp_path):
    from selfattn.efficient import timing

    committed = timing.read_results()
    assert committed is not None and committed["machine"]["cpu"] and committed["command"].startswith("python ")
    assert [r["n"] for r in committed["rows"]] == list(timing.SIZES)
    bad = tmp_path / "bad.json"
    bad.write_text('{"rows": []}')
    assert timing.read_results(bad) is None


def test_the_benchmark_script_prints_its_figures(capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_efficient.py"
    spec = importlib.util.spec_from_file_location("bench_efficient", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--sizes", "64", "128", "--repeats", "1", "--d", "8"]) == 0
    out = capsys.readouterr().out
    assert "SDPA ms" in out and "At n = 128: SDPA" in out
