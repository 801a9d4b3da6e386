"""Reading a real model's attention: words instead of pieces, rollout across layers, head patterns.

Everything here is plain numpy on a :class:`selfattn.text.models.ModelRun` (or its arrays), so a page,
a notebook or a test calls the same functions:

* ``word_groups(run)`` / ``word_labels(run, groups)``: which tokens make one word. WordPiece
  continuation pieces (``##ing``) join the piece before them; runs of Chinese characters join into
  the words jieba finds in the run's text (我爱自然语言处理 -> 我 / 爱 / 自然语言 / 处理); [CLS] and
  [SEP] stay alone.
* ``merge_words(weights, groups)``: token-to-token attention turned into word-to-word attention
  the way Clark et al. (2019, "What Does BERT Look At?", section 4.1) do it: *sum* over the pieces
  of the word attended to, *average* over the pieces of the word attending, so rows still sum to 1.
* ``rollout(attentions)``: attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow
  in Transformers"): the residual connection is modelled as half of each layer's mixing, and the
  layers are chained by matrix products.
* ``head_patterns(attentions, special)``: a name for every head (previous token, next token, self,
  [CLS], [SEP], broad or mixed) and how strongly it holds, with the thresholds below.

Shapes: n tokens, m words, L layers, H heads. Attention rows are queries (the token attending) and
columns are keys (the token attended to), as in ``ModelRun.attentions`` (L, H, n, n).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from selfattn.text.embedding_text import is_cjk

# ---- thresholds (one place; the page's legend quotes them) -------------------------------------
# A head is named after a target (previous token, next token, itself, [CLS], [SEP]) when its word
# rows put at least half their weight there on average: then the target gets more than all other
# tokens together, so the name says what the head mostly does. Clark et al. (2019, section 3) use
# the same kind of cut: heads that put most of their attention on the previous or next token or on
# [SEP].
PATTERN_THRESHOLD = 0.5
# A head with no such target is "broad" when its rows are spread out: the mean normalised entropy
# H(row) / log(n) is at least 0.8, as spread as an even split over n**0.8 tokens (9 of 15, 28 of
# 64). The broad heads of all-MiniLM-L6-v2's first layer measure 0.88-0.93 on a 15-token sentence;
# the [CLS] sinks 0.2-0.7. Anything else is "mixed".
BROAD_THRESHOLD = 0.8
# Abnar & Zuidema model the residual connection as an identity added with equal weight:
# A = 0.5 * W + 0.5 * I.
RESIDUAL = 0.5

TARGET_KINDS = ("first", "last", "previous", "next", "self")  # named by where a row's weight goes; ties: this order
PATTERN_KINDS = ("previous", "next", "self", "first", "last", "broad", "mixed")  # every kind a head can get


@dataclass(frozen=True)
class HeadPattern:
    """What one head mostly does, and how strongly."""

    kind: str  # one of PATTERN_KINDS
    mass: float  # mean weight a word row puts on the kind's target; "broad": mean normalised entropy;
    # "mixed": the largest target's mass (how close it came to a name)
    scores: Mapping[str, float] = field(default_factory=dict, compare=False, repr=False)  # every target's
    # mass and "broad" (the entropy), for tooltips: {"previous": 0.02, ..., "broad": 0.41}


# ---- words ---------------------------------------------------------------------------------------

def token_spans(run: Any) -> list[tuple[int, int] | None]:
    """Where each token sits in ``run.text``: (start, end) character positions, None for [CLS]/[SEP].

    Uses ``run.originals`` (the text each token came from, from the tokenizer's offsets). A run
    without them (a slow tokenizer, a hand-made run) is aligned by finding each token's text, less
    its ``##``, in the text; an [UNK] then covers one Chinese character when one comes next (BERT
    splits Chinese into single characters, so an unknown one is exactly one [UNK]), else its span
    is unknown (None).

    Args:
        run: a ModelRun, or anything with ``text``, ``tokens``, ``special``, ``unknown`` and ``originals``.

    Returns:
        (n,) list of (start, end) or None, in token order, never overlapping.
    """
    text, tokens = run.text, list(run.tokens)
    originals = list(getattr(run, "originals", None) or [])
    have_originals = len(originals) == len(tokens)
    unknown = set(getattr(run, "unknown", ()) or ())
    lowered = text.lower() if len(text.lower()) == len(text) else text  # case-blind search when lengths agree
    spans: list[tuple[int, int] | None] = []
    cursor = 0
    for i, token in enumerate(tokens):
        if bool(run.special[i]):
            spans.append(None)
            continue
        surface = originals[i] if have_originals else ""
        if not surface and i in unknown:  # an [UNK] whose text is not known: one CJK character, if one is next
            start = cursor
            while start < len(text) and text[start].isspace():
                start += 1
            found = (start, start + 1) if start < len(text) and is_cjk(text[start]) else None
        else:
            surface = surface or token.removeprefix("##")
            start = text.find(surface, cursor)
            if start < 0:
                start = lowered.find(surface.lower(), cursor)
            found = (start, start + len(surface)) if start >= 0 and surface else None
        spans.append(found)
        if found is not None:
            cursor = found[1]
    return spans


def _jieba_word_ids(text: str) -> np.ndarray:
    """(len(text),) index of the jieba word each character belongs to (jieba's default dictionary, HMM on)."""
    from selfattn.text.charvec import jieba_tokenizer  # jieba, imported quietly and initialised once

    word_of_char = np.zeros(len(text), dtype=np.int64)  # (len(text),)
    for index, (_, start, end) in enumerate(jieba_tokenizer().tokenize(text)):
        word_of_char[start:end] = index
    return word_of_char


JOINERS = frozenset("'’-‐‑")  # inside a word when letters touch them on both sides: didn't, state-of-the-art


def _glued(spans: Sequence[tuple[int, int] | None], i: int) -> bool:
    """Token i starts where token i - 1 ends: no space or other character between them."""
    return i > 0 and spans[i] is not None and spans[i - 1] is not None and spans[i - 1][1] == spans[i][0]


def _joins_inside_word(text: str, spans: Sequence[tuple[int, int] | None], i: int, joined_before: bool) -> bool:
    """Token i belongs to the word before it through an apostrophe or hyphen (didn ' t -> didn't).

    An apostrophe or hyphen joins when letters or digits touch it on both sides; the token after it
    joins when the joiner joined.
    """
    if not _glued(spans, i):
        return False
    piece = text[spans[i][0]:spans[i][1]]
    before = text[spans[i - 1][0]:spans[i - 1][1]]
    if piece in JOINERS:
        after = spans[i + 1] if i + 1 < len(spans) else None
        return before[-1:].isalnum() and _glued(spans, i + 1) and text[after[0]:after[1]][:1].isalnum()
    return before in JOINERS and joined_before and piece[:1].isalnum()


def word_groups(run: Any) -> list[list[int]]:
    """Token indices of each word, covering every token once, in order.

    A token joins the word before it when it is a WordPiece continuation (``##...``); when it is an
    apostrophe or hyphen between letters, or the letters after one (didn ' t -> didn't,
    state - of - the - art -> state-of-the-art), as a reader counts words; or when it and the token
    before are Chinese characters inside one word of jieba's segmentation of ``run.text`` (so
    我爱自然语言处理 gives 我 / 爱 / 自然语言 / 处理, and an [UNK] standing for a character joins like
    the character). Special tokens ([CLS], [SEP]) are words of their own and never join; neither do
    tokens across whitespace or other punctuation.

    Args:
        run: a ModelRun (``text``, ``tokens``, ``special``, ``unknown``, ``originals``).

    Returns:
        m lists of token indices: [[0], [1], [2, 3], ...]; concatenated they are 0 .. n-1.
    """
    tokens = list(run.tokens)
    spans = token_spans(run)
    cjk = [span is not None and span[1] > span[0] and all(is_cjk(c) for c in run.text[span[0]:span[1]])
           for span in spans]
    word_of_char = _jieba_word_ids(run.text) if any(cjk) else None
    groups: list[list[int]] = []
    for i, token in enumerate(tokens):
        before = i - 1
        joins = groups and not bool(run.special[i]) and not bool(run.special[before]) and (
            token.startswith("##")
            or _joins_inside_word(run.text, spans, i, joined_before=len(groups[-1]) > 1)
            or (cjk[i] and cjk[before] and word_of_char[spans[before][1] - 1] == word_of_char[spans[i][0]])
        )
        if joins:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


UNKNOWN = "[UNK]"


def _unknown_label(run: Any, group: Sequence[int], spans: Sequence[tuple[int, int] | None]) -> str:
    """A word with [UNK] pieces as the model saw it: known pieces as written, each run of unknown ones
    as [UNK] (×k when k > 1). 自然语言 in MiniLM is [UNK]×4, never the characters the model never saw."""
    parts: list[str] = []
    unknown = set(run.unknown)
    run_length = 0
    for k, i in enumerate(group + [None]):
        if i is not None and i in unknown:
            run_length += 1
            continue
        if run_length:
            parts.append(UNKNOWN if run_length == 1 else f"{UNKNOWN}×{run_length}")
            run_length = 0
        if i is not None:
            span = spans[i]
            parts.append(run.text[span[0]:span[1]] if span is not None else run.tokens[i].removeprefix("##"))
    return "".join(parts)


def word_labels(run: Any, groups: Sequence[Sequence[int]]) -> list[str]:
    """A label per word: its text as written ("Tokenization", didn't), else its pieces joined (less ``##``).

    A word with unknown pieces shows them as the model has them: 自然语言 in a model that knows none of
    the four characters is "[UNK]×4", 处理 with only 处 known "处[UNK]".

    Args:
        run: the ModelRun the groups came from.
        groups: from ``word_groups``.

    Returns:
        (m,) labels; special tokens keep their own name ("[CLS]").
    """
    spans = token_spans(run)
    unknown = set(getattr(run, "unknown", ()) or ())
    labels = []
    for group in groups:
        parts = [spans[i] for i in group]
        if unknown.intersection(group):
            labels.append(_unknown_label(run, list(group), spans))
        elif all(part is not None for part in parts):
            labels.append(run.text[parts[0][0]:parts[-1][1]])
        else:
            labels.append("".join(run.tokens[i].removeprefix("##") if k else run.tokens[i]
                                  for k, i in enumerate(group)))
    return labels


def check_groups(groups: Sequence[Sequence[int]], n: int) -> None:
    """Raise ValueError unless ``groups`` splits tokens 0 .. n-1 into non-empty words, each token once."""
    flat = [int(i) for group in groups for i in group]
    if any(len(group) == 0 for group in groups) or sorted(flat) != list(range(n)):
        raise ValueError(f"groups must cover tokens 0..{n - 1} once each in non-empty words; got {list(groups)}")


def group_matrix(groups: Sequence[Sequence[int]], n: int) -> np.ndarray:
    """(n, m) 0/1 matrix with a 1 where token i belongs to word a."""
    check_groups(groups, n)
    member = np.zeros((n, len(groups)))  # (n, m)
    for word, group in enumerate(groups):
        member[list(group), word] = 1.0
    return member


def merge_words(weights: np.ndarray, groups: Sequence[Sequence[int]]) -> np.ndarray:
    """Word-to-word attention: sum over the pieces attended to, mean over the pieces attending.

    ``merged[a, b] = mean over i in word a of (sum over j in word b of weights[i, j])``, as in
    Clark et al. (2019), so each row still sums to what a token row sums to (1 for attention).

    Args:
        weights: (n, n) or a stack (..., n, n), e.g. ``run.attentions`` (L, H, n, n).
        groups: from ``word_groups``: m words covering tokens 0 .. n-1 once each.

    Returns:
        (..., m, m) float64.
    """
    weights = np.asarray(weights, dtype=np.float64)
    n = weights.shape[-1]
    if weights.ndim < 2 or weights.shape[-2] != n:
        raise ValueError(f"weights must be (..., n, n); got shape {weights.shape}")
    member = group_matrix(groups, n)  # (n, m)
    to_words = weights @ member  # (..., n, m): sum over the pieces of each word attended to
    mean_rows = (member / member.sum(axis=0)).T  # (m, n): average over the pieces of each word attending
    return mean_rows @ to_words  # (..., m, m)


# ---- rollout -------------------------------------------------------------------------------------

def _check_attentions(attentions: np.ndarray) -> np.ndarray:
    attentions = np.asarray(attentions, dtype=np.float64)
    if attentions.ndim != 4 or attentions.shape[-1] != attentions.shape[-2] or 0 in attentions.shape[:2]:
        raise ValueError(f"attentions must be (L, H, n, n) with L, H >= 1; got shape {attentions.shape}")
    return attentions


def rollout_layers(attentions: np.ndarray, residual: float = RESIDUAL) -> np.ndarray:
    """Attention rollout after each layer: [l] = A_{l+1} @ A_l @ ... @ A_1 (layers counted from 1).

    Per layer, A_l = (1 - residual) * (mean over heads of W_l) + residual * I, rows renormalised
    to sum to 1. Chaining starts at the first layer: R_1 = A_1, R_l = A_l @ R_{l-1}, so the last
    one is A_L ... A_2 A_1. Row i of R_l says how much of each input token (column j, the
    embeddings fed to layer 1) reaches token i's output of layer l along attention paths.

    Args:
        attentions: (L, H, n, n), rows are queries.
        residual: weight of the identity (the skip connection); 0.5 in Abnar & Zuidema.

    Returns:
        (L, n, n) float64; every row sums to 1.
    """
    attentions = _check_attentions(attentions)
    n = attentions.shape[-1]
    mixed = (1.0 - residual) * attentions.mean(axis=1) + residual * np.eye(n)  # (L, n, n)
    mixed = mixed / mixed.sum(axis=-1, keepdims=True)  # (L, n, n) rows sum to 1
    steps = np.empty_like(mixed)  # (L, n, n)
    flow = np.eye(n)  # (n, n) before layer 1 each token is itself
    for layer, a in enumerate(mixed):
        flow = a @ flow  # (n, n) A_l @ (A_{l-1} ... A_1)
        steps[layer] = flow
    return steps


def rollout(attentions: np.ndarray, residual: float = RESIDUAL) -> np.ndarray:
    """Attention rollout through all layers: R = A_L ... A_2 A_1 (see ``rollout_layers``).

    Args:
        attentions: (L, H, n, n).
        residual: weight of the identity in each layer's A_l.

    Returns:
        (n, n) float64: row i is how much of each input token reaches token i at the top.
    """
    return rollout_layers(attentions, residual)[-1]


# ---- head patterns -------------------------------------------------------------------------------

def _word_rows(special: np.ndarray) -> np.ndarray:
    rows = np.flatnonzero(~special)
    return rows if rows.size else np.arange(special.size)  # only special tokens: use them all


def pattern_scores(weights: np.ndarray, special: np.ndarray) -> dict[str, np.ndarray]:
    """How much weight word rows put on each target, and how spread they are, for every head at once.

    Rows are the non-special tokens (the words; [CLS] and [SEP] rows are left out, as they have no
    neighbours on one side and often attend to themselves). Targets: "previous" (i - 1), "next"
    (i + 1), "self" (i), "first" (token 0 when it is special, i.e. [CLS]) and "last" (token n-1
    when it is special, i.e. [SEP]); a target a run lacks is left out. "broad" is the mean over
    rows of H(row) / log(n), between 0 (one-hot) and 1 (uniform).

    Args:
        weights: (..., n, n), e.g. (L, H, n, n).
        special: (n,) bool.

    Returns:
        {kind: (...,) float64 array}, e.g. each (L, H).
    """
    weights = np.asarray(weights, dtype=np.float64)
    special = np.asarray(special, dtype=bool)
    n = weights.shape[-1]
    rows = _word_rows(special)
    scores: dict[str, np.ndarray] = {}
    if special[0]:
        scores["first"] = weights[..., rows, 0].mean(axis=-1)
    if special[-1] and n > 1:
        scores["last"] = weights[..., rows, n - 1].mean(axis=-1)
    for kind, shift in (("previous", -1), ("next", 1), ("self", 0)):
        have = rows[(rows + shift >= 0) & (rows + shift < n)]
        if have.size:
            scores[kind] = weights[..., have, have + shift].mean(axis=-1)
    p = weights[..., rows, :]  # (..., r, n)
    entropy = -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0), axis=-1)  # (..., r)
    scores["broad"] = entropy.mean(axis=-1) / np.log(n) if n > 1 else np.zeros(weights.shape[:-2])
    return scores


def classify(scores: Mapping[str, float]) -> HeadPattern:
    """Name one head from its ``pattern_scores``: the strongest target if it reaches
    PATTERN_THRESHOLD, else "broad" if the entropy reaches BROAD_THRESHOLD, else "mixed"."""
    targets = {kind: float(scores[kind]) for kind in TARGET_KINDS if kind in scores}
    kept = {kind: round(float(value), 6) for kind, value in scores.items()}
    best = max(targets, key=targets.get) if targets else None  # ties: the first in TARGET_KINDS
    if best is not None and targets[best] >= PATTERN_THRESHOLD:
        return HeadPattern(best, targets[best], kept)
    if float(scores.get("broad", 0.0)) >= BROAD_THRESHOLD:
        return HeadPattern("broad", float(scores["broad"]), kept)
    return HeadPattern("mixed", targets[best] if best is not None else 0.0, kept)


def head_patterns(attentions: np.ndarray, special: np.ndarray) -> list[list[HeadPattern]]:
    """A pattern for every head of every layer (see ``pattern_scores`` and the thresholds above).

    Args:
        attentions: (L, H, n, n), e.g. ``run.attentions``.
        special: (n,) bool, e.g. ``run.special``.

    Returns:
        L lists of H HeadPattern; ``[l][h]`` is layer l + 1, head h + 1 as the page counts them.
    """
    attentions = _check_attentions(attentions)
    special = np.asarray(special, dtype=bool)
    if special.shape != (attentions.shape[-1],):
        raise ValueError(f"special must be ({attentions.shape[-1]},) for {attentions.shape[-1]} tokens; "
                         f"got shape {special.shape}")
    scores = pattern_scores(attentions, special)  # {kind: (L, H)}
    num_layers, num_heads = attentions.shape[:2]
    return [[classify({kind: values[layer, head] for kind, values in scores.items()})
             for head in range(num_heads)] for layer in range(num_layers)]
