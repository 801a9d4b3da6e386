"""Validation at the boundary of the maths: what a caller passes, checked and converted, or an InputError.

Lists, numpy arrays and torch tensors become finite float64 arrays, ``None`` and ``"causal"``
become boolean masks, and every problem a person can fix raises :class:`InputError` with a
code the UI translates. The kernels in :mod:`selfattn.core.attention` and
:mod:`selfattn.core.heads` trust what comes out of here and check nothing themselves.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from selfattn.errors import InputError

Mask = None | str | np.ndarray


def as_matrix(value: Any, name: str, ndim: int = 2) -> np.ndarray:
    """Convert a list, numpy array or torch tensor to a finite float64 array of ``ndim`` dims.

    Raises:
        InputError: naming ``name``: ``not_numeric``, ``wrong_ndim``, ``empty`` or ``not_finite``
            (NaN or infinity), checked in that order.
    """
    if hasattr(value, "detach"):  # torch tensor, possibly on a GPU or requiring grad
        value = value.detach().cpu().double().numpy()
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError("not_numeric", f"{name} must contain only numbers ({exc}).", name=name) from None
    if array.ndim != ndim:
        raise InputError(
            "wrong_ndim", f"{name} must have {ndim} dimension(s), got shape {array.shape}.",
            name=name, ndim=ndim, shape=str(array.shape),
        )
    if array.size == 0:
        raise InputError("empty", f"{name} is empty; it needs at least one row and one column.", name=name)
    bad = np.argwhere(~np.isfinite(array))
    if len(bad):
        where = ", ".join(str(int(i) + 1) for i in bad[0])
        value = array[tuple(bad[0])]
        raise InputError(
            "not_finite", f"{name} holds {value} at position ({where}); only finite numbers are allowed.",
            name=name, value=str(value), where=where,
        )
    return array


def check_projections(x: Any, w_q: Any, w_k: Any, w_v: Any) -> tuple[np.ndarray, ...]:
    """Inputs and projection weights of single-head attention, as float64 arrays.

    Args:
        x: (n, d_in) inputs.
        w_q, w_k: (d_in, d_k) query and key weights.
        w_v: (d_in, d_v) value weights.

    Returns:
        (x, w_q, w_k, w_v) as float64 arrays.

    Raises:
        InputError: as :func:`as_matrix` for X, W_q, W_k, W_v in turn, then ``rows_mismatch``
            (name, rows, d_in) for the first W whose rows are not X's columns, then
            ``dk_mismatch`` (q, k) when W_q and W_k differ in columns.
    """
    x = as_matrix(x, "X")
    w_q, w_k, w_v = as_matrix(w_q, "W_q"), as_matrix(w_k, "W_k"), as_matrix(w_v, "W_v")
    d_in = x.shape[1]
    for name, w in (("W_q", w_q), ("W_k", w_k), ("W_v", w_v)):
        if w.shape[0] != d_in:
            raise InputError(
                "rows_mismatch", f"{name} has {w.shape[0]} rows but X has {d_in} columns; they must match (x @ W).",
                name=name, rows=w.shape[0], d_in=d_in,
            )
    if w_q.shape[1] != w_k.shape[1]:
        raise InputError(
            "dk_mismatch", f"W_q has {w_q.shape[1]} columns but W_k has {w_k.shape[1]}; queries and keys need the same d_k.",
            q=w_q.shape[1], k=w_k.shape[1],
        )
    return x, w_q, w_k, w_v


def as_bias(value: Any, name: str, width: int) -> np.ndarray:
    """A (width,) float64 bias; ``None`` means no bias.

    No bias is a vector of -0.0, not 0.0: ``a + -0.0`` is ``a`` bit for bit, while ``-0.0 + 0.0``
    is ``+0.0``, so adding it changes no number a page shows (not even the sign of a zero).

    Raises:
        InputError: as :func:`as_matrix`, or ``bias_len`` (name, width, got) when it has the wrong length.
    """
    if value is None:
        return np.full(width, -0.0)
    vec = as_matrix(value, name, ndim=1)
    if vec.shape != (width,):
        raise InputError(
            "bias_len", f"{name} must have {width} entries, got {vec.shape[0]}.", name=name, width=width, got=vec.shape[0]
        )
    return vec


def check_square_weights(d_model: int, **weights: Any) -> list[np.ndarray]:
    """Each weight as float64, checked to be (d_model, d_model), in the order given.

    Raises:
        InputError: as :func:`as_matrix`, or ``weight_shape`` (name, expected, got).
    """
    checked = []
    for name, w in weights.items():
        w = as_matrix(w, name)
        if w.shape != (d_model, d_model):
            raise InputError(
                "weight_shape",
                f"{name} must be ({d_model}, {d_model}) to match X's {d_model} columns, got {w.shape}.",
                name=name, expected=f"({d_model}, {d_model})", got=str(w.shape),
            )
        checked.append(w)
    return checked


def check_heads(d_model: int, num_heads: Any) -> int:
    """``num_heads`` as an int, checked to split ``d_model`` columns into equal heads.

    The one heads check of the numpy maths, the torch modules and the benchmark.

    Raises:
        InputError: ``heads_not_positive`` (num_heads) unless it is a whole number of at least 1
            (True and 2.0 are not); ``heads_not_divisible`` (d_model, num_heads) unless it divides
            d_model (and d_model is at least 1).
    """
    try:
        if isinstance(num_heads, bool):
            raise TypeError
        heads = operator.index(num_heads)  # ints and numpy ints, not floats
    except TypeError:
        raise InputError(
            "heads_not_positive", f"num_heads must be a positive whole number, got {num_heads!r}.",
            num_heads=str(num_heads),
        ) from None
    if heads < 1:
        raise InputError(
            "heads_not_positive", f"num_heads must be a positive whole number, got {heads}.", num_heads=str(heads)
        )
    if d_model < 1 or d_model % heads:
        raise InputError(
            "heads_not_divisible",
            f"d_model = {d_model} cannot be split evenly into {heads} heads; pick a number of heads that divides it.",
            d_model=d_model, num_heads=heads,
        )
    return heads


def causal_mask(n: int) -> np.ndarray:
    """(n, n) boolean mask, True on and below the diagonal: token i sees tokens 0..i."""
    return np.tril(np.ones((n, n), dtype=bool))


def resolve_mask(mask: Mask, n_q: int, n_k: int | None = None) -> np.ndarray:
    """Turn ``None``, ``"causal"`` or a boolean array into a boolean (n_q, n_k) mask, True = may attend.

    Args:
        mask: None (every query sees every key), "causal" (square only: token i sees tokens
            0..i), or a boolean (n_q, n_k) array or tensor.
        n_q: number of queries (rows).
        n_k: number of keys (columns); None means n_q, as in self-attention.

    Returns:
        (n_q, n_k) bool array in which every row has a True.

    Raises:
        InputError: ``mask_kind`` for another string or a non-boolean array, ``mask_shape``
            (n, shape) for the wrong shape or "causal" with n_q != n_k, ``mask_empty_row`` (row)
            when a query could attend to nothing.
    """
    n_k = n_q if n_k is None else n_k
    if mask is None:
        return np.ones((n_q, n_k), dtype=bool)
    if isinstance(mask, str):
        if mask != "causal":
            raise InputError("mask_kind", f'mask must be None, "causal" or a boolean array, got "{mask}".')
        if n_q != n_k:
            raise InputError(
                "mask_shape", f'a "causal" mask needs as many queries as keys, got {n_q} queries and {n_k} keys.',
                n=n_q, shape=f"({n_q}, {n_k})",
            )
        return causal_mask(n_q)
    if hasattr(mask, "detach"):
        mask = mask.detach().cpu().numpy()
    allowed = np.asarray(mask)
    if allowed.shape != (n_q, n_k):
        tokens = f"{n_q} tokens" if n_q == n_k else f"{n_q} queries and {n_k} keys"
        raise InputError(
            "mask_shape", f"mask must have shape ({n_q}, {n_k}) for {tokens}, got {allowed.shape}.",
            n=n_q, shape=str(allowed.shape),
        )
    if allowed.dtype != bool:
        raise InputError("mask_kind", "mask must be boolean (True = may attend).")
    empty = np.flatnonzero(~allowed.any(axis=1))
    if len(empty):
        raise InputError(
            "mask_empty_row",
            f"mask leaves token {int(empty[0]) + 1} with nothing to attend to; every row needs at least one True.",
            row=int(empty[0]) + 1,
        )
    return allowed


def check_overflow(*arrays: np.ndarray) -> None:
    """Raise InputError ``overflow`` unless every entry of every array is finite.

    The maths runs with overflow warnings off and calls this on what it computed, so a visitor
    reads one sentence instead of a page of infinities.
    """
    if not all(np.all(np.isfinite(a)) for a in arrays):
        raise InputError("overflow", "Scores overflowed to infinity; the numbers in X or W are too large.")
