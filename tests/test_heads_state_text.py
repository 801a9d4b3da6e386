"""Heads & devices (issue 23): every sentence and formula follows the state it describes, the mistake
panels compare on one colour scale, and mistake 2's weights and row sums agree with torch."""

import math

import numpy as np
import pytest
import torch

from selfattn.core.heads import MISTAKES
from selfattn.i18n import CATALOG
from support.apptest import heatmap_specs, open_link, open_part
from ui.heads import page as hd

STATES = {  # link parameters -> (n, d_model, heads, causal)
    "default": ({}, (6, 16, 4, False)),
    "causal, 8 heads of 4": ({"n": "5", "d": "32", "heads": "8", "causal": "1"}, (5, 32, 8, True)),
    "one head": ({"n": "3", "d": "8", "heads": "1"}, (3, 8, 1, False)),
    "one token, 16 heads": ({"n": "1", "d": "64", "heads": "16"}, (1, 64, 16, False)),
}
OPEN = {"open": "~".join(MISTAKES)}


def page(params: dict, lang: str = "en"):
    at = open_link("heads", {**params, **OPEN, "lang": lang})
    assert not at.exception and not at.error
    return at


def said_here(at) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption] + [i.value for i in at.info]
                     + [e.label for e in at.expander])


def everything_said(at) -> str:
    """What the comparison part and the check part say (each drawn alone, ui/parts.py); ``at`` is left on the
    comparison."""
    said = said_here(open_part(at, "heads", "check"))
    return said_here(open_part(at, "heads", "compare")) + "\n" + said


def check_part(params: dict, lang: str = "en"):
    """The link opened on the check part, where the mistake panels are."""
    return page({**params, "part": "check"}, lang)


def sqrt(k: int) -> str:
    return rf"QK^\top/\sqrt{{{k}}}"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", STATES)
def test_every_formula_and_sentence_names_the_sizes_and_mask_on_screen(name, lang):
    params, (n, d, h, causal) = STATES[name]
    at = page(params, lang)
    said = everything_said(at)
    k = d // h
    shapes = next(m.value for m in at.markdown if m.value.startswith("$X$"))
    assert f"`{n} × {d}`" in shapes and f"`{h} × {n} × {k}`" in shapes and f"`{h} × {n} × {n}`" in shapes
    assert sqrt(k) in shapes
    assert (r"+ M)" in said) == causal and (CATALOG["hd.mask_note"][lang] in said) == causal
    assert sqrt(d) in said  # the one-head map: all d_model columns
    if h > 1:
        assert sqrt(k) in next(c.value for c in at.caption if f"$d_k = {k}$" in c.value)
    else:  # one head is the whole: no "slices" sentence
        assert CATALOG["hd.multi_caption_one"][lang] in said
    assert f"(`{n} × {d}`)" in said or f"（`{n} × {d}`）" in said  # the PyTorch check names this X
    assert f"`({n}, {d})`" in said and f"`({h}, {n}, {k})`" in said and f"`({n}, {h}, {k})`" in said
    assert rf"\sqrt{{{k}}} = {math.sqrt(k):.4g}" in said  # mistake 2: by how much the weights shrink
    same = {"hd.mistake_same_heads": h == 1, "hd.mistake_same_tokens": n == 1 and h > 1}
    for key, expected in same.items():
        assert (CATALOG[key][lang] in said) == expected, key
    for prose in (shapes, *[c.value for c in at.caption]):  # no drift back to plain-text maths
        assert "√" not in prose and "QKᵀ" not in prose


def torch_heads(x, weights, h: int, causal: bool):
    """Per-head attention weights, right and scaled after the softmax, computed in torch (float64)."""
    x = torch.as_tensor(x, dtype=torch.float64)
    w = {k: torch.as_tensor(v, dtype=torch.float64) for k, v in weights.items()}
    n, d = x.shape

    def split(t):  # (n, d) -> (h, n, d/h): reshape, then transpose
        return t.view(n, h, d // h).transpose(0, 1)

    q, k = split(x @ w["w_q"]), split(x @ w["w_k"])
    scores = q @ k.transpose(-1, -2)  # (h, n, n)
    mask = torch.ones(n, n, dtype=torch.bool).tril() if causal else torch.ones(n, n, dtype=torch.bool)
    right = torch.softmax((scores / math.sqrt(d // h)).masked_fill(~mask, float("-inf")), dim=-1)
    wrong = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1) / math.sqrt(d // h)
    return right.numpy(), wrong.numpy()


def cells(spec) -> np.ndarray:
    values = spec["data"]["values"]
    out = np.full((max(c["r"] for c in values) + 1, max(c["c"] for c in values) + 1), np.nan)
    for c in values:
        out[c["r"], c["c"]] = c["v"]
    return out


def domain(spec) -> list[float]:
    return spec["layer"][0]["encoding"]["color"]["scale"]["domain"]


@pytest.mark.parametrize("name", ["default", "causal, 8 heads of 4"])
def test_mistake_2_shows_the_weights_and_their_row_sums_as_torch_computes_them(name):
    params, (n, d, h, causal) = STATES[name]
    at = check_part(params)
    x, tokens, weights, _, _ = at.session_state["hd_good"]
    right, wrong = torch_heads(x, weights, h, causal)
    *_, right_map, wrong_map, sums_map = heatmap_specs(at)  # the last panel's three maps
    np.testing.assert_allclose(cells(right_map), right[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(cells(wrong_map), wrong[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(cells(sums_map), np.stack([right[0].sum(-1), wrong[0].sum(-1)], 1), atol=1e-12)
    assert np.allclose(cells(sums_map)[:, 1], 1 / math.sqrt(d // h))  # "rows no longer sum to 1", shown
    assert domain(right_map) == domain(wrong_map) == [0.0, 1.0]  # one colour, one number
    sums_line = next(c.value for c in at.caption if c.value.startswith("Row sums over all"))
    expected = CATALOG["hd.row_sums_range"]["en"].format(
        h=h, right_lo=f"{right.sum(-1).min():.6g}", right_hi=f"{right.sum(-1).max():.6g}",
        wrong_lo=f"{wrong.sum(-1).min():.6g}", wrong_hi=f"{wrong.sum(-1).max():.6g}")
    assert sums_line == expected


def test_mistake_1_right_and_wrong_outputs_share_one_colour_scale():
    at = check_part(STATES["causal, 8 heads of 4"][0])
    specs = heatmap_specs(at)
    right_map, wrong_map, diff_map = specs[-6:-3]
    values = np.concatenate([cells(right_map).ravel(), cells(wrong_map).ravel()])
    assert domain(right_map) == domain(wrong_map) == [float(values.min()), float(values.max())]
    x, _, weights, _, multi = at.session_state["hd_good"]
    np.testing.assert_allclose(cells(right_map), multi.outputs, atol=1e-12)
    np.testing.assert_allclose(cells(diff_map), cells(wrong_map) - cells(right_map), atol=1e-12)
    spread = float(np.max(np.abs(cells(diff_map))))
    assert domain(diff_map) == [-spread, spread]


def test_a_formula_follows_a_change_of_heads_and_mask_in_the_same_session():
    at = page({})
    at.select_slider(key="hd_heads").set_value(2).run()
    at.toggle(key="hd_causal").set_value(True).run()
    said = everything_said(at)
    assert rf"\mathrm{{softmax}}({sqrt(8)} + M)" in said and rf"\mathrm{{softmax}}({sqrt(16)} + M)" in said
    assert sqrt(4) not in said  # nothing left of 4 heads of 4


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bundled_results_are_shown_by_default_with_machine_date_and_settings(lang):
    at = open_link("heads", {"lang": lang, "part": "bench"})
    assert not at.exception
    assert not [i for i in at.info if i.value == CATALOG["hd.bench_empty"][lang]]
    captions = [c.value for c in at.caption]
    labels = {name: CATALOG["hd.bundled_name"][lang].format(device=records[0]["device_name"], dtype=records[0]["dtype"])
              for name, records in hd.bundled_results().items()}
    for name, records in hd.bundled_results().items():
        about = hd.bundled_about()[name]
        line = next(c for c in captions if labels[name] in c)
        assert about["measured"][:10] in line and about["machine"] in line
        for field in ("dtype", "batch", "d_model", "torch_version", "num_threads"):
            assert str(records[0][field]) in line, field
    table = at.dataframe[-1].value
    sources = set(table[CATALOG["hd.col_source"][lang]])
    assert sources == set(labels.values())
    impls = set(table[CATALOG["hd.col_impl"][lang]])
    assert impls == {CATALOG[f"hd.impl_{i}"][lang] for i in ("naive", "fused", "torch_mha")}


def test_the_device_box_names_the_device_briefly_and_the_caption_names_the_machine(two_threads):
    from selfattn import bench

    at = open_link("heads", {"part": "bench"})
    box = at.selectbox(key="hd_device")
    assert box.options == [CATALOG["hd.device_cpu"]["en"]] + ([CATALOG["hd.device_cuda"]["en"]]
                                                             if torch.cuda.is_available() else [])
    assert any(bench.device_name("cpu") in c.value and "1 thread(s)" in c.value for c in at.caption)


def test_chart_legends_name_the_implementations_in_chinese_while_exports_keep_the_ids(downloads):
    import json

    import pyarrow as pa

    from selfattn import bench

    at = open_link("heads", {"lang": "zh", "part": "bench"})
    assert not at.exception
    series, sorts = set(), []
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        if "usermeta" in spec:  # a heatmap of ui.map_sizes
            continue
        sorts.append(spec["layer"][0]["encoding"]["color"]["sort"])
        for dataset in chart.proto.datasets:
            frame = pa.ipc.open_stream(dataset.data.data).read_pandas()
            series |= set(frame["series"])
    assert len(sorts) == 4 and series  # a time and a memory chart for each bundled machine
    names = [CATALOG[f"hd.impl_{impl}"]["zh"] for impl in bench.IMPLS]
    assert all(s.split(" · ")[0] in names for s in series), series  # 分步实现, 融合实现, PyTorch 多头模块
    assert not any(word in s for s in series for word in ("naive", "fused", "torch_mha"))
    assert series <= set().union(*sorts) and all(s[0].startswith(names[0]) for s in sorts)  # three steps first
    back = bench.load_results(downloads["selfattn-bench.csv"], "selfattn-bench.csv")
    assert {r["impl"] for r in back} == set(bench.IMPLS)  # the files keep the stable ids
    assert json.loads(downloads["selfattn-bench.json"])["records"][0]["impl"] in bench.IMPLS
