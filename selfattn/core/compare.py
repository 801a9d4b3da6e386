"""One head against many on one input: the Heads & devices page's comparison, pure and testable alone.

The same W_q, W_k, W_v, W_o serve as one head of width d_model and as ``num_heads`` heads of width
d_model / num_heads; a mistake is the same call with one step swapped (:data:`selfattn.core.heads.MISTAKE_STEPS`);
and the outputs are checked against ``torch.nn.MultiheadAttention`` with the same weights.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from selfattn.core.heads import MultiHeadTrace, multi_head_attention, multi_head_attention_with_mistake
from selfattn.core.presets import xavier


@dataclass(frozen=True)
class CompareSettings:
    """What the Heads & devices page's single-vs-multi comparison is computed from: its widgets and link."""

    source: str  # "random" or "sentence"
    seed: int  # the random input's and the weights' seed
    n: int | None  # tokens of the random input (None for a sentence: its own tokens)
    d_model: int | None  # width of the random input (None for a sentence: its vectors' width)
    text: str  # the sentence, for source "sentence"
    causal: bool  # causal mask: token i sees tokens 1 .. i only


def random_input(seed: int, n: int, d_model: int) -> tuple[np.ndarray, list[str]]:
    """A reproducible (n, d_model) standard-normal input and its token labels t1 .. tn."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d_model)), [f"t{i + 1}" for i in range(n)]  # (n, d_model)


def sentence_labels(tokens: list[str]) -> list[str]:
    """A sentence's token labels, numbered from 1 so that repeated tokens stay apart."""
    return [f"{i + 1}·{t}" for i, t in enumerate(tokens)]


def head_choices(d_model: int, max_heads: int) -> list[int]:
    """Head counts that divide d_model, up to ``max_heads``."""
    return [h for h in range(1, max_heads + 1) if d_model % h == 0]


def random_weights(d_model: int, seed: int) -> dict[str, np.ndarray]:
    """Xavier-uniform W_q, W_k, W_v, W_o of shape (d_model, d_model), reproducible from ``seed``."""
    rng = np.random.default_rng(seed + 1)
    return {name: xavier(rng, d_model, d_model) for name in ("w_q", "w_k", "w_v", "w_o")}


def _args(x, weights):
    return x, weights["w_q"], weights["w_k"], weights["w_v"], weights["w_o"]


def compare(x, weights, num_heads: int, causal: bool) -> tuple[MultiHeadTrace, MultiHeadTrace]:
    """The same weights used as one head and as ``num_heads`` heads.

    Args:
        x: (n, d_model) input.
        weights: :func:`random_weights`, each (d_model, d_model).

    Returns:
        (single, multi): the traces of 1 head and of ``num_heads`` heads.
    """
    mask = "causal" if causal else None
    return (multi_head_attention(*_args(x, weights), 1, mask=mask),
            multi_head_attention(*_args(x, weights), num_heads, mask=mask))


def mistake(x, weights, num_heads: int, causal: bool, name: str) -> MultiHeadTrace:
    """``num_heads`` heads with the classic mistake ``name`` (a key of MISTAKE_STEPS) swapped in."""
    return multi_head_attention_with_mistake(*_args(x, weights), num_heads, mistake=name,
                                             mask="causal" if causal else None)


def torch_differences(x, weights, num_heads: int) -> dict[str, float]:
    """Max |ours − torch.nn.MultiheadAttention| (float64, same weights), without ("none") and with ("causal") a mask."""
    import torch

    from selfattn.core.torch_attention import build_attention, set_projection_weights

    d_model = x.shape[1]
    module = build_attention("torch_mha", d_model, num_heads, bias=False, dtype=torch.float64)
    set_projection_weights(module, *(weights[k] for k in ("w_q", "w_k", "w_v", "w_o")))
    out = {}
    with torch.inference_mode():
        for name, causal in (("none", False), ("causal", True)):
            theirs = module(torch.as_tensor(x, dtype=torch.float64)[None], causal=causal)[0].numpy()  # (n, d_model)
            ours = multi_head_attention(*_args(x, weights), num_heads, mask="causal" if causal else None).outputs
            out[name] = float(np.max(np.abs(ours - theirs)))
    return out


def shared_domain(*matrices) -> tuple[float, float]:
    """One colour scale for maps meant to be compared: one colour, one number."""
    values = np.concatenate([np.asarray(m, dtype=float).ravel() for m in matrices])
    return float(values.min()), float(values.max())


def shared_domain_if_spread(*matrices) -> tuple[float, float] | None:
    """:func:`shared_domain`, or None when every value is the same (the map then picks its own scale)."""
    lo, hi = shared_domain(*matrices)
    return (lo, hi) if lo < hi else None


def largest_difference(a, b) -> float:
    """max |a − b| over every entry: how far two results are apart."""
    return float(np.max(np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float))))


def largest_magnitude(matrix, floor: float = 0.0) -> float:
    """max |x| over the entries, at least ``floor`` (a symmetric colour scale's top)."""
    return max(floor, float(np.max(np.abs(np.asarray(matrix, dtype=float)))))


def difference(right, wrong) -> tuple[np.ndarray, float]:
    """(wrong − right, its largest magnitude): a mistake's effect on a result, and how big it gets."""
    diff = np.asarray(wrong, dtype=float) - np.asarray(right, dtype=float)
    return diff, float(np.max(np.abs(diff)))


def columns(*vectors) -> np.ndarray:
    """(n,) vectors side by side as the columns of an (n, k) table."""
    return np.stack([np.asarray(v, dtype=float) for v in vectors], axis=1)


def extent(matrix) -> tuple[float, float]:
    """(smallest, largest) entry."""
    values = np.asarray(matrix, dtype=float)
    return float(values.min()), float(values.max())

