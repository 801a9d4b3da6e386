"""The Playground without Streamlit (selfattn/playground/): its View, its link, its tables as numbers."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from selfattn import self_attention
from selfattn.core.positions import KINDS, MAX_ORDER_CHARS, positional_encoding, shuffle_check
from selfattn.core.presets import PRESETS, preset
from selfattn.display import share
from selfattn.display.grid import MAX_DIM, MAX_TOKENS, Sizes, resize
from selfattn.display.numbers import editor_text
from selfattn.errors import InputError
from selfattn.playground import link
from selfattn.playground.inputs import TOKEN_COL, Inputs, compute, compute_view, parse_rows, parse_table, permutation
from selfattn.playground.tables import BIASES, MATRICES, Tables, tables
from selfattn.playground.view import FIELDS, MAX_SEED, View, natural_sizes, view

SMALL = Sizes(n=2, d_in=2, d_k=1, d_v=1)


def as_view(tables: Tables, **settings) -> View:
    """A View of ``tables`` in full with these settings (by the View's names): its edits what differs from the
    preset's."""
    return view({f"pg_{name}": value for name, value in settings.items()}, tables)


def base(name: str, seed: int, sizes: Sizes) -> Tables:
    """What a preset gives at ``sizes`` (cut or zero-padded), written as the editors write numbers."""
    ex = preset(name, seed=seed, **vars(sizes)) if name == "random" else preset(name, seed=seed)
    shapes = {"x": (sizes.n, sizes.d_in), "w_q": (sizes.d_in, sizes.d_k), "w_k": (sizes.d_in, sizes.d_k),
              "w_v": (sizes.d_in, sizes.d_v), "b_q": (1, sizes.d_k), "b_k": (1, sizes.d_k), "b_v": (1, sizes.d_v)}
    cells = {}
    for name_, (rows, cols) in shapes.items():
        matrix = np.atleast_2d(getattr(ex, name_))
        cells[name_] = [[repr(float(v)) for v in row] for row in resize(matrix, rows, cols)]
    return tables([f"Input {i + 1}" for i in range(sizes.n)], cells)


def test_the_view_follows_the_settings_table():
    shown = as_view(base("tutorial", 0, natural_sizes("tutorial", 0)))
    assert set(shown.settings()) == {f.key for f in FIELDS}
    assert all(shown.settings()[f.key] == f.default for f in FIELDS)  # a View's defaults are the table's
    assert view({}, shown.tables) == shown


def test_a_view_at_the_preset_writes_no_link():
    at_preset = as_view(base("raw", 0, natural_sizes("raw", 0)), preset="raw")
    assert link.encode(at_preset, base) == {"preset": "raw"}
    assert link.decode({"preset": "raw"}, base) == (at_preset, {})


def test_a_changed_cell_is_written_as_a_diff_and_a_resize_as_sizes():
    start = base("tutorial", 0, natural_sizes("tutorial", 0))
    edited = as_view(start.with_rows("w_q", [["2", *start.w_q[0][1:]], *start.w_q[1:]]), scale=True, focus=2)
    params = link.encode(edited, base)
    assert params == {"scale": "1", "focus": "3", "dwq": "0.0.2"}
    grown = as_view(base("tutorial", 0, Sizes(n=4, d_in=4, d_k=3, d_v=3)))
    assert link.encode(grown, base) == {"size": "4.4.3.3"}


@pytest.mark.parametrize("text", ["", "3.4.3", "0.4.3.3", "33.4.3.3", "3.17.3.3", "a.b.c.d", "3.4.3.3.3"])
def test_bad_sizes_are_refused_in_words(text):
    with pytest.raises(share.BadValue) as caught:
        link.parse_sizes(text)
    assert caught.value.reason == "bad_sizes"


def test_a_link_that_does_not_fit_names_each_bad_parameter_and_keeps_the_rest():
    opened, bad = link.decode({"size": "99.1.1.1", "tok": "a~b~c~d", "wq": "1_2", "dwk": "9.9.5", "focus": "3",
                               "scale": "1"}, base)
    assert set(bad) == {"size", "tok", "wq", "dwk"}
    assert opened.scale and opened.focus == 2  # the settings that fit are used
    assert opened.tables == base("tutorial", 0, natural_sizes("tutorial", 0))
    too_far, bad = link.decode({"focus": "9"}, base)
    assert too_far.focus == 0 and bad["focus"].reason == "out_of_range"
    long_cell, bad = link.decode({"dwq": "0.0." + "1" * (link.CELL_CHARS + 1)}, base)
    assert bad["dwq"].reason == "too_long"


TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)  # separators and CJK too


@st.composite
def views(draw) -> View:
    """A View a visitor could make: a preset, sizes, any text in any cell, every setting."""
    name = draw(st.sampled_from(PRESETS))
    seed = draw(st.integers(0, MAX_SEED))
    sizes = Sizes(*(draw(st.integers(1, top)) for top in (6, 4, 4, 4)))  # small: the codec does not care
    start = base(name, seed, sizes)

    def edited(rows):
        return [[draw(st.one_of(st.just(cell), TEXT)) for cell in row] for row in rows]

    tokens = [draw(st.one_of(st.just(tok), st.text(max_size=link.LINK_LABEL_CHARS))) for tok in start.tokens]
    shown = tables(tokens, {m: edited(start.rows(m)) for m in (*MATRICES, *BIASES)})
    no_control = st.text(alphabet=st.characters(codec="utf-8", min_codepoint=32, exclude_categories=("Cs", "Cc")),
                         max_size=MAX_ORDER_CHARS)
    return as_view(shown, preset=name, seed=seed, scale=draw(st.booleans()), causal=draw(st.booleans()),
                bias=draw(st.booleans()), focus=draw(st.integers(0, sizes.n - 1)), pos=draw(st.sampled_from(KINDS)),
                pos_seed=draw(st.integers(0, MAX_SEED)), order=draw(no_control), order_seed=draw(st.integers(0, MAX_SEED)))


@settings(derandomize=True, max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(views())
def test_a_view_survives_its_link(shown):
    params = link.encode(shown, base)
    assert all(isinstance(v, str) for v in params.values())
    assert link.decode(params, base) == (shown, {})


def test_the_tables_parse_to_numbers_and_name_a_bad_cell():
    x = pd.DataFrame({TOKEN_COL: ["a", "b"], "x1": ["1", "2.5"], "x2": ["-3", "1e-3"]})
    assert parse_table("x", x).tolist() == [[1.0, -3.0], [2.5, 0.001]]
    w = pd.DataFrame([["1", "abc"]], index=["x1"], columns=["q1", "q2"])
    with pytest.raises(InputError) as caught:
        parse_table("w_q", w)
    assert caught.value.params["matrix"] == "W_q" and caught.value.params["col"] == "q2"
    b = pd.DataFrame([["0.5"]], index=["b_v"], columns=["v1"])
    assert parse_table("b_v", b).tolist() == [[0.5]]


def test_compute_adds_the_chosen_positions_and_the_biases():
    rng = np.random.default_rng(0)
    x, w_q, w_k, w_v = (rng.normal(size=s) for s in ((3, 4), (4, 2), (4, 2), (4, 3)))
    b_q, b_k, b_v = rng.normal(size=2), rng.normal(size=2), rng.normal(size=3)
    inputs = Inputs(["a", "b", "c"], x, w_q, w_k, w_v, b_q, b_k, b_v)
    shown = as_view(base("tutorial", 0, SMALL), scale=True, causal=True, bias=True, pos="learned", pos_seed=7)
    trace = compute(inputs, shown)
    pe = positional_encoding(3, 4, "learned", 7)
    expected = self_attention(x + pe, w_q, w_k, w_v, scale=True, mask="causal", b_q=b_q, b_k=b_k, b_v=b_v)
    np.testing.assert_array_equal(trace.outputs, expected.outputs)
    plain = compute(inputs, replace(shown, bias=False, pos="none"))
    np.testing.assert_array_equal(plain.outputs, self_attention(x, w_q, w_k, w_v, scale=True, mask="causal").outputs)
    assert MAX_TOKENS == 32 and MAX_DIM == 16  # the limits the link's sizes are held to


def test_a_table_as_typed_parses_as_its_frame_does_and_names_the_same_cell():
    x = pd.DataFrame({TOKEN_COL: ["a", ""], "x1": ["1", "2.5"], "x2": ["-3", "x"]})
    with pytest.raises(InputError) as from_frame:
        parse_table("x", x)
    with pytest.raises(InputError) as from_rows:
        parse_rows("x", [["1", "-3"], ["2.5", "x"]], ["a", ""])
    assert from_rows.value.code == from_frame.value.code and from_rows.value.params == from_frame.value.params
    assert from_rows.value.params["row"] == "2 (t2)"  # a blank label is named as the page names it
    w = [["１．５", "−2"], ["0", "1e3"]]  # full-width digits and the typographic minus, as the frame reads them
    frame = pd.DataFrame(w, index=["x1", "x2"], columns=["q1", "q2"])
    np.testing.assert_array_equal(parse_rows("w_q", w), parse_table("w_q", frame))
    assert parse_rows("w_q", w) is parse_rows("w_q", [list(r) for r in w])  # parsed once per table per process
    with pytest.raises(ValueError):
        parse_rows("w_q", w)[0, 0] = 9.0  # shared between runs: nobody may change it


def test_compute_view_is_the_steps_of_its_view_and_its_shuffle_the_core_check():
    shown = as_view(base("random", 3, Sizes(n=4, d_in=3, d_k=2, d_v=2)), seed=3, scale=True, causal=True,
                 bias=True, pos="sinusoidal")
    t = shown.tables
    x, w_q, w_k, w_v = (np.array([[float(v) for v in row] for row in t.rows(m)]) for m in MATRICES)
    b_q, b_k, b_v = (np.array([float(v) for v in t.rows(b)[0]]) for b in BIASES)
    pe = positional_encoding(4, 3, "sinusoidal", 0)
    expected = self_attention(x + pe, w_q, w_k, w_v, scale=True, mask="causal", b_q=b_q, b_k=b_k, b_v=b_v)
    order = (2, 0, 3, 1)
    result = compute_view(shown, order)
    np.testing.assert_array_equal(result.trace.outputs, expected.outputs)
    np.testing.assert_array_equal(result.pe, pe)
    check = shuffle_check(x, np.array(order), lambda rows: self_attention(rows, w_q, w_k, w_v, scale=True,
                                                                           mask="causal", b_q=b_q, b_k=b_k, b_v=b_v),
                          pe=pe)
    np.testing.assert_array_equal(result.shuffle.after.outputs, check.after.outputs)
    assert result.shuffle.equivariant == check.equivariant is False  # positions and the mask see the order
    assert compute_view(replace(shown, focus=2), order) is result  # the focus changes no number: kept once
    assert compute_view(shown, (0, 1, 2, 3)).shuffle is None  # the same order: nothing to compare
    assert permutation(order).tolist() == [[0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0]]
    bad = view(shown.settings(), t.with_rows("w_k", [["1", "nan?"]] + [list(r) for r in t.w_k[1:]]))
    with pytest.raises(InputError) as caught:
        compute_view(bad, order)
    assert caught.value.params["matrix"] == "W_k" and caught.value.params["col"] == "k2"


# ── Words that follow the state (selfattn/playground/text.py) ──────────────────────────────

def test_the_formulas_follow_the_options_in_each_language():
    from selfattn.i18n import t
    from selfattn.playground.text import formulas

    plain = formulas(False, False, False, False, "en")
    assert plain["q"] == "$Q = XW_q$" and plain["step8"] == "$\\mathrm{outputs} = \\mathrm{softmax}(QK^\\top)\\,V$"
    assert "s_{ij}" in plain["step5"]
    every = formulas(True, True, True, True, "zh")
    assert every["k"] == "$K = (X + PE)W_k + b_k$"
    assert every["step8"].endswith("$" + t("pg.mask_where", "zh")) and r"/\sqrt{d_k} + M" in every["step8"]
    assert "s'_{ij}" in every["step5"]


def test_the_preset_caption_says_what_it_sets_and_what_differs():
    from selfattn.i18n import t
    from selfattn.playground.text import preset_caption, toggle_words

    as_loaded = {"pg_scale": True, "pg_causal": False, "pg_bias": False}
    caption = preset_caption("random", False, as_loaded, "en")
    assert str(t("pg.preset_sets", "en", changes=toggle_words(as_loaded, "en"))) in caption
    assert "edited" not in caption.lower()
    changed = preset_caption("random", True, {**as_loaded, "pg_causal": True}, "en")
    assert str(t("pg.preset_options_changed", "en", changes=toggle_words({"pg_causal": True}, "en"))) in changed


def test_settings_txt_names_every_choice_that_made_the_numbers():
    from selfattn.i18n import t_plain
    from selfattn.playground.text import settings_text

    shown = as_view(base("random", 5, SMALL), preset="random", seed=5, scale=True, pos="learned", pos_seed=9)
    lines = settings_text("http://x/playground?seed=5", True, shown, bias=False, edited=True, order="2 1",
                          lang="zh").splitlines()
    assert lines[0] == t_plain("pg.settings_title", "zh") and lines[2].endswith("http://x/playground?seed=5")
    assert lines[3] == t_plain("common.settings_link_short", "zh")
    assert t_plain("pg.settings_sizes", "zh", n=2, d_in=2, d_k=1, d_v=1) in lines
    assert t_plain("pg.settings_positions_seed", "zh", kind=t_plain("pg.pos_kind_learned", "zh"), seed=9) in lines
    assert t_plain("pg.settings_order", "zh", order="2 1") in lines and t_plain("pg.settings_tables_edited", "zh") in lines


def test_a_preset_becomes_labelled_tables_translated_and_resized():
    from selfattn.playground.seeded import columns, example_tables, fit_tables, row_names, translate_label

    example = preset("tutorial")
    tables = example_tables(example, "zh")
    assert tables.tokens == ("输入 1", "输入 2", "输入 3")
    assert tables.w_v == tuple(tuple(editor_text(float(v)) for v in row) for row in example.w_v)  # as the editors write
    assert tables.b_k == (tuple(editor_text(float(v)) for v in example.b_k),)  # a bias: one row
    assert row_names("w_v", 4) == ["x1", "x2", "x3", "x4"] and columns("w_v", 3) == ["v1", "v2", "v3"]
    assert row_names("b_k", 1) == ["b_k"] and columns("x", 2) == [TOKEN_COL, "x1", "x2"]
    assert translate_label("输入 2", "en") == "Input 2" and translate_label("Input 22", "zh") == "输入 22"
    assert translate_label("猫", "en") == "猫"
    grown = fit_tables(tables, Sizes(n=4, d_in=2, d_k=4, d_v=1), "en")
    assert grown.tokens == ("输入 1", "输入 2", "输入 3", "Input 4")  # the new token in the language asked
    assert grown.sizes == Sizes(n=4, d_in=2, d_k=4, d_v=1) and grown.x[3] == ("0", "0")
    assert grown.x[0] == tables.x[0][:2] and grown.w_q[0][:3] == tables.w_q[0] and grown.w_q[0][3] == "0"
    assert grown.b_v == (tables.b_v[0][:1],) and fit_tables(grown, tables.sizes, "zh").w_k[:2] == tables.w_k[:2]
