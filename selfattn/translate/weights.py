"""The translator's files: its settings and vocabularies (``model.json``) and its weights (``model.npz``).

No pickle anywhere: the weights are plain float32 arrays named as torch's ``state_dict`` names them
(``encoder.0.self_attn.in_proj_weight``, torch's layout: ``y = x Wᵀ + b``), read with ``allow_pickle=False``;
everything else is JSON. This module needs numpy only, so inference runs without torch.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
WEIGHTS_PATH = HERE / "model.npz"
MODEL_JSON = HERE / "model.json"
RECORD_PATH = HERE / "record.json"
PAD, BOS, EOS = "<pad>", "<bos>", "<eos>"  # ids 0, 1, 2 of the target vocabulary; the source has <pad> only


@dataclass(frozen=True)
class Config:
    """The model's shape (nanoGPT's GPTConfig: one object, passed whole)."""

    d_model: int = 32  # width of every token vector
    num_heads: int = 4  # d_model / num_heads = 8 columns per head
    d_ff: int = 64  # the feed-forward's hidden width
    encoder_layers: int = 2
    decoder_layers: int = 2
    dropout: float = 0.1  # in training only; inference has none
    activation: str = "relu"
    embed_scale: float = 1.0  # token vectors × this before positions are added (Vaswani et al.: √d_model)
    norm_first: bool = False  # post-LN, as Vaswani et al. 2017 and nn.Transformer's default
    eps: float = 1e-5  # LayerNorm's ε
    max_positions: int = 64  # rows of the sinusoidal position table (source and target)
    max_words: int = 12  # words generated at most, <eos> included


@dataclass(frozen=True)
class Vocab:
    """Token strings by id; id 0 is <pad> in both."""

    source: tuple[str, ...]  # <pad>, then every Chinese character of the training sentences
    target: tuple[str, ...]  # <pad>, <bos>, <eos>, then every English word of the training sentences

    @classmethod
    def of(cls, pairs) -> "Vocab":
        """The vocabularies of ``pairs`` (objects with ``zh`` and ``en``), sorted so that they never depend on the
        order of the corpus."""
        from selfattn.translate.corpus import source_tokens, target_tokens

        chars = sorted({ch for p in pairs for ch in source_tokens(p.zh)})
        words = sorted({w for p in pairs for w in target_tokens(p.en)})
        return cls(source=(PAD, *chars), target=(PAD, BOS, EOS, *words))

    def source_id(self) -> dict[str, int]:
        return {tok: i for i, tok in enumerate(self.source)}

    def target_id(self) -> dict[str, int]:
        return {tok: i for i, tok in enumerate(self.target)}


@dataclass(frozen=True, eq=False)
class Weights:
    """A trained model as files hold it: settings, vocabularies, and float arrays by torch name."""

    config: Config
    vocab: Vocab
    arrays: dict[str, np.ndarray]  # torch state_dict names → arrays in torch's layout


def save(weights: Weights, npz_path: Path = WEIGHTS_PATH, json_path: Path = MODEL_JSON) -> None:
    """Write the arrays as float32 (``np.savez_compressed``, no object arrays) and the rest as JSON."""
    np.savez_compressed(npz_path, **{k: np.asarray(v, dtype=np.float32) for k, v in weights.arrays.items()})
    text = json.dumps({"config": asdict(weights.config), "vocab": {"source": list(weights.vocab.source),
                                                                  "target": list(weights.vocab.target)}},
                      ensure_ascii=False, indent=1)
    json_path.write_text(text + "\n", encoding="utf-8")


def load_weights(npz_path: Path = WEIGHTS_PATH, json_path: Path = MODEL_JSON) -> Weights:
    """Read what :func:`save` wrote, arrays as float64.

    Raises:
        FileNotFoundError: a file is missing (train first: ``python -m selfattn.translate.train``).
    """
    meta = json.loads(Path(json_path).read_text(encoding="utf-8"))
    known = {f.name for f in fields(Config)}
    config = Config(**{k: v for k, v in meta["config"].items() if k in known})
    vocab = Vocab(source=tuple(meta["vocab"]["source"]), target=tuple(meta["vocab"]["target"]))
    with np.load(npz_path, allow_pickle=False) as npz:
        arrays = {name: npz[name].astype(np.float64) for name in npz.files}
    return Weights(config=config, vocab=vocab, arrays=arrays)
