"""Shared fixtures."""

from __future__ import annotations

import pytest
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage


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
