"""Issue 29: one parser for every integer in a link, ASCII digits only.

``str.isdigit`` takes "²" and "①" (and ``int`` then raises), ``\\d`` takes "٣" and "１２" (and
``int`` reads them as 3 and 12): a link of ``size=².4.3.3`` showed Streamlit's error box. Every
integer a link carries now goes through :func:`selfattn.display.share.parse_whole`.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from selfattn.display import share
from selfattn.display.grid import MAX_DIM, MAX_TOKENS
from selfattn.playground.link import parse_sizes
from support import apptest
from ui import links
from ui import state

# Digits of other scripts, super- and subscripts, circled and full-width numbers, signs and spaces.
ODD = "٣٤۱߃०௫൬๓１２²³⁴₅①⑳Ⅻ〇十" + "+-−‒ \t\u00a0\u2009.,_~e"
TEXTS = st.one_of(
    st.text(alphabet=st.sampled_from(list("0123456789" + ODD)), max_size=24),
    st.integers(-10**40, 10**40).map(str),
    st.tuples(st.integers(0, 99), st.sampled_from(list(ODD)), st.integers(0, 99)).map(lambda t: f"{t[0]}{t[1]}{t[2]}"),
)
PAGES = ("playground", "embeddings", "heads", "block", "seq2seq")


def every_field():
    return [field for page in PAGES for field in state.fields(page)]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(TEXTS)
def test_parse_whole_takes_ascii_digits_only(text):
    try:
        value = share.parse_whole(text, -10**6, 10**6)
    except share.BadValue as exc:
        assert exc.reason in ("not_whole", "out_of_range")
        return
    assert text.isascii() and set(text.lstrip("-")) <= set("0123456789") and int(text) == value


@settings(max_examples=300, deadline=None, derandomize=True)
@given(TEXTS, st.sampled_from(range(64)))
def test_every_setting_of_every_page_takes_odd_digits_as_a_plain_refusal(text, which):
    fields = every_field()
    field = fields[which % len(fields)]
    values, bad = share.decode_fields([field], {field.param: text})
    if field.param in bad:
        assert isinstance(bad[field.param], share.BadValue)
    else:  # used: then it was written as this page writes it
        assert field.codec.encode(values[field.key]) == text or not isinstance(field.codec, share.Int)
        if isinstance(field.codec, share.Int):
            assert text.isascii()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(TEXTS, min_size=1, max_size=5))
def test_playground_sizes_and_cell_diffs_take_odd_digits_as_a_plain_refusal(parts):
    text = ".".join(parts)
    try:
        sizes = parse_sizes(text)
    except share.BadValue as exc:
        assert exc.reason == "bad_sizes"
    else:
        assert text.isascii() and 1 <= sizes.n <= MAX_TOKENS and max(sizes[1:]) <= MAX_DIM
    base = [["0"] * 4 for _ in range(3)]
    item = text + ".5"  # row.column.cell text: the row and column in ASCII digits, the text anything
    try:
        share.apply_diff(base, item)
    except share.BadValue:
        return
    if "_" not in item and "!" not in item:  # one item, no escapes
        row, col = item.split(".")[:2]
        assert row.isascii() and row.isdigit() and col.isascii() and col.isdigit(), item


@pytest.mark.parametrize("size", ["².4.3.3", "3.①.3.3", "٣.4.3.3", "３.4.3.3", "+3.4.3.3", " 3.4.3.3", "3.4.3.3 ",
                                  "99999999999999999999.4.3.3"])
def test_a_playground_link_with_odd_digits_in_its_sizes_opens_and_says_so(size):
    at = apptest.open_link("playground", {"size": size, "focus": "²", "seed": "٣"})
    assert not at.exception, [e.value for e in at.exception]
    warned = "\n".join(w.value for w in at.warning)
    assert "`size`" in warned and "`focus`" in warned and "`seed`" in warned, warned
    assert len(at.get("bidi_component")) > 0  # the editors and maps are there (the tutorial's sizes)


@pytest.mark.parametrize("page", PAGES)
def test_every_integer_setting_of_a_page_given_odd_digits_is_named_and_the_page_draws(page):
    ints = [f for f in state.fields(page) if isinstance(f.codec, share.Int)]
    every = {f.param: odd for f, odd in zip(ints, ["①", "٣", "²", "１２", "+1", " 1", "1e3", "0x1", "-٣"] * 4)}
    names = list(every)
    for start in range(0, len(names), links.MAX_NAMED):  # a message names MAX_NAMED, then says "and k more"
        params = {name: every[name] for name in names[start:start + links.MAX_NAMED]}
        at = apptest.open_link(page, params)
        assert not at.exception, [e.value for e in at.exception]
        warned = "\n".join(w.value for w in at.warning)
        assert all(f"`{name}`" in warned for name in params), (params, warned)
