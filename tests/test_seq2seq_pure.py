"""The Encoder–decoder page without Streamlit (selfattn/seq2seq/): its View and link, and its numbers held to
``torch.nn.Transformer`` built by torch itself (its own initial weights read into the page's tables as text)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
from torch import nn

from selfattn.bench.cache import step_costs
from selfattn.display.numbers import editor_text
from selfattn.errors import InputError
from selfattn.seq2seq import view as sv
from selfattn.seq2seq.compute import compute, compute_view, result_view
from selfattn.seq2seq.link import decode, encode
from selfattn.seq2seq.text import cost_numbers, masked

ACTS = {"relu": "relu", "gelu": "gelu", "gelu_tanh": nn.GELU(approximate="tanh")}


def rows(matrix) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(editor_text(float(v)) for v in row) for row in np.atleast_2d(matrix))


def torch_model(shown: sv.View, seed: int) -> nn.Transformer:
    """torch's own nn.Transformer at the view's sizes, every parameter drawn by torch (seeded), float64."""
    torch.manual_seed(seed)
    model = nn.Transformer(shown.d, shown.heads, shown.enc, shown.dec, shown.dff, dropout=0.0,
                           activation=ACTS[shown.act], batch_first=True, norm_first=shown.norm == "pre",
                           dtype=torch.float64)
    for layer in model.decoder.layers:  # torch 2.13's copies compute ReLU given a module (tests/test_decoder_core.py)
        if isinstance(layer._modules.get("activation"), nn.Module):
            layer.__dict__.pop("activation", None)
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(torch.round(torch.randn_like(p) * (0.3 if "norm" not in name else 0.2), decimals=2)
                    + (1.0 if name.endswith("norm1.weight") or name.endswith("norm2.weight")
                       or name.endswith("norm3.weight") else 0.0))
        model.encoder.norm.weight.fill_(1.0), model.encoder.norm.bias.fill_(0.0)  # the page keeps these at 1 and 0
        model.decoder.norm.weight.fill_(1.0), model.decoder.norm.bias.fill_(0.0)
    return model.train()


def edits_of(model: nn.Transformer, src: np.ndarray, tgt: np.ndarray) -> dict:
    """The model's weights as the page's tables, typed as text."""
    def t(x):
        return x.detach().numpy()

    def attention(module):
        w_q, w_k, w_v = np.split(t(module.in_proj_weight), 3)
        b_q, b_k, b_v = np.split(t(module.in_proj_bias), 3)
        return (w_q.T, w_k.T, w_v.T, t(module.out_proj.weight).T), (b_q, b_k, b_v, t(module.out_proj.bias))

    edits = {"src": rows(src), "tgt": rows(tgt)}
    for k, layer in enumerate(model.encoder.layers, start=1):
        (wq, wk, wv, wo), biases = attention(layer.self_attn)
        edits.update({f"e{k}wq": rows(wq), f"e{k}wk": rows(wk), f"e{k}wv": rows(wv), f"e{k}wo": rows(wo),
                      f"e{k}b": rows(np.stack(biases)),
                      f"e{k}ln": rows(np.stack([t(layer.norm1.weight), t(layer.norm1.bias), t(layer.norm2.weight),
                                                t(layer.norm2.bias)])),
                      f"e{k}w1": rows(t(layer.linear1.weight).T), f"e{k}b1": rows(t(layer.linear1.bias)),
                      f"e{k}w2": rows(t(layer.linear2.weight).T), f"e{k}b2": rows(t(layer.linear2.bias))})
    for k, layer in enumerate(model.decoder.layers, start=1):
        (wq, wk, wv, wo), own = attention(layer.self_attn)
        (cq, ck, cv, co), cross = attention(layer.multihead_attn)
        edits.update({f"d{k}wq": rows(wq), f"d{k}wk": rows(wk), f"d{k}wv": rows(wv), f"d{k}wo": rows(wo),
                      f"d{k}cq": rows(cq), f"d{k}ck": rows(ck), f"d{k}cv": rows(cv), f"d{k}co": rows(co),
                      f"d{k}b": rows(np.stack([*own, *cross])),
                      f"d{k}ln": rows(np.stack([t(n.weight) if i == 0 else t(n.bias) for n in
                                                (layer.norm1, layer.norm2, layer.norm3) for i in (0, 1)])),
                      f"d{k}w1": rows(t(layer.linear1.weight).T), f"d{k}b1": rows(t(layer.linear1.bias)),
                      f"d{k}w2": rows(t(layer.linear2.weight).T), f"d{k}b2": rows(t(layer.linear2.bias))})
    return edits


VARIANTS = [sv.View(), sv.View(norm="pre", act="gelu"), sv.View(norm="pre", act="gelu_tanh", enc=2, dec=3, n=5, m=4,
                                                                d=8, heads=4, dff=16, seed=5),
            sv.View(act="gelu_tanh", enc=3, dec=2, n=1, m=6, d=6, heads=3, dff=12)]


@pytest.mark.parametrize("shown", VARIANTS, ids=lambda v: f"{v.norm}-{v.act}-{v.enc}+{v.dec}")
def test_every_number_equals_torch_s_own_transformer_holding_the_typed_weights(shown):
    model = torch_model(shown, seed=shown.enc * 10 + shown.dec)
    rng = np.random.default_rng(3)
    src, tgt = np.round(rng.normal(size=(shown.n, shown.d)), 2), np.round(rng.normal(size=(shown.m, shown.d)), 2)
    typed = dataclasses.replace(shown, edits=tuple(sorted(edits_of(model, src, tgt).items())))
    result = compute_view(typed)
    mask = nn.Transformer.generate_square_subsequent_mask(shown.m, dtype=torch.float64)
    with torch.no_grad():
        s, t = torch.from_numpy(src)[None], torch.from_numpy(tgt)[None]
        memory = model.encoder(s)[0].numpy()
        out = model(s, t, tgt_mask=mask)[0].numpy()
        first = model.decoder.layers[0]
        y = first.norm1(t) if first.norm_first else t
        _, self_w = first.self_attn(y, y, y, attn_mask=mask, need_weights=True, average_attn_weights=False)
    assert np.abs(result.trace.memory - memory).max() < 1e-12
    assert np.abs(result.trace.outputs - out).max() < 1e-12
    assert np.abs(result.trace.decoder_layers[0].self_weights - self_w[0].numpy()).max() < 1e-12
    assert result.torch_difference < 1e-12 and result.cache_difference < 1e-12
    assert result.trace.decoder_layers[0].cross_weights.shape == (shown.heads, shown.m, shown.n)
    np.testing.assert_allclose(result.cache.outputs, out, atol=1e-12)  # generation row by row gives the same rows


def test_the_seeded_tables_fit_the_sizes_and_the_result_is_kept_per_view():
    shown = sv.View(n=5, m=2, d=6, heads=3, dff=7, enc=2, dec=2)
    for table in sv.table_ids(shown.enc, shown.dec):
        assert np.array(sv.base_rows(shown, table), dtype=object).shape == sv.table_shape(shown, table), table
    assert sv.table_shape(shown, "d1b") == (8, 6) and sv.table_shape(shown, "e2ln") == (4, 6)
    first = compute(shown)
    assert compute(dataclasses.replace(shown, focus=1, step=1, layer=1, edit="e2")) is first  # drawn, not computed
    assert result_view(dataclasses.replace(shown, focus=1)) == result_view(shown)
    assert compute(dataclasses.replace(shown, seed=1)) is not first


def test_masks_costs_and_heads_as_the_page_draws_them():
    r = compute_view(sv.View(m=4))
    self_attention = r.trace.decoder_layers[0].self_attention
    drawn = masked(self_attention.weights, self_attention.allowed)
    # a masked cell is the mask, its weight 0 (−∞ is the score before softmax, issue 50 item 3)
    assert drawn.mask[0, 0, 1] and drawn.data[0, 0, 1] == 0.0 and not drawn.mask[0, 3, 0]
    assert drawn[0, 3, 0] == self_attention.weights[0, 3, 0]
    assert np.all(self_attention.weights[:, np.triu_indices(4, 1)[0], np.triu_indices(4, 1)[1]] == 0.0)
    words = cost_numbers(r.costs)
    last = step_costs(256, 4, 4, 8, 1)[-1]
    assert words["cached"] == f"{last.cached:,}" and float(words["ratio"]) == pytest.approx(last.uncached / last.cached, abs=0.05)


def test_a_bad_cell_or_size_is_named():
    shown = sv.View()
    bad = dataclasses.replace(shown, edits=(("d1cq", (("1", "x", "0", "0"),) + sv.base_rows(shown, "d1cq")[1:]),))
    with pytest.raises(InputError) as caught:
        compute_view(bad)
    assert caught.value.code.startswith("cell_") and "cross" in caught.value.params["matrix"]
    assert caught.value.params["row"] == "1" and caught.value.params["col"] == "2"
    with pytest.raises(InputError) as caught:
        compute_view(sv.View(d=4, heads=3))
    assert caught.value.code == "heads_divide" or "heads" in caught.value.code
    with pytest.raises(InputError):
        compute_view(sv.View(n=9))


def test_a_view_survives_its_link_and_a_bad_link_is_named():
    shown = sv.View(n=5, m=2, enc=2, seed=9, norm="pre", step=1, focus=1, edit="e2",
                    edits=(("e2w1", (("9",) * 8,) * 4), ("tgt", (("1", "2", "3", "4"), ("5", "6", "7", "8")))))
    assert decode(encode(shown)) == (shown, {})
    opened, bad = decode({"n": "2", "dd3cq": "0.0.9", "te1wq": "1.2", "focus": "5", "edit": "d4", "heads": "3"})
    assert set(bad) == {"dd3cq", "te1wq", "focus", "edit", "heads"}
    assert opened.focus == 0 and opened.edit == "d1" and opened.heads == 2 and not opened.edits
