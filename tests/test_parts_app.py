"""Long pages in parts (issue 52, ui/parts.py): only the open part's body runs, the part is in the link, and the
"next part" button walks the whole, in both languages.

A closed part must run nothing: each test below replaces the work of every other part with a function that raises,
so the test fails the moment a closed part's body runs, and checks that no element of another part is on the page.
"""

from __future__ import annotations

import pytest

from selfattn.i18n import t
from support.apptest import open_link, open_page, open_part
from tests import fuzz
from ui import parts

PAGES = {  # page: (part setting, catalog prefix, parts in order)
    "heads": ("hd_part", "hd", ("compare", "check", "bench")),
}


def part_of(at, page: str) -> str:
    key, _, ids = PAGES[page]
    return at.session_state[key] if key in at.session_state else ids[0]


def forbid(monkeypatch, module, *names: str) -> None:
    """Make each function ``module.<name>`` raise: a part that calls one fails its test."""
    for name in names:
        def ran(*args, _name=name, **kwargs):
            raise AssertionError(f"{module.__name__}.{_name} ran while its part was closed")
        monkeypatch.setattr(module, name, ran)


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_next_button_walks_every_part_in_order_and_the_last_leads_back_to_the_first(page, lang):
    key, prefix, ids = PAGES[page]
    at = open_page(page, lang)
    assert part_of(at, page) == ids[0]  # a newcomer sees the first part
    names = [t(f"{prefix}.part_{i}", lang) for i in ids]
    for i, part in enumerate(ids):
        assert part_of(at, page) == part
        assert at.session_state[parts.tabs_key(key)] == f"{i + 1} · {names[i]}"  # the tab bar marks it
        button = at.button(key=parts.next_key(key))
        following = ids[(i + 1) % len(ids)]
        assert names[(i + 1) % len(ids)] in button.label
        captions = "\n".join(c.value for c in at.caption)
        if i + 1 < len(ids):
            assert t("parts.where", lang, i=i + 1, n=len(ids)) in captions
        else:
            assert t("parts.last", lang, n=len(ids)) in captions
        button.click().run()
        assert not at.exception, [e.value for e in at.exception]
        assert part_of(at, page) == following


@pytest.mark.parametrize("page", PAGES)
def test_the_part_round_trips_in_the_link_and_a_link_without_one_opens_the_first(page):
    key, _, ids = PAGES[page]
    for part in ids:
        at = open_link(page, {"part": part})
        assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
        assert part_of(at, page) == part
        assert fuzz.link_params(at).get("part", ids[0]) == part  # the sidebar's link names it (not the first)
        again = open_link(page, fuzz.link_params(at))
        assert part_of(again, page) == part and fuzz.link_query(again) == fuzz.link_query(at)
    at = open_link(page, {"lang": "zh"})  # an old link: no part
    assert part_of(at, page) == ids[0] and "part" not in fuzz.link_params(at)
    bad = open_link(page, {"part": "nowhere"})
    assert part_of(bad, page) == ids[0] and fuzz.ignored_warning(bad)  # named as not used, in words


@pytest.mark.parametrize("page", PAGES)
def test_a_language_switch_keeps_the_open_part(page):
    key, prefix, ids = PAGES[page]
    at = open_page(page, part=ids[-1])
    at.session_state["lang"] = "zh"
    at.run()
    assert part_of(at, page) == ids[-1]
    assert at.session_state[parts.tabs_key(key)] == f"{len(ids)} · {t(f'{prefix}.part_{ids[-1]}', 'zh')}"


def test_heads_closed_parts_run_nothing(monkeypatch):
    from ui.heads import page as hd

    forbid(monkeypatch, hd, "torch_checks", "show_bare_reshape", "show_scale_after_softmax", "bench_settings",
           "results_table", "show_setups")
    at = open_page("heads")  # the comparison alone
    assert at.get("vega_lite_chart") or at.get("arrow_vega_lite_chart")
    assert not at.metric and not at.dataframe and not at.get("file_uploader")
    assert [b.key for b in at.button] == [parts.next_key("hd_part")]  # no Run button: the benchmark did not run
    monkeypatch.undo()

    from selfattn.core import compare as core
    forbid(monkeypatch, hd, "input_matrix", "torch_checks")  # the comparison and the checks
    forbid(monkeypatch, core, "mistake")
    at = open_page("heads", part="bench")
    assert at.button(key="hd_run") and at.get("file_uploader") and not at.metric
    assert not at.get("vega_lite_chart") or all("seq_len" in c.proto.spec for c in at.get("vega_lite_chart"))
