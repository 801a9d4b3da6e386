"""The Transformer block page's words and written-out arithmetic, from its traces (no Streamlit)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from selfattn.core.block import BatchTrace, LayerTrace, NormTrace
from selfattn.display.numbers import step_text, step_vector_text
from selfattn.i18n import t, t_plain

SHORT = 8  # a vector longer than this is written with "…" in the LayerNorm lines


def formulas(lang: str) -> dict[str, str]:
    """The two orders of a layer, typeset (LaTeX), each sub-layer and norm as the page's flow names them."""
    del lang  # the same symbols in both languages
    return {
        "post": r"\begin{aligned}h &= \mathrm{LayerNorm}_1\big(x + \mathrm{MHA}(x)\big)\\"
                r"y &= \mathrm{LayerNorm}_2\big(h + \mathrm{FFN}(h)\big)\end{aligned}",
        "pre": r"\begin{aligned}h &= x + \mathrm{MHA}\big(\mathrm{LayerNorm}_1(x)\big)\\"
               r"y &= h + \mathrm{FFN}\big(\mathrm{LayerNorm}_2(h)\big)\end{aligned}",
    }


@dataclass(frozen=True, eq=False)
class Step:
    """One box of the flow: its number, a map of its numbers, and how it was made from the boxes before."""

    key: str  # its place, also the CSV's name and the map's link (row:<key>)
    number: str  # ①, ②, …
    title: str
    formula: str  # how it is made from earlier boxes, by their numbers: "⑥ = ① + ⑤"
    caption: str
    matrix: np.ndarray | None  # (n, width); None for the heads' weights and Q, K, V (drawn from the trace)
    role: str = "values"
    column_prefix: str = "x"
    kind: str = "map"  # "map", "qkv" (three maps) or "heads" (one map per head)


NUMBERS = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮"
ACT_SYMBOL = {"relu": "ReLU", "gelu": "GELU", "gelu_tanh": "GELU_tanh"}  # in a formula: ⑨ = GELU_tanh(⑧)
SIMILAR_BY = 0.01  # a change of the mean cosine similarity smaller than this is "hardly changed"


def similarity_change(similarity: np.ndarray) -> str:
    """How the tokens' mean cosine similarity went from the input to the last layer: "up", "down" or "flat"
    (changed by less than :data:`SIMILAR_BY`), which the sentence under the chart follows."""
    change = float(similarity[-1] - similarity[0])
    return "flat" if abs(change) < SIMILAR_BY else "up" if change > 0 else "down"
SHARED_HELP = {"residual1": "residual", "residual2": "residual", "norm1": "norm", "norm2": "norm"}


def flow_steps(trace: LayerTrace, lang: str) -> list[Step]:
    """The boxes of one layer in the order it computes them (post-LN and pre-LN differ), numbered, each with the
    formula that makes it from the boxes before: the residual connections are the sums of two earlier numbers."""
    def w(key: str, **fmt) -> str:
        return t_plain(f"tb.step_{key}", lang, **fmt)

    hd, d_ff = trace.queries.shape[2], trace.ff_pre.shape[1]
    act = t_plain(f"tb.act_{trace.activation}", lang)
    per_head = t_plain("tb.heads_formula", lang)
    steps: list[Step] = []

    def add(key: str, formula: str, matrix: np.ndarray | None, **extra) -> str:
        number = NUMBERS[len(steps)]
        title_key = extra.pop("title_key", key)
        help_fmt = extra.pop("help_fmt", {})
        help_key = extra.pop("help_key", SHARED_HELP.get(title_key, title_key))
        steps.append(Step(key, number, w(title_key), formula.format(n=number), w(f"{help_key}_help", **help_fmt),
                          matrix, **extra))
        return number

    masked = not bool(trace.allowed.all())  # a causal or padding mask keeps some query from some key
    mask = " + M" if masked else ""
    x = add("input", "{n} = x", trace.x)
    attended = add("norm1", "{n} = LayerNorm₁(" + x + ")", trace.norm1.outputs) if trace.norm_first else x
    qkv = add("qkv", "Q, K, V = " + attended + " W + b", None, kind="qkv", help_fmt={"hd": hd})
    heads = add("heads", "{n} = softmax(QKᵀ/√" + str(hd) + mask + "), Q, K of " + qkv + ", " + per_head, None,
                kind="heads", role="weights", help_fmt={"hd": hd},
                help_key="heads_masked" if masked else "heads")
    concat = add("concat", "{n} = " + heads + " × V of " + qkv + ", " + per_head, trace.concat,
                 column_prefix="c")
    projected = add("projected", "{n} = " + concat + " W_o + b_o", trace.projected, column_prefix="a")
    h = add("residual1", "{n} = " + x + " + " + projected, trace.residual1)
    if trace.norm_first:
        ff_in = add("norm2", "{n} = LayerNorm₂(" + h + ")", trace.norm2.outputs)
    else:
        h = ff_in = add("norm1", "{n} = LayerNorm₁(" + h + ")", trace.norm1.outputs)
    pre = add("ff_pre", "{n} = " + ff_in + " W_1 + b_1", trace.ff_pre, column_prefix="f", help_fmt={"d_ff": d_ff})
    activated = add("ff_act", "{n} = " + ACT_SYMBOL[trace.activation] + "(" + pre + ")", trace.ff_act, column_prefix="f",
                    help_fmt={"act": act})
    ff_out = add("ff_out", "{n} = " + activated + " W_2 + b_2", trace.ff_out)
    output = " = " + w("output")
    if trace.norm_first:
        add("residual2", "{n} = " + h + " + " + ff_out + output, trace.residual2, role="outputs", column_prefix="y")
    else:
        total = add("residual2", "{n} = " + h + " + " + ff_out, trace.residual2)
        add("norm2", "{n} = LayerNorm₂(" + total + ")" + output, trace.norm2.outputs, role="outputs",
            column_prefix="y")
    return steps


def _vector(values: np.ndarray) -> str:
    if len(values) <= SHORT:
        return step_vector_text(values)
    head = step_vector_text(values[:3])[:-1]
    return f"{head}, …, {step_text(values[-1])}]"


def norm_lines(norm: NormTrace, i: int) -> list[str]:
    """LayerNorm of row ``i`` written out: z, μ, σ², (z − μ)/√(σ² + ε), · γ + β."""
    z = norm.inputs[i]
    d = len(z)
    terms = " + ".join(step_text(v) for v in z) if d <= SHORT else f"{step_text(z[0])} + … + {step_text(z[-1])}"
    squares = (" + ".join(f"({step_text(v)} − {step_text(norm.mean[i])})²" for v in z[:3])
               + (" + …" if d > 3 else ""))
    root = float(np.sqrt(norm.variance[i] + norm.eps))
    return [
        f"z = {_vector(z)}",
        f"μ = ({terms}) / {d} = {step_text(norm.mean[i])}",
        f"σ² = ({squares}) / {d} = {step_text(norm.variance[i])}",
        f"√(σ² + ε) = √({step_text(norm.variance[i])} + {norm.eps:g}) = {step_text(root)}",
        f"(z − μ) / √(σ² + ε) = {_vector(norm.normalised[i])}",
        f"· γ + β = {_vector(norm.normalised[i])} · {_vector(norm.gamma)} + {_vector(norm.beta)}",
        f"= {_vector(norm.outputs[i])}",
    ]


def batch_lines(batch: BatchTrace, asked: tuple[int, ...], maxlen: int, lang: str) -> list[str]:
    """One line per sequence: its length, whether it was cut, how many pad positions it got."""
    n = batch.inputs.shape[1]
    lines = []
    for b, (length, cut) in enumerate(zip(batch.lengths, batch.truncated)):
        key = "tb.batch_line_cut" if cut else "tb.batch_line"
        lines.append(t_plain(key, lang, b=b + 1, asked=asked[b], length=length, pad=n - length, maxlen=maxlen))
    return lines


def similarity_spec(similarity: np.ndarray, lang: str) -> dict:
    """A Vega-Lite line chart: the tokens' mean cosine similarity, the input and then after each layer."""
    rows = [{"step": t_plain("tb.sim_input", lang) if k == 0 else t_plain("tb.sim_layer", lang, k=k),
             "order": k, "similarity": round(float(v), 4)} for k, v in enumerate(similarity)]
    title = t_plain("tb.sim_axis", lang)
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "data": {"values": rows}, "width": 420, "height": 180,
        "mark": {"type": "line", "point": True},
        "encoding": {
            "x": {"field": "step", "type": "ordinal", "sort": {"field": "order"}, "title": None,
                  "axis": {"labelAngle": 0}},
            "y": {"field": "similarity", "type": "quantitative", "title": title, "scale": {"domain": [-1, 1]}},
            "tooltip": [{"field": "step", "title": " "}, {"field": "similarity", "title": title, "format": ".4f"}],
        },
        "usermeta": {"width_px": 480},
    }


__all__ = ["Step", "batch_lines", "flow_steps", "formulas", "norm_lines", "similarity_spec", "t"]


def settings_text(link: str, link_short: bool, shown, *, edited: bool, lang: str) -> str:
    """The block ZIP's settings.txt: the view's link and every choice that made its numbers, one line each (as
    the Playground's ZIP has).

    Args:
        link, link_short: the view's link, and whether its tables were left out of it (too long).
        shown: the page's :class:`selfattn.block.view.View`.
        edited: whether any table differs from the preset's.
    """
    from selfattn.i18n import LANGS

    def line(key: str, **params) -> str:
        return t_plain(key, lang, **params)

    def setting(name_key: str, value) -> str:
        return line("common.settings_line", name=line(name_key), value=value)

    on_off = {True: line("common.settings_on"), False: line("common.settings_off")}
    lines = [line("tb.settings_title"), "", line("common.settings_link", link=link)]
    if link_short:
        lines.append(line("common.settings_link_short"))
    if shown.source == "real":
        lines += [line("tb.settings_real", model="all-MiniLM-L6-v2", layer=shown.rlayer + 1),
                  setting("tb.settings_text", shown.text)]
    else:
        lines += [setting("tb.settings_preset", line(f"tb.preset_{shown.preset}")),
                  line("tb.settings_edited", files="x.csv, layer*_*.csv") if edited else line("tb.settings_preset_tables"),
                  setting("tb.settings_seed", shown.seed),
                  line("tb.settings_sizes", n=shown.n, d=shown.d, h=shown.heads, d_ff=shown.dff, layers=shown.layers),
                  setting("tb.norm", line(f"tb.norm_{shown.norm}")), setting("tb.act", line(f"tb.act_{shown.act}")),
                  setting("tb.eps", shown.eps), setting("tb.causal", on_off[shown.causal]),
                  setting("tb.final", on_off[shown.final and shown.norm == "pre"]),
                  setting("tb.pos", line(f"tb.pos_{shown.pos}")),
                  setting("tb.batch", line("tb.settings_batch", lengths=shown.lengths, maxlen=shown.maxlen)
                          if shown.batch else on_off[False])]
    lines.append(line("common.settings_lang", language=LANGS[lang]))
    return "\n".join(lines) + "\n"
