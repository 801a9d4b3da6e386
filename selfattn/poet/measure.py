"""How good the poet is: held-out loss against unigram and bigram baselines, and what its samples look like.

The held-out loss (``val_loss``) is in nats per character of the held-out poems: at each position whose next
token is a character (``<unk>`` for one outside the vocabulary), −log of the probability the model gives it,
the distribution renormalised over the characters (the marks and ``<eos>`` are placed by the decoding, so they
are not scored). ``val_loss_all`` is the plain cross-entropy over every next token, the marks and ``<eos>``
included, as training minimises it. The baselines are scored on the same positions, over the same vocabulary:

* unigram: p(c) = (n(c) + 1) / (N + V), the characters' counts in the training poems, add-one;
* bigram: p(c | b) by Witten–Bell interpolation with the unigram,
  (n(b, c) + T(b) · p(c)) / (n(b) + T(b)), T(b) the number of different tokens seen after b (no tuning).

``python -m selfattn.poet.measure`` prints these and the statistics of 200 samples (the form, and the share of
their lines that are lines of the corpus), the figures docs/benchmarks.md reports.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

import numpy as np

import selfattn.poet.corpus as corpus
from selfattn.poet.model import Poet, forward
from selfattn.poet.weights import UNK, Vocab


def scored(vocab: Vocab) -> np.ndarray:
    """(V,) bool: the tokens the held-out loss scores and renormalises over (the characters and ``<unk>``)."""
    mask = vocab.characters.copy()
    mask[vocab.index()[UNK]] = True
    return mask


def _log_softmax(z: np.ndarray) -> np.ndarray:
    peak = z.max(axis=-1, keepdims=True)
    return z - peak - np.log(np.exp(z - peak).sum(axis=-1, keepdims=True))


def _numpy_logits(poet: Poet, rows: list[list[int]]) -> list[np.ndarray]:
    return [forward(poet, ids).logits for ids in rows]


def _torch_logits(poet: Poet, rows: list[list[int]], chunk: int = 64) -> list[np.ndarray]:
    """The same logits from the float64 torch twin holding the same weights (tests/test_poet_model.py holds the
    two engines to 1e-10), batched by length: seconds instead of minutes for the held-out poems."""
    import torch

    from selfattn.poet.torch_model import reference

    model, found = reference(poet.weights), [None] * len(rows)
    for length in sorted({len(r) for r in rows}):
        where = [i for i, r in enumerate(rows) if len(r) == length]
        for start in range(0, len(where), chunk):
            part = where[start:start + chunk]
            with torch.no_grad():
                logits = model(torch.tensor([rows[i] for i in part])).numpy()
            for i, row in zip(part, logits):
                found[i] = row
    return found


def held_out_loss(poet: Poet, poems, engine: str = "numpy") -> dict[str, float]:
    """``val_loss`` (nats per character) and ``val_loss_all`` (nats per token) of ``poems``, on our core
    (``engine="numpy"``) or on the torch twin (``"torch"``, for the hundreds of poems of a record)."""
    mask = scored(poet.vocab)
    encoded = [poet.vocab.encode(poem) for poem in poems]
    every = (_torch_logits if engine == "torch" else _numpy_logits)(poet, [ids[:-1] for ids in encoded])
    char_total, char_count, all_total, all_count = 0.0, 0, 0.0, 0
    for ids, logits in zip(encoded, every):  # logits (n, V)
        targets = np.array(ids[1:])
        all_total -= float(_log_softmax(logits)[np.arange(len(targets)), targets].sum())
        all_count += len(targets)
        rows = np.flatnonzero(mask[targets])
        chars = _log_softmax(np.where(mask, logits[rows], -np.inf))
        char_total -= float(chars[np.arange(len(rows)), targets[rows]].sum())
        char_count += len(rows)
    return {"val_loss": char_total / char_count, "val_loss_all": all_total / all_count}


def baselines(vocab: Vocab, train, held_out) -> dict[str, float]:
    """The unigram's and the bigram's nats per character on ``held_out``, counted on ``train``."""
    mask = scored(vocab)
    n_chars = int(mask.sum())
    unigram, pairs, after = Counter(), Counter(), Counter()
    for poem in train:
        ids = vocab.encode(poem)
        unigram.update(i for i in ids[1:] if mask[i])
        for b, c in zip(ids, ids[1:]):
            if mask[c]:
                pairs[b, c] += 1
                after[b] += 1
    kinds = Counter(b for b, _ in pairs)  # T(b)
    total = sum(unigram.values())

    def p_uni(c: int) -> float:
        return (unigram[c] + 1) / (total + n_chars)

    uni, bi, count = 0.0, 0.0, 0
    for poem in held_out:
        ids = vocab.encode(poem)
        for b, c in zip(ids, ids[1:]):
            if not mask[c]:
                continue
            uni -= np.log(p_uni(c))
            t = kinds[b]
            bi -= np.log((pairs[b, c] + t * p_uni(c)) / (after[b] + t) if after[b] else p_uni(c))
            count += 1
    return {"unigram": uni / count, "bigram": bi / count, "characters_scored": count}


def sample_stats(poet: Poet, count: int = 200, **settings) -> dict:
    """Write ``count`` poems (seeds 0 … count − 1, the other settings as given) and measure them: whether each
    has the form, how many lines each, and the share of their lines that are lines of the corpus (a given first
    line is not counted: it is the visitor's)."""
    from selfattn.poet.generate import generate

    lines_seen = corpus.corpus_lines()
    poems = [generate(poet, seed=seed, **settings) for seed in range(count)]
    skip = 1 if settings.get("first") else 0
    lines = [line for p in poems for line in p.lines[skip:]]
    return {
        "samples": count,
        "settings": settings,
        "form_right": sum(corpus.regulated(p.text) for p in poems),
        "four_lines": sum(len(p.lines) == 4 for p in poems),
        "eight_lines": sum(len(p.lines) == 8 for p in poems),
        "lines": len(lines),
        "lines_in_corpus": sum(line in lines_seen for line in lines),
        "share_in_corpus": round(sum(line in lines_seen for line in lines) / len(lines), 4),
        "poems_in_corpus": sum(p.text in set(corpus.read().all) for p in poems),
        "distinct_poems": len({p.text for p in poems}),
        "example": poems[0].text,
    }


def main(argv: list[str] | None = None) -> None:
    from selfattn.poet import load_poet

    parser = argparse.ArgumentParser(prog="python -m selfattn.poet.measure", description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args(argv)
    poet = load_poet()
    split = corpus.read()
    began = time.perf_counter()
    found = {"held_out": held_out_loss(poet, split.held_out, engine="torch"),
             "baselines": baselines(poet.vocab, split.train, split.held_out)}
    for name, settings in {"T=1": {}, "T=0.8, top-k 40": {"temperature": 0.8, "top_k": 40},
                           "acrostic 春夏秋冬": {"acrostic": "春夏秋冬"}}.items():
        found[name] = sample_stats(poet, args.samples, **settings)
    found["seconds"] = round(time.perf_counter() - began, 1)
    print(json.dumps(found, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
