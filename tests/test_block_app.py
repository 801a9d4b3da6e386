"""The Transformer block page in AppTest: it opens in both languages, every control changes what is shown, an edit
reaches the outputs and the link, the link opens the same view (settings, tables and ZIP), and bad input is named
in the visitor's language while the last good result stays.

Runs are shared: each test walks one session through many controls (a fresh AppTest costs ~3 s, a rerun ~0.2 s).
"""

from __future__ import annotations

import io
import zipfile
import pytest

from selfattn.block import view as tbv
from selfattn.i18n import t
from support.apptest import click_expander, editors, open_link, open_page, open_part, step_maps
from tests.blockpage import cells, check_line, errors, label, link, maps, number, ok, pick, send
from tests import fuzz

ZIP = "selfattn-block.zip"


# ── helpers ──────────────────────────────────────────────────────────────────────────────

def changed(at, do, *, what: str) -> None:
    """``do(at)`` changes the maps on the page (and leaves the check line)."""
    before = maps(at)
    do(at)
    ok(at)
    assert check_line(at), what
    assert maps(at) != before, f"{what} changed nothing shown"


# ── opening ──────────────────────────────────────────────────────────────────────────────

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_map_says_its_name_shape_and_caption_itself_as_plain_text(lang):
    """A map of the block's flow carries its title, shape and caption (``head``, drawn by ui/components/heatmap.js, as
    text) instead of a markdown title and caption beside it: the layer's 15 maps are 15 elements, not 60."""
    from selfattn.i18n import t_plain

    at = open_page("block", lang)
    drawn = step_maps(at)
    assert len(drawn) == 15 and all(set(m["head"]) == {"title", "shape", "note", "caption"} for m in drawn.values())
    head = drawn["tb_layer1_att1"]["head"]
    assert head["title"] == "③ " + t_plain("tb.head", lang, h=1) and head["shape"] == "4 × 4" and head["caption"]
    assert drawn["tb_layer1_att2"]["head"]["caption"] == ""  # the step's caption once, under its first head
    assert drawn["tb_layer1_ff_pre"]["head"]["shape"] == "4 × 8"
    titles = {m["head"]["title"] for m in drawn.values()}
    assert not any(title in str(m.value) for m in at.markdown for title in titles)  # not written twice
    assert not any(mark in title for title in titles for mark in ("**", "\\", "&nbsp;"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_opens_with_its_check_line(lang):
    at = open_page("block", lang)
    ok(at)
    assert at.title[0].value == t("tb.title", lang)
    line = check_line(at)
    assert line is not None and "TransformerEncoderLayer" in line
    diff = float(line.rsplit(" ", 1)[-1].rstrip(".。") if lang == "en" else line.split("：")[-1].split(" ")[-1].rstrip("。"))
    assert diff < 1e-12
    assert set(editors(at)) == {label(at, "x")}  # the weights' expander is closed: its editors are not made
    assert {"layer1_att1", "layer1_att2"} <= {k.removeprefix("tb_") for k in step_maps(at)}
    assert fuzz.link_query(at) == ("lang=zh" if lang == "zh" else "")


# ── every control ────────────────────────────────────────────────────────────────────────

def test_every_control_changes_what_is_shown():
    at = open_page("block")
    ok(at)
    # sizes
    changed(at, lambda a: number(a, "tb_seed", 3), what="seed")
    assert link(at)["seed"] == "3"
    changed(at, lambda a: number(a, "tb_n", 6), what="n")
    assert len(cells(at, "x")) == 6
    number(at, "tb_d", 6)
    ok(at)
    assert at.selectbox(key="tb_heads").options == ["1", "2", "3", "6"]  # divisors only
    number(at, "tb_d", 8)
    assert at.selectbox(key="tb_heads").options == ["1", "2", "4", "8"]
    assert len(cells(at, "x")[0]) == 8
    changed(at, lambda a: a.selectbox(key="tb_heads").set_value(4).run(), what="heads")
    assert {f"tb_layer1_att{h}" for h in range(1, 5)} <= set(step_maps(at))
    changed(at, lambda a: number(a, "tb_dff", 12), what="d_ff")
    assert len(cells(at, "1w1")[0]) == 12 and len(cells(at, "1w2")) == 12
    # options
    changed(at, lambda a: pick(a, "segmented_control", "tb_norm", "pre"), what="norm order")
    assert any(t("tb.chosen", "en") in m.value and t("tb.norm_pre", "en") in m.value for m in at.markdown)
    changed(at, lambda a: pick(a, "selectbox", "tb_act", "gelu"), what="activation")
    changed(at, lambda a: a.text_input(key="tb_eps").set_value("0.5").run(), what="eps")
    changed(at, lambda a: a.toggle(key="tb_causal").set_value(True).run(), what="causal")
    weights = step_maps(at)["tb_layer1_att1"]["cells"]
    assert all(weights[i][j] == "0" for i in range(6) for j in range(i + 1, 6))  # no token sees a later one
    changed(at, lambda a: pick(a, "selectbox", "tb_pos", "sinusoidal"), what="positions")
    # a stack, in its part
    open_part(at, "block", "stack")
    changed(at, lambda a: number(a, "tb_layers", 3), what="layers")
    assert any(s.value == t("tb.stack_title", "en", layers=3) for s in at.subheader)
    assert {"tb_stack1", "tb_stack2", "tb_stack3"} <= set(step_maps(at))
    assert at.toggle(key="tb_final").proto.disabled is False
    changed(at, lambda a: a.toggle(key="tb_final").set_value(True).run(), what="final norm")
    assert "tb_final" in step_maps(at)
    open_part(at, "block", "layer")
    before = maps(at)
    click_expander(at, "tb_weights")
    at.selectbox(key="tb_layer").set_value(2).run()
    ok(at)
    assert label(at, "3wq") in editors(at) and label(at, "1wq") not in editors(at)
    assert maps(at) != before and link(at)["layer"] == "3"
    # the focus token: its LayerNorm written out
    before = [c.value for c in at.text]
    pick(at, "selectbox", "tb_focus", 4)
    ok(at)
    assert any(s.value == t("tb.norm_title", "en", token="t5") for s in at.subheader)
    assert [c.value for c in at.text] != before and link(at)["focus"] == "5"
    # the padded batch, in its part
    open_part(at, "block", "batch")
    assert at.text_input(key="tb_lengths").proto.disabled
    at.toggle(key="tb_batch").set_value(True).run()
    ok(at)
    assert any(s.value == t("tb.batch_title", "en") for s in at.subheader)
    assert {"tb_batch1", "tb_batch2", "tb_batch3"} <= set(step_maps(at))
    at.text_input(key="tb_lengths").set_value("6 2").run()
    ok(at)
    assert "tb_batch2" in step_maps(at) and "tb_batch3" not in step_maps(at)
    mask = step_maps(at)["tb_batch_mask"]["cells"]
    number(at, "tb_maxlen", 4)
    ok(at)
    assert step_maps(at)["tb_batch_mask"]["cells"] != mask and len(step_maps(at)["tb_batch_mask"]["cols"]) == 4
    assert {k: link(at)[k] for k in ("batch", "lengths", "maxlen")} == {"batch": "1", "lengths": "6 2", "maxlen": "4"}
    line = check_line(at)
    assert line and t("tb.checked_torch", "en", layers=3, diff="").split(":")[0] in line
    # a preset, reloaded, undone
    open_part(at, "block", "layer")
    send(at, "x", 0, 0, "2.5")
    ok(at)
    assert link(at)["dx"] == "0.0.2.5"
    pick(at, "selectbox", "tb_preset", "gpt2")
    ok(at)
    assert {k: at.session_state[k] for k in tbv.PRESET_SETTINGS["gpt2"]} == tbv.PRESET_SETTINGS["gpt2"]
    assert "dx" not in link(at) and link(at)["preset"] == "gpt2" and cells(at, "x")[0][0] != "2.5"
    assert at.button(key="tb_undo")
    at.button(key="tb_undo").click().run()
    ok(at)
    assert cells(at, "x")[0][0] == "2.5" and link(at)["dx"] == "0.0.2.5" and at.session_state["tb_layers"] == 3
    assert at.session_state["tb_preset"] == "custom"  # three layers: no preset's settings
    pick(at, "selectbox", "tb_preset", "bert")
    send(at, "1wo", 0, 0, "9")
    assert "d1wo" in link(at)
    at.button(key="tb_load").click().run()  # reload: the preset's own tables, undoable
    ok(at)
    assert "d1wo" not in link(at) and at.session_state["tb_eps"] == "1e-12"
    at.button(key="tb_undo").click().run()
    assert "d1wo" in link(at)
    # the real model
    changed(at, lambda a: pick(a, "segmented_control", "tb_source", "real"), what="source")
    line = check_line(at)
    assert line and "MiniLM" in line and line.startswith(t("tb.checked_model", "en", model="M", layer=1, diff="0",
                                                              wdiff="0").split("M")[0])
    changed(at, lambda a: a.text_area(key="tb_text").set_value("A dog ran home.").run(), what="sentence")
    assert step_maps(at)["tb_layer1_input"]["rows"][2] == "3 dog"
    changed(at, lambda a: a.selectbox(key="tb_rlayer").set_value(3).run(), what="real layer")
    assert "layer 4" in check_line(at) and link(at)["rlayer"] == "4"
    pick(at, "segmented_control", "tb_source", "toy")  # back: the toy as it was
    ok(at)
    assert cells(at, "1wo")[0][0] == "9" and "d1wo" in link(at)


def test_an_edit_changes_the_outputs_and_the_link():
    at = open_page("block", "zh")
    out = step_maps(at)["tb_layer1_out"]["cells"] if "tb_layer1_out" in step_maps(at) else None
    before = maps(at)
    send(at, "1w1", 1, 2, "3")
    ok(at)
    assert maps(at) != before and link(at)["d1w1"] == "1.2.3"
    assert check_line(at)
    assert out is None or step_maps(at)["tb_layer1_out"]["cells"] != out
    send(at, "1w1", 1, 2, tbv.base_rows(tbv.View(), "1w1")[1][2])  # typed back: the link forgets it
    ok(at)
    assert "d1w1" not in link(at) and maps(at) == before


def test_the_weights_editors_are_made_only_while_their_expander_is_open_and_an_edit_outlives_closing_it():
    at = open_page("block")
    weights = {label(at, f"1{part}") for part in tbv.PARTS}
    edited = fuzz.weights_made_only_while_open(at, "tb_weights", {"X"}, {"X", *weights},
                                               lambda a: send(a, "1w1", 1, 2, "3"), "d1w1", "1.2.3")
    ok(at)
    open_part(at, "block", "stack")  # the expander stays open across parts, and the edit with it
    open_part(at, "block", "layer")
    assert set(editors(at)) == {"X", *weights} and cells(at, "1w1")[1][2] == "3" and maps(at) == edited
    click_expander(at, "tb_weights", False)
    open_part(at, "block", "batch")  # and closed
    open_part(at, "block", "layer")
    assert set(editors(at)) == {"X"} and maps(at) == edited


# ── the link ─────────────────────────────────────────────────────────────────────────────

def settings_of(at) -> dict:
    """Every setting of the page's table, a setting no widget has held yet at its default."""
    return {f.key: at.session_state[f.key] if f.key in at.session_state else f.default for f in tbv.FIELDS}


def zip_members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_the_link_opens_the_same_view_tables_and_zip(downloads):
    at = open_page("block")
    number(at, "tb_layers", 2)
    number(at, "tb_d", 6)
    at.selectbox(key="tb_heads").set_value(3).run()
    pick(at, "segmented_control", "tb_norm", "pre")
    pick(at, "selectbox", "tb_act", "gelu_tanh")
    at.text_input(key="tb_eps").set_value("0.001").run()
    at.toggle(key="tb_causal").set_value(True).run()
    at.toggle(key="tb_final").set_value(True).run()
    pick(at, "selectbox", "tb_pos", "learned")
    open_part(at, "block", "batch")
    at.toggle(key="tb_batch").set_value(True).run()
    at.text_input(key="tb_lengths").set_value("4 1 3").run()
    zips = {"batch": downloads.pop(ZIP)}
    open_part(at, "block", "stack")
    zips["stack"] = downloads.pop(ZIP)
    open_part(at, "block", "layer")
    send(at, "x", 2, 1, "-1.5")
    at.selectbox(key="tb_layer").set_value(1).run()
    send(at, "2ln", 3, 0, "0.25")
    send(at, "2b1", 0, 5, "1e-3")
    pick(at, "selectbox", "tb_focus", 2)
    ok(at)
    params = link(at)
    assert {"layers", "d", "heads", "norm", "act", "eps", "causal", "final", "pos", "batch", "lengths", "dx", "d2ln",
            "d2b1", "layer", "focus"} <= set(params), params
    settings_before = settings_of(at)
    tables_before = {table: cells(at, table) for table in ("x", *(f"2{p}" for p in tbv.PARTS))}
    maps_before = maps(at)
    zipped = downloads.pop(ZIP)

    fresh = open_link("block", params)
    ok(fresh)
    assert not fuzz.ignored_warning(fresh)
    assert settings_of(fresh) == settings_before
    assert {table: cells(fresh, table) for table in tables_before} == tables_before
    assert maps(fresh) == maps_before and link(fresh) == params
    again = downloads[ZIP]
    members = zip_members(zipped)
    assert again == zipped  # byte for byte: every member is dated 1980-01-01 (export.ZIP_DATE)
    # each part's ZIP: what it drew, X and every layer's parameters
    assert {"x.csv", "layer2_ln.csv", "layer2_b1.csv", "layer1_wq.csv", "layer2_weights_head1.csv"} <= set(members)
    assert not {"batch_key_padding.csv", "final_norm.csv", "layer1_weights_mean.csv"} & set(members)
    for part, own in (("batch", {"batch_key_padding.csv", "batch1_outputs.csv"}),
                      ("stack", {"final_norm.csv", "layer1_weights_mean.csv", "layer2_weights_mean.csv"})):
        assert own | {"x.csv", "layer2_ln.csv", "settings.txt"} <= set(zip_members(zips[part])), part
    assert all(data.startswith(b"\xef\xbb\xbf") for name, data in members.items() if name.endswith(".csv"))
    assert b"seed=" in members["settings.txt"] or b"Link to this view" in members["settings.txt"]
    assert b"-1.5" in members["x.csv"] and b"0.25" in members["layer2_ln.csv"]


# ── bad input ────────────────────────────────────────────────────────────────────────────

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bad_input_is_named_and_the_last_good_result_stays(lang):
    at = open_page("block", lang)
    good = maps(at)
    kept = fuzz.kept_note(lang)
    for eps in ("0", "nan", "-1", "1e400", "abc"):
        at.text_input(key="tb_eps").set_value(eps).run()
        ok(at)
        message = next(text for text in errors(at) if kept in text)
        assert message.startswith(t("err.eps_bad", lang, eps=eps).split("“")[0]) and f"“{eps}”" in message
        assert check_line(at) and maps(at) == good
    at.text_input(key="tb_eps").set_value("1e-05").run()
    assert not errors(at) and maps(at) == good
    send(at, "x", 1, 1, "inf")
    ok(at)
    assert any(kept in text and "X" in text for text in errors(at)) and check_line(at) and maps(at) == good
    send(at, "1wq", 0, 0, "")  # a second bad cell, in another table
    assert errors(at) and check_line(at)
    # the real model: an empty sentence keeps the layer shown
    pick(at, "segmented_control", "tb_source", "real")
    ok(at)
    real = maps(at)
    at.text_area(key="tb_text").set_value("   ").run()
    ok(at)
    assert any(kept in text for text in errors(at)) and check_line(at) and maps(at) == real
    at.text_area(key="tb_text").set_value("a" * 301).run()  # the box takes 300, as the browser's does
    ok(at)
    assert at.session_state["tb_text"] == "a" * 300 and check_line(at) and not errors(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("params, named", [
    ({"d": "6", "heads": "4", "layers": "7", "n": "17", "layer": "3", "focus": "99", "tx": "1_2", "d5wq": "0.0.1",
      "causal": "1"}, {"heads", "layers", "n", "layer", "focus", "tx", "d5wq"}),
    ({"source": "real", "text": "a" * 301}, {"text"}),
    ({"eps": "0"}, set()),
])
def test_a_bad_link_is_named_and_the_page_still_shows_a_result(params, named, lang):
    at = open_link("block", {**params, "lang": lang})
    ok(at)
    warning = fuzz.ignored_warning(at)
    if named:
        assert warning is not None
        listed = {w.strip("`:") for w in warning.split() if w.startswith("`")}
        assert listed == named, (listed, warning)
    else:
        assert warning is None
    if "eps" in params:  # a bad ε has no last good result yet: the message alone
        assert any(f"“{params['eps']}”" in text for text in errors(at)) and check_line(at) is None
    else:
        assert check_line(at)
    if "causal" in params:
        assert at.session_state["tb_causal"] is True and at.session_state["tb_heads"] == 2  # the rest is used


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_batch_part_with_the_batch_off_says_how_to_turn_it_on(lang):
    """Part 3 with its switch off draws no maps; it says what the switch does instead of showing an empty part
    (found by the links fuzz walk: a link with part=batch and a bad batch= value)."""
    at = open_page("block", lang, part="batch")
    assert not at.session_state["tb_batch"] and not step_maps(at)
    assert [i.value for i in at.info] == [t("tb.batch_off", lang)]
    at.toggle(key="tb_batch").set_value(True).run()
    assert not at.info and step_maps(at), [i.value for i in at.info]
