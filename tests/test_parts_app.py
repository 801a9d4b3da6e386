"""Long pages in parts (issue 52, ui/parts.py): only the open part's body runs, the part is in the link, and the
"next part" button walks the whole, in both languages.

A closed part must run nothing: each test below replaces the work of every other part with a function that raises,
so the test fails the moment a closed part's body runs, and checks that no element of another part is on the page.
"""

from __future__ import annotations

import pytest

from selfattn.i18n import t
from support.apptest import open_folded, open_link, open_page, open_part
from tests import fuzz
from ui import parts

PAGES = {  # page: (part setting, catalog prefix, parts in order)
    "heads": ("hd_part", "hd", ("compare", "check", "bench")),
    "seq2seq": ("s2s_part", "s2s", ("pass", "generation")),  # the toy's; the translator's below
    "embeddings": ("emb_part", "emb", ("raw", "model", "order")),
    "block": ("tb_part", "tb", ("layer", "stack", "batch")),  # the toy's; the real model's layer is one section
}


def part_of(at, page: str) -> str:
    key, _, ids = PAGES[page]
    return at.session_state[key] if key in at.session_state else ids[0]


def forbid(monkeypatch, module, *names: str) -> None:
    """Make each function ``module.<name>`` raise: a part that calls one fails its test."""
    for name in names:
        def ran(*args, _name=name, **kwargs):
            raise AssertionError(f"{module.__name__}.{_name} ran while its part was closed")
        monkeypatch.setattr(module, name, ran)


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_next_button_walks_every_part_in_order_and_the_last_leads_back_to_the_first(page, lang):
    key, prefix, ids = PAGES[page]
    at = open_page(page, lang)
    assert part_of(at, page) == ids[0]  # a newcomer sees the first part
    names = [t(f"{prefix}.part_{i}", lang) for i in ids]
    for i, part in enumerate(ids):
        assert part_of(at, page) == part
        assert at.session_state[parts.tabs_key(key)] == f"{i + 1} · {names[i]}"  # the tab bar marks it
        button = at.button(key=parts.next_key(key))
        following = ids[(i + 1) % len(ids)]
        assert names[(i + 1) % len(ids)] in button.label
        captions = "\n".join(c.value for c in at.caption)
        if i + 1 < len(ids):
            assert t("parts.where", lang, i=i + 1, n=len(ids)) in captions
        else:
            assert t("parts.last", lang, n=len(ids)) in captions
        button.click().run()
        assert not at.exception, [e.value for e in at.exception]
        assert part_of(at, page) == following


@pytest.mark.parametrize("page", PAGES)
def test_the_part_round_trips_in_the_link_and_a_link_without_one_opens_the_first(page):
    key, _, ids = PAGES[page]
    for part in ids:
        at = open_link(page, {"part": part})
        assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
        assert part_of(at, page) == part
        assert fuzz.link_params(at).get("part", ids[0]) == part  # the sidebar's link names it (not the first)
        again = open_link(page, fuzz.link_params(at))
        assert part_of(again, page) == part and fuzz.link_query(again) == fuzz.link_query(at)
    at = open_link(page, {"lang": "zh"})  # an old link: no part
    assert part_of(at, page) == ids[0] and "part" not in fuzz.link_params(at)
    bad = open_link(page, {"part": "nowhere"})
    assert part_of(bad, page) == ids[0] and fuzz.ignored_warning(bad)  # named as not used, in words


@pytest.mark.parametrize("page", PAGES)
def test_a_language_switch_keeps_the_open_part(page):
    key, prefix, ids = PAGES[page]
    at = open_page(page, part=ids[-1])
    at.session_state["lang"] = "zh"
    at.run()
    assert part_of(at, page) == ids[-1]
    assert at.session_state[parts.tabs_key(key)] == f"{len(ids)} · {t(f'{prefix}.part_{ids[-1]}', 'zh')}"


def test_heads_closed_parts_run_nothing(monkeypatch):
    from ui.heads import page as hd

    forbid(monkeypatch, hd, "torch_checks", "show_bare_reshape", "show_scale_after_softmax", "bench_settings",
           "results_table", "show_setups")
    at = open_page("heads")  # the comparison alone
    assert at.get("vega_lite_chart") or at.get("arrow_vega_lite_chart")
    assert not at.metric and not at.dataframe and not at.get("file_uploader")
    assert [b.key for b in at.button] == [parts.next_key("hd_part")]  # no Run button: the benchmark did not run
    monkeypatch.undo()

    from selfattn.core import compare as core
    forbid(monkeypatch, hd, "input_matrix", "torch_checks")  # the comparison and the checks
    forbid(monkeypatch, core, "mistake")
    at = open_page("heads", part="bench")
    assert at.button(key="hd_run") and not at.get("file_uploader") and not at.metric  # the upload's box folded
    assert not at.get("vega_lite_chart") or all("seq_len" in c.proto.spec for c in at.get("vega_lite_chart"))


def test_embeddings_closed_parts_run_nothing(monkeypatch):
    """Each part of the Sentence embeddings page alone: the others' work (the raw form's views, the model's run and
    its readout, the word-order comparison) raises if called, and none of their widgets or headings is drawn."""
    from ui import models as cached
    from ui.embeddings import order, readout

    others = {"raw": [(cached, "model_run"), (readout, "controls"), (readout, "view_block"), (order, "compute")],
              "model": [(cached, "raw_view"), (order, "compute")],
              "order": [(cached, "raw_view"), (cached, "model_run"), (readout, "controls")]}
    own_keys = {"raw": "dl_raw1_X", "model": "dl_head_map", "order": "order_pair_狗咬人"}
    for part, forbidden in others.items():
        for module, name in forbidden:
            forbid(monkeypatch, module, name)
        at = open_page("embeddings", part=part, timeout=300)
        found = {str(getattr(w, "key", None) or getattr(getattr(w, "proto", None), "id", ""))
                 for w in fuzz.everything(at)}
        drawn = {p for p, key in own_keys.items() if any(key in k for k in found)}
        assert drawn == {part}, (part, drawn)
        number = PAGES["embeddings"][2].index(part) + 1
        assert [h.value[:4] for h in at.header] == [f"{number} · "], (part, [h.value for h in at.header])
        monkeypatch.undo()


def test_seq2seq_closed_parts_run_nothing(monkeypatch):
    """The toy's whole-sentence pass draws no generation (its cost chart is never worked out), and the generation
    part no pass (no step written out, no preview engine); the translator's three parts likewise."""
    from selfattn.seq2seq import text
    from selfattn.translate import explain
    from support.apptest import step_maps
    from ui.seq2seq import page as s2

    forbid(monkeypatch, text, "cost_spec", "cost_numbers")
    at = open_page("seq2seq")
    drawn = set(step_maps(at))
    assert {"s2s_memory", "s2s_d1_self1", "s2s_d1_cross1", "s2s_outputs"} <= drawn
    assert not any(key.startswith(("s2s_cache_", "s2s_step_")) for key in drawn)
    assert not {"s2s_next", "s2s_play"} & {b.key for b in at.button}
    monkeypatch.undo()

    forbid(monkeypatch, text, "focus_lines")
    forbid(monkeypatch, s2, "preview_engine")
    at = open_page("seq2seq", part="generation")
    drawn = set(step_maps(at))
    assert drawn and all(key.startswith(("s2s_cache_", "s2s_step_")) for key in drawn), drawn
    assert {"s2s_next", "s2s_play"} <= {b.key for b in at.button}
    monkeypatch.undo()

    others = {"pass": ("next_words", "loss_spec", "sharpening"),
              "generation": ("alignment_note", "loss_spec", "sharpening"),
              "learned": ("next_words", "alignment_note")}
    for part, names in others.items():
        forbid(monkeypatch, explain, *names)
        at = open_link("seq2seq", {"source": "translator", "part": part})
        assert not at.exception, [e.value for e in at.exception]
        assert at.session_state["s2s_part"] == part
        drawn = set(step_maps(at))
        assert ("s2t_memory" in drawn) == (part == "pass") and ("s2t_cache_k_l1" in drawn) == (part == "generation")
        assert ("s2t_ckpt_l1h1" in drawn) == (part == "learned"), drawn
        monkeypatch.undo()


def test_the_translator_s_parts_round_trip_and_a_closed_part_s_settings_stay_in_the_link():
    for part in ("pass", "generation", "learned"):
        at = open_link("seq2seq", {"source": "translator", "part": part, "text": "狗咬人", "tstep": "2"})
        params = fuzz.link_params(at)
        assert at.session_state["s2s_part"] == part and params.get("part", "pass") == part
        assert params["text"] == "狗咬人" and params["tstep"] == "2" and params["source"] == "translator"
        again = open_link("seq2seq", params)
        assert again.session_state["s2s_part"] == part and fuzz.link_query(again) == fuzz.link_query(at)
    # the toy: a step picked in generation, then the pass opened and the page rerun, keeps the step in the link
    at = open_page("seq2seq", part="generation")
    at.button(key="s2s_next").click().run()
    at.button(key="s2s_next").click().run()
    assert at.session_state["s2s_step"] == 2
    at.button(key=parts.next_key("s2s_part")).click().run()  # back to the first part
    at.run()
    at.run()
    assert at.session_state["s2s_part"] == "pass" and fuzz.link_params(at)["step"] == "3"
    assert "part" not in fuzz.link_params(at)  # the first part: no parameter


def test_block_closed_parts_run_nothing(monkeypatch):
    """Each part of the Transformer block page alone, with a stack and a batch to draw: the others' work (the layer's
    flow and LayerNorms written out, the stack's similarity chart, the batch's lines) raises if called, and none of
    their maps or editors is drawn."""
    from selfattn.block import text
    from support.apptest import editors, step_maps
    from ui.block import page as tb

    others = {"layer": [(text, "similarity_spec"), (tb, "similarity_caption"), (text, "batch_lines")],
              "stack": [(tb, "draw_flow"), (tb, "draw_norms"), (tb, "editor"), (text, "batch_lines")],
              "batch": [(tb, "draw_flow"), (tb, "draw_norms"), (tb, "editor"), (text, "similarity_spec")]}
    own = {"layer": "tb_layer1_input", "stack": "tb_stack1", "batch": "tb_batch_mask"}
    for part, forbidden in others.items():
        for module, name in forbidden:
            forbid(monkeypatch, module, name)
        at = open_link("block", {"layers": "2", "batch": "1", "part": part})
        assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
        assert at.session_state["tb_part"] == part
        drawn = set(step_maps(at))
        assert {p for p, key in own.items() if key in drawn} == {part}, (part, drawn)
        assert all(k.startswith("tb_layer") for k in drawn) == (part == "layer"), drawn
        assert bool(editors(at)) == (part == "layer"), part  # X and the weights are edited in the first part
        monkeypatch.undo()


@pytest.mark.parametrize("at_, part", [("settings", "layer"), ("x", "layer"), ("steps", "layer"), ("norm", "layer"),
                                       ("stack", "stack"), ("batch", "batch"), ("export", "layer")])
def test_an_old_block_link_to_a_place_opens_the_part_that_holds_it(at_, part):
    """Links written before the block page was in parts said at=<place> (the "Jump to" box): the part holding that
    place opens, the link is then written with part=, and at= is not called unknown."""
    at = open_link("block", {"layers": "2", "batch": "1", "at": at_})
    assert not at.exception and not fuzz.ignored_warning(at), [w.value for w in at.warning]
    assert at.session_state["tb_part"] == part
    params = fuzz.link_params(at)
    assert "at" not in params and params.get("part", "layer") == part and params["layers"] == "2"


def test_an_old_block_link_with_a_place_it_never_had_opens_the_first_part_and_says_so():
    at = open_link("block", {"at": "nowhere"})
    assert at.session_state["tb_part"] == "layer" and fuzz.ignored_warning(at)
    assert "`at`" in fuzz.ignored_warning(at)
    both = open_link("block", {"at": "batch", "part": "stack"})  # a part named too wins
    assert both.session_state["tb_part"] == "stack" and not fuzz.ignored_warning(both)


def test_block_with_one_layer_its_stack_part_says_how_to_get_a_stack_and_makes_one():
    at = open_page("block", part="stack")
    assert any(i.value == t("tb.stack_one", "en") for i in at.info)
    assert not any(s.value.startswith(t("tb.stack_title", "en", layers=2)[:5]) for s in at.subheader)
    at.button(key="tb_stack_make").click().run()
    assert not at.exception and at.session_state["tb_layers"] == 2 and at.session_state["tb_part"] == "stack"
    from support.apptest import step_maps
    assert {"tb_stack1", "tb_stack2"} <= set(step_maps(at)) and not at.info
    assert fuzz.link_params(at)["layers"] == "2"


@pytest.mark.parametrize("page, part, panel, made", [
    ("playground", None, "pg_import_panel", lambda at: at.get("file_uploader") and at.selectbox(key="pg_upload_target")),
    ("heads", "bench", "hd_upload_panel", lambda at: at.get("file_uploader") and at.multiselect(key="hd_bundled")),
    ("efficient", None, "ef_qkv_panel", lambda at: {b.proto.id.rsplit("-", 1)[-1] for b in at.get("download_button")}
     >= {"dl_ef_Q", "dl_ef_K", "dl_ef_V", "dl_ef_outputs"}),
    ("seq2seq", {"source": "translator", "part": "learned"}, "s2s_train_panel",
     lambda at: at.get("slider") and at.selectbox(key="s2s_train_d") and at.button(key="s2s_train_go")),
])
def test_a_folded_box_makes_its_body_only_once_opened(page, part, panel, made):
    """Issue 52: a collapsed expander's body runs only while it is open (ui.widgets.folded): closed, an open of the
    page makes no uploader, chooser, table or CSV of it; a click on its header makes them, and the box says open, and
    still does after a language switch (found closing on the Playground's shuffle)."""
    at = open_link(page, part) if isinstance(part, dict) else open_page(page, part=part)  # a dict: a link's params
    assert not at.exception
    header = [e for e in at.main.expander if e.proto.id.endswith(f"-{panel}")]
    assert len(header) == 1 and not header[0].proto.expanded  # its header is drawn, closed
    assert not made(at)
    open_folded(at, panel)
    assert not at.exception and made(at)
    assert [e.proto.expanded for e in at.main.expander if e.proto.id.endswith(f"-{panel}")] == [True]
    at.radio(key="lang").set_value("zh").run()  # relabelled, Streamlit makes the box anew: it stays as left, open
    assert not at.exception and made(at)
    assert [e.proto.expanded for e in at.main.expander if e.proto.id.endswith(f"-{panel}")] == [True]


def test_the_translator_s_sentence_outlives_a_switch_to_the_toy_and_a_rerun():
    """A setting whose widget comes and goes (the translator's sentence, drawn on its source only) keeps what the
    visitor typed: Streamlit kept the default put under the key on the page's first open (the toy's closed settings)
    behind the widget's own value, and showed it again once it dropped the widget: 早上好 came back a rerun after the
    switch to the toy, in the link and in the box (found by tests/test_fuzz_seq2seq.py)."""
    def source(at, name):
        [w for w in at.get("button_group") if (w.key or "").startswith("s2s_source")][0].set_value(name).run()

    at = open_page("seq2seq")  # the toy first: its closed settings are put, the sentence among them
    source(at, "translator")
    at.text_input(key="s2s_text").set_value("人咬狗").run()
    source(at, "toy")
    at.run()
    assert fuzz.link_params(at).get("text") == "人咬狗", fuzz.link_params(at)
    source(at, "translator")
    assert not at.exception and at.text_input(key="s2s_text").value == "人咬狗"
