"""Where token vectors come from: one object per source, and the registry ``embed`` and the page read.

A source says what it needs and how it embeds: its name (``embed(source=...)``, the page's link),
the catalog key of its label, the kinds of vectors it offers, whether the visitor gives a model
id, which model it loads, how it treats tokens it has no vector for, and ``embed``.

* ``"auto"``: ``"charvec"`` when the text contains a Chinese character, else ``"minilm"``.
* ``"charvec"``: static 64-d Chinese character vectors built from jieba's dictionary
  (see ``selfattn.text.charvec``). Tokens are characters; a run of Latin letters or digits is one
  token. Anything without a vector (punctuation, emoji, Latin, rare characters) gets a zero
  vector and is listed in ``unknown``.
* ``"minilm"``: all-MiniLM-L6-v2, bundled, English WordPiece tokens, 384-d.
  ``kind="static"`` gives the rows of the model's token-embedding table (no position, no
  context: "bank" is the same vector in every sentence); ``kind="contextual"`` gives the hidden
  states after layer ``layer`` (default the last; 0 is the embedding layer's output, with
  position embeddings and LayerNorm). Chinese characters outside its vocabulary become [UNK]
  and are listed in ``unknown``.
* ``"hf"``: any BERT-family model by hub id (local Hugging Face cache only) or local folder,
  given as ``model=``; same kinds as minilm.

Adding a source: write its class here (a subclass of :class:`Source` with ``embed``), put an
instance in ``REGISTRY`` where the page should list it, and give its label key (and
``vectors_label``, if any) both languages in ``selfattn/i18n/embeddings.py``. ``embed``, the
page's picker, its link parameter and the page's captions and warnings follow from the object.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np

from selfattn.errors import InputError
from selfattn.text import charvec, models
from selfattn.text.embedding_text import check_text, has_cjk

KINDS = ("static", "contextual")
CHARVEC_NAME = "jieba-dict PPMI-SVD character vectors"


@dataclass(frozen=True, eq=False)
class TokenEmbeddings:
    """One vector per token of a sentence, and what could not be represented."""

    tokens: list[str]  # (n,) token strings as the source splits them
    vectors: np.ndarray  # (n, d) float64; zero rows for unknown charvec tokens
    source: str  # the source's name, never "auto": "minilm", "charvec" or "hf"
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
        return models.originals_of(self.tokens, self.originals, self.unknown)

    @property
    def pieces(self) -> list[str]:
        """(n,) what each token stands for in the text, for matching two sentences by what was typed: the text
        behind it (a [UNK]'s characters), a later piece of a word marked ## as WordPiece marks it, so that it is
        never taken for a whole word of the same letters."""
        texts = models.originals_of(self.tokens, self.originals, list(range(len(self.tokens))))
        return [f"##{text}" if token.startswith("##") else text for token, text in zip(self.tokens, texts)]

    @property
    def read(self) -> list[str]:
        """(n,) what the vectors are looked up by: the token, or [UNK] where the source has no vector of its own
        for it (a model's [UNK]; the character vectors' zero rows, one and the same for every such character)."""
        unknown = set(self.unknown)
        return ["[UNK]" if i in unknown else token for i, token in enumerate(self.tokens)]

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


@dataclass(frozen=True)
class Source(ABC):
    """One place token vectors come from: what the visitor must give, and how it embeds."""

    name: str  # what embed(source=...) and the page's link say
    label: str  # catalog key of its name in the page's "Vectors from" picker
    kinds: tuple[str, ...] = KINDS  # kinds of vectors it offers; the first is used when the visitor's is not
    asks_model: bool = False  # the visitor types (hosted: picks) a model id, passed to embed as model=
    model: str | None = None  # the model it always loads ("minilm"), or None: none, or the visitor's
    unk: bool = True  # unknown tokens become [UNK], which has a vector; False: they get no vector (zero rows)
    vectors_label: str | None = None  # catalog key naming its vectors in captions; None: the model's name

    def model_spec(self, spec: str | None) -> str | None:
        """The model this source loads: the visitor's ``spec`` when it asks for one, else its own (None: none)."""
        return spec if self.asks_model else self.model

    @property
    def loads_model(self) -> bool:
        """True when embedding with this source loads a model of its own (or the visitor's)."""
        return self.asks_model or self.model is not None

    def resolve(self, text: str) -> Source:
        """The source that embeds ``text`` (checked by ``check_text``): itself, except for "auto"."""
        return self

    @abstractmethod
    def embed(self, text: str, kind: str, layer: int | None, model: str | None, special_tokens: bool,
              max_tokens: int) -> TokenEmbeddings:
        """Token vectors for ``text``, with arguments already checked by ``selfattn.text.embeddings.embed``.

        Args:
            text: the visitor's text as given (the source applies ``check_text``).
            kind: one of ``self.kinds``.
            layer: hidden-state index for contextual vectors (None: the last).
            model: the visitor's model id or folder (sources that ask for one).
            special_tokens: keep the [CLS]/[SEP] rows (models only).
            max_tokens: most tokens kept, not counting [CLS]/[SEP].

        Returns:
            TokenEmbeddings with ``source`` set to this source's name.
        """


@dataclass(frozen=True)
class AutoSource(Source):
    """The character vectors for text with a Chinese character, else MiniLM."""

    def resolve(self, text: str) -> Source:
        return REGISTRY[pick_source(text)]

    def embed(self, text: str, kind: str, layer: int | None, model: str | None, special_tokens: bool,
              max_tokens: int) -> TokenEmbeddings:
        clean, _ = check_text(text)
        return self.resolve(clean).embed(text, kind, layer, model, special_tokens, max_tokens)


@dataclass(frozen=True)
class CharvecSource(Source):
    """jieba's character vectors: one static 64-d vector per character, zeros where there is none."""

    def embed(self, text: str, kind: str, layer: int | None, model: str | None, special_tokens: bool,
              max_tokens: int) -> TokenEmbeddings:
        text, truncated = check_text(text)
        pieces = charvec.split_chars(text)
        if len(pieces) > max_tokens:
            pieces, truncated = pieces[:max_tokens], True
        table = charvec.load_char_vectors()
        tokens = [token for token, _ in pieces]
        vectors = np.stack([table.vector(token) for token in tokens])  # (n, 64)
        unknown = [i for i, token in enumerate(tokens) if token not in table]
        return TokenEmbeddings(tokens, vectors, self.name, unknown, truncated, "static", CHARVEC_NAME, None, text,
                               originals=list(tokens))


@dataclass(frozen=True)
class ModelSource(Source):
    """A BERT-family model's tokens: rows of its embedding table (static) or its hidden states (contextual)."""

    def embed(self, text: str, kind: str, layer: int | None, model: str | None, special_tokens: bool,
              max_tokens: int) -> TokenEmbeddings:
        spec = self.model_spec(model)
        if spec is None or not str(spec).strip():
            raise InputError("model_required", f'source="{self.name}" needs a model id or a folder path.')
        bundle = models.load_model(spec)
        if kind == "static":
            tok = models.tokenize(bundle, text, max_tokens)
            import torch

            table = bundle.model.get_input_embeddings().weight.detach()  # (vocab, d)
            vectors = table[torch.from_numpy(tok.ids)].double().numpy()  # (n, d)
            layer = None
        else:
            layer = bundle.num_layers if layer is None else layer
            if (isinstance(layer, bool) or not isinstance(layer, (int, np.integer))
                    or not 0 <= layer <= bundle.num_layers):
                raise InputError("hidden_layer_out_of_range", f"Hidden state {layer} does not exist: 0 is the "
                                 f"embedding layer's output and {bundle.num_layers} the last layer's.",
                                 layer=str(layer), max_layer=bundle.num_layers)
            tok = models.run_model(bundle, text, max_tokens)
            vectors = tok.hidden_states[int(layer)]  # (n, d)
        keep = np.ones(len(tok.tokens), dtype=bool) if special_tokens else ~tok.special  # (n,)
        rows = np.flatnonzero(keep)
        new_index = {int(old): new for new, old in enumerate(rows)}
        return TokenEmbeddings(
            tokens=[tok.tokens[i] for i in rows],
            vectors=np.ascontiguousarray(vectors[rows]),
            source=self.name,
            unknown=[new_index[i] for i in tok.unknown if i in new_index],
            truncated=tok.truncated,
            kind=kind,
            model=bundle.name,
            layer=None if layer is None else int(layer),
            text=tok.text,
            special=[new_index[int(i)] for i in np.flatnonzero(tok.special) if int(i) in new_index],
            originals=[tok.originals[i] for i in rows] if tok.originals else [],
        )


# Every source, in the order the page lists them.
REGISTRY: dict[str, Source] = {source.name: source for source in (
    AutoSource("auto", "emb.source_auto"),
    CharvecSource("charvec", "emb.source_charvec", kinds=("static",), unk=False, vectors_label="emb.charvec_name"),
    ModelSource("minilm", "emb.source_minilm", model="minilm"),
    ModelSource("hf", "emb.source_hf", asks_model=True),
)}
SOURCES = tuple(REGISTRY)  # the names, in the page's order


def get_source(name: str) -> Source:
    """The source called ``name``.

    Raises:
        InputError: ``bad_source`` when there is none, naming the choices.
    """
    if not isinstance(name, str) or name not in REGISTRY:
        raise InputError("bad_source", f"source must be one of {', '.join(SOURCES)}, got {name!r}.",
                         source=str(name), choices=", ".join(SOURCES))
    return REGISTRY[name]


def pick_source(text: str) -> str:
    """The source "auto" uses: "charvec" for text with a Chinese character, else "minilm"."""
    return "charvec" if has_cjk(text) else "minilm"
