"""selfattn.text.models against real models: the bundled MiniLM and a tiny random BERT saved to disk.

The central check: one head's attention, recomputed with ``selfattn.self_attention`` from the
layer input and that head's slice of the query/key/value weights, equals the model's own
``output_attentions``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from selfattn.core.heads import merge_heads, split_heads
from selfattn.errors import InputError
from selfattn.text import models
from selfattn.text.embeddings import embed

SENTENCE = "The cat sat on the mat because it was warm."

from tests.fakehub import make_tiny_bert  # noqa: E402

pytestmark = pytest.mark.usefixtures("not_hosted")


@pytest.fixture(scope="module")
def minilm_run(minilm):
    return models.run_model(minilm, SENTENCE)


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory):
    return make_tiny_bert(tmp_path_factory.mktemp("tiny") / "tiny-bert")


def assert_heads_match(bundle, run, heads):
    for layer in range(bundle.num_layers):
        for head in heads:
            trace = models.recompute_head_attention(bundle, run, layer, head)
            np.testing.assert_allclose(trace.weights, run.attentions[layer, head], atol=1e-5, rtol=0)


def test_minilm_bundle_sizes_and_cache(minilm):
    assert (minilm.num_layers, minilm.num_heads, minilm.hidden_size, minilm.head_dim) == (6, 12, 384, 32)
    assert minilm.origin == "bundled" and minilm.name == models.MINILM
    assert models.load_model("MiniLM") is minilm  # second call costs nothing


def test_run_shapes_and_special_tokens(minilm, minilm_run):
    run = minilm_run
    n = len(run.tokens)
    assert run.tokens[0] == "[CLS]" and run.tokens[-1] == "[SEP]" and "cat" in run.tokens
    assert run.special.tolist() == [True] + [False] * (n - 2) + [True]
    assert run.attentions.shape == (6, 12, n, n)
    assert run.hidden_states.shape == (7, n, 384)
    assert run.attentions.dtype == np.float64 and not run.truncated and run.unknown == []
    np.testing.assert_allclose(run.attentions.sum(axis=-1), 1.0, atol=1e-5)


def test_recomputed_attention_equals_minilm_output_attentions(minilm, minilm_run):
    assert_heads_match(minilm, minilm_run, heads=[0, 5, 11])


def test_head_outputs_rebuild_the_next_hidden_state(minilm, minilm_run):
    """All heads' outputs, merged and pushed through the layer's own output and FFN blocks,
    reproduce hidden_states[layer + 1]: the value slices are right, not only the weights."""
    layer = 2
    block = minilm.model.encoder.layer[layer]
    outputs = np.stack([models.recompute_head_attention(minilm, minilm_run, layer, h).outputs
                        for h in range(minilm.num_heads)])  # (H, n, head_dim)
    context = torch.from_numpy(merge_heads(outputs)).float()[None]  # (1, n, d)
    x = torch.from_numpy(minilm_run.hidden_states[layer]).float()[None]  # (1, n, d)
    with torch.inference_mode():
        attended = block.attention.output(context, x)
        out = block.output(block.intermediate(attended), attended)
    np.testing.assert_allclose(out[0].double().numpy(), minilm_run.hidden_states[layer + 1], atol=1e-4)


def test_head_qkv_matches_trace(minilm, minilm_run):
    q, k, v = models.head_qkv(minilm, minilm_run, 3, 7)
    trace = models.recompute_head_attention(minilm, minilm_run, 3, 7)
    n = len(minilm_run.tokens)
    assert q.shape == k.shape == v.shape == (n, 32)
    np.testing.assert_allclose(q, trace.queries)
    np.testing.assert_allclose(v, trace.values)
    assert trace.scale_factor == pytest.approx(np.sqrt(32))


def test_head_slices_agree_with_split_heads(minilm, minilm_run):
    """Column slicing per head is the same split as selfattn.core.heads.split_heads of the full projection."""
    layer = 4
    query = minilm.model.encoder.layer[layer].attention.self.query
    full = minilm_run.hidden_states[layer] @ query.weight.double().numpy().T + query.bias.double().numpy()  # (n, d)
    parts = split_heads(full, minilm.num_heads)  # (H, n, head_dim)
    for head in range(minilm.num_heads):
        np.testing.assert_allclose(models.head_qkv(minilm, minilm_run, layer, head)[0], parts[head], atol=1e-12)


def test_truncation_to_max_tokens(minilm):
    run = models.run_model(minilm, SENTENCE, max_tokens=4)
    assert run.truncated and len(run.tokens) == 6 and run.tokens[-1] == "[SEP]"
    assert run.attentions.shape == (6, 12, 6, 6)


@pytest.mark.parametrize("layer, head, code, params", [
    (6, 0, "layer_out_of_range", {"layer": "7", "max_layer": 6}),  # counted from 1, as the page's sliders
    (-1, 0, "layer_out_of_range", {"layer": "0", "max_layer": 6}),
    (0, 12, "head_out_of_range", {"head": "13", "max_head": 12}),
])
def test_layer_and_head_checked(minilm, minilm_run, layer, head, code, params):
    with pytest.raises(InputError) as err:
        models.recompute_head_attention(minilm, minilm_run, layer, head)
    assert err.value.code == code and err.value.params == params


def test_tiny_bert_from_local_folder(tiny_folder):
    bundle = models.load_model(str(tiny_folder))
    assert bundle.origin == "local"
    assert (bundle.num_layers, bundle.num_heads, bundle.hidden_size, bundle.head_dim) == (2, 2, 32, 16)
    run = models.run_model(bundle, "The cat sat on the dog mat.")
    assert run.tokens == ["[CLS]", "the", "cat", "sat", "on", "the", "[UNK]", "mat", ".", "[SEP]"]
    assert run.unknown == [6]
    assert_heads_match(bundle, run, heads=[0, 1])
    assert run.attentions[0, 0].max() > 0.3  # large random weights: peaked maps, a test that can fail


def test_unknown_tokens_map_back_to_their_characters(minilm, tiny_folder):
    run = models.run_model(minilm, "早上好")
    assert run.tokens == ["[CLS]", "[UNK]", "上", "[UNK]", "[SEP]"] and run.unknown == [1, 3]
    assert run.originals == ["", "早", "上", "好", ""] and run.unknown_text == ["早", "好"]
    tok = models.tokenize(models.load_model(str(tiny_folder)), "The cat sat on the dog mat.")
    assert tok.unknown_text == ["dog"] and len(tok.originals) == len(tok.tokens)
    emb = embed("早上好，今天天气很好", source="minilm")
    assert [emb.tokens[i] for i in emb.unknown] == ["[UNK]"] * len(emb.unknown)
    assert set(emb.unknown_text) <= set("早上好，今天天气很好") and "早" in emb.unknown_text


def test_unknown_text_without_offsets(minilm):
    """A tokenizer without offsets (a "slow" Python one) still works; an [UNK] is then all we know."""

    class NoOffsets:
        def __init__(self, inner):
            self.inner = inner

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def __call__(self, *args, **kwargs):
            if kwargs.get("return_offsets_mapping"):
                raise NotImplementedError("return_offset_mapping is not available when using Python tokenizers")
            return self.inner(*args, **kwargs)

    from dataclasses import replace

    tok = models.tokenize(replace(minilm, tokenizer=NoOffsets(minilm.tokenizer)), "早上好")
    assert tok.tokens == ["[CLS]", "[UNK]", "上", "[UNK]", "[SEP]"]
    assert tok.originals == ["", "[UNK]", "上", "[UNK]", ""] and tok.unknown_text == ["[UNK]", "[UNK]"]


def test_originals_of_falls_back_to_the_token():
    tokens, originals = ["[CLS]", "[UNK]", "上", "[UNK]", "[SEP]"], ["", "早", "上", "", ""]
    assert models.originals_of(tokens, originals, [1, 3]) == ["早", "[UNK]"]  # no text behind the second one
    assert models.originals_of(tokens, [], [1, 2]) == ["[UNK]", "上"]  # nothing known: the tokens themselves
    assert models.originals_of(tokens, originals, []) == []


@pytest.mark.parametrize("value", [0, -1, True, 1.5, "8", None])
def test_tokenize_and_embed_refuse_the_same_token_limits(minilm, value):
    """One check for max_tokens, the same answer from the model layer and from embed."""
    errors = []
    for call in (lambda: models.tokenize(minilm, "Good morning", value),
                 lambda: embed("Good morning", source="minilm", max_tokens=value)):
        with pytest.raises(InputError) as err:
            call()
        errors.append((err.value.code, err.value.params, str(err.value)))
    assert errors[0] == errors[1] and errors[0][:2] == ("bad_max_tokens", {"value": str(value)})


def test_display_name():
    assert models.display_name("minilm") == models.display_name(models.MINILM) == "all-MiniLM-L6-v2"
    assert models.display_name("bert-base-chinese") == "bert-base-chinese"


def test_tiny_distilbert_layout(tmp_path):
    bundle = models.load_model(str(make_tiny_bert(tmp_path / "distil", "distilbert")))
    assert type(bundle.model).__name__ == "DistilBertModel"  # q_lin/k_lin/v_lin, no token_type_ids
    run = models.run_model(bundle, "good morning .")
    assert run.tokens == ["[CLS]", "good", "morning", ".", "[SEP]"]
    assert_heads_match(bundle, run, heads=[0, 1])


def test_embed_hf_tiny(tiny_folder):
    emb = embed("good morning, cat!", source="hf", model=str(tiny_folder))
    assert emb.source == "hf" and emb.tokens == ["good", "morning", "[UNK]", "cat", "[UNK]"]
    assert emb.vectors.shape == (5, 32) and emb.unknown == [2, 4]
    ctx = embed("good morning", source="hf", model=str(tiny_folder), kind="contextual", layer=1)
    assert ctx.vectors.shape == (2, 32) and ctx.layer == 1


def test_pickle_only_folder_refused(tmp_path, tiny_folder):
    folder = tmp_path / "pickled"
    folder.mkdir()
    (folder / "config.json").write_text((tiny_folder / "config.json").read_text())
    torch.save({"w": torch.zeros(1)}, folder / "pytorch_model.bin")
    with pytest.raises(InputError) as err:
        models.load_model(str(folder))
    assert err.value.code == "no_safetensors" and err.value.params["path"] == str(folder)


@pytest.mark.parametrize("make, code", [
    (lambda p: p / "missing", "model_not_found"),
    (lambda p: (p / "config.json").write_text("{}") and p / "config.json", "not_a_folder"),
    (lambda p: p, "no_config"),
])
def test_bad_local_paths(tmp_path, make, code):
    with pytest.raises(InputError) as err:
        models.load_model(str(make(tmp_path)))
    assert err.value.code == code


def test_broken_config_is_a_clear_error(tmp_path, tiny_folder):
    folder = tmp_path / "broken"
    folder.mkdir()
    for item in tiny_folder.iterdir():
        (folder / item.name).write_bytes(item.read_bytes())
    (folder / "config.json").write_text(json.dumps({"model_type": "no-such-architecture"}))
    with pytest.raises(InputError) as err:
        models.load_model(str(folder))
    assert err.value.code == "model_load_failed"


def test_old_hub_ids_are_read_as_their_new_ones(monkeypatch, tmp_path):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))  # nothing downloaded
    assert models.canonical_id("bert-base-chinese") == "google-bert/bert-base-chinese"
    assert models.canonical_id(" BERT-base-uncased ") == "google-bert/bert-base-uncased"
    assert models.canonical_id("roberta-base") == "FacebookAI/roberta-base"
    assert models.canonical_id("google-bert/bert-base-chinese") == "google-bert/bert-base-chinese"
    assert models.canonical_id("someone/bert-base-chinese") == "someone/bert-base-chinese"
    assert all(new.count("/") == 1 and new.endswith("/" + old) for old, new in models.LEGACY_IDS.items())
    assert models.HOSTED_ALLOWLIST.isdisjoint(models.LEGACY_IDS)  # the allow-list names each model once
    with pytest.raises(InputError) as err:
        models.load_model("bert-base-chinese")
    assert err.value.code == "offline" and err.value.params == {"name": "google-bert/bert-base-chinese"}


def test_uncached_hub_id_is_offline_error():
    with pytest.raises(InputError) as err:
        models.load_model("selfattn-tests/no-such-model")
    assert err.value.code == "offline" and err.value.params == {"name": "selfattn-tests/no-such-model"}


@pytest.mark.parametrize("spec", ["", "   ", "bad name!", "a/b/c d", "x" * 300, "/tmp/" + "y" * 300, "a\x00b", 42])
def test_bad_names(spec):
    with pytest.raises(InputError) as err:
        models.load_model(spec)
    assert err.value.code in {"empty_model_name", "bad_model_name", "model_not_found"}


def test_hosted_mode(monkeypatch, tiny_folder, minilm):
    monkeypatch.setenv(models.HOSTED_ENV, "1")
    for spec in (str(tiny_folder), "./models/x", "~/x"):
        with pytest.raises(InputError) as err:
            models.load_model(spec)
        assert err.value.code == "not_allowed_hosted"
    with pytest.raises(InputError) as err:
        models.load_model("someone/any-model")
    assert err.value.code == "not_allowed_hosted" and "bert-base-chinese" in err.value.params["allowed"]
    with pytest.raises(InputError) as err:  # allowed, but not downloaded here: nothing to retype, no folders
        models.load_model("bert-base-chinese")
    assert err.value.code == "offline_hosted" and err.value.params == {"name": "google-bert/bert-base-chinese"}
    assert models.load_model("minilm") is minilm


def test_hub_id_from_the_local_hf_cache(monkeypatch, tmp_path, tiny_folder):
    """A hub id that *is* in the Hugging Face cache loads from there, with no network."""
    from huggingface_hub import constants

    repo = tmp_path / "hub" / "models--selfattn-tests--tiny-bert"
    commit = "0123456789abcdef0123456789abcdef01234567"
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    for item in tiny_folder.iterdir():
        (snapshot / item.name).write_bytes(item.read_bytes())
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    bundle = models.load_model("selfattn-tests/tiny-bert")
    assert bundle.origin == "hub" and bundle.name == "selfattn-tests/tiny-bert" and bundle.num_layers == 2
    emb = embed("good morning", source="hf", model="selfattn-tests/tiny-bert")
    assert emb.model == "selfattn-tests/tiny-bert" and emb.vectors.shape == (2, 32)
    monkeypatch.setenv(models.HOSTED_ENV, "1")
    with pytest.raises(InputError) as err:
        models.load_model("selfattn-tests/tiny-bert")
    assert err.value.code == "not_allowed_hosted"


def test_loading_prints_nothing(capfd, minilm):
    name, folder, origin = models.resolve_model("minilm")
    models._load_folder.__wrapped__(str(folder), name, origin)  # a real load, past the cache
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_the_page_says_the_same_for_every_path_that_is_not_a_model_folder(tmp_path):
    """A missing path, a file, a folder without config.json and one without safetensors read
    alike on the page: the model box reveals nothing about which server paths exist."""
    from selfattn.i18n import t
    from selfattn.text.models import check_model_folder

    (tmp_path / "file.txt").write_text("x")
    bare = tmp_path / "bare"
    bare.mkdir()
    pickle_only = tmp_path / "pickle"
    pickle_only.mkdir()
    (pickle_only / "config.json").write_text("{}")
    texts = set()
    for path in (tmp_path / "missing", tmp_path / "file.txt", bare, pickle_only):
        with pytest.raises(InputError) as err:
            check_model_folder(path)
        for lang in ("en", "zh"):
            texts.add((lang, t(f"err.{err.value.code}", lang, **{**err.value.params, "path": "P"})))
    assert len(texts) == 2  # one text per language


def test_the_size_said_before_downloading_bert_base_chinese_is_its_weights():
    """The page says the size and time of the Chinese model's download before asking the hub anything: the
    figure is bert-base-chinese's float32 parameters (BertForPreTraining, 21,128 tokens), counted here."""
    import torch
    from transformers import BertConfig, BertForPreTraining

    from selfattn.text import prefetch

    with torch.device("meta"):  # the shapes only, no memory
        model = BertForPreTraining(BertConfig(vocab_size=21128))
    weights = 4 * sum(p.numel() for p in model.parameters())  # float32; the tied decoder is stored once
    size, (fast, slow) = prefetch.download_estimate("bert-base-chinese")  # either id
    assert weights == 411_529_768 and abs(size - weights) <= 1_000_000  # config and tokenizer: under 1 MB
    assert (round(fast), round(slow / 60)) == (41, 7)  # seconds at 10 MB/s, minutes at 1 MB/s
    assert prefetch.download_estimate("no-such-model") is None
