"""The sampling knobs: temperature, top-k, top-p, greedy and the seeded draw, on hand-made logits."""

import numpy as np
import pytest

from selfattn.poet.sampling import choose, distributions, keep_top_k, keep_top_p

RNG = np.random.default_rng(0)


def random_case(v: int = 30):
    logits = RNG.normal(size=v) * 3
    allowed = RNG.random(v) < 0.8
    allowed[0] = True
    return logits, allowed


def test_temperature_divides_the_logits_and_forbidden_tokens_get_nothing():
    logits, allowed = random_case()
    s = distributions(logits, allowed, temperature=0.5)
    expected = np.where(allowed, np.exp(logits / 0.5 - np.max(logits[allowed] / 0.5)), 0.0)
    np.testing.assert_allclose(s.tempered, expected / expected.sum(), atol=1e-12)
    np.testing.assert_allclose(s.probs, distributions(logits, allowed).tempered, atol=1e-12)
    assert np.all(s.final[~allowed] == 0)


@pytest.mark.parametrize("k", [1, 3, 7])
def test_top_k_keeps_the_k_most_likely(k):
    logits, allowed = random_case()
    s = distributions(logits, allowed, top_k=k)
    assert s.kept_top_k.sum() == k and np.count_nonzero(s.final) == k
    assert s.tempered[s.kept_top_k].min() >= s.tempered[allowed & ~s.kept_top_k].max()
    np.testing.assert_allclose(s.final.sum(), 1.0)


def test_top_k_larger_than_the_allowed_set_keeps_them_all():
    logits = np.array([1.0, 2.0, 3.0, 4.0])
    assert keep_top_k(np.array([0.1, 0.2, 0.7, 0.0]), 10).tolist() == [True, True, True, False]
    assert distributions(logits, np.array([True, True, False, False]), top_k=3).kept_top_k.sum() == 2


@pytest.mark.parametrize("p", [0.05, 0.3, 0.5, 0.9, 0.999, 1.0])
def test_top_p_keeps_the_smallest_set_reaching_p(p):
    for _ in range(20):
        logits, allowed = random_case()
        s = distributions(logits, allowed, top_p=p)
        kept = s.kept_top_p
        probs = s.after_top_k
        assert probs[kept].sum() >= p - 1e-12  # reaches p
        assert probs[kept].min() >= probs[allowed & ~kept].max(initial=0.0)  # the most likely ones
        smaller = np.sort(probs[kept])[1:].sum()  # drop the least likely kept: no longer reaches p
        assert smaller < p - 1e-12 or kept.sum() == 1


def test_top_p_on_an_exact_example():
    p = np.array([0.5, 0.3, 0.15, 0.05])
    assert keep_top_p(p, 0.5).tolist() == [True, False, False, False]
    assert keep_top_p(p, 0.8).tolist() == [True, True, False, False]
    assert keep_top_p(p, 0.81).tolist() == [True, True, True, False]


def test_top_k_then_top_p_in_that_order():
    logits = np.log(np.array([0.4, 0.3, 0.2, 0.1]))
    s = distributions(logits, np.ones(4, dtype=bool), top_k=2, top_p=0.5)
    np.testing.assert_allclose(s.after_top_k, [4 / 7, 3 / 7, 0, 0])
    assert s.kept_top_p.tolist() == [True, False, False, False]  # 4/7 ≥ 0.5 already


def test_greedy_is_the_argmax_of_the_allowed_whatever_the_knobs():
    for _ in range(20):
        logits, allowed = random_case()
        best = int(np.flatnonzero(allowed)[np.argmax(logits[allowed])])
        for knobs in ({}, {"temperature": 5.0}, {"top_k": 2}, {"top_p": 0.1}):
            assert choose(distributions(logits, allowed, **knobs), None) == (best, None)


def test_the_draw_is_deterministic_for_a_seed_and_follows_the_final_distribution():
    logits, allowed = random_case(8)
    s = distributions(logits, allowed, temperature=1.3, top_k=5)
    draws = [choose(s, np.random.default_rng(seed))[0] for seed in range(4000)]
    assert draws[:50] == [choose(s, np.random.default_rng(seed))[0] for seed in range(50)]
    assert set(draws) <= set(np.flatnonzero(s.final > 0))
    share = np.bincount(draws, minlength=len(logits)) / len(draws)
    np.testing.assert_allclose(share, s.final, atol=0.03)
