"""Chinese character vectors learned from the word list that ships with jieba.

How the table is built (``build_char_vectors``):

1. Read ``jieba/dict.txt`` (lines ``word freq pos``) and keep the words of two or more CJK
   characters (about 337,000 words over 6,945 distinct characters).
2. Count co-occurrences: inside each word, every character sees every other character as
   context, weighted by ``log(1 + freq)`` so that a few very frequent words do not drown the
   rest. Contexts are *directional*: "猫 has 熊 on its left" and "猫 has 熊 on its right" are
   different columns, so the matrix is (V, 2V).
3. Positive PMI, with the context distribution smoothed to the power 0.75 (Levy et al. 2015).
4. Truncated SVD to 64 dimensions with a seeded randomized algorithm (fixed seed, fixed
   oversampling and power iterations); each singular vector's sign is fixed so that its largest
   entry is positive. A character's vector is its row of ``U * s``.

Two characters end up close when they combine with the same partners in the same positions,
so 猫 lands near 狗 兔 鼠, 红 near 绿 紫 蓝, 上 near 下 来 起, 日 near 月 年 时.

Caching (``load_char_vectors``): the first build takes about two seconds. The table is then
kept in memory for the process, and written to ``charvec-<key>.npz`` in the cache folder:
``$SELFATTN_CACHE_DIR`` when set, otherwise ``~/.cache/selfattn``. ``<key>`` hashes the bytes
of jieba's dictionary, the build parameters and the format version, so a new jieba or new
parameters never read a stale file. Files are written atomically and read with
``np.load(..., allow_pickle=False)``: no pickle anywhere. An unreadable or mismatched file is
rebuilt; an unwritable folder only means the next process builds again.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
import os
import re
import tempfile
import unicodedata
import warnings
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from selfattn.errors import InputError
from selfattn.text.embedding_text import CJK_RANGES, is_cjk, is_wordlike

if TYPE_CHECKING:
    import scipy.sparse as sp

FORMAT_VERSION = 1  # bump when the file layout or the algorithm changes
CACHE_ENV = "SELFATTN_CACHE_DIR"

_CJK_CLASS = "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in CJK_RANGES)
_CJK_WORD = re.compile(f"[{_CJK_CLASS}]{{2,}}")


@dataclass(frozen=True)
class CharVecParams:
    """Build parameters; each one is part of the cache key."""

    dim: int = 64  # number of SVD components kept
    weight: str = "log"  # word weight: "log" = log(1 + freq), "raw" = freq, "one" = 1
    directional: bool = True  # separate left and right contexts
    alpha: float = 0.75  # context-distribution smoothing of PMI
    power: float = 1.0  # vectors = U * s**power
    oversample: int = 16  # extra random directions of the randomized SVD
    power_iters: int = 4  # subspace iterations of the randomized SVD
    seed: int = 0  # seed of the random start


@dataclass(frozen=True, eq=False)
class CharVectors:
    """A table of character vectors, one row per character."""

    chars: np.ndarray  # (V,) '<U1' characters, in code-point order
    vectors: np.ndarray  # (V, dim) float64
    singular_values: np.ndarray  # (dim,) descending
    word_counts: np.ndarray  # (V,) int, how many dictionary words contain the character
    params: CharVecParams
    key: str  # cache key (dictionary hash + parameters)
    origin: str = field(default="built", compare=False)  # "built" or "file": where this copy came from
    _index: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        for array in (self.chars, self.vectors, self.singular_values, self.word_counts):
            array.setflags(write=False)  # one table is shared by every caller in the process
        if not self._index:
            self._index.update({char: i for i, char in enumerate(self.chars.tolist())})

    def __len__(self) -> int:
        return len(self.chars)

    def __contains__(self, char: object) -> bool:
        return char in self._index

    @property
    def dim(self) -> int:
        """Width of each vector."""
        return self.vectors.shape[1]

    def index_of(self, char: str) -> int | None:
        """Row of ``char`` in the table, or None when it has no vector."""
        return self._index.get(char)

    def vector(self, char: str) -> np.ndarray:
        """(dim,) vector of ``char``; zeros when the character is not in the table."""
        row = self._index.get(char)
        return self.vectors[row].copy() if row is not None else np.zeros(self.dim)

    def nearest(self, char: str, k: int = 10, min_words: int = 3) -> list[tuple[str, float]]:
        """The ``k`` characters with the highest cosine similarity to ``char``.

        Args:
            char: one character that is in the table.
            k: how many neighbours to return.
            min_words: skip neighbours found in fewer dictionary words than this; rare
                characters have noisy vectors and would otherwise crowd the list.

        Returns:
            [(character, cosine similarity)], best first, without ``char`` itself.

        Raises:
            InputError: ``not_one_char`` or ``char_not_in_table``; ``bad_k`` for k < 1.
        """
        if not isinstance(char, str) or len(char) != 1:
            raise InputError("not_one_char", f"Give exactly one character, got {char!r}.", text=str(char))
        if not isinstance(k, int) or k < 1:
            raise InputError("bad_k", f"k must be a whole number of at least 1, got {k!r}.", k=str(k))
        row = self._index.get(char)
        if row is None:
            raise InputError("char_not_in_table", f"「{char}」 has no vector in the character table.", char=char)
        norms = np.linalg.norm(self.vectors, axis=1)  # (V,)
        sims = self.vectors @ self.vectors[row] / np.maximum(norms * norms[row], 1e-12)  # (V,)
        sims[row] = -np.inf
        sims[self.word_counts < min_words] = -np.inf
        order = np.argsort(-sims, kind="stable")[:k]
        return [(str(self.chars[i]), float(sims[i])) for i in order if np.isfinite(sims[i])]


def jieba_dict_path() -> Path:
    """Path of the word-frequency dictionary inside the installed jieba package."""
    return Path(str(resources.files(_import_jieba()) / "dict.txt"))


def read_dictionary(path: Path) -> tuple[list[str], np.ndarray]:
    """Words of two or more CJK characters and their frequencies from a jieba-style dict.

    Returns:
        (words, freqs): the words in file order and a (W,) float64 array of frequencies.
    """
    words: list[str] = []
    freqs: list[float] = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            parts = line.split()
            if len(parts) >= 2 and _CJK_WORD.fullmatch(parts[0]):
                words.append(parts[0])
                freqs.append(float(parts[1]))
    return words, np.asarray(freqs, dtype=np.float64)


def cooccurrence(words: list[str], freqs: np.ndarray,
                 params: CharVecParams) -> tuple[np.ndarray, sp.csr_matrix, np.ndarray]:
    """Weighted character-context counts within words.

    Returns:
        (chars, counts, word_counts): (V,) '<U1' characters in code-point order; a (V, V)
        sparse matrix, or (V, 2V) when ``params.directional`` (columns V.. are right-hand
        contexts); (V,) int64 number of words each character occurs in.
    """
    import scipy.sparse as sp  # only needed to build; importing selfattn stays light

    weights = {"log": np.log1p(freqs), "raw": freqs, "one": np.ones_like(freqs)}.get(params.weight)
    if weights is None:
        raise ValueError(f"unknown weight {params.weight!r}")
    codes = np.frombuffer("".join(words).encode("utf-32-le"), dtype="<u4")  # (total_chars,)
    lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))  # (W,)
    starts = np.cumsum(lengths) - lengths  # (W,)
    uniq, ids = np.unique(codes, return_inverse=True)
    n_chars = len(uniq)
    rows, cols, vals, distinct = [], [], [], []
    for length in np.unique(lengths):
        picked = np.flatnonzero(lengths == length)
        block = ids[starts[picked, None] + np.arange(length)]  # (W_m, m) character ids per word
        ordered = np.sort(block, axis=1)  # (W_m, m)
        first = np.ones_like(ordered, dtype=bool)  # (W_m, m) first time a character shows in its word
        first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
        distinct.append(ordered[first])
        for i in range(length):
            for j in range(length):
                if i == j:
                    continue
                rows.append(block[:, i])
                offset = n_chars if (params.directional and j > i) else 0
                cols.append(block[:, j] + offset)
                vals.append(weights[picked])
    width = 2 * n_chars if params.directional else n_chars
    counts = sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n_chars, width)
    )  # duplicates are summed
    chars = np.array([chr(c) for c in uniq], dtype="<U1")
    word_counts = np.bincount(np.concatenate(distinct), minlength=n_chars)  # (V,)
    return chars, counts, word_counts


def ppmi(counts: sp.csr_matrix, alpha: float = 0.75) -> sp.csr_matrix:
    """Positive pointwise mutual information of a count matrix, context probabilities ** alpha."""
    import scipy.sparse as sp

    total = counts.sum()
    p_row = np.asarray(counts.sum(axis=1)).ravel() / total  # (V,)
    col = np.asarray(counts.sum(axis=0)).ravel() ** alpha  # (C,)
    p_col = col / col.sum()
    coo = counts.tocoo()
    pmi = np.log((coo.data / total) / (p_row[coo.row] * p_col[coo.col]))
    keep = pmi > 0
    return sp.csr_matrix((pmi[keep], (coo.row[keep], coo.col[keep])), shape=counts.shape)


def truncated_svd(matrix: sp.csr_matrix, params: CharVecParams) -> tuple[np.ndarray, np.ndarray]:
    """Top ``params.dim`` left singular vectors and values by seeded randomized SVD.

    Returns:
        (u, s): (V, dim) with each column's largest-magnitude entry positive, and (dim,)
        singular values in descending order.
    """
    rng = np.random.default_rng(params.seed)
    width = params.dim + params.oversample
    sample = matrix @ rng.standard_normal((matrix.shape[1], width))  # (V, dim + oversample)
    for _ in range(params.power_iters):
        basis, _ = np.linalg.qr(sample)
        back, _ = np.linalg.qr(matrix.T @ basis)  # (C, dim + oversample)
        sample = matrix @ back
    basis, _ = np.linalg.qr(sample)  # (V, dim + oversample)
    small = (matrix.T @ basis).T  # (dim + oversample, C)
    u_small, s, _ = np.linalg.svd(small, full_matrices=False)
    u = (basis @ u_small)[:, : params.dim]  # (V, dim)
    peak = np.argmax(np.abs(u), axis=0)  # (dim,)
    u = u * np.sign(u[peak, np.arange(params.dim)])
    return u, s[: params.dim]


def build_char_vectors(dict_path: Path | None = None, params: CharVecParams | None = None) -> CharVectors:
    """Build the table from scratch (no cache read or written). Deterministic.

    Args:
        dict_path: a jieba-style ``word freq pos`` file; jieba's own dictionary by default.
        params: build parameters; the defaults give 6,945 characters x 64 dimensions.

    Returns:
        CharVectors with ``origin="built"``.
    """
    dict_path = Path(dict_path) if dict_path is not None else jieba_dict_path()
    params = params or CharVecParams()
    words, freqs = read_dictionary(dict_path)
    chars, counts, word_counts = cooccurrence(words, freqs, params)
    u, s = truncated_svd(ppmi(counts, params.alpha), params)
    vectors = u * s**params.power  # (V, dim)
    return CharVectors(chars, vectors, s, word_counts, params, cache_key(dict_path, params))


@functools.lru_cache(maxsize=8)
def _file_digest(path: str, size: int, mtime_ns: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def cache_key(dict_path: Path, params: CharVecParams) -> str:
    """Hex key naming one table: dictionary contents + parameters + format version."""
    stat = os.stat(dict_path)
    digest = _file_digest(str(dict_path), stat.st_size, stat.st_mtime_ns)
    spec = json.dumps({"dict": digest, "params": dataclasses.asdict(params), "format": FORMAT_VERSION}, sort_keys=True)
    return hashlib.sha256(spec.encode()).hexdigest()[:20]


def cache_dir() -> Path:
    """The folder for cached tables: ``$SELFATTN_CACHE_DIR`` or ``~/.cache/selfattn``."""
    configured = os.environ.get(CACHE_ENV)
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "selfattn"


def cache_file(key: str, folder: Path | None = None) -> Path:
    """Where the table with cache key ``key`` is stored."""
    return (folder or cache_dir()) / f"charvec-{key}.npz"


def save_char_vectors(table: CharVectors, path: Path) -> None:
    """Write ``table`` to ``path`` as a plain .npz (atomic replace; no pickled objects)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = json.dumps({"key": table.key, "params": dataclasses.asdict(table.params), "format": FORMAT_VERSION})
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=".charvec-", suffix=".npz")
    try:
        with os.fdopen(handle, "wb") as out:
            np.savez(out, chars=table.chars, vectors=table.vectors, singular_values=table.singular_values,
                     word_counts=table.word_counts, meta=np.array(meta))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_char_vectors(path: Path, key: str) -> CharVectors | None:
    """The table stored at ``path`` if it is readable and was built under ``key``; else None."""
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            if meta.get("key") != key or meta.get("format") != FORMAT_VERSION:
                return None
            return CharVectors(
                data["chars"].astype("<U1"), data["vectors"].astype(np.float64),
                data["singular_values"].astype(np.float64), data["word_counts"].astype(np.int64),
                CharVecParams(**meta["params"]), key, origin="file",
            )
    except (OSError, ValueError, KeyError, TypeError):
        return None


_MEMORY: dict[str, CharVectors] = {}


def load_char_vectors(params: CharVecParams | None = None, *, use_cache: bool = True,
                      folder: Path | None = None) -> CharVectors:
    """The character table, from memory, from the cache file, or freshly built (then cached).

    Args:
        params: build parameters (default ``CharVecParams()``).
        use_cache: False builds afresh and touches neither the memory nor the file cache.
        folder: cache folder; default ``cache_dir()``.

    Returns:
        CharVectors; ``origin`` says whether this copy was built or read from a file.
    """
    params = params or CharVecParams()
    dict_path = jieba_dict_path()
    if not use_cache:
        return build_char_vectors(dict_path, params)
    key = cache_key(dict_path, params)
    if key in _MEMORY:
        return _MEMORY[key]
    path = cache_file(key, folder)
    table = read_char_vectors(path, key) if path.is_file() else None
    if table is None:
        table = build_char_vectors(dict_path, params)
        try:
            save_char_vectors(table, path)
        except OSError:
            pass  # read-only home or full disk: keep working, build again next process
    _MEMORY[key] = table
    return table


def clear_memory_cache() -> None:
    """Forget tables held in this process (the files stay)."""
    _MEMORY.clear()


def nearest(char: str, k: int = 10, *, table: CharVectors | None = None, min_words: int = 3) -> list[tuple[str, float]]:
    """The ``k`` nearest characters to ``char`` by cosine similarity in the default table.

    Args:
        char: one Chinese character.
        k: number of neighbours.
        table: a table to search instead of ``load_char_vectors()``.
        min_words: skip neighbours that occur in fewer dictionary words (rare, noisy).

    Returns:
        [(character, cosine similarity)], best first.
    """
    return (table or load_char_vectors()).nearest(char, k, min_words=min_words)


_JOINERS = {0x200D, 0x20E3}  # zero-width joiner, combining keycap


def _attaches(char: str) -> bool:
    """Marks that belong to the previous character (accents, variation selectors, skin tones)."""
    code = ord(char)
    return (unicodedata.category(char)[0] == "M" or code in _JOINERS or 0xFE00 <= code <= 0xFE0F
            or 0x1F3FB <= code <= 0x1F3FF or 0xE0020 <= code <= 0xE007F)


def _is_flag_half(char: str) -> bool:
    return 0x1F1E6 <= ord(char) <= 0x1F1FF


def split_chars(text: str) -> list[tuple[str, int]]:
    """Split text into character tokens with their start offsets.

    Each CJK character is a token; a run of other letters and digits ("AI", "2024", "café")
    is one token; every other visible character (punctuation, an emoji with its modifiers)
    is a token; whitespace separates tokens and is dropped.

    Returns:
        [(token, start index in text)].
    """
    tokens: list[tuple[str, int]] = []
    glue = False  # previous character was a zero-width joiner: the next one joins too
    for pos, char in enumerate(text):
        if tokens and (glue or _attaches(char)):
            token, start = tokens[-1]
            tokens[-1] = (token + char, start)
        elif char.isspace() or unicodedata.category(char) == "Cc":
            pass
        elif _is_flag_half(char) and tokens and len(tokens[-1][0]) == 1 and _is_flag_half(tokens[-1][0]):
            tokens[-1] = (tokens[-1][0] + char, tokens[-1][1])  # two regional indicators make one flag
        elif (tokens and not is_cjk(char) and is_wordlike(char) and tokens[-1][1] + len(tokens[-1][0]) == pos
              and not is_cjk(tokens[-1][0][-1]) and is_wordlike(tokens[-1][0][-1])):
            token, start = tokens[-1]
            tokens[-1] = (token + char, start)
        else:
            tokens.append((char, pos))
        glue = ord(char) == 0x200D
    return tokens


def _import_jieba():
    """Import jieba without the warnings it prints on newer Pythons and setuptools.

    jieba 0.42.1's regexes hold invalid escapes (a DeprecationWarning, on Python >= 3.12 a
    SyntaxWarning, when its files are compiled) and it imports ``pkg_resources`` (deprecated in
    new setuptools): noise in a user's terminal about code that is not theirs.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="invalid escape sequence")  # Deprecation- or SyntaxWarning
        warnings.filterwarnings("ignore", message="pkg_resources is deprecated")
        import jieba
    return jieba


@functools.lru_cache(maxsize=1)
def jieba_tokenizer():
    jieba = _import_jieba()

    jieba.setLogLevel(logging.WARNING)  # silence "Building prefix dict ..." on stderr
    jieba.initialize()  # may write jieba's own cache file to the temp folder
    return jieba


def segment(text: str) -> list[str]:
    """Split Chinese text into words with jieba, dropping whitespace-only pieces.

    Returns:
        Words in order, e.g. ``segment("早上好，今天天气很好")`` ->
        ["早上好", "，", "今天天气", "很", "好"].
    """
    return [word for word in jieba_tokenizer().lcut(text) if word.strip()]
