"""The poet's numpy core against its torch twin: the same logits from the same weights, the cached steps equal to
the full pass, the causal mask, the files' round trip, and a tiny training run that repeats itself."""

from dataclasses import replace

import numpy as np
import pytest
import torch

from selfattn.poet import corpus, load_poet
from selfattn.poet.model import Poet, empty_cache, forward, step
from selfattn.poet.torch_model import TinyPoet, all_logits, arrays_of, reference
from selfattn.poet.train import TrainConfig, train
from selfattn.poet.weights import (Config, Vocab, Weights, dequantize, load_checkpoints, load_weights, quantize, save,
                                   save_checkpoints)

POEMS = corpus.read().train[:40]
SMALL = replace(Config(), d_model=16, num_heads=2, d_ff=32, layers=2, min_count=1)


@pytest.fixture(scope="module")
def small() -> Poet:
    """A randomly initialised small poet, its parameters moved off torch's init so every weight matters."""
    torch.manual_seed(1)
    model = TinyPoet(SMALL, Vocab.of(POEMS, 1))
    arrays = {k: v + np.random.default_rng(2).normal(0, 0.3, v.shape) for k, v in arrays_of(model).items()}
    return Poet.from_weights(Weights(SMALL, model.vocab, arrays))


def ids_of(poet: Poet, poem: str) -> list[int]:
    return poet.vocab.encode(poem)[:-1]


def test_numpy_forward_equals_the_torch_module_holding_the_same_weights(small):
    model = reference(small.weights)
    for poem in POEMS[:3]:
        ids = ids_of(small, poem)
        ours = forward(small, ids).logits
        assert ours.shape == (len(ids), len(small.vocab))
        np.testing.assert_allclose(ours, all_logits(model, ids), atol=1e-10, rtol=0)


def test_the_shipped_weights_agree_with_torch_too():
    poet = load_poet()
    ids = ids_of(poet, corpus.read().held_out[0])
    assert np.max(np.abs(forward(poet, ids).logits - all_logits(reference(poet.weights), ids))) < 1e-9


def test_the_cached_steps_equal_the_full_pass(small):
    ids = ids_of(small, POEMS[1])
    full = forward(small, ids)
    cache, rows = empty_cache(small), []
    for t, token in enumerate(ids):
        s = step(small, cache, token)
        cache = s.cache
        rows.append(s.logits)
        assert s.position == t and cache.length == t + 1
        assert all(k.shape == (SMALL.num_heads, t + 1, SMALL.d_model // SMALL.num_heads) for k in cache.keys)
        for layer, w in enumerate(s.weights):  # the attention row equals the full pass's row t
            np.testing.assert_allclose(w, full.stack.layers[layer].weights[:, t, : t + 1], atol=1e-12)
            np.testing.assert_allclose(w.sum(axis=1), 1.0)
    np.testing.assert_allclose(np.stack(rows), full.logits, atol=1e-12, rtol=0)


def test_no_position_reads_the_ones_after_it(small):
    ids = ids_of(small, POEMS[2])
    changed = ids[:10] + [ids[-1]] * (len(ids) - 10)
    a, b = forward(small, ids).logits, forward(small, changed).logits
    np.testing.assert_array_equal(a[:10], b[:10])
    assert not np.allclose(a[10:], b[10:])
    assert np.all(np.triu(forward(small, ids).stack.layers[0].weights[0], k=1) == 0)


def test_files_round_trip_as_float16_and_int8_checkpoints(small, tmp_path):
    save(small.weights, tmp_path / "m.npz", tmp_path / "m.json")
    back = load_weights(tmp_path / "m.npz", tmp_path / "m.json")
    assert back.config == small.config and back.vocab == small.vocab
    for name, a in small.weights.arrays.items():
        np.testing.assert_allclose(back.arrays[name], a, rtol=1e-3, atol=1e-4)
    save_checkpoints([(5, small.weights.arrays)], tmp_path / "c.npz")
    (step_, arrays), = load_checkpoints(tmp_path / "c.npz").items()
    assert step_ == 5
    for name, a in small.weights.arrays.items():
        rows = a.reshape(-1, a.shape[-1])
        bound = np.abs(rows).max(axis=1, keepdims=True) / 254 + 1e-12  # half a step of 127 a row
        assert np.all(np.abs(arrays[name].reshape(rows.shape) - rows) <= bound), name
    with np.load(tmp_path / "c.npz", allow_pickle=False) as npz:
        assert {npz[k].dtype for k in npz.files} == {np.dtype(np.int8), np.dtype(np.float32)}
    values, scale = quantize(np.zeros((2, 3)))
    assert np.all(dequantize(values, scale) == 0)


def test_a_tiny_training_run_repeats_itself_for_a_seed():
    tc = replace(TrainConfig(), epochs=3.0, batch_size=16, warmup_steps=2, checkpoints=(0.0, 0.5))
    tiny = replace(SMALL, layers=1)
    first, again = (train(tiny, tc, show=False, poems=POEMS[:32], threads=1) for _ in range(2))
    assert first.steps == 6 and len(first.losses) == 6 and [s for s, _ in first.checkpoints] == [0, 3]
    assert first.losses == again.losses
    assert first.losses[-1] < first.losses[0]  # it learns something in 6 steps
    for name, a in first.weights.arrays.items():
        np.testing.assert_array_equal(a, again.weights.arrays[name])
    other = train(tiny, replace(tc, seed=1), show=False, poems=POEMS[:32], threads=1)
    assert other.losses != first.losses


def test_a_live_run_is_bounded_and_writes_poems_of_the_form():
    from selfattn.errors import InputError
    from selfattn.poet import generate
    from selfattn.poet.train import LIVE_EPOCHS, train_live

    poems = corpus.read().train[:64]
    seen = []
    run = train_live(LIVE_EPOCHS[0], 3, lambda step, total, loss: seen.append((step, total)), poems=poems)
    assert run.steps == len(seen) >= 1 and seen[-1] == (run.steps, run.steps) and np.isfinite(run.last_loss)
    assert max(LIVE_EPOCHS) == 1.0  # at most the shipped run's passes
    poem = generate(run.poet, seed=1)
    assert len(poem.lines) in (4, 8) and all(len(line) == 5 for line in poem.lines)
    for epochs, seed, code in ((7.0, 0, "poet_train_epochs"), (True, 0, "poet_train_epochs"),
                               (0.1, -1, "poet_seed"), (0.1, 2**40, "poet_seed")):
        with pytest.raises(InputError) as caught:
            train_live(epochs, seed, poems=poems)
        assert caught.value.code == code
