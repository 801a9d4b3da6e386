"""The poet's files: settings and vocabulary (``model.json``), weights (``model.npz``), checkpoints
(``checkpoints.npz``) and the record of the run that made them (``record.json``).

No pickle anywhere: arrays are named as torch's ``state_dict`` names them (torch's layout, ``y = x Wᵀ + b``) and
read with ``allow_pickle=False``; everything else is JSON. The final weights are stored as float16 (both engines
read the same stored numbers, so storing them so costs the torch check nothing); the checkpoints, for "how it
learned", as int8 with one float32 scale a row (:func:`quantize`), about a byte a weight. This module needs numpy
only.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Iterable

import numpy as np

HERE = Path(__file__).resolve().parent
WEIGHTS_PATH = HERE / "model.npz"
MODEL_JSON = HERE / "model.json"
CHECKPOINTS_PATH = HERE / "checkpoints.npz"
RECORD_PATH = HERE / "record.json"
PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"  # ids 0, 1, 2, 3
COMMA, STOP = "，", "。"  # ids 4, 5; the characters follow, in code-point order
SPECIALS = (PAD, BOS, EOS, UNK, COMMA, STOP)


@dataclass(frozen=True)
class Config:
    """The model's shape (nanoGPT's GPTConfig: one object, passed whole)."""

    d_model: int = 64  # width of every token vector
    num_heads: int = 4  # d_model / num_heads = 16 columns per head
    d_ff: int = 256  # the feed-forward's hidden width
    layers: int = 2  # pre-LN decoder blocks (self-attention and feed-forward; no cross-attention)
    activation: str = "gelu"  # x·Φ(x), as GPT-2 (erf form, as torch's "gelu")
    eps: float = 1e-5  # LayerNorm's ε
    max_positions: int = 49  # learned position vectors: <bos> and 8 lines of 5 characters and a mark
    dropout: float = 0.0  # in training only (a few epochs of 600,000 characters: the model underfits)
    min_count: int = 10  # a character is in the vocabulary when the training poems hold it this often


@dataclass(frozen=True)
class Vocab:
    """Token strings by id: :data:`SPECIALS`, then every character of the vocabulary in code-point order."""

    tokens: tuple[str, ...]

    @classmethod
    def of(cls, poems: Iterable[str], min_count: int) -> "Vocab":
        """The characters that ``poems`` hold at least ``min_count`` times (the rest read as ``<unk>``)."""
        counts = Counter(ch for poem in poems for ch in poem if ch not in (COMMA, STOP))
        return cls(tokens=(*SPECIALS, *sorted(ch for ch, n in counts.items() if n >= min_count)))

    def __len__(self) -> int:
        return len(self.tokens)

    def index(self) -> dict[str, int]:
        return {tok: i for i, tok in enumerate(self.tokens)}

    def encode(self, poem: str) -> list[int]:
        """``<bos>``, the poem's characters and marks (a character outside the vocabulary: ``<unk>``), ``<eos>``."""
        index = self.index()
        return [index[BOS], *(index.get(ch, index[UNK]) for ch in poem), index[EOS]]

    @property
    def characters(self) -> np.ndarray:
        """(V,) bool: the ids decoding may draw as a character (not a special token, a mark or ``<unk>``)."""
        return np.arange(len(self.tokens)) >= len(SPECIALS)


@dataclass(frozen=True, eq=False)
class Weights:
    """A trained model as files hold it: settings, vocabulary, and float arrays by torch name."""

    config: Config
    vocab: Vocab
    arrays: dict[str, np.ndarray]  # torch state_dict names → arrays in torch's layout


def save(weights: Weights, npz_path: Path = WEIGHTS_PATH, json_path: Path = MODEL_JSON) -> None:
    """Write the arrays as float16 (``np.savez_compressed``, no object arrays) and the rest as JSON."""
    np.savez_compressed(npz_path, **{k: np.asarray(v, dtype=np.float16) for k, v in weights.arrays.items()})
    text = json.dumps({"config": asdict(weights.config), "vocab": "".join(weights.vocab.tokens[len(SPECIALS):])},
                      ensure_ascii=False, indent=1)
    Path(json_path).write_text(text + "\n", encoding="utf-8")


def read_meta(json_path: Path = MODEL_JSON) -> tuple[Config, Vocab]:
    meta = json.loads(Path(json_path).read_text(encoding="utf-8"))
    known = {f.name for f in fields(Config)}
    return (Config(**{k: v for k, v in meta["config"].items() if k in known}),
            Vocab(tokens=(*SPECIALS, *meta["vocab"])))


def load_weights(npz_path: Path = WEIGHTS_PATH, json_path: Path = MODEL_JSON) -> Weights:
    """Read what :func:`save` wrote, arrays as float64."""
    config, vocab = read_meta(json_path)
    with np.load(npz_path, allow_pickle=False) as npz:
        arrays = {name: npz[name].astype(np.float64) for name in npz.files}
    return Weights(config=config, vocab=vocab, arrays=arrays)


# ── Checkpoints: int8, one scale a row ─────────────────────────────────────────────────

def quantize(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int8 values, float32 scales) with ``a ≈ values × scale`` row by row (the last axis is a row; a vector is
    one row), each row's largest |a| mapped to 127."""
    rows = np.asarray(a, dtype=np.float64).reshape(-1, np.shape(a)[-1] if np.ndim(a) else 1)
    scale = np.abs(rows).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    values = np.clip(np.rint(rows / scale[:, None]), -127, 127).astype(np.int8)
    return values.reshape(np.shape(a)), scale.astype(np.float32)


def dequantize(values: np.ndarray, scale: np.ndarray) -> np.ndarray:
    rows = values.reshape(len(scale), -1).astype(np.float64) * scale.astype(np.float64)[:, None]
    return rows.reshape(values.shape)


def save_checkpoints(checkpoints: list[tuple[int, dict[str, np.ndarray]]], path: Path = CHECKPOINTS_PATH) -> None:
    """Each (step, arrays) as ``<step>/<name>`` (int8) and ``<step>/<name>.scale`` (float32)."""
    found = {}
    for step, arrays in checkpoints:
        for name, a in arrays.items():
            found[f"{step}/{name}"], found[f"{step}/{name}.scale"] = quantize(a)
    np.savez_compressed(path, **found)


def load_checkpoints(path: Path = CHECKPOINTS_PATH) -> dict[int, dict[str, np.ndarray]]:
    """step → arrays (float64, dequantized), as :func:`save_checkpoints` wrote them."""
    found: dict[int, dict[str, np.ndarray]] = {}
    with np.load(path, allow_pickle=False) as npz:
        for key in npz.files:
            if key.endswith(".scale"):
                continue
            step, name = key.split("/", 1)
            found.setdefault(int(step), {})[name] = dequantize(npz[key], npz[f"{key}.scale"])
    return dict(sorted(found.items()))
