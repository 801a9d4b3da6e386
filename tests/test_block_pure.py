"""The Transformer block page without Streamlit (selfattn/block/): its View, its link, ε, lengths and compute_toy.

The core maths (selfattn/core/block.py) has its own tests; here the page's layer around it: what a link
carries, what a visitor may type, and the InputError code each bad input gets.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from selfattn.block import link
from selfattn.block.compute import compute_toy, read_eps, read_lengths
from selfattn.block.view import (ACTIVATIONS, ALL_TABLES, CELL_CHARS, FIELDS, MAX_DFF, MAX_LAYERS, MAX_SEED,
                                 MAX_TOKENS, PRESET_SETTINGS, PRESETS, View, base_rows, fit_edits, table_ids,
                                 table_shape, view)
from selfattn.core.positions import KINDS
from selfattn.display import share
from selfattn.errors import InputError

CELL = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=CELL_CHARS)


def edited(shown: View, table: str, cells: dict) -> tuple[tuple[str, ...], ...]:
    rows = [list(r) for r in base_rows(shown, table)]
    for (i, j), text in cells.items():
        rows[i][j] = text
    return tuple(tuple(r) for r in rows)


@st.composite
def views(draw) -> View:
    """A view a visitor could make: every setting within its limits and edits in some tables of the stack."""
    layers = draw(st.integers(1, 3))  # small: the codec does not care
    source = draw(st.sampled_from(("toy", "real")))
    text = draw(st.text(alphabet=st.characters(codec="utf-8", min_codepoint=32, exclude_categories=("Cs", "Cc")),
                        min_size=1, max_size=40))
    n, d = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    base = dict(source=source, preset=draw(st.sampled_from(PRESETS)), seed=draw(st.integers(0, MAX_SEED)), n=n,
                d=d, heads=draw(st.sampled_from([h for h in range(1, d + 1) if d % h == 0])), dff=draw(st.integers(1, 8)),
                layers=layers, norm=draw(st.sampled_from(("post", "pre"))), act=draw(st.sampled_from(ACTIVATIONS)),
                eps=draw(st.sampled_from(("1e-05", "1e-12", "0.001", "abc", ""))), causal=draw(st.booleans()),
                final=draw(st.booleans()), pos=draw(st.sampled_from(KINDS)), layer=draw(st.integers(0, layers - 1)),
                batch=draw(st.booleans()), lengths=draw(st.sampled_from(("4 2 3", "1 1", "x"))),
                maxlen=draw(st.integers(1, MAX_TOKENS)), text=text, rlayer=draw(st.integers(0, 5)))
    top = min(len(text) + 2, 32) if source == "real" else n
    shown = View(focus=draw(st.integers(0, top - 1)), **base)
    edits = {}
    for table in draw(st.lists(st.sampled_from(table_ids(layers)), max_size=4, unique=True)):
        rows, cols = table_shape(shown, table)
        cells = draw(st.dictionaries(st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1)), CELL,
                                     min_size=1, max_size=rows * cols))
        rows_typed = edited(shown, table, cells)
        if rows_typed != base_rows(shown, table):
            edits[table] = rows_typed
    return replace(shown, edits=tuple(sorted(edits.items())))


@settings(derandomize=True, max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(views())
def test_a_view_survives_its_link(shown):
    params = link.encode(shown)
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in params.items())
    assert set(params) <= {f.param for f in FIELDS} | set(link.LINK_PARAMS)
    assert link.decode(params) == (shown, {})


def test_defaults_write_an_empty_link_and_an_edit_is_a_diff():
    assert link.encode(View()) == {}
    assert link.decode({}) == (View(), {})
    shown = View(layers=2, edits=(("2wo", edited(View(), "2wo", {(1, 2): "2.5"})),))
    params = link.encode(shown)
    assert params == {"layers": "2", "d2wo": "1.2.2.5"}
    assert link.decode(params) == (shown, {})
    whole = View(edits=(("x", tuple(tuple("1" for _ in range(4)) for _ in range(4))),))
    assert set(link.encode(whole)) == {"tx"}  # every cell changed: the full table is shorter
    assert link.decode(link.encode(whole)) == (whole, {})


def test_an_edit_equal_to_the_seeded_table_is_not_written():
    same = View(edits=(("x", base_rows(View(), "x")),))
    assert link.encode(same) == {}


@pytest.mark.parametrize("param, value, reason", [
    ("n", "٣", "not_whole"), ("n", "１２", "not_whole"), ("n", "3.0", "not_whole"), ("n", "17", "out_of_range"),
    ("seed", "²", "not_whole"), ("layers", "7", "out_of_range"), ("d", "0", "out_of_range"),
    ("dff", str(MAX_DFF + 1), "out_of_range"), ("heads", "", "not_whole"), ("layer", "٢", "not_whole"),
    ("maxlen", "+3", "not_whole"), ("heads", "3", "not_offered"), ("causal", "yes", "not_bool"), ("norm", "middle", "not_offered"),
    ("act", "tanh", "not_offered"), ("source", "evil", "not_offered"), ("eps", "1" * 25, "too_long"),
    ("text", "a" * 301, "too_long"), ("text", "a\x00b", "control_chars"),
])
def test_a_bad_setting_is_named_and_the_rest_kept(param, value, reason):
    opened, bad = link.decode({param: value, "causal" if param != "causal" else "final": "1"})
    assert set(bad) == {param} and bad[param].reason == reason, bad
    assert opened.causal or opened.final  # the good parameter is used
    assert getattr(opened, param) == getattr(View(), param)  # the bad one left at its default


def test_each_bad_table_param_is_named_and_the_good_ones_kept():
    params = {"layers": "2",
              "tx": "1_2~3_4",  # wrong shape: X is 4 × 4
              "t1wq": "1_2_3_4~1_2_3_4~1_2_3_4~1_2_3_4~1_2_3_4",  # 5 rows
              "d1wk": "9.9.5",  # outside the 4 × 4 table
              "d1wv": "0.0.7",  # fine
              "d1ln": "x.y.z",  # garbled
              "d3wo": "0.0.1",  # layer 3 of a stack of 2
              "t4b2": "1_1_1_1",  # layer 4
              "d2b1": "0.0." + "1" * (CELL_CHARS + 1),  # a cell longer than an editor takes
              "t2b2": "1_2~3",  # ragged
              }
    opened, bad = link.decode(params)
    assert {k: v.reason for k, v in bad.items()} == {
        "tx": "wrong_shape", "t1wq": "wrong_shape", "d1wk": "cell_outside", "d1ln": "garbled", "d3wo": "not_offered",
        "t4b2": "not_offered", "d2b1": "too_long", "t2b2": "ragged"}
    assert opened.layers == 2 and set(opened.edited) == {"1wv"} and opened.edited["1wv"][0][0] == "7"


@pytest.mark.parametrize("params, heads", [({"d": "6", "heads": "4"}, 2), ({"heads": "3"}, 2), ({"d": "5", "heads": "2"}, 1),
                                            ({"d": "5", "heads": "3"}, 1)])
def test_heads_that_do_not_divide_d_model_are_named(params, heads):
    opened, bad = link.decode(params)
    assert set(bad) == {"heads"} and bad["heads"].reason == "not_offered"
    assert opened.heads == heads and opened.d % opened.heads == 0


def test_a_link_without_heads_gets_heads_that_divide_d_model():
    opened, bad = link.decode({"d": "5"})
    assert bad == {} and opened.heads == 1


def test_a_focus_or_layer_beyond_the_view_is_named_and_reset():
    opened, bad = link.decode({"focus": "5", "layer": "2"})  # 4 tokens, 1 layer
    assert set(bad) == {"focus", "layer"} and opened.focus == 0 and opened.layer == 0
    opened, bad = link.decode({"n": "6", "focus": "5", "layers": "3", "layer": "3"})
    assert bad == {} and opened.focus == 4 and opened.layer == 2


def test_a_huge_param_is_refused_without_work():
    opened, bad = link.decode({"tx": "1_" * 30_000, "d1wq": "0.0.1_" * 10_000})
    assert bad["tx"].reason == "too_long" and bad["d1wq"].reason == "too_long" and opened.edits == ()


# ── ε and the batch's lengths ────────────────────────────────────────────────────────────

@pytest.mark.parametrize("text, value", [("1e-5", 1e-5), ("0.001", 0.001), ("1e-12", 1e-12), (" 1e-05 ", 1e-5),
                                         ("１e-5", 1e-5)])
def test_eps_accepts_a_positive_number(text, value):
    assert read_eps(text) == value


@pytest.mark.parametrize("text", ["0", "-1", "nan", "inf", "-inf", "", "abc", "1e400", "1e-400", "0x1p-3", "1" * 30, None])
def test_eps_refuses_anything_else(text):
    with pytest.raises(InputError) as caught:
        read_eps(text)
    assert caught.value.code == "eps_bad" and caught.value.params["eps"] == str(text)[:24]  # as typed: "0", not "0.0"


@pytest.mark.parametrize("text, n, lengths", [("4 2 3", 4, [4, 2, 3]), ("1,1", 1, [1, 1]), ("4，2、3;1", 4, [4, 2, 3, 1]),
                                              ("  2   3 ", 5, [2, 3]), ("１ ２", 2, [1, 2])])
def test_lengths_are_two_to_four_whole_numbers(text, n, lengths):
    assert read_lengths(text, n) == lengths


@pytest.mark.parametrize("text, n", [("4", 4), ("", 4), ("1 2 3 4 1", 4), ("0 2", 4), ("5 2", 4), ("2.5 1", 4),
                                     ("-1 2", 4), ("a b", 4), ("٣ 2", 4), ("999 1", 4), ("1" * 200, 4)])
def test_bad_lengths_are_refused(text, n):
    with pytest.raises(InputError) as caught:
        read_lengths(text, n)
    assert caught.value.code == "batch_lengths"


# ── Edits that no longer fit ─────────────────────────────────────────────────────────────

def test_fit_edits_drops_the_tables_that_no_longer_fit():
    start = View(layers=2)
    edits = {"x": edited(start, "x", {(0, 0): "9"}), "1wq": edited(start, "1wq", {(0, 0): "9"}),
             "1b1": edited(start, "1b1", {(0, 7): "9"}), "2wo": edited(start, "2wo", {(3, 3): "9"})}
    shown = replace(start, edits=tuple(sorted(edits.items())))
    assert fit_edits(shown) == (edits, [])
    fewer_tokens = replace(shown, n=3)  # X is 3 × 4 now; the weights still fit
    kept, dropped = fit_edits(fewer_tokens)
    assert dropped == ["x"] and set(kept) == {"1wq", "1b1", "2wo"}
    wider_ff = replace(shown, dff=9)  # b_1 is 1 × 9
    assert fit_edits(wider_ff)[1] == ["1b1"]
    one_layer = replace(shown, layers=1)
    assert fit_edits(one_layer)[1] == ["2wo"]
    wider = replace(shown, d=8, heads=2)
    assert sorted(fit_edits(wider)[1]) == ["1wq", "2wo", "x"]  # b_1 is 1 × d_ff still
    heads = replace(shown, heads=4)  # heads do not change any table
    assert fit_edits(heads) == (edits, [])


def test_fit_edits_forgets_an_edit_equal_to_the_seeded_table():
    shown = View(edits=(("x", base_rows(View(), "x")),))
    assert fit_edits(shown) == ({}, [])


# ── compute_toy: the InputError of each bad input, and the checks it computes ────────────

def code_of(shown: View) -> InputError:
    with pytest.raises(InputError) as caught:
        compute_toy(shown, check=False)
    return caught.value


def with_cell(table: str, text: str, **settings_) -> View:
    shown = View(**settings_)
    return replace(shown, edits=((table, edited(shown, table, {(1, 2): text})),))


def test_heads_that_do_not_divide_d_model_are_refused():
    assert code_of(View(d=6, heads=4)).code == "heads_not_divisible"
    assert code_of(View(d=4, heads=3)).code == "heads_not_divisible"


@pytest.mark.parametrize("text, code", [("nan", "cell_not_finite"), ("inf", "cell_not_finite"),
                                        ("abc", "cell_not_number"), ("", "cell_empty"), (" ", "cell_empty"),
                                        ("1e400", "cell_too_large")])
def test_a_bad_cell_names_its_table(text, code):
    error = code_of(with_cell("x", text))
    assert error.code == code and error.params["matrix"] == "X" and (error.params["row"], error.params["col"]) == ("2", "3")
    error = code_of(with_cell("2w1", text, layers=2))
    assert error.code == code and error.params["matrix"] == "W_1 (2)"
    error = code_of(with_cell("1ln", text))
    assert error.code == code and error.params["row"] == "β₁"


@pytest.mark.parametrize("eps", ["0", "-1", "nan", "inf", "", "abc", "1e400"])
def test_a_bad_eps_is_refused(eps):
    assert code_of(View(eps=eps)).code == "eps_bad"


@pytest.mark.parametrize("changes, name", [({"layers": MAX_LAYERS + 1}, "layers"), ({"layers": 0}, "layers"),
                                           ({"n": MAX_TOKENS + 1}, "n"), ({"n": 0}, "n")])
def test_too_many_layers_or_tokens_are_refused(changes, name):
    error = code_of(View(**changes))
    assert error.code == "block_too_big" and error.params["name"] == name


def test_a_layer_beyond_the_stack_is_refused():
    assert code_of(View(layers=2, layer=2)).code == "block_layer"


@pytest.mark.parametrize("lengths", ["4", "5 2", "a b", "0 1", ""])
def test_bad_batch_lengths_are_refused_only_with_the_batch_on(lengths):
    assert code_of(View(batch=True, lengths=lengths)).code == "batch_lengths"
    compute_toy(View(batch=False, lengths=lengths), check=False)


def test_the_bad_input_is_found_before_any_table_is_read():
    """A size over the limits is refused before the 99 × 99 tables it would make are seeded or parsed."""
    assert code_of(View(n=10**9)).code == "block_too_big"


@pytest.mark.parametrize("name", PRESETS)
def test_each_preset_agrees_with_torch(name):
    settings_ = {k[3:]: v for k, v in PRESET_SETTINGS[name].items()}
    result = compute_toy(View(preset=name, **settings_))
    assert result.torch_difference < 1e-12, result.torch_difference
    assert len(result.params) == settings_["layers"] and result.stack.outputs.shape == (settings_["n"], settings_["d"])
    assert result.batch is None and result.padding_difference is None


@pytest.mark.parametrize("name", PRESETS)
def test_padding_changes_no_real_token(name):
    settings_ = {k[3:]: v for k, v in PRESET_SETTINGS[name].items()}
    n = settings_["n"]
    result = compute_toy(View(preset=name, batch=True, lengths=f"{n} 2 3", maxlen=n - 1, **settings_))
    assert result.torch_difference < 1e-12
    assert result.padding_difference is not None and result.padding_difference < 1e-12
    assert result.batch_lengths == (n, 2, 3)
    assert tuple(result.batch.lengths) == (n - 1, 2, 3)  # the first cut to the maximum length


def test_an_edited_cell_changes_the_outputs_and_still_agrees_with_torch():
    plain = compute_toy(View())
    changed = compute_toy(with_cell("1wo", "3"))
    assert not math.isclose(float(abs(plain.stack.outputs - changed.stack.outputs).max()), 0.0)
    assert changed.torch_difference < 1e-12


def test_the_settings_table_and_the_view_agree():
    assert set(View().settings()) == {f.key for f in FIELDS}
    assert all(View().settings()[f.key] == f.default for f in FIELDS)
    assert view({}) == View()
    assert len(ALL_TABLES) == 1 + 10 * MAX_LAYERS
    assert link.decode(link.encode(View(preset="gpt2", **{k[3:]: v for k, v in PRESET_SETTINGS["gpt2"].items()})))[1] == {}
    assert isinstance(share.MAX_LINK_CHARS, int)
