"""Helpers for AppTest: open a page inside app.py's frame, in a chosen language."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def open_page(page: str, lang: str = "en", timeout: float = 60) -> AppTest:
    """Run app.py, switch to ``pages/<page>.py`` and return the AppTest after the run."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.session_state["lang"] = lang
    at.run()
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(at: AppTest) -> str:
    """All markdown, captions, code and messages on the page, as one string."""
    parts = [e.value for e in (*at.markdown, *at.caption, *at.code, *at.error, *at.warning, *at.info,
                               *at.success, *at.title, *at.subheader)]
    return "\n".join(str(p) for p in parts)


def choice_widget(widgets, key: str):
    """The widget drawn by ``ui.common.choice`` for ``key`` (its own key carries a suffix)."""
    found = [w for w in widgets if str(w.key).startswith(f"{key}__")]
    assert len(found) == 1, (key, [w.key for w in widgets])
    return found[0]
