"""Opens of Sentence embeddings by other sessions reuse what the first computed (issue 31: cheaper opens).

Two fresh sessions open the same default view; part 1's raw form and the head view's chart are each computed at
most once between them (none at all when an earlier test in this process computed them already)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from selfattn.core.compare import CompareSettings
from selfattn.display import charts
from ui import models as cached

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def open_default() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page("pages/embeddings.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_second_session_reuses_the_first_ones_work(monkeypatch):
    calls = {"raw": 0, "head_view": 0}
    raw, head_view = cached.compute_raw_view, charts.head_view

    def counted_raw(*args, **kwargs):
        calls["raw"] += 1
        return raw(*args, **kwargs)

    def counted_head_view(*args, **kwargs):
        calls["head_view"] += 1
        return head_view(*args, **kwargs)

    monkeypatch.setattr(cached, "compute_raw_view", counted_raw)
    monkeypatch.setattr(charts, "head_view", counted_head_view)
    first, second = open_default(), open_default()
    assert calls["raw"] <= 1 and calls["head_view"] <= 1, calls
    assert [m.value for m in first.markdown] == [m.value for m in second.markdown]  # and the same page


def test_page_states_are_frozen():
    state = cached.EmbeddingsState(mode="single", texts=("早上好",), source="auto", spec=None, kind="static", dims=8,
                                   scale=True, unit=True)
    with pytest.raises(AttributeError):
        state.texts = ("x",)  # type: ignore[misc]
    with pytest.raises(AttributeError):
        CompareSettings(source="random", seed=0, n=4, d_model=8, text="", causal=False).seed = 1  # type: ignore[misc]
