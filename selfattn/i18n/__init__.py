"""The one catalog of UI strings, English and Simplified Chinese.

Each page keeps its entries in a module of this package (``common``, ``playground``, ...), as
``STRINGS = {"key": {"en": "...", "zh": "..."}}``. Every module here is found and merged into
``CATALOG`` (a new page's strings need only a new module); a duplicate key is an error at import time.
"""

from __future__ import annotations

import importlib
import pkgutil

LANGS = {"en": "English", "zh": "简体中文"}
DEFAULT_LANG = "en"


def _modules() -> list:
    """Every module of this package, in name order."""
    return [importlib.import_module(f"{__name__}.{info.name}") for info in sorted(pkgutil.iter_modules(__path__),
                                                                            key=lambda info: info.name)]


def _merge(*modules) -> dict[str, dict[str, str]]:
    merged: dict[str, dict[str, str]] = {}
    for module in modules:
        for key, entry in module.STRINGS.items():
            if key in merged:
                raise KeyError(f"UI string {key!r} is defined twice (second time in {module.__name__}).")
            merged[key] = entry
    return merged


CATALOG = _merge(*_modules())


def t(key: str, lang: str = DEFAULT_LANG, **fmt) -> str:
    """The UI string ``key`` in ``lang``, formatted with ``fmt``.

    Raises:
        KeyError: for a key the catalog lacks, so a typo fails loudly in tests.
    """
    entry = CATALOG[key]
    text = entry.get(lang) or entry[DEFAULT_LANG]
    return text.format(**fmt) if fmt else text
