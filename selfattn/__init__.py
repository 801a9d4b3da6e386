"""selfattn: a small, plain-Python core for exploring self-attention (no Streamlit inside).

Heavy libraries (torch, transformers, jieba) are imported only when first used.
"""

from selfattn.core.attention import (AttentionTrace, attend, causal_mask, cosine_similarity, raw_self_attention,
                                     self_attention, stable_softmax)
from selfattn.core.block import (BatchTrace, LayerParams, LayerTrace, NormTrace, StackTrace, transformer_batch,
                                 transformer_layer, transformer_stack)
from selfattn.core.decoder import (CacheTrace, DecoderLayerParams, DecoderLayerTrace, EncoderDecoderTrace,
                                   decode_with_cache, decoder_layer, encoder_decoder)
from selfattn.core.efficient import (GroupedTrace, TiledTrace, attention_traffic, grouped_query_attention, rotary,
                                     tiled_attention)
from selfattn.core.heads import (MISTAKES, MultiHeadTrace, merge_heads, multi_head_attention,
                                 multi_head_attention_with_mistake, split_heads)
from selfattn.core.positions import ShuffleTrace, positional_encoding, shuffle_check
from selfattn.text.charvec import load_char_vectors, nearest, segment
from selfattn.text.embeddings import TokenEmbeddings, embed
from selfattn.text.models import (ModelBundle, ModelRun, head_qkv, load_model, recompute_head_attention, recompute_layer,
                                  run_model)

__all__ = [
    "MISTAKES", "AttentionTrace", "BatchTrace", "CacheTrace", "DecoderLayerParams", "DecoderLayerTrace",
    "EncoderDecoderTrace", "GroupedTrace", "TiledTrace", "attention_traffic", "grouped_query_attention", "rotary",
    "tiled_attention", "LayerParams", "LayerTrace", "ModelBundle", "ModelRun",
    "MultiHeadTrace", "NormTrace", "ShuffleTrace", "StackTrace", "TokenEmbeddings",
    "attend", "causal_mask", "merge_heads", "multi_head_attention", "multi_head_attention_with_mistake", "split_heads",
    "positional_encoding", "shuffle_check",
    "cosine_similarity", "decode_with_cache", "decoder_layer", "embed", "encoder_decoder", "head_qkv", "load_char_vectors", "load_model", "nearest",
    "raw_self_attention", "recompute_head_attention", "recompute_layer", "run_model", "segment", "self_attention",
    "stable_softmax", "transformer_batch", "transformer_layer", "transformer_stack",
]
