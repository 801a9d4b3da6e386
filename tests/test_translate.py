"""The tiny translator trained here (issue 40, items 1 to 3): its corpus, its committed files, inference on our core
held to torch's own modules, the command line, and the record of its training.

torch is the independent reference: the same float64 weights in ``nn.TransformerEncoderLayer`` /
``nn.TransformerDecoderLayer`` must give our core's logits to 1e-9 and the same words, on every corpus sentence.
The only training here is one tiny run (one epoch), twice, to pin determinism.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from selfattn.core.block import LayerParams
from selfattn.core.decoder import DecoderLayerParams, decode_with_cache, encoder_decoder
from selfattn.errors import InputError
from selfattn.i18n import LANGS, t_plain
from selfattn.translate import MAX_CHARS, as_json, corpus, load, torch_check, translate
from selfattn.translate import torch_model
from selfattn.translate.weights import MODEL_JSON, RECORD_PATH, WEIGHTS_PATH, Config

ROOT = Path(__file__).resolve().parents[1]
TOL = 1e-9
HELD_OUT = {"马追狗", "马追猫", "马追人", "马追鸟", "马追鱼", "狗看马", "猫看马", "人看马", "鸟看马", "鱼看马"}


@pytest.fixture(scope="module")
def translator():
    return load()


@pytest.fixture(scope="module")
def reference(translator):
    return torch_model.reference(translator.weights)


@pytest.fixture(scope="module")
def record() -> dict:
    return json.loads(RECORD_PATH.read_text(encoding="utf-8"))


def command(*args: str) -> subprocess.CompletedProcess:
    """``python -m selfattn.translate`` as typed, in a process of its own (the entry point, its exit status)."""
    return subprocess.run([sys.executable, "-m", "selfattn.translate", *args], cwd=ROOT, capture_output=True,
                          text=True, encoding="utf-8", timeout=120)


def cli(*args: str) -> subprocess.CompletedProcess:
    """The command's ``main`` with these arguments, in this process: what it prints on stdout and stderr, and the
    status it exits with. (Each process of its own imported numpy and torch again, about 3 s of CPU each: twelve a
    run; the two tests of ``command`` keep the entry point's guarantee, test_the_cli_prints_the_translation and
    test_the_command_exits_2_naming_unseen_characters.)"""
    from selfattn.translate.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return subprocess.CompletedProcess(["selfattn.translate", *args], status, out.getvalue(), err.getvalue())


# ── The corpus ─────────────────────────────────────────────────────────────────────────

def test_the_committed_corpus_is_what_the_script_writes():
    text = corpus.CORPUS_PATH.read_text(encoding="utf-8")
    assert text.splitlines()[0] == "zh\ten"
    assert corpus.read() == corpus.build()
    assert len({p.zh for p in corpus.read()}) == len(corpus.read())  # no sentence twice


def test_the_corpus_holds_the_greetings_and_the_whole_grid():
    pairs = {p.zh: p.en for p in corpus.read()}
    for zh, en in {"早上好": "good morning", "晚上好": "good evening", "你好": "hello", "谢谢": "thank you"}.items():
        assert pairs[zh] == en
    nouns = {"狗": "dog", "猫": "cat", "人": "man", "鸟": "bird", "鱼": "fish", "马": "horse"}
    verbs = {"咬": "bites", "追": "chases", "看": "sees", "喜欢": "likes", "怕": "fears"}
    grid = {s + v + o: f"the {nouns[s]} {verbs[v]} the {nouns[o]}"
            for s in nouns for v in verbs for o in nouns if s != o}
    assert len(grid) == 150
    assert {zh: pairs.get(zh) for zh in grid} == grid
    assert pairs["狗咬人"] == "the dog bites the man" and pairs["人咬狗"] == "the man bites the dog"


def test_exactly_the_ten_sentences_are_held_out_and_never_trained_on():
    pairs = corpus.read()
    assert {p.zh for p in pairs if p.held_out} == HELD_OUT
    from selfattn.translate.train import split

    training, held_out = split(pairs)
    assert {p.zh for p in held_out} == HELD_OUT and not HELD_OUT & {p.zh for p in training}
    assert len(training) + len(held_out) == len(pairs)


def test_training_is_deterministic_and_never_sees_the_held_out():
    """One epoch, twice: the same losses and weights, bit for bit; another seed differs; no held-out sentence."""
    from selfattn.translate.train import TrainConfig, train

    tiny = TrainConfig(epochs=1, checkpoints=2)
    first, second = train(Config(), tiny, show=False), train(Config(), tiny, show=False)
    other = train(Config(), TrainConfig(epochs=1, checkpoints=2, seed=1), show=False)
    assert first.losses == second.losses and len(first.losses) == 1
    assert all(np.array_equal(first.weights.arrays[k], second.weights.arrays[k]) for k in first.weights.arrays)
    assert other.losses != first.losses
    assert not HELD_OUT & set(first.trained_on) and len(first.trained_on) == len(corpus.read()) - len(HELD_OUT)
    assert [c["step"] for c in first.checkpoints] == [0, 10]  # 158 sentences in batches of 16


# ── The committed files ────────────────────────────────────────────────────────────────

def test_the_weights_are_small_float32_and_load_without_pickle():
    assert WEIGHTS_PATH.stat().st_size <= 2 * 1024 * 1024
    with np.load(WEIGHTS_PATH, allow_pickle=False) as npz:  # an object array would raise here
        dtypes = {npz[name].dtype for name in npz.files}
        names = set(npz.files)
    assert dtypes == {np.dtype(np.float32)}
    meta = json.loads(MODEL_JSON.read_text(encoding="utf-8"))
    model = torch_model.Seq2Seq(Config(**meta["config"]), load().vocab)
    assert names == set(model.state_dict())  # every parameter, nothing else


def test_the_vocabulary_covers_the_held_out_sentences_from_training_alone(translator):
    for p in corpus.read():
        assert set(corpus.source_tokens(p.zh)) <= set(translator.vocab.source)
        assert set(corpus.target_tokens(p.en)) <= set(translator.vocab.target)


def test_our_reading_of_the_weights_equals_the_core_s_own_torch_readers(translator, reference):
    for ours, layer in zip(translator.encoder, reference.encoder):
        theirs = LayerParams.from_torch(layer)
        assert all(np.array_equal(a, b) for a, b in zip(ours.arrays().values(), theirs.arrays().values()))
    for ours, layer in zip(translator.decoder, reference.decoder):
        theirs = DecoderLayerParams.from_torch(layer)
        for name in ("w_q", "c_w_k", "c_b_v", "ln3_gamma", "w_2", "b_1"):
            assert np.array_equal(getattr(ours, name), getattr(theirs, name)), name


# ── Inference on our core, against torch ───────────────────────────────────────────────

def test_our_core_translates_every_corpus_sentence_as_torch_does(translator, reference):
    worst, differ = 0.0, []
    for p in corpus.read():
        ours = translate(translator, p.zh)
        check = torch_check(translator, ours, reference)
        worst = max(worst, check.max_logit_difference)
        if not check.same_tokens:
            differ.append((p.zh, ours.tokens, check.torch_tokens))
    assert not differ
    assert worst < TOL


def test_the_trace_keeps_each_step(translator):
    t = translate(translator, "早上好")
    assert t.output == "good morning" and t.tokens == ("good", "morning") and t.finished
    assert t.source == ("早", "上", "好")
    n, steps = len(t.source), len(t.tokens) + 1  # the <eos> step too
    assert t.logits.shape == (steps, len(t.vocabulary)) and len(t.decoder.steps) == steps
    weights = t.cross_weights
    assert weights.shape == (translator.config.decoder_layers, translator.config.num_heads, 2, n)
    assert np.allclose(weights.sum(axis=-1), 1.0)
    # the last cached pass is the whole decoder: row t equals the full causal pass, and gives step t's logits
    rows = translator.rows(translator.tgt_embed, list(t.decoder_input))
    full = encoder_decoder(translator.rows(translator.src_embed, list(t.source_ids)), rows, translator.encoder,
                           translator.decoder, **translator.settings)
    assert np.max(np.abs(full.outputs @ translator.w_out + translator.b_out - t.logits)) < 1e-12
    assert np.max(np.abs(full.decoder_layers[-1].cross_weights[:, :2] - weights[-1])) < 1e-12
    cached = decode_with_cache(rows, t.encoder.outputs, translator.decoder, **translator.settings)
    assert np.array_equal(cached.outputs, t.decoder.outputs)
    assert np.allclose(t.probabilities.sum(axis=1), 1.0) and np.all(t.probabilities[:, :2] == 0.0)  # <pad>, <bos>


def test_word_order_changes_the_translation(translator):
    assert translate(translator, "狗咬人").output == "the dog bites the man"
    assert translate(translator, "人咬狗").output == "the man bites the dog"
    assert translate(translator, "狗 咬 人").output == "the dog bites the man"  # spaces are not characters


def test_sampling_is_seeded_and_checked_against_torch_by_the_same_rule(translator, reference):
    hot = [translate(translator, "狗咬人", temperature=3.0, seed=s) for s in range(6)]
    again = translate(translator, "狗咬人", temperature=3.0, seed=0)
    assert again.tokens == hot[0].tokens
    assert len({t.tokens for t in hot}) > 1  # hot enough that draws differ
    for t in hot[:3]:
        check = torch_check(translator, t, reference)
        assert check.same_tokens and check.max_logit_difference < TOL
    cold = translate(translator, "狗咬人", temperature=1e-3, seed=5)
    assert cold.tokens == translate(translator, "狗咬人").tokens


@pytest.mark.parametrize("typed", ["早上好！", "早上好!", "早上好。", "，早上好？", "早上好 ...", "早、上；好：", "早上好!?"])
def test_punctuation_a_keyboard_types_is_left_out_as_the_corpus_has_none(translator, typed):
    plain = translate(translator, "早上好")
    found = translate(translator, typed)
    assert found.source == plain.source and found.output == "good morning"
    assert np.array_equal(found.logits, plain.logits)
    assert found.left_out == tuple(ch for ch in typed if ch in corpus.PUNCTUATION) and found.left_out
    assert found.in_training and not plain.left_out


def test_only_punctuation_is_empty(translator):
    with pytest.raises(InputError) as caught:
        translate(translator, "！？。")
    assert caught.value.code == "tr_empty"


@pytest.mark.parametrize("text,trained", [
    ("早上好", True), ("谢谢", True), ("狗咬人", True), ("狗 咬 人！", True),
    ("马追狗", False),  # held out of training: in the corpus, never trained on
    ("天气很好", None), ("狗", None), ("人人人", None),  # known characters in an order it never saw
])
def test_whether_the_sentence_was_in_the_training_set(translator, text, trained):
    """The model was trained on the corpus less the held-out sentences (``train.split``): ``in_training`` says so,
    whatever it writes for the others (天气很好 gets a confident "see you tomorrow")."""
    from selfattn.translate.train import split

    training, _ = split(corpus.read())
    found = translate(translator, text)  # every character known: no error
    assert found.in_training is bool(trained)
    assert found.in_training == ("".join(found.source) in {p.zh for p in training})
    assert corpus.training_size() == len(training) == 158
    pair = corpus.find(text)
    assert (pair is not None and pair.held_out) == (trained is False)


# ── Bad input, named in both languages ──────────────────────────────────────────────────

@pytest.mark.parametrize("text,code,named", [
    ("龙咬人", "tr_unseen", "龙"), ("狗咬🙂", "tr_unseen", "🙂"), ("dog", "tr_unseen", "d o g"),
    ("", "tr_empty", None), ("   ", "tr_empty", None), ("狗" * 10_000, "tr_too_long", str(MAX_CHARS)),
])
def test_bad_text_raises_a_named_error_in_both_languages(translator, text, code, named):
    with pytest.raises(InputError) as caught:
        translate(translator, text)
    error = caught.value
    assert error.code == code
    messages = {lang: t_plain(f"err.{code}", lang, **error.params) for lang in LANGS}
    assert messages["en"] != messages["zh"] and str(error) == messages["en"]
    if named:
        assert all(named in message for message in messages.values()), messages
    if code == "tr_unseen":
        assert error.params["chars"] == named and "狗" not in error.params["chars"]  # only the unseen, each once


@pytest.mark.parametrize("temperature", [0, -1, float("nan"), float("inf"), 1e6, "hot"])
def test_a_bad_temperature_is_refused(translator, temperature):
    with pytest.raises(InputError) as caught:
        translate(translator, "狗咬人", temperature=temperature)
    assert caught.value.code == "tr_temperature"
    assert all(t_plain("err.tr_temperature", lang, **caught.value.params) for lang in LANGS)


def test_missing_files_are_named(tmp_path):
    with pytest.raises(InputError) as caught:
        load(tmp_path / "model.npz", MODEL_JSON)
    assert caught.value.code == "tr_no_model" and "model.npz" in t_plain("err.tr_no_model", "zh", **caught.value.params)


# ── The command line ────────────────────────────────────────────────────────────────────

def test_the_cli_prints_the_translation():
    done = command("早上好")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "good morning\n" and done.stderr == ""


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_cli_warns_on_stderr_when_the_sentence_was_not_trained_on(lang):
    done = cli("--lang", lang, "天气很好")
    assert done.returncode == 0 and done.stdout == "see you tomorrow\n"  # what it says, confidently
    assert done.stderr.strip() == t_plain("tr.cli_new_sentence", lang, count=158)
    assert cli("--lang", lang, "早上好！").stdout == "good morning\n"


@pytest.mark.parametrize("text,trained", [("狗咬人", True), ("狗咬人！", True), ("天气很好", False), ("马追狗", False)])
def test_the_cli_json_says_whether_the_sentence_was_in_training(text, trained):
    done = cli("--json", text)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["in_training"] is trained


def test_the_cli_json_has_the_trace_s_shapes_and_torch_s_verdict(translator):
    done = cli("--json", "狗咬人")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["source"] == ["狗", "咬", "人"]
    assert found["output"] == "the dog bites the man" and found["tokens"] == found["output"].split()
    weights = np.array(found["cross_weights"])
    c = translator.config
    assert weights.shape == (c.decoder_layers, c.num_heads, len(found["tokens"]), len(found["source"]))
    assert np.allclose(weights.sum(axis=-1), 1.0)
    assert found["torch_check"]["same_tokens"] is True and found["torch_check"]["max_logit_difference"] < TOL
    assert found["in_training"] is True
    assert found == json.loads(json.dumps(as_json(translate(translator, "狗咬人"),
                                                  torch_check(translator, translate(translator, "狗咬人")))))


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_cli_names_unseen_characters_in_the_chosen_language(lang):
    done = cli("--lang", lang, "龙咬人")
    assert done.returncode == 2 and done.stdout == ""
    params = {"chars": "龙", "known": " ".join(load().vocab.source[1:])}
    assert done.stderr.strip() == t_plain("err.tr_unseen", lang, **params)


def test_the_command_exits_2_naming_unseen_characters():
    done = command("--lang", "zh", "龙咬人")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == cli("--lang", "zh", "龙咬人").stderr.strip() != ""


# ── The record of training ─────────────────────────────────────────────────────────────

def test_the_recorded_held_out_accuracy_is_what_the_committed_model_gives(translator, record):
    held = [p for p in corpus.read() if p.held_out]
    outputs = {p.zh: translate(translator, p.zh).output for p in held}
    accuracy = sum(outputs[p.zh] == p.en for p in held) / len(held)
    assert record["held_out"]["accuracy"] == accuracy
    assert {r["zh"]: r["output"] for r in record["held_out"]["results"]} == outputs
    assert record["sentences"] == {"train": len(corpus.read()) - len(held), "held_out": len(held)}


def test_the_record_has_about_twenty_checkpoints_whose_attention_fits(translator, record):
    checkpoints = record["checkpoints"]
    c = translator.config
    assert 15 <= len(checkpoints) <= 25
    steps = [point["step"] for point in checkpoints]
    assert steps[0] == 0 and steps == sorted(set(steps))
    assert len(record["loss_curve"]) == record["settings"]["training"]["epochs"]
    assert record["settings"]["model"] == {**record["settings"]["model"], **{"d_model": c.d_model,
                                                                            "num_heads": c.num_heads}}
    for point in checkpoints:
        assert set(point["sentences"]) == set(record["watched"])
        for zh, seen in point["sentences"].items():
            weights = np.array(seen["cross_weights"])
            assert seen["source"] == corpus.source_tokens(zh)
            assert weights.shape == (c.decoder_layers, c.num_heads, len(seen["tokens"]), len(seen["source"])), zh
            assert np.allclose(weights.sum(axis=-1), 1.0, atol=1e-3)
    last = checkpoints[-1]["sentences"]
    for zh in record["watched"]:  # the last checkpoint is the committed model
        now = translate(translator, zh)
        assert last[zh]["tokens"] == list(now.tokens)
        assert np.max(np.abs(np.array(last[zh]["cross_weights"]) - now.cross_weights)) < 1e-4  # float32 files
    assert HELD_OUT & set(record["watched"])  # one watched sentence was never trained on
