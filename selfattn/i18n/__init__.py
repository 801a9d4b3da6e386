"""The one catalog of UI strings, English and Simplified Chinese.

Each page keeps its entries in a module of this package (``common``, ``playground``, ...), as
``STRINGS = {"key": {"en": "...", "zh": "..."}}``; they are merged here into ``CATALOG`` and a
duplicate key is an error at import time.
"""

from __future__ import annotations

from selfattn.i18n import common, embeddings, heads, playground

LANGS = {"en": "English", "zh": "简体中文"}
DEFAULT_LANG = "en"


def _merge(*modules) -> dict[str, dict[str, str]]:
    merged: dict[str, dict[str, str]] = {}
    for module in modules:
        for key, entry in module.STRINGS.items():
            if key in merged:
                raise KeyError(f"UI string {key!r} is defined twice (second time in {module.__name__}).")
            merged[key] = entry
    return merged


CATALOG = _merge(common, playground, embeddings, heads)


def t(key: str, lang: str = DEFAULT_LANG, **fmt) -> str:
    """The UI string ``key`` in ``lang``, formatted with ``fmt``.

    Raises:
        KeyError: for a key the catalog lacks, so a typo fails loudly in tests.
    """
    entry = CATALOG[key]
    text = entry.get(lang) or entry[DEFAULT_LANG]
    return text.format(**fmt) if fmt else text
