"""A BERT encoder and its WordPiece tokenizer in plain torch, for plain BERT folders.

Why: importing transformers' modelling code costs about 2.5 s on a 2-core machine (it pulls in
``torch._dynamo``), more than reading MiniLM's weights (0.2 s). A BERT encoder is a short
piece of code, so for the common case (``model_type`` "bert", absolute positions, GELU) the
app runs its own, which also makes every step of the model readable here.

The modules carry the same names as transformers' ``BertModel`` (``embeddings.word_embeddings``,
``encoder.layer[i].attention.self.query``, ...), so the safetensors file loads with
``load_state_dict(strict=True)``: a weight that is missing or left over is an error, never a
silent mismatch. ``tests/test_bert.py`` checks the attention maps and hidden states against
transformers' own ``BertModel(..., output_attentions=True)``.

The tokenizer is the folder's ``tokenizer.json`` read by the Rust ``tokenizers`` library, the
same engine transformers' fast tokenizers wrap, behind the few methods ``selfattn.text.models`` uses.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace

import torch
from torch import nn

SUPPORTED_ACTIVATIONS = {"gelu": nn.functional.gelu}


def plain_bert_config(folder: Path) -> dict | None:
    """The folder's config.json when this module can run it (else None: use transformers)."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    plain = (config.get("model_type") == "bert" and config.get("hidden_act", "gelu") in SUPPORTED_ACTIVATIONS
             and config.get("position_embedding_type", "absolute") == "absolute"
             and not config.get("is_decoder", False) and (folder / "tokenizer.json").is_file()
             and any(folder.glob("*.safetensors")))
    return config if plain else None


class Embeddings(nn.Module):
    """Token + position + segment embeddings, then LayerNorm."""

    def __init__(self, cfg: dict):
        super().__init__()
        d = cfg["hidden_size"]
        self.word_embeddings = nn.Embedding(cfg["vocab_size"], d)
        self.position_embeddings = nn.Embedding(cfg["max_position_embeddings"], d)
        self.token_type_embeddings = nn.Embedding(cfg.get("type_vocab_size", 2), d)
        self.LayerNorm = nn.LayerNorm(d, eps=cfg.get("layer_norm_eps", 1e-12))

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)[None, :]  # (1, n)
        x = self.word_embeddings(input_ids) + self.position_embeddings(positions)
        return self.LayerNorm(x + self.token_type_embeddings(token_type_ids))  # (B, n, d)


class SelfAttention(nn.Module):
    """Multi-head scaled dot-product attention that hands back its weights."""

    def __init__(self, cfg: dict):
        super().__init__()
        d = cfg["hidden_size"]
        self.num_heads = cfg["num_attention_heads"]
        self.head_dim = d // self.num_heads
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)

    def forward(self, x: torch.Tensor, additive_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        b, n, d = x.shape

        def heads(t: torch.Tensor) -> torch.Tensor:  # (B, n, d) -> (B, H, n, head_dim)
            return t.view(b, n, self.num_heads, self.head_dim).transpose(1, 2)

        q, k, v = heads(self.query(x)), heads(self.key(x)), heads(self.value(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim) + additive_mask  # (B, H, n, n)
        weights = scores.softmax(dim=-1)
        context = (weights @ v).transpose(1, 2).reshape(b, n, d)  # heads side by side again
        return context, weights


class ProjectAddNorm(nn.Module):
    """A projection, a residual connection, LayerNorm: both after attention (the projection
    is W_o) and at the end of the feed-forward block."""

    def __init__(self, cfg: dict, in_features: int):
        super().__init__()
        self.dense = nn.Linear(in_features, cfg["hidden_size"])
        self.LayerNorm = nn.LayerNorm(cfg["hidden_size"], eps=cfg.get("layer_norm_eps", 1e-12))

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(self.dense(x) + residual)


class Attention(nn.Module):
    def __init__(self, cfg: dict):
        super().__init__()
        self.self = SelfAttention(cfg)
        self.output = ProjectAddNorm(cfg, cfg["hidden_size"])


class Intermediate(nn.Module):
    """The feed-forward block's first half: widen, then GELU."""

    def __init__(self, cfg: dict):
        super().__init__()
        self.dense = nn.Linear(cfg["hidden_size"], cfg["intermediate_size"])
        self.act = SUPPORTED_ACTIVATIONS[cfg.get("hidden_act", "gelu")]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.dense(x))


class Layer(nn.Module):
    def __init__(self, cfg: dict):
        super().__init__()
        self.attention = Attention(cfg)
        self.intermediate = Intermediate(cfg)
        self.output = ProjectAddNorm(cfg, cfg["intermediate_size"])

    def forward(self, x: torch.Tensor, additive_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        context, weights = self.attention.self(x, additive_mask)
        attended = self.attention.output(context, x)
        return self.output(self.intermediate(attended), attended), weights


class Encoder(nn.Module):
    def __init__(self, cfg: dict):
        super().__init__()
        self.layer = nn.ModuleList(Layer(cfg) for _ in range(cfg["num_hidden_layers"]))


class BertEncoder(nn.Module):
    """A BERT encoder whose forward returns every layer's attention weights and input."""

    def __init__(self, cfg: dict):
        super().__init__()
        self.config = SimpleNamespace(**cfg)
        self.embeddings = Embeddings(cfg)
        self.encoder = Encoder(cfg)

    def get_input_embeddings(self) -> nn.Embedding:
        return self.embeddings.word_embeddings

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                token_type_ids: torch.Tensor | None = None, output_attentions: bool = True,
                output_hidden_states: bool = True, return_dict: bool = True) -> SimpleNamespace:
        """Run the encoder on (B, n) token ids.

        Returns:
            ``last_hidden_state`` (B, n, d), ``hidden_states`` (L + 1 tensors (B, n, d): the
            embeddings, then each layer's output) and ``attentions`` (L tensors (B, H, n, n)).
        """
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        # Padding gets the most negative float added to its scores, as transformers does.
        additive = (1.0 - attention_mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
        x = self.embeddings(input_ids, token_type_ids)
        hidden, attentions = [x], []
        for layer in self.encoder.layer:
            x, weights = layer(x, additive)
            hidden.append(x)
            attentions.append(weights)
        return SimpleNamespace(last_hidden_state=x, hidden_states=tuple(hidden), attentions=tuple(attentions))


def load_encoder(folder: Path, cfg: dict) -> BertEncoder:
    """Build the encoder and load the folder's safetensors weights into it (strictly)."""
    from safetensors.torch import load_file

    state: dict[str, torch.Tensor] = {}
    for path in sorted(folder.glob("*.safetensors")):
        state.update(load_file(str(path)))
    state = {key.removeprefix("bert."): value for key, value in state.items()
             if not key.startswith(("pooler.", "bert.pooler.", "cls."))}  # heads this page does not use
    state.pop("embeddings.position_ids", None)  # a constant older checkpoints stored
    model = BertEncoder(cfg)
    model.load_state_dict({key: value.float() for key, value in state.items()}, strict=True)
    return model.eval().requires_grad_(False)


class WordPieceTokenizer:
    """The folder's tokenizer.json behind the methods of a transformers tokenizer that
    ``selfattn.text.models`` calls (``__call__``, ``convert_ids_to_tokens``, ...)."""

    def __init__(self, folder: Path):
        from tokenizers import Tokenizer

        self._tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tok.no_padding()  # tokenizer.json may ask for both; a call asks for what it needs
        self._tok.no_truncation()
        settings = {}
        for name in ("special_tokens_map.json", "tokenizer_config.json"):
            try:
                settings.update(json.loads((folder / name).read_text(encoding="utf-8")))
            except (OSError, ValueError):
                pass
        unk = settings.get("unk_token", "[UNK]")
        unk = unk.get("content", "[UNK]") if isinstance(unk, dict) else unk
        self.unk_token_id = self._tok.token_to_id(unk)
        self.model_max_length = int(settings.get("model_max_length") or 10**30)

    def num_special_tokens_to_add(self, pair: bool = False) -> int:
        return self._tok.num_special_tokens_to_add(pair)

    def convert_ids_to_tokens(self, ids: list[int]) -> list[str]:
        return [self._tok.id_to_token(i) for i in ids]

    def convert_tokens_to_ids(self, tokens: list[str]) -> list[int | None]:
        return [self._tok.token_to_id(t) for t in tokens]

    def __call__(self, text: str, *, add_special_tokens: bool = True, truncation: bool = False,
                 max_length: int | None = None, return_special_tokens_mask: bool = False,
                 return_offsets_mapping: bool = False, verbose: bool = False) -> dict:
        """Encode one text; ``max_length`` counts the special tokens, as in transformers."""
        encoding = self._tok.encode(text, add_special_tokens=False)
        if truncation and max_length is not None:
            keep = max_length - (self.num_special_tokens_to_add() if add_special_tokens else 0)
            encoding.truncate(max(keep, 0))
        if add_special_tokens:
            encoding = self._tok.post_process(encoding)
        out = {"input_ids": list(encoding.ids)}
        if return_special_tokens_mask:
            out["special_tokens_mask"] = list(encoding.special_tokens_mask)
        if return_offsets_mapping:
            out["offset_mapping"] = list(encoding.offsets)
        return out
