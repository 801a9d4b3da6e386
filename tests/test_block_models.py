"""Whole encoder layers of the bundled MiniLM recomputed with selfattn.transformer_layer.

The reference is the model itself: each layer, redone in float64 numpy from the layer's input hidden state and
its weights (``layer_params``), equals the next hidden state and the layer's attention maps that transformers
returns, to float32 precision; for one sentence (``recompute_layer``) and for a padded batch of two.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from selfattn import recompute_layer
from selfattn.core.block import transformer_layer
from selfattn.errors import InputError
from selfattn.text.models import layer_params, load_model, run_model

SENTENCES = {"english": "The cat sat on the mat because it was warm.", "chinese_long": "我爱北京天安门",
             "chinese_short": "狗咬人"}
HIDDEN_ATOL, WEIGHTS_ATOL = 1e-5, 1e-6


@pytest.fixture(scope="module")
def hf(minilm):
    """transformers' own BertModel and tokenizer, read from the bundled folder with eager attention (so that it
    returns its attention maps)."""
    from transformers import AutoModel, AutoTokenizer

    model = AutoModel.from_pretrained(minilm.folder, attn_implementation="eager", local_files_only=True)
    tokenizer = AutoTokenizer.from_pretrained(minilm.folder, local_files_only=True)
    return model.eval(), tokenizer


def test_layer_params_read_minilm(minilm):
    """MiniLM's layers are post-LN with the erf GELU and ε = 1e-12; the weights are the model's, transposed."""
    params, settings = layer_params(minilm, 3)
    assert settings == {"norm_first": False, "activation": "gelu", "eps": 1e-12}
    assert (params.d_model, params.num_heads, params.d_ff) == (384, 12, 1536)
    block = minilm.model.encoder.layer[3]
    np.testing.assert_array_equal(params.w_1, block.intermediate.dense.weight.detach().double().numpy().T)
    np.testing.assert_array_equal(params.ln2_gamma, block.output.LayerNorm.weight.detach().double().numpy())
    assert not np.array_equal(params.w_q, layer_params(minilm, 4)[0].w_q)


@pytest.mark.parametrize("key", ["english", "chinese_long", "chinese_short"])
def test_every_recomputed_layer_equals_minilm(minilm, key):
    """recompute_layer(layer) equals hidden_states[layer + 1] and attentions[layer], for every layer."""
    run = run_model(minilm, SENTENCES[key])
    assert len(run.tokens) >= 5  # [CLS], the sentence, [SEP]
    for layer in range(minilm.num_layers):
        trace = recompute_layer(minilm, run, layer)
        assert trace.outputs.shape == run.hidden_states[layer + 1].shape
        np.testing.assert_allclose(trace.outputs, run.hidden_states[layer + 1], rtol=0, atol=HIDDEN_ATOL)
        np.testing.assert_allclose(trace.weights, run.attentions[layer], rtol=0, atol=WEIGHTS_ATOL)
        assert np.abs(trace.outputs - trace.x).max() > 0.1  # the layer changed its input


def test_recompute_layer_refuses_a_layer_out_of_range(minilm):
    run = run_model(minilm, SENTENCES["chinese_short"])
    for layer in (-1, minilm.num_layers, 1.5):
        with pytest.raises(InputError) as err:
            recompute_layer(minilm, run, layer)
        assert err.value.code == "layer_out_of_range"
    with pytest.raises(InputError) as err:
        layer_params(minilm, minilm.num_layers)
    assert err.value.code == "layer_out_of_range"


def test_padded_batch_layers_equal_transformers(minilm, hf):
    """Two sentences of different lengths run together, padded, through transformers' BertModel: each layer
    recomputed from its padded input with the key-padding mask equals the model on the real rows (hidden states
    and attention rows of the real queries), and the padded keys get weight 0 in both."""
    model, tokenizer = hf
    texts = [SENTENCES["english"], SENTENCES["chinese_short"]]
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    with torch.inference_mode():
        out = model(**batch, output_hidden_states=True, output_attentions=True, return_dict=True)
    mask = batch["attention_mask"]
    lengths = mask.sum(dim=1).tolist()
    assert lengths[1] < lengths[0] == mask.shape[1]  # the second sentence is padded
    for layer in range(minilm.num_layers):
        params, settings = layer_params(minilm, layer)
        for b, n in enumerate(lengths):
            hidden = out.hidden_states[layer][b].double().numpy()
            trace = transformer_layer(hidden, params, key_padding=~mask[b].bool().numpy(), **settings)
            want = out.hidden_states[layer + 1][b].double().numpy()
            weights = out.attentions[layer][b].double().numpy()
            np.testing.assert_allclose(trace.outputs[:n], want[:n], rtol=0, atol=HIDDEN_ATOL)
            np.testing.assert_allclose(trace.weights[:, :n], weights[:, :n], rtol=0, atol=WEIGHTS_ATOL)
            assert np.all(trace.weights[:, :, n:] == 0.0)
    alone = run_model(minilm, texts[1])  # and the padded sentence's real rows are what it gives alone
    np.testing.assert_allclose(out.hidden_states[-1][1, :lengths[1]].double().numpy(), alone.hidden_states[-1],
                               rtol=0, atol=HIDDEN_ATOL)


@pytest.mark.parametrize("kind", ["chinese_bert", "distilbert"])
def test_recompute_layer_reads_other_bert_family_layouts(tmp_path, kind):
    """A character-level Chinese BERT (bert-base-chinese's layout, made small and random) and a DistilBERT
    (its own module names: q_lin, out_lin, sa_layer_norm, ffn.lin1): every layer recomputed equals the model's own
    hidden state and attention."""
    from tests.fakehub import make_tiny_bert, make_tiny_chinese_bert

    folder = make_tiny_chinese_bert(tmp_path / "zh") if kind == "chinese_bert" else \
        make_tiny_bert(tmp_path / "distil", model_type="distilbert")
    bundle = load_model(str(folder))
    run = run_model(bundle, "我爱自然语言处理" if kind == "chinese_bert" else "the cat sat on the mat")
    for layer in range(bundle.num_layers):
        trace = recompute_layer(bundle, run, layer)
        assert np.abs(trace.outputs - run.hidden_states[layer + 1]).max() < 1e-5
        assert np.abs(trace.weights - run.attentions[layer]).max() < 1e-6
