"""Helpers for AppTest: open a page inside app.py's frame, in a chosen language."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
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


@pytest.fixture
def downloads(monkeypatch) -> dict[str, bytes]:
    """Every file a download button offers during the test, by file name.

    Streamlit stores download data in its (real, in-memory) media file storage; this spy
    records each file on its way in and stores it as usual.
    """
    files: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def spy(self, path_or_data, mimetype, kind, filename=None):
        if isinstance(path_or_data, bytes) and filename:
            files[filename] = path_or_data
        return original(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", spy)
    return files
