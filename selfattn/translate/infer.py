"""Translation on our numpy core, float64: the trained weights through :mod:`selfattn.core`'s encoder stack and
:func:`selfattn.core.decoder.decode_with_cache`, one word at a time.

The source's characters become rows ``E_src[id] · √d + PE[i]``; the encoder stack turns them into the memory.
Generation starts from ``<bos>`` and at each step runs the decoder over the target so far, reads the last row's
logits ``y_t @ W_out + b_out`` and picks the next word (the most likely, or a draw at a temperature), until
``<eos>`` or :attr:`Config.max_words`. The core's ``decode_with_cache`` computes a given target row by row with a
key/value cache; it has no way to be resumed with one more row, so each step here calls it again on the longer
prefix (rows 0..t−1 are recomputed, with the same numbers: row t reads rows ≤ t only). The last call's
:class:`~selfattn.core.decoder.CacheTrace` covers every step, and is what the trace keeps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from selfattn.core.attention import stable_softmax
from selfattn.core.block import LayerParams, StackTrace, transformer_stack
from selfattn.core.decoder import (CacheTrace, DecoderLayerParams, EncoderDecoderTrace, decode_with_cache,
                                   encoder_decoder)
from selfattn.core.positions import positional_encoding
from selfattn.errors import InputError
from selfattn.i18n import t_plain
from selfattn.translate.corpus import in_training, punctuation, source_tokens
from selfattn.translate.weights import BOS, EOS, MODEL_JSON, PAD, WEIGHTS_PATH, Config, Vocab, Weights, load_weights

MAX_CHARS = 40  # of typed text: the model was trained on sentences of 2 to 4 characters
MAX_TEMPERATURE = 100.0


# ── The model on our core ─────────────────────────────────────────────────────────────

def _attention(a: dict[str, np.ndarray], prefix: str, out: str = "") -> dict[str, np.ndarray]:
    """One ``nn.MultiheadAttention``'s arrays (torch: ``y = x Wᵀ``) as the core's ``w_q … b_o`` (``y = x W``)."""
    w_q, w_k, w_v = np.split(a[f"{prefix}in_proj_weight"], 3, axis=0)  # each (d, d)
    b_q, b_k, b_v = np.split(a[f"{prefix}in_proj_bias"], 3)
    return {f"{out}w_q": w_q.T, f"{out}w_k": w_k.T, f"{out}w_v": w_v.T, f"{out}w_o": a[f"{prefix}out_proj.weight"].T,
            f"{out}b_q": b_q, f"{out}b_k": b_k, f"{out}b_v": b_v, f"{out}b_o": a[f"{prefix}out_proj.bias"]}


def _norms_and_ff(a: dict[str, np.ndarray], prefix: str, norms: int) -> dict[str, np.ndarray]:
    found = {f"ln{i}_{part}": a[f"{prefix}norm{i}.{name}"] for i in range(1, norms + 1)
             for part, name in (("gamma", "weight"), ("beta", "bias"))}
    return {**found, "w_1": a[f"{prefix}linear1.weight"].T, "b_1": a[f"{prefix}linear1.bias"],
            "w_2": a[f"{prefix}linear2.weight"].T, "b_2": a[f"{prefix}linear2.bias"]}


@dataclass(frozen=True, eq=False)
class Translator:
    """The trained model in the core's convention, float64."""

    config: Config
    vocab: Vocab
    src_embed: np.ndarray  # (V_src, d)
    tgt_embed: np.ndarray  # (V_tgt, d)
    positions: np.ndarray  # (max_positions, d) sinusoidal
    encoder: tuple[LayerParams, ...]
    decoder: tuple[DecoderLayerParams, ...]
    w_out: np.ndarray  # (d, V_tgt) logits = y @ w_out + b_out
    b_out: np.ndarray  # (V_tgt,)
    weights: Weights  # the arrays as the files hold them (for the torch check)

    @classmethod
    def from_weights(cls, weights: Weights) -> "Translator":
        a, c = weights.arrays, weights.config
        encoder = tuple(LayerParams.checked(**_attention(a, f"encoder.{i}.self_attn."),
                                            **_norms_and_ff(a, f"encoder.{i}.", 2), num_heads=c.num_heads)
                        for i in range(c.encoder_layers))
        decoder = tuple(DecoderLayerParams.checked(**_attention(a, f"decoder.{i}.self_attn."),
                                                   **_attention(a, f"decoder.{i}.multihead_attn.", "c_"),
                                                   **_norms_and_ff(a, f"decoder.{i}.", 3), num_heads=c.num_heads)
                        for i in range(c.decoder_layers))
        return cls(config=c, vocab=weights.vocab, src_embed=a["src_embed.weight"], tgt_embed=a["tgt_embed.weight"],
                   positions=positional_encoding(c.max_positions, c.d_model, "sinusoidal"), encoder=encoder,
                   decoder=decoder, w_out=a["out.weight"].T, b_out=a["out.bias"], weights=weights)

    @property
    def settings(self) -> dict:
        """The keywords every layer of the core takes: norm_first, activation, eps."""
        return {"norm_first": self.config.norm_first, "activation": self.config.activation, "eps": self.config.eps}

    def rows(self, table: np.ndarray, ids: list[int]) -> np.ndarray:
        """(n, d) the token vectors of ``ids`` scaled by √d, plus positions 0..n−1."""
        return table[ids] * self.config.embed_scale + self.positions[: len(ids)]


def _english(code: str, params: dict) -> str:
    """The catalog's ``err.<code>`` in English: the message of the InputError (one wording for both languages)."""
    return t_plain(f"err.{code}", "en", **params)


def load(npz_path: Path = WEIGHTS_PATH, json_path: Path = MODEL_JSON) -> Translator:
    """The committed (or the given) trained model, ready for :func:`translate`.

    Raises:
        InputError: ``tr_no_model`` when a file is missing (train first).
    """
    missing = [p.name for p in (Path(npz_path), Path(json_path)) if not p.exists()]
    if missing:
        params = {"files": ", ".join(missing)}
        raise InputError("tr_no_model", _english("tr_no_model", params), **params)
    return Translator.from_weights(load_weights(npz_path, json_path))


# ── Checks at the boundary ───────────────────────────────────────────────────────────

def check_text(text: str, vocab: Vocab) -> list[str]:
    """The source tokens of ``text``, or InputError ``tr_too_long``, ``tr_empty`` or ``tr_unseen`` (naming every
    character the model never saw, in order of first appearance)."""
    text = str(text)
    if len(text) > MAX_CHARS:
        params = {"limit": MAX_CHARS, "got": len(text)}
        raise InputError("tr_too_long", _english("tr_too_long", params), **params)
    tokens = source_tokens(text)
    if not tokens:
        raise InputError("tr_empty", _english("tr_empty", {}))
    known = vocab.source[1:]
    unseen = list(dict.fromkeys(ch for ch in tokens if ch not in set(known)))
    if unseen:
        params = {"chars": " ".join(unseen), "count": len(unseen), "known": " ".join(known)}
        raise InputError("tr_unseen", _english("tr_unseen", params), **params)
    return tokens


def check_temperature(temperature: float | None) -> float | None:
    """None (greedy), or a temperature above 0 and at most MAX_TEMPERATURE; else InputError ``tr_temperature``."""
    if temperature is None:
        return None
    try:
        value = float(temperature)
    except (TypeError, ValueError):
        value = math.nan
    if isinstance(temperature, bool) or not 0.0 < value <= MAX_TEMPERATURE:
        params = {"value": str(temperature)[:40], "limit": f"{MAX_TEMPERATURE:g}"}
        raise InputError("tr_temperature", _english("tr_temperature", params), **params)
    return value


# ── Generation ────────────────────────────────────────────────────────────────────────

def probabilities(logits: np.ndarray, temperature: float | None, banned: tuple[int, ...]) -> np.ndarray:
    """(V,) softmax(logits / T) over the words that may be generated (T = 1 when greedy; ``banned``: 0)."""
    scaled = np.array(logits, dtype=np.float64) / (temperature or 1.0)
    scaled[list(banned)] = -np.inf
    return stable_softmax(scaled)


def generate(next_logits: Callable[[list[int]], np.ndarray], *, bos: int, eos: int, banned: tuple[int, ...],
             max_words: int, temperature: float | None = None, seed: int = 0) -> tuple[list[int], list[np.ndarray]]:
    """Greedy decoding (``temperature`` None), or sampling at a temperature with ``seed``; the same loop for any
    engine that gives the next word's logits from the target so far.

    Returns:
        (the chosen ids, <eos> included if reached; the logits of each step, (V,) each).
    """
    rng = np.random.default_rng(seed)
    prefix, chosen, seen = [bos], [], []
    for _ in range(max_words):
        logits = next_logits(prefix)
        p = probabilities(logits, temperature, banned)
        word = int(np.argmax(p)) if temperature is None else int(rng.choice(len(p), p=p))
        seen.append(logits)
        chosen.append(word)
        if word == eos:
            break
        prefix.append(word)
    return chosen, seen


@dataclass(frozen=True, eq=False)
class Translation:
    """One sentence through the translator, with every step a learner wants to see."""

    source: tuple[str, ...]  # (n,) the encoder's tokens: one per character
    left_out: tuple[str, ...]  # the punctuation of the text, which the encoder does not read (the corpus has none)
    in_training: bool  # the sentence (as the encoder reads it) is one the model was trained on
    source_ids: tuple[int, ...]
    tokens: tuple[str, ...]  # (T,) the words generated, in order, without <eos>
    output: str  # the words joined by spaces
    finished: bool  # whether <eos> was generated (else the max_words limit stopped it)
    decoder_input: tuple[int, ...]  # <bos> and the words fed back: row t of the decoder produced step t's word
    encoder: StackTrace  # the source through the encoder; .outputs is the memory (n, d)
    decoder: CacheTrace  # one step per decoder row (the <eos> step included when reached)
    logits: np.ndarray  # (steps, V) the next word's logits at each step
    probabilities: np.ndarray  # (steps, V) softmax(logits / T); T = 1 when greedy
    temperature: float | None  # None: greedy
    seed: int  # the draws' seed (sampling only)
    max_words: int  # the most words it could generate, <eos> included
    vocabulary: tuple[str, ...]  # (V,) the target words by id

    @property
    def cross_weights(self) -> np.ndarray:
        """(layers, heads, T, n): row t is the cross-attention of the query that produced ``tokens[t]``."""
        first = self.decoder.steps[0].cross_weights  # per layer: (h, n)
        steps = self.decoder.steps[: len(self.tokens)]
        if not steps:  # <eos> first: no word, no row
            return np.zeros((len(first), first[0].shape[0], 0, len(self.source)))
        return np.stack([np.stack([s.cross_weights[layer] for s in steps], axis=1) for layer in range(len(first))])


def translate(translator: Translator, text: str, *, temperature: float | None = None, seed: int = 0,
              max_words: int | None = None) -> Translation:
    """Translate ``text`` on our core: greedy by default, or sampled at ``temperature`` with ``seed``.

    Raises:
        InputError: ``tr_empty``, ``tr_too_long``, ``tr_unseen`` (naming the characters), ``tr_temperature``.
    """
    vocab = translator.vocab
    source = check_text(text, vocab)
    temperature = check_temperature(temperature)
    source_ids = [vocab.source_id()[ch] for ch in source]
    encoder = transformer_stack(translator.rows(translator.src_embed, source_ids), translator.encoder,
                                **translator.settings)
    last: list[CacheTrace] = []

    def next_logits(prefix: list[int]) -> np.ndarray:
        last[:] = [decode_with_cache(translator.rows(translator.tgt_embed, prefix), encoder.outputs,
                                     translator.decoder, **translator.settings)]
        return last[0].outputs[-1] @ translator.w_out + translator.b_out  # (V,)

    ids = vocab.target_id()
    max_words = max_words or translator.config.max_words
    if not 1 <= max_words < translator.config.max_positions:  # the decoder's input is <bos> + max_words − 1 rows
        raise ValueError(f"max_words must be from 1 to {translator.config.max_positions - 1}, got {max_words}")
    chosen, logits = generate(next_logits, bos=ids[BOS], eos=ids[EOS], banned=(ids[PAD], ids[BOS]),
                              max_words=max_words, temperature=temperature, seed=seed)
    finished = chosen[-1] == ids[EOS]
    words = chosen[:-1] if finished else chosen
    stacked = np.stack(logits)  # (steps, V)
    return Translation(source=tuple(source), left_out=tuple(punctuation(str(text))),
                       in_training=in_training("".join(source)), source_ids=tuple(source_ids),
                       tokens=tuple(vocab.target[i] for i in words), output=" ".join(vocab.target[i] for i in words),
                       finished=finished,
                       decoder_input=(ids[BOS], *chosen[:-1]), encoder=encoder, decoder=last[0], logits=stacked,
                       probabilities=np.stack([probabilities(row, temperature, (ids[PAD], ids[BOS]))
                                               for row in stacked]),
                       temperature=temperature, seed=seed, max_words=max_words, vocabulary=vocab.target)


def full_pass(translator: Translator, translation: Translation) -> EncoderDecoderTrace:
    """The translation's decoder input through the whole model at once, the target causal (teacher forcing, as
    training computes it): its masked self-attention over every row, and row t of its decoder equal to generation's
    cached step t (:attr:`Translation.decoder`)."""
    return encoder_decoder(translator.rows(translator.src_embed, list(translation.source_ids)),
                           translator.rows(translator.tgt_embed, list(translation.decoder_input)), translator.encoder,
                           translator.decoder, **translator.settings)


# ── Held against torch ────────────────────────────────────────────────────────────────

@dataclass(frozen=True)
class TorchCheck:
    """Our translation against torch's own modules holding the same weights in float64."""

    same_tokens: bool  # torch, decoding by the same rule (and seed), generates the same words
    torch_tokens: tuple[str, ...]
    max_logit_difference: float  # max |ours − torch| over every step's logits, on our decoder input


def torch_check(translator: Translator, translation: Translation, model=None) -> TorchCheck:
    """Run ``translation``'s sentence through :func:`selfattn.translate.torch_model.reference` (built here unless
    ``model`` is given): its own generation, and its logits on our decoder input in one causal pass."""
    import selfattn.translate.torch_model as torch_model

    model = model if model is not None else torch_model.reference(translator.weights)
    ids = translator.vocab.target_id()
    chosen, _ = generate(torch_model.next_logits(model, list(translation.source_ids)), bos=ids[BOS], eos=ids[EOS],
                         banned=(ids[PAD], ids[BOS]), max_words=translation.max_words,
                         temperature=translation.temperature, seed=translation.seed)
    words = tuple(translator.vocab.target[i] for i in chosen if i != ids[EOS])
    theirs = torch_model.all_logits(model, list(translation.source_ids), list(translation.decoder_input))
    return TorchCheck(same_tokens=words == translation.tokens, torch_tokens=words,
                      max_logit_difference=float(np.max(np.abs(theirs - translation.logits))))


def as_json(translation: Translation, check: TorchCheck | None = None) -> dict:
    """What ``python -m selfattn.translate --json`` prints."""
    found = {"source": list(translation.source), "output": translation.output, "tokens": list(translation.tokens),
             "in_training": translation.in_training, "cross_weights": translation.cross_weights.tolist()}
    if check is not None:
        found["torch_check"] = {"same_tokens": check.same_tokens, "max_logit_difference": check.max_logit_difference,
                                "torch_tokens": list(check.torch_tokens)}
    return found
