"""The Playground's positions and shuffle sections through AppTest: what they change, say, keep and share."""

import io
import math
import zipfile
from urllib.parse import parse_qsl

import numpy as np
import pandas as pd
import pytest

from selfattn import self_attention
from selfattn.display import colours
from support.apptest import (assert_map_shows, choice_widget, click_expander, downloaded, edit, heatmap_specs,
                           map_frame, open_folded, open_link, open_page, shown, sidebar_link, step_maps, texts)

X = np.array([[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]], dtype=float)  # the tutorial's example
W_Q = np.array([[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]], dtype=float)
W_K = np.array([[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]], dtype=float)
W_V = np.array([[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]], dtype=float)


def sinusoidal(n: int, d: int) -> np.ndarray:
    """The formula once more, cell by cell with the math module (the app uses numpy)."""
    return np.array([[math.sin(p / 10000 ** (2 * (c // 2) / d)) if c % 2 == 0 else
                      math.cos(p / 10000 ** (2 * (c // 2) / d)) for c in range(d)] for p in range(n)])


def outputs(at) -> pd.DataFrame:
    return map_frame(at, "outputs")  # step 8's map, its cells read back as numbers (4 significant digits)


def exact_outputs(downloads) -> np.ndarray:
    """Step 8's outputs at full precision: the CSV its download button offered on the last run."""
    return downloaded(downloads, "outputs").to_numpy()


def link(at) -> dict[str, str]:
    code = sidebar_link(at)
    assert code.startswith("/playground"), code
    return dict(parse_qsl(code.split("?", 1)[1])) if "?" in code else {}


def matrix(spec: dict) -> np.ndarray:
    cells = spec["data"]["values"]
    out = np.zeros((max(c["r"] for c in cells) + 1, max(c["c"] for c in cells) + 1))
    for c in cells:
        out[c["r"], c["c"]] = c["v"]
    return out


def before_after(at) -> tuple[np.ndarray, np.ndarray]:
    """The shuffle section's two output heatmaps (the last two maps of the page)."""
    specs = heatmap_specs(at)
    return matrix(specs[-2]), matrix(specs[-1])


def set_order(at, text: str) -> None:
    """Type ``text`` as the order, in the shuffle's folded box (opened first where it is closed)."""
    open_folded(at, "pg_order_panel").text_input(key="pg_order").set_value(text).run()
    assert not at.exception, [e.value for e in at.exception]


def test_positions_change_the_outputs_and_travel_in_the_link(downloads):
    at = open_page("playground")
    plain = exact_outputs(downloads)
    np.testing.assert_allclose(plain, self_attention(X, W_Q, W_K, W_V, scale=False).outputs, rtol=1e-12)
    assert_map_shows(at, "outputs", self_attention(X, W_Q, W_K, W_V, scale=False).outputs)
    choice_widget(at.segmented_control, "pg_pos").set_value("sinusoidal").run()
    assert not at.exception
    with_pe = exact_outputs(downloads)
    want = self_attention(X + sinusoidal(3, 4), W_Q, W_K, W_V, scale=False).outputs
    np.testing.assert_allclose(with_pe, want, rtol=1e-13)
    assert_map_shows(at, "outputs", want)
    assert np.abs(outputs(at).to_numpy() - plain).max() > 0.5  # a real change, in what the map shows
    assert any(matrix(s).shape == (3, 4) and np.allclose(matrix(s), sinusoidal(3, 4), rtol=0, atol=1e-15)
               for s in heatmap_specs(at))  # PE is drawn as a heatmap
    params = link(at)
    assert params["pos"] == "sinusoidal"
    again = open_link("playground", params)
    assert not again.exception and not again.warning
    np.testing.assert_array_equal(exact_outputs(downloads), with_pe)  # bit-identical
    assert step_maps(again)["outputs"] == step_maps(at)["outputs"]


def test_learned_style_positions_follow_their_seed_and_the_link_keeps_it(downloads):
    at = open_link("playground", {"pos": "learned", "pseed": "7"})
    assert not at.exception and not at.warning
    pe = np.round(np.random.default_rng(7).standard_normal((3, 4)), 3)
    want = self_attention(X + pe, W_Q, W_K, W_V, scale=False).outputs
    np.testing.assert_allclose(exact_outputs(downloads), want, rtol=1e-13)
    assert_map_shows(at, "outputs", want)
    at.number_input(key="pg_pos_seed").set_value(8).run()
    assert link(at)["pseed"] == "8"
    assert not np.allclose(exact_outputs(downloads), want)
    assert not np.allclose(outputs(at).to_numpy(), want, rtol=1e-3)  # the map shows the change too


@pytest.mark.parametrize("lang, line", [
    ("en", "Output of Input 2 (row 2) is unchanged; it moved to row 3"),
    ("zh", "输入 2（第 2 行）的输出没有变，只是移到了第 3 行")])
def test_shuffling_without_positions_permutes_the_output_rows_exactly(lang, line, downloads):
    at = open_page("playground", lang)
    set_order(at, "3 1 2")
    order = [2, 0, 1]
    before, after = before_after(at)
    np.testing.assert_array_equal(before, exact_outputs(downloads))  # the "before" map is step 8's outputs
    assert_map_shows(at, "outputs", self_attention(X, W_Q, W_K, W_V, scale=False).outputs)
    np.testing.assert_array_equal(after, self_attention(X[order], W_Q, W_K, W_V, scale=False).outputs)
    np.testing.assert_allclose(after, before[order], rtol=0, atol=1e-15)  # the same rows, moved
    assert line in texts(at)
    assert len(at.success) == 1 and not at.warning
    assert link(at)["order"] == "3 1 2"


def test_the_same_shuffle_with_positions_changes_the_outputs_and_says_by_how_much():
    at = open_link("playground", {"order": "3 1 2", "pos": "sinusoidal"})
    assert not at.exception
    pe = sinusoidal(3, 4)
    before = self_attention(X + pe, W_Q, W_K, W_V, scale=False).outputs
    after = self_attention(X[[2, 0, 1]] + pe, W_Q, W_K, W_V, scale=False).outputs
    gap = np.abs(after - before[[2, 0, 1]]).max()
    assert gap > 1
    warning = shown(at.warning[0].value)
    assert "The outputs changed" in warning and f"{gap:.2g}" in warning and "position vector" in warning
    assert "Output of Input 2 (row 2) changed: in row 3" in texts(at)
    np.testing.assert_allclose(before_after(at)[1], after, rtol=1e-13)


def test_the_causal_mask_is_said_to_see_the_order():
    at = open_link("playground", {"order": "2 1 3", "causal": "1", "lang": "zh"})
    assert not at.exception
    assert "因果掩码" in shown(at.warning[0].value)
    assert "输出变了" in shown(at.warning[0].value)


def test_a_bad_order_is_explained_in_both_languages_and_the_last_good_check_is_kept():
    at = open_page("playground")
    set_order(at, "3 1 2")
    good = before_after(at)[1]
    set_order(at, "1 1 2")
    assert "1 appears twice and 3 is missing" in shown(at.error[0].value)
    assert "The last good order, **3 1 2**, is used below" in shown(at.error[0].value)
    np.testing.assert_array_equal(before_after(at)[1], good)
    at.radio(key="lang").set_value("zh").run()
    assert "1 出现了两次，3 没有出现" in shown(at.error[0].value)
    set_order(at, "1 2 x")
    assert "“x”不是词元编号" in shown(at.error[0].value)
    set_order(at, "1 2")
    assert "写了 2 个词元，但一共有 3 个" in shown(at.error[0].value)


def test_a_bad_order_in_a_link_is_explained_not_a_traceback():
    at = open_link("playground", {"order": "9 1 2"})
    assert not at.exception
    assert "9 is not a token number" in shown(at.error[0].value)
    assert len(outputs(at)) == 3  # the steps are all there


def test_random_draw_undo_and_original_order():
    at = open_folded(open_page("playground"), "pg_order_panel")
    at.number_input(key="pg_order_seed").set_value(4).run()  # a new seed draws at once
    drawn = at.text_input(key="pg_order").value
    assert sorted(drawn.split()) == ["1", "2", "3"] and drawn != "1 2 3"
    at.button(key="pg_order_draw").click().run()  # the same seed draws the same order
    assert at.text_input(key="pg_order").value == drawn
    set_order(at, "2 1 3")
    at.button(key="pg_order_undo_button").click().run()
    assert at.text_input(key="pg_order").value == drawn
    at.button(key="pg_order_reset").click().run()
    assert at.text_input(key="pg_order").value == "" and "order" not in link(at)
    at.button(key="pg_order_undo_button").click().run()
    assert at.text_input(key="pg_order").value == drawn and link(at)["order"] == drawn


def test_the_zip_holds_the_positions_and_the_shuffle(downloads):
    at = open_link("playground", {"order": "3 1 2", "pos": "sinusoidal"})
    assert not at.exception
    with zipfile.ZipFile(io.BytesIO(downloads["selfattn-playground.zip"])) as archive:
        names = set(archive.namelist())
        assert {"pe.csv", "x_plus_pe.csv", "order.csv", "shuffled_x.csv", "shuffled_outputs.csv"} <= names
        read = {name: pd.read_csv(archive.open(f"{name}.csv"), index_col=0)
                for name in ("pe", "x_plus_pe", "order", "shuffled_outputs", "outputs")}
    pe = sinusoidal(3, 4)
    np.testing.assert_allclose(read["pe"].to_numpy(), pe, rtol=0, atol=1e-15)
    np.testing.assert_allclose(read["x_plus_pe"].to_numpy(), X + pe, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(read["order"].to_numpy(), np.eye(3)[[2, 0, 1]])
    assert list(read["shuffled_outputs"].index) == ["Input 3", "Input 1", "Input 2"]
    np.testing.assert_allclose(read["shuffled_outputs"].to_numpy(),
                               self_attention(X[[2, 0, 1]] + pe, W_Q, W_K, W_V, scale=False).outputs, rtol=1e-15)


def shuffle_box(at):
    """The shuffle's folded box (``pg_order_panel``) as drawn, and whether its body ran (its order box made)."""
    box = next(e for e in at.main.expander if e.proto.id.endswith("-pg_order_panel"))
    return box.proto.expanded, any(w.key == "pg_order" for w in at.text_input)


def zipped(downloads) -> set[str]:
    with zipfile.ZipFile(io.BytesIO(downloads["selfattn-playground.zip"])) as archive:
        return set(archive.namelist())


def test_the_shuffle_box_runs_nothing_closed_and_keeps_the_order_in_the_link_and_the_zip(downloads):
    """Issue 52: the shuffle's box is folded. A newcomer finds it closed and its body does not run; a link that names
    an order opens it; closed over an order, the order stays in the link and its tables in the ZIP, and opened again
    (in another language too) it draws the check for that order."""
    at = open_page("playground")
    assert shuffle_box(at) == (False, False) and len(heatmap_specs(at)) == 0  # closed: no widget, no chart made
    at = open_link("playground", {"order": "3 1 2"})
    assert shuffle_box(at) == (True, True)
    drawn = before_after(at)
    click_expander(at, "pg_order_panel", opened=False)
    assert shuffle_box(at) == (False, False) and len(heatmap_specs(at)) == 0
    assert link(at)["order"] == "3 1 2"
    downloads.clear()
    at.run()
    assert {"order.csv", "shuffled_x.csv", "shuffled_outputs.csv"} <= zipped(downloads)
    at.radio(key="lang").set_value("zh").run()
    assert shuffle_box(at) == (False, False), "a relabelled box stays as the visitor left it"
    click_expander(at, "pg_order_panel", opened=True)
    assert shuffle_box(at) == (True, True) and at.text_input(key="pg_order").value == "3 1 2"
    np.testing.assert_array_equal(before_after(at)[1], drawn[1])


@pytest.mark.parametrize("preset, n", [("tutorial", 3), ("raw", 3), ("random", 4)])
@pytest.mark.parametrize("causal, bias", [(False, False), (True, True)])
def test_every_preset_mask_and_bias(preset, n, causal, bias):
    order = list(range(n))[::-1]  # reversed
    params = {"preset": preset, "order": ",".join(str(i + 1) for i in order), **({"causal": "1"} if causal else {}),
              **({"bias": "1"} if bias else {})}
    at = open_link("playground", params)
    assert not at.exception and not at.error
    before, after = before_after(at)
    if causal:
        assert len(at.warning) == 1 and not at.success and "causal mask" in at.warning[0].value
    else:
        assert len(at.success) == 1 and not at.warning
        np.testing.assert_allclose(after, before[order], rtol=0, atol=1e-12 * max(1, np.abs(before).max()))


def test_a_big_table_with_positions_and_a_long_order():
    at = open_page("playground")
    for key, value in {"pg_n": 32, "pg_d_in": 16, "pg_d_k": 8, "pg_d_v": 8}.items():
        at.number_input(key=key).set_value(value).run()
    choice_widget(at.segmented_control, "pg_pos").set_value("sinusoidal").run()
    set_order(at, " ".join(str(32 - i) for i in range(32)))
    assert not at.exception and not at.error
    assert len(at.warning) == 1 and "position vector" in at.warning[0].value
    assert any("The other 24 tokens" in e.proto.popover.label for e in at.get("popover"))
    edit(at, "x", 0, "x1", "2")  # an edit recomputes the shuffle too
    assert not at.exception and not at.error


def test_an_order_for_another_number_of_tokens_is_said_and_nothing_stale_is_drawn():
    at = open_page("playground")
    set_order(at, "3 1 2")
    charts = len(heatmap_specs(at))
    at.number_input(key="pg_n").set_value(4).run()
    assert not at.exception
    assert len(outputs(at)) == 4  # the steps follow the new table
    assert "The order names 3 tokens, but there are 4" in shown(at.error[0].value)
    assert "last good" not in at.error[0].value  # the old order does not fit 4 tokens: nothing kept
    assert len(heatmap_specs(at)) == charts - 3  # no P, no before, no after
    set_order(at, "4 3 2 1")
    assert not at.error and len(at.success) == 1


def test_a_link_reproduces_the_shuffle_with_learned_positions_exactly(downloads):
    at = open_page("playground", "zh")
    choice_widget(at.segmented_control, "pg_pos").set_value("learned").run()
    at.number_input(key="pg_pos_seed").set_value(3).run()
    at.toggle(key="pg_bias").set_value(True).run()
    set_order(at, "2，3，1")
    params = link(at)
    assert {params["pos"], params["pseed"], params["order"], params["lang"]} == {"learned", "3", "2，3，1", "zh"}
    mine = exact_outputs(downloads)
    again = open_link("playground", params)
    assert not again.exception and not again.warning[1:]  # the one warning: the outputs changed
    assert "输出变了" in shown(again.warning[0].value)
    np.testing.assert_array_equal(exact_outputs(downloads), mine)  # bit-identical
    assert step_maps(again) == step_maps(at)  # every step map, its cells as written
    for mine, theirs in zip(before_after(again), before_after(at)):
        np.testing.assert_array_equal(mine, theirs)
    assert texts(again).count("只是移到了") == texts(at).count("只是移到了")


def test_positions_and_the_shuffle_are_coloured_by_role():
    from support.apptest import assert_coloured_by_role

    at = open_link("playground", {"order": "3 1 2", "pos": "sinusoidal"})
    # Vega maps: P (a row of P sums to 1: green, 0..1); PE diverging around 0
    assert assert_coloured_by_role(heatmap_specs(at)) == (1, 1)
    weights = step_maps(at)["weights"]  # the weights: a step map now, green over 0..1
    assert weights["stops"] == list(colours.stops("weights")) and (weights["lo"], weights["hi"]) == (0.0, 1.0)
    assert step_maps(at)["outputs"]["stops"] == list(colours.stops("outputs"))
