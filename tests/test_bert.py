"""selfattn.text.bert against transformers: same tokens, same attention maps, same hidden states.

The app runs plain BERT folders (the bundled MiniLM among them) on selfattn.text.bert because it
loads in a fraction of transformers' import time; transformers' own ``BertModel`` with
``output_attentions=True`` is the reference it must reproduce.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from selfattn.text import bert, models
from tests.fakehub import make_tiny_bert

SENTENCES = [
    "The animal didn't cross the street because it was too tired.",
    "早上好，今天天气很好",
    "Good morning",
    "Héllo 🙂 wörld!! mixed 中文 and English, numbers 3.14159 and URLs like https://example.org",
    "a " * 600,  # longer than max_tokens: truncated
]


@pytest.fixture(scope="module")
def reference(minilm):
    """transformers' own BertModel and fast tokenizer on the same folder."""
    from transformers import AutoModel, AutoTokenizer

    model = AutoModel.from_pretrained(minilm.folder, local_files_only=True, use_safetensors=True,
                                      attn_implementation="eager", dtype=torch.float32).eval()
    return AutoTokenizer.from_pretrained(minilm.folder, local_files_only=True), model


def test_minilm_runs_on_selfattn_bert(minilm):
    assert isinstance(minilm.model, bert.BertEncoder) and isinstance(minilm.tokenizer, bert.WordPieceTokenizer)
    assert (minilm.num_layers, minilm.num_heads, minilm.hidden_size, minilm.max_tokens) == (6, 12, 384, 510)


@pytest.mark.parametrize("text", SENTENCES)
def test_tokens_match_transformers(minilm, reference, text):
    ref_tok, _ = reference
    for options in ({"add_special_tokens": False}, {"truncation": True, "max_length": 20},
                    {"truncation": True, "max_length": 512}):
        ours = minilm.tokenizer(text, return_special_tokens_mask=True, return_offsets_mapping=True, **options)
        theirs = ref_tok(text, return_special_tokens_mask=True, return_offsets_mapping=True, **options)
        assert ours["input_ids"] == theirs["input_ids"]
        assert ours["special_tokens_mask"] == theirs["special_tokens_mask"]
        assert [tuple(o) for o in ours["offset_mapping"]] == [tuple(o) for o in theirs["offset_mapping"]]
    ids = ours["input_ids"]
    assert minilm.tokenizer.convert_ids_to_tokens(ids) == ref_tok.convert_ids_to_tokens(ids)
    assert minilm.tokenizer.unk_token_id == ref_tok.unk_token_id
    assert minilm.tokenizer.num_special_tokens_to_add() == ref_tok.num_special_tokens_to_add(pair=False)


@pytest.mark.parametrize("text", SENTENCES)
def test_attention_and_hidden_states_match_transformers(minilm, reference, text):
    """Every layer's attention maps (<= 1e-5) and hidden states equal transformers' output."""
    _, ref_model = reference
    run = models.run_model(minilm, text)
    ids = torch.from_numpy(run.ids)[None, :]
    with torch.inference_mode():
        out = ref_model(input_ids=ids, attention_mask=torch.ones_like(ids), token_type_ids=torch.zeros_like(ids),
                        output_attentions=True, output_hidden_states=True)
    attentions = torch.stack(out.attentions)[:, 0].double().numpy()  # (L, H, n, n)
    hidden = torch.stack(out.hidden_states)[:, 0].double().numpy()  # (L + 1, n, d)
    assert run.attentions.shape == attentions.shape and run.hidden_states.shape == hidden.shape
    np.testing.assert_allclose(run.attentions, attentions, rtol=0, atol=1e-5)
    np.testing.assert_allclose(run.hidden_states, hidden, rtol=1e-5, atol=5e-5)


def test_padding_mask_matches_transformers(tmp_path: Path):
    """A padded batch through a tiny random BERT: padded keys get no weight, as in transformers."""
    from transformers import BertModel

    folder = make_tiny_bert(tmp_path / "tiny")
    ours = bert.load_encoder(folder, bert.plain_bert_config(folder))
    theirs = BertModel.from_pretrained(folder, attn_implementation="eager").eval()
    ids = torch.tensor([[2, 5, 6, 7, 3], [2, 10, 11, 3, 0]])
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 1, 0]])
    with torch.inference_mode():
        a = ours(ids, attention_mask=mask)
        b = theirs(input_ids=ids, attention_mask=mask, output_attentions=True, output_hidden_states=True)
    for x, y in zip(a.attentions, b.attentions):
        np.testing.assert_allclose(x.numpy(), y.numpy(), atol=1e-5)
    np.testing.assert_allclose(a.last_hidden_state[mask.bool()].numpy(), b.last_hidden_state[mask.bool()].numpy(),
                               atol=1e-5)
    assert float(a.attentions[0][1, :, :, 4].abs().max()) < 1e-12  # the padded position is never attended


def test_weights_load_strictly(tmp_path: Path):
    """A weight missing from the file is an error, not a silently random layer."""
    from safetensors.torch import load_file, save_file

    folder = make_tiny_bert(tmp_path / "tiny")
    state = load_file(str(folder / "model.safetensors"))
    state.pop(next(key for key in state if key.endswith("attention.self.query.weight")))
    save_file(state, str(folder / "model.safetensors"))
    with pytest.raises(RuntimeError, match="Missing key"):
        bert.load_encoder(folder, bert.plain_bert_config(folder))


def test_only_plain_bert_folders_are_taken(tmp_path: Path):
    assert bert.plain_bert_config(make_tiny_bert(tmp_path / "bert")) is not None
    assert bert.plain_bert_config(make_tiny_bert(tmp_path / "distil", "distilbert")) is None
    assert bert.plain_bert_config(tmp_path / "nowhere") is None
