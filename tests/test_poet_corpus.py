"""The poet's corpus: the form filter, the conversion and deduplication on inline examples, the committed file,
its split and licence, and (when the npm tarball is at hand) a rebuild byte for byte."""

import lzma
import os
from pathlib import Path

import pytest

from selfattn.poet import corpus

QUATRAIN = "白日依山盡，黃河入海流。欲窮千里目，更上一層樓。"
TABLE = str.maketrans("盡黃窮層樓", "尽黄穷层楼")  # a stand-in for OpenCC's t2s on these characters


def test_the_form_is_4_or_8_lines_of_five_with_marks_alternating():
    assert corpus.regulated("白日依山尽，黄河入海流。欲穷千里目，更上一层楼。")
    assert corpus.regulated("白日依山尽，黄河入海流。" * 4)
    for bad in ["白日依山尽，黄河入海流。",  # 2 lines
                "白日依山尽，黄河入海流。" * 3,  # 6 lines
                "白日依山尽。黄河入海流，欲穷千里目。更上一层楼，",  # the marks swapped
                "白日依山尽，黄河入海流。欲穷千里目，更上一层楼",  # no last mark
                "白日依山，黄河入海流。欲穷千里目，更上一层楼。",  # a line of four
                "白日依山尽，黄河入海流。欲穷千里目，更上一□楼。",  # a missing character
                "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。（一作王之涣）",  # a note
                "白日依山尽,黄河入海流.欲穷千里目,更上一层楼."]:  # ASCII marks
        assert not corpus.regulated(bad), bad


def test_a_poem_is_its_paragraphs_joined_without_spaces():
    assert corpus.poem_text(["白日依山盡，黃河入海流。", " 欲窮千里目，更上一層樓。\n"]) == QUATRAIN
    assert corpus.lines_of("白日依山尽，黄河入海流。") == ["白日依山尽，", "黄河入海流。"]


def test_select_keeps_the_form_converts_and_keeps_the_first_copy():
    texts = [QUATRAIN, "秦川雄帝宅，函谷壯皇居。", QUATRAIN, QUATRAIN.replace("盡", "尽")]
    kept, counts = corpus.select(texts, lambda t: t.translate(TABLE))
    assert kept == ["白日依山尽，黄河入海流。欲穷千里目，更上一层楼。"]
    assert counts == {"read": 4, "not_the_form": 1, "form_lost_in_conversion": 0, "duplicate": 2, "kept": 1}


def test_a_conversion_that_leaves_the_blocks_drops_the_poem():
    """OpenCC's t2s turns a few rare characters into simplified forms outside the BMP's CJK blocks (餧 → 𫗪)."""
    kept, counts = corpus.select([QUATRAIN], lambda t: t.replace("盡", "\U0002B5EA"))
    assert kept == [] and counts["form_lost_in_conversion"] == 1


def test_the_split_is_a_rule_on_the_text():
    poems = corpus.read()
    assert all(corpus.is_held_out(p) for p in poems.held_out)
    assert not any(corpus.is_held_out(p) for p in poems.train)
    assert 0.04 < len(poems.held_out) / len(poems.all) < 0.06  # one in 20, near enough


def test_the_committed_corpus_is_poems_of_the_form_each_once():
    poems = corpus.read().all
    assert len(poems) == len(set(poems)) > 17_000
    assert all(corpus.regulated(p) for p in poems)
    assert {len(corpus.lines_of(p)) for p in poems} == {4, 8}
    assert "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。" in poems  # simplified
    assert corpus.CORPUS_PATH.stat().st_size <= 2_000_000


def test_the_licence_notice_is_committed_with_the_corpus():
    notice = (corpus.HERE / "CORPUS_LICENSE.txt").read_text(encoding="utf-8")
    assert "MIT" in notice and "Copyright (c) 2016 JackeyGao" in notice and "chinese-poetry" in notice


TARBALL = os.environ.get("SELFATTN_POET_TARBALL")


@pytest.mark.skipif(not TARBALL or not Path(TARBALL).exists(),
                    reason="set SELFATTN_POET_TARBALL to the file `npm pack chinese-poetry@2.0.1` writes (85 MB, "
                           "not committed) to rebuild the corpus and compare")
def test_the_tarball_rebuilds_the_committed_file(tmp_path):
    pytest.importorskip("opencc", reason="the rebuild converts with OpenCC: pip install opencc==1.4.2")
    corpus.build(Path(TARBALL), tmp_path / "poems.txt.xz")
    rebuilt, committed = (lzma.decompress(p.read_bytes()) for p in (tmp_path / "poems.txt.xz", corpus.CORPUS_PATH))
    assert rebuilt == committed
