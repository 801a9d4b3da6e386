"""Session state in one place (ui/state.py): kept settings, last good results, and every key declared."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import streamlit

from selfattn.errors import InputError
from ui import state as settings

ROOT = Path(__file__).resolve().parents[1]
# A key written as a string where session state is read or written: st.session_state["k"], .get("k" ...),
# .pop(f"k_{x}" ...), .setdefault("k" ...), "k" in st.session_state, and a button's kwargs={"k": ...}.
STRING = r"""(f?"[^"]+"|f?'[^']+')"""
KEY_USES = re.compile(rf"""session_state(?:\[|\.get\(|\.pop\(|\.setdefault\()\s*{STRING}"""
                      rf"""|{STRING}\s+(?:not\s+)?in\s+st\.session_state"""
                      rf"""|session_state\.update,\s*kwargs=\{{{STRING}""")


def failing(exc: Exception):
    """A computation that raises ``exc``."""
    def compute():
        raise exc
    return compute


@pytest.fixture
def state(monkeypatch) -> dict:
    """A plain dict standing in for ``st.session_state``."""
    fake: dict = {}
    monkeypatch.setattr(streamlit, "session_state", fake)
    return fake


def test_a_setting_starts_at_its_default_and_is_kept_with_its_shadow(state):
    assert settings.keep("emb_dims") == 16
    assert state == {"emb_dims": 16, settings.shadow("emb_dims"): 16}
    state["emb_dims"] = 40  # the visitor moved the slider
    assert settings.keep("emb_dims") == 40 and state[settings.shadow("emb_dims")] == 40


def test_a_setting_whose_widget_was_not_drawn_comes_back_from_its_shadow(state):
    state[settings.shadow("emb_text_b")] = "hello there"
    assert settings.keep("emb_text_b") == "hello there"
    assert state["emb_text_b"] == "hello there"


def test_options_bring_a_kept_value_back_within_what_the_widget_offers(state):
    state["emb_layer"] = 12  # a 12-layer model before, a 6-layer one now: its last layer
    assert settings.keep("emb_layer", range(1, 7)) == 6
    state["emb_layer"] = 0
    assert settings.keep("emb_layer", range(1, 7)) == 1
    state["hd_bench_lens"] = [128, 8192]  # a list keeps the values still offered
    assert settings.keep("hd_bench_lens", [32, 128, 256]) == [128]
    state["hd_bench_d"] = 2048  # one value not offered: the table's default when offered ...
    assert settings.keep("hd_bench_d", [64, 512]) == 512
    state["hd_bench_d"] = 2048  # ... else the first option
    assert settings.keep("hd_bench_d", [64, 128]) == 64
    state["hd_heads"] = 4  # ... or the fallback asked for
    assert settings.keep("hd_heads", [1, 2, 3, 6], fallback=3) == 3
    assert state[settings.shadow("hd_heads")] == 3


def test_a_value_still_offered_is_left_as_it_is(state):
    lens = state["hd_bench_lens"] = [128, 256]
    assert settings.keep("hd_bench_lens", [32, 128, 256]) is lens
    state["hd_heads"] = 2
    assert settings.keep("hd_heads", [1, 2, 4], fallback=4) == 2


def test_put_sets_a_setting_and_its_shadow(state):
    settings.put("emb_layer", 3)
    assert state == {"emb_layer": 3, settings.shadow("emb_layer"): 3}


def test_put_sets_the_choice_boxes_noted_for_the_setting(state):
    state[settings.CHOICE_WIDGETS] = {"emb_view": ["emb_view__0000abcd", "emb_view__1111abcd"]}
    state["emb_view__0000abcd"] = "head"  # its box drawn (ui.widgets.choice); the other one dropped by Streamlit
    settings.put("emb_view", "mean")
    assert state["emb_view__0000abcd"] == "mean" and "emb_view__1111abcd" not in state


@pytest.mark.parametrize("call", [lambda: settings.keep("emb_nope"), lambda: settings.put("hd_goood", 1),
                                  lambda: settings.put("hd_good", 1),  # a result, not a setting
                                  lambda: settings.kept("emb_dims"),  # a setting, not a result
                                  lambda: settings.last_good("pg_nope", lambda: 1)])
def test_an_undeclared_key_is_refused(state, call):
    with pytest.raises(KeyError):
        call()
    assert state == {}


def test_last_good_keeps_the_result_and_falls_back_to_it_on_bad_input(state):
    assert settings.last_good("hd_good", lambda: "first") == ("first", None)
    bad = InputError("empty_text", "no text")
    assert settings.last_good("hd_good", failing(bad)) == ("first", bad)
    assert settings.kept("hd_good") == "first"
    assert settings.last_good("hd_good", lambda: "second") == ("second", None)


def test_last_good_without_an_earlier_result_returns_none_with_the_error(state):
    bad = InputError("empty_text", "no text")
    assert settings.last_good("pg_good", failing(bad)) == (None, bad)
    assert "pg_good" not in state


def test_last_good_keeps_each_slot_apart(state):
    bad = InputError("empty_text", "no text")
    settings.last_good("emb_good", lambda: "a", "pair0")
    assert settings.last_good("emb_good", failing(bad), "pair1") == (None, bad)
    assert settings.last_good("emb_good", failing(bad), "pair0") == ("a", bad)
    assert settings.kept("emb_good") == {"pair0": "a"} and settings.kept("emb_good", "pair1") is None


def test_last_good_lets_a_bug_through(state):
    with pytest.raises(ZeroDivisionError):
        settings.last_good("hd_good", lambda: 1 / 0)
    assert "hd_good" not in state


def test_every_key_the_code_names_is_declared():
    families = [name for name in (*settings.kept_keys(), *settings.widget_keys()) if name.endswith("*")]
    found = []
    for path in [ROOT / "app.py", *sorted((ROOT / "ui").rglob("*.py")), *sorted((ROOT / "pages").glob("*.py"))]:
        for match in KEY_USES.finditer(path.read_text(encoding="utf-8")):
            literal = next(group for group in match.groups() if group)
            found.append((path.relative_to(ROOT), literal))
    assert len(found) >= 10, found  # the pattern still finds the keys
    undeclared = []
    for where, literal in found:
        if literal.startswith("f"):  # f"hd_open_{m}": a declared family "hd_open_*" holds every such key
            prefix = re.sub(r"\{.*", "", literal[2:-1])
            ok = any(prefix.startswith(name[:-1]) for name in families)
        else:
            ok = settings.declared(literal[1:-1])
        if not ok:
            undeclared.append(f"{where}: {literal}")
    assert not undeclared, undeclared
