"""Checks and character classes shared by the embedding sources (``charvec``, ``models``).

A text is accepted when it holds at least one letter or digit (any script); it is cut to
``MAX_CHARS`` characters, and the caller learns about the cut through a ``truncated`` flag
instead of an error, so a pasted paragraph still shows something.
"""

from __future__ import annotations

import unicodedata

from selfattn.errors import InputError

MAX_CHARS = 500  # longest text embedded; longer input is cut, not refused

# CJK Unified Ideographs and their extensions, plus the compatibility block.
CJK_RANGES = (
    (0x3400, 0x4DBF),  # Extension A
    (0x4E00, 0x9FFF),  # the main block, where nearly all modern characters live
    (0xF900, 0xFAFF),  # Compatibility Ideographs
    (0x20000, 0x2A6DF),  # Extension B
    (0x2A700, 0x2EBEF),  # Extensions C to F
    (0x30000, 0x3134F),  # Extension G
)


def is_cjk(char: str) -> bool:
    """True for one Chinese (CJK ideograph) character; punctuation such as ``，`` is not one."""
    code = ord(char)
    return any(lo <= code <= hi for lo, hi in CJK_RANGES)


def has_cjk(text: str) -> bool:
    """True when ``text`` contains at least one CJK ideograph."""
    return any(is_cjk(char) for char in text)


def is_wordlike(char: str) -> bool:
    """True for a letter or digit of any script (Unicode categories L* and N*)."""
    return unicodedata.category(char)[0] in "LN"


def check_text(text: object, max_chars: int = MAX_CHARS) -> tuple[str, bool]:
    """Validate a user's sentence and cut it to ``max_chars`` characters.

    Args:
        text: what the user typed.
        max_chars: longest text kept; the rest is dropped.

    Returns:
        (text, truncated): the text to embed (NFC-normalised, at most ``max_chars`` long) and
        whether it was cut.

    Raises:
        InputError: ``not_text`` for a non-string, ``empty_text`` for empty or
            whitespace-only text, ``only_punctuation`` when no letter or digit is left.
    """
    if not isinstance(text, str):
        raise InputError("not_text", f"The text must be a string, got {type(text).__name__}.", type=type(text).__name__)
    # lone surrogates (possible from a browser) cannot be encoded, so tokenizers would choke on them
    text = unicodedata.normalize("NFC", text.encode("utf-8", "replace").decode("utf-8"))
    if not text.strip():
        raise InputError("empty_text", "The text is empty; type a sentence first.")
    truncated = len(text) > max_chars
    if truncated:
        text = text[:max_chars]
    if not any(is_wordlike(char) for char in text):
        raise InputError(
            "only_punctuation",
            "The text holds only punctuation, symbols or emoji; type at least one word.",
        )
    return text, truncated
