"""The Encoder–decoder page (and the Transformer block page's preset box, the home page) say what is true of what is
on screen, in both languages (issue 50): the preset box and note follow every option and say "custom" once the
settings are no preset's; the words of the maps, the cost chart and the code boxes are those of what is drawn; the
home page says where to start, the translator one click away.
"""

from __future__ import annotations

import re

import pytest

from selfattn.i18n import t_plain
from support.apptest import choice_widget, open_link, open_page, open_part, step_maps, texts
from tests.seq2seqpage import ok, opened, pick

LANGS = ("en", "zh")


def preset_box(at, key: str = "s2s_preset") -> tuple[str, str]:
    """(the preset box's value, the name it shows)."""
    box = choice_widget(at.selectbox, key)
    return box.value, box.options[box.index]


def captions(at) -> str:
    return "\n".join(str(c.value) for c in at.caption)


@pytest.mark.parametrize("lang", LANGS)
def test_the_preset_box_and_note_follow_every_option_and_say_custom(lang):
    """The review: /seq2seq?norm=pre kept "Vaswani et al. (post-LN, ReLU)" and its note "The original Transformer's
    order (2017) … ReLU" with Pre-LN selected just below."""
    def note(name):
        return t_plain(f"s2s.preset_{name}_note", lang)

    custom = t_plain("s2s.preset_custom_note", lang, preset="\x00", names="").split("\x00")[0]
    at = open_link("seq2seq", {"norm": "pre", "lang": lang})
    ok(at)
    assert preset_box(at) == ("custom", t_plain("s2s.preset_custom", lang))
    assert note("vaswani") not in captions(at) and custom in captions(at)
    assert t_plain("s2s.preset_custom_note", lang, preset=t_plain("s2s.preset_vaswani", lang),
                   names=t_plain("s2s.norm", lang)) in captions(at), captions(at)
    pick(at, "selectbox", "s2s_act", "gelu")  # now every setting is the Pre-LN preset's
    assert preset_box(at) == ("prenorm", t_plain("s2s.preset_prenorm", lang))
    assert note("prenorm") in captions(at) and custom not in captions(at)
    pick(at, "segmented_control", "s2s_norm", "post")
    assert preset_box(at)[0] == "custom" and note("prenorm") not in captions(at)
    pick(at, "selectbox", "s2s_act", "relu")  # back to the Vaswani preset's settings
    assert preset_box(at) == ("vaswani", t_plain("s2s.preset_vaswani", lang)) and note("vaswani") in captions(at)
    at.number_input(key="s2s_dec").set_value(2).run()
    assert preset_box(at)[0] == "custom"
    at.button(key="s2s_load").click().run()  # reload while custom: the nearest preset
    ok(at)
    assert preset_box(at)[0] == "vaswani" and at.session_state["s2s_dec"] == 1


def test_a_link_with_the_pre_ln_preset_s_settings_opens_that_preset_and_custom_travels_in_the_link():
    at = open_link("seq2seq", {"norm": "pre", "act": "gelu"})
    ok(at)
    assert preset_box(at)[0] == "prenorm"
    assert t_plain("s2s.preset_vaswani_note", "en") not in captions(at)
    at = open_link("seq2seq", {"preset": "custom", "heads": "1"})
    ok(at)
    assert preset_box(at)[0] == "custom" and not at.warning


@pytest.mark.parametrize("lang", LANGS)
def test_the_block_page_s_preset_box_and_note_say_custom_once_a_setting_differs(lang):
    at = open_link("block", {"lang": lang})
    assert preset_box(at, "tb_preset")[0] == "tiny"
    pick(at, "selectbox", "tb_preset", "gpt2")
    assert preset_box(at, "tb_preset")[0] == "gpt2" and t_plain("tb.preset_gpt2_note", lang) in texts(at)
    pick(at, "segmented_control", "tb_norm", "post")
    assert preset_box(at, "tb_preset") == ("custom", t_plain("tb.preset_custom", lang))
    assert t_plain("tb.preset_gpt2_note", lang) not in texts(at)
    assert t_plain("tb.preset_custom_note", lang, preset=t_plain("tb.preset_gpt2", lang),
                   names=t_plain("tb.norm", lang)) in texts(at), texts(at)
    pick(at, "segmented_control", "tb_norm", "pre")
    assert preset_box(at, "tb_preset")[0] == "gpt2" and t_plain("tb.preset_gpt2_note", lang) in texts(at)


def test_the_chinese_home_page_claims_no_bit_for_bit_agreement():
    """The review: "结果与 PyTorch 逐位核对" while every check shows differences like 4.4e-16."""
    at = open_page("home", "zh")
    page = texts(at)
    assert "逐位" not in page and "舍入" in page, page


@pytest.mark.parametrize("lang", LANGS)
def test_the_cost_caption_says_counted_not_timed_and_the_chinese_ratio_is_well_formed(lang):
    at = open_page("seq2seq", lang, part="generation")
    caption = next(c for c in captions(at).split("\n") if "selfattn.bench --kv-cache" in c)
    assert "Timed on this machine" not in caption and "本机计时" not in caption
    if lang == "en":
        assert "counted" in caption and "not timed" in caption, caption
        assert re.search(r"\d\.\d× fewer", caption), caption
    else:
        assert "不是计时" in caption and re.search(r"1/\d+\.\d", caption), caption
        assert not re.search(r"少 [\d.]+ 倍", caption), caption


@pytest.mark.parametrize("lang", LANGS)
def test_the_words_of_the_toy_are_those_of_what_is_drawn(lang):
    """The review: "Target token written out" read as "the token the decoder writes"; √d here, √d_k on the Playground;
    层规范化 / 残差与规范化; a literal **Head 1** in a code box; the V cache's columns named k1, k2; "1 encoder
    layer(s)"."""
    at = open_page("seq2seq", lang)
    ok(at)
    page = texts(at)
    focus = choice_widget(at.selectbox, "s2s_focus").label
    assert ("position" if lang == "en" else "位置") in focus and "written out" not in focus, focus
    assert "softmax(QKᵀ/√d_k)V" in page and "√d)" not in page
    if lang == "zh":
        assert "规范化" not in page and "层归一化" in page and "残差连接与层归一化（Add & Norm）" in page
    assert at.text and not [c.value for c in at.text if "**" in c.value]
    one = t_plain("s2s.memory_help_one", lang, layers=1)
    assert one in captions(at) and "(s)" not in captions(at)
    if lang == "en":
        assert "1 encoder layer (" in one
    at.number_input(key="s2s_enc").set_value(2).run()
    assert t_plain("s2s.memory_help", lang, layers=2) in captions(at)
    if lang == "en":
        assert "2 encoder layers" in captions(at)
    open_part(at, "seq2seq", "generation")
    maps = step_maps(at)
    assert maps["s2s_cache_keys1"]["cols"] == ["k1", "k2"] and maps["s2s_cache_values1"]["cols"] == ["v1", "v2"]


def test_the_translator_says_one_character_in_the_singular():
    at = opened("en", text="狗")
    assert "The encoder reads 1 character: 狗" in captions(at), captions(at)


@pytest.mark.parametrize("lang", LANGS)
def test_the_home_page_says_where_to_start_and_the_translator_is_one_click_away(lang):
    at = open_page("home", lang)
    page = texts(at)
    start = t_plain("home.start", lang)
    assert start in page
    order = [t_plain(key, lang) for key in ("nav.playground", "nav.block", "nav.seq2seq", "home.translator")]
    links = [(str(link.proto.label), link.proto.page, str(link.proto.query_string)) for link in at.get("page_link")]
    assert [label for label, _, _ in links[:4]] == order, links
    to_translator = [(page, query) for label, page, query in links if label == order[3]]
    assert len(to_translator) == 2 and all(query == "source=translator" and page == "seq2seq"
                                           for page, query in to_translator), links
    assert "translator" in t_plain("home.seq2seq", "en") and "翻译模型" in t_plain("home.seq2seq", "zh")


def test_the_link_to_the_translator_opens_it_also_after_the_toy_was_seen():
    """The page reads its link once a session; the home page's link to the translator must work the second time
    too (and a link with no source keeps the one the visitor left)."""
    at = open_link("seq2seq", {"source": "translator"})  # a first visit: the link is read
    ok(at)
    assert at.session_state["s2s_source"] == "translator"
    at.switch_page("pages/home.py").run()
    at.query_params.clear()
    at.switch_page("pages/seq2seq.py").run()  # the card's plain link: the source stays
    assert at.session_state["s2s_source"] == "translator"
    pick(at, "segmented_control", "s2s_source", "toy")
    at.switch_page("pages/home.py").run()
    at.query_params.clear()
    at.query_params["source"] = "translator"
    at.switch_page("pages/seq2seq.py").run()
    ok(at)
    assert at.session_state["s2s_source"] == "translator"
