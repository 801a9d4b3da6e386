"""Token vectors for a sentence, from one of three sources, ready to be the X of Softmax(XXᵀ)X.

Sources (``embed(text, source=...)``):

* ``"minilm"``: all-MiniLM-L6-v2, bundled, English WordPiece tokens, 384-d.
  ``kind="static"`` gives the rows of the model's token-embedding table (no position, no
  context: "bank" is the same vector in every sentence); ``kind="contextual"`` gives the hidden
  states after layer ``layer`` (default the last; 0 is the embedding layer's output, with
  position embeddings and LayerNorm). Chinese characters outside its vocabulary become [UNK]
  and are listed in ``unknown``.
* ``"charvec"``: static 64-d Chinese character vectors built from jieba's dictionary
  (see ``selfattn.text.charvec``). Tokens are characters; a run of Latin letters or digits is one
  token. Anything without a vector (punctuation, emoji, Latin, rare characters) gets a zero
  vector and is listed in ``unknown``.
* ``"hf"``: any BERT-family model by hub id (local Hugging Face cache only) or local folder,
  given as ``model=``; same kinds as minilm.
* ``"auto"``: ``"charvec"`` when the text contains a Chinese character, else ``"minilm"``.

Special tokens: models always run with [CLS] and [SEP] (they were trained that way), but
``embed`` drops those rows by default because they are not words of the sentence; pass
``special_tokens=True`` to keep them (``TokenEmbeddings.special`` then lists their indices).
For attention maps with the special tokens use ``selfattn.text.models.run_model``.

Text rules: empty or whitespace-only text and text without any letter or digit (only
punctuation, symbols, emoji) raise InputError; text over ``MAX_CHARS`` characters or more
than ``max_tokens`` tokens is cut and the result has ``truncated=True``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from selfattn.text import charvec
from selfattn.text import models
from selfattn.text.embedding_text import MAX_CHARS, check_text, has_cjk
from selfattn.errors import InputError

SOURCES = ("auto", "minilm", "charvec", "hf")
KINDS = ("static", "contextual")
MAX_TOKENS = models.MAX_TOKENS  # tokens shown, not counting [CLS]/[SEP]
CHARVEC_NAME = "jieba-dict PPMI-SVD character vectors"

__all__ = ["CHARVEC_NAME", "KINDS", "MAX_CHARS", "MAX_TOKENS", "SOURCES", "TokenEmbeddings", "embed", "pick_source"]


@dataclass(frozen=True, eq=False)
class TokenEmbeddings:
    """One vector per token of a sentence, and what could not be represented."""

    tokens: list[str]  # (n,) token strings as the source splits them
    vectors: np.ndarray  # (n, d) float64; zero rows for unknown charvec tokens
    source: str  # "minilm", "charvec" or "hf" (never "auto")
    unknown: list[int]  # indices of tokens the source has no real vector for ([UNK], no char vector)
    truncated: bool = False  # the text or the token list was cut
    kind: str = "static"  # "static" or "contextual"
    model: str = ""  # model name, or CHARVEC_NAME
    layer: int | None = None  # hidden-state index for contextual vectors
    text: str = ""  # the text actually embedded (after cutting)
    words: list[str] = field(default_factory=list)  # jieba words when the text has Chinese, else []
    special: list[int] = field(default_factory=list)  # indices of kept [CLS]/[SEP] tokens
    originals: list[str] = field(default_factory=list)  # (n,) the text each token came from ("" for [CLS]/[SEP])

    @property
    def coverage(self) -> float:
        """Share of tokens with a real vector: (n - len(unknown)) / n."""
        return (len(self.tokens) - len(self.unknown)) / len(self.tokens) if self.tokens else 0.0

    @property
    def unknown_text(self) -> list[str]:
        """What the unknown tokens stand for in the text: the characters behind each [UNK]
        (a model's tokens), or the token itself (character vectors, where token = text)."""
        return [(self.originals[i] if i < len(self.originals) else "") or self.tokens[i] for i in self.unknown]

    @property
    def dim(self) -> int:
        """Vector width d."""
        return self.vectors.shape[1]

    @property
    def known(self) -> np.ndarray:
        """(n,) bool, True for tokens with a real vector."""
        mask = np.ones(len(self.tokens), dtype=bool)
        mask[self.unknown] = False
        return mask

    def mean_vector(self) -> np.ndarray:
        """(d,) average of the known, non-special token vectors (zeros if there are none)."""
        mask = self.known
        mask[self.special] = False
        return self.vectors[mask].mean(axis=0) if mask.any() else np.zeros(self.dim)


def pick_source(text: str) -> str:
    """The source "auto" uses: "charvec" for text with a Chinese character, else "minilm"."""
    return "charvec" if has_cjk(text) else "minilm"


def _normalized(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)  # (n, 1)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def _embed_chars(text: str, truncated: bool, max_tokens: int) -> TokenEmbeddings:
    pieces = charvec.split_chars(text)
    if len(pieces) > max_tokens:
        pieces, truncated = pieces[:max_tokens], True
    table = charvec.load_char_vectors()
    tokens = [token for token, _ in pieces]
    vectors = np.stack([table.vector(token) for token in tokens])  # (n, 64)
    unknown = [i for i, token in enumerate(tokens) if token not in table]
    return TokenEmbeddings(tokens, vectors, "charvec", unknown, truncated, "static", CHARVEC_NAME, None, text,
                           originals=list(tokens))


def _embed_model(text: str, source: str, spec: str, kind: str, layer: int | None,
                 special_tokens: bool, max_tokens: int) -> TokenEmbeddings:
    bundle = models.load_model(spec)
    if kind == "static":
        tok = models.tokenize(bundle, text, max_tokens)
        import torch

        table = bundle.model.get_input_embeddings().weight.detach()  # (vocab, d)
        vectors = table[torch.from_numpy(tok.ids)].double().numpy()  # (n, d)
        layer = None
    else:
        layer = bundle.num_layers if layer is None else layer
        if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)) or not 0 <= layer <= bundle.num_layers:
            raise InputError("hidden_layer_out_of_range", f"Hidden state {layer} does not exist: 0 is the embedding "
                             f"layer's output and {bundle.num_layers} the last layer's.", layer=str(layer),
                             max_layer=bundle.num_layers)
        tok = models.run_model(bundle, text, max_tokens)
        vectors = tok.hidden_states[int(layer)]  # (n, d)
    keep = np.ones(len(tok.tokens), dtype=bool) if special_tokens else ~tok.special  # (n,)
    rows = np.flatnonzero(keep)
    new_index = {int(old): new for new, old in enumerate(rows)}
    return TokenEmbeddings(
        tokens=[tok.tokens[i] for i in rows],
        vectors=np.ascontiguousarray(vectors[rows]),
        source=source,
        unknown=[new_index[i] for i in tok.unknown if i in new_index],
        truncated=tok.truncated,
        kind=kind,
        model=bundle.name,
        layer=None if layer is None else int(layer),
        text=tok.text,
        special=[new_index[int(i)] for i in np.flatnonzero(tok.special) if int(i) in new_index],
        originals=[tok.originals[i] for i in rows] if tok.originals else [],
    )


def embed(text: str, source: str = "auto", *, kind: str = "static", layer: int | None = None,
          model: str | None = None, special_tokens: bool = False, max_tokens: int = MAX_TOKENS,
          normalize: bool = False) -> TokenEmbeddings:
    """One vector per token of ``text``.

    Args:
        text: a sentence, English, Chinese or mixed.
        source: "auto", "minilm", "charvec" or "hf" (see the module docstring).
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
    if source not in SOURCES:
        raise InputError("bad_source", f"source must be one of {', '.join(SOURCES)}, got {source!r}.",
                         source=str(source), choices=", ".join(SOURCES))
    if kind not in KINDS:
        raise InputError("bad_kind", f"kind must be static or contextual, got {kind!r}.", kind=str(kind))
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise InputError("bad_max_tokens", f"max_tokens must be a whole number of at least 1, got {max_tokens!r}.",
                         value=str(max_tokens))
    clean, truncated = check_text(text)
    resolved = pick_source(clean) if source == "auto" else source
    if resolved == "charvec":
        if kind != "static":
            raise InputError("static_only", "Character vectors are static; contextual vectors need a model.",
                             source=resolved)
        result = _embed_chars(clean, truncated, max_tokens)
    elif resolved == "minilm":
        result = _embed_model(text, "minilm", "minilm", kind, layer, special_tokens, max_tokens)
    else:
        if model is None or not str(model).strip():
            raise InputError("model_required", 'source="hf" needs a model id or a folder path.')
        result = _embed_model(text, "hf", model, kind, layer, special_tokens, max_tokens)
    changes = {}
    if has_cjk(clean):
        changes["words"] = charvec.segment(result.text)
    if normalize:
        changes["vectors"] = _normalized(result.vectors)
    if changes:
        result = replace(result, **changes)
    return result
