"""Writing poems with the shipped poet: the form every time, the acrostic and first line kept, every step's trace,
the checks against the full pass and torch, the errors by name, and the command line's JSON."""

import json
from pathlib import Path

import numpy as np
import pytest

from selfattn.errors import InputError
from selfattn.poet import (MAX_SAMPLES, as_json, cache_check, checkpoint_poets, corpus, generate, load_poet,
                           step_cache_difference, torch_check)
from selfattn.poet.__main__ import main
from selfattn.poet.weights import COMMA, EOS, STOP


@pytest.fixture(scope="module")
def poet():
    return load_poet()


KNOBS = [{}, {"greedy": True}, {"temperature": 2.5}, {"temperature": 0.3, "top_k": 3}, {"top_p": 0.5},
         {"acrostic": "春夏秋冬"}, {"acrostic": "春夏秋冬风花雪月"}, {"first": "白日依山尽"}, {"lines": 8},
         {"first": "春眠不觉晓", "acrostic": "春江花月"}]


@pytest.mark.parametrize("knobs", KNOBS, ids=[str(k) for k in KNOBS])
def test_every_poem_has_the_form(poet, knobs):
    for seed in range(2):
        poem = generate(poet, seed=seed, **knobs)
        assert corpus.regulated(poem.text), poem.text
        assert poem.text == "".join(line + ("，" if i % 2 == 0 else "。") for i, line in enumerate(poem.lines))
        assert len(poem.steps) == len(poem.text) + 1 and poem.steps[-1].token == EOS
        if "acrostic" in knobs:
            assert [line[0] for line in poem.lines] == list(knobs["acrostic"])
        if "first" in knobs:
            assert poem.lines[0] == knobs["first"]
        if "lines" in knobs:
            assert len(poem.lines) == knobs["lines"]


def test_the_steps_say_how_each_token_came(poet):
    poem = generate(poet, acrostic="春夏秋冬", seed=3, temperature=0.9, top_k=20)
    kinds = {(s.place, s.kind) for s in poem.steps[:-1]}
    assert kinds == {(0, "given"), (1, "drawn"), (2, "drawn"), (3, "drawn"), (4, "drawn"), (5, "placed")}
    for s in poem.steps:
        assert s.position == poem.steps.index(s) + 1
        assert [w.shape for w in s.attention] == [(poet.config.num_heads, s.position)] * poet.config.layers
        for w in s.attention:
            np.testing.assert_allclose(w.sum(axis=1), 1.0)
        assert s.read.cache.keys[0].shape == (poet.config.num_heads, s.position, 16)
        if s.kind == "placed":
            assert s.sampling is None and s.token in (COMMA, STOP, EOS)
        else:
            assert s.sampling.final[s.token_id] > 0 or s.kind == "given"
            assert s.sampling.kept_top_k.sum() == 20
            assert (s.draw is None) == (s.kind == "given")
    assert 0 < poem.steps[5].probability <= 1  # what the model gave the first "，"


def test_the_same_seed_writes_the_same_poem_and_greedy_ignores_it(poet):
    assert generate(poet, seed=7).text == generate(poet, seed=7).text
    assert len({generate(poet, seed=s).text for s in range(4)}) == 4
    assert generate(poet, greedy=True, seed=1).text == generate(poet, greedy=True, seed=2).text


def test_the_cached_steps_equal_the_full_pass_and_torch(poet):
    poems = [generate(poet, seed=s) for s in range(2)]
    assert max(cache_check(poet, p) for p in poems) < 1e-12
    assert torch_check(poet, poems) < 1e-9


def test_each_step_s_cache_equals_the_full_pass_s_rows_and_a_wrong_row_shows(poet):
    import dataclasses

    from selfattn.poet.model import Cache

    poem = generate(poet, acrostic="春夏秋冬", seed=3)
    for index, s in enumerate(poem.steps):
        assert s.read.cache.length == s.position  # the cache holds every position read, <bos> first
        assert step_cache_difference(poet, poem, index) < 1e-12
    s = poem.steps[6]
    keys = list(s.read.cache.keys)
    keys[1] = keys[1].copy()
    keys[1][2, 3, 4] += 0.5  # one number of layer 2's cache, head 3, position 3
    wrong = dataclasses.replace(s, read=dataclasses.replace(s.read, cache=Cache(tuple(keys), s.read.cache.values)))
    broken = dataclasses.replace(poem, steps=(*poem.steps[:6], wrong, *poem.steps[7:]))
    assert abs(step_cache_difference(poet, broken, 6) - 0.5) < 1e-12


def test_nats_per_character_is_the_full_pass_s_loss_on_the_poem_s_characters(poet):
    from selfattn.core.attention import stable_softmax
    from selfattn.poet import forward
    from selfattn.poet.charts import character_steps, nats_per_character

    poem = generate(poet, acrostic="春夏秋冬", seed=5)
    steps = character_steps(poem)
    assert len(steps) == 20 and all(s.place < 5 for s in steps)
    full = forward(poet, poem.ids[:-1])  # row t: the next token's logits after reading ids 0..t
    expected = np.mean([-np.log(stable_softmax(full.logits[s.position - 1])[s.token_id]) for s in steps])
    assert abs(nats_per_character(poem) - expected) < 1e-9


def test_the_record_and_checkpoints_are_shipped(poet):
    record = poet.record
    held = record["held_out"]
    assert held["val_loss"] < held["baselines"]["unigram"] and held["baselines"]["bigram"] < held["baselines"]["unigram"]
    assert [look["val_loss"] for look in record["checkpoints"]][-1] == min(look["val_loss"] for look in record["checkpoints"])
    assert len(record["loss_curve"]) == record["steps"]
    poets = checkpoint_poets(poet)
    assert list(poets) == [look["step"] for look in record["checkpoints"]]
    assert poets[record["steps"]] is poet
    first = min(poets)
    seed = record["watched"]
    assert generate(poets[first], acrostic=seed["acrostic"], seed=seed["seed"]).text == record["checkpoints"][0]["poem"]
    shipped = [Path(corpus.HERE, name).stat().st_size for name in ("model.npz", "checkpoints.npz")]
    assert sum(shipped) <= 2_000_000


ERRORS = [
    ({"acrostic": ""}, "poet_empty"), ({"first": " ，"}, "poet_empty"),
    ({"acrostic": "春" * 10_000}, "poet_too_long"), ({"acrostic": "春夏🌸冬"}, "poet_not_han"),
    ({"first": "white"}, "poet_not_han"), ({"acrostic": "咖啡秋冬"}, "poet_unknown"),
    ({"acrostic": "春夏秋冬春夏秋"}, "poet_acrostic_length"), ({"first": "白日依山"}, "poet_first_length"),
    ({"first": "白日依山尽", "acrostic": "春夏秋冬"}, "poet_first_acrostic"), ({"lines": 6}, "poet_lines"),
    ({"acrostic": "春夏秋冬", "lines": 8}, "poet_lines"), ({"temperature": 0}, "poet_temperature"),
    ({"temperature": float("nan")}, "poet_temperature"), ({"temperature": "hot"}, "poet_temperature"),
    ({"top_k": 0}, "poet_top_k"), ({"top_k": 2.5}, "poet_top_k"), ({"top_p": 1.5}, "poet_top_p"),
    ({"top_p": 0}, "poet_top_p"), ({"seed": -1}, "poet_seed"), ({"seed": True}, "poet_seed"),
]


@pytest.mark.parametrize("knobs,code", ERRORS, ids=[c for _, c in ERRORS])
def test_bad_requests_are_refused_by_name(poet, knobs, code):
    with pytest.raises(InputError) as info:
        generate(poet, **knobs)
    assert info.value.code == code
    assert "{" not in str(info.value)


def test_the_messages_name_what_is_wrong(poet):
    with pytest.raises(InputError, match="咖 啡: not in the poems it learned from"):
        generate(poet, acrostic="咖啡秋冬")
    rare = next(ch for ch in sorted(corpus.corpus_chars()) if corpus.is_han(ch) and ch not in poet.vocab.index())
    with pytest.raises(InputError, match=f"{rare}: too rare") as info:
        generate(poet, first=rare + "日依山尽")
    assert info.value.code == "poet_rare"
    with pytest.raises(InputError, match="🌸: the poet writes Chinese characters only"):
        generate(poet, acrostic="春🌸秋冬")


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_line_prints_the_json_the_issue_gives(capsys):
    code, out, _ = run_cli(capsys, "--acrostic", "春夏秋冬", "--samples", "2", "--top-k", "30", "--seed", "5",
                           "--json")
    found = json.loads(out)
    assert code == 0 and set(found) == {"poems", "model", "torch_check"}
    assert [set(p) for p in found["poems"]] == [{"text", "lines"}] * 2
    assert all(corpus.regulated(p["text"]) and len(p["lines"]) == 4 for p in found["poems"])
    assert set(found["model"]) == {"parameters", "layers", "d_model", "heads", "val_loss", "corpus"}
    assert found["model"]["corpus"] == "poems.txt.xz" and (corpus.HERE / found["model"]["corpus"]).exists()
    assert 0 <= found["torch_check"] < 1e-9
    poet = load_poet()
    assert found["poems"][1]["text"] == generate(poet, acrostic="春夏秋冬", top_k=30, seed=6).text
    assert as_json(poet, [], None)["model"]["val_loss"] == found["model"]["val_loss"]


def test_the_command_line_writes_lines_and_refuses_by_name(capsys):
    code, out, _ = run_cli(capsys, "--first", "白日依山尽", "--greedy")
    assert code == 0 and out.splitlines()[0] == "白日依山尽，"
    code, out, err = run_cli(capsys, "--acrostic", "春🌸秋冬", "--lang", "zh")
    assert code == 2 and out == "" and "只写汉字" in err
    code, _, err = run_cli(capsys, "--samples", str(MAX_SAMPLES + 1))
    assert code == 2 and str(MAX_SAMPLES) in err
    code, _, err = run_cli(capsys, "--top-p", "x")
    assert code == 2 and "top-p" in err
