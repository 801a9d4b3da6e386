"""From the next token's logits to the token written: what the form allows, temperature, top-k, top-p, the draw.

The order is Hugging Face's ``generate``: the logits of the tokens the form does not allow here are −∞; the rest
are divided by the temperature T and turned into probabilities; top-k keeps the k most likely; top-p keeps the
smallest set of the most likely whose probabilities (after top-k, renormalised) add up to at least p; the draw is
from what is left, renormalised. Greedy takes the most likely allowed token (no knob changes which one that is).
Ties are broken by id, so every step is reproducible. Every distribution is kept, for the page to show which
candidates each knob cut.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from selfattn.core.attention import stable_softmax


@dataclass(frozen=True, eq=False)
class Sampling:
    """One step's distributions, each (V,), 0 outside what the form allows."""

    logits: np.ndarray  # (V,) the model's, before anything
    allowed: np.ndarray  # (V,) bool: what the form lets this position hold
    probs: np.ndarray  # softmax of the allowed logits (T = 1): the model's own belief
    tempered: np.ndarray  # softmax of the allowed logits / T
    kept_top_k: np.ndarray  # (V,) bool: within the k most likely (all allowed when top-k is off)
    after_top_k: np.ndarray  # tempered, cut to top-k, renormalised
    kept_top_p: np.ndarray  # (V,) bool: within the smallest set reaching p (all kept by top-k when off)
    final: np.ndarray  # after top-p, renormalised: what the draw uses
    temperature: float
    top_k: int | None
    top_p: float | None

    def ranked(self, n: int) -> np.ndarray:
        """The ids of the ``n`` most likely allowed tokens (by ``probs``; ties by id)."""
        order = _order(self.probs)
        return order[: min(n, int(self.allowed.sum()))]


def _order(p: np.ndarray) -> np.ndarray:
    """Ids from the most to the least likely, ties by the smaller id."""
    return np.lexsort((np.arange(len(p)), -p))


def _renormalised(p: np.ndarray, keep: np.ndarray) -> np.ndarray:
    cut = np.where(keep, p, 0.0)
    return cut / cut.sum()


def keep_top_k(p: np.ndarray, k: int | None) -> np.ndarray:
    """(V,) bool: the ``k`` most likely entries of ``p`` among those above 0 (all of them when ``k`` is None)."""
    positive = p > 0
    if k is None:
        return positive
    keep = np.zeros(len(p), dtype=bool)
    keep[_order(p)[: min(k, int(positive.sum()))]] = True
    return keep


def keep_top_p(p: np.ndarray, top_p: float | None) -> np.ndarray:
    """(V,) bool: the smallest set of the most likely entries of ``p`` whose sum is at least ``top_p``."""
    positive = p > 0
    if top_p is None:
        return positive
    order = _order(p)
    total = np.cumsum(p[order])
    count = int(np.searchsorted(total, top_p * total[-1] - 1e-12)) + 1  # the first prefix reaching p
    keep = np.zeros(len(p), dtype=bool)
    keep[order[: min(count, int(positive.sum()))]] = True
    return keep


def distributions(logits: np.ndarray, allowed: np.ndarray, *, temperature: float = 1.0, top_k: int | None = None,
                  top_p: float | None = None) -> Sampling:
    """Every distribution of one step (the knobs are checked by :func:`selfattn.poet.generate.check_settings`)."""
    logits = np.asarray(logits, dtype=np.float64)
    masked = np.where(allowed, logits, -np.inf)
    probs = stable_softmax(masked)
    tempered = stable_softmax(masked / temperature)
    kept_k = keep_top_k(tempered, top_k)
    after_k = _renormalised(tempered, kept_k)
    kept_p = keep_top_p(after_k, top_p)
    return Sampling(logits=logits, allowed=np.asarray(allowed, dtype=bool), probs=probs, tempered=tempered,
                    kept_top_k=kept_k, after_top_k=after_k, kept_top_p=kept_p, final=_renormalised(after_k, kept_p),
                    temperature=float(temperature), top_k=top_k, top_p=top_p)


def choose(sampling: Sampling, rng: np.random.Generator | None) -> tuple[int, float | None]:
    """(the id written, the uniform number drawn): the most likely when ``rng`` is None (greedy), else the first
    id whose cumulative ``final`` probability (in id order) passes a uniform draw."""
    if rng is None:
        return int(_order(sampling.probs)[0]), None
    u = float(rng.random())
    cumulative = np.cumsum(sampling.final)
    return int(min(np.searchsorted(cumulative, u * cumulative[-1], side="right"), len(cumulative) - 1)), u
