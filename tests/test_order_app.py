"""Sentence embeddings, "same words, another order", in AppTest: static vectors only move, contextual ones change."""

import numpy as np
import pytest
import torch

from selfattn import embed
from selfattn.core.attention import unit_rows
from tests.apptest import heatmap_specs, open_link, open_page, shown


def all_maps(at) -> list[np.ndarray]:
    """The view's six weight maps (the last six of the page): for static, then contextual vectors, the first
    sentence's, the first's permuted (P A Pᵀ) and the second's."""
    out = []
    for spec in heatmap_specs(at)[-6:]:
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


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_default_pair_static_only_moves_contextual_changes(lang):
    at = open_page("embeddings", lang, timeout=300)
    assert not at.exception
    static_a, static_b, ctx_a, ctx_b = maps(at)
    a, b = embed("狗咬人", "charvec"), embed("人咬狗", "charvec")  # the page's "auto" for Chinese
    np.testing.assert_allclose(static_a, weights(a.vectors), rtol=0, atol=1e-15)
    np.testing.assert_allclose(static_b, weights(b.vectors), rtol=0, atol=1e-15)
    np.testing.assert_allclose(static_b, static_a[[2, 1, 0]][:, [2, 1, 0]], rtol=0, atol=1e-15)  # P A Pᵀ
    ca, cb = embed("狗咬人", "minilm", kind="contextual"), embed("人咬狗", "minilm", kind="contextual")
    np.testing.assert_allclose(ctx_a, weights(ca.vectors), rtol=0, atol=1e-12)
    order = [2, 0, 1]  # MiniLM reads [UNK] [UNK] 人 and 人 [UNK] [UNK]: matched in turn
    gap = np.abs(weights(cb.vectors) - weights(ca.vectors)[order][:, order]).max()
    successes, warnings = view_alerts(at)
    assert len(successes) == 1 and len(warnings) == 1
    assert f"{gap:.2g}" in warnings[0] and gap > 1e-3
    if lang == "zh":
        assert "静态向量" in " ".join(s.value for s in at.subheader) and "只是换了位置" in successes[0]
    else:
        assert "Static vectors" in " ".join(s.value for s in at.subheader)
    assert any("狗 咬" in shown(i.value) for i in at.info)  # MiniLM lacks them, and the page says so
    moved = all_maps(at)
    np.testing.assert_array_equal(moved[1], static_a[[2, 1, 0]][:, [2, 1, 0]])  # P A Pᵀ drawn between the two
    np.testing.assert_array_equal(moved[4], ctx_a[order][:, order])


def test_dog_bites_man_from_its_button_and_in_the_link():
    at = open_page("embeddings", timeout=300)
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
    code = next(c.value for c in at.code if c.value.startswith("/embeddings"))
    assert "oa=dog+bites+man" in code and "ob=man+bites+dog" in code
    again = open_link("embeddings", {"oa": "dog bites man", "ob": "man bites dog"}, timeout=300)
    assert not again.exception and not [w for w in again.warning if "not used" in w.value]
    for mine, theirs in zip(maps(again), maps(at)):
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("lang, words", [("en", "only in the first: dog; only in the second: cat"),
                                         ("zh", "只在第一句中有 dog；只在第二句中有 cat")])
def test_not_the_same_tokens_is_said_and_the_last_good_view_kept(lang, words):
    at = open_link("embeddings", {"oa": "dog bites man", "ob": "man bites dog", "lang": lang}, timeout=300)
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
    at = open_link("embeddings", {"oa": long, "ob": long}, timeout=300)
    assert not at.exception
    assert any("at most 16 tokens" in shown(e.value) for e in at.error)
