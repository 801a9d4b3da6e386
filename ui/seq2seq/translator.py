"""The Encoder–decoder page's translator source: the tiny translator trained here (:mod:`selfattn.translate`), run on
our core, in the order the model computes: the source becomes the encoder's memory; the decoder's masked
self-attention and cross-attention over the whole translation; generation one word at a time with its key/value
cache and the next word's probabilities at a temperature; what aligns with what; and how it learned (the training
record's checkpoints). It says whether the sentence was in its training set, and offers the sentences it knows.

Read (the settings ``s2s_text``, ``s2s_tstep``, ``s2s_temp``, ``s2s_ckpt``) → translate and check (kept with
``last_good``; both kept per model and sentence in :mod:`selfattn.memo`, so that a step, Play or the temperature only
draws) → draw what :mod:`selfattn.translate.explain` computes → the link. No arithmetic here: the numbers come from
``selfattn/``.

Locally (not hosted), "Train it again here" trains a model of the visitor's own (:func:`selfattn.translate.train.
train_live`, bounded there) in their process, one run at a time per process; the page then translates with it
until they go back to the shipped model. It lives in their session only (``s2s_train_model``), never in a file.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import streamlit as st

from selfattn import memo
from selfattn.core.decoder import EncoderDecoderTrace
from selfattn.core.heads import merge_heads
from selfattn.display.export import column_names
from selfattn.display.numbers import difference_text
from selfattn.errors import InputError
from selfattn.hosting import is_hosted
from selfattn.i18n import escape_markdown
from selfattn.seq2seq import view as sv
from selfattn.seq2seq.link import TABLE_PARAMS, encode
from selfattn.seq2seq.text import masked
from selfattn.translate import TorchCheck, Translation, Translator, explain, full_pass, load, torch_check, translate
from selfattn.translate import corpus
from ui import links
from ui.seq2seq import page as s2
from ui import state as settings
from ui.widgets import current_lang, folded, listed, show_error, tr, tr_count, tr_plain, vega
from ui.components.heatmap import MapRow, map_row
from ui.editing import Maps, map_frame
from ui.play import Player
from ui import parts
from ui import training as kit_training

MAP_DIMS = 8  # columns of the memory, decoder-row and cache maps (a map fits its column); the CSVs hold all d_model
TEMPERATURES = list(range(10, 301))  # the temperature × 100, as the setting s2s_temp holds it
# The translator's maps light up together (their own group): a word's row, a source character's row, a weight.
MAPS = Maps("s2t", "s2t_", "translator-", "s2s_tstep", s2.EDITORS)
LIVE = "s2s_train_model"  # the visitor's own run (selfattn.translate.train.LiveRun), while the page uses it
ASKED = "s2s_train_asked"  # the run the Train button asked for, until the script reaches the place that draws it
TRAIN_CHOSEN = "s2s_train_chosen"  # the training box's settings as last chosen (its widgets made only while open)
PLAYER = Player("s2s_tplaying", "s2s_tstep", "s2s_tplay", "seq2seq", words="tr")  # Play/Pause (ui/play.py)
# The sentences offered to click: corpus sentences it was trained on, and held-out ones it never saw in training
# (their right translation is known, so its answer can be judged). tests/test_translator_app.py holds them to the
# corpus.
TRAINED_EXAMPLES = ("早上好", "晚上好", "你好", "谢谢", "对不起", "再见", "明天见", "生日快乐", "狗咬人", "人咬狗", "猫追鸟",
                    "鱼怕猫")
HELD_OUT_EXAMPLES = ("马追狗", "鸟看马", "马追人")
EXAMPLE_KEYS = {"s2s_tex_trained": TRAINED_EXAMPLES, "s2s_tex_held": HELD_OUT_EXAMPLES}  # the two rows of pills


@st.cache_resource(show_spinner=False)
def _translator():
    """The committed model, loaded once per process (InputError ``tr_no_model`` when its files are missing)."""
    return load()


@st.cache_resource(show_spinner=False)
def _torch_model():
    """torch's own modules holding the same weights in float64, built once per process."""
    from selfattn.translate import torch_model

    return torch_model.reference(_translator().weights)


def _live():
    """The visitor's own run (:class:`selfattn.translate.train.LiveRun`) while the page uses it, else None."""
    return st.session_state.get(LIVE)


def _model() -> Translator:
    """The model the page translates with: the visitor's own run, else the shipped one."""
    live = _live()
    return live.translator if live is not None else _translator()


def _reference(model: Translator):
    """torch's modules holding the weights of ``model`` (ImportError without torch)."""
    if model is _translator():
        return _torch_model()
    from selfattn.translate import torch_model

    return torch_model.reference(model.weights)


@dataclass(frozen=True, eq=False)
class MapShown:
    """One map of the translator: what it draws and what its CSV in the page's ZIP holds (the same numbers)."""

    title: str
    matrix: object  # what the map draws: (rows, cols), a masked array for masked weights
    rows: list
    cols: list
    key: str  # its widget key, map_s2t_<key>
    link: str | None = None  # its place among the linked maps (hover), or None
    focus: int | None = None
    role: str = "values"
    full: object = None  # the whole matrix when the map draws its first MAP_DIMS columns
    full_cols: list | None = None

    def frame(self):
        """The labelled DataFrame of its CSV, built when called."""
        return map_frame(self.matrix, self.rows, self.cols, self.full, self.full_cols)

    def draw(self, row: MapRow) -> None:
        """The map in ``row``, without a CSV button of its own: the page's ZIP holds every map. It says its name and
        shape itself (``framed``), as wide as its cells draw."""
        MAPS.show(self.title, self.matrix, self.rows, self.cols, key=self.key, link=self.link, focus=self.focus,
                  role=self.role, domain=(0.0, 1.0) if self.role == "weights" else None, full=self.full,
                  full_cols=self.full_cols, csv=False, framed=True, width="fit", into=row)


def draw_row(maps) -> None:
    """Maps side by side while the window holds them, as one element (a row of maps, keyed by its first map)."""
    maps = list(maps)
    if not maps:
        return
    with map_row(f"maps_s2t_{maps[0].key}") as row:
        for shown in maps:
            shown.draw(row)


@dataclass(frozen=True, eq=False)
class Checked:
    """What the page shows beside a translation, worked out once per model and sentence."""

    torch: TorchCheck | None  # torch's own modules on the same sentence; None where torch is not installed
    full: EncoderDecoderTrace  # the decoder input through the whole model at once (masked self-attention)
    cache_difference: float  # the largest difference between the cached steps' rows and the full pass's


# A translation and its checks are kept per model (the shipped one, or a visitor's own run: the object itself is the
# key) and sentence, with the Encoder–decoder page's other results: a step, Play, the temperature or the checkpoint
# reruns the page and only draws. The torch check alone took 0.1–3 s a run on the 2-core VM.
@memo.cached("seq2seq.result", key=lambda model, text: ("translation", model, text))
def _translation(model: Translator, text: str) -> Translation:
    return translate(model, text)


@memo.cached("seq2seq.result", key=lambda model, good: ("checked", model, good.source))
def _checked(model: Translator, good: Translation) -> Checked:
    full = full_pass(model, good)
    try:
        check = torch_check(model, good, _reference(model))
    except ImportError:
        check = None
    return Checked(torch=check, full=full, cache_difference=explain.cache_difference(good, full))


def _ask(live) -> None:
    """Callback of the Train button: the run to start where the expander is drawn (a button's own value does not
    survive a rerun of the page before it is read); a playing generation stops (a run holds the process)."""
    st.session_state[ASKED] = live
    PLAYER.stop()


def _back_to_shipped() -> None:
    """Callback of the button that drops the visitor's own run."""
    st.session_state.pop(LIVE, None)


def _sharing() -> dict:
    return {"page": "seq2seq", "own": encode(s2.current()), "bulky": TABLE_PARAMS}


def _next_step(count: int) -> None:
    """Callback of the Next step button: one step on, back to the first after the last."""
    settings.put("s2s_tstep", (int(settings.value("s2s_tstep")) + 1) % count)


def _take_example(key: str) -> None:
    """Callback of the example pills: the sentence clicked becomes the text to translate (the pills show none
    chosen again)."""
    picked = st.session_state.get(key)
    if picked in EXAMPLE_KEYS[key]:  # a widget state is read as anything a visitor may send
        settings.put("s2s_text", picked)
    st.session_state[key] = None


def _step_label(word: str) -> str:
    return tr_plain("tr.step_end") if word == "<eos>" else word


def translator_section() -> None:
    """Read → translate → draw → link, for the translator trained here."""
    settings.keep("s2s_text")
    st.text_input(tr("tr.text"), key="s2s_text", max_chars=sv.MAX_TEXT, help=tr("tr.text_help"))
    examples()
    model = _model()
    good, error = settings.last_good("s2s_tr_good", partial(_translation, model, settings.value("s2s_text")))
    if error is not None:
        show_error(error, kept=False)
        if good is not None:  # the box holds the refused text: say whose translation is shown below
            st.info(tr("tr.kept", sentence="".join(good.source)), icon=":material/history:")
    if good is None:
        links.stop(**_sharing())
    checked = _checked(model, good)
    PLAYER.advance(explain.step_count(good) - 1)  # while playing: a step on, before the step is drawn or linked
    config, record, live = model.config, explain.load_record(), _live()
    seconds = record.train_s if live is None else live.seconds
    st.caption(tr("tr.intro", enc=config.encoder_layers, dec=config.decoder_layers, d=config.d_model,
                  h=config.num_heads, seconds=f"{seconds:.0f}", pairs=record.trained_on))
    if live is not None:
        live_line(live)

    translation_box(good, checked)
    step = explain.clamp_step(good, settings.value("s2s_tstep"))
    bodies = {"pass": partial(pass_part, good, checked, step), "generation": partial(generation, good, checked),
              "learned": partial(learned_part, good, record)}
    if parts.current("s2s_part", tuple(bodies)) != "generation":
        PLAYER.stop()  # generation plays only while its part is open
    parts.show("seq2seq", "s2s_part", "s2s", bodies)

    # One ZIP of every map of every part, at the step and checkpoint chosen, however few parts were opened.
    step = explain.clamp_step(good, settings.value("s2s_tstep"))
    temperature = int(settings.value("s2s_temp")) / 100
    chosen = explain.checkpoint_at(record, settings.value("s2s_ckpt"))
    sharing = _sharing()
    address, _, link_short = links.share_link(**sharing)
    made = {"settings.txt": explain.settings_text(address, link_short, good, step=step, temperature=temperature,
                                                  checkpoint=chosen, lang=current_lang())}
    MAPS.zip_button(tr("tr.download_zip"), every_table(good, checked, step, record, chosen), made,
                    file_name="selfattn-translator.zip", key="dl_s2t_zip")
    st.caption(tr("tr.zip_help"))
    links.publish(**sharing)


def every_table(good: Translation, checked: Checked, step: int, record: explain.Record,
                chosen: explain.Checkpoint) -> dict:
    """Every map of the translation, by its CSV's name in the ZIP: the whole-sentence pass's, the step's, the
    checkpoint's (each the same numbers and labels as its map)."""
    maps = {**pass_maps(good, checked, step), **step_maps(good, step), **learned_maps(good, record, chosen)}
    return {name: shown.frame() for name, shown in maps.items()}


def pass_part(good: Translation, checked: Checked, step: int) -> None:
    """Part 1: the source through the encoder, then the decoder over the whole translation at once."""
    maps = pass_maps(good, checked, step)
    memory_section(maps)
    decoder_section(good, checked, maps)


def learned_part(good: Translation, record: explain.Record) -> None:
    """Part 3: how it learned, and (locally) training it again."""
    learning(good, record)
    retrain()


def examples() -> None:
    """The sentences it knows, to click: trained on, and held out of training (to test it)."""
    for key, options in EXAMPLE_KEYS.items():
        st.pills(tr(f"tr.{key.removeprefix('s2s_tex_')}_examples"), options, key=key, on_change=_take_example,
                 args=(key,))


def translation_box(good: Translation, checked: Checked) -> None:
    """The translation of its own sentence, what the encoder read of it, whether it was trained on it, and torch's
    check."""
    sentence = "".join(good.source)
    st.subheader(tr("tr.output_title_of", sentence=sentence))
    st.markdown("#### " + escape_markdown(good.output or "—"))  # the model's words, shown as text
    st.caption(tr_count("tr.source_line", len(good.source), n=len(good.source),
                        chars=" · ".join(explain.source_labels(good))))
    if good.left_out:
        st.caption(tr("tr.left_out", chars=" ".join(good.left_out)))
    if not good.finished:
        st.info(tr("tr.unfinished", n=len(good.tokens)), icon=":material/more_horiz:")
    pair = corpus.find(sentence)
    if good.in_training:
        st.info(tr("tr.in_training", count=corpus.training_size()), icon=":material/school:")
    elif pair is not None:  # held out of training: its right translation is known
        key = "tr.held_out_right" if pair.en == good.output else "tr.held_out_wrong"
        st.info(tr(key, reference=pair.en, count=corpus.training_size()), icon=":material/quiz:")
    else:
        st.warning(tr("tr.not_in_training", count=corpus.training_size()), icon=":material/warning:")
    torch_line(checked.torch)


def live_line(live) -> None:
    """Which run the page translates with, and the button back to the shipped model."""
    s = live.settings
    st.info(tr("tr.train_using", epochs=s.epochs, d=s.d_model, layers=s.layers, seed=s.seed,
               seconds=f"{live.seconds:.1f}", right=live.held_out_right, total=live.held_out_total),
            icon=":material/model_training:")
    st.button(tr("tr.train_back"), key="s2s_train_back", on_click=_back_to_shipped, icon=":material/undo:")


def torch_line(check: TorchCheck | None) -> None:
    """torch's check: the same words, and the largest difference in the scores of every step."""
    if check is None:
        st.info(tr("tr.torch_missing"), icon=":material/info:")
        return
    diff = difference_text(check.max_logit_difference)
    if check.same_tokens:
        st.success(tr("tr.checked_torch", diff=diff), icon=":material/verified:")
    else:
        st.warning(tr("tr.torch_differs", words=" ".join(check.torch_tokens), diff=diff), icon=":material/warning:")


def pass_maps(good: Translation, checked: Checked, step: int) -> dict[str, MapShown]:
    """The whole-sentence pass's maps by CSV name: the memory; per decoder layer, each head's masked self-attention
    over its input and its cross-attention over the memory; the output row of each word."""
    inputs, words, chars = explain.input_labels(good), explain.word_labels(good), explain.source_labels(good)
    memory = explain.memory(good)  # (n, d)
    d_cols = column_names("d", memory.shape[1])
    maps = {"memory": MapShown(tr_plain("tr.memory_map"), memory[:, :MAP_DIMS], chars, d_cols[:MAP_DIMS], "memory",
                               "src:memory", full=memory, full_cols=d_cols)}
    whole = good.cross_weights  # (layers, heads, T, n)
    focus = step if step < len(good.tokens) else None
    for layer, lt in enumerate(checked.full.decoder_layers):
        weights = masked(lt.self_weights, lt.self_attention.allowed)  # (h, m, m)
        at = f"l{layer + 1}h"
        for h in range(weights.shape[0]):
            maps[f"self_layer{layer + 1}_head{h + 1}"] = MapShown(
                tr_plain("tr.layer_head", layer=layer + 1, h=h + 1), weights[h], inputs, inputs, f"self_{at}{h + 1}",
                f"self:{at}{h + 1}", focus=step, role="weights")
        for h in range(whole.shape[1]):
            maps[f"cross_layer{layer + 1}_head{h + 1}"] = MapShown(
                tr_plain("tr.layer_head", layer=layer + 1, h=h + 1), whole[layer, h], words[: whole.shape[2]], chars,
                f"cross_{at}{h + 1}", f"cross:{at}{h + 1}", focus=focus, role="weights")
    rows = explain.decoder_rows(good)  # (T, d)
    d_cols = column_names("d", rows.shape[1])
    maps["rows"] = MapShown(tr_plain("tr.rows_map"), rows[:, :MAP_DIMS], words[: len(rows)], d_cols[:MAP_DIMS], "rows",
                            "row:out", focus=focus, full=rows, full_cols=d_cols)
    return maps


def memory_section(maps: dict[str, MapShown]) -> None:
    """① The source through the encoder: the memory, one row per source character."""
    st.subheader(tr("tr.memory_title"))
    st.caption(tr("tr.memory_help"))
    draw_row([maps["memory"]])


def decoder_section(good: Translation, checked: Checked, maps: dict[str, MapShown]) -> None:
    """② The decoder over the whole translation at once: per layer, each head's masked self-attention over its input,
    then its cross-attention over the memory; the output row of each word; what aligns with what."""
    st.subheader(tr("tr.decoder_title"))
    whole = good.cross_weights  # (layers, heads, T, n)
    st.caption(tr("tr.decoder_help", m=len(explain.input_labels(good)), t=whole.shape[2], n=whole.shape[3]))
    st.caption(tr("tr.self_help"))
    st.caption(tr("tr.full_help", m=whole.shape[2], n=whole.shape[3]))
    for layer in range(len(checked.full.decoder_layers)):
        for kind, title in (("self", "tr.self_title"), ("cross", "tr.cross_title")):
            st.markdown(f"**{tr(title, layer=layer + 1)}**")
            draw_row(shown for name, shown in maps.items() if name.startswith(f"{kind}_layer{layer + 1}_"))
    draw_row([maps["rows"]])
    if good.tokens:
        st.markdown(f"#### {tr('tr.align_title')}")
        st.caption(tr("tr.align_help", h=whole.shape[1]))
        st.markdown("\n".join(f"- {line}" for line in explain.alignment_note(good, current_lang())))


def generation(good: Translation, checked: Checked) -> None:
    """③ Generation, one word at a time: the step selector; at the step, each layer's key/value cache, the new row's
    self-attention and cross-attention; the cached steps against the full pass; the next word's probabilities."""
    lang = current_lang()
    words, inputs, chars = explain.word_labels(good), explain.input_labels(good), explain.source_labels(good)
    count = len(words)
    st.subheader(tr("tr.gen_title"))
    st.caption(tr("tr.gen_help"))
    g1, g2, g3 = st.columns([2, 1, 1], vertical_alignment="bottom")
    with g1:
        names = {i: tr_plain("tr.step_option", t=i + 1, word=_step_label(w)) for i, w in enumerate(words)}
        step = PLAYER.step_box(tr("tr.step"), range(count), names)
    g2.button(tr("tr.next_step"), on_click=_next_step, args=(count,), icon=":material/skip_next:", key="s2s_tnext",
              width="stretch")
    PLAYER.draw_button(count - 1, g3)
    step = explain.clamp_step(good, step)
    st.markdown("**" + tr("tr.step_title", t=step + 1, prefix=" ".join(inputs[: step + 1]),
                           word=_step_label(words[step])) + "**")
    st.caption(tr("tr.cache_rows", old=step, new=step + 1) if step else tr("tr.cache_first"))
    maps = step_maps(good, step)
    layers = len(good.decoder.steps[step].self_weights)
    for layer in range(layers):
        draw_row(shown for name, shown in maps.items() if name.endswith(f"_layer{layer + 1}"))
    st.caption(tr("tr.step_cross_help", h=good.decoder.steps[step].self_weights[0].shape[0]))
    st.success(tr("tr.cache_same", diff=difference_text(checked.cache_difference)), icon=":material/verified:")

    st.markdown(f"#### {tr('tr.probs_title')}")
    settings.keep("s2s_temp", TEMPERATURES)
    st.select_slider(tr("tr.temp"), options=TEMPERATURES, key="s2s_temp", format_func=lambda v: f"{v / 100:.2f}",
                     help=tr("tr.temp_help"))
    temperature = int(settings.value("s2s_temp")) / 100
    nxt = explain.next_words(good, step, temperature)
    vega(explain.next_words_spec(nxt, lang))
    st.caption(tr("tr.greedy_line", word=_step_label(nxt.vocabulary[nxt.greedy]),
                  p=f"{nxt.greedy_probability:.3f}", temperature=f"{temperature:.2f}", vocab=nxt.writable))


STEP_MAP_KEYS = {"k_cache": "cache_k_l", "v_cache": "cache_v_l", "self": "step_self_l", "cross": "step_l"}


def step_maps(good: Translation, step: int) -> dict[str, MapShown]:
    """Generation step ``step``'s maps by CSV name, per decoder layer: its key and value caches (the heads side by
    side, the first MAP_DIMS columns drawn, the CSV whole) and the new row's self- and cross-attention weights."""
    inputs, chars = explain.input_labels(good), explain.source_labels(good)
    at = good.decoder.steps[step]
    heads = [tr_plain("s2s.head", h=h + 1) for h in range(at.self_weights[0].shape[0])]
    rows = [*inputs[:step], tr_plain("tr.cache_new", token=inputs[step])]
    maps = {}
    for layer in range(len(at.self_weights)):
        keys, values = merge_heads(at.cached_keys[layer]), merge_heads(at.cached_values[layer])  # (t + 1, d) each
        for name, title, cache, prefix in (("k_cache", "tr.cache_k", keys, "k"), ("v_cache", "tr.cache_v", values, "v")):
            names = column_names(prefix, cache.shape[1])
            maps[f"step{step + 1}_{name}_layer{layer + 1}"] = MapShown(
                tr_plain(title, layer=layer + 1, h=len(heads)), cache[:, :MAP_DIMS], rows, names[:MAP_DIMS],
                f"{STEP_MAP_KEYS[name]}{layer + 1}", full=cache, full_cols=names)
        for name, title, weights, cols in (("self", "tr.step_self_title", at.self_weights[layer], inputs[: step + 1]),
                                           ("cross", "tr.step_cross_title", at.cross_weights[layer], chars)):
            maps[f"step{step + 1}_{name}_layer{layer + 1}"] = MapShown(
                tr_plain(title, layer=layer + 1), weights, heads, cols, f"{STEP_MAP_KEYS[name]}{layer + 1}",
                role="weights")
    return maps


def learned_maps(good: Translation, record: explain.Record, chosen: explain.Checkpoint) -> dict[str, MapShown]:
    """The checkpoint ``chosen``'s recorded cross-attention on the watched sentence, per layer and head (none when
    it wrote nothing yet)."""
    watched = chosen.sentences[explain.watched_sentence(record, "".join(good.source))]
    if not watched.tokens:
        return {}
    weights = watched.cross_weights  # (layers, heads, T, n)
    return {f"training_step{chosen.step}_cross_layer{layer + 1}_head{h + 1}": MapShown(
        tr_plain("tr.layer_head", layer=layer + 1, h=h + 1), weights[layer, h], explain.labels(watched.tokens),
        explain.labels(watched.source), f"ckpt_l{layer + 1}h{h + 1}", role="weights")
        for layer in range(weights.shape[0]) for h in range(weights.shape[1])}


def learning(good: Translation, record: explain.Record) -> None:
    """How it learned: the checkpoint slider (labelled in training steps, as the chart's axis), the loss chart with
    every checkpoint a dot and the one shown a line, held-out accuracy, how much the watched sentence's
    cross-attention sharpened (measured), and its recorded cross-attention at that checkpoint."""
    lang = current_lang()
    sentence = explain.watched_sentence(record, "".join(good.source))
    st.subheader(tr("tr.learn_title"))
    steps = listed(str(c.step) for c in record.checkpoints)
    st.caption(tr("tr.learn_help", count=len(record.checkpoints), steps=steps, per=record.steps_per_epoch,
                  pairs=record.trained_on, watched=" · ".join(record.watched)))
    first, last = explain.sharpening(record, sentence)
    n = len(record.checkpoints[0].sentences[sentence].source)
    st.caption(tr("tr.learn_peaks" if last > first else "tr.learn_peaks_flat", sentence=sentence,
                  first=f"{first:.2f}", last=f"{last:.2f}", first_step=record.checkpoints[0].step,
                  last_step=record.checkpoints[-1].step, n=n, uniform=f"{1 / n:.2f}"))
    if _live() is not None:
        st.caption(tr("tr.learn_shipped"))
    options = explain.checkpoint_options(record, settings.default("s2s_ckpt"))
    settings.keep("s2s_ckpt", options, fallback=options[-1])
    st.select_slider(tr("tr.ckpt"), options=options, key="s2s_ckpt",
                     format_func=lambda i: str(explain.checkpoint_at(record, i).step))
    chosen = explain.checkpoint_at(record, settings.value("s2s_ckpt"))
    vega(explain.loss_spec(record, chosen, lang))
    st.markdown(tr("tr.ckpt_line", k=chosen.index + 1, count=len(record.checkpoints), step=chosen.step,
                   epoch=f"{chosen.epoch:g}", train=f"{chosen.train_loss:.3f}", held=f"{chosen.held_out_loss:.3f}",
                   right=round(chosen.held_out_accuracy * record.held_out), total=record.held_out))
    watched = chosen.sentences[sentence]
    if watched.tokens:
        st.caption(tr("tr.watched_line", sentence=sentence, output=" ".join(watched.tokens)))
    else:
        st.caption(tr("tr.watched_nothing", sentence=sentence))
        return
    n = len(watched.source)
    st.caption(tr("tr.peak_line", peak=f"{explain.peak(watched.cross_weights):.2f}", n=n, uniform=f"{1 / n:.2f}"))
    maps = learned_maps(good, record, chosen)
    for layer in range(watched.cross_weights.shape[0]):
        draw_row(shown for name, shown in maps.items() if f"_cross_layer{layer + 1}_" in name)


def retrain() -> None:
    """"Train it again here": locally, the run's settings, a button and, while it runs, a progress bar and the loss
    of each epoch; once done, the page translates with the new model. Hosted: a note, nothing to press. A folded
    box (``s2s_train_panel``): closed, none of its widgets is made."""
    box = folded(tr("tr.train_title"), "s2s_train_panel", icon=":material/model_training:")
    asked = st.session_state.pop(ASKED, None)  # a Train click the box was closed after is dropped with it
    if not box.open:
        return
    with box:
        if is_hosted():
            st.caption(tr("tr.train_hosted"))
            return
        from selfattn.translate import train as training  # torch, only where a run can start

        defaults = {"s2s_train_epochs": training.LiveSettings.epochs, "s2s_train_d": training.LiveSettings.d_model,
                    "s2s_train_layers": training.LiveSettings.layers, "s2s_train_seed": training.LiveSettings.seed}
        offered = dict(zip(defaults, (training.LIVE_EPOCHS, training.LIVE_D_MODELS, training.LIVE_LAYERS,
                                      training.LIVE_SEEDS)))
        chosen = st.session_state.get(TRAIN_CHOSEN, {})
        for key, default in defaults.items():
            if key not in st.session_state:  # the box was closed: its widgets' values went with them
                st.session_state[key] = chosen[key] if chosen.get(key) in offered[key] else default
        st.caption(tr("tr.train_help", limit=f"{training.LIVE_MAX_WORK:,}"))
        epochs = st.slider(tr("tr.train_epochs"), training.LIVE_EPOCHS.start, training.LIVE_EPOCHS.stop - 1,
                           step=10, key="s2s_train_epochs")
        c1, c2, c3 = st.columns(3)
        d_model = c1.selectbox(tr("tr.train_d"), training.LIVE_D_MODELS, key="s2s_train_d")
        layers = c2.selectbox(tr("tr.train_layers"), training.LIVE_LAYERS, key="s2s_train_layers",
                              format_func=lambda n: tr_plain("tr.train_layers_option", n=n))
        seed = c3.number_input(tr("tr.train_seed"), training.LIVE_SEEDS.start, training.LIVE_SEEDS.stop - 1,
                               key="s2s_train_seed")
        st.session_state[TRAIN_CHOSEN] = dict(zip(defaults, (epochs, d_model, layers, seed)))
        live = training.LiveSettings(epochs=int(epochs), d_model=int(d_model), layers=int(layers), seed=int(seed))
        try:
            training.live_plan(live)
        except InputError as exc:
            show_error(exc, kept=False)
            return
        st.button(tr("tr.train_go"), key="s2s_train_go", type="primary", icon=":material/play_arrow:",
                  on_click=_ask, args=(live,))
        if asked is not None:
            run = _run(training, asked)
            if run is not None:
                st.session_state[LIVE] = run
                st.rerun()  # from the top: the page translates with the new model
        done = _live()
        if done is not None:
            st.progress(1.0, text=tr("tr.train_done", epochs=done.settings.epochs, seconds=f"{done.seconds:.1f}",
                                     loss=f"{done.losses[-1]:.4f}"))
            _loss_chart(st, done.losses)


def _run(training, live):
    """Train ``live`` with a progress bar and the loss drawn as it goes; None when another run holds the process
    (the visitor is told to wait)."""
    with kit_training.turn(tr("tr.train_busy")) as ours:
        if not ours:
            return None
        bar = st.progress(0.0, text=tr("tr.train_starting"))
        chart, losses = st.empty(), []
        draw_chart = kit_training.throttled(lambda done, total: _loss_chart(chart, losses))

        def on_epoch(done: int, total: int, loss: float) -> None:
            losses.append(loss)
            bar.progress(done / total, text=tr("tr.train_progress", done=done, total=total, loss=f"{loss:.4f}"))
            draw_chart(done, total)

        return training.train_live(live, on_epoch)


def _loss_chart(where, losses) -> None:
    """The mean training loss of each epoch so far, drawn in ``where`` (a placeholder, or ``st``)."""
    epoch, loss = tr_plain("tr.loss_axis_epoch"), tr_plain("tr.train_loss")
    where.line_chart({epoch: list(range(1, len(losses) + 1)), loss: list(losses)}, x=epoch, y=loss, height=180,
                     x_label=epoch, y_label=loss)
