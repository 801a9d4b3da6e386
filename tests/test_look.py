"""Issue 30: the projector view and readable captions (ui/projector.py), without a browser; the browser
measures contrast and size in tests/test_look_browser.py."""

from __future__ import annotations

import numpy as np

from selfattn.display import charts
from support import apptest
from ui import projector as look


def test_the_style_sheet_lifts_captions_and_zooms_only_in_the_projector_view():
    plain, big = look.style_sheet(False), look.style_sheet(True)
    assert f"opacity: {look.CAPTION_OPACITY}" in plain and "zoom" not in plain
    assert f"zoom: {look.PROJECTOR_ZOOM}" in big and plain[:-8] in big
    # the caption colour composed at CAPTION_OPACITY over white: at least 4.5:1 with the theme's text colour
    ink = np.array([47, 45, 43]) * look.CAPTION_OPACITY + 255 * (1 - look.CAPTION_OPACITY)
    channel = np.where(ink / 255 <= 0.03928, ink / 255 / 12.92, ((ink / 255 + 0.055) / 1.055) ** 2.4)
    assert 1.05 / (0.2126 * channel[0] + 0.7152 * channel[1] + 0.0722 * channel[2] + 0.05) >= 4.5


def test_the_head_view_draws_strong_lines_for_a_projector():
    w = np.full((3, 3), 1 / 3)
    faint = charts.head_view(w, ["a", "b", "c"]).to_dict(validate=False)["layer"][0]
    strong = charts.head_view(w, ["a", "b", "c"], strong=True).to_dict(validate=False)["layer"][0]
    assert faint["mark"]["strokeWidth"] == 3 and strong["mark"]["strokeWidth"] == 5
    assert strong["encoding"]["opacity"]["scale"]["range"] == [0.25, 1]
    assert strong["mark"]["color"] != faint["mark"]["color"]


def test_a_link_turns_the_projector_view_on_and_every_page_keeps_it_in_its_link():
    at = apptest.open_link("playground", {"big": "1", "lang": "zh"})
    assert not at.exception and at.session_state[look.PROJECTOR_KEY] is True
    switch = next(t for t in at.toggle if t.key == look.PROJECTOR_KEY)
    assert switch.value is True and switch.label == "投影视图"
    assert at.query_params.get("big") in (None, "1", ["1"])  # the first run leaves the link as opened
    at.switch_page("pages/heads.py")
    at.run()
    assert at.session_state[look.PROJECTOR_KEY] is True and not at.exception
    assert "big=1" in apptest.sidebar_link(at)
    switch = next(t for t in at.toggle if t.key == look.PROJECTOR_KEY)
    switch.set_value(False).run()
    assert "big=" not in apptest.sidebar_link(at)


def test_a_bad_projector_value_in_a_link_is_named_and_left_off():
    at = apptest.open_link("embeddings", {"big": "yes"})
    assert not at.exception and at.session_state[look.PROJECTOR_KEY] is False
    assert any("`big`" in w.value for w in at.warning)


def test_the_layer_axis_title_is_written_across_not_sideways():
    """层 turned on its side reads as no word: the pattern grid's y title is drawn at 0°."""
    from selfattn.text.readout import HeadPattern

    grid = [[HeadPattern("previous", 0.9), HeadPattern("first", 0.8)]]
    spec = charts.pattern_grid(grid, {"previous": "前一个", "first": "第一个"}, layer_title="层",
                               head_title="头").to_dict(validate=False)
    axis = spec["layer"][0]["encoding"]["y"]["axis"]
    assert axis["titleAngle"] == 0 and spec["layer"][0]["encoding"]["y"]["title"] == "层"
