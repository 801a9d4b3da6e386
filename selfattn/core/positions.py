"""Word order: positional encodings, and the check that self-attention alone cannot see order.

Without positions, self-attention is *permutation-equivariant*: shuffle the rows of X and every
output row moves with its token, with the same numbers (each output is a weighted sum over all
tokens, and a sum does not care about order). :func:`shuffle_check` runs attention on X and on
the shuffled X and says which output row went where and how far it is from the row it should
equal. Positions break this: they belong to the place in the sentence, not to the token, so
``X + PE`` shuffled is ``X[order] + PE``, not ``(X + PE)[order]``. A causal mask breaks it too
(token i may only look back, and "back" depends on the order).

Two sentences made of the same tokens in another order (狗咬人 / 人咬狗) are the same check with
vectors from outside: :func:`match_order` finds the order, :func:`reorder_check` compares
attention over both. Static vectors (one per token, whatever its place) give the first sentence's
attention, permuted; a model's contextual vectors carry positions and do not.

Conventions: ``order`` is 0-based here; the new row r holds the old token ``order[r]``
(``x_shuffled = x[order]``). The UI writes it counted from 1.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from selfattn.core.attention import AttentionTrace, self_attention
from selfattn.core.checks import as_matrix
from selfattn.errors import InputError

KINDS = ("none", "sinusoidal", "learned")
BASE = 10000.0  # Vaswani et al. 2017's wavelength base
MAX_CELLS = 10_000_000  # n × d of one encoding: 80 MB of float64
MAX_SEED = 2**31 - 1
MAX_ORDER_CHARS = 400  # a typed order for up to 100 tokens
EQUIVARIANCE_TOL = 1e-12  # relative to the largest output (sums in another order differ in the last bits)

__all__ = ["KINDS", "ReorderTrace", "ShuffleTrace", "inverse", "match_order", "parse_order", "positional_encoding",
           "random_order", "reorder_check", "shuffle_check"]


def _whole(value: Any, name: str, lo: int, hi: int) -> int:
    """``value`` as an int from ``lo`` to ``hi``, or InputError ``pos_whole`` naming it."""
    try:
        if isinstance(value, bool):
            raise TypeError
        number = operator.index(value)
    except TypeError:
        number = None
    if number is None or not lo <= number <= hi:
        raise InputError("pos_whole", f"{name} must be a whole number from {lo} to {hi}, got {value!r}.",
                         name=name, lo=lo, hi=hi, value=str(value))
    return number


def positional_encoding(n: int, d: int, kind: str = "sinusoidal", seed: int = 0) -> np.ndarray:
    """Position vectors for positions 0 .. n-1, one row each, to add to X (n, d).

    Args:
        n: number of positions (tokens).
        d: width of each vector (X's d_in).
        kind: "sinusoidal": PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d))
            (Vaswani et al. 2017; for an odd d the last column is a sine); "learned": what a learned
            table looks like before training, standard-normal numbers drawn with ``seed`` (as
            ``torch.nn.Embedding`` starts), rounded to 3 decimals like the Playground's random
            preset; "none": zeros.
        seed: for "learned" only.

    Returns:
        (n, d) float64.

    Raises:
        InputError: ``pos_kind`` for another kind, ``pos_whole`` for a size or seed that is not a
            whole number in range, ``pos_too_big`` beyond MAX_CELLS numbers.
    """
    if kind not in KINDS:
        raise InputError("pos_kind", f"kind must be one of {', '.join(KINDS)}, got {kind!r}.",
                         kind=str(kind), choices=", ".join(KINDS))
    n, d = _whole(n, "n", 1, MAX_CELLS), _whole(d, "d", 1, MAX_CELLS)
    seed = _whole(seed, "seed", 0, MAX_SEED)
    if n * d > MAX_CELLS:
        raise InputError("pos_too_big", f"{n} × {d} position numbers is more than {MAX_CELLS:,}.",
                         n=n, d=d, top=MAX_CELLS)
    if kind == "none":
        return np.zeros((n, d))
    if kind == "learned":
        return np.round(np.random.default_rng(seed).standard_normal((n, d)), 3)
    pos = np.arange(n, dtype=np.float64)[:, None]  # (n, 1)
    two_i = np.arange(0, d, 2, dtype=np.float64)  # (ceil(d/2),) the even columns 0, 2, 4, ...
    angles = pos / BASE ** (two_i / d)  # (n, ceil(d/2))
    pe = np.empty((n, d))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d // 2])  # an odd d has one sine more than cosines
    return pe


# ── Orders (permutations) ──────────────────────────────────────────────────────────────

_SEPARATORS = re.compile(r"[\s,，、;；]+")


def parse_order(text: str, n: int) -> np.ndarray:
    """A new order of n tokens as typed, counted from 1 ("3 1 2", "3,1,2", "3，1，2"), 0-based.

    Empty text is the order as it is. The new row r holds the old token ``order[r]``.

    Raises:
        InputError: ``order_not_numbers`` (what), ``order_length`` (n, got), ``order_range`` (value, n),
            ``order_repeat`` (value, missing): each says how to fix it.
    """
    n = _whole(n, "n", 1, MAX_CELLS)
    if not isinstance(text, str) or len(text) > MAX_ORDER_CHARS:
        raise InputError("order_too_long", f"An order is at most {MAX_ORDER_CHARS} characters.", top=MAX_ORDER_CHARS)
    parts = [p for p in _SEPARATORS.split(text.strip()) if p]
    if not parts:
        return np.arange(n)
    bad = next((p for p in parts if not (p.isascii() and p.isdigit() and len(p) <= 6)), None)
    if bad is not None:
        raise InputError("order_not_numbers", f"“{bad}” is not a token number; write the numbers 1 to {n}, "
                         "each once, in the new order.", what=bad, n=n)
    numbers = [int(p) for p in parts]
    if len(numbers) != n:
        raise InputError("order_length", f"The order names {len(numbers)} tokens, but there are {n}; "
                         f"write each of 1 to {n} once.", n=n, got=len(numbers))
    out = next((v for v in numbers if not 1 <= v <= n), None)
    if out is not None:
        raise InputError("order_range", f"{out} is not a token: the tokens are 1 to {n}.", value=out, n=n)
    seen: set[int] = set()
    for v in numbers:
        if v in seen:
            missing = min(set(range(1, n + 1)) - set(numbers))
            raise InputError("order_repeat", f"{v} appears twice and {missing} is missing; "
                             "a new order names every token once.", value=v, missing=missing)
        seen.add(v)
    return np.array(numbers) - 1


def random_order(n: int, seed: int) -> np.ndarray:
    """A random new order of n tokens, drawn with ``seed`` (0-based), never the same order when n > 1."""
    n, seed = _whole(n, "n", 1, MAX_CELLS), _whole(seed, "seed", 0, MAX_SEED)
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    while n > 1 and np.array_equal(order, np.arange(n)):  # a "shuffle" that changes nothing teaches nothing
        order = rng.permutation(n)
    return order


def inverse(order: np.ndarray) -> np.ndarray:
    """Where each old token went: ``inverse(order)[i]`` is the new row of old token i."""
    where = np.empty_like(order)
    where[order] = np.arange(len(order))
    return where


# ── The check ──────────────────────────────────────────────────────────────────────────

@dataclass(frozen=True)
class ShuffleTrace:
    """Attention on X (+ PE) and on the shuffled X (+ the same PE), and how their outputs compare."""

    order: np.ndarray  # (n,) int: new row r holds old token order[r]
    where: np.ndarray  # (n,) int: old token i went to new row where[i] (the inverse of order)
    pe: np.ndarray  # (n, d_in) position vectors added in both runs (zeros: none)
    before: AttentionTrace  # on x + pe
    after: AttentionTrace  # on x[order] + pe
    expected: np.ndarray  # (n, d_v) before.outputs[order]: the outputs if attention ignores order
    row_diff: np.ndarray  # (n,) max |after.outputs[r] - expected[r]| over the columns of row r
    max_diff: float  # the largest of row_diff
    tolerance: float  # EQUIVARIANCE_TOL × max(1, largest |output|)
    equivariant: bool  # max_diff <= tolerance: every output row only moved


def shuffle_check(x: Any, order: Any, attention: Callable[[np.ndarray], AttentionTrace] | None = None, *,
                  pe: Any = None, **kwargs) -> ShuffleTrace:
    """Run self-attention on X and on X with its rows in ``order``, and compare the outputs row by row.

    Args:
        x: (n, d_in) token vectors.
        order: (n,) 0-based new order, a permutation of 0 .. n-1.
        attention: X -> AttentionTrace; default ``self_attention(X, **kwargs)`` (pass w_q, w_k,
            w_v, biases, scale and mask as keywords).
        pe: (n, d_in) position vectors, added by position (after the shuffle), or None.

    Returns:
        ShuffleTrace: ``equivariant`` is True when every output row of the shuffled run equals
        the original output of the token it holds (to EQUIVARIANCE_TOL relative).

    Raises:
        InputError: ``order_bad`` when ``order`` is not a permutation of 0 .. n-1, ``pos_shape``
            when ``pe`` is not X's shape, and whatever ``attention`` raises.
    """
    x = as_matrix(x, "X")
    n = len(x)
    perm = np.asarray(order)
    if perm.shape != (n,) or perm.dtype.kind not in "iu" or not np.array_equal(np.sort(perm), np.arange(n)):
        raise InputError("order_bad", f"order must hold each of 0 .. {n - 1} once.", n=n)
    pe = np.zeros_like(x) if pe is None else as_matrix(pe, "PE")
    if pe.shape != x.shape:
        raise InputError("pos_shape", f"PE is {pe.shape} but X is {x.shape}.", pe=str(pe.shape), x=str(x.shape))
    run = attention if attention is not None else (lambda rows: self_attention(rows, **kwargs))
    before = run(x + pe)  # (n, d_v) outputs
    after = run(x[perm] + pe)  # the positions stay where they are; the tokens move
    expected = before.outputs[perm]
    row_diff = np.max(np.abs(after.outputs - expected), axis=1)  # (n,)
    max_diff = float(np.max(row_diff))
    tolerance = EQUIVARIANCE_TOL * max(1.0, float(np.max(np.abs(before.outputs))))
    return ShuffleTrace(order=perm, where=inverse(perm), pe=pe, before=before, after=after, expected=expected, row_diff=row_diff,
                        max_diff=max_diff, tolerance=tolerance, equivariant=max_diff <= tolerance)


# ── Two sentences with the same tokens in another order ────────────────────────────────

def match_order(first: list[str], second: list[str]) -> np.ndarray:
    """The order that turns the tokens of ``first`` into those of ``second``: ``second[r] == first[order[r]]``.

    A token that appears more than once is matched in turn (its k-th time in ``second`` with its
    k-th time in ``first``).

    Raises:
        InputError: ``order_not_same_tokens`` (only_first, only_second: the tokens, with repeats, that
            one sentence has more of than the other) when they are not the same tokens.
    """
    waiting: dict[str, list[int]] = {}
    for i, token in enumerate(first):
        waiting.setdefault(token, []).append(i)
    order, extra = [], []
    for token in second:
        if waiting.get(token):
            order.append(waiting[token].pop(0))
        else:
            extra.append(token)
    left = [first[i] for i in sorted(i for rows in waiting.values() for i in rows)]
    if extra or left:
        raise InputError("order_not_same_tokens", f"The two sentences do not have the same tokens: only in the first "
                         f"{left}, only in the second {extra}.", only_first=" ".join(left) or "—",
                         only_second=" ".join(extra) or "—")
    return np.array(order, dtype=int)


@dataclass(frozen=True)
class TextMatch:
    """Two sentences' tokens matched by the text they stand for, and what their reader cannot tell apart."""

    order: np.ndarray  # (n,) int: token r of the second sentence stands for the text of token order[r] of the first
    merged: dict[str, tuple[str, ...]]  # a token read for two or more different texts -> those texts, first seen first

    @property
    def readable(self) -> bool:
        """True when every token is read for one text only: the reader tells apart all that the sentences hold."""
        return not self.merged


def match_text(first_text: list[str], second_text: list[str], first_read: list[str],
               second_read: list[str]) -> TextMatch:
    """Match two sentences by what the visitor typed, never by what a model reads, and say what it cannot tell apart.

    A model that turns 狗 and 咬 both into [UNK] reads 狗咬人 as "[UNK] [UNK] 人": matched by token, 人咬狗
    would be any order of the two [UNK]s. Matched by text it is 3 2 1, and the [UNK] that stands for two
    characters is named in ``merged``.

    Args:
        first_text, second_text: (n,) the text each token stands for (a piece inside a word marked apart by the
            caller, so that it is never matched with a whole word of the same letters).
        first_read, second_read: (n,) what the reader takes for each token (its token, [UNK] where it has no vector).

    Returns:
        TextMatch: ``order`` from :func:`match_order` on the texts; ``merged`` every token read for more than one
        text across both sentences.

    Raises:
        InputError: ``order_not_same_tokens`` when the texts are not the same, in another order; ``order_bad``
            when a sentence's two lists differ in length.
    """
    if len(first_text) != len(first_read) or len(second_text) != len(second_read):
        raise InputError("order_bad", "Each token needs its text and what is read for it.", n=len(first_text))
    order = match_order(first_text, second_text)
    texts_of: dict[str, list[str]] = {}
    for read, text in zip([*first_read, *second_read], [*first_text, *second_text]):
        seen = texts_of.setdefault(read, [])
        if text not in seen:
            seen.append(text)
    return TextMatch(order=order, merged={read: tuple(texts) for read, texts in texts_of.items() if len(texts) > 1})


@dataclass(frozen=True)
class ReorderTrace:
    """Attention over two sentences made of the same tokens in another order, compared token by token."""

    order: np.ndarray  # (n,) int: token r of the second sentence is token order[r] of the first
    first: AttentionTrace  # on the first sentence's vectors
    second: AttentionTrace  # on the second sentence's vectors
    moved_weights: np.ndarray  # (n, n) first.weights[order][:, order] = P A Pᵀ: the second's if order did not matter
    weights_diff: float  # max |second.weights − moved_weights|
    outputs_diff: float  # max |second.outputs − first.outputs[order]|
    cosines: np.ndarray  # (n,) cosine between a token's vector in the first sentence and in the second
    same: bool  # both differences within EQUIVARIANCE_TOL: the second's attention is the first's, permuted


def reorder_check(x_first: Any, x_second: Any, order: Any,
                  attention: Callable[[np.ndarray], AttentionTrace]) -> ReorderTrace:
    """Run ``attention`` on both sentences' vectors and say whether the second is the first, permuted.

    Args:
        x_first, x_second: (n, d) one vector per token of each sentence.
        order: (n,) from :func:`match_order`.
        attention: vectors -> AttentionTrace, e.g. ``raw_self_attention``.

    Raises:
        InputError: ``order_bad`` when ``order`` is not a permutation of the rows, ``pos_shape`` when the
            two sentences' vectors differ in shape.
    """
    a, b = as_matrix(x_first, "X"), as_matrix(x_second, "X")
    if a.shape != b.shape:
        raise InputError("pos_shape", f"The sentences' vectors are {a.shape} and {b.shape}.", pe=str(b.shape),
                         x=str(a.shape))
    perm = np.asarray(order)
    n = len(a)
    if perm.shape != (n,) or perm.dtype.kind not in "iu" or not np.array_equal(np.sort(perm), np.arange(n)):
        raise InputError("order_bad", f"order must hold each of 0 .. {n - 1} once.", n=n)
    first, second = attention(a), attention(b)
    moved = first.weights[perm][:, perm]  # (n, n) P A Pᵀ
    weights_diff = float(np.max(np.abs(second.weights - moved)))
    outputs_diff = float(np.max(np.abs(second.outputs - first.outputs[perm])))
    norm_a, norm_b = np.linalg.norm(a[perm], axis=1), np.linalg.norm(b, axis=1)  # (n,), (n,)
    both_zero = (norm_a == 0) & (norm_b == 0)  # a token with no vector in either: the same (zero) vector
    cosines = np.divide(np.sum(a[perm] * b, axis=1), norm_a * norm_b, out=np.where(both_zero, 1.0, 0.0),
                        where=norm_a * norm_b > 0)
    tolerance = EQUIVARIANCE_TOL * max(1.0, float(np.max(np.abs(first.outputs))))
    return ReorderTrace(order=perm, first=first, second=second, moved_weights=moved, weights_diff=weights_diff,
                        outputs_diff=outputs_diff, cosines=cosines,
                        same=weights_diff <= EQUIVARIANCE_TOL and outputs_diff <= tolerance)
