"""How close to Streamlit's floor can a page of ours get? Three cut-down copies of this checkout to measure with
``bench_load.py --app-dir`` beside the real one (issue 38 item 5, issue 39's class of 40).

Usage:
    python benchmarks/floor_prototypes.py OUT
    python benchmarks/bench_load.py --app-dir . OUT/frame --scenario open --page home --visitors 40 --repeat 2 --floor
    python benchmarks/bench_load.py --app-dir . OUT/flow OUT/flow-only --scenario open --page playground \\
        --visitors 40 --repeat 2 --floor

Each copy is ``git archive HEAD`` with one page file rewritten. They are experiments that size a budget, not pages:
nothing in them is drawn for a visitor to use.

* ``frame``: the Home page empty. What our frame alone costs (navigation, the language and projector switches,
  the history script, the style): a lower bound for every page.
* ``flow``: the Playground with its settings as they are (the preset, seed, size and option widgets, the upload),
  and everything the fragment draws (the four editors, every step map with its heading, caption and CSV text, the
  focus token's arithmetic) sent as one JSON string to one component that draws nothing: the page as it would be
  if a single component drew the whole flow.
* ``flow-only``: ``flow`` without the settings widgets (read from session state with their defaults): the page
  if that component drew the settings too. The frame and one component: what is left of Streamlit in the page.
"""

from __future__ import annotations

import argparse
import io
import subprocess
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

EMPTY_HOME = '"""Home, empty: what the frame alone costs (benchmarks/floor_prototypes.py)."""\n'

# The Playground's fragment, replaced: the same reads and the same computation, and what the page would hand one
# component (every box as data, each map's CSV text included), in one JSON string.
ONE_COMPONENT = '''
import json as _json
from selfattn.display.export import labelled as _labelled
from ui.components.heatmap import map_data as _map_data
from ui.components.matrix_editor import payload as _payload
from ui.playground.page import EDITORS as _EDITORS

_flow = st.components.v2.component("selfattn.flow_prototype",
                                   js="export default function (c) { c.parentElement.textContent = ''; }")


@st.fragment
def steps(scale: bool, causal: bool, use_bias: bool) -> None:
    """The whole flow as one component's data (an experiment: benchmarks/floor_prototypes.py)."""
    version = pg.state()["version"]
    if settings.refuse_unfit_settings(settings.fields("playground")) or pg.setup()["version"] != version:
        st.rerun(scope="app")
    boxes = []
    shown = pg.read()
    for name in ("x", "w_q", "w_k", "w_v") + (pg.BIASES if use_bias else ()):
        table = shown.rows(name)  # as the editor holds it (X: its labels first)
        rows = [str(i + 1) for i in range(len(table))] if name == "x" else pg.row_names(name, len(table))
        boxes.append({"kind": "editor", "name": name, "rows": rows,
                      "cols": pg.columns(name, len(table[0]) - (name == "x")), "cells": _EDITORS.mounted(name, table),
                      "rev": pg.PAGE.sent_rev(name), "texts": pg.editor_texts()})
    order, order_error = order_ui.read_order(shown.tables.sizes.n)
    good, error = settings.last_good("pg_good", partial(compute_view, shown, order))
    if error is not None:
        show_error(error, kept=good is not None)
    sharing = {"page": "playground", "own": pg.link_params(shown), "bulky": CELL_LINK_PARAMS}
    if good is None:
        links.stop(**sharing)
    trace, tokens = good.trace, good.inputs.tokens
    n = trace.x.shape[0]
    d_k, d_v = trace.queries.shape[1], trace.values.shape[1]
    q_cols, k_cols, v_cols = (column_names(p, d) for p, d in (("q", d_k), ("k", d_k), ("v", d_v)))
    i = pg.focus(n)
    maths = words.formulas(scale, causal, good.bias, order_ui.positions_on(), current_lang())
    for text in (tr("pg.step1"), tr("pg.step1_help"), tr("pg.step2"), tr("pg.step3"),
                 tr("pg.step3_help", formula=maths["step3"]), tr("pg.maps_linked"), tr("pg.step4"), tr("pg.step4_help"),
                 tr("pg.step5"), tr("pg.step5_help", formula=maths["step5"]), tr("pg.focus_title"), tr("pg.step8"),
                 tr("pg.step8_help", formula=maths["step8"])):
        boxes.append({"kind": "text", "text": text})
    for key, matrix, cols, link in (("q", trace.queries, q_cols, "q"), ("k", trace.keys, k_cols, "k"),
                                    ("v", trace.values, v_cols, "v"), ("scores", trace.scores, tokens, "scores"),
                                    ("scaled", trace.scaled_scores, tokens, "scaled"),
                                    ("weights", trace.weights, tokens, "weights"),
                                    ("wv", trace.weighted_values[i], v_cols, "wv"), ("outputs", trace.outputs, v_cols, "out")):
        data = _map_data(matrix, tokens, cols, name=key, link=link, group="pg", focus=i)
        data["revs"] = _EDITORS.revs()
        data["csv"] = _labelled(matrix, tokens, list(cols)).to_csv()
        boxes.append({"kind": "map", "title": key, "data": data})
    boxes.append({"kind": "code", "lines": [
        f"q{i + 1}·k{j + 1} = " + " + ".join(f"{step_text(a)}×{step_text(b)}" for a, b in zip(trace.queries[i], trace.keys[j]))
        for j in range(n)]})
    _flow(key="flow", data=_payload({"boxes": boxes}), on_pick_change=lambda: None)
    links.publish(**sharing)


library()
steps(scale, causal, use_bias)
'''

NO_SETTINGS = '''# The settings, read as the component would send them (here: their defaults)
scale, causal, use_bias = (bool(st.session_state.get(k, d)) for k, d in (("pg_scale", True), ("pg_causal", False),
                                                                         ("pg_bias", False)))

'''


def cut(source: str, start: str, end: str | None, new: str) -> str:
    """``source`` with the part from the line holding ``start`` up to ``end`` (or the end) replaced by ``new``."""
    if start not in source or (end is not None and end not in source):
        raise SystemExit(f"pages/playground.py changed: {start!r} or {end!r} not found; update this script")
    a = source.rindex("\n", 0, source.index(start)) + 1
    return source[:a] + new + (source[source.index(end):] if end is not None else "")


def export(out: Path) -> None:
    """This checkout's HEAD, as files, in ``out``."""
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True, check=True).stdout
    out.mkdir(parents=True, exist_ok=False)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(out, filter="data")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="a folder that does not exist yet")
    out = parser.parse_args().out
    for name in ("frame", "flow", "flow-only"):
        export(out / name)
    (out / "frame" / "pages" / "home.py").write_text(EMPTY_HOME, encoding="utf-8")
    page = (ROOT / "pages" / "playground.py").read_text(encoding="utf-8")
    flow = cut(page, "@st.fragment", None, ONE_COMPONENT.lstrip())
    (out / "flow" / "pages" / "playground.py").write_text(flow, encoding="utf-8")
    flow_only = cut(flow, "# ── Controls", "import json as _json", NO_SETTINGS)
    (out / "flow-only" / "pages" / "playground.py").write_text(flow_only, encoding="utf-8")
    for name in ("frame", "flow", "flow-only"):
        print(out / name)


if __name__ == "__main__":
    main()
