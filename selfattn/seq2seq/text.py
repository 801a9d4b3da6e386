"""The Encoder–decoder page's words and charts that follow its numbers (plain Python, no Streamlit)."""

from __future__ import annotations

import numpy as np

from selfattn.bench.cache import StepCost
from selfattn.core.heads import merge_heads
from selfattn.display.charts import masked_weights
from selfattn.display.numbers import step_text, step_vector_text
from selfattn.i18n import t_plain


def masked(weights: np.ndarray, allowed: np.ndarray) -> np.ma.MaskedArray:
    """(h, m, m) weights with the mask (:func:`selfattn.display.charts.masked_weights`): 0 where the mask forbids, drawn
    as masked; −∞ is the score there before softmax, not the weight."""
    return masked_weights(weights, allowed)


def merged(per_head: np.ndarray) -> np.ndarray:
    """(h, rows, head_dim) as (rows, d_model): the heads side by side."""
    return merge_heads(per_head)


def focus_lines(cross, focus: int, src_tokens: list[str], tgt_token: str, lang: str) -> list[str]:
    """For the target row ``focus``: each head's query and its weights over the source, and which source token it
    reads most (computed, not assumed)."""
    lines = []
    for h in range(cross.weights.shape[0]):
        row = cross.weights[h, focus]
        lines.append(t_plain("s2s.focus_line", lang, h=h + 1, q=step_vector_text(cross.queries[h, focus]),
                             w=step_vector_text(row)))
        j = int(np.argmax(row))
        lines.append(t_plain("s2s.focus_most", lang, token=tgt_token, source=src_tokens[j], h=h + 1,
                             w=step_text(row[j])))
    return lines


def cost_numbers(costs: tuple[StepCost, ...]) -> dict:
    """The last step's multiply-adds with and without the cache, and how many times fewer."""
    last = costs[-1]
    return {"steps": last.t + 1, "cached": f"{last.cached:,}", "uncached": f"{last.uncached:,}",
            "ratio": f"{last.uncached / last.cached:.1f}"}


def cost_spec(costs: tuple[StepCost, ...], lang: str) -> dict:
    """A Vega-Lite line chart: multiply-adds per step, with and without the cache (log scale)."""
    cached, uncached = t_plain("s2s.cost_cached", lang), t_plain("s2s.cost_uncached", lang)
    rows = [{"step": c.t + 1, "madds": value, "how": how} for c in costs
            for how, value in ((cached, c.cached), (uncached, c.uncached))]
    return {"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "width": 520, "height": 220,
            "data": {"values": rows}, "mark": {"type": "line"},
            "encoding": {"x": {"field": "step", "type": "quantitative",
                               "title": t_plain("s2s.cost_axis_step", lang)},
                         "y": {"field": "madds", "type": "quantitative", "scale": {"type": "log"},
                               "title": t_plain("s2s.cost_axis_madds", lang)},
                         "color": {"field": "how", "type": "nominal",
                                   "title": t_plain("s2s.cost_series", lang)}},
            "usermeta": {"width_px": 640}}


def settings_text(link: str, link_short: bool, shown, *, edited: bool, lang: str) -> str:
    """The ZIP's settings.txt: the view's link and every choice that made its numbers, one line each."""
    def line(key: str, **params) -> str:
        return t_plain(key, lang, **params)

    def setting(name_key: str, value) -> str:
        return line("common.settings_line", name=line(name_key), value=value)

    lines = [line("s2s.settings_title"), "", line("common.settings_link", link=link)]
    if link_short:
        lines.append(line("common.settings_link_short"))
    lines += [setting("s2s.preset", line(f"s2s.preset_{shown.preset}")),
              setting("s2s.seed", shown.seed),
              setting("s2s.n", shown.n), setting("s2s.m", shown.m), setting("s2s.d", shown.d),
              setting("s2s.heads", shown.heads), setting("s2s.dff", shown.dff),
              setting("s2s.enc", shown.enc), setting("s2s.dec", shown.dec),
              setting("s2s.norm", line(f"s2s.norm_{shown.norm}")), setting("s2s.act", line(f"tb.act_{shown.act}"))]
    if edited:
        lines.append(line("s2s.preset_edited"))
    return "\n".join(lines) + "\n"
