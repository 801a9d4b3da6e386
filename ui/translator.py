"""The Encoder–decoder page's translator source: the tiny translator trained here (:mod:`selfattn.translate`), run on
our core, generated one word at a time with the real cross-attention of each step, the next word's probabilities at
a temperature, what aligns with what, and how it learned (the training record's checkpoints).

Read (the settings ``s2s_text``, ``s2s_tstep``, ``s2s_temp``, ``s2s_ckpt``) → translate (kept with ``last_good``)
→ draw what :mod:`selfattn.translate.explain` computes → the link. No arithmetic here: the numbers come from
``selfattn/``.

Locally (not hosted), "Train it again here" trains a model of the visitor's own (:func:`selfattn.translate.train.
train_live`, bounded there) in their process, one run at a time per process; the page then translates with it
until they go back to the shipped model. It lives in their session only (``s2s_train_model``), never in a file.
"""

from __future__ import annotations

import threading
import time
from functools import partial

import streamlit as st

from selfattn.display.export import column_names
from selfattn.display.numbers import difference_text
from selfattn.errors import InputError
from selfattn.hosting import is_hosted
from selfattn.i18n import escape_markdown
from selfattn.seq2seq import view as sv
from selfattn.seq2seq.link import TABLE_PARAMS, encode
from selfattn.translate import Translation, Translator, explain, load, torch_check, translate
from ui import links
from ui import seq2seq as s2
from ui import state as settings
from ui.common import current_lang, show_error, tr, tr_count, tr_plain, vega
from ui.editing import Maps
from ui.play import Player

MAP_DIMS = 8  # columns of the memory and decoder-row maps (a map fits its column); the CSVs hold all d_model
TEMPERATURES = list(range(10, 301))  # the temperature × 100, as the setting s2s_temp holds it
# The translator's maps light up together (their own group): a word's row, a source character's row, a weight.
MAPS = Maps("s2t", "s2t_", "translator-", "s2s_tstep", s2.EDITORS)
LIVE = "s2s_train_model"  # the visitor's own run (selfattn.translate.train.LiveRun), while the page uses it
ASKED = "s2s_train_asked"  # the run the Train button asked for, until the script reaches the place that draws it
TRAINING = threading.Lock()  # one run at a time in this process: two would share its two cores
DRAW_EVERY_S = 0.5  # how often the loss chart is redrawn while a run goes on
PLAYER = Player("s2s_tplaying", "s2s_tstep", "s2s_tplay", "seq2seq")  # its generation's Play/Pause (ui/play.py)


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


def _reference():
    """torch's modules holding the weights of the model in use (ImportError without torch)."""
    live = _live()
    if live is None:
        return _torch_model()
    from selfattn.translate import torch_model

    return torch_model.reference(live.translator.weights)


def _translate(text: str) -> Translation:
    return translate(_model(), text)


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


def _step_label(word: str) -> str:
    return tr_plain("tr.step_end") if word == "<eos>" else word


def translator_section() -> None:
    """Read → translate → draw → link, for the translator trained here."""
    settings.keep("s2s_text")
    st.text_input(tr("tr.text"), key="s2s_text", max_chars=sv.MAX_TEXT, help=tr("tr.text_help"))
    good, error = settings.last_good("s2s_tr_good", partial(_translate, settings.value("s2s_text")))
    if error is not None:
        show_error(error, kept=good is not None)
    if good is None:
        links.stop(**_sharing())
    config, record, live = _model().config, explain.load_record(), _live()
    seconds = record.train_s if live is None else live.seconds
    st.caption(tr("tr.intro", enc=config.encoder_layers, dec=config.decoder_layers, d=config.d_model,
                  h=config.num_heads, seconds=f"{seconds:.0f}", pairs=record.trained_on))
    if live is not None:
        live_line(live)

    st.subheader(tr("tr.output_title"))
    st.markdown("#### " + escape_markdown(good.output or "—"))  # the model's words, shown as text
    st.caption(tr_count("tr.source_line", len(good.source), n=len(good.source), chars=" · ".join(good.source)))
    if not good.finished:
        st.info(tr("tr.unfinished", n=len(good.tokens)), icon=":material/more_horiz:")
    torch_line(good)

    tables: dict = {}
    step, temperature = generation(good, tables)
    chosen = learning(good, record, tables)
    retrain()

    sharing = _sharing()
    address, _, link_short = links.share_link(**sharing)
    made = {"settings.txt": explain.settings_text(address, link_short, good, step=step, temperature=temperature,
                                                  checkpoint=chosen, lang=current_lang())}
    MAPS.zip_button(tr("tr.download_zip"), tables, made, file_name="selfattn-translator.zip", key="dl_s2t_zip")
    links.publish(**sharing)


def live_line(live) -> None:
    """Which run the page translates with, and the button back to the shipped model."""
    s = live.settings
    st.info(tr("tr.train_using", epochs=s.epochs, d=s.d_model, layers=s.layers, seed=s.seed,
               seconds=f"{live.seconds:.1f}", right=live.held_out_right, total=live.held_out_total),
            icon=":material/model_training:")
    st.button(tr("tr.train_back"), key="s2s_train_back", on_click=_back_to_shipped, icon=":material/undo:")


def torch_line(good: Translation) -> None:
    """torch's check: the same words, and the largest difference in the scores of every step."""
    try:
        model = _reference()
    except ImportError:
        st.info(tr("tr.torch_missing"), icon=":material/info:")
        return
    check = torch_check(_model(), good, model)
    diff = difference_text(check.max_logit_difference)
    if check.same_tokens:
        st.success(tr("tr.checked_torch", diff=diff), icon=":material/verified:")
    else:
        st.warning(tr("tr.torch_differs", words=" ".join(check.torch_tokens), diff=diff), icon=":material/warning:")


def generation(good: Translation, tables: dict) -> tuple[int, float]:
    """The step selector, the step's cross-attention and next-word probabilities, the alignment note and the whole
    translation's cross-attention. Returns the step shown and the temperature."""
    lang = current_lang()
    words = explain.step_words(good)
    count = len(words)
    st.subheader(tr("tr.gen_title"))
    st.caption(tr("tr.gen_help"))
    PLAYER.advance(count - 1)  # while playing: a step on, before the step is drawn or linked
    g1, g2, g3 = st.columns([2, 1, 1], vertical_alignment="bottom")
    with g1:
        step = PLAYER.step_box(tr("tr.step"), range(count),
                               {i: tr_plain("tr.step_option", t=i + 1, word=_step_label(w)) for i, w in enumerate(words)})
    g2.button(tr("tr.next_step"), on_click=_next_step, args=(count,), icon=":material/skip_next:", key="s2s_tnext",
              width="stretch")
    PLAYER.draw_button(count - 1, g3)
    step = explain.clamp_step(good, step)
    st.markdown("**" + tr("tr.step_title", t=step + 1, prefix=" ".join(explain.prefix(good, step)),
                           word=_step_label(words[step])) + "**")
    cross = explain.step_cross(good, step)  # (layers, heads, n)
    heads = [tr_plain("s2s.head", h=h + 1) for h in range(cross.shape[1])]
    with st.container(horizontal=True, wrap=True, gap="medium"):
        for layer in range(cross.shape[0]):
            with st.container(width="content"):
                tables[f"step{step + 1}_cross_layer{layer + 1}"] = MAPS.show(
                    tr("tr.step_cross_title", layer=layer + 1), cross[layer], heads, good.source,
                    key=f"step_l{layer + 1}", link=None, focus=None, role="weights", domain=(0.0, 1.0))
    st.caption(tr("tr.step_cross_help"))

    st.markdown(f"#### {tr('tr.probs_title')}")
    settings.keep("s2s_temp", TEMPERATURES)
    st.select_slider(tr("tr.temp"), options=TEMPERATURES, key="s2s_temp", format_func=lambda v: f"{v / 100:.2f}",
                     help=tr("tr.temp_help"))
    temperature = int(settings.value("s2s_temp")) / 100
    nxt = explain.next_words(good, step, temperature)
    vega(explain.next_words_spec(nxt, lang))
    st.caption(tr("tr.greedy_line", word=_step_label(nxt.vocabulary[nxt.greedy]),
                  p=f"{nxt.greedy_probability:.3f}", temperature=f"{temperature:.2f}", vocab=nxt.writable))

    if not good.tokens:
        return step, temperature
    st.markdown(f"#### {tr('tr.align_title')}")
    st.caption(tr("tr.align_help", h=len(heads)))
    st.markdown("\n".join(f"- {line}" for line in explain.alignment_note(good, lang)))

    st.subheader(tr("tr.full_title"))
    whole = good.cross_weights  # (layers, heads, T, n)
    st.caption(tr("tr.full_help", m=whole.shape[2], n=whole.shape[3]))
    focus = step if step < len(good.tokens) else None
    for layer in range(whole.shape[0]):
        with st.container(horizontal=True, wrap=True, gap="medium"):
            for h in range(whole.shape[1]):
                with st.container(width="content"):
                    tables[f"cross_layer{layer + 1}_head{h + 1}"] = MAPS.show(
                        tr("tr.layer_head", layer=layer + 1, h=h + 1), whole[layer, h], good.tokens, good.source,
                        key=f"cross_l{layer + 1}h{h + 1}", link=f"cross:l{layer + 1}h{h + 1}", focus=focus,
                        role="weights", domain=(0.0, 1.0))
    memory, rows = explain.memory(good), explain.decoder_rows(good)  # (n, d), (T, d)
    d_cols = column_names("d", memory.shape[1])
    with st.container(horizontal=True, wrap=True, gap="medium"):
        for title, matrix, labels, key, link, row in ((tr("tr.memory_map"), memory, good.source, "memory",
                                                       "src:memory", None),
                                                      (tr("tr.rows_map"), rows, good.tokens, "rows", "row:out",
                                                       focus)):
            with st.container(width="content"):
                tables[key] = MAPS.show(title, matrix[:, :MAP_DIMS], labels, d_cols[:MAP_DIMS], key=key, link=link,
                                        focus=row, full=matrix, full_cols=d_cols)
    return step, temperature


def learning(good: Translation, record: explain.Record, tables: dict) -> explain.Checkpoint:
    """How it learned: the checkpoint slider, the loss chart with the checkpoint marked, held-out accuracy, and the
    recorded cross-attention of the watched sentence at that checkpoint (the checkpoint shown is returned)."""
    lang = current_lang()
    sentence = explain.watched_sentence(record, "".join(good.source))
    st.subheader(tr("tr.learn_title"))
    st.caption(tr("tr.learn_help", count=len(record.checkpoints), sentence=sentence,
                  watched=" · ".join(record.watched)))
    if _live() is not None:
        st.caption(tr("tr.learn_shipped"))
    options = explain.checkpoint_options(record, settings.default("s2s_ckpt"))
    settings.keep("s2s_ckpt", options, fallback=options[-1])
    st.select_slider(tr("tr.ckpt"), options=options, key="s2s_ckpt",
                     format_func=lambda i: str(explain.checkpoint_at(record, i).step))
    chosen = explain.checkpoint_at(record, settings.value("s2s_ckpt"))
    vega(explain.loss_spec(record, chosen, lang))
    st.markdown(tr("tr.ckpt_line", step=chosen.step, epoch=f"{chosen.epoch:g}", train=f"{chosen.train_loss:.3f}",
                   held=f"{chosen.held_out_loss:.3f}", right=round(chosen.held_out_accuracy * record.held_out),
                   total=record.held_out))
    watched = chosen.sentences[sentence]
    if watched.tokens:
        st.caption(tr("tr.watched_line", sentence=sentence, output=" ".join(watched.tokens)))
    else:
        st.caption(tr("tr.watched_nothing", sentence=sentence))
        return chosen
    n = len(watched.source)
    st.caption(tr("tr.peak_line", peak=f"{explain.peak(watched.cross_weights):.2f}", n=n, uniform=f"{1 / n:.2f}"))
    weights = watched.cross_weights  # (layers, heads, T, n)
    for layer in range(weights.shape[0]):
        with st.container(horizontal=True, wrap=True, gap="medium"):
            for h in range(weights.shape[1]):
                with st.container(width="content"):
                    tables[f"training_step{chosen.step}_cross_layer{layer + 1}_head{h + 1}"] = MAPS.show(
                        tr("tr.layer_head", layer=layer + 1, h=h + 1), weights[layer, h], watched.tokens,
                        watched.source, key=f"ckpt_l{layer + 1}h{h + 1}", link=None, focus=None, role="weights",
                        domain=(0.0, 1.0))
    return chosen


def retrain() -> None:
    """"Train it again here": locally, the run's settings, a button and, while it runs, a progress bar and the loss
    of each epoch; once done, the page translates with the new model. Hosted: a note, nothing to press."""
    with st.expander(tr("tr.train_title"), icon=":material/model_training:"):
        if is_hosted():
            st.caption(tr("tr.train_hosted"))
            return
        from selfattn.translate import train as training  # torch, only where a run can start

        st.caption(tr("tr.train_help", limit=f"{training.LIVE_MAX_WORK:,}"))
        epochs = st.slider(tr("tr.train_epochs"), training.LIVE_EPOCHS.start, training.LIVE_EPOCHS.stop - 1,
                           training.LiveSettings.epochs, step=10, key="s2s_train_epochs")
        c1, c2, c3 = st.columns(3)
        d_model = c1.selectbox(tr("tr.train_d"), training.LIVE_D_MODELS, key="s2s_train_d",
                               index=training.LIVE_D_MODELS.index(training.LiveSettings.d_model))
        layers = c2.selectbox(tr("tr.train_layers"), training.LIVE_LAYERS, key="s2s_train_layers",
                              format_func=lambda n: tr_plain("tr.train_layers_option", n=n))
        seed = c3.number_input(tr("tr.train_seed"), training.LIVE_SEEDS.start, training.LIVE_SEEDS.stop - 1,
                               training.LiveSettings.seed, key="s2s_train_seed")
        live = training.LiveSettings(epochs=int(epochs), d_model=int(d_model), layers=int(layers), seed=int(seed))
        try:
            training.live_plan(live)
        except InputError as exc:
            show_error(exc, kept=False)
            return
        st.button(tr("tr.train_go"), key="s2s_train_go", type="primary", icon=":material/play_arrow:",
                  on_click=_ask, args=(live,))
        asked = st.session_state.pop(ASKED, None)
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
    if not TRAINING.acquire(blocking=False):
        st.warning(tr("tr.train_busy"), icon=":material/hourglass_top:")
        return None
    try:
        bar = st.progress(0.0, text=tr("tr.train_starting"))
        chart, losses, drawn = st.empty(), [], [time.perf_counter()]

        def on_epoch(done: int, total: int, loss: float) -> None:
            losses.append(loss)
            bar.progress(done / total, text=tr("tr.train_progress", done=done, total=total, loss=f"{loss:.4f}"))
            if done == total or time.perf_counter() - drawn[0] > DRAW_EVERY_S:
                _loss_chart(chart, losses)
                drawn[0] = time.perf_counter()

        return training.train_live(live, on_epoch)
    finally:
        TRAINING.release()


def _loss_chart(where, losses) -> None:
    """The mean training loss of each epoch so far, drawn in ``where`` (a placeholder, or ``st``)."""
    epoch, loss = tr_plain("tr.loss_axis_epoch"), tr_plain("tr.train_loss")
    where.line_chart({epoch: list(range(1, len(losses) + 1)), loss: list(losses)}, x=epoch, y=loss, height=180,
                     x_label=epoch, y_label=loss)
