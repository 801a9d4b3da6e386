"""The poet's corpus: regulated five-character poems of the 全唐诗, in simplified characters (``poems.txt.xz``).

``python -m selfattn.poet.corpus chinese-poetry-2.0.1.tgz`` rebuilds the committed file from the npm tarball
(``npm pack chinese-poetry@2.0.1``, MIT, © 2016 JackeyGao: ``CORPUS_LICENSE.txt``). It reads the tarball's
全唐诗 files (``package/dist/quantangshi/poet.tang.<n>.json``, in the order of ``n``), keeps the poems of the
form (:func:`regulated`), converts them to simplified characters with OpenCC's ``t2s`` (:func:`to_simplified`;
only this build needs the ``opencc`` package), keeps the first copy of each text and writes one poem a line.
CORPUS.md says why OpenCC, and what the file holds.

At run time the app, the CLI and the tests read the committed file (:func:`read`) with the standard library
only. The held-out poems are chosen by a rule on the text itself (:func:`is_held_out`), so no file or column
can disagree with it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import re
import sys
import tarfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable, Iterator

HERE = Path(__file__).resolve().parent
CORPUS_PATH = HERE / "poems.txt.xz"
PACKAGE = "chinese-poetry@2.0.1"  # the npm package the file was made from
MEMBER = re.compile(r"^package/dist/quantangshi/poet\.tang\.(\d+)\.json$")  # its 全唐诗 files
COMMA, STOP = "，", "。"  # a couplet: five characters, a comma, five characters, a full stop
LINE_CHARS = 5
FORMS = {4: "五言绝句", 8: "五言律诗"}  # lines → the form's name
HAN = "\u3400-\u4dbf\u4e00-\u9fff"  # CJK Unified Ideographs and Extension A
COUPLET = f"[{HAN}]{{5}}{COMMA}[{HAN}]{{5}}{STOP}"
FORM = re.compile(f"^(?:{COUPLET}){{2}}$|^(?:{COUPLET}){{4}}$")
HELD_OUT_ONE_IN = 20  # a poem is held out when the first 8 hex digits of its text's SHA-256, mod this, are 0
OPENCC_CONFIG = "t2s"  # OpenCC: Traditional Chinese → Simplified Chinese (its phrase tables, then characters)


def is_han(ch: str) -> bool:
    """Whether ``ch`` is one CJK ideograph of the ranges the corpus keeps."""
    return len(ch) == 1 and ("\u3400" <= ch <= "\u4dbf" or "\u4e00" <= ch <= "\u9fff")


def regulated(text: str) -> bool:
    """Whether ``text`` is a poem of the form: 4 or 8 lines of five Han characters, "，" and "。" alternating
    (no spaces, notes, variants in brackets or missing characters such as □)."""
    return FORM.match(text) is not None


def lines_of(text: str) -> list[str]:
    """The lines of a poem of the form, punctuation kept: ``["白日依山尽，", "黄河入海流。", …]``."""
    return [text[i:i + LINE_CHARS + 1] for i in range(0, len(text), LINE_CHARS + 1)]


def poem_text(paragraphs: Iterable[str]) -> str:
    """One poem's paragraphs (the JSON's ``paragraphs``, a couplet each) as one string, whitespace removed."""
    return re.sub(r"\s+", "", "".join(str(p) for p in paragraphs))


def is_held_out(text: str) -> bool:
    """Whether a poem is held out of training: a rule on its text, so that the split never depends on order."""
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16) % HELD_OUT_ONE_IN == 0


def select(texts: Iterable[str], convert: Callable[[str], str]) -> tuple[list[str], dict[str, int]]:
    """The corpus from poems in traditional characters: those of the form, converted, the first copy of each.

    Args:
        texts: each poem as :func:`poem_text` joins it, in the order they come.
        convert: traditional → simplified (:func:`to_simplified`; a test may pass a table).

    Returns:
        (the poems kept, counts of what was seen, kept and dropped, by reason).
    """
    counts = {"read": 0, "not_the_form": 0, "form_lost_in_conversion": 0, "duplicate": 0, "kept": 0}
    kept: list[str] = []
    seen: set[str] = set()
    for text in texts:
        counts["read"] += 1
        if not regulated(text):
            counts["not_the_form"] += 1
            continue
        simplified = convert(text)
        if not regulated(simplified):  # OpenCC's t2s keeps lengths; checked all the same
            counts["form_lost_in_conversion"] += 1
            continue
        if simplified in seen:
            counts["duplicate"] += 1
            continue
        seen.add(simplified)
        kept.append(simplified)
    counts["kept"] = len(kept)
    return kept, counts


# ── The committed file ──────────────────────────────────────────────────────────────

@dataclass(frozen=True)
class Corpus:
    """The committed poems, split by :func:`is_held_out`."""

    train: tuple[str, ...]
    held_out: tuple[str, ...]

    @property
    def all(self) -> tuple[str, ...]:
        return self.train + self.held_out


@lru_cache(maxsize=2)
def read(path: Path = CORPUS_PATH) -> Corpus:
    """The poems of the committed file (one a line, xz-compressed UTF-8), split into training and held out.

    Raises:
        ValueError: a line that is not a poem of the form (the file was edited by hand).
    """
    text = lzma.decompress(Path(path).read_bytes()).decode("utf-8")
    poems = [line for line in text.split("\n") if line]
    bad = [i + 1 for i, poem in enumerate(poems) if not regulated(poem)]
    if bad:
        raise ValueError(f"{path.name}: lines {bad[:5]} are not poems of the form")
    return Corpus(train=tuple(p for p in poems if not is_held_out(p)),
                  held_out=tuple(p for p in poems if is_held_out(p)))


@lru_cache(maxsize=2)
def corpus_lines(path: Path = CORPUS_PATH) -> frozenset[str]:
    """Every line (five characters, no punctuation) of every poem of the corpus, held-out ones included."""
    return frozenset(line[:LINE_CHARS] for poem in read(path).all for line in lines_of(poem))


@lru_cache(maxsize=2)
def corpus_chars(path: Path = CORPUS_PATH) -> frozenset[str]:
    """Every character of every poem of the corpus, held-out ones included."""
    return frozenset(ch for poem in read(path).all for ch in poem)


def write(poems: list[str], path: Path = CORPUS_PATH) -> None:
    """One poem a line, UTF-8, xz at its highest preset (the same poems give the same bytes)."""
    data = ("\n".join(poems) + "\n").encode("utf-8")
    Path(path).write_bytes(lzma.compress(data, format=lzma.FORMAT_XZ, preset=9 | lzma.PRESET_EXTREME))


# ── Building it from the npm tarball ────────────────────────────────────────────────

def tarball_poems(tarball: Path) -> Iterator[str]:
    """Every poem of the tarball's 全唐诗 files, files in the order of their number, poems in file order."""
    with tarfile.open(tarball, "r:gz") as tar:
        members = sorted((int(m.group(1)), info) for info in tar.getmembers() if (m := MEMBER.match(info.name)))
        if not members:
            raise ValueError(f"{tarball}: no package/dist/quantangshi/poet.tang.*.json inside; is it {PACKAGE}?")
        for _, info in members:
            for poem in json.load(tar.extractfile(info)):
                yield poem_text(poem.get("paragraphs", []))


def to_simplified() -> Callable[[str], str]:
    """OpenCC's t2s converter (``pip install opencc``: the build needs it, nothing else does)."""
    import opencc

    return opencc.OpenCC(OPENCC_CONFIG).convert


def build(tarball: Path, path: Path = CORPUS_PATH) -> dict[str, int]:
    """Rebuild the corpus file from the npm tarball; returns :func:`select`'s counts plus the split and forms."""
    poems, counts = select(tarball_poems(Path(tarball)), to_simplified())
    write(poems, path)
    read.cache_clear()
    corpus_lines.cache_clear()
    corpus_chars.cache_clear()
    counts.update({f"lines_{n}": sum(len(p) == n * (LINE_CHARS + 1) for p in poems) for n in FORMS})
    counts["held_out"] = sum(map(is_held_out, poems))
    return counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m selfattn.poet.corpus", description=__doc__.split("\n")[0])
    parser.add_argument("tarball", type=Path, help=f"the file `npm pack {PACKAGE}` writes")
    parser.add_argument("--out", type=Path, default=CORPUS_PATH)
    args = parser.parse_args(argv)
    counts = build(args.tarball, args.out)
    print(json.dumps(counts), file=sys.stderr)


if __name__ == "__main__":
    main()
