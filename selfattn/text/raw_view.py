"""Part 1 of the Sentence embeddings page as one pure computation: a sentence's vectors → what is drawn.

The page caches :func:`raw_view` by the state it depends on (the sentence, its source and model, the
unit-length and ÷√d switches), so visitors who open the same view share one computation, and draws it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from selfattn.core.attention import AttentionTrace, cosine_similarity, raw_self_attention, unit_rows
from selfattn.text.rawform import RawFacts, raw_facts


@dataclass(frozen=True)
class RawView:
    """One sentence's raw form Softmax(XXᵀ/√d)X, as the page draws it."""

    x: np.ndarray  # (n, d) X as drawn: unit-length rows, or the source's vectors
    trace: AttentionTrace  # raw_self_attention(x): scores XXᵀ (n, n), weights (n, n), outputs (n, d)
    cosine: np.ndarray | None  # (n, n) cosine similarity, drawn beside XXᵀ when rows are not unit length
    facts: RawFacts  # the numbers the paragraph above the maps quotes
    unit: bool  # rows scaled to length 1
    scale: bool  # scores divided by √d


def shown_rows(vectors: np.ndarray, unit: bool) -> np.ndarray:
    """X as the page draws it: unit-length rows, or the source's vectors as they are."""
    return unit_rows(vectors) if unit else vectors


def raw_view(vectors: np.ndarray, *, unit: bool, scale: bool) -> RawView:
    """Everything part 1 draws of one sentence's (n, d) ``vectors``.

    Args:
        vectors: (n, d) token vectors as the source gives them.
        unit: draw unit-length rows (XXᵀ is then the cosine similarity, drawn once).
        scale: divide XXᵀ by √d.
    """
    x = shown_rows(vectors, unit)  # (n, d)
    trace = raw_self_attention(x, scale=scale)
    # Not kept: the (n, n, d) products weights[i, j] * x[j] (3.5 MiB for a 30-token MiniLM sentence, the bulk of
    # a cached view), which this page never draws; the outputs, their sums, are.
    trace = dataclasses.replace(trace, weighted_values=np.empty((*trace.weights.shape, 0)))
    return RawView(x=x, trace=trace, cosine=None if unit else cosine_similarity(x),
                   facts=raw_facts(vectors, unit=unit, scale=scale), unit=unit, scale=scale)


def shared_ranges(views: list[RawView], comparable: bool) -> dict[str, tuple[float, float]]:
    """One colour scale per kind of map for the two sentences of a pair, so one colour is one number in both.

    XXᵀ always (on the cosine's −1..1 with unit length); X and the output when ``comparable``: both
    sentences' vectors come from the same source and model (a character vector and a MiniLM vector are not).

    Returns:
        {"xxt": (low, high), "X": ..., "output": ...}; empty for one sentence.
    """
    if len(views) < 2:
        return {}
    unit = views[0].unit
    scores = [v.trace.scores for v in views]
    ranges = {"xxt": (-1.0, 1.0) if unit else (min(float(s.min()) for s in scores),
                                              max(float(s.max()) for s in scores))}
    if comparable:
        for name, matrices in (("X", [v.x for v in views]), ("output", [v.trace.outputs for v in views])):
            ranges[name] = min(float(m.min()) for m in matrices), max(float(m.max()) for m in matrices)
    return ranges
