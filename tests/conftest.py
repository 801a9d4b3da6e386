"""Shared fixtures."""

from __future__ import annotations

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from selfattn.hosting import HOSTED_ENV
from selfattn.text import models


@pytest.fixture(scope="module")
def minilm() -> models.ModelBundle:
    """The bundled all-MiniLM-L6-v2, loaded once per test module (some tests empty the model cache)."""
    return models.load_model("minilm")


@pytest.fixture
def not_hosted(monkeypatch) -> None:
    """Local mode, whatever the environment says (hosted mode refuses local model folders)."""
    monkeypatch.delenv(HOSTED_ENV, raising=False)


@pytest.fixture
def downloads(monkeypatch) -> dict[str, bytes]:
    """Every file a download button offers during the test, by file name.

    Streamlit stores download data in its (real, in-memory) media file storage; this spy
    records each file on its way in and stores it as usual. A button whose file is made only
    when clicked (a callable, registered with ``add_deferred``) is recorded by calling the
    callable, as a click would, and then registered as usual.
    """
    files: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def spy(self, path_or_data, mimetype, kind, filename=None):
        if isinstance(path_or_data, bytes) and filename:
            files[filename] = path_or_data
        return original(self, path_or_data, mimetype, kind, filename)

    original_deferred = MediaFileManager.add_deferred

    def spy_deferred(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        data = data_callable()
        files[file_name] = data.encode("utf-8") if isinstance(data, str) else data
        return original_deferred(self, data_callable, mimetype, coordinates, file_name=file_name, **kwargs)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", spy)
    monkeypatch.setattr(MediaFileManager, "add_deferred", spy_deferred)
    return files
