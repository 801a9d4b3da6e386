"""What the raw form Softmax(XXᵀ/√d)X does to one sentence's vectors, as numbers a page can quote.

The Sentence embeddings page explains why it starts with unit-length vectors. The reason depends on
the vectors: jieba's character vectors are about 20 long, so their dot products reach hundreds and the
softmax is one-hot even after ÷√d; MiniLM's rows are about 1 long and it is not. ``raw_facts`` measures
it for the vectors at hand, so the sentence on the page is computed from the state it describes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from selfattn.core.attention import raw_self_attention, unit_rows


@dataclass(frozen=True)
class RawFacts:
    """Sizes of one sentence's X and what the softmax makes of them.

    Lengths and dot products are of X as the source gives it; ``self_weight`` is for the map drawn
    (the page's unit-length and ÷√d choices).
    """

    n: int  # tokens (rows of X)
    d: int  # dimension (columns of X)
    shortest: float  # length of the shortest row of X
    longest: float  # length of the longest row of X
    top_dot: float  # largest |entry| of XXᵀ
    root_d: float  # √d
    raw_self_weight: float  # mean weight a token puts on itself in Softmax(XXᵀ/√d), X as given
    self_weight: float  # the same in the map drawn: unit rows or not, ÷√d or not


def raw_facts(vectors: np.ndarray, *, unit: bool, scale: bool) -> RawFacts:
    """Measure ``vectors`` (n, d) as the raw form sees them.

    Args:
        vectors: (n, d) token vectors as the source gives them.
        unit: the page draws unit-length rows.
        scale: the page divides XXᵀ by √d.

    Returns:
        RawFacts; ``self_weight`` is the mean of the diagonal of the weights drawn.
    """
    x = np.asarray(vectors, dtype=float)  # (n, d)
    n, d = x.shape
    lengths = np.linalg.norm(x, axis=1)  # (n,)
    raw = raw_self_attention(x, scale=True)
    shown = raw_self_attention(unit_rows(x) if unit else x, scale=scale)
    return RawFacts(n=n, d=d, shortest=float(lengths.min()), longest=float(lengths.max()),
                    top_dot=float(np.max(np.abs(raw.scores))), root_d=math.sqrt(d),
                    raw_self_weight=float(np.mean(np.diag(raw.weights))),
                    self_weight=float(np.mean(np.diag(shown.weights))))
