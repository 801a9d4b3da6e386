"""Batched multi-head self-attention in PyTorch, three ways, for timing and cross-checking.

All three take ``x`` of shape (B, n, d_model) and include the Q/K/V and output projections,
so their timings compare like with like. They hold their weights exactly as
:class:`torch.nn.MultiheadAttention` does (``in_proj_weight`` (3 d_model, d_model) applied as
``x @ W.T``, ``in_proj_bias``, ``out_proj``), so one state dict fits all and outputs agree.

* ``naive``: one fused input projection, then explicit ``q @ k.T`` -> softmax -> ``@ v``,
  materialising the (B, h, n, n) scores.
* ``fused``: the same projections around ``torch.nn.functional.scaled_dot_product_attention``,
  which picks a flash / memory-efficient kernel and never stores the full score matrix.
* ``torch_mha``: ``torch.nn.MultiheadAttention`` itself (batch_first, need_weights=False), the
  reference. With bias and an even head count, eval mode and no grad, it takes PyTorch's
  native "fast path".

Set ``num_heads=1`` for single-head attention; head_dim is then d_model.
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from selfattn.core.checks import check_heads
from selfattn.errors import InputError

IMPLS = ("naive", "fused", "torch_mha")


def causal_attn_mask(n: int, device: Any = None) -> torch.Tensor:
    """(n, n) bool mask in PyTorch's convention: True where token i may NOT attend to token j."""
    return torch.ones(n, n, dtype=torch.bool, device=device).triu(diagonal=1)


class _ProjectedAttention(nn.Module):
    """Input projection (one (3 d_model, d_model) matmul, like MultiheadAttention), attention, output projection."""

    def __init__(self, d_model: int, num_heads: int, *, bias: bool = True, device: Any = None, dtype: Any = None):
        super().__init__()
        check_heads(d_model, num_heads)
        self.d_model, self.num_heads, self.head_dim = d_model, num_heads, d_model // num_heads
        kw = {"device": device, "dtype": dtype}
        self.in_proj_weight = nn.Parameter(torch.empty(3 * d_model, d_model, **kw))
        self.register_parameter("in_proj_bias", nn.Parameter(torch.zeros(3 * d_model, **kw)) if bias else None)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias, **kw)
        nn.init.xavier_uniform_(self.in_proj_weight)

    def attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool) -> torch.Tensor:
        """Attention on (B, h, n, head_dim) tensors, returning (B, h, n, head_dim)."""
        raise NotImplementedError

    def forward(self, x: torch.Tensor, causal: bool = False) -> torch.Tensor:
        """Self-attention of ``x`` (B, n, d_model) -> (B, n, d_model); ``causal`` hides later tokens."""
        b, n, d = x.shape
        qkv = F.linear(x, self.in_proj_weight, self.in_proj_bias)  # (B, n, 3 d_model)
        qkv = qkv.view(b, n, 3, self.num_heads, self.head_dim)  # (B, n, 3, h, head_dim)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)  # 3 x (B, h, n, head_dim)
        heads = self.attend(q, k, v, causal)  # (B, h, n, head_dim)
        merged = heads.transpose(1, 2).reshape(b, n, d)  # (B, n, h, head_dim) -> (B, n, d_model)
        return self.out_proj(merged)  # (B, n, d_model)


class NaiveAttention(_ProjectedAttention):
    """Textbook attention: softmax(q @ k.T / sqrt(head_dim)) @ v with the scores in memory."""

    def attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool) -> torch.Tensor:
        scores = (q * (1.0 / math.sqrt(self.head_dim))) @ k.transpose(-2, -1)  # (B, h, n, n)
        if causal:
            scores = scores.masked_fill(causal_attn_mask(q.shape[-2], q.device), float("-inf"))
        return torch.softmax(scores, dim=-1) @ v  # (B, h, n, head_dim)


class FusedAttention(_ProjectedAttention):
    """Attention by ``scaled_dot_product_attention``: one fused kernel, no (n, n) matrix kept."""

    def attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool) -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)  # (B, h, n, head_dim)


class TorchMHAAttention(nn.Module):
    """``torch.nn.MultiheadAttention`` (batch_first) behind the same ``forward(x, causal)`` call."""

    def __init__(self, d_model: int, num_heads: int, *, bias: bool = True, device: Any = None, dtype: Any = None):
        super().__init__()
        check_heads(d_model, num_heads)
        self.d_model, self.num_heads, self.head_dim = d_model, num_heads, d_model // num_heads
        self.mha = nn.MultiheadAttention(d_model, num_heads, bias=bias, batch_first=True, device=device, dtype=dtype)

    def forward(self, x: torch.Tensor, causal: bool = False) -> torch.Tensor:
        """Self-attention of ``x`` (B, n, d_model) -> (B, n, d_model); ``causal`` hides later tokens."""
        mask = causal_attn_mask(x.shape[1], x.device) if causal else None
        return self.mha(x, x, x, need_weights=False, attn_mask=mask)[0]  # (B, n, d_model)


_CLASSES = {"naive": NaiveAttention, "fused": FusedAttention, "torch_mha": TorchMHAAttention}


def _core(module: nn.Module) -> nn.Module:
    """The module that owns in_proj_weight / out_proj (MultiheadAttention for torch_mha)."""
    return module.mha if isinstance(module, TorchMHAAttention) else module


def build_attention(
    impl: str, d_model: int, num_heads: int, *, bias: bool = True, device: Any = "cpu", dtype: Any = torch.float32
) -> nn.Module:
    """One attention module in eval mode, with fresh (Xavier) weights.

    Args:
        impl: one of IMPLS ("naive", "fused", "torch_mha").
        d_model: model width; num_heads must divide it.
        num_heads: h.
        bias: add biases in the projections (MultiheadAttention's default; its fast path needs them).
        device, dtype: where and in what precision the weights live.

    Returns:
        nn.Module whose ``forward(x, causal=False)`` maps (B, n, d_model) to (B, n, d_model).
    """
    if impl not in _CLASSES:
        raise InputError("bench_impl", f"impl must be one of {', '.join(IMPLS)}, got {impl!r}.",
                         impl=str(impl), allowed=", ".join(IMPLS))
    return _CLASSES[impl](d_model, num_heads, bias=bias, device=device, dtype=dtype).eval()


def build_attention_modules(
    d_model: int, num_heads: int, *, impls: tuple[str, ...] = IMPLS, bias: bool = True,
    device: Any = "cpu", dtype: Any = torch.float32, seed: int = 0,
) -> dict[str, nn.Module]:
    """Build several implementations that share one set of weights drawn from ``seed``.

    The weights are drawn on the CPU in float32 by a private generator (the global RNG is left
    alone), then cast, so the same seed gives the same function on every device and dtype:
    Xavier-uniform projections and, with ``bias``, biases uniform in [-0.1, 0.1].

    Returns:
        dict impl -> module (eval mode); every module computes the same function.
    """
    reference = build_attention("torch_mha", d_model, num_heads, bias=bias, device=device, dtype=dtype)
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for param in _core(reference).parameters():
            draw = torch.empty(param.shape)  # float32 on the CPU
            if param.ndim == 2:
                nn.init.xavier_uniform_(draw, generator=gen)
            else:
                draw.uniform_(-0.1, 0.1, generator=gen)
            param.copy_(draw)
    state = _core(reference).state_dict()
    modules = {}
    for impl in impls:
        module = reference if impl == "torch_mha" else build_attention(
            impl, d_model, num_heads, bias=bias, device=device, dtype=dtype)
        _core(module).load_state_dict(state)
        modules[impl] = module
    return modules


@torch.no_grad()
def set_projection_weights(module: nn.Module, w_q: Any, w_k: Any, w_v: Any, w_o: Any) -> nn.Module:
    """Load weights written in the x @ W convention into any of the three modules.

    Args:
        module: a module from :func:`build_attention`.
        w_q, w_k, w_v, w_o: (d_model, d_model) arrays or tensors, applied as ``x @ w``.

    Returns:
        The same module, with biases (if any) set to zero.
    """
    core = _core(module)
    ref = core.in_proj_weight
    as_t = lambda w: torch.as_tensor(w).to(device=ref.device, dtype=ref.dtype)  # noqa: E731
    w_q, w_k, w_v, w_o = (as_t(w) for w in (w_q, w_k, w_v, w_o))
    d = ref.shape[1]
    for name, w in (("W_q", w_q), ("W_k", w_k), ("W_v", w_v), ("W_o", w_o)):
        if tuple(w.shape) != (d, d):
            raise InputError("weight_shape", f"{name} must be ({d}, {d}), got {tuple(w.shape)}.",
                             name=name, expected=f"({d}, {d})", got=str(tuple(w.shape)))
    core.in_proj_weight.copy_(torch.cat([w_q.T, w_k.T, w_v.T], dim=0))  # (3 d_model, d_model), used as x @ W.T
    core.out_proj.weight.copy_(w_o.T)
    for bias in (core.in_proj_bias, core.out_proj.bias):
        if bias is not None:
            bias.zero_()
    return module
