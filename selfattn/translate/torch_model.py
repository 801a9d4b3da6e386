"""The translator in torch: what training fits, and the reference our numpy core is checked against.

Token embeddings (times :attr:`Config.embed_scale`: 1, not Vaswani et al.'s √d_model, which drowned the positions;
CORPUS.md tells how that showed) plus sinusoidal positions (the core's
:func:`selfattn.core.positions.positional_encoding`, so both engines add the same numbers),
``nn.TransformerEncoderLayer`` and ``nn.TransformerDecoderLayer`` stacks (batch_first, no final norms: post-LN layers end normalised), and a linear
output projection to the target vocabulary. The layers are kept in plain ``nn.ModuleList``s rather than
``nn.TransformerDecoder``, whose deep copies can lose an activation module (tests/test_decoder_core.py).
"""

from __future__ import annotations


import numpy as np
import torch
from torch import nn

from selfattn.core.positions import positional_encoding
from selfattn.translate.weights import Config, Vocab, Weights


class Seq2Seq(nn.Module):
    """Chinese characters in, English word logits out."""

    def __init__(self, config: Config, vocab: Vocab, dropout: float | None = None):
        super().__init__()
        c = config
        drop = c.dropout if dropout is None else dropout
        self.config, self.vocab = config, vocab
        self.src_embed = nn.Embedding(len(vocab.source), c.d_model)
        self.tgt_embed = nn.Embedding(len(vocab.target), c.d_model)
        layer = dict(d_model=c.d_model, nhead=c.num_heads, dim_feedforward=c.d_ff, dropout=drop,
                     activation=c.activation, layer_norm_eps=c.eps, batch_first=True, norm_first=c.norm_first)
        self.encoder = nn.ModuleList(nn.TransformerEncoderLayer(**layer) for _ in range(c.encoder_layers))
        self.decoder = nn.ModuleList(nn.TransformerDecoderLayer(**layer) for _ in range(c.decoder_layers))
        self.out = nn.Linear(c.d_model, len(vocab.target))
        self.drop = nn.Dropout(drop)
        pe = positional_encoding(c.max_positions, c.d_model, "sinusoidal")  # (P, d) float64
        self.register_buffer("positions", torch.from_numpy(pe), persistent=False)  # float64, cast where added

    def embed(self, table: nn.Embedding, ids: torch.Tensor) -> torch.Tensor:
        """(B, n) ids → (B, n, d) token vectors plus positions."""
        x = table(ids) * self.config.embed_scale  # (B, n, d)
        return self.drop(x + self.positions[: ids.shape[1]].to(x.dtype))

    def encode(self, src: torch.Tensor, src_pad: torch.Tensor) -> torch.Tensor:
        """(B, n) source ids, (B, n) bool padding → (B, n, d) the memory."""
        x = self.embed(self.src_embed, src)
        for layer in self.encoder:
            x = layer(x, src_key_padding_mask=src_pad)
        return x

    def decode(self, tgt: torch.Tensor, memory: torch.Tensor, src_pad: torch.Tensor) -> torch.Tensor:
        """(B, m) target ids so far → (B, m, V) logits of the next word at each position (causal)."""
        m = tgt.shape[1]
        causal = torch.triu(torch.ones(m, m, dtype=torch.bool, device=tgt.device), diagonal=1)  # True: may not read
        y = self.embed(self.tgt_embed, tgt)
        for layer in self.decoder:
            y = layer(y, memory, tgt_mask=causal, memory_key_padding_mask=src_pad)
        return self.out(y)

    def forward(self, src: torch.Tensor, src_pad: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
        return self.decode(tgt, self.encode(src, src_pad), src_pad)


def arrays_of(model: Seq2Seq) -> dict[str, np.ndarray]:
    """The model's parameters as float64 numpy arrays by state_dict name."""
    return {name: t.detach().cpu().double().numpy().copy() for name, t in model.state_dict().items()}


def reference(weights: Weights) -> Seq2Seq:
    """A float64 torch model holding ``weights``, dropout 0, in ``train()`` mode (torch's step-by-step path, not
    its fused inference kernels, as tests/test_block_core.py explains), gradients off."""
    model = Seq2Seq(weights.config, weights.vocab, dropout=0.0).double()
    model.load_state_dict({k: torch.from_numpy(np.array(v, dtype=np.float64)) for k, v in weights.arrays.items()})
    model.requires_grad_(False)
    return model.train()


def next_logits(model: Seq2Seq, source_ids: list[int]):
    """A function from the target ids so far (<bos> first) to the logits of the next word, float64 numpy, with the
    source encoded once; for :func:`selfattn.translate.infer.generate`."""
    src = torch.tensor([source_ids])
    src_pad = torch.zeros_like(src, dtype=torch.bool)
    with torch.no_grad():
        memory = model.encode(src, src_pad)

    def step(prefix: list[int]) -> np.ndarray:
        with torch.no_grad():
            return model.decode(torch.tensor([prefix]), memory, src_pad)[0, -1].double().numpy()

    return step


def all_logits(model: Seq2Seq, source_ids: list[int], target_ids: list[int]) -> np.ndarray:
    """(m, V) the logits at every position of ``target_ids`` (<bos> first) in one causal pass."""
    src = torch.tensor([source_ids])
    with torch.no_grad():
        return model(src, torch.zeros_like(src, dtype=torch.bool), torch.tensor([target_ids]))[0].double().numpy()
