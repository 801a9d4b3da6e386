"""selfattn: a small, plain-Python core for exploring self-attention (no Streamlit inside)."""

from selfattn.attention import AttentionConfig, AttentionTrace, causal_mask, self_attention, stable_softmax

__all__ = ["AttentionConfig", "AttentionTrace", "causal_mask", "self_attention", "stable_softmax"]
