"""Rules the Chinese catalog keeps (tests/test_glossary.py), shared with the pages' text tests."""

from __future__ import annotations

import re

CJK = r"[\u3400-\u4dbf\u4e00-\u9fff]"
QUOTES = "“”‘’"


def chinese_punctuation_problems(text: str) -> list[str]:
    """What in one Chinese string breaks Chinese punctuation: an ASCII comma after or before a Chinese
    character, or a space between a Chinese character and a Chinese quotation mark. Maths ($…$)
    and code (`…`) are skipped; they keep their own commas."""
    prose = re.sub(r"\$[^$]*\$|`[^`]*`", "\x00", text)  # a mark that is neither a space nor a character
    problems = [f"ASCII comma: {m.group(0)!r}" for m in re.finditer(rf",\s*{CJK}|{CJK}\s*,", prose)]
    problems += [f"space by a quotation mark: {m.group(0)!r}"
                 for m in re.finditer(rf"{CJK} +[{QUOTES}]|[{QUOTES}] +{CJK}", prose)]
    return problems
