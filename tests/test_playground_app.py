"""The Playground page through Streamlit's AppTest: presets, edits, bad cells, exports."""

import io
import json
import zipfile

import numpy as np
import pandas as pd
import pytest

from selfattn import self_attention
from selfattn.display.grid import read_csv_matrix
from support.apptest import (playground_tables, click_expander, open_folded, assert_fits, assert_map_shows, map_frame, step_maps, choice_widget, edit, editor_cells, editors, heatmap_specs, open_link, open_page,
                           shown, texts)


def outputs_table(at) -> pd.DataFrame:
    return map_frame(at, "outputs")  # step 8's map, its cells read back as numbers


@pytest.mark.parametrize("lang, title, label", [("en", "Playground", "Input"), ("zh", "动手实验", "输入")])
def test_opens_with_the_tutorial_example_in_both_languages(lang, title, label):
    at = open_page("playground", lang)
    assert title in at.title[0].value
    out = outputs_table(at)
    assert list(out.index) == [f"{label} 1", f"{label} 2", f"{label} 3"]
    np.testing.assert_allclose(out.to_numpy(), [[1.936621, 6.683105, 1.595068],
                                                [1.999994, 7.963992, 0.053976],
                                                [1.999705, 7.759892, 0.358389]], rtol=5e-4)
    assert "q1·k2 = 1×4 + 0×4 + 2×0 = 4" in texts(at)  # step 4 written out for input 1
    assert not at.error


def test_an_edit_recomputes_every_step_in_the_same_rerun():
    at = open_page("playground")
    edit(at, "x", 0, "x1", 5.0)
    x = np.array([[5, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]], dtype=float)
    w_q = np.array([[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]], dtype=float)
    w_k = np.array([[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]], dtype=float)
    w_v = np.array([[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]], dtype=float)
    expected = self_attention(x, w_q, w_k, w_v, scale=False).outputs
    assert_map_shows(at, "outputs", expected)
    assert "q1·k1 = 5×0 + 0×1 + 6×5 = 30" in texts(at)


def test_a_bad_cell_shows_the_error_and_keeps_the_last_result():
    at = open_page("playground")
    edit(at, "w_k", 1, "k2", 2.0)
    good = outputs_table(at).to_numpy().copy()
    edit(at, "w_k", 2, "k3", None)
    assert len(at.error) == 2  # the cell, named under its editor; the results' note that they are kept
    assert "W_k" in shown(at.error[0].value) and "x3" in at.error[0].value and "k3" in at.error[0].value
    assert "W_k" in shown(at.error[1].value) and "last good result" in at.error[1].value
    np.testing.assert_array_equal(outputs_table(at).to_numpy(), good)
    edit(at, "w_k", 2, "k3", 0.0)  # fixing the cell clears the error
    assert not at.error


def test_error_is_in_chinese_when_chinese_is_chosen():
    at = open_page("playground", "zh")
    edit(at, "x", 1, "x2", None)
    assert "第 2 (输入 2) 行" in at.error[0].value and "下方仍显示" in at.error[1].value


def test_options_scale_causal_and_bias():
    at = open_page("playground")
    at.toggle(key="pg_scale").set_value(True).run()
    at.toggle(key="pg_causal").set_value(True).run()
    at.toggle(key="pg_bias").set_value(True).run()
    assert not at.exception
    edit(at, "b_v", 0, "v1", 10.0)
    x = np.array([[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]], dtype=float)
    w = {"q": [[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]], "k": [[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]],
         "v": [[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]]}
    expected = self_attention(x, w["q"], w["k"], w["v"], b_v=[10, 0, 0], b_q=[0, 0, 0], b_k=[0, 0, 0],
                              scale=True, mask="causal").outputs
    assert_map_shows(at, "outputs", expected)
    np.testing.assert_allclose(expected[0], [11, 2, 3])  # token 1 sees only itself


def test_resize_keeps_numbers_and_random_preset_is_reproducible():
    at = open_page("playground")
    at.number_input(key="pg_n").set_value(5).run()
    assert not at.exception
    out = outputs_table(at)
    assert out.shape == (5, 3)
    assert editor_cells(at, "X")[0][1:] == ["1", "0", "1", "0"]  # kept (the editors hold text)
    at.number_input(key="pg_d_v").set_value(2).run()
    assert outputs_table(at).shape == (5, 2)
    choice_widget(at.selectbox, "pg_preset").set_value("random").run()
    at.number_input(key="pg_seed").set_value(7).run()
    at.button[0].click().run()
    first = outputs_table(at).to_numpy().copy()
    assert first.shape == (5, 2)
    at.button[0].click().run()
    np.testing.assert_array_equal(outputs_table(at).to_numpy(), first)


def test_raw_preset_uses_identity_weights():
    at = open_page("playground")
    choice_widget(at.selectbox, "pg_preset").set_value("raw").run()
    at.button[0].click().run()
    out = outputs_table(at)
    assert list(out.index) == ["早", "上", "好"]
    x = np.array([[1.0, 0.5, 0.0, 0.2], [0.9, 0.6, 0.1, 0.0], [0.0, 0.2, 1.0, 0.7]])
    s = np.exp(x @ x.T)
    assert_map_shows(at, "outputs", (s / s.sum(1, keepdims=True)) @ x)


def test_csv_downloads_round_trip(downloads):
    at = open_page("playground")
    keys = {b.key for b in at.get("download_button")}
    assert {"dl_queries", "dl_keys", "dl_values", "dl_scores", "dl_weights", "dl_outputs", "dl_zip"} <= keys
    shown = outputs_table(at)
    csv = downloads["outputs.csv"]
    assert csv.startswith(b"\xef\xbb\xbf,v1,v2,v3")  # the byte-order mark: Excel reads it as UTF-8
    values, labels = read_csv_matrix(csv, "outputs", cols=3)
    assert labels == list(shown.index)
    assert_map_shows(at, "outputs", values)  # the CSV holds the exact numbers the map writes to 4 digits
    with zipfile.ZipFile(io.BytesIO(downloads["selfattn-playground.zip"])) as archive:
        names = set(archive.namelist())
        assert {"x.csv", "w_q.csv", "w_k.csv", "w_v.csv", "weights.csv", "outputs.csv"} <= names
        assert archive.read("outputs.csv") == csv  # the same bytes as the button's, mark and all
        back = pd.read_csv(archive.open("weights.csv"), index_col=0).to_numpy()
    np.testing.assert_allclose(back[0], [0.0633789, 0.4683105, 0.4683105], atol=5e-8)


def test_upload_replaces_a_weight_and_bad_files_change_nothing():
    at = open_page("playground")
    before = outputs_table(at).to_numpy().copy()
    open_folded(at, "pg_import_panel").selectbox(key="pg_upload_target").set_value("w_q").run()
    open_folded(at, "pg_import_panel").get("file_uploader")[0].upload("bad.csv", b"1,2\n3,4\n", "text/csv").run()
    assert not at.exception
    assert "W_q" in shown(at.error[0].value) and "4" in at.error[0].value  # needs 4 rows and 3 columns
    np.testing.assert_array_equal(outputs_table(at).to_numpy(), before)
    w_q = np.arange(12.0).reshape(4, 3) / 10
    csv = "\n".join(",".join(str(v) for v in row) for row in w_q).encode()
    open_folded(at, "pg_import_panel").get("file_uploader")[0].upload("w_q.csv", csv, "text/csv").run()
    assert not at.exception and not at.error
    x = np.array([[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]], dtype=float)
    w_k = np.array([[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]], dtype=float)
    w_v = np.array([[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]], dtype=float)
    assert_map_shows(at, "outputs", self_attention(x, w_q, w_k, w_v, scale=False).outputs)


def test_the_import_box_keeps_its_chosen_matrix_once_closed_and_opened_again():
    """The box's chooser is made only while the box is open (Streamlit forgets a widget it does not make): closed and
    opened again, it still names the matrix chosen, and a file fills that one."""
    at = open_page("playground")
    open_folded(at, "pg_import_panel").selectbox(key="pg_upload_target").set_value("w_v").run()
    click_expander(at, "pg_import_panel", opened=False)
    assert not at.exception and not at.get("file_uploader")
    assert open_folded(at, "pg_import_panel").selectbox(key="pg_upload_target").value == "w_v"
    w_v = np.arange(12.0).reshape(4, 3) / 10
    csv = "\n".join(",".join(str(v) for v in row) for row in w_v).encode()
    at.get("file_uploader")[0].upload("w_v.csv", csv, "text/csv").run()
    assert not at.exception and not at.error
    assert playground_tables(at)["w_v"][1] == ("0.3", "0.4", "0.5")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_file_over_the_limit_gets_one_message_in_words_in_place_of_the_earlier_one(lang):
    """The browser lets a file over our 1 MB through (its own refusal is an English tooltip that
    leaves an earlier message on screen); the page refuses it in the visitor's language, alone."""
    from selfattn.display.grid import MAX_UPLOAD_BYTES
    from selfattn.i18n import t

    at = open_page("playground", lang)
    before = outputs_table(at).to_numpy().copy()
    (uploader,) = open_folded(at, "pg_import_panel").get("file_uploader")
    # the browser's cap (server.maxUploadSize, 2 MB since issue 29) lets a file of up to twice ours through
    assert uploader.proto.max_upload_size_mb * 2**20 >= 2 * MAX_UPLOAD_BYTES
    uploader.set_value(("bad.csv", b"1,2\n3,4\n", "text/csv")).run()  # an earlier, unrelated error
    assert len(at.error) == 1
    open_folded(at, "pg_import_panel").get("file_uploader")[0].set_value(("big.csv", b"1," * (MAX_UPLOAD_BYTES // 2 + 1), "text/csv")).run()
    assert not at.exception
    assert [e.value for e in at.error] == [t("err.upload_too_big", lang, size_kb=1025, limit_kb=1024)]
    np.testing.assert_array_equal(outputs_table(at).to_numpy(), before)


def test_upload_of_x_may_change_the_number_of_tokens():
    at = open_page("playground")
    open_folded(at, "pg_import_panel").selectbox(key="pg_upload_target").set_value("x").run()
    csv = ",x1,x2,x3,x4\n猫,1,0,0,1\n狗,0,1,1,0\n".encode()
    open_folded(at, "pg_import_panel").get("file_uploader")[0].upload("x.csv", csv, "text/csv").run()
    assert not at.exception and not at.error
    assert list(outputs_table(at).index) == ["猫", "狗"]
    assert at.number_input(key="pg_n").value == 2


def test_switching_language_keeps_the_work():
    at = open_page("playground")
    edit(at, "x", 2, "x4", 3.0)
    before = outputs_table(at).to_numpy().copy()
    at.radio(key="lang").set_value("zh").run()
    assert not at.exception
    assert "动手实验" in at.title[0].value
    np.testing.assert_array_equal(outputs_table(at).to_numpy(), before)
    preset_box = choice_widget(at.selectbox, "pg_preset")
    assert preset_box.value == "tutorial" and preset_box.options[preset_box.index] == "教程中的例子"


def test_focus_survives_renamed_tokens():
    """Renaming a token changes the focus selector's labels; the chosen input stays chosen."""
    at = open_page("playground")
    choice_widget(at.selectbox, "pg_focus").set_value(2).run()
    assert "q3·k1 = 2×0 + 1×1 + 3×1 = 4" in texts(at)
    edit(at, "x", 2, "token", "猫")
    box = choice_widget(at.selectbox, "pg_focus")
    assert box.value == 2 and box.options == ["1: Input 1", "2: Input 2", "3: 猫"]
    assert "q3·k1 = 2×0 + 1×1 + 3×1 = 4" in texts(at)


def test_cells_take_scientific_notation_and_refuse_a_decimal_comma():
    at = open_page("playground")
    edit(at, "x", 0, "x1", "1e-3")
    x = np.array([[1e-3, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]], dtype=float)
    w_q = np.array([[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]], dtype=float)
    w_k = np.array([[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]], dtype=float)
    w_v = np.array([[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]], dtype=float)
    expected = self_attention(x, w_q, w_k, w_v, scale=False).outputs
    assert_map_shows(at, "outputs", expected)
    edit(at, "x", 1, "x2", "1,5")
    assert len(at.error) == 2 and "“1,5”" in at.error[0].value and "1e-3" in at.error[0].value
    assert_map_shows(at, "outputs", expected)  # last good result kept


@pytest.mark.parametrize("sizes", [{}, {"pg_n": 32, "pg_d_in": 16, "pg_d_k": 16, "pg_d_v": 16},
                                   {"pg_n": 1, "pg_d_k": 1, "pg_d_v": 16}])
def test_every_step_map_has_its_shape_and_every_label(sizes):
    """Q, K, V, scores, weights, one input's weighted values and the outputs: each map with a row per
    token and a column per dimension or key, labelled, every cell written (the browser test checks the fit)."""
    at = open_page("playground", "zh")
    for key, value in sizes.items():
        at.number_input(key=key).set_value(value).run()
    assert not at.exception and not at.error
    n, d_k, d_v = sizes.get("pg_n", 3), sizes.get("pg_d_k", 3), sizes.get("pg_d_v", 3)
    tokens = [f"输入 {k + 1}" for k in range(n)]
    maps = step_maps(at)
    shapes = {"queries": (n, d_k), "keys": (n, d_k), "values": (n, d_v), "scores": (n, n), "weights": (n, n),
              "weighted_values_1": (n, d_v), "outputs": (n, d_v)}
    assert set(maps) == set(shapes)
    for name, (rows, cols) in shapes.items():
        data = maps[name]
        assert data["rows"] == tokens and len(data["cols"]) == cols, name
        assert len(data["cells"]) == rows and all(len(r) == cols and all(r) for r in data["cells"]), name
    assert maps["scores"]["cols"] == tokens and maps["outputs"]["cols"][0] == "v1"


TUTORIAL_OUT_1 = [1.936621, 6.683105, 1.595068]


def test_an_edit_back_to_the_original_value_is_kept():
    """Typing the original value again brings the original numbers back (the data editor's diff
    against its seed lost it, streamlit issue 7749; the matrix editor sends its full table)."""
    at = open_page("playground")
    edit(at, "x", 0, "x1", "5")
    assert outputs_table(at).to_numpy()[0, 0] == pytest.approx(1.00005, abs=5e-4)  # shown to 4 digits
    edit(at, "x", 0, "x1", "1")
    np.testing.assert_allclose(outputs_table(at).to_numpy()[0], TUTORIAL_OUT_1, rtol=5e-4)
    assert playground_tables(at)["x"][0][0] == "1"
    edit(at, "x", 0, "token", "Input 1")  # the same holds for labels
    assert list(outputs_table(at).index)[0] == "Input 1"


def test_edits_survive_a_language_switch_and_leaving_the_page():
    at = open_page("playground")
    edit(at, "x", 1, "x2", "7")
    edit(at, "x", 0, "token", "cat")
    edit(at, "w_q", 0, "q1", "2")
    before = outputs_table(at).to_numpy().copy()
    at.radio(key="lang").set_value("zh").run()
    out = outputs_table(at)
    np.testing.assert_array_equal(out.to_numpy(), before)
    assert list(out.index) == ["cat", "输入 2", "输入 3"]  # the tutorial's labels follow the language
    assert [row[0] for row in editor_cells(at, "X")] == ["cat", "输入 2", "输入 3"]
    edit(at, "x", 2, "x1", "4")  # the re-created editor takes edits as before
    after = outputs_table(at).to_numpy().copy()
    assert not np.array_equal(after, before)
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/playground.py").run()
    np.testing.assert_array_equal(outputs_table(at).to_numpy(), after)
    assert editor_cells(at, "X")[1][2] == "7" and editor_cells(at, "W_q")[0][0] == "2"
    at.radio(key="lang").set_value("en").run()
    assert list(outputs_table(at).index) == ["cat", "Input 2", "Input 3"]


def test_a_typed_label_the_new_language_seeds_is_no_edit_after_the_switch():
    """The page keeps the tables typed into against the preset's (``pg["edits"]``): a label typed as the tutorial
    writes it in Chinese, "输入 1", is X's one difference in English, and none once the page is in Chinese."""
    at = open_page("playground")
    edit(at, "x", 0, "token", "输入 1")
    assert set(at.session_state["pg"]["edits"]) == {"x"} and "dx" not in dict(at.query_params)
    assert dict(at.query_params).get("tok")  # the link names the labels in English
    at.radio(key="lang").set_value("zh").run()
    assert not at.exception and at.session_state["pg"]["edits"] == {}
    assert "tok" not in dict(at.query_params)  # the tutorial as it is, in Chinese
    assert [row[0] for row in editor_cells(at, "X")] == ["输入 1", "输入 2", "输入 3"]


def test_choosing_a_preset_loads_it_and_undo_brings_the_edits_back():
    at = open_page("playground")
    edit(at, "x", 0, "x1", "5")
    edited = outputs_table(at).to_numpy().copy()
    choice_widget(at.selectbox, "pg_preset").set_value("raw").run()
    assert list(outputs_table(at).index) == ["早", "上", "好"]  # loaded on choosing, no button needed
    assert any("Softmax(XXᵀ)X" in s.value for s in at.success)
    at.button(key="pg_undo").click().run()
    np.testing.assert_array_equal(outputs_table(at).to_numpy(), edited)
    assert editor_cells(at, "X")[0][1] == "5"
    assert not [b for b in at.button if b.key == "pg_undo"]  # used up


def test_undo_after_a_preset_puts_back_the_preset_box_and_its_caption_too():
    at = open_page("playground")
    choice_widget(at.selectbox, "pg_preset").set_value("random").run()
    assert choice_widget(at.selectbox, "pg_preset").value == "random"
    at.button(key="pg_undo").click().run()
    assert choice_widget(at.selectbox, "pg_preset").value == "tutorial"
    assert any("The tutorial's example" in c.value or "Three inputs of dimension 4" in c.value for c in at.caption)
    assert not any("Xavier" in c.value for c in at.caption)
    assert at.toggle(key="pg_scale").value is False


@pytest.mark.parametrize("lang, said", [("en", "“Scale by √d_k” on"), ("zh", "“除以 √d_k”开")])
def test_a_preset_says_what_it_switches_on_and_off(lang, said):
    at = open_page("playground", lang)
    assert not at.toggle(key="pg_scale").value
    choice_widget(at.selectbox, "pg_preset").set_value("random").run()
    assert at.toggle(key="pg_scale").value  # Xavier weights come scaled: the page says so
    assert any(said in shown(s.value) for s in at.success), [s.value for s in at.success]
    assert any(said in shown(c.value) for c in at.caption)  # and the preset's caption said it before


@pytest.mark.parametrize("lang, label", [("en", "Input 4"), ("zh", "输入 4")])
def test_new_rows_are_named_like_the_others(lang, label):
    at = open_page("playground", lang)
    at.number_input(key="pg_n").set_value(4).run()
    assert list(outputs_table(at).index)[-1] == label


@pytest.mark.parametrize("lang, said", [("en", "must be a whole number; 2.5 is not, so it stays 3"),
                                        ("zh", "2.5 不是整数，因此保持为 3")])
def test_a_size_with_a_fraction_is_refused_in_words_not_cut(lang, said):
    at = open_page("playground", lang)
    at.number_input(key="pg_d_v").set_value(2.5).run()
    assert not at.exception
    assert any(said in shown(w.value) for w in at.warning), [w.value for w in at.warning]
    assert at.number_input(key="pg_d_v").value == 3 and outputs_table(at).shape == (3, 3)


def test_a_number_too_large_for_a_float_is_called_too_large_not_infinite():
    at = open_page("playground")
    edit(at, "x", 0, "x1", "1e400")
    messages = " ".join(shown(e.value) for e in at.error)
    assert "too large" in messages and "inf" not in messages.replace("information", "")


def test_a_size_beyond_its_limit_is_set_to_the_limit_and_said():
    at = open_page("playground")
    at.number_input(key="pg_n").set_value(40).run()
    assert not at.exception
    assert at.number_input(key="pg_n").value == 32 and outputs_table(at).shape == (32, 3)
    assert any("between 1 and 32" in w.value for w in at.warning)
    at.number_input(key="pg_d_k").set_value(0).run()
    assert at.number_input(key="pg_d_k").value == 1 and outputs_table(at).shape == (32, 3)
    at.button(key="pg_undo").click().run()  # undo the resize of d_k
    assert at.number_input(key="pg_d_k").value == 3


def test_a_bad_cell_is_named_under_its_own_editor():
    at = open_page("playground")
    edit(at, "w_v", 3, "v2", "abc")
    assert "W_v" in shown(at.error[0].value) and "“abc”" in at.error[0].value
    assert playground_tables(at)["w_v"][3][1] == "abc"  # what was typed stays
    assert editors(at)["W_v"]["bad"] == [3, 1]  # the cell is outlined where it sits, in W_v's editor
    assert all(data["bad"] is None for name, data in editors(at).items() if name != "W_v")


def test_masked_scores_read_minus_infinity_in_the_table_the_chart_and_the_text():
    from selfattn.display.colours import MASKED_GREY

    at = open_page("playground")
    at.toggle(key="pg_causal").set_value(True).run()
    masked = step_maps(at)["scaled_scores"]  # the masked scores: −∞ above the diagonal, drawn grey
    assert masked["cells"][0] == ["2", "−∞", "−∞"] and masked["cells"][1][0] == "4"
    assert masked["masked"] == MASKED_GREY and step_maps(at)["scores"]["cells"][0] == ["2", "4", "4"]
    assert "q1·k2 = 1×4 + 0×4 + 2×0 = 4   → masked (−∞)" in texts(at)
    assert "softmax([2, −∞, −∞])" in texts(at)
    assert "-inf" not in texts(at) and "Infinity" not in texts(at)
    assert "inf" not in json.dumps(step_maps(at)).lower()  # no "-Infinity" sent as a number either


def test_a_label_longer_than_24_characters_is_said_to_be_cut():
    at = open_page("playground")
    long = "a-very-long-token-label-from-an-upload"  # longer than the editor lets one type
    open_folded(at, "pg_import_panel").selectbox(key="pg_upload_target").set_value("x").run()
    open_folded(at, "pg_import_panel").get("file_uploader")[0].upload("x.csv", f"{long},1,0,1,0\nb,0,2,0,2\nc,1,1,1,1\n".encode(), "text/csv").run()
    assert any("cut to 24 characters" in i.value and long in i.value for i in at.info)
    assert list(outputs_table(at).index)[0] == long[:24]
    edit(at, "x", 1, "x1", "3")  # the editor sends the long label back unchanged with the edit: not refused
    assert not at.warning and editor_cells(at, "X")[0][0] == long and editor_cells(at, "X")[1][1] == "3"


GOOD_ROW = ["t", "1", "0", "1", "0"]


@pytest.mark.parametrize("state, why", [
    ({"table": {"rev": 1, "cells": [GOOD_ROW] * 10_000}}, "added, removed or named rows"),
    ({"table": {"rev": 1, "cells": [GOOD_ROW] * 2}}, "added, removed or named rows"),
    ({"table": {"rev": 1, "cells": [GOOD_ROW + ["1"]] * 3}}, "named a column"),
    ({"table": {"rev": 1, "cells": [GOOD_ROW[:-1] + ["1" * 41]] + [GOOD_ROW] * 2}}, "longer than its column"),
    ({"table": {"rev": 1, "cells": [["y" * 25] + GOOD_ROW[1:]] + [GOOD_ROW] * 2}}, "longer than its column"),
    ({"table": {"rev": 1, "cells": [GOOD_ROW[:-1] + [5]] + [GOOD_ROW] * 2}}, "longer than its column"),
    ({"table": {"rev": "1", "cells": [GOOD_ROW] * 3}}, "not an edit of a table"),
    ({"table": {"rev": 1, "cells": "1,2,3"}}, "not an edit of a table"),
    ({"table": [GOOD_ROW] * 3}, "not an edit of a table"),
    ({"other": 1}, "not an edit of a table"),
])
def test_a_crafted_editor_state_is_refused_by_name_and_changes_nothing(state, why):
    at = open_page("playground")
    before = outputs_table(at).to_numpy().copy()
    version = at.session_state["pg"]["version"]
    at.session_state[f"pged_x_{version}"] = state
    at.run()
    assert not at.exception
    assert any(why in w.value and "X" in w.value for w in at.warning), [w.value for w in at.warning]
    assert at.session_state["pg"]["version"] == version + 1  # new editors, drawn from the tables as they were
    np.testing.assert_array_equal(outputs_table(at).to_numpy(), before)
    assert editor_cells(at, "X")[0] == ["Input 1", "1", "0", "1", "0"]
    edit(at, "x", 0, "x1", "5")  # and the new editor takes edits
    assert outputs_table(at).to_numpy()[0, 0] == pytest.approx(1.00005, abs=5e-4)  # shown to 4 digits


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_long_sums_are_shortened_but_for_the_focus_token_with_every_line_in_an_expander(lang):
    """At 32 tokens × 16 dimensions step 4 writes q1·k1 in full and the others as "q1·kj = … = score";
    the full lines are one click away. The tutorial's 3 dimensions are written in full, no expander."""
    from selfattn.i18n import t

    at = open_page("playground", lang)
    assert t("pg.focus_full", lang) not in [e.label for e in at.expander]
    assert "q1·k2 = 1×4 + 0×4 + 2×0 = 4" in texts(at)
    for key, value in {"pg_n": 32, "pg_d_in": 16, "pg_d_k": 16, "pg_d_v": 16}.items():
        at.number_input(key=key).set_value(value).run()
    assert not at.exception
    step4 = next(c.value for c in at.text if c.value.startswith("q1·k1"))
    zeros = " + 0×0" * 13
    assert step4.splitlines()[:2] == [f"q1·k1 = 1×0 + 0×1 + 2×1{zeros} = 2", "q1·k2 = … = 4"]
    assert len(step4.splitlines()) == 32 and max(map(len, step4.splitlines()[1:])) < 40
    full = [e for e in at.expander if e.label == t("pg.focus_full", lang)]
    assert len(full) == 3 and not any(e.code for e in full)  # steps 4, 6 and 7, folded: their lines not made yet
    assert not any(f"q1·k2 = 1×4 + 0×4 + 2×0{zeros} = 4" in c.value for c in at.text)
    open_folded(at, "pg_full_4")
    full = [e for e in at.expander if e.label == t("pg.focus_full", lang)]
    assert not at.exception and len(full) == 3
    assert f"q1·k2 = 1×4 + 0×4 + 2×0{zeros} = 4" in full[0].text[0].value
    assert str(t("pg.focus_short_note", lang, token="Input 1" if lang == "en" else "输入 1")) in texts(at)
    maps = step_maps(at)  # every map drawn at 32 tokens, linked as at 3 (no limit on the linking)
    assert len(maps["weights"]["cells"]) == 32 and len(maps["weights"]["cells"][0]) == 32
    assert {m["link"] for m in maps.values()} == {"q", "k", "v", "scores", "weights", "wv", "out"}


def page_text(at) -> str:
    """Every markdown text of the page as sent (its KaTeX as written) and as read (escapes undone)."""
    return "\n".join(f"{e.value}\n{shown(e.value)}" for kind in ("markdown", "caption", "subheader")
                     for e in getattr(at, kind))


@pytest.mark.parametrize("scale, causal, bias, said, unsaid", [
    (True, False, False, ["Scaled scores", r"Divided by $\sqrt{d_k} = \sqrt{3}$ ≈ 1.73205.", r"/\sqrt{d_k})"],
     ["masked", "+ b_q", "+ M"]),
    (False, True, False, ["Masked scores", "Not scaled; masked positions", r"softmax}(QK^\top + M)"],
     ["Divided by", r"\sqrt{d_k})"]),
    (True, True, True, ["Scaled and masked scores", r"$Q = XW_q + b_q,\; K = XW_k + b_k", r"/\sqrt{d_k} + M)"], []),
    (False, False, False, [r"softmax}(QK^\top)\,V$", "$W_q$ and $W_k$ are $d_{in} \\times d_k$ = 4 × 3"],
     ["Scaled", "Masked scores", "Divided by"]),
])
def test_every_title_caption_and_formula_follows_the_options(scale, causal, bias, said, unsaid):
    """The words around the scores and the equations say what the options do, never more (typeset with KaTeX)."""
    at = open_page("playground")
    for key, on in (("pg_scale", scale), ("pg_causal", causal), ("pg_bias", bias)):
        if at.toggle(key=key).value != on:
            at.toggle(key=key).set_value(on).run()
    text = page_text(at)
    for words in said:
        assert words in text, words
    for words in unsaid:
        assert words not in text, words


def test_with_positions_the_formulas_read_x_plus_pe():
    assert "$Q = XW_q$" in page_text(open_page("playground"))
    text = page_text(open_link("playground", {"pos": "sinusoidal"}))
    assert "$Q = (X + PE)W_q$" in text and r"$Q = (X + PE)W_q,\; K = (X + PE)W_k" in text


def test_the_step_maps_write_four_significant_digits_however_small():
    """Every cell of every step map is written to 4 significant digits (6.034e-06, never 0.000006 or 0),
    as the weights computed apart by torch say."""
    import torch

    at = open_page("playground")
    x = torch.tensor([[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]], dtype=torch.float64)
    w_q = torch.tensor([[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]], dtype=torch.float64)
    w_k = torch.tensor([[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]], dtype=torch.float64)
    weights = torch.softmax((x @ w_q) @ (x @ w_k).T, dim=-1).numpy()
    assert_map_shows(at, "weights", weights)
    assert step_maps(at)["weights"]["cells"][1][0] == "6.034e-06"
    np.testing.assert_allclose(outputs_table(at).to_numpy()[0], [1.937, 6.683, 1.595], atol=5e-4)
