"""The poet in torch: what training fits, and the reference our numpy core is checked against.

A decoder-only Transformer, GPT-2's shape at a tiny size: token vectors plus learned position vectors,
``Config.layers`` pre-LN ``nn.TransformerEncoderLayer``s run with a causal mask (a "decoder" without
cross-attention is an encoder layer that may not look ahead), a final LayerNorm (GPT-2's ``ln_f``), and logits
``h · Eᵀ``: the output layer is the token table itself (weight tying, as GPT-2), with no bias.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from selfattn.poet.weights import Config, Vocab, Weights


class TinyPoet(nn.Module):
    """Token ids in, next-token logits out, at every position."""

    def __init__(self, config: Config, vocab: Vocab, dropout: float | None = None):
        super().__init__()
        c = config
        drop = c.dropout if dropout is None else dropout
        self.config, self.vocab = config, vocab
        self.embed = nn.Embedding(len(vocab), c.d_model)
        self.positions = nn.Embedding(c.max_positions, c.d_model)
        layer = dict(d_model=c.d_model, nhead=c.num_heads, dim_feedforward=c.d_ff, dropout=drop,
                     activation=c.activation, layer_norm_eps=c.eps, batch_first=True, norm_first=True)
        self.blocks = nn.ModuleList(nn.TransformerEncoderLayer(**layer) for _ in range(c.layers))
        self.norm = nn.LayerNorm(c.d_model, eps=c.eps)
        self.drop = nn.Dropout(drop)
        for table in (self.embed, self.positions):  # GPT-2's N(0, 0.02): unit vectors would swamp the blocks
            nn.init.normal_(table.weight, std=0.02)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """(B, n) ids → (B, n, V) logits; row i reads ids 0..i only."""
        n = ids.shape[1]
        causal = torch.triu(torch.ones(n, n, dtype=torch.bool, device=ids.device), diagonal=1)  # True: may not read
        x = self.drop(self.embed(ids) + self.positions.weight[:n])  # (B, n, d)
        for block in self.blocks:
            x = block(x, src_mask=causal, is_causal=True)
        return self.norm(x) @ self.embed.weight.T  # (B, n, V)


def arrays_of(model: TinyPoet) -> dict[str, np.ndarray]:
    """The model's parameters as float64 numpy arrays by state_dict name."""
    return {name: t.detach().cpu().double().numpy().copy() for name, t in model.state_dict().items()}


def reference(weights: Weights) -> TinyPoet:
    """A float64 torch model holding ``weights``, dropout 0, in ``train()`` mode (torch's step-by-step path, not
    its fused inference kernels, as tests/test_block_core.py explains), gradients off."""
    model = TinyPoet(weights.config, weights.vocab, dropout=0.0).double()
    model.load_state_dict({k: torch.from_numpy(np.array(v, dtype=np.float64)) for k, v in weights.arrays.items()})
    model.requires_grad_(False)
    return model.train()


def all_logits(model: TinyPoet, ids: list[int]) -> np.ndarray:
    """(n, V) the logits at every position of ``ids`` in one causal pass, float64 numpy."""
    with torch.no_grad():
        return model(torch.tensor([ids]))[0].double().numpy()
