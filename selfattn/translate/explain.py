"""What the translator's numbers say, for the Encoder–decoder page's translator source (``ui/seq2seq/translator.py``).

Pure functions of a :class:`~selfattn.translate.infer.Translation` and of the training record (``record.json``):
the generation steps, the next word's probabilities at a temperature, which source character each English word
attends to most, the checkpoints of training, and the charts' Vega-Lite specs. The page only draws what these
return::

    from selfattn.translate import load, translate
    from selfattn.translate import explain
    t = translate(load(), "早上好")
    explain.next_words(t, step=1, temperature=0.5).probabilities   # (V,) softmax(logits / 0.5)
    [a.layers for a in explain.alignment(t)]                       # per word, per layer: (position, character, weight)
    explain.load_record().checkpoints[0].held_out_accuracy          # 0.0 before training
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from selfattn.display import colours
from selfattn.i18n import Markdown, t, t_plain
from selfattn.translate.infer import Translation, probabilities
from selfattn.translate.weights import BOS, EOS, PAD, RECORD_PATH

TOP_WORDS = 8  # bars of the next-word chart: the most likely words at the temperature shown
CHART_SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"


# ── Generation, step by step ──────────────────────────────────────────────────────────

def step_words(translation: Translation) -> tuple[str, ...]:
    """(steps,) the word written at each generation step: the tokens, then ``<eos>`` where the model ended the
    sentence (the last step: its logits are kept too)."""
    return translation.tokens + ((EOS,) if translation.finished else ())


def step_count(translation: Translation) -> int:
    """How many generation steps there are to show (one per word, and the closing ``<eos>`` when reached)."""
    return len(translation.logits)


def clamp_step(translation: Translation, step: int) -> int:
    """A step setting within the steps this translation has (0-based; past the last: the last)."""
    return min(max(int(step), 0), step_count(translation) - 1)


def prefix(translation: Translation, step: int) -> tuple[str, ...]:
    """The decoder's input when it writes step ``step``'s word: ``<bos>`` and the words written before."""
    return (BOS, *translation.tokens[:step])


def step_cross(translation: Translation, step: int) -> np.ndarray:
    """(layers, heads, n) the cross-attention of the query that writes step ``step``'s word (the cache's row)."""
    return np.stack(translation.decoder.steps[step].cross_weights)  # per layer (h, n) → (L, h, n)


def memory(translation: Translation) -> np.ndarray:
    """(n, d) the encoder's output, which every cross-attention reads: one row per source character."""
    return translation.encoder.outputs


def decoder_rows(translation: Translation) -> np.ndarray:
    """(T, d) the decoder's final output row that produced each word (rows 0 … T−1 of the cached pass)."""
    return translation.decoder.outputs[: len(translation.tokens)]


def cache_difference(translation: Translation, full) -> float:
    """The largest difference between the decoder's rows as generation computed them, one step at a time with the
    key/value cache, and the same rows of :func:`selfattn.translate.infer.full_pass` (all at once, masked)."""
    return float(np.max(np.abs(translation.decoder.outputs - full.outputs)))


@dataclass(frozen=True, eq=False)
class NextWords:
    """The next word's probabilities at one step and one temperature."""

    step: int  # 0-based generation step
    temperature: float  # T > 0: the logits are divided by it before the softmax
    vocabulary: tuple[str, ...]  # (V,) the target words by id
    logits: np.ndarray  # (V,) what the output projection gave at this step
    probabilities: np.ndarray  # (V,) softmax(logits / T) over the words that may be written (<pad>, <bos>: 0)
    greedy: int  # the id greedy decoding writes: the most likely, at any temperature
    written: int  # the id the translation wrote at this step

    def top(self, k: int = TOP_WORDS) -> list[tuple[str, float]]:
        """The ``k`` most likely words and their probabilities, most likely first (ties: lower id first)."""
        order = np.argsort(-self.probabilities, kind="stable")[:k]
        return [(self.vocabulary[i], float(self.probabilities[i])) for i in order]

    @property
    def greedy_probability(self) -> float:
        return float(self.probabilities[self.greedy])

    @property
    def writable(self) -> int:
        """How many words the decoder may write (the vocabulary less ``<pad>`` and ``<bos>``)."""
        return len(self.vocabulary) - len(banned(self.vocabulary))


def banned(vocabulary: tuple[str, ...]) -> tuple[int, ...]:
    """The ids the decoder never writes: ``<pad>`` and ``<bos>``."""
    return tuple(vocabulary.index(word) for word in (PAD, BOS))


def probabilities_at(logits: np.ndarray, temperature: float, vocabulary: tuple[str, ...]) -> np.ndarray:
    """(V,) softmax(logits / T) over the words the decoder may write, the rule :func:`translate` generates by."""
    return probabilities(np.asarray(logits, dtype=np.float64), float(temperature), banned(vocabulary))


def next_words(translation: Translation, step: int, temperature: float) -> NextWords:
    """The next word's probabilities at step ``step`` (clamped to the steps there are) at ``temperature``."""
    step = clamp_step(translation, step)
    logits = translation.logits[step]  # (V,)
    p = probabilities_at(logits, temperature, translation.vocabulary)
    written = step_words(translation)[step]
    return NextWords(step=step, temperature=float(temperature), vocabulary=translation.vocabulary, logits=logits,
                     probabilities=p, greedy=int(np.argmax(p)), written=translation.vocabulary.index(written))


def next_words_spec(words: NextWords, lang: str, k: int = TOP_WORDS) -> dict:
    """A Vega-Lite bar chart: the ``k`` most likely next words at the temperature, the greedy choice marked."""
    greedy, other = t_plain("tr.chart_greedy", lang), t_plain("tr.chart_other", lang)
    rows = [{"word": word, "p": p, "choice": greedy if word == words.vocabulary[words.greedy] else other,
             "label": f"{p:.3f}"} for word, p in words.top(k)]
    y = {"field": "word", "type": "nominal", "sort": None, "title": t_plain("tr.chart_word", lang)}
    x = {"field": "p", "type": "quantitative", "scale": {"domain": [0, 1]},
         "title": t_plain("tr.chart_probability", lang, temperature=f"{words.temperature:.2f}")}
    return {"$schema": CHART_SCHEMA, "width": 420, "height": 22 * len(rows), "data": {"values": rows},
            "layer": [{"mark": {"type": "bar"},
                       "encoding": {"y": y, "x": x,
                                    "color": {"field": "choice", "type": "nominal", "sort": [greedy, other],
                                              "scale": {"range": [colours.CHOSEN, colours.OTHER]},
                                              "title": t_plain("tr.chart_choice", lang)},
                                    "tooltip": [{"field": "word", "type": "nominal"},
                                                {"field": "p", "type": "quantitative", "format": ".4f"}]}},
                      {"mark": {"type": "text", "align": "left", "dx": 4},
                       "encoding": {"y": y, "x": x, "text": {"field": "label", "type": "nominal"}}}],
            "usermeta": {"width_px": 560, "chart": "next_words"}}


# ── What aligns with what ─────────────────────────────────────────────────────────────

ARTICLES = ("the", "a", "an")  # English words no Chinese character stands for: Chinese has no articles
SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def labels(tokens) -> tuple[str, ...]:
    """Labels that tell repeated tokens apart, as the translator's maps and notes write them: a token that occurs more
    than once carries which occurrence it is as a subscript (谢谢 → 谢₁ 谢₂; the man bites the dog → the₁ man bites
    the₂ dog); a token that occurs once is written as it is."""
    tokens = tuple(tokens)
    seen: dict[str, int] = {}
    found = []
    for token in tokens:
        seen[token] = seen.get(token, 0) + 1
        found.append(token + str(seen[token]).translate(SUBSCRIPTS) if tokens.count(token) > 1 else token)
    return tuple(found)


def source_labels(translation: Translation) -> tuple[str, ...]:
    """(n,) the source's characters as the maps' columns write them (:func:`labels`)."""
    return labels(translation.source)


def word_labels(translation: Translation) -> tuple[str, ...]:
    """(steps,) the word written at each step as the maps' rows write them: :func:`labels` of the words, then
    ``<eos>`` where the model ended the sentence."""
    return labels(translation.tokens) + step_words(translation)[len(translation.tokens):]


def input_labels(translation: Translation) -> tuple[str, ...]:
    """(steps,) the decoder's input row by row, ``<bos>`` and the words fed back, labelled as the words written are
    (the same word has the same label wherever it is shown)."""
    return (BOS, *labels(translation.tokens)[: len(translation.decoder_input) - 1])


def is_function_word(word: str) -> bool:
    """An article, punctuation or a special token: no character of the source stands for it, so what its query reads
    says nothing about alignment (the order is judged without it)."""
    return word in ARTICLES or word in (BOS, EOS, PAD) or not any(ch.isalnum() for ch in word)


@dataclass(frozen=True)
class Alignment:
    """One English word and the source character its query attends to most, in each decoder layer."""

    step: int  # 0-based: the word's position in the output
    word: str
    label: str  # the word as the maps label its row (:func:`labels`)
    function_word: bool  # no source character stands for it (:func:`is_function_word`)
    layers: tuple[tuple[int, str, float], ...]  # per layer: (source position, its label, head-averaged weight)


@dataclass(frozen=True)
class Order:
    """In one decoder layer, the order in which the content words read the source."""

    layer: int  # 0-based
    judged: tuple[Alignment, ...]  # the content words, in the order written
    left_out: tuple[Alignment, ...]  # the function words, which the verdict does not judge
    positions: tuple[int, ...]  # 0-based: the source position each judged word reads most
    in_order: bool | None  # the positions never go back; None: nothing to judge (fewer than two content words,
    # or a source of one character)


def alignment(translation: Translation) -> tuple[Alignment, ...]:
    """For each word written, in each decoder layer, the source character with the largest cross-attention weight,
    averaged over the heads (ties: the first)."""
    mean = translation.cross_weights.mean(axis=1)  # (L, T, n)
    best = mean.argmax(axis=2)  # (L, T)
    chars, words = source_labels(translation), labels(translation.tokens)
    return tuple(Alignment(step=s, word=word, label=words[s], function_word=is_function_word(word),
                           layers=tuple((int(best[layer, s]), chars[best[layer, s]],
                                         float(mean[layer, s, best[layer, s]])) for layer in range(len(mean))))
                 for s, word in enumerate(translation.tokens))


def order(found: tuple[Alignment, ...], layer: int, n: int) -> Order:
    """Whether, in ``layer``, the characters the content words read most come in the source's order as the words are
    written (never going back to an earlier position); ``n``: the source's length."""
    judged = tuple(a for a in found if not a.function_word)
    positions = tuple(a.layers[layer][0] for a in judged)
    verdict = None if len(judged) < 2 or n < 2 else all(a <= b for a, b in zip(positions, positions[1:]))
    return Order(layer=layer, judged=judged, left_out=tuple(a for a in found if a.function_word), positions=positions,
                 in_order=verdict)


def alignment_note(translation: Translation, lang: str) -> list[Markdown]:
    """The note on what aligns with what, one line per word, then one per layer on the order in which the content
    words read the source, saying which words it judged: computed from the weights, in ``lang`` (safe markdown)."""
    found = alignment(translation)
    lines = []
    for a in found:
        parts = Markdown(t_plain("tr.align_sep", lang).join(
            t("tr.align_layer", lang, layer=layer + 1, char=char, weight=f"{weight:.2f}")
            for layer, (_, char, weight) in enumerate(a.layers)))
        lines.append(t("tr.align_function_word" if a.function_word else "tr.align_word", lang, word=a.label,
                       parts=parts))
    if not found:
        return lines
    n = len(translation.source)
    for layer in range(translation.cross_weights.shape[0]):
        said = order(found, layer, n)
        if said.in_order is None:
            key = "tr.align_one_char" if n < 2 else "tr.align_too_few"
            lines.append(t(key, lang, layer=layer + 1, count=len(said.judged)))
            continue
        chain = Markdown(t_plain("tr.align_sep", lang).join(
            t("tr.align_pair", lang, word=a.label, char=a.layers[layer][1]) for a in said.judged))
        positions = " → ".join(str(p + 1) for p in said.positions)
        key = "tr.align_in_order" if said.in_order else "tr.align_reordered"
        lines.append(t(key, lang, layer=layer + 1, chain=chain, positions=positions))
    left_out = order(found, 0, n).left_out
    if left_out:
        lines.append(t("tr.align_left_out", lang, words=" ".join(f"“{a.label}”" for a in left_out)))
    return lines


# ── How it learned: the training record ───────────────────────────────────────────────

@dataclass(frozen=True, eq=False)
class Watched:
    """One watched sentence as the model translated it at a checkpoint."""

    source: tuple[str, ...]  # (n,)
    tokens: tuple[str, ...]  # (T,) the words it wrote then (up to max_words when it never wrote <eos>)
    cross_weights: np.ndarray  # (layers, heads, T, n), rounded as recorded


@dataclass(frozen=True, eq=False)
class Checkpoint:
    """The model at one point of training."""

    index: int  # 0-based among the record's checkpoints
    step: int  # optimizer steps taken
    epoch: float  # passes over the training sentences
    train_loss: float  # cross-entropy on the training sentences (no dropout, no smoothing)
    held_out_loss: float  # the same on the 10 held-out sentences
    held_out_accuracy: float  # exact-match share of the held-out sentences
    sentences: dict[str, Watched]


@dataclass(frozen=True, eq=False)
class Record:
    """What training wrote down (``record.json``)."""

    loss_curve: tuple[float, ...]  # (epochs,) the mean training loss of each epoch (with dropout and smoothing)
    checkpoints: tuple[Checkpoint, ...]
    watched: tuple[str, ...]  # the sentences looked at in every checkpoint
    held_out: int  # how many sentences are held out
    trained_on: int  # how many sentence pairs it was trained on
    train_s: float  # seconds training took, checkpoints aside
    steps_per_epoch: int  # optimizer steps in one pass over the training sentences (batches of batch_size)


def _watched(found: dict) -> Watched:
    weights = np.asarray(found["cross_weights"], dtype=np.float64)
    return Watched(source=tuple(found["source"]), tokens=tuple(found["tokens"]), cross_weights=weights)


@functools.cache
def load_record(path: Path = RECORD_PATH) -> Record:
    """The committed training record, read once per process."""
    found = json.loads(Path(path).read_text(encoding="utf-8"))
    checkpoints = tuple(Checkpoint(index=i, step=int(c["step"]), epoch=float(c["epoch"]),
                                   train_loss=float(c["train_loss"]), held_out_loss=float(c["held_out_loss"]),
                                   held_out_accuracy=float(c["held_out_accuracy"]),
                                   sentences={zh: _watched(s) for zh, s in c["sentences"].items()})
                        for i, c in enumerate(found["checkpoints"]))
    return Record(loss_curve=tuple(float(x) for x in found["loss_curve"]), checkpoints=checkpoints,
                  watched=tuple(found["watched"]), held_out=int(found["sentences"]["held_out"]),
                  trained_on=int(found["sentences"]["train"]), train_s=float(found["time_s"]["training"]),
                  steps_per_epoch=math.ceil(int(found["sentences"]["train"])
                                            / int(found["settings"]["training"]["batch_size"])))


def checkpoint_options(record: Record, last: int) -> list[int]:
    """The checkpoint slider's options: 0 … count−2, then ``last`` (the setting's largest value) for the last
    checkpoint, so that the default "the last" stays the last whatever the record holds."""
    return [*range(len(record.checkpoints) - 1), last]


def checkpoint_at(record: Record, setting: int) -> Checkpoint:
    """The checkpoint a setting names (0-based; past the last: the last)."""
    return record.checkpoints[min(max(int(setting), 0), len(record.checkpoints) - 1)]


def watched_sentence(record: Record, text: str) -> str:
    """The watched sentence to show: the one typed, when training watched it, else the first."""
    return text if text in record.watched else record.watched[0]


def peak(cross_weights: np.ndarray) -> float:
    """The largest weight of each row of a cross-attention (layers, heads, T, n), averaged: 1/n when uniform, 1
    when every query reads one character."""
    if cross_weights.size == 0:
        return float("nan")
    return float(cross_weights.max(axis=-1).mean())


def loss_spec(record: Record, chosen: Checkpoint, lang: str) -> dict:
    """A Vega-Lite line chart of training against optimizer steps, the unit of the checkpoint slider: the loss of each
    epoch (drawn at the epoch's last step), the checkpoints' training and held-out losses (log scale, a dot at each
    checkpoint, so their uneven spacing shows), and a rule at the checkpoint ``chosen``."""
    series = {k: t_plain(f"tr.loss_{k}", lang) for k in ("epoch", "train", "held_out")}
    rows = [{"kind": "curve", "step": (i + 1) * record.steps_per_epoch, "loss": loss, "series": series["epoch"]}
            for i, loss in enumerate(record.loss_curve)]
    rows += [{"kind": "checkpoint", "step": c.step, "loss": max(loss, 1e-4), "series": series[name]}
             for c in record.checkpoints for name, loss in (("train", c.train_loss), ("held_out", c.held_out_loss))]
    rows.append({"kind": "mark", "step": chosen.step, "loss": max(chosen.held_out_loss, 1e-4),
                 "series": t_plain("tr.loss_marker", lang, step=chosen.step)})
    x = {"field": "step", "type": "quantitative",
         "title": t_plain("tr.loss_axis_step", lang, per=record.steps_per_epoch)}
    y = {"field": "loss", "type": "quantitative", "scale": {"type": "log"}, "title": t_plain("tr.loss_axis", lang)}
    color = {"field": "series", "type": "nominal", "sort": list(series.values()),
             "title": t_plain("tr.loss_series", lang)}
    return {"$schema": CHART_SCHEMA, "width": 520, "height": 220, "data": {"values": rows},
            "layer": [{"transform": [{"filter": "datum.kind !== 'mark'"}], "mark": {"type": "line", "point": False},
                       "encoding": {"x": x, "y": y, "color": color}},
                      {"transform": [{"filter": "datum.kind === 'checkpoint'"}],
                       "mark": {"type": "point", "filled": True, "size": 24},
                       "encoding": {"x": x, "y": y, "color": color,
                                    "tooltip": [{"field": "step", "type": "quantitative"},
                                                {"field": "series", "type": "nominal"},
                                                {"field": "loss", "type": "quantitative", "format": ".4f"}]}},
                      {"transform": [{"filter": "datum.kind === 'mark'"}],
                       "mark": {"type": "rule", "color": colours.CHOSEN, "strokeWidth": 2},
                       "encoding": {"x": x, "tooltip": [{"field": "series", "type": "nominal"}]}}],
            "usermeta": {"width_px": 640, "chart": "loss"}}


def sharpening(record: Record, sentence: str) -> tuple[float, float]:
    """The mean of each row's largest cross-attention weight (:func:`peak`) of the watched ``sentence`` at the first
    checkpoint and at the last."""
    first, last = record.checkpoints[0], record.checkpoints[-1]
    return peak(first.sentences[sentence].cross_weights), peak(last.sentences[sentence].cross_weights)


# ── The ZIP's settings.txt ────────────────────────────────────────────────────────────

def settings_text(link: str, link_short: bool, translation: Translation, *, step: int, temperature: float,
                  checkpoint: Checkpoint, lang: str) -> str:
    """The translator's settings.txt: the view's link and what it shows, one line each."""
    def line(name_key: str, value) -> str:
        return t_plain("common.settings_line", lang, name=t_plain(name_key, lang), value=value)

    lines = [t_plain("tr.settings_title", lang), "", t_plain("common.settings_link", lang, link=link)]
    if link_short:
        lines.append(t_plain("common.settings_link_short", lang))
    lines += [line("tr.settings_text", "".join(translation.source)), line("tr.settings_output", translation.output),
              line("tr.settings_step", f"{step + 1}: {step_words(translation)[step]}"),
              line("tr.settings_temp", f"{temperature:.2f}"), line("tr.settings_ckpt", checkpoint.step)]
    return "\n".join(lines) + "\n"
