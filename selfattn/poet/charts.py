"""The tiny poet's page's charts as Vega-Lite specs (no Streamlit): the candidates of one step before and after the
sampling knobs, and the training loss with the checkpoint shown.

Each takes its numbers and ``words`` (its labels in the visitor's language) and is as wide as its column
(``autosize: fit-x``) at a fixed height, so it fits a 1024 px window's columns as a 1400 px one's.
"""

from __future__ import annotations

import numpy as np

from selfattn.display import colours

SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json"
WIDTH_PX = 560
FIT = {"type": "fit-x", "contains": "padding"}


def candidate_rows(sampling, tokens, drawn: int, n: int) -> list[dict]:
    """The ``n`` most likely candidates of a step (by the model's own probabilities, T = 1), each with its
    probability before the knobs and after them (what the draw used), whether a knob cut it, and whether it was
    written."""
    rows = []
    for rank, i in enumerate(sampling.ranked(n)):
        i = int(i)
        status = ("drawn" if i == drawn else "cut_k" if not sampling.kept_top_k[i] else
                  "cut_p" if not sampling.kept_top_p[i] else "kept")
        rows.append({"rank": rank + 1, "id": i, "token": tokens[i], "before": float(sampling.probs[i]),
                     "tempered": float(sampling.tempered[i]), "after": float(sampling.final[i]), "status": status})
    return rows


def candidates_spec(rows: list[dict], words: dict) -> dict:
    """Grouped horizontal bars: each candidate's probability before (T = 1) and after temperature, top-k and top-p;
    the one written in bold, the ones cut marked in their label."""
    values = []
    for r in rows:
        label = f"{r['rank']}. {r['token']}" + {"drawn": " ◀", "cut_k": " ✕", "cut_p": " ✕", "kept": ""}[r["status"]]
        for stage in ("before", "after"):
            values.append({"label": label, "stage": words[stage], "p": r[stage], "status": words[r["status"]],
                           "text": f"{r[stage]:.3f}"})
    order = [f"{r['rank']}. {r['token']}" + {"drawn": " ◀", "cut_k": " ✕", "cut_p": " ✕", "kept": ""}[r["status"]]
             for r in rows]
    y = {"field": "label", "type": "nominal", "sort": order, "title": words["candidate"],
         "axis": {"labelFontSize": 13, "labelLimit": 90}}
    return {"$schema": SCHEMA, "width": WIDTH_PX, "height": max(120, 30 * len(rows)), "autosize": FIT,
            "data": {"values": values},
            "mark": {"type": "bar"},
            "encoding": {"y": y, "yOffset": {"field": "stage", "type": "nominal", "sort": [words["before"],
                                                                                         words["after"]]},
                         "x": {"field": "p", "type": "quantitative", "title": words["probability"]},
                         "color": {"field": "stage", "type": "nominal", "title": "",
                                   "scale": colours.series_scale([words["before"], words["after"]]),
                                   "legend": {"orient": "bottom"}},
                         "tooltip": [{"field": "label", "title": words["candidate"]},
                                     {"field": "stage", "title": " "},
                                     {"field": "text", "title": words["probability"]},
                                     {"field": "status", "title": words["state"]}]},
            "usermeta": {"width_px": WIDTH_PX, "chart": "candidates"}}


def loss_spec(curve, checkpoints: list[dict], chosen: int, words: dict) -> dict:
    """The training loss of every step (nats per token), the held-out loss at each checkpoint as a dot, and a rule
    at the checkpoint ``chosen`` (a training step)."""
    rows = [{"kind": "curve", "step": i + 1, "loss": float(loss), "series": words["train"]}
            for i, loss in enumerate(curve)]
    rows += [{"kind": "checkpoint", "step": int(c["step"]), "loss": float(c["val_loss_all"]),
              "series": words["held_out"]} for c in checkpoints]
    rows.append({"kind": "mark", "step": int(chosen), "loss": float(np.mean(curve)) if len(curve) else 0.0,
                 "series": words["shown"]})
    x = {"field": "step", "type": "quantitative", "title": words["step"]}
    y = {"field": "loss", "type": "quantitative", "title": words["loss"], "scale": {"zero": False}}
    color = {"field": "series", "type": "nominal", "title": "",
             "scale": colours.series_scale([words["train"], words["held_out"]]), "legend": {"orient": "bottom"}}
    return {"$schema": SCHEMA, "width": WIDTH_PX, "height": 220, "autosize": FIT, "data": {"values": rows},
            "layer": [{"transform": [{"filter": "datum.kind === 'curve'"}], "mark": {"type": "line"},
                       "encoding": {"x": x, "y": y, "color": color}},
                      {"transform": [{"filter": "datum.kind === 'checkpoint'"}],
                       "mark": {"type": "point", "filled": True, "size": 60},
                       "encoding": {"x": x, "y": y, "color": color,
                                    "tooltip": [{"field": "step", "type": "quantitative", "title": words["step"]},
                                                {"field": "loss", "type": "quantitative", "format": ".3f",
                                                 "title": words["loss"]}]}},
                      {"transform": [{"filter": "datum.kind === 'mark'"}],
                       "mark": {"type": "rule", "color": colours.CHOSEN, "strokeWidth": 2},
                       "encoding": {"x": x}}],
            "usermeta": {"width_px": WIDTH_PX, "chart": "loss"}}


# ── The figures the page's sentences state ─────────────────────────────────────────────────

def character_steps(poem) -> list:
    """The steps of ``poem`` (a :class:`selfattn.poet.Poem`) that wrote a character, drawn or given (not the marks
    or ``<eos>``): the characters a learner steps through."""
    return [s for s in poem.steps if s.sampling is not None and s.place < 5 and s.token != "<eos>"]


def nats_per_character(poem) -> float:
    """How surprised the model is by the poem's characters: the mean of −ln p over them, p what it gave each
    before the knobs (T = 1), as the held-out loss counts them."""
    return float(np.mean([-np.log(s.probability) for s in character_steps(poem)]))


def step_sums(sampling, rows: list[dict]) -> dict:
    """One step's figures: how many characters the knobs kept of those the form allows, what their probabilities
    add up to (1 up to rounding), and how much of the model's own probability the candidates shown hold."""
    return {"kept": int((sampling.final > 0).sum()), "allowed": int(sampling.allowed.sum()),
            "sum": float(sampling.final.sum()), "top": float(sum(r["before"] for r in rows))}


def final_loss(record: dict, last: int = 20) -> float | None:
    """The mean training loss of the run's ``last`` steps (nats per token), as
    :class:`selfattn.poet.train.LiveRun` states a visitor's own run's; None without a curve."""
    curve = (record or {}).get("loss_curve", [])
    return float(np.mean(curve[-last:])) if curve else None


def loss_figures(record: dict) -> dict | None:
    """The held-out loss against the baselines, from ``record.json``: the losses (nats per character), the
    perplexity e^loss, the poems held out, the training's minutes, and whether it beats both baselines."""
    held = (record or {}).get("held_out", {})
    base = held.get("baselines", {})
    if "val_loss" not in held or not {"unigram", "bigram"} <= set(base):
        return None
    val, uni, bi = float(held["val_loss"]), float(base["unigram"]), float(base["bigram"])
    return {"val": val, "uni": uni, "bi": bi, "ppl": float(np.exp(val)),
            "held": record.get("poems", {}).get("held_out", 0),
            "minutes": max(1, round(record.get("time_s", {}).get("training", 180) / 60)),
            "ahead": val < bi and val < uni}
