"""Ready-made inputs for the Playground: the tutorial's worked example, Softmax(XXᵀ)X, random.

Each preset returns an :class:`Example`, the full set of editable numbers plus token labels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from selfattn.core.attention import Projections, self_attention

PRESETS = ("tutorial", "raw", "random")


@dataclass(frozen=True)
class Example(Projections):
    """All numbers a Playground session edits: the inputs and one head's weights and biases."""

    tokens: tuple[str, ...]  # one label per row of x
    x: np.ndarray  # (n, d_in)
    scale: bool  # the preset's natural choice of scaling


def tutorial_example() -> Example:
    """The worked example of the tutorials: 3 inputs of dimension 4 and three 4×3 weights, unscaled."""
    return Example(
        tokens=("Input 1", "Input 2", "Input 3"),
        x=np.array([[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]], dtype=float),
        w_q=np.array([[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]], dtype=float),
        w_k=np.array([[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]], dtype=float),
        w_v=np.array([[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]], dtype=float),
        b_q=np.zeros(3),
        b_k=np.zeros(3),
        b_v=np.zeros(3),
        scale=False,  # the tutorial skips the 1/sqrt(d_k), so its printed numbers are unscaled
    )


TUTORIAL_ROUGH_WEIGHTS = (0.0, 0.5, 0.5)  # the tutorial's softmax([2, 4, 4]), written rough so its sums are easy


@dataclass(frozen=True)
class ByHand:
    """Output 1 of the tutorial's example, as the tutorial's text works it out and exactly."""

    scores: np.ndarray  # (n,) input 1's query against every key: [2, 4, 4]
    weights: np.ndarray  # (n,) their softmax, exact
    output: np.ndarray  # (d_v,) output 1 from the exact weights: what the page shows
    rough_weights: np.ndarray  # (n,) the tutorial's softmax, written rough: [0.0, 0.5, 0.5]
    rough_output: np.ndarray  # (d_v,) output 1 from the rough weights: what the tutorial's text prints


def tutorial_by_hand() -> ByHand:
    """Why the tutorial's text prints output 1 as [2.0, 7.0, 1.5] while its code (and the page) get
    [1.9366, 6.6831, 1.5951]: the text rounds the weights before it multiplies."""
    example = tutorial_example()
    trace = self_attention(example.x, example.w_q, example.w_k, example.w_v, scale=example.scale)
    rough = np.array(TUTORIAL_ROUGH_WEIGHTS)
    return ByHand(scores=trace.scores[0], weights=trace.weights[0], output=trace.outputs[0],
                  rough_weights=rough, rough_output=rough @ trace.values)  # (n,) @ (n, d_v)


def raw_example() -> Example:
    """Softmax(XXᵀ)X: identity weights make queries, keys and values equal to X itself.

    Three tokens of "早上好" with small hand-made vectors, so similar rows attend to each other.
    """
    x = np.array([[1.0, 0.5, 0.0, 0.2], [0.9, 0.6, 0.1, 0.0], [0.0, 0.2, 1.0, 0.7]])
    eye = np.eye(4)
    return Example(
        tokens=("早", "上", "好"),
        x=x,
        w_q=eye,
        w_k=eye.copy(),
        w_v=eye.copy(),
        b_q=np.zeros(4),
        b_k=np.zeros(4),
        b_v=np.zeros(4),
        scale=False,  # the raw form has no 1/sqrt(d)
    )


def xavier(rng: np.random.Generator, fan_in: int, fan_out: int) -> np.ndarray:
    """Xavier/Glorot uniform initialisation: U(-a, a) with a = sqrt(6 / (fan_in + fan_out))."""
    bound = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-bound, bound, size=(fan_in, fan_out))


def random_example(seed: int = 0, n: int = 4, d_in: int = 4, d_k: int = 3, d_v: int = 3) -> Example:
    """Standard-normal inputs and Xavier-initialised weights, reproducible from ``seed``."""
    rng = np.random.default_rng(seed)
    return Example(
        tokens=tuple(f"t{i + 1}" for i in range(n)),
        x=np.round(rng.standard_normal((n, d_in)), 3),
        w_q=np.round(xavier(rng, d_in, d_k), 3),
        w_k=np.round(xavier(rng, d_in, d_k), 3),
        w_v=np.round(xavier(rng, d_in, d_v), 3),
        b_q=np.zeros(d_k),
        b_k=np.zeros(d_k),
        b_v=np.zeros(d_v),
        scale=True,
    )


def preset(name: str, seed: int = 0, **sizes: int) -> Example:
    """The preset called ``name`` (one of :data:`PRESETS`)."""
    if name == "tutorial":
        return tutorial_example()
    if name == "raw":
        return raw_example()
    if name == "random":
        return random_example(seed, **sizes)
    raise ValueError(f"Unknown preset {name!r}; choose one of {', '.join(PRESETS)}.")
