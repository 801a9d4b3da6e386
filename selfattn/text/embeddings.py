"""Token vectors for a sentence, from one of several sources, ready to be the X of Softmax(XXᵀ)X.

``embed(text, source=...)`` takes a source's name, one of ``SOURCES``: ``"auto"`` (character
vectors for text with a Chinese character, else MiniLM), ``"charvec"``, ``"minilm"`` or ``"hf"``
(a BERT-family model named by ``model=``). What each one does, and how to add one, is in
``selfattn.text.sources``.

Special tokens: models always run with [CLS] and [SEP] (they were trained that way), but
``embed`` drops those rows by default because they are not words of the sentence; pass
``special_tokens=True`` to keep them (``TokenEmbeddings.special`` then lists their indices).
For attention maps with the special tokens use ``selfattn.text.models.run_model``.

Text rules: empty or whitespace-only text and text without any letter or digit (only
punctuation, symbols, emoji) raise InputError; text over ``MAX_CHARS`` characters or more
than ``max_tokens`` tokens is cut and the result has ``truncated=True``.
"""

from __future__ import annotations

from dataclasses import replace

from selfattn.core.attention import unit_rows
from selfattn.errors import InputError
from selfattn.text import charvec, models
from selfattn.text.embedding_text import MAX_CHARS, check_text, has_cjk
from selfattn.text.sources import (CHARVEC_NAME, KINDS, REGISTRY, SOURCES, Source, TokenEmbeddings, get_source,
                                   pick_source)

MAX_TOKENS = models.MAX_TOKENS  # tokens shown, not counting [CLS]/[SEP]

__all__ = ["CHARVEC_NAME", "KINDS", "MAX_CHARS", "MAX_TOKENS", "REGISTRY", "SOURCES", "Source", "TokenEmbeddings",
           "embed", "get_source", "pick_source"]


def embed(text: str, source: str = "auto", *, kind: str = "static", layer: int | None = None,
          model: str | None = None, special_tokens: bool = False, max_tokens: int = MAX_TOKENS,
          normalize: bool = False) -> TokenEmbeddings:
    """One vector per token of ``text``.

    Args:
        text: a sentence, English, Chinese or mixed.
        source: one of ``SOURCES``: "auto", "charvec", "minilm" or "hf" (see ``selfattn.text.sources``).
        kind: "static" (lookup table) or "contextual" (hidden states; minilm and hf only).
        layer: for contextual vectors, hidden-state index 0 .. num_layers (default: last).
        model: for source="hf", a hub id or a local folder path.
        special_tokens: keep the [CLS]/[SEP] rows (models only).
        max_tokens: most tokens kept, not counting [CLS]/[SEP]; more sets ``truncated``.
        normalize: scale every non-zero row to length 1.

    Returns:
        TokenEmbeddings with tokens (n,), vectors (n, d) float64, unknown indices and, for text
        with Chinese, the jieba words.

    Raises:
        InputError: ``bad_source``, ``bad_kind``, ``static_only``, ``model_required``,
            ``bad_max_tokens`` and the text and model errors of ``check_text`` / ``load_model``.
    """
    chosen = get_source(source)
    if kind not in KINDS:
        raise InputError("bad_kind", f"kind must be static or contextual, got {kind!r}.", kind=str(kind))
    models.check_max_tokens(max_tokens)
    clean, _ = check_text(text)
    resolved = chosen.resolve(clean)
    if kind not in resolved.kinds:
        raise InputError("static_only", f"The {resolved.name} vectors are static; contextual vectors need a model.",
                         source=resolved.name)
    result = resolved.embed(text, kind, layer, model, special_tokens, max_tokens)
    changes = {}
    if has_cjk(clean):
        changes["words"] = charvec.segment(result.text)
    if normalize:
        changes["vectors"] = unit_rows(result.vectors)
    if changes:
        result = replace(result, **changes)
    return result
