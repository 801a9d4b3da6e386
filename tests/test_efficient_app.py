"""The Efficient attention page through AppTest: each part in both languages, the tiles walked to the torch check,
every bad input named with the last good result kept, and the link that brings the view back."""

from __future__ import annotations

import re

import pytest

from selfattn.efficient.view import PARTS
from selfattn.i18n import t
from support.apptest import open_link, open_page, shown, step_maps, texts


def go_to(at, part: str):
    """Pick a part, as the segmented control's callback does."""
    at.session_state["ef_part"] = part
    at.session_state["_keep_ef_part"] = part
    return at.run()


def errors(at) -> str:
    return "\n".join(shown(e.value) for e in at.error)


def successes(at) -> list[str]:
    return [s.value for s in at.success]


def difference(text: str) -> float:
    """The largest difference a check line states (its last number)."""
    return float(re.findall(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)[-1])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_part_opens_and_agrees_with_torch(lang):
    at = open_page("efficient", lang)
    assert t("ef.title", lang) in at.title[0].value
    for part in PARTS:
        go_to(at, part)
        assert not at.exception, (part, [e.value for e in at.exception])
        assert not at.error, (part, errors(at))
        assert at.header[0].value == t(f"ef.part_{part}", lang)
        if part == "tiles":  # its check comes after the last tile
            at.button(key="ef_last").click().run()
        if part != "traffic":  # every other part ends with a check against torch or transformers, all tiny
            checks = successes(at)
            assert checks and all(difference(c) < 1e-12 for c in checks), (part, checks)


def test_next_walks_every_tile_to_the_torch_check():
    at = open_page("efficient")
    at.toggle(key="ef_causal").set_value(True).run()
    trace = at.session_state["ef_tiles_good"].trace
    assert trace.skipped == ((0, 1),)  # 6 causal queries in tiles of 2 × 3: the first block's second tile
    shown = []
    for step in range(1, len(trace.tiles) + 1):
        at.button(key="ef_next").click().run()
        assert at.session_state["ef_step"] == step
        tile = trace.tiles[step - 1]
        shown.append(texts(at))
        assert f"({tile.query_block + 1}, {tile.key_block + 1})" in shown[-1]
    assert "(1, 2)" in texts(at) or any("(1, 2)" in s for s in shown)  # the skipped tile is said
    check = successes(at)
    assert check and "scaled_dot_product_attention" in check[0] and difference(check[0]) < 1e-12
    assert "36 scores never stored" in texts(at)
    at.button(key="ef_first").click().run()
    assert at.session_state["ef_step"] == 0 and not at.success


def test_one_row_is_written_out_with_its_numbers():
    at = open_page("efficient")
    at.slider(key="ef_step").set_value(2).run()  # the second tile of query block 1: the rescale is at work
    text = texts(at)
    assert "rescale factor exp(m_old − m_new) = exp(" in text
    assert "ℓ = ℓ_old · factor + Σ exp(s − m) = " in text


@pytest.mark.parametrize("part, key, value, words", [
    ("tiles", "ef_n", 99, "n = 99 is over this page's limit of 24"),
    ("tiles", "ef_bq", 30, "B_r = 30 is over this page's limit of 24"),
    ("traffic", "ef_tn", 20_000, "n = 20000 is over this page's limit of 16384"),
    ("traffic", "ef_td", 512, "d = 512 is over this page's limit of 256"),
    ("heads", "ef_g", 3, "The 3 key/value heads must divide the 8 query heads"),
    ("window", "ef_ww", 40, "w = 40 is over this page's limit of 24"),
    ("rotary", "ef_rd", 7, "d must be even, got 7"),
    ("rotary", "ef_pair", 9, "i = 9 is over this page's limit of 3"),
])
def test_bad_input_is_named_and_the_last_good_result_kept(part, key, value, words):
    at = go_to(open_page("efficient"), part)
    charts = len(at.get("vega_lite_chart"))
    at.number_input(key=key).set_value(value).run()
    assert not at.exception
    assert words in errors(at)
    assert t("common.kept_last_good", "en") in errors(at)
    assert len(at.get("vega_lite_chart")) == charts  # the last good result is still drawn


def test_too_many_tiles_to_count_is_refused():
    at = go_to(open_page("efficient"), "traffic")
    at.segmented_control(key=next(k for k in at.session_state if str(k).startswith("ef_tblocks__"))).set_value(
        "blocks").run()
    at.number_input(key="ef_tbq").set_value(1).run()
    at.number_input(key="ef_tbk").set_value(1).run()
    assert "tiles to count" in errors(at)


def test_the_tile_mistake_names_the_heads_that_read_wrong_keys():
    at = go_to(open_page("efficient"), "heads")
    at.toggle(key="ef_tile_mistake").set_value(True).run()
    view = at.session_state["ef_heads_good"]
    assert view.wrong_heads == (1, 3, 4, 6)  # 8 heads over 2: tile reads 0,1,0,1,… where torch reads 0,0,0,0,1,…
    assert "Query heads 2, 4, 5, 7 (4 of 8) read the wrong keys" in errors(at)
    assert view.difference > 1e-3


def test_traffic_words_come_from_the_numbers():
    at = go_to(open_page("efficient"), "traffic")
    view = at.session_state["ef_traffic_good"]
    last = view.rows[-1]
    text = texts(at)
    assert f"standard attention moves {last['standard']:,} numbers" in text
    assert f"the tiled loop moves {last['tiled']:,}" in text
    assert (view.block_q, view.block_k) == (64, 192)  # M = 49,152: B_c = ⌈M / 4d⌉ = 192, B_r = min(192, 64)


def test_the_link_brings_the_view_back():
    at = go_to(open_page("efficient"), "tiles")
    at.number_input(key="ef_n").set_value(8).run()
    at.toggle(key="ef_windowed").set_value(True).run()
    at.slider(key="ef_step").set_value(4).run()
    params = at.query_params.to_dict() if hasattr(at.query_params, "to_dict") else dict(at.query_params)
    params = {k: v[0] if isinstance(v, list) else v for k, v in params.items()}
    assert params.get("n") == "8" and params.get("step") == "4" and params.get("windowed") == "1"
    back = open_link("efficient", params)
    assert not back.exception and not back.warning
    assert back.session_state["ef_n"] == 8 and back.session_state["ef_step"] == 4
    assert back.session_state["ef_windowed"] is True
    back = open_link("efficient", {"part": "rotary", "m": "7", "lang": "zh"})
    assert back.header[0].value == t("ef.part_rotary", "zh") and back.session_state["ef_m"] == 7


def test_hosted_mode_bounds_the_sizes(monkeypatch):
    from selfattn.hosting import HOSTED_ENV

    monkeypatch.setenv(HOSTED_ENV, "1")
    at = open_page("efficient")
    at.number_input(key="ef_n").set_value(16).run()  # within the local limit (24), over the hosted one (12)
    assert "n = 16 is over this page's limit of 12" in errors(at)
    at.number_input(key="ef_n").set_value(12).run()
    assert not at.error and at.session_state["ef_tiles_good"].q.shape[0] == 12


def test_traffic_shows_the_committed_timing_with_its_machine_then_this_servers():
    from selfattn.efficient import timing

    committed = timing.read_results()
    at = go_to(open_page("efficient"), "traffic")
    text = texts(at)
    assert f"measured on {committed['machine']['cpu']}" in text and committed["command"] in text
    last = committed["rows"][-1]
    assert f"At n = {last['n']:,}, SDPA took" in text
    assert len(at.get("vega_lite_chart")) == 3


def test_time_it_on_this_server_draws_the_run_in_words_true_of_it(monkeypatch):
    from selfattn.efficient import timing

    monkeypatch.setitem(timing.PAGE_SIZES, "local", (64, 128))
    at = go_to(open_page("efficient"), "traffic")
    at.button(key="ef_time").click().run(timeout=120)
    assert not at.exception and not at.error, errors(at)
    run = at.session_state["ef_sdpa_run"]
    assert [r["n"] for r in run["rows"]] == [64, 128]
    s = timing.summary(run["rows"])
    text = texts(at)
    assert "Measured just now on this server" in text
    assert ("times as fast" if s["sdpa_faster"] else "times as slow") in text
    assert ("times less" if s["sdpa_lighter"] else "times more") in text
    assert f"{s['time_ratio']:.1f} times" in text


def _link(at) -> dict:
    params = at.query_params.to_dict() if hasattr(at.query_params, "to_dict") else dict(at.query_params)
    return {k: v[0] if isinstance(v, list) else v for k, v in params.items()}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_play_walks_the_tiles_one_a_second_with_the_step_in_the_link_and_pause_holds(monkeypatch, lang):
    from selfattn.i18n import t_plain
    from ui import play

    now = [1000.0]
    monkeypatch.setattr(play, "clock", lambda: now[0])

    def later():
        now[0] += play.SOONEST_S + 0.05
        at.run()

    at = open_page("efficient", lang)  # 6 tiles
    assert at.button(key="ef_play").label == t_plain("ef.play", lang)
    at.button(key="ef_play").click().run()
    assert not at.exception and at.button(key="ef_play").label == t_plain("ef.pause", lang)
    at.run()  # sooner than a second: nothing moves
    assert at.session_state["ef_step"] == 0
    for step in range(1, 7):
        later()
        assert not at.exception, [e.value for e in at.exception]
        assert at.session_state["ef_step"] == step and _link(at)["step"] == str(step)
    assert "ef_playing" not in at.session_state  # the last tile: it stopped, and says the torch check
    assert successes(at) and difference(successes(at)[0]) < 1e-12
    at.button(key="ef_play").click().run()  # Play at the last step plays from the first
    assert at.session_state["ef_step"] == 0
    later()
    assert at.session_state["ef_step"] == 1
    at.button(key="ef_play").click().run()  # Pause
    later()
    later()
    assert at.session_state["ef_step"] == 1 and _link(at)["step"] == "1"
    assert at.button(key="ef_play").label == t_plain("ef.play", lang)


def test_each_heads_weights_are_drawn_as_maps_and_the_wrong_heads_marked():
    at = go_to(open_page("efficient"), "heads")
    view = at.session_state["ef_heads_good"]
    text = texts(at)
    maps = step_maps(at)
    assert sorted(maps) == sorted(f"ef_head_{i}" for i in range(view.h))
    for i in range(view.h):
        assert f"Query head {i + 1} · K/V head {view.right.kv_head[i] + 1}" in text
        assert len(maps[f"ef_head_{i}"]["cells"]) == view.right.weights.shape[1]
    assert ":red[" not in text
    at.toggle(key="ef_tile_mistake").set_value(True).run()
    text = texts(at)
    assert ":red[**Query head 2 · K/V head 2, wrong** (torch's: 1)]" in text  # tile: head 2 reads K/V 2, torch's 1
    assert text.count(", wrong**") == len(at.session_state["ef_heads_good"].wrong_heads) == 4


GLOSSARY_TERMS = {"分块": "tile", "在线 softmax": "online softmax", "分组查询注意力": "grouped-query",
                  "滑动窗口": "sliding window", "旋转位置编码": "rotary"}


@pytest.mark.parametrize("zh, en", GLOSSARY_TERMS.items())
def test_the_glossarys_terms_are_in_the_glossary_and_the_pages_words(zh, en):
    from pathlib import Path

    from selfattn.i18n import CATALOG

    glossary = (Path(__file__).resolve().parents[1] / "docs" / "glossary.md").read_text(encoding="utf-8")
    assert f"| {zh} |" in glossary
    page = {k: v for k, v in CATALOG.items() if k.startswith("ef.")}
    assert any(zh in v["zh"] for v in page.values()), zh
    assert any(en in v["en"].lower() for v in page.values()), en


def test_typed_qkv_start_from_the_seed_and_bad_tables_are_named_with_the_last_good_kept():
    at = open_page("efficient")
    seeded = at.session_state["ef_tiles_good"]
    at.toggle(key="ef_typed").set_value(True).run()
    assert not at.exception and not at.error, errors(at)
    box = at.text_area(key="ef_qkv")
    assert box.value.startswith("# Q\n") and "# K" in box.value and "# V" in box.value
    typed = at.session_state["ef_tiles_good"]
    assert (typed.q == seeded.q).all() and (typed.v == seeded.v).all()
    assert "No preview in the browser here" in texts(at)
    good = "# Q\n1,0\n0,1\n1,1\n# K\n1,0\n0,1\n0,0\n# V\n1,2\n3,4\n5,6"
    at.text_area(key="ef_qkv").set_value(good).run()
    view = at.session_state["ef_tiles_good"]
    assert view.q.shape == (3, 2) and not at.error
    at.button(key="ef_last").click().run()
    assert successes(at) and difference(successes(at)[0]) < 1e-12
    for bad, words in [(good.replace("3,4", "3,x"), "V, row 2, column 2: “x” is not a finite number"),
                       (good.replace("3,4", "3,4,5"), "V, row 2 has 3 numbers; its first row has 2"),
                       (good.replace("\n5,6", ""), "Q is 3 × 2, K is 3 × 2, V is 2 × 2"),
                       (good.split("# V")[0], "Paste three tables, Q, K and V, each after a line # Q, # K, # V: found 2"),
                       (good.replace("1,2", "nan,2"), "V, row 1, column 1: “nan” is not a finite number")]:
        at.text_area(key="ef_qkv").set_value(bad).run()
        assert not at.exception
        assert words in errors(at) and t("common.kept_last_good", "en") in errors(at), (bad, errors(at))
        kept = at.session_state["ef_tiles_good"]  # the last good result kept
        assert kept.q.shape == view.q.shape and (kept.v == view.v).all()
    at.text_area(key="ef_qkv").set_value(good).run()
    link = _link(at)
    assert link["typed"] == "1" and link["qkv"] == good.replace("\n", "~n")
    back = open_link("efficient", link)
    assert not back.exception and not back.error and back.session_state["ef_qkv"] == good
    assert back.session_state["ef_tiles_good"].q.shape == (3, 2)
