"""The Chinese UI follows docs/glossary.md: 词元 for token, 词 only for word, no English words of ours."""

import re
from pathlib import Path

import pytest

from selfattn.i18n import CATALOG
from tests.glossary_rules import chinese_punctuation_problems

GLOSSARY = (Path(__file__).resolve().parents[1] / "docs" / "glossary.md").read_text(encoding="utf-8")
PAGES = ("pg.", "hd.", "emb.", "rd.")


def kept_words() -> set[str]:
    """The words listed under "Kept as written"."""
    tail = GLOSSARY.split("## Kept as written", 1)[1]
    listing = tail.split("skip. Words the check allows outside maths and code:", 1)[1]
    return {word.strip() for word in listing.replace("\n", " ").split(",") if word.strip()}


def chinese_prose(text: str) -> str:
    """``text`` without maths ($…$), code (`…`), placeholders ({…}) and bracketed tokens ([CLS])."""
    for pattern in (r"\$[^$]*\$", r"`[^`]*`", r"\{[^}]*\}", r"\[[A-Z]+\]"):
        text = re.sub(pattern, " ", text)
    return text


def entries():
    return sorted(CATALOG.items())


def test_the_glossary_table_is_read():
    assert "PyTorch" in kept_words() and "词元" in GLOSSARY


def token_problem(entry) -> str | None:
    """Why one entry breaks "token is 词元, 词 is a word", or None."""
    english, chinese = re.sub(r"\{[^}]*\}", " ", entry["en"]), chinese_prose(entry["zh"])
    if re.search(r"(?i)\btokens?\b", english) and "词元" not in chinese:
        return f"English says token, Chinese lacks 词元: {entry['zh']}"
    bare_ci = re.search(r"(?<!分)词(?![元表汇])", chinese)
    if bare_ci and not re.search(r"(?i)\bwords?\b|\bvocab", english):
        return f"词 means word, but the English says no word: {entry['zh']}"
    return None


def stray_english(entry) -> list[str]:
    """The English words of ours in one entry's Chinese text (maths, code, placeholders and kept words aside)."""
    allowed = kept_words()
    return [w for w in re.findall(r"(?<![0-9A-Za-z_.])[A-Za-z][A-Za-z0-9_]*", chinese_prose(entry["zh"]))
            if len(w) > 2 and w not in allowed and "_" not in w]


def test_the_rules_find_what_they_look_for():
    assert token_problem({"en": "Two tokens", "zh": "两个标记"}) and not token_problem({"en": "Two tokens", "zh": "两个词元"})
    assert token_problem({"en": "Rows", "zh": "每个词"}) and not token_problem({"en": "Each word", "zh": "每个词"})
    assert stray_english({"zh": "这是 head 视图"}) == ["head"] and not stray_english({"zh": "用 PyTorch 和 $QK^T$"})


def test_token_is_ci_yuan_and_ci_is_word():
    """One check over the whole catalog; it names every offending key."""
    offenders = {key: problem for key, entry in entries() if (problem := token_problem(entry))}
    assert not offenders, offenders


def test_no_english_words_of_ours_in_the_chinese_ui():
    """One check over the whole catalog; it names every offending key and its words."""
    offenders = {key: words for key, entry in entries() if (words := stray_english(entry))}
    assert not offenders, offenders


REVIEWED_PHRASES = ["最原始的形式", "关闭“单位长度”即可看到独热的权重", "向量类型：", "注意力显示于", "看什么。",
                    "最大 |我们 − PyTorch|", "rollout", "naive", "fused", "torch_mha", "it → animal",
                    "规范化", "残差与", "逐位"]  # issue 50: 层归一化, 残差连接与层归一化, no bit-for-bit claim


@pytest.mark.parametrize("phrase", REVIEWED_PHRASES)
def test_the_phrases_the_review_quoted_are_rewritten(phrase):
    found = [key for key, entry in CATALOG.items() if phrase in re.sub(r"\{[^}]*\}", "", entry["zh"])]
    assert not found, f"{phrase!r} still in {found}"


def test_the_punctuation_check_finds_what_it_looks_for():
    assert chinese_punctuation_problems("当前显示：本次运行, AMD") and chinese_punctuation_problems("本次运行, 测速")
    assert chinese_punctuation_problems("“输入 1” 的查询") and not chinese_punctuation_problems("“输入 1”的查询")
    assert chinese_punctuation_problems("点 “撤销”") and not chinese_punctuation_problems("点“撤销”，再看 $a, b$")
    assert not chinese_punctuation_problems("`a, 词`") and not chinese_punctuation_problems("$f(PX) = P f(X)$")


def test_chinese_strings_use_chinese_punctuation():
    """Every zh string of the catalog: "，" not ", " before Chinese, no space beside “ ” next to Chinese."""
    offenders = {key: chinese_punctuation_problems(entry["zh"]) for key, entry in entries()}
    assert not {key: found for key, found in offenders.items() if found}
