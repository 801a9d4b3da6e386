"""Training the translator again, live, on the Encoder–decoder page (issue 40 item 4): locally a small run trains in
the visitor's process, its progress ends, the page translates with the session's model and says so (the run's
epochs, seconds and held-out score, worked out here from that model), and the button brings the shipped model back;
a second run waits while one holds the process; a run over the limit is refused; hosted, nothing can be pressed.
The same settings train the same model: the loss of every epoch, bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from selfattn.errors import InputError
from selfattn.hosting import HOSTED_ENV
from selfattn.i18n import t_plain
from selfattn.translate import corpus, load, translate
from selfattn.translate.train import (LIVE_MAX_WORK, LiveSettings, live_plan, split, train_live)
from support.apptest import assert_map_shows, open_folded, open_part, step_maps
from tests import fuzz
from tests.seq2seqpage import ok, opened, output

TINY = {"epochs": 10, "d_model": 16, "layers": 1, "seed": 0}  # about 2 s on one core
LIVE = "s2s_train_model"
PANEL = "s2s_train_panel"  # the folded box of training it again








def alerts(at, kind: str) -> list[str]:
    return [text for k, text in fuzz.alerts(at.main) if k == kind]


def captions(at) -> list[str]:
    return [str(c.value) for c in at.caption]


def progress(at) -> list[tuple[int, str]]:
    return [(e.proto.value, e.proto.text) for e in at.get("progress")]


def train_on_page(at, epochs: int, d_model: int, layers: int, seed: int):
    open_folded(at, PANEL)
    at.slider(key="s2s_train_epochs").set_value(epochs)
    at.selectbox(key="s2s_train_d").set_value(d_model)
    at.selectbox(key="s2s_train_layers").set_value(layers)
    at.number_input(key="s2s_train_seed").set_value(seed)
    at.run()
    ok(at)
    at.button(key="s2s_train_go").click().run()
    ok(at)
    return at


def held_out_right(translator) -> tuple[int, int]:
    """Exact matches of the held-out sentences, translated here with ``translator``."""
    _, held_out = split(corpus.read())
    return sum(translate(translator, p.zh).output == p.en for p in held_out), len(held_out)


def test_a_small_run_trains_here_then_the_page_translates_with_it_until_the_shipped_model_is_back(not_hosted):
    shipped = translate(load(), "早上好")
    at = opened(part="generation")
    assert_map_shows(at, "s2t_step_l1", shipped.decoder.steps[0].cross_weights[0])
    open_part(at, "seq2seq", "learned")  # how it learned, and training it again
    assert not [b for b in at.button if b.key == "s2s_train_go"]  # folded: nothing of it is made until opened
    open_folded(at, PANEL)
    assert at.button(key="s2s_train_go") and not progress(at) and LIVE not in at.session_state

    train_on_page(at, **TINY)
    live = at.session_state[LIVE]
    assert live.settings == LiveSettings(**TINY) and len(live.losses) == TINY["epochs"]
    # the progress ended: one full bar, naming the run
    assert progress(at) == [(100, t_plain("tr.train_done", "en", epochs=10, seconds=f"{live.seconds:.1f}",
                                          loss=f"{live.losses[-1]:.4f}"))], progress(at)
    # the page says which model it uses, with the held-out score worked out here from that model
    right, total = held_out_right(live.translator)
    assert (right, total) == (live.held_out_right, 10)
    line = t_plain("tr.train_using", "en", epochs=10, d=16, layers=1, seed=0, seconds=f"{live.seconds:.1f}",
                   right=right, total=total)
    assert line in alerts(at, "info"), alerts(at, "info")
    assert any("d_model 16, 4 heads" in c and "1 encoder and 1 decoder layers" in c for c in captions(at))
    assert t_plain("tr.learn_shipped", "en") in captions(at)
    open_part(at, "seq2seq", "generation")
    # ... and translates with it: its words, its one layer's cross-attention, torch's check of its weights
    mine = translate(live.translator, "早上好")
    assert output(at) == (mine.output or "—")
    assert_map_shows(at, "s2t_step_l1", mine.decoder.steps[0].cross_weights[0])
    assert "s2t_step_l2" not in step_maps(at)  # one decoder layer, not the shipped two
    assert not np.allclose(mine.decoder.steps[0].cross_weights[0], shipped.decoder.steps[0].cross_weights[0])
    assert any(text.startswith(t_plain("tr.checked_torch", "en", diff="0").split("`")[0])
               for text in alerts(at, "success"))

    at.text_input(key="s2s_text").set_value("人咬狗").run()  # another sentence: still the session's model
    ok(at)
    assert output(at) == (translate(live.translator, "人咬狗").output or "—")

    at.button(key="s2s_train_back").click().run()
    ok(at)
    assert LIVE not in at.session_state and not progress(at)
    assert not any(text.startswith(line[:30]) for text in alerts(at, "info"))
    assert output(at) == "the man bites the dog" and "s2t_step_l2" in step_maps(at)
    assert_map_shows(at, "s2t_step_l1", translate(load(), "人咬狗").decoder.steps[0].cross_weights[0])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hosted_the_demo_says_retraining_is_off_and_offers_nothing_to_press(monkeypatch, lang):
    monkeypatch.setenv(HOSTED_ENV, "1")
    at = open_folded(opened(lang, part="learned"), PANEL)
    assert t_plain("tr.train_hosted", lang) in captions(at)
    keys = {w.key for kind in ("button", "slider", "selectbox", "number_input") for w in at.get(kind)}
    assert not {k for k in keys if k and k.startswith("s2s_train")}, keys
    assert output(at) == "good morning"


def test_a_second_run_waits_while_one_holds_the_process(not_hosted):
    from ui.training import TRAINING

    at = opened("zh", part="learned")
    assert TRAINING.acquire(blocking=False)
    try:
        train_on_page(at, **TINY)
    finally:
        TRAINING.release()
    assert alerts(at, "warning") == [t_plain("tr.train_busy", "zh")]
    assert LIVE not in at.session_state and not progress(at) and output(at) == "good morning"


def test_a_run_over_the_limit_is_refused_before_anything_trains(not_hosted):
    at = open_folded(opened(part="learned"), PANEL)
    at.slider(key="s2s_train_epochs").set_value(200)
    at.selectbox(key="s2s_train_d").set_value(48)
    at.selectbox(key="s2s_train_layers").set_value(2).run()
    ok(at)
    found = alerts(at, "error")
    assert len(found) == 1 and found[0].startswith("That run is too long") and f"{LIVE_MAX_WORK}" in found[0], found
    assert "Take at most 133 epochs" in found[0]  # 12,800 // (48 × 2)
    assert not [b for b in at.button if b.key == "s2s_train_go"]


def test_the_training_box_keeps_its_settings_once_closed_and_opened_again(not_hosted):
    """The box's widgets are made only while it is open (Streamlit forgets a widget it does not make): closed and
    opened again, they hold what was chosen, and a Train click the box was closed after starts nothing."""
    from support.apptest import click_expander

    at = open_folded(opened(part="learned"), PANEL)
    at.slider(key="s2s_train_epochs").set_value(30)
    at.selectbox(key="s2s_train_d").set_value(48)
    at.number_input(key="s2s_train_seed").set_value(7).run()
    ok(at)
    at.session_state["s2s_train_asked"] = LiveSettings(**TINY)  # a click whose run the closing box overtook
    click_expander(at, PANEL, opened=False)
    ok(at)
    assert not [s for s in at.get("slider") if s.key == "s2s_train_epochs"] and LIVE not in at.session_state
    open_folded(at, PANEL)
    ok(at)
    assert (at.slider(key="s2s_train_epochs").value, at.selectbox(key="s2s_train_d").value,
            at.number_input(key="s2s_train_seed").value) == (30, 48, 7)
    assert LIVE not in at.session_state and not progress(at)  # the dropped click trained nothing
    assert not at.warning, [w.value for w in at.warning]  # no "set by both a default and Session State" note


def test_the_bounds_are_checked_in_the_core():
    config, tc = live_plan(LiveSettings(epochs=30, d_model=48, layers=2, seed=7))
    assert (config.d_model, config.d_ff, config.num_heads, config.encoder_layers, config.decoder_layers) == (
        48, 96, 4, 2, 2)
    assert (tc.epochs, tc.seed) == (30, 7)
    for bad in ({"epochs": 9}, {"epochs": 201}, {"d_model": 20}, {"layers": 3}, {"seed": -1}):
        with pytest.raises(InputError) as info:
            live_plan(LiveSettings(**{**TINY, **bad}))
        assert info.value.code == "tr_train_bounds", bad
    with pytest.raises(InputError) as info:
        live_plan(LiveSettings(epochs=200, d_model=48, layers=2))
    assert info.value.code == "tr_train_too_big" and info.value.params["most"] == 133


def test_the_same_settings_train_the_same_model_bit_for_bit():
    seen: list[tuple[int, int, float]] = []
    first = train_live(LiveSettings(**TINY), on_epoch=lambda *a: seen.append(a))
    again = train_live(LiveSettings(**TINY))
    assert first.losses == again.losses  # exact, not approximately
    assert [s[:2] for s in seen] == [(e, 10) for e in range(1, 11)] and tuple(s[2] for s in seen) == first.losses
    a, b = first.translator.weights.arrays, again.translator.weights.arrays
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    other = train_live(LiveSettings(**{**TINY, "seed": 1}))
    assert other.losses != first.losses  # the seed matters: the test could fail
