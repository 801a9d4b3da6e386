"""The one catalog of UI strings, English and Simplified Chinese.

Each page keeps its entries in a module of this package (``common``, ``playground``, ...), as
``STRINGS = {"key": {"en": "...", "zh": "..."}}``. Every module here is found and merged into
``CATALOG`` (a new page's strings need only a new module); a duplicate key is an error at import time.

Visitor text is text. Most strings end up in Streamlit's markdown (errors, captions, labels), and
many carry something a visitor wrote: a cell, a token label, a sentence, a file name, a link's
value. :func:`t` therefore escapes every ``str`` parameter (:func:`escape_markdown`), so no message
can forget to: ``[Log in](https://evil.example)`` in a cell shows as those characters, never as a
link, and ``![](http://host/pixel.gif)`` fetches nothing. What :func:`t` returns is
:class:`Markdown`, text that is already safe, and is passed on unescaped when it becomes a
parameter of another message. For a place that is not markdown (a browser tab's title, a table's
column name), :func:`t_plain` formats without escaping.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import unicodedata

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


class Markdown(str):
    """Markdown that is safe to render: ours, or with every visitor-supplied part escaped."""


# The characters that can start markup in the middle of a line, backslash-escaped (CommonMark makes an
# escaped punctuation character literal): links and images ([ ! ]), emphasis and strikethrough
# (* _ ~), code (`), HTML and autolinks (< >), maths ($), Streamlit's directives (:red[...],
# :material/icon:), entities (&), tables (|), headings (#), braces and carets. Other punctuation
# (. , - ( ) / ...) cannot start markup inside a line, and a value is always one line (see
# :func:`one_line`), so numbers and file names stay as they are written.
_MARKUP = frozenset("\\`*_[]<>#$~|!:@{}^&")
_LIST_MARK = re.compile(r"^(\s*)([-+]|\d{1,9}[.)])(?=\s|$)")  # a message may start with the value
# GFM also turns bare URLs, "www." names and e-mail addresses into links, and Streamlit's renderer
# finds them in the text after escapes are read, so an escape cannot stop it: a WORD JOINER (U+2060,
# invisible, no break) inside "://", after "www" and after "@" does.
WORD_JOINER = "\u2060"
_BARE_LINK = re.compile(r"(?i)(?<=:)(?=//)|(?<=\bwww)(?=\.)|(?<=@)")
_INVISIBLE = ("Cc", "Zl", "Zp")
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def one_line(text: str) -> str:
    """``text`` with control, line/paragraph-separator and direction-override characters as spaces."""
    return "".join(" " if unicodedata.category(ch) in _INVISIBLE or ch in _BIDI else ch for ch in text)


def escape_markdown(text: str) -> Markdown:
    """``text`` as markdown that shows exactly these characters, on one line, linking nothing."""
    if isinstance(text, Markdown):
        return text
    unlinked = _BARE_LINK.sub(WORD_JOINER, one_line(str(text)))
    escaped = "".join("\\" + ch if ch in _MARKUP else ch for ch in unlinked)
    return Markdown(_LIST_MARK.sub(lambda m: m.group(1) + m.group(2)[:-1] + "\\" + m.group(2)[-1], escaped))


def t(key: str, lang: str = DEFAULT_LANG, **fmt) -> Markdown:
    """The UI string ``key`` in ``lang``, formatted with ``fmt``, every ``str`` parameter escaped.

    A parameter that is itself :class:`Markdown` (another message, an escaped value) goes in as
    it is; numbers keep their format specs.

    Raises:
        KeyError: for a key the catalog lacks, so a typo fails loudly in tests.
    """
    safe = {name: escape_markdown(value) if isinstance(value, str) else value for name, value in fmt.items()}
    return Markdown(t_plain(key, lang, **safe))


def t_plain(key: str, lang: str = DEFAULT_LANG, **fmt) -> str:
    """The UI string ``key`` formatted without escaping, for places that are not markdown."""
    entry = CATALOG[key]
    text = entry.get(lang) or entry[DEFAULT_LANG]
    return text.format(**fmt) if fmt else text


def cli_arguments(parser_of, argv: list[str]):
    """A command line's arguments, parsed by ``parser_of(lang)``: ``--lang`` is read first, so that ``--help`` and
    the parser's own messages speak it."""
    import argparse

    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--lang", choices=list(LANGS), default="en")
    return parser_of(first.parse_known_args(argv)[0].lang).parse_args(argv)
