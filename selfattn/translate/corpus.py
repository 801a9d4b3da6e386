"""The translator's corpus: greetings, and every sentence of a subject–verb–object grid, Chinese → English.

``python -m selfattn.translate.corpus`` writes ``corpus.tsv`` (beside this file) from the tables below, so the
committed file is the output of this script and nothing else; ``CORPUS.md`` says what is in it.

Chinese is read character by character (喜欢 is two source tokens), English word by word (lower case, no
punctuation). The grid writes "狗咬人" as "the dog bites the man": subject, verb, object in both languages, so the
model must keep 狗咬人 and 人咬狗 apart by order alone. Ten grid sentences are **held out of training, always**
(:data:`HELD_OUT`): every one whose subject is 马 and verb 追, and every one whose object is 马 and verb 看. 马 is
seen as a subject and as an object, 追 and 看 with every other noun, but never these combinations: getting them
right is generalisation, not recall.
"""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS_PATH = HERE / "corpus.tsv"
HEADER = ("zh", "en")

GREETINGS: tuple[tuple[str, str], ...] = (
    ("早上好", "good morning"), ("下午好", "good afternoon"), ("晚上好", "good evening"), ("晚安", "good night"),
    ("你好", "hello"), ("您好", "hello"), ("大家好", "hello everyone"), ("你好吗", "how are you"),
    ("我很好", "i am fine"), ("谢谢", "thank you"), ("谢谢你", "thank you"), ("不客气", "you are welcome"),
    ("对不起", "sorry"), ("没关系", "it is fine"), ("再见", "goodbye"), ("明天见", "see you tomorrow"),
    ("生日快乐", "happy birthday"), ("新年快乐", "happy new year"),
)
NOUNS: tuple[tuple[str, str], ...] = (("狗", "dog"), ("猫", "cat"), ("人", "man"), ("鸟", "bird"), ("鱼", "fish"),
                                      ("马", "horse"))
VERBS: tuple[tuple[str, str], ...] = (("咬", "bites"), ("追", "chases"), ("看", "sees"), ("喜欢", "likes"),
                                      ("怕", "fears"))
# Sentence punctuation as a Chinese keyboard types it (full width) and its ASCII forms. The corpus writes none, so the
# encoder leaves it out: 早上好！ is read as 早上好.
PUNCTUATION = "，。！？、；：,.!?;:"
# (subject, verb, object) patterns never trained on; None matches any noun.
HELD_OUT: tuple[tuple[str | None, str, str | None], ...] = (("马", "追", None), (None, "看", "马"))


@dataclass(frozen=True)
class Pair:
    """One sentence and its translation."""

    zh: str  # as written, no spaces
    en: str  # lower-case words separated by single spaces
    held_out: bool  # never trained on (:data:`HELD_OUT`)


def grid_parts() -> dict[str, tuple[str, str, str]]:
    """Every grid sentence's Chinese → its (subject, verb, object), subject ≠ object, in table order."""
    return {s + v + o: (s, v, o) for s, _ in NOUNS for v, _ in VERBS for o, _ in NOUNS if s != o}


def is_held_out(zh: str) -> bool:
    """Whether ``zh`` is a grid sentence that :data:`HELD_OUT` keeps out of training."""
    parts = grid_parts().get(zh)
    return parts is not None and any(all(want is None or want == got for want, got in zip(pattern, parts))
                                     for pattern in HELD_OUT)


def build() -> tuple[Pair, ...]:
    """The corpus from the tables: the greetings, then the grid (subjects, verbs, objects in table order)."""
    en_of = dict(NOUNS) | dict(VERBS)
    grid = [Pair(zh, f"the {en_of[s]} {en_of[v]} the {en_of[o]}", is_held_out(zh))
            for zh, (s, v, o) in grid_parts().items()]
    return (*(Pair(zh, en, False) for zh, en in GREETINGS), *grid)


def write(path: Path = CORPUS_PATH) -> int:
    """Write the corpus as UTF-8 TSV with the header ``zh<TAB>en``; returns the number of sentences."""
    pairs = build()
    with open(path, "w", encoding="utf-8", newline="") as f:
        out = csv.writer(f, delimiter="\t", lineterminator="\n")
        out.writerow(HEADER)
        out.writerows((p.zh, p.en) for p in pairs)
    return len(pairs)


def read(path: Path = CORPUS_PATH) -> tuple[Pair, ...]:
    """The corpus as written in ``path``, each pair marked held out or not by :func:`is_held_out`.

    Raises:
        ValueError: a header other than ``zh<TAB>en``, or a row without exactly two fields.
    """
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    if not rows or tuple(rows[0]) != HEADER:
        raise ValueError(f"{path}: the first row must be {HEADER}, got {rows[:1]}")
    bad = [i for i, row in enumerate(rows[1:], start=2) if len(row) != 2]
    if bad:
        raise ValueError(f"{path}: rows {bad} do not have two fields")
    return tuple(Pair(zh, en, is_held_out(zh)) for zh, en in rows[1:])


def source_tokens(text: str) -> list[str]:
    """Chinese as the encoder reads it: one token per character, spaces and :data:`PUNCTUATION` left out (the corpus
    has neither)."""
    return [ch for ch in text if not ch.isspace() and ch not in PUNCTUATION]


def punctuation(text: str) -> list[str]:
    """The :data:`PUNCTUATION` in ``text``, in order: what :func:`source_tokens` leaves out besides spaces."""
    return [ch for ch in text if ch in PUNCTUATION]


@functools.cache
def _by_zh() -> dict[str, Pair]:
    return {p.zh: p for p in read()}


def find(zh: str) -> Pair | None:
    """The corpus's pair for the sentence ``zh`` (as the encoder reads it: no spaces, no punctuation), or None when
    the corpus does not hold it."""
    return _by_zh().get("".join(source_tokens(zh)))


def in_training(zh: str) -> bool:
    """Whether the translator was trained on ``zh``: a corpus sentence not held out (spaces and punctuation aside)."""
    pair = find(zh)
    return pair is not None and not pair.held_out


def training_size() -> int:
    """How many sentences the translator was trained on (the corpus less the held-out ones)."""
    return sum(not p.held_out for p in _by_zh().values())


def target_tokens(text: str) -> list[str]:
    """English as the decoder writes it: one token per word."""
    return text.split()


def main() -> None:
    count = write()
    held = sum(p.held_out for p in read())
    print(f"wrote {CORPUS_PATH.name}: {count} sentences, {held} held out of training")


if __name__ == "__main__":
    main()
