"""The Playground's words follow what it shows: step 2's title, step 8's mask, and the ZIP's
settings.txt (AppTest)."""

import io
import zipfile
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pytest

from selfattn.display.grid import read_csv_matrix
from selfattn.i18n import LANGS, t, t_plain
from tests.apptest import edit, open_link, open_page, shown

BOM = b"\xef\xbb\xbf"
X = np.array([[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]], dtype=float)


def captions(at) -> list[str]:
    return [shown(c.value) for c in at.caption]


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
    link = at.sidebar.code[0].value
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
    assert link == at.sidebar.code[0].value and "x=" in link  # the edit travels in the link (x= or dx=)
    x, labels = read_csv_matrix(files["x.csv"], "X", cols=4)
    assert labels == ["Input 1", "Input 2", "Input 3"] and x[0, 0] == 2.5
    np.testing.assert_array_equal(x[1:], X[1:])
