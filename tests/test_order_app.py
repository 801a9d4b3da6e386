"""Sentence embeddings, "same words, another order", in AppTest: static vectors only move, contextual ones change."""

import re

import numpy as np
import pytest
import torch

from selfattn import embed
from selfattn.core.attention import unit_rows
from support.apptest import heatmap_specs, open_link, open_page, shown, sidebar_link


def all_maps(at, n: int = 6) -> list[np.ndarray]:
    """The view's last ``n`` weight maps (the last of the page): for static, then contextual vectors, the first
    sentence's, the first's permuted (P A Pᵀ) and the second's."""
    out = []
    for spec in heatmap_specs(at)[-n:]:
        cells = spec["data"]["values"]
        m = np.zeros((max(c["r"] for c in cells) + 1, max(c["c"] for c in cells) + 1))
        for c in cells:
            m[c["r"], c["c"]] = c["v"]
        out.append(m)
    return out


def maps(at) -> list[np.ndarray]:
    """Static first, static second, contextual first, contextual second."""
    out = all_maps(at)
    return [out[0], out[2], out[3], out[5]]


def weights(x: np.ndarray) -> np.ndarray:
    """Softmax(UUᵀ) of the unit-length rows, by torch: part 1's defaults (unit length on, ÷√d off)."""
    u = torch.from_numpy(unit_rows(x))
    return torch.softmax(u @ u.T, dim=-1).numpy()


def view_alerts(at) -> tuple[list[str], list[str]]:
    return [shown(s.value) for s in at.success], [shown(i.value) for i in at.info if "Not only moved" in i.value
                                                  or "不只是换了位置" in i.value]


def orders(at) -> list[str]:
    """The permutations the view states, one per kind of vectors (the bold numbers)."""
    return [re.search(r"\*\*([0-9 ]+)\*\*", shown(m.value)).group(1) for m in at.markdown
            if "$P$" in m.value and "**" in m.value]


CANNOT = {"en": ("all-MiniLM-L6-v2 cannot show this for this pair", "狗 and 咬 as one and the same token, [UNK]"),
          "zh": ("all-MiniLM-L6-v2 无法用这一对句子展示这一点", "把狗和咬都读成同一个词元 [UNK]")}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_default_pair_is_3_2_1_and_minilm_says_it_cannot_show_it(lang, monkeypatch):
    """狗咬人 / 人咬狗: the order by the characters typed (3 2 1, not MiniLM's [UNK] matched in turn, 3 1 2); the
    character vectors show the lesson; MiniLM, which reads 狗 and 咬 as one [UNK], says it cannot, and leads to a
    Chinese model (its download, the prefetch command, a mirror)."""
    from selfattn.text import prefetch
    from ui.models import CHINESE_MODEL

    monkeypatch.setattr(prefetch, "cached_folder", lambda spec: None)  # bert-base-chinese is not on this machine
    at = open_page("embeddings", lang, timeout=300, part="order")
    assert not at.exception
    assert orders(at) == ["3 2 1", "3 2 1"]  # static and contextual: the same sentences, the same order
    static_a, moved, static_b = all_maps(at, 3)  # the static maps are the view's last: MiniLM's are not drawn
    a, b = embed("狗咬人", "charvec"), embed("人咬狗", "charvec")  # the page's "auto" for Chinese
    np.testing.assert_allclose(static_a, weights(a.vectors), rtol=0, atol=1e-15)
    np.testing.assert_allclose(static_b, weights(b.vectors), rtol=0, atol=1e-15)
    np.testing.assert_allclose(static_b, static_a[[2, 1, 0]][:, [2, 1, 0]], rtol=0, atol=1e-15)  # P A Pᵀ
    np.testing.assert_array_equal(moved, static_a[[2, 1, 0]][:, [2, 1, 0]])
    successes, changed = view_alerts(at)
    assert len(successes) == 1 and not changed  # no conclusion drawn from MiniLM's [UNK]s
    cannot = [shown(w.value) for w in at.warning if CANNOT[lang][0] in shown(w.value)]
    assert len(cannot) == 1 and CANNOT[lang][1] in cannot[0]
    offer = [shown(i.value) for i in at.info if "python -m selfattn.text.prefetch bert-base-chinese" in i.value]
    assert len(offer) == 1  # this view's, where [UNK] is met (part 2, closed, offers it for its own sentence)
    assert all("HF_ENDPOINT" in o and ("镜像" if lang == "zh" else "mirror") in o for o in offer)
    lead = "上面的静态向量是汉字向量" if lang == "zh" else "the static vectors above are the Chinese character vectors"
    assert sum(lead in o for o in offer) == 1
    at.button(key="order_use_chinese_model").click().run()  # the way to a Chinese model's heads
    assert at.session_state["emb_source"] == "hf" and at.session_state["emb_model"] == CHINESE_MODEL


def test_minilm_static_vectors_give_way_to_the_character_vectors_and_say_why():
    at = open_link("embeddings", {"part": "order", "source": "minilm"}, timeout=300)
    assert not at.exception
    assert orders(at) == ["3 2 1", "3 2 1"]
    instead = [shown(i.value) for i in at.info if "The static vectors here are the" in i.value]
    assert len(instead) == 1 and CANNOT["en"][1] in instead[0] and "character vectors" in instead[0]
    static_a, _, static_b = all_maps(at, 3)
    np.testing.assert_allclose(static_a, weights(embed("狗咬人", "charvec").vectors), rtol=0, atol=1e-15)
    assert sum(CANNOT["en"][0] in shown(w.value) for w in at.warning) == 1  # the contextual MiniLM vectors


def test_characters_no_vectors_know_are_said_for_both_kinds_and_only_a_chinese_model_is_offered(monkeypatch):
    """龘靐人 / 人靐龘: neither the character vectors nor MiniLM have 龘 or 靐 (both zero, both [UNK]): the order by
    text is still 3 2 1; both kinds say they cannot show it; the way offered is a Chinese model, once."""
    from selfattn.text import prefetch

    monkeypatch.setattr(prefetch, "cached_folder", lambda spec: None)
    at = open_link("embeddings", {"part": "order", "oa": "龘靐人", "ob": "人靐龘", "lang": "zh"}, timeout=300)
    assert not at.exception and not at.error
    assert orders(at) == ["3 2 1", "3 2 1"]
    cannot = [shown(w.value) for w in at.warning if "无法用这一对句子展示这一点" in w.value]
    assert len(cannot) == 2 and all("把龘和靐都读成同一个词元 [UNK]" in c for c in cannot)
    assert not at.success and not view_alerts(at)[1]  # nothing concluded
    offer = [shown(i.value) for i in at.info if "想用中文看到这一点" in i.value]
    assert len(offer) == 1 and "请使用用中文训练的模型" in offer[0] and "汉字向量" not in offer[0]
    assert at.button(key="order_use_chinese_model")


def test_an_english_pair_states_its_true_permutation():
    """the dog bites the man / the man bites the dog: 1 5 3 4 2 (the two "the" matched in turn)."""
    first, second = "the dog bites the man", "the man bites the dog"
    at = open_link("embeddings", {"part": "order", "oa": first, "ob": second}, timeout=300)
    assert not at.exception and not at.error
    assert orders(at) == ["1 5 3 4 2", "1 5 3 4 2"]
    order = [0, 4, 2, 3, 1]
    sa, sb = embed(first, "minilm"), embed(second, "minilm")
    assert sb.tokens == [sa.tokens[i] for i in order]
    static_a, _, static_b, ctx_a, _, ctx_b = all_maps(at)
    np.testing.assert_allclose(static_b, static_a[order][:, order], rtol=0, atol=1e-15)
    ca, cb = embed(first, "minilm", kind="contextual"), embed(second, "minilm", kind="contextual")
    gap = np.abs(weights(cb.vectors) - weights(ca.vectors)[order][:, order]).max()
    successes, changed = view_alerts(at)
    assert len(successes) == 1 and len(changed) == 1 and f"{gap:.2g}" in changed[0] and gap > 1e-3


def test_dog_bites_man_from_its_button_and_in_the_link():
    at = open_page("embeddings", timeout=300, part="order")
    at.button(key="order_pair_dog bites man").click().run()
    assert not at.exception
    static_a, static_b, ctx_a, ctx_b = maps(at)
    sa, sb = embed("dog bites man", "minilm"), embed("man bites dog", "minilm")  # "auto" for English: MiniLM
    np.testing.assert_allclose(static_a, weights(sa.vectors), rtol=0, atol=1e-15)
    np.testing.assert_allclose(static_b, static_a[[2, 1, 0]][:, [2, 1, 0]], rtol=0, atol=1e-15)
    ca, cb = embed("dog bites man", "minilm", kind="contextual"), embed("man bites dog", "minilm", kind="contextual")
    gap = np.abs(weights(cb.vectors) - weights(ca.vectors)[[2, 1, 0]][:, [2, 1, 0]]).max()
    successes, warnings = view_alerts(at)
    assert len(successes) == 1 and len(warnings) == 1 and f"{gap:.2g}" in warnings[0]
    assert any("order **3 2 1**" in shown(m.value) for m in at.markdown)
    code = sidebar_link(at)
    assert code.startswith("/embeddings"), code
    assert "oa=dog+bites+man" in code and "ob=man+bites+dog" in code and "part=order" in code
    again = open_link("embeddings", {"part": "order", "oa": "dog bites man", "ob": "man bites dog"}, timeout=300)
    assert not again.exception and not [w for w in again.warning if "not used" in w.value]
    for mine, theirs in zip(maps(again), maps(at)):
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("lang, words", [("en", "only in the first: dog; only in the second: cat"),
                                         ("zh", "只在第一句中有 dog；只在第二句中有 cat")])
def test_not_the_same_tokens_is_said_and_the_last_good_view_kept(lang, words):
    at = open_link("embeddings", {"part": "order", "oa": "dog bites man", "ob": "man bites dog", "lang": lang}, timeout=300)
    before = maps(at)
    at.text_input(key="emb_order_b").set_value("man bites cat").run()
    assert not at.exception
    errors = [shown(e.value) for e in at.error]
    assert len(errors) == 1 and words in errors[0]
    for mine, theirs in zip(maps(at), before):
        np.testing.assert_array_equal(mine, theirs)


def test_hosted_the_view_takes_at_most_16_tokens(monkeypatch):
    monkeypatch.setenv("SELFATTN_HOSTED", "1")
    long = " ".join(["dog"] * 17)
    at = open_link("embeddings", {"part": "order", "oa": long, "ob": long}, timeout=300)
    assert not at.exception
    assert any("at most 16 tokens" in shown(e.value) for e in at.error)
