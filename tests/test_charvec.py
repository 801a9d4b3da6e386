"""Character vectors from jieba's dictionary: neighbours, determinism, the file cache, splitting."""

from __future__ import annotations

import numpy as np
import pytest

from selfattn.errors import InputError
from selfattn.text import charvec


@pytest.fixture(scope="module")
def cache_folder(tmp_path_factory):
    """Point SELFATTN_CACHE_DIR at a fresh folder so the tests never touch ~/.cache."""
    folder = tmp_path_factory.mktemp("selfattn-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(charvec.CACHE_ENV, str(folder))
        charvec.clear_memory_cache()
        yield folder


@pytest.fixture(scope="module")
def table(cache_folder):
    return charvec.load_char_vectors()


def neighbours(table, char, k=10):
    return [c for c, _ in table.nearest(char, k)]


def test_table_shape(table):
    assert len(table) == 6945 and table.dim == 64
    assert table.vectors.shape == (6945, 64) and table.vectors.dtype == np.float64
    assert np.all(np.isfinite(table.vectors))
    assert np.all(np.diff(table.singular_values) <= 0)
    assert "猫" in table and "，" not in table and "A" not in table


@pytest.mark.parametrize("char, expected", [("猫", {"狗"}), ("红", {"绿"}), ("上", {"下"}), ("日", {"月", "年"}),
                                            ("一", {"二", "两", "三"}), ("大", {"小"})])
def test_neighbours_are_meaningful(table, char, expected):
    assert expected & set(neighbours(table, char))


def test_neighbours_are_not_everything(table):
    assert not {"狗", "猫", "兔"} & set(neighbours(table, "红", 20))
    assert not {"红", "绿", "蓝"} & set(neighbours(table, "猫", 20))


def test_nearest_scores_sorted_and_exclude_self(table):
    pairs = charvec.nearest("猫", 8, table=table)
    sims = [s for _, s in pairs]
    assert len(pairs) == 8 and "猫" not in dict(pairs)
    assert sims == sorted(sims, reverse=True) and all(-1 <= s <= 1 for s in sims)


@pytest.mark.parametrize("char, k, code", [("猫狗", 5, "not_one_char"), ("", 5, "not_one_char"),
                                           ("A", 5, "char_not_in_table"), ("🍕", 5, "char_not_in_table"),
                                           ("猫", 0, "bad_k")])
def test_nearest_errors(table, char, k, code):
    with pytest.raises(InputError) as err:
        table.nearest(char, k)
    assert err.value.code == code


def test_unknown_char_has_zero_vector(table):
    assert not table.vector("，").any() and table.vector("猫").any()


def test_build_is_deterministic_and_cache_round_trips(table, cache_folder):
    """The fixture's table was built by load_char_vectors and written to the cache folder; an
    independent build equals it bit for bit, and a fresh load reads the file back unchanged."""
    assert table.origin == "built"
    path = charvec.cache_file(table.key, cache_folder)
    assert path.is_file()
    rebuilt = charvec.build_char_vectors()
    np.testing.assert_array_equal(rebuilt.vectors, table.vectors)
    np.testing.assert_array_equal(rebuilt.chars, table.chars)
    charvec.clear_memory_cache()
    loaded = charvec.load_char_vectors()
    assert loaded.origin == "file"
    for name in ("chars", "vectors", "singular_values", "word_counts"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(table, name))
    assert loaded.params == table.params and loaded.nearest("猫", 5) == table.nearest("猫", 5)
    assert charvec.load_char_vectors() is loaded  # in-process cache
    with np.load(path, allow_pickle=False) as data:  # plain arrays only, no pickled objects
        assert all(data[name].dtype != object for name in data.files)


def test_cache_key_follows_parameters(table):
    path = charvec.jieba_dict_path()
    assert charvec.cache_key(path, charvec.CharVecParams()) == table.key
    assert charvec.cache_key(path, charvec.CharVecParams(dim=32)) != table.key


def test_bad_or_foreign_cache_file_is_ignored(tmp_path, table):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip file")
    assert charvec.read_char_vectors(junk, table.key) is None
    other = tmp_path / "other.npz"
    charvec.save_char_vectors(table, other)
    assert charvec.read_char_vectors(other, "another-key") is None
    assert charvec.read_char_vectors(other, table.key).origin == "file"


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.delenv(charvec.CACHE_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert charvec.cache_dir() == tmp_path / ".cache" / "selfattn"


@pytest.mark.parametrize("text, tokens", [
    ("早上好", ["早", "上", "好"]),
    ("早上好，今天", ["早", "上", "好", "，", "今", "天"]),
    ("我爱 AI 2024年 café", ["我", "爱", "AI", "2024", "年", "café"]),
    ("好👍🏽👨‍👩‍👧🇨🇳!", ["好", "👍🏽", "👨‍👩‍👧", "🇨🇳", "!"]),
    ("  \n\t", []),
])
def test_split_chars(text, tokens):
    pieces = charvec.split_chars(text)
    assert [t for t, _ in pieces] == tokens
    assert all(text[start:start + len(t)] == t for t, start in pieces)


def test_segment_words():
    words = charvec.segment("早上好，今天天气很好 hello")
    assert words[0] == "早上好" and "hello" in words
    assert "".join(words) == "早上好，今天天气很好hello"


def test_jieba_stays_quiet(tmp_path):
    """jieba logs "Building prefix dict ..." to stderr unless told not to, and compiling its files
    warns about invalid escapes (a SyntaxWarning on Python >= 3.12). A fresh bytecode cache makes
    Python compile them again, and -W always shows every warning that is not silenced."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    code = "from selfattn.text.charvec import segment; print(segment('早上好，今天天气很好'))"
    path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-X", f"pycache_prefix={tmp_path}", "-W", "always", "-c", code],
                          capture_output=True, text=True, check=True, cwd=root, env=dict(os.environ, PYTHONPATH=path))
    assert "早上好" in done.stdout and done.stderr == ""
