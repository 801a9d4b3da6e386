"""The Sentence embeddings page downloads a model that is not on the machine only when the visitor clicks.

The hub is a loopback server (tests/fakehub.py's FakeHub, a tiny random Chinese BERT in
the hub's URL layout) reached through ``HF_ENDPOINT``, counting every request; nothing leaves
127.0.0.1. A page open, a rerun, a language switch make no request at all; a click does.
"""

from __future__ import annotations

import pytest

from selfattn.text import models, prefetch
from support.apptest import choice_widget, open_link, open_page, texts
from tests.fakehub import REPO

pytestmark = pytest.mark.usefixtures("loopback_only")  # no test here reaches the network

WANTED = ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"]
CHINESE = "google-bert/bert-base-chinese"


@pytest.fixture(autouse=True)
def nothing_loaded():
    """Each test starts as a fresh server would: no model kept in memory from another test's cache."""
    from ui import models as cached

    for cache_of in (cached.model, cached.embeddings, cached.model_run, cached._loaded):
        cache_of.clear()
    models._load_folder.cache_clear()


def choose_model(at, spec: str):
    choice_widget(at.selectbox, "emb_source").set_value("hf").run()
    at.text_input(key="emb_model").set_value(spec).run()
    return at


def download_button(at, spec: str):
    return next(b for b in at.button if str(b.key) == f"download_{spec}")


def test_a_model_not_on_the_machine_is_offered_and_downloads_on_a_click(hub, cache):
    at = choose_model(open_page("embeddings", part="model"), REPO)
    assert not at.exception
    assert any(REPO in i.value and "Nothing is fetched until you click" in i.value for i in at.info)
    at.run()
    at.session_state["lang"] = "zh"
    at.run()
    assert hub.requests == []  # an offer, two reruns and a language switch: not one request
    download_button(at, REPO).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert sorted(hub.fetched()) == WANTED
    assert not at.error, [e.value for e in at.error]
    assert "第 1 层第 1 个头" in texts(at)  # the downloaded model's heads are on the page
    hub.stop()  # and it works offline from now on
    fresh = choose_model(open_page("embeddings", part="model"), REPO)
    assert not fresh.exception and not fresh.error and "Layer 1, head 1" in texts(fresh)
    assert models.load_model(REPO).num_layers == 2


def test_a_link_to_a_model_not_installed_makes_no_request(hub, cache):
    for model in ("bert-base-chinese", CHINESE):
        at = open_link("embeddings", {"source": "hf", "model": model})
        assert not at.exception
        assert CHINESE in at.error[0].value  # one model, whichever id the link says
        assert [str(b.key) for b in at.button if str(b.key).startswith("download_")] == [f"download_{CHINESE}"]
    assert hub.requests == []


def test_old_and_new_ids_download_one_copy(hub, cache, tiny_files):
    hub.add(CHINESE, tiny_files)
    at = choose_model(open_page("embeddings", part="model"), "bert-base-chinese")
    download_button(at, CHINESE).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert sorted(hub.fetched()) == WANTED
    hub.requests.clear()
    at.text_input(key="emb_model").set_value(CHINESE).run()
    assert not at.error and hub.requests == [] and f"**{CHINESE}**" in texts(at)
    assert [p.name for p in cache.iterdir() if p.name.startswith("models--")] == ["models--google-bert--bert-base-chinese"]


@pytest.mark.parametrize("lang, said", [
    ("en", "The model could not be downloaded: this server cannot reach the model hub."),
    ("zh", "无法下载该模型：此服务器连不上模型仓库。")])
def test_an_unreachable_hub_is_said_in_plain_words(hub, cache, lang, said):
    at = choose_model(open_page("embeddings", lang), REPO)
    hub.stop()
    download_button(at, REPO).click().run()
    assert not at.exception
    message = at.error[-1].value
    assert message == said
    page = texts(at) + "\n".join(str(s.label) for s in at.get("status"))
    assert hub.url not in page and "127.0.0.1" not in page and "Errno" not in page and "Connect" not in page


def test_the_chinese_model_offered_to_a_chinese_learner_downloads_on_its_button(hub, cache, tiny_files):
    """早上好 in MiniLM is mostly [UNK]: the page offers the Chinese model, and its download (no request before)."""
    hub.add(CHINESE, tiny_files)
    at = open_page("embeddings", "zh", part="model")  # the model's heads, where 早上好 is met as [UNK]
    offer = next(b for b in at.button if str(b.key).startswith("use_chinese_"))
    offer.click().run()
    assert not at.exception and hub.requests == []
    assert any("约 412.0 MB" in i.value for i in at.info)  # the size and time, before the download button
    assert any("约 412.0 MB，按每秒 10 MB 约需 41 秒" in i.value and "可以从模型仓库下载" in i.value for i in at.info)
    download_button(at, CHINESE).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert sorted(hub.fetched()) == WANTED
    assert f"**{CHINESE}**" in texts(at)  # its heads are on the page now


@pytest.mark.parametrize("opt_in", [False, True])
def test_hosted_demo_downloads_only_when_the_host_opts_in(hub, cache, monkeypatch, tiny_files, opt_in):
    monkeypatch.setenv(models.HOSTED_ENV, "1")
    if opt_in:
        monkeypatch.setenv(prefetch.ALLOW_DOWNLOADS_ENV, "1")
    else:
        monkeypatch.delenv(prefetch.ALLOW_DOWNLOADS_ENV, raising=False)
    hub.add(CHINESE, tiny_files)
    at = open_link("embeddings", {"source": "hf", "model": "bert-base-chinese", "lang": "zh"})
    assert not at.exception
    assert at.selectbox(key="emb_model").value == CHINESE  # the old id in the link picks the new one
    buttons = [str(b.key) for b in at.button if str(b.key).startswith("download_")]
    if not opt_in:
        assert at.error[0].value.startswith(f"此演示只提供本服务器上已安装的模型，“{CHINESE}”不在其中。")
        assert buttons == [] and "不会下载任何东西" in at.selectbox(key="emb_model").help
        assert hub.requests == []
        return
    assert buttons == [f"download_{CHINESE}"] and hub.requests == []
    download_button(at, CHINESE).click().run()
    assert not at.exception and not at.error and sorted(hub.fetched()) == WANTED


def test_a_pickle_only_model_is_refused_on_the_click_before_anything_is_fetched(hub, cache):
    from tests.fakehub import PICKLE_REPO

    at = choose_model(open_page("embeddings"), PICKLE_REPO)
    assert not at.exception and hub.requests == []
    download_button(at, PICKLE_REPO).click().run()
    assert not at.exception
    assert any("safetensors" in e.value for e in at.error)  # why it cannot be downloaded
    assert hub.fetched() == []
