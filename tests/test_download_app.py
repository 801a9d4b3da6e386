"""The Sentence embeddings page downloads a model that is not on the machine, when the visitor asks.

The hub is a loopback server (tests/test_hub_download.py's FakeHub, a tiny random Chinese BERT in
the hub's URL layout) reached through ``HF_ENDPOINT``; nothing leaves 127.0.0.1.
"""

from __future__ import annotations

from selfattn.text import models
from tests.apptest import choice_widget, open_page, texts
from tests.test_hub_download import REPO, cache, hub, loopback_only, tiny_files  # noqa: F401 - fixtures


def choose_model(at, spec: str):
    choice_widget(at.selectbox, "emb_source").set_value("hf").run()
    at.text_input(key="emb_model").set_value(spec).run()
    return at


def test_a_model_not_on_the_machine_says_its_size_and_downloads_on_request(hub, cache):
    at = choose_model(open_page("embeddings"), REPO)
    assert not at.exception
    offer = next(i.value for i in at.info if REPO in i.value and "safetensors" in i.value)
    assert "kB" in offer or "MB" in offer  # the size, before anything is fetched
    assert hub.fetched() == []
    button = next(b for b in at.button if str(b.key) == f"download_{REPO}")
    button.click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert sorted(hub.fetched()) == ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"]
    assert not at.error, [e.value for e in at.error]
    assert "Layer 1, head 1" in texts(at)  # the downloaded model's heads are on the page
    hub.stop()  # and it works offline from now on
    fresh = choose_model(open_page("embeddings"), REPO)
    assert not fresh.exception and not fresh.error and "Layer 1, head 1" in texts(fresh)
    assert models.load_model(REPO).num_layers == 2


def test_a_pickle_only_model_is_refused_without_a_download_button(hub, cache):
    from tests.test_hub_download import PICKLE_REPO

    at = choose_model(open_page("embeddings"), PICKLE_REPO)
    assert not at.exception
    assert not [b for b in at.button if str(b.key).startswith("download_")]
    assert any("safetensors" in i.value for i in at.info)  # why it cannot be downloaded, under the one error
