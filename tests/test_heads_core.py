"""The Heads & devices page's pure parts without AppTest: the comparison, what a run may draw, the result tables,
the words computed from a state; and part 1 of Sentence embeddings (selfattn.text.raw_view)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from selfattn.bench import captions, tables
from selfattn.bench.choices import D_CHOICES, MAX_HEADS, MAX_N, random_sizes
from selfattn.bench.limits import LIMITS, BenchConfig
from selfattn.bench.sweep import sweep_threads
from selfattn.core import compare
from selfattn.core.attention import cosine_similarity, raw_self_attention
from selfattn.display import budget
from selfattn.i18n import CATALOG
from selfattn.text.raw_view import raw_view, shared_ranges


def test_random_sizes_bring_what_a_browser_sent_within_the_widgets():
    assert random_sizes(-5, 0, 7, 100) == (0, 1, D_CHOICES[0])
    assert random_sizes(10**12, 10**6, D_CHOICES[-1], 100) == (100, MAX_N, D_CHOICES[-1])
    x, tokens = compare.random_input(3, 5, 16)
    assert x.shape == (5, 16) and tokens == ["t1", "t2", "t3", "t4", "t5"]
    assert np.array_equal(x, compare.random_input(3, 5, 16)[0])  # reproducible from the seed


def test_head_choices_divide_d_model():
    assert compare.head_choices(12, MAX_HEADS) == [1, 2, 3, 4, 6, 12]
    assert compare.head_choices(64, 4) == [1, 2, 4]


@pytest.mark.parametrize("causal", [False, True])
def test_one_head_and_many_agree_with_torch_and_share_weights(causal):
    x, _ = compare.random_input(1, 6, 16)
    weights = compare.random_weights(16, 1)
    single, multi = compare.compare(x, weights, 4, causal)
    assert single.num_heads == 1 and multi.num_heads == 4 and multi.head_dim == 4
    assert multi.outputs.shape == single.outputs.shape == (6, 16)
    assert max(compare.torch_differences(x, weights, 4).values()) < 1e-10  # an independent reference
    wrong = compare.mistake(x, weights, 4, causal, "scale_after_softmax")
    assert not np.allclose(wrong.outputs, multi.outputs)


def test_shared_domain_spans_every_map():
    assert compare.shared_domain(np.array([[1.0, -2.0]]), np.array([[5.0]])) == (-2.0, 5.0)


def test_draw_budget_is_kept():
    tokens = [f"t{i}" for i in range(64)]
    for hosted in (True, False):
        cap = budget.draw_budget("matrix", hosted)
        rows, cols = budget.fit_block(tokens, [f"c{j}" for j in range(128)], cap)
        assert 1 <= rows <= 64 and 1 <= cols <= 128
        assert rows * cols * budget.CELL_BYTES["map"] <= cap
    assert budget.draw_budget("one", False) == 2 * budget.draw_budget("one", True)
    assert budget.fit_block(["a"], ["b"], 1) == (1, 1)  # at least one cell, whatever the budget
    assert 1 <= budget.heads_shown(16, tokens, True) <= budget.heads_shown(16, tokens, False) <= 16
    assert budget.heads_shown(3, ["a", "b"], True) == 3


def _record(impl, heads, n, median, **extra):
    return {"source": "s", "impl": impl, "heads": heads, "seq_len": n, "batch": 1, "d_model": 64, "dtype": "float32",
            "device": "cpu", "device_name": "cpu", "median_ms": median, "iqr_ms": median / 10, "min_ms": median,
            "gflops": 1.0, "peak_mem_bytes": 2**20 * median, "num_threads": 1, "status": "ok", "error_code": "",
            "error": "", **extra}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_result_and_ratio_tables_in_both_languages(lang):
    records = [_record("naive", 2, 128, 4.0), _record("fused", 2, 128, 1.0), _record("torch_mha", 2, 128, 2.0),
               _record("naive", 2, 256, 9.0, iqr_ms=5.0)]
    frame = tables.results_table(records, lang)
    assert list(frame.columns) == [CATALOG[f"hd.col_{c}"][lang] for c in tables.RESULT_COLUMNS]
    assert list(frame[CATALOG["hd.col_noisy"][lang]]) == ["", "", "", tables.NOISY_MARK]
    assert list(frame[CATALOG["hd.col_impl"][lang]])[:2] == [CATALOG["hd.impl_naive"][lang],
                                                             CATALOG["hd.impl_fused"][lang]]
    ratios = tables.ratio_table(records, lang)
    assert len(ratios) == 1  # only (2, 128) has both of a pair
    row = ratios.iloc[0]
    assert row[tables.ratio_title("time", "naive", "fused", lang)] == 4.0
    assert row[tables.ratio_title("time", "fused", "torch_mha", lang)] == 0.5
    assert row[tables.ratio_title("mem", "naive", "fused", lang)] == 4.0
    assert row[tables.ratio_title("best", "naive", "fused", lang)] == "4"
    assert tables.values_text(records, "seq_len") == "128, 256" and tables.values_text(records, "nothing") == ""


def test_a_refused_run_says_why_in_words():
    refused = {**_record("naive", 1, 64, 1.0), "median_ms": None, "iqr_ms": None, "min_ms": None,
               "peak_mem_bytes": None, "status": "refused", "error_code": "bench_memory", "est_mem_bytes": 3 * 2**20,
               "error": "Refused: ..."}
    shown = tables.shown_record(refused, "en")
    assert "3" in shown["error"] and shown["status"] == CATALOG["hd.status_refused"]["en"] and shown["noisy"] == ""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_words_follow_the_state(lang):
    assert "M" in captions.attention_tex(8, True, lang) and "M" not in captions.attention_tex(8, False, lang)
    assert "{8}" in captions.attention_tex(8, False, lang)
    assert captions.part_note(3, 4, (3, 4), lang) == ""
    assert "17" in captions.part_note(3, 4, (17, 4), lang)
    done = captions.progress_text(5, 5, "", lang)
    assert done == CATALOG["hd.bench_finished"][lang].format(total=5)
    running = captions.progress_text(0, 5, "naive h=1 n=256", lang)
    assert CATALOG["hd.impl_naive"][lang] in running and "h=1 n=256" in running
    lim = LIMITS["hosted"]
    assert str(lim["max_seq_len"]) in captions.limits_caption(lim, lang)
    assert captions.backend_name("flash", lang) == CATALOG["hd.backend_flash"][lang]
    assert captions.backend_name("other", lang) == "other"


def test_sweep_threads_follow_limits_and_config(two_threads):
    config = BenchConfig(threads=3)
    assert sweep_threads(config, {"threads": 1}) == 1  # hosted: one thread, whatever was asked
    assert sweep_threads(config, {"threads": None}) == 3
    assert sweep_threads(BenchConfig(), {"threads": None}) == torch.get_num_threads() == 2


@pytest.mark.parametrize("unit", [False, True])
def test_raw_view_is_the_raw_form(unit):
    vectors = np.random.default_rng(0).standard_normal((5, 8)) * 3
    view = raw_view(vectors, unit=unit, scale=True)
    expected = raw_self_attention(view.x, scale=True)
    assert np.allclose(view.trace.outputs, expected.outputs) and np.allclose(view.trace.weights.sum(axis=1), 1)
    assert np.allclose(np.linalg.norm(view.x, axis=1), 1) == unit
    if unit:
        assert view.cosine is None and np.allclose(view.trace.scores, cosine_similarity(vectors))
    else:
        assert np.allclose(view.cosine, cosine_similarity(vectors))
    assert view.facts.n == 5 and view.facts.d == 8


def test_shared_ranges_of_a_pair():
    rng = np.random.default_rng(1)
    a, b = (raw_view(rng.standard_normal((n, 4)), unit=False, scale=True) for n in (3, 5))
    assert shared_ranges([a], comparable=True) == {}
    ranges = shared_ranges([a, b], comparable=True)
    assert set(ranges) == {"xxt", "X", "output"}
    assert ranges["X"] == (min(a.x.min(), b.x.min()), max(a.x.max(), b.x.max()))
    assert set(shared_ranges([a, b], comparable=False)) == {"xxt"}
    unit = [raw_view(rng.standard_normal((3, 4)), unit=True, scale=False) for _ in range(2)]
    assert shared_ranges(unit, comparable=False) == {"xxt": (-1.0, 1.0)}


def test_every_key_the_page_words_use_exists():
    """The catalog keys written in selfattn/ (the words moved out of ui/heads/page.py), as tests/test_i18n.py checks ui/."""
    import re
    from pathlib import Path

    call = re.compile(r"""\bt(?:_plain)?\(\s*f?["']([a-z_]+\.[A-Za-z0-9_.{}\[\]'"]+)["']""")
    checked = 0
    for path in (Path(__file__).resolve().parents[1] / "selfattn").rglob("*.py"):
        for key in call.findall(path.read_text(encoding="utf-8")):
            pattern = re.compile("^" + re.sub(r"\\\{[^}]*\\\}", "[A-Za-z0-9_]+", re.escape(key)) + "$")
            assert any(pattern.match(k) for k in CATALOG), f"{path.name}: no key matches {key}"
            checked += 1
    assert checked > 20  # the scan really found the calls (26 when written)


def test_a_visitor_waits_out_the_cooldown_and_the_table_forgets_old_sweeps():
    from selfattn.bench.guard import check_cooldown, note_finished
    from selfattn.errors import InputError

    finished: dict[str, float] = {}
    check_cooldown(finished, "a", 30, 100.0)  # never ran: may run
    note_finished(finished, "a", 30, 100.0)
    with pytest.raises(InputError) as info:
        check_cooldown(finished, "a", 30, 110.5)
    assert info.value.code == "bench_cooldown" and info.value.params == {"wait_s": 20, "cooldown_s": 30}
    check_cooldown(finished, "b", 30, 110.5)  # another visitor is not held up
    check_cooldown(finished, "a", 30, 130.0)  # cooled down
    note_finished(finished, "b", 30, 131.0)
    assert finished == {"b": 131.0}  # a's sweep no longer counts
    note_finished(finished, "c", 0, 200.0)
    assert finished == {}  # no cooldown (a local run): nothing kept
