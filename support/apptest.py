"""Helpers for AppTest: open a page inside app.py's frame, in a chosen language."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

from streamlit import config
from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import AppTest

from selfattn.display import colours
from selfattn.display.charts import check_vega_lite
from support.visitor import component_data
from ui import map_sizes as fit

APP = str(Path(__file__).resolve().parents[1] / "app.py")


class KeptScripts(ScriptCache):
    """A script's bytecode kept for the test process, as a server keeps it for its life: AppTest makes a new
    ``ScriptCache`` on every run, so every ``at.run()`` compiled app.py and the page again (4-9 ms a page script;
    5 % of the fast tier's CPU, py-spy, docs/benchmarks.md). Kept by the file's path, size and modification time
    and Streamlit's magic setting, so a script written again is compiled again."""

    _kept: dict = {}

    def get_bytecode(self, script_path: str):
        path = os.path.abspath(script_path)
        stat = os.stat(path)
        key = (path, stat.st_size, stat.st_mtime_ns, config.get_option("runner.magicEnabled"))
        if key not in KeptScripts._kept:
            KeptScripts._kept[key] = super().get_bytecode(path)
        return KeptScripts._kept[key]


def keep_compiled_scripts() -> None:
    """Every AppTest of this process compiles a script once (:class:`KeptScripts`; tests/conftest.py)."""
    from streamlit.testing.v1 import app_test, local_script_runner

    app_test.ScriptCache = local_script_runner.ScriptCache = KeptScripts


def ask_one_key() -> None:
    """``key in at.session_state`` answered from that key alone (tests/conftest.py). AppTest answers it from
    ``filtered_state``, a copy of the whole session state with every component's state presented: a Playground
    fuzz walk's helpers (``playground_view``, ten fields asked a read) spent over a third of the walk's own CPU there
    (py-spy, docs/benchmarks.md). A user's key is looked up as ``at.session_state[key]`` reads it, the way
    ``ui/streamlit_hooks.py`` answers Streamlit's own boxes; a widget's id or an internal key is asked of the copy, as
    before, since the copy leaves those out (tests/test_session_keys.py checks the two answers agree)."""
    from streamlit.runtime.state.common import is_element_id
    from streamlit.runtime.state.session_state import _is_internal_key
    from streamlit.testing.v1.app_test import _AppTestSessionState

    whole = getattr(_AppTestSessionState.__contains__, "asked_of_the_copy", _AppTestSessionState.__contains__)

    def contains(self, key) -> bool:
        if not isinstance(key, str) or is_element_id(key) or _is_internal_key(key):
            return whole(self, key)
        try:
            self[key]
        except KeyError:
            return False
        return True

    contains.asked_of_the_copy = whole
    _AppTestSessionState.__contains__ = contains


def open_page(page: str, lang: str = "en", timeout: float = 60, part: str | None = None) -> AppTest:
    """Run app.py, switch to ``pages/<page>.py`` (its ``part``, else its first) and return the AppTest after the run."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.session_state["lang"] = lang
    at.run()
    at.switch_page(f"pages/{page}.py")
    if part is not None:
        at.session_state[PART_KEYS[page]] = part
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


PART_KEYS = {"heads": "hd_part", "embeddings": "emb_part", "block": "tb_part", "playground": "pg_part",
             "seq2seq": "s2s_part"}


def open_part(at: AppTest, page: str, part: str, timeout: float | None = None) -> AppTest:
    """Open ``part`` of ``page`` (ui/parts.py) in the session ``at``, as a click on its tab does (after the run)."""
    at.session_state[PART_KEYS[page]] = part
    at.run(**({} if timeout is None else {"timeout": timeout}))
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_link(page: str, params: dict[str, str], timeout: float = 120) -> AppTest:
    """A fresh session opening ``/<page>?<params>`` directly, as a new browser tab does (after the run)."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(f"pages/{page}.py")
    at.run()
    return at


def sidebar_link(at: AppTest) -> str:
    """The link the sidebar offers to copy (ui/components/share_link.py), "" when none is drawn."""
    boxes = [e for e in at.sidebar.get("bidi_component") if e.proto.id.endswith("-share_link")]
    assert len(boxes) <= 1, [e.proto.id for e in boxes]
    return component_data(boxes[0].proto.json)["link"] if boxes else ""


def shown(markdown: str) -> str:
    """What a reader sees of ``markdown`` as far as escapes go: ``W\\_q`` is shown W_q (see selfattn.i18n)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace("\u2060", "")


def texts(at: AppTest) -> str:
    """All markdown, captions, worked-out lines and messages on the page, as one string, escapes read as shown."""
    parts = [e.value for e in (*at.markdown, *at.caption, *at.error, *at.warning, *at.info,
                               *at.success, *at.title, *at.subheader)]
    return "\n".join([*(shown(str(p)) for p in parts), *(str(e.value) for e in at.text)])


def placeholders(at: AppTest) -> dict[str, str]:
    """The placeholder text of every selectbox, multiselect and text input, by widget key.

    An empty one means Streamlit's own English words ("Choose an option") for a select widget,
    and no placeholder at all for a text input.
    """
    return {str(w.key): w.proto.placeholder for w in (*at.selectbox, *at.multiselect, *at.text_input)}


def assert_placeholders_speak(at: AppTest, lang: str) -> None:
    """Every select widget has a placeholder of ours in ``lang``; a text input's, if any, is one too."""
    from selfattn.i18n import CATALOG

    ours = {entry[lang] for entry in CATALOG.values()}
    select_keys = {str(w.key) for w in (*at.selectbox, *at.multiselect)}
    for key, text in placeholders(at).items():
        if text or key in select_keys:
            assert text in ours, (key, text)


def choice_widget(widgets, key: str):
    """The widget drawn by ``ui.widgets.choice`` for ``key`` (its own key carries a suffix)."""
    found = [w for w in widgets if str(w.key).startswith(f"{key}__")]
    assert len(found) == 1, (key, [w.key for w in widgets])
    return found[0]


def heatmap_specs(at) -> list[dict]:
    """The page's Vega-Lite specs, with the cells Streamlit sent apart (as Arrow) put back in."""
    import pyarrow as pa

    specs = []
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        if "usermeta" not in spec:  # not one map of ui.map_sizes: an Altair chart (pattern grid, head view)
            continue
        cells = pa.ipc.open_stream(chart.proto.data.data).read_pandas().to_dict("records")
        if "window" in spec.get("transform", [{}])[0]:  # a heatmap's cells, sent row after row: put r, c back
            cols = len(axis_labels(spec, "x"))
            cells = [{"r": k // cols, "c": k % cols, **cell} for k, cell in enumerate(cells)]
        spec["data"] = {"values": cells}
        specs.append(spec)
    return specs


def drawn_width(spec: dict) -> float:
    """Natural width of a heatmap (cells plus the room of its row labels) or head grid (panels, the
    spacing between them and the last title's overhang), in pixels, worked out from the spec."""
    cells = spec["data"]["values"]
    cols = max(c["c"] for c in cells) + 1
    if "grid" in spec["usermeta"]:
        grid = spec["usermeta"]["grid"]
        per_row = min(grid["columns"], max(c["p"] for c in cells) + 1)
        panel = cols * grid["cell"]
        overhang = max(0.0, max(fit.text_px(c["panel"], 12) for c in cells) - panel)
        return grid.get("left", 0) + per_row * panel + (per_row - 1) * grid["spacing"] + overhang
    return cols * spec["width"]["step"] + spec["encoding"]["y"]["axis"]["minExtent"]


def axis_labels(spec: dict, channel: str) -> list[str]:
    """Every label of a heatmap's axis, read from its ``labelExpr`` (a list literal indexed by the cell)."""
    expr = spec["encoding"][channel]["axis"]["labelExpr"]
    return json.loads(expr[:expr.rindex("[datum.value]")])


def label_spacing(spec: dict, channel: str) -> float:
    """Pixels between neighbouring axis labels of a heatmap."""
    axis = spec["encoding"][channel]["axis"]
    values = axis.get("values", [0, 1])
    return (values[1] - values[0]) * spec["width"]["step"] if len(values) > 1 else float("inf")


def assert_fits(spec: dict, name: str = "") -> None:
    """A heatmap (or head grid) from :mod:`ui.map_sizes`: valid, within its column, labels apart."""
    check_vega_lite({**spec, "data": {"values": spec["data"]["values"][:4]}})  # still valid Vega-Lite
    assert drawn_width(spec) <= spec["usermeta"]["fit_px"] <= fit.PAGE_PX, name
    assert spec["usermeta"]["width_px"] == math.ceil(drawn_width(spec)), name  # what Streamlit is asked for
    assert spec["config"]["legend"]["orient"] == "bottom", name  # under the chart, never over a neighbour
    if "grid" not in spec["usermeta"]:
        x_axis, y_axis = (spec["encoding"][c]["axis"] for c in "xy")
        assert x_axis["labelOverlap"] is False and y_axis["labelOverlap"] is False, name  # Vega thins none away
        font = x_axis["labelFontSize"]
        assert fit.MIN_LABEL_FONT_PX <= font == y_axis["labelFontSize"] <= fit.FONT_PX, name
        if x_axis["labelAngle"] == 0:  # flat labels fit inside their cells
            assert all(fit.text_px(label, font) + 6 <= spec["width"]["step"] for label in axis_labels(spec, "x")), name
        else:
            assert x_axis["labelAngle"] == -90 and label_spacing(spec, "x") >= font + fit.LABEL_PAD_PX, name
        assert label_spacing(spec, "y") >= font + fit.LABEL_PAD_PX, name


def editors(at: AppTest) -> dict[str, dict]:
    """The data each matrix editor on the page was drawn with, by matrix name ("X", "W_q", ...)."""
    found = {}
    for element in at.get("bidi_component"):
        data = component_data(element.proto.json)
        if isinstance(data, dict) and "matrix" in data:  # not a step map (step_maps) or the maps' code
            found[data["matrix"]] = data
    return found


def editor_cells(at: AppTest, matrix: str) -> list[list[str]]:
    """The cells as text one matrix editor shows (X: its label column first): what was typed into
    this instance, as the browser keeps it, else what it was mounted with."""
    data = editors(at)[matrix]
    sent = at.session_state.get(data["instance"])  # get: AppTest's "in" copies the whole session state
    return [list(r) for r in (sent["table"]["cells"] if sent and "table" in sent else data["cells"])]


def type_cell(at: AppTest, matrix: str, row: int, col: int, text: str) -> None:
    """The state editor ``matrix`` (its name on the page) sends after one cell is typed, then a run, as Enter in the
    browser: the full table as typed (:func:`editor_cells`, with this cell), its revision one on."""
    data = editors(at)[matrix]
    rev = 0
    if sent := at.session_state.get(data["instance"]):
        rev = sent["table"]["rev"]
    table_cells = editor_cells(at, matrix)
    table_cells[row][col] = text
    at.session_state[data["instance"]] = {"table": {"rev": rev + 1, "cells": table_cells}}
    at.run()


MATRIX_NAMES = {"x": "X", "w_q": "W_q", "w_k": "W_k", "w_v": "W_v", "b_q": "b_q", "b_k": "b_k", "b_v": "b_v"}


def playground_view(at: AppTest):
    """The Playground's View as its session holds it (its settings, its typed tables against the preset's at its
    sizes, in its language): what the page reads (``ui.playground.page.current``), without running it."""
    from selfattn.playground.view import FIELDS, TABLES

    page = at.session_state["pg"]
    values = {f.key: at.session_state[f.key] for f in FIELDS if f.key in at.session_state}
    return TABLES.view(values, page["edits"], size=page["size"], lang=page["lang"])


def playground_tables(at: AppTest) -> dict:
    """Every table of the Playground as its session holds it, by name ("tokens": X's labels; "x": its numbers)."""
    tables = playground_view(at).tables
    return {name: getattr(tables, name) for name in ("tokens", "x", "w_q", "w_k", "w_v", "b_q", "b_k", "b_v")}


def set_playground_tables(at: AppTest, tables: dict) -> None:
    """Make ``tables`` (by name, as :func:`playground_tables` gives them) the Playground's, as an upload does: its
    typed tables and sizes; its editors mount again from them on the next run."""
    from selfattn.playground.tables import Tables
    from selfattn.playground.view import view

    shown = playground_view(at)
    replaced = view(shown.settings(), Tables(**tables), shown.lang)
    at.session_state["pg"]["edits"] = dict(replaced.edits)
    at.session_state["pg"]["size"] = replaced.size
    at.session_state["pg"]["version"] += 1


def send_cell(at: AppTest, name: str, row: int, col: str, value) -> None:
    """Set the state a browser's matrix editor sends after one cell is typed (no run).

    The editor sends the full table as typed, with a revision number; ``col`` is a column of the
    table ("x1", "token"), ``value`` text (None: an emptied cell; a number: its shortest text).
    """
    from selfattn.display.numbers import editor_text
    from selfattn.playground.seeded import columns as editor_columns

    data = editors(at)[MATRIX_NAMES[name]]
    columns = editor_columns(name, len(playground_tables(at)[name][0]))
    cells, rev = [list(r) for r in data["cells"]], 0
    sent = at.session_state.get(data["instance"])  # what this editor sent before (the page may not show it yet)
    if sent and "table" in sent:
        cells, rev = [list(r) for r in sent["table"]["cells"]], sent["table"]["rev"]
    cells[row][columns.index(col)] = "" if value is None else editor_text(value)
    at.session_state[data["instance"]] = {"table": {"rev": rev + 1, "cells": cells}}


def edit(at: AppTest, name: str, row: int, col: str, value) -> None:
    """Type ``value`` into one cell and press Enter, as the browser does; run the page."""
    send_cell(at, name, row, col, value)
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def mounted_maps(at) -> dict[str, tuple[str, dict]]:
    """Every step map of the page (``ui/components/heatmap.py``) by its key (``map_…``): the key of the element it is
    drawn in (its own, or its row's, ``maps_…``) and the JSON the browser draws it from, as sent."""
    maps = {}
    for element in at.get("bidi_component"):
        key = element.proto.id.split("-", 2)[-1]  # "$$ID-<hash>-<key>"
        if key.startswith("map_"):
            maps[key] = (key, component_data(element.proto.json))
        elif key.startswith("maps_"):
            for one in component_data(element.proto.json)["maps"]:
                maps[one["key"]] = (key, one["data"])
    return maps


def step_maps(at) -> dict[str, dict]:
    """The page's step maps (``ui/components/heatmap.py``), alone or in a row, by their key without ``map_``, each as
    the JSON the browser draws it from: rows, cols, cells (the text shown), colour scale, link."""
    maps = {}
    for key, (_element, data) in mounted_maps(at).items():
        data = dict(data)
        data.pop("revs", None)  # the editors' revisions the run read: one session's bookkeeping, not shown
        data.pop("scroll", None)  # the notes of a map's hidden columns and rows, the same for every map
        maps[key.removeprefix("map_")] = data
    return maps


def map_frame(at, key: str = "outputs"):
    """One step map as numbers read back from the text of its cells (−∞ for a masked one), labelled."""
    import pandas as pd

    data = step_maps(at)[key]
    numbers = [[-math.inf if text == "−∞" else float(text) for text in row] for row in data["cells"]]
    return pd.DataFrame(numbers, index=data["rows"], columns=data["cols"])


def four_digits(value: float) -> str:
    """``value`` as the step maps write it, worked out apart from them with :mod:`decimal`: rounded to
    12 significant digits, then to 4 (ties to even), written by ``%g``; −∞ for a masked score."""
    from decimal import ROUND_HALF_EVEN, Context, Decimal

    if value == -math.inf:
        return "−∞"
    text = f"{float(Context(prec=4, rounding=ROUND_HALF_EVEN).plus(Decimal(f'{value:.11e}'))):.4g}"
    return "0" if text == "-0" else text


def assert_map_shows(at, key: str, expected) -> None:
    """Map ``key`` writes every cell as ``expected`` (a reference computed apart) to four significant digits."""
    import numpy as np

    want = [[four_digits(v) for v in row] for row in np.asarray(expected, dtype=float)]
    assert step_maps(at)[key]["cells"] == want, key


def downloaded(downloads: dict[str, bytes], name: str):
    """The table the last run offered as ``<name>.csv`` (the ``downloads`` fixture of conftest.py), read
    back at full precision: the numbers a map writes to four digits, exactly."""
    import io

    import pandas as pd

    return pd.read_csv(io.BytesIO(downloads[f"{name}.csv"]), index_col=0)


def click_expander(at, key: str, opened: bool = True) -> None:
    """Run the page as after a click that opens (or closes) the expander ``key``: its state sent as the browser sends
    it, so that its callback runs as it would there."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    element = next(e for e in at.expander if e.proto.id.endswith(f"-{key}"))
    states = at._tree.get_widget_states()  # what the browser's other widgets hold
    kept = [w for w in states.widgets if w.id != element.proto.id]
    del states.widgets[:]
    states.widgets.extend([*kept, WidgetState(id=element.proto.id, bool_value=opened)])
    at._run(states)


def setting(at, key: str):
    """A setting's value after the run, as ``ui.state.value`` gives it in one: its widget's, else (the widget not drawn:
    the Playground's shuffle in its closed box) the value kept under its shadow, else its default."""
    from ui import state as settings

    for where in (key, settings.shadow(key)):
        if where in at.session_state:
            return at.session_state[where]
    return settings.default(key)


def open_folded(at, key: str) -> AppTest:
    """The expander ``key`` opened (as a click) where it is closed: a folded one (``ui.widgets.folded``) makes its body
    only while open (the Playground's and Heads & devices' uploads, the tiles' Q, K and V)."""
    if any(e.proto.id.endswith(f"-{key}") and not e.proto.expanded for e in at.main.expander):
        click_expander(at, key)
    return at


def trigger_id(component_id: str, event_group: str = "events") -> str:
    """The widget id under which Streamlit takes a Components-v2 element's trigger events (its
    "aggregator": ``$$STREAMLIT_INTERNAL_KEY_<element id>__events``), as the browser sends them."""
    return f"$$STREAMLIT_INTERNAL_KEY_{component_id}__{event_group}"


def send_pick(at, key: str, value) -> None:
    """Run the page as after a click on a step map: map ``key``'s ``pick`` trigger set to ``value``
    (any JSON value, NaN and ±Infinity included, as a crafted message may carry), sent once; a map in a row sends it
    through its row, as ``{"map": its key, "row": value}``."""
    element_key, _data = mounted_maps(at)[f"map_{key}"]
    if element_key != f"map_{key}":
        value = {"map": f"map_{key}", "row": value}
    send_trigger(at, element_key, value)


def send_trigger(at, element_key: str, value) -> None:
    """Run the page with the ``pick`` trigger of component ``element_key`` set to ``value``, sent once."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    element = next(e for e in at.get("bidi_component") if e.proto.id.endswith(f"-{element_key}"))
    states = at._tree.get_widget_states()  # what the browser's other widgets hold
    states.widgets.append(WidgetState(id=trigger_id(element.proto.id),
                                      json_trigger_value=json.dumps([{"event": "pick", "value": value}])))
    at._run(states)


# ── Colours by role (tests/test_colours.py and the pages' own tests) ────────────────────

def scale(spec: dict) -> dict:
    """The colour scale of a heatmap or head grid spec."""
    return spec["layer"][0]["encoding"]["color"]["scale"]


def is_attention(spec: dict) -> bool:
    """Whether every row of every map in the spec is a distribution (the masked cells left out)."""
    rows: dict[tuple, float] = {}
    for cell in spec["data"]["values"]:
        v = cell["v"]
        if v is None or not math.isfinite(v):
            continue
        if v < 0:
            return False
        key = (cell.get("p", 0), cell["r"])
        rows[key] = rows.get(key, 0.0) + v
    return bool(rows) and all(abs(total - 1) < 1e-6 for total in rows.values())


def is_signed(spec: dict) -> bool:
    """Whether the colour scale is fixed symmetric around 0, as for a cosine or a difference."""
    domain = scale(spec).get("domain")
    return domain is not None and domain[0] == -domain[1] != 0


def assert_coloured_by_role(specs: list[dict]) -> tuple[int, int]:
    """Attention weights in the weights scheme (0..1), signed maps diverging, the rest neither.

    Returns:
        (attention maps, signed maps) among ``specs``.
    """
    for spec in specs:
        scheme, domain = scale(spec)["scheme"], scale(spec).get("domain")
        if is_attention(spec):
            assert scheme == colours.SCHEMES["weights"] and domain == [0.0, 1.0], (scheme, domain)
        elif is_signed(spec):
            assert scheme in colours.DIVERGING, scheme
        else:
            assert scheme not in colours.DIVERGING, scheme
        if scheme == colours.SCHEMES["weights"]:  # green means weights: 0..1 (a max over heads too)
            assert domain == [0.0, 1.0] and all(0 <= c["v"] <= 1 for c in spec["data"]["values"]
                                                if c["v"] is not None and math.isfinite(c["v"]))
    return sum(map(is_attention, specs)), sum(map(is_signed, specs))
