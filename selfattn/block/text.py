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
    """One box of the flow: a map of its numbers, and the arrow that leads to it."""

    key: str  # its place, also the CSV's name and the map's link (row:<key>)
    title: str
    caption: str
    arrow: str  # what was done to get here ("" for the first box)
    matrix: np.ndarray | None  # (n, width), or None for the heads (drawn from trace.weights)
    role: str = "values"
    column_prefix: str = "x"
    heads: bool = False


def flow_steps(trace: LayerTrace, lang: str) -> list[Step]:
    """The boxes of one layer in the order it computes them (post-LN and pre-LN differ)."""
    def w(key: str, **fmt) -> str:
        return t_plain(f"tb.step_{key}", lang, **fmt)

    def a(key: str, **fmt) -> str:
        return t_plain(f"tb.arrow_{key}", lang, **fmt)

    h, hd = trace.num_heads, trace.queries.shape[2]
    d_ff = trace.ff_pre.shape[1]
    steps = [Step("input", w("input"), w("input_help"), "", trace.x)]
    if trace.norm_first:
        steps.append(Step("norm1", w("norm1"), w("norm_help"), a("norm1"), trace.norm1.outputs))
    steps += [
        Step("heads", w("heads", h=h), w("heads_help", h=h, hd=hd), a("heads", h=h, hd=hd), None, heads=True),
        Step("concat", w("concat"), w("concat_help", h=h), a("concat"), trace.concat, column_prefix="c"),
        Step("projected", w("projected"), w("projected_help"), a("projected"), trace.projected, column_prefix="a"),
        Step("residual1", w("residual1"), w("residual_help"), a("residual1"), trace.residual1),
    ]
    if trace.norm_first:
        steps.append(Step("norm2", w("norm2"), w("norm_help"), a("norm2"), trace.norm2.outputs))
    else:
        steps.append(Step("norm1", w("norm1"), w("norm_help"), a("norm1_post"), trace.norm1.outputs))
    steps += [
        Step("ff_pre", w("ff_pre", d_ff=d_ff), w("ff_pre_help"), a("ff_pre", d_ff=d_ff), trace.ff_pre, column_prefix="f"),
        Step("ff_act", w("ff_act", act=t_plain(f"tb.act_{trace.activation}", lang)), w("ff_act_help"),
             a("ff_act", act=t_plain(f"tb.act_{trace.activation}", lang)), trace.ff_act, column_prefix="f"),
        Step("ff_out", w("ff_out"), w("ff_out_help"), a("ff_out"), trace.ff_out),
        Step("residual2", w("residual2"), w("residual_help"), a("residual2"), trace.residual2),
    ]
    if not trace.norm_first:
        steps.append(Step("norm2", w("norm2"), w("norm_help"), a("norm2"), trace.norm2.outputs))
    steps.append(Step("output", w("output"), w("output_help"), a("output"), trace.outputs, role="outputs",
                      column_prefix="y"))
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
