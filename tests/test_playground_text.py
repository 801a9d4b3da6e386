"""The Playground's words follow what it shows: the preset's note, step 2's title, step 8's mask, the
tutorial's rounding, one precision for one matrix, and the ZIP's settings.txt (AppTest)."""

import io
import zipfile
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pytest

from selfattn import self_attention
from selfattn.core.presets import tutorial_by_hand
from selfattn.display.grid import read_csv_matrix
from selfattn.i18n import LANGS, t, t_plain
from support.apptest import (choice_widget, edit, four_digits, heatmap_specs, open_link, open_page, shown, sidebar_link,
                             step_maps, texts)
from tests.glossary_rules import chinese_punctuation_problems

BOM = b"\xef\xbb\xbf"
# The tutorial's worked example (../shared/seeds, 000_*.txt), typed apart from selfattn.core.presets.
X = np.array([[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]], dtype=float)
W_Q = np.array([[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]], dtype=float)
W_K = np.array([[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]], dtype=float)
W_V = np.array([[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]], dtype=float)
ROUNDED_SOFTMAX = [0.0, 0.5, 0.5]  # the tutorial's text: softmax([2, 4, 4]) = [0.0, 0.5, 0.5]
TEXT_OUTPUT_1 = [2.0, 7.0, 1.5]  # what its text prints for output 1
CODE_OUTPUT_1 = [1.9366210616669624, 6.683105308334811, 1.5950684074995565]  # what its pure-Python code prints


def captions(at) -> list[str]:
    return [shown(c.value) for c in at.caption]


def vector(values, digits: int) -> str:
    return "[" + ", ".join(f"{v:.{digits}f}" for v in values) + "]"


def by_hand():
    """Output 1 worked out in plain Python, as the tutorial's text does (rounded weights) and exactly."""
    q1 = [sum(X[0][r] * W_Q[r][c] for r in range(4)) for c in range(3)]
    keys = [[sum(x[r] * W_K[r][c] for r in range(4)) for c in range(3)] for x in X]
    values = [[sum(x[r] * W_V[r][c] for r in range(4)) for c in range(3)] for x in X]
    scores = [sum(a * b for a, b in zip(q1, k)) for k in keys]
    e = [np.exp(s) for s in scores]
    exact = [w / sum(e) for w in e]
    out = [sum(exact[j] * values[j][c] for j in range(3)) for c in range(3)]
    rough = [sum(ROUNDED_SOFTMAX[j] * values[j][c] for j in range(3)) for c in range(3)]
    return scores, exact, out, rough


def test_the_walk_through_by_hand_gives_both_of_the_tutorials_numbers():
    scores, exact, out, rough = by_hand()
    assert scores == [2, 4, 4]
    assert rough == TEXT_OUTPUT_1  # rounded weights: the text's [2.0, 7.0, 1.5]
    np.testing.assert_allclose(out, CODE_OUTPUT_1, rtol=1e-15)  # exact weights: the code's printout
    np.testing.assert_allclose(self_attention(X, W_Q, W_K, W_V, scale=False).outputs[0], CODE_OUTPUT_1, rtol=1e-15)
    hand = tutorial_by_hand()  # what the page's note is written from
    assert hand.scores.tolist() == scores and hand.rough_output.tolist() == rough
    np.testing.assert_allclose(hand.weights, exact, rtol=1e-15)
    np.testing.assert_allclose(hand.output, out, rtol=1e-15)


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_tutorial_preset_says_why_its_text_prints_other_numbers(lang):
    at = open_page("playground", lang)
    scores, exact, out, rough = by_hand()
    note = shown(t("pg.tutorial_rounding", lang, scores=vector(scores, 0), rough_w=vector(ROUNDED_SOFTMAX, 1),
                   exact_w=vector(exact, 4), rough_out=vector(rough, 1), exact_out=vector(out, 4)))
    assert note in captions(at)
    assert "[2.0, 7.0, 1.5]" in note and "[1.9366, 6.6831, 1.5951]" in note and "[0.0634, 0.4683, 0.4683]" in note
    assert vector(out, 4) in captions(at)[1]  # the preset's own note: output 1 as the page computes it
    step_maps_out = step_maps(at)["outputs"]["cells"][0]
    assert step_maps_out == [four_digits(v) for v in out]  # and the page shows it
    choice_widget(at.selectbox, "pg_preset").set_value("raw").run()
    assert note not in captions(at)  # the note goes with the tutorial


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_preset_note_says_when_the_tables_are_edited_and_when_they_are_back(lang):
    at = open_page("playground", lang)
    edited = shown(t("pg.preset_edited", lang, name=t_plain("pg.preset_tutorial", lang)))
    assert not any(edited in c for c in captions(at))
    edit(at, "w_k", 1, "k2", "3")
    assert any(edited in c for c in captions(at))  # said at once, though an edit reruns only the steps
    at.button[0].click().run()  # Reload preset
    assert not any(edited in c for c in captions(at))
    at.button(key="pg_undo").click().run()  # Undo brings the edit back, and the note with it
    assert any(edited in c for c in captions(at))
    edit(at, "w_k", 1, "k2", "1")  # typed back to the tutorial's number: the tables are the preset's again
    assert not any(edited in c for c in captions(at))
    at.toggle(key="pg_scale").set_value(True).run()
    changed = shown(t("pg.preset_options_changed", lang,
                      changes=t("pg.toggle_on", lang, name=t_plain("pg.opt_scale", lang))))
    assert any(changed in c for c in captions(at))


@pytest.mark.parametrize("lang, where, other", [("en", "for $j > i$", "时"), ("zh", "当 $j > i$ 时", " for ")])
def test_step_8s_mask_is_said_in_the_pages_language(lang, where, other):
    at = open_link("playground", {"lang": lang, "causal": "1"})
    assert not at.exception
    step8 = next(c for c in captions(at) if "softmax" in c and "M_{ij}" in c)
    assert where in step8 and other not in step8
    assert "\\text" not in step8  # no words inside the maths


@pytest.mark.parametrize("lang", list(LANGS))
def test_step_2s_title_names_the_biases_when_they_are_on(lang):
    at = open_page("playground", lang)
    titles = [h.value for h in at.subheader]
    assert str(t("pg.step2", lang)) in titles and not any("b_q" in h for h in titles)
    at.toggle(key="pg_bias").set_value(True).run()
    titles = [h.value for h in at.subheader]
    assert str(t("pg.step2_bias", lang)) in titles and str(t("pg.step2", lang)) not in titles
    assert "$b_q$" in str(t("pg.step2_bias", lang)) and "$W_v$" in str(t("pg.step2_bias", lang))


def test_the_shuffle_writes_the_outputs_as_step_8_does():
    at = open_link("playground", {"order": "3 1 2"})
    assert not at.exception
    step8 = step_maps(at)["outputs"]["cells"]
    outputs = self_attention(X, W_Q, W_K, W_V, scale=False).outputs
    assert step8 == [[four_digits(v) for v in row] for row in outputs] and step8[0][0] == "1.937"
    def written(matrix) -> list[str]:  # the cells of the shuffle's chart that holds ``matrix``
        found = [[c["shown"] for c in spec["data"]["values"]] for spec in heatmap_specs(at)
                 if len(spec["data"]["values"]) == matrix.size
                 and np.allclose([c["v"] for c in spec["data"]["values"]], matrix.ravel(), rtol=1e-12, atol=0)]
        assert len(found) == 1
        return found[0]

    assert written(outputs) == [v for row in step8 for v in row]  # "1.937", not "1.94"
    assert written(outputs[[2, 0, 1]]) == [v for i in (2, 0, 1) for v in step8[i]]  # the shuffled run, rows moved


def test_the_chinese_page_writes_chinese_punctuation():
    at = open_link("playground", {"lang": "zh", "causal": "1", "bias": "1", "order": "2 1 3", "pos": "sinusoidal"})
    assert not at.exception
    assert chinese_punctuation_problems(texts(at)) == []
    assert "“输入 1”的查询" in texts(at)  # the focus step, as the catalog now writes it


def read_zip(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_the_zip_says_how_its_numbers_were_made(downloads):
    params = {"lang": "zh", "preset": "random", "seed": "7", "scale": "1", "causal": "1", "bias": "1",
              "pos": "learned", "pseed": "5", "order": "3 1 2 4"}
    at = open_link("playground", params)
    assert not at.exception and not at.error
    files = read_zip(downloads["selfattn-playground.zip"])
    csvs = [name for name in files if name.endswith(".csv")]
    assert {"x.csv", "w_q.csv", "b_v.csv", "pe.csv", "outputs.csv", "shuffled_outputs.csv"} <= set(csvs)
    assert all(files[name].startswith(BOM) for name in csvs)  # Excel reads each as UTF-8
    lines = files["settings.txt"].decode("utf-8").splitlines()  # plain UTF-8, no mark needed
    link = sidebar_link(at)
    assert lines[0] == t_plain("pg.settings_title", "zh") and lines[2] == f"本视图的链接：{link}"
    assert lines[3:] == ["预设：随机（Xavier 初始化）", "表格：预设中的数字", "随机种子：7",
                         "尺寸：n = 4，d_in = 4，d_k = 3，d_v = 3", "除以 √d_k：开", "因果掩码：开", "偏置：开",
                         "位置编码：可学习位置编码（随机初始值），随机种子 5", "打乱后的顺序：3 1 2 4", "语言：简体中文"]
    # The link in the file opens the same view: the same numbers, bit for bit.
    again = open_link("playground", dict(parse_qsl(urlsplit(link).query)))
    assert not again.exception
    np.testing.assert_array_equal(read_csv_matrix(files["outputs.csv"], "outputs", cols=3)[0],
                                  read_csv_matrix(downloads["outputs.csv"], "outputs", cols=3)[0])
    assert read_zip(downloads["selfattn-playground.zip"]) == files


def test_an_edit_is_in_the_zips_settings_and_its_link(downloads):
    at = open_page("playground")
    lines = read_zip(downloads["selfattn-playground.zip"])["settings.txt"].decode("utf-8").splitlines()
    assert lines[3:] == ["Preset: The tutorial's example", "Tables: the preset's", "Seed: 0",
                         "Sizes: n = 3, d_in = 4, d_k = 3, d_v = 3", "Scale by √d_k: off", "Causal mask: off",
                         "Biases: off", "Positions: None", "Order: the original (no shuffled run)", "Language: English"]
    edit(at, "x", 0, "x1", "2.5")
    files = read_zip(downloads["selfattn-playground.zip"])
    lines = files["settings.txt"].decode("utf-8").splitlines()
    assert lines[4] == "Tables: edited (x.csv, w_q.csv, ... hold them)"
    link = lines[2].removeprefix("Link to this view: ")
    assert link == sidebar_link(at) and "x=" in link  # the edit travels in the link (x= or dx=)
    x, labels = read_csv_matrix(files["x.csv"], "X", cols=4)
    assert labels == ["Input 1", "Input 2", "Input 3"] and x[0, 0] == 2.5
    np.testing.assert_array_equal(x[1:], X[1:])
