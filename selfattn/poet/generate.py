"""Writing a poem one character at a time, on our numpy core, with every step kept.

The form is placed, not hoped for: the decoding writes "，" after the 5th character of an odd line and "。" after
an even one, and lets the model draw only characters in between (never a mark, ``<unk>`` or ``<eos>`` inside a
line). After the 4th line it lets the model choose between ``<eos>`` and a 5th line (unless the acrostic or
``lines`` decides), and after the 8th it writes ``<eos>``. So every poem has 4 or 8 lines of five characters with
the marks alternating, at any temperature. What the model itself would have given the marks stays in the trace
(:attr:`Step.model_probs`), so a page can show how well it learned the form.

An acrostic (藏头诗) gives the first character of each line; a first line gives the first five characters. The
model reads those as it reads its own, and the trace keeps the probability it gave them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from selfattn.core.attention import stable_softmax
from selfattn.errors import InputError
from selfattn.i18n import CATALOG, t_plain
import selfattn.poet.corpus as corpus
from selfattn.poet.model import CachedStep, Poet, empty_cache, forward, step
from selfattn.poet.sampling import Sampling, choose, distributions
from selfattn.poet.weights import BOS, COMMA, EOS, STOP

MAX_INPUT = 100  # characters typed, at most, before anything else is looked at
MAX_TEMPERATURE = 10.0
MAX_SEED = 2 ** 32 - 1
MAX_SAMPLES = 50  # poems a request
SEPARATORS = " \t\r\n\u3000,，.。、;；!！?？"  # what a typed line may hold besides its characters: dropped
CHARS_PER_LINE = corpus.LINE_CHARS
LINE_COUNTS = tuple(corpus.FORMS)  # 4, 8


def message(error: InputError, lang: str = "en") -> str:
    """An error's words in ``lang``: ``err.<code>.<name>`` when the catalog words it for the input named (the
    acrostic, the first line), else ``err.<code>``."""
    key = f"err.{error.code}.{error.params.get('name')}"
    return t_plain(key if key in CATALOG else f"err.{error.code}", lang, **error.params)


def _worded(error: InputError) -> InputError:
    """``error`` with the catalog's English as its message (one wording for both languages)."""
    error.args = (message(error),)
    return error


# ── Checks at the boundary ───────────────────────────────────────────────────────────

@dataclass(frozen=True)
class Settings:
    """One poem's request, checked (:func:`check_settings`)."""

    acrostic: str | None = None  # 4 or 8 characters: the first of each line (藏头诗)
    first: str | None = None  # 5 characters: the first line
    lines: int | None = None  # 4 or 8; None: the acrostic's length, or the model's choice after line 4
    temperature: float = 1.0  # the logits are divided by this before the softmax
    top_k: int | None = None  # draw only among the k most likely characters
    top_p: float | None = None  # draw only among the smallest set of the most likely reaching p
    greedy: bool = False  # always the most likely (the knobs above then change nothing)
    seed: int = 0  # the draws' seed


def check_chars(poet: Poet, text, field: str) -> str | None:
    """A typed acrostic or first line as its characters (separators and punctuation dropped), or None.

    Raises:
        InputError: ``poet_too_long``, ``poet_empty``, ``poet_not_han`` (an emoji, a letter, a digit: named),
            ``poet_unknown`` (characters no poem of the corpus holds: named), ``poet_rare`` (characters the
            corpus holds fewer than ``min_count`` times, so the model never learned them).
    """
    if text is None:
        return None
    text = str(text)
    if len(text) > MAX_INPUT:
        raise _worded(InputError("poet_too_long", "", name=field, got=len(text), limit=MAX_INPUT))
    chars = "".join(ch for ch in text if ch not in SEPARATORS)
    if not chars:
        raise _worded(InputError("poet_empty", "", name=field))
    not_han = list(dict.fromkeys(ch for ch in chars if not corpus.is_han(ch)))
    if not_han:
        raise _worded(InputError("poet_not_han", "", name=field, chars=" ".join(not_han)))
    known = poet.vocab.index()
    missing = list(dict.fromkeys(ch for ch in chars if ch not in known))
    if missing:
        seen = corpus.corpus_chars()
        absent = [ch for ch in missing if ch not in seen]
        if absent:
            raise _worded(InputError("poet_unknown", "", chars=" ".join(absent), count=len(absent)))
        raise _worded(InputError("poet_rare", "", chars=" ".join(missing), count=len(missing),
                                 min_count=poet.config.min_count))
    return chars


def _number(value, kind: type):
    if isinstance(value, bool):
        raise TypeError
    number = kind(value)
    if kind is int and number != value:
        raise TypeError
    return number


def check_settings(poet: Poet, *, acrostic=None, first=None, lines=None, temperature=1.0, top_k=None, top_p=None,
                   greedy=False, seed=0) -> Settings:
    """The request as :class:`Settings`, or an InputError naming what is wrong (see :func:`check_chars`, and
    ``poet_acrostic_length``, ``poet_first_length``, ``poet_first_acrostic``, ``poet_lines``,
    ``poet_temperature``, ``poet_top_k``, ``poet_top_p``, ``poet_seed``)."""
    acrostic = check_chars(poet, acrostic, "acrostic")
    first = check_chars(poet, first, "first")
    if acrostic is not None and len(acrostic) not in LINE_COUNTS:
        raise _worded(InputError("poet_acrostic_length", "", got=len(acrostic)))
    if first is not None and len(first) != CHARS_PER_LINE:
        raise _worded(InputError("poet_first_length", "", got=len(first)))
    if acrostic is not None and first is not None and first[0] != acrostic[0]:
        raise _worded(InputError("poet_first_acrostic", "", first=first[0], acrostic=acrostic[0]))
    if lines is not None and (isinstance(lines, bool) or lines not in LINE_COUNTS
                              or (acrostic is not None and lines != len(acrostic))):
        raise _worded(InputError("poet_lines", "", value=str(lines)[:20]))
    try:
        temperature = _number(temperature, float)
        assert 0.0 < temperature <= MAX_TEMPERATURE
    except (TypeError, ValueError, AssertionError):
        raise _worded(InputError("poet_temperature", "", value=str(temperature)[:20],
                                 limit=f"{MAX_TEMPERATURE:g}")) from None
    if top_k is not None:
        try:
            top_k = _number(top_k, int)
            assert 1 <= top_k <= len(poet.vocab)
        except (TypeError, ValueError, AssertionError, OverflowError):
            raise _worded(InputError("poet_top_k", "", value=str(top_k)[:20], limit=len(poet.vocab))) from None
    if top_p is not None:
        try:
            top_p = _number(top_p, float)
            assert 0.0 < top_p <= 1.0
        except (TypeError, ValueError, AssertionError):
            raise _worded(InputError("poet_top_p", "", value=str(top_p)[:20])) from None
    try:
        seed = _number(seed, int)
        assert 0 <= seed <= MAX_SEED
    except (TypeError, ValueError, AssertionError, OverflowError):
        raise _worded(InputError("poet_seed", "", value=str(seed)[:20], limit=MAX_SEED)) from None
    return Settings(acrostic=acrostic, first=first, lines=lines if lines is not None else
                    (len(acrostic) if acrostic is not None else None), temperature=temperature, top_k=top_k,
                    top_p=top_p, greedy=bool(greedy), seed=seed)


def check_samples(samples) -> int:
    """How many poems one request writes: 1 to :data:`MAX_SAMPLES`, or InputError ``poet_samples``."""
    try:
        count = _number(samples, int)
        assert 1 <= count <= MAX_SAMPLES
    except (TypeError, ValueError, AssertionError, OverflowError):
        raise _worded(InputError("poet_samples", "", value=str(samples)[:20], limit=MAX_SAMPLES)) from None
    return count


# ── Generation ────────────────────────────────────────────────────────────────────────

@dataclass(frozen=True, eq=False)
class Step:
    """One token of the poem: how it came, and the model's reading of the token before it."""

    position: int  # where the token goes in the sequence (<bos> is 0)
    line: int  # its line, from 0 (the line count for <eos>)
    place: int  # 0..4 a character, 5 the mark, 0 for <eos>
    kind: str  # "drawn" (sampled or greedy), "given" (the acrostic or first line), "placed" (a mark, <eos>)
    token: str
    token_id: int
    read: CachedStep  # the model reading position − 1: .weights per layer (h, position), .cache, .logits (V,)
    model_probs: np.ndarray  # (V,) softmax of every logit: what the model itself expected here
    sampling: Sampling | None  # the knobs' distributions (drawn and given characters; None for placed)
    draw: float | None  # the uniform number the draw used (None: greedy, given or placed)

    @property
    def attention(self) -> tuple[np.ndarray, ...]:
        """Per layer, (heads, position): how the query of the token before read every position up to it."""
        return self.read.weights

    @property
    def probability(self) -> float:
        """What the model (T = 1, before any knob, over all tokens) gave the token written."""
        return float(self.model_probs[self.token_id])


@dataclass(frozen=True, eq=False)
class Poem:
    """A poem written by :func:`generate`, with every step."""

    text: str  # "白日依山尽，黄河入海流。…"
    lines: tuple[str, ...]  # the lines' five characters each, without the marks
    ids: tuple[int, ...]  # <bos>, every token, <eos>
    steps: tuple[Step, ...]  # one per token after <bos>
    settings: Settings

    @property
    def logits(self) -> np.ndarray:
        """(steps, V) the logits each step was written from (row t: after reading ids 0..t)."""
        return np.stack([s.read.logits for s in self.steps])


def generate(poet: Poet, *, acrostic=None, first=None, lines=None, temperature=1.0, top_k=None, top_p=None,
             greedy=False, seed=0) -> Poem:
    """Write one poem of the form (4 or 8 lines of five characters, "，" and "。" alternating).

    Args:
        acrostic: 4 or 8 characters, the first of each line. first: the first line, 5 characters.
        lines: 4 or 8 (None: the acrostic's length, else the model chooses after line 4).
        temperature, top_k, top_p, greedy: the sampling (:mod:`selfattn.poet.sampling`). seed: the draws'.

    Raises:
        InputError: see :func:`check_settings`.
    """
    settings = check_settings(poet, acrostic=acrostic, first=first, lines=lines, temperature=temperature,
                              top_k=top_k, top_p=top_p, greedy=greedy, seed=seed)
    return write(poet, settings)


def write(poet: Poet, settings: Settings) -> Poem:
    """:func:`generate` for settings already checked."""
    index = poet.vocab.index()
    characters = poet.vocab.characters
    rng = None if settings.greedy else np.random.default_rng(settings.seed)
    read = step(poet, empty_cache(poet), index[BOS])
    ids, steps, line = [index[BOS]], [], 0

    def add(token_id: int, place: int, kind: str, sampling: Sampling | None, draw: float | None) -> None:
        nonlocal read
        steps.append(Step(position=len(ids), line=line, place=place, kind=kind, token=poet.vocab.tokens[token_id],
                          token_id=token_id, read=read, model_probs=stable_softmax(read.logits), sampling=sampling,
                          draw=draw))
        ids.append(token_id)
        if token_id != index[EOS]:
            read = step(poet, read.cache, token_id)

    knobs = {"temperature": settings.temperature, "top_k": settings.top_k, "top_p": settings.top_p}
    while True:
        for place in range(CHARS_PER_LINE):
            allowed = characters.copy()
            if line == LINE_COUNTS[0] and place == 0 and settings.lines is None:
                allowed[index[EOS]] = True  # after four lines the model may end the poem
            sampling = distributions(read.logits, allowed, **knobs)
            given = (settings.acrostic[line] if settings.acrostic and place == 0 else
                     settings.first[place] if settings.first and line == 0 else None)
            if given is not None:
                add(index[given], place, "given", sampling, None)
                continue
            token_id, draw = choose(sampling, rng)
            if token_id == index[EOS]:
                add(token_id, 0, "drawn", sampling, draw)
                return _poem(poet, ids, steps, settings)
            add(token_id, place, "drawn", sampling, draw)
        add(index[COMMA if line % 2 == 0 else STOP], CHARS_PER_LINE, "placed", None, None)
        line += 1
        if line == LINE_COUNTS[-1] or (line == LINE_COUNTS[0] and settings.lines == LINE_COUNTS[0]):
            add(index[EOS], 0, "placed", None, None)
            return _poem(poet, ids, steps, settings)


def _poem(poet: Poet, ids: list[int], steps: list[Step], settings: Settings) -> Poem:
    text = "".join(poet.vocab.tokens[i] for i in ids[1:-1])
    return Poem(text=text, lines=tuple(line[:CHARS_PER_LINE] for line in corpus.lines_of(text)), ids=tuple(ids),
                steps=tuple(steps), settings=settings)


# ── Checks of the numbers ─────────────────────────────────────────────────────────────

def cache_check(poet: Poet, poem: Poem) -> float:
    """The largest |difference| between the logits the cached steps wrote the poem from and one full causal pass
    over the same tokens (0.0 up to float64 rounding)."""
    full = forward(poet, poem.ids[:-1])  # every token read: all but <eos>
    return float(np.max(np.abs(full.logits - poem.logits)))


def step_cache_difference(poet: Poet, poem: Poem, index: int) -> float:
    """The largest |difference| between what step ``index`` of ``poem`` read from and wrote (every layer's cached
    keys and values, rows 0..t, and its logits) and the same rows of one full causal pass over the poem (0.0 up to
    float64 rounding): the cache grown one row a step holds what the whole pass computes at once."""
    at = poem.steps[index].read
    full = forward(poet, poem.ids[: at.position + 1])  # the tokens read up to this step
    rows = [np.abs(cached - layer.keys).max() for cached, layer in zip(at.cache.keys, full.stack.layers)]
    rows += [np.abs(cached - layer.values).max() for cached, layer in zip(at.cache.values, full.stack.layers)]
    return float(max(*rows, np.abs(full.logits[-1] - at.logits).max()))


def torch_check(poet: Poet, poems, model=None) -> float:
    """The largest |difference| between our logits (the cached steps') and those of a torch module holding the
    same weights in float64 (:func:`selfattn.poet.torch_model.reference`), over every step of ``poems``."""
    import selfattn.poet.torch_model as torch_model

    model = model if model is not None else torch_model.reference(poet.weights)
    poems = [poems] if isinstance(poems, Poem) else list(poems)
    return max(float(np.max(np.abs(torch_model.all_logits(model, list(p.ids[:-1])) - p.logits))) for p in poems)


def summary(poet: Poet) -> dict:
    """The model's part of ``--json``: its size, held-out loss and the corpus it learned from."""
    record = poet.record or {}
    val_loss = record.get("held_out", {}).get("val_loss")
    return {"parameters": poet.parameters, "layers": poet.config.layers, "d_model": poet.config.d_model,
            "heads": poet.config.num_heads, "val_loss": val_loss,
            "corpus": corpus.CORPUS_PATH.relative_to(corpus.HERE).as_posix()}


def as_json(poet: Poet, poems, check: float | None) -> dict:
    """What ``python -m selfattn.poet --json`` prints."""
    return {"poems": [{"text": p.text, "lines": list(p.lines)} for p in poems], "model": summary(poet),
            "torch_check": check}


def in_corpus(line: str) -> bool:
    """Whether a line of five characters is a line of some poem of the corpus."""
    return line in corpus.corpus_lines()
