"""Helpers for AppTest: open a page inside app.py's frame, in a chosen language."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from selfattn.charts import to_altair
from ui import fit

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def open_page(page: str, lang: str = "en", timeout: float = 60) -> AppTest:
    """Run app.py, switch to ``pages/<page>.py`` and return the AppTest after the run."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.session_state["lang"] = lang
    at.run()
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(at: AppTest) -> str:
    """All markdown, captions, code and messages on the page, as one string."""
    parts = [e.value for e in (*at.markdown, *at.caption, *at.code, *at.error, *at.warning, *at.info,
                               *at.success, *at.title, *at.subheader)]
    return "\n".join(str(p) for p in parts)


def choice_widget(widgets, key: str):
    """The widget drawn by ``ui.common.choice`` for ``key`` (its own key carries a suffix)."""
    found = [w for w in widgets if str(w.key).startswith(f"{key}__")]
    assert len(found) == 1, (key, [w.key for w in widgets])
    return found[0]


def heatmap_specs(at) -> list[dict]:
    """The page's Vega-Lite specs, with the cells Streamlit sent apart (as Arrow) put back in."""
    import pyarrow as pa

    specs = []
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        cells = pa.ipc.open_stream(chart.proto.data.data).read_pandas()
        spec["data"] = {"values": cells.to_dict("records")}
        specs.append(spec)
    return specs


def drawn_width(spec: dict) -> float:
    """Cells plus row labels plus padding of a heatmap or head-grid spec, in pixels."""
    cells = spec["data"]["values"]
    cols = max(c["c"] for c in cells) + 1
    if "facet" in spec:  # head grid: panels side by side with spacing
        per_row = min(spec["columns"], max(c["p"] for c in cells) + 1)
        return per_row * cols * spec["spec"]["width"]["step"] + (per_row - 1) * spec["spacing"] + fit.CHART_PAD_PX
    rows = {c["r"]: c["row"] for c in cells}
    labels = min(spec["encoding"]["y"]["axis"]["labelLimit"], max(fit.text_px(r) for r in rows.values()))
    return cols * spec["width"]["step"] + labels + fit.CHART_PAD_PX


def label_spacing(spec: dict, channel: str) -> float:
    """Pixels between neighbouring axis labels of a heatmap."""
    axis = spec["encoding"][channel]["axis"]
    values = axis.get("values", [0, 1])
    return (values[1] - values[0]) * spec["width"]["step"] if len(values) > 1 else float("inf")


def assert_fits(spec: dict, name: str = "") -> None:
    """A heatmap (or head grid) from :mod:`ui.fit`: valid, within its column, labels apart."""
    to_altair({**spec, "data": {"values": spec["data"]["values"][:4]}}).to_dict()  # still valid Vega-Lite
    assert drawn_width(spec) <= spec["usermeta"]["fit_px"] <= fit.PAGE_PX, name
    assert spec["config"]["legend"]["orient"] == "bottom", name  # under the chart, never over a neighbour
    if "facet" not in spec:
        x_axis = spec["encoding"]["x"]["axis"]
        if x_axis["labelAngle"] == 0:  # flat labels fit inside their cells
            assert all(fit.text_px(c["col"]) + 6 <= spec["width"]["step"] for c in spec["data"]["values"]), name
        else:
            assert x_axis["labelAngle"] == -90 and label_spacing(spec, "x") >= fit.LABEL_GAP_PX, name
        assert label_spacing(spec, "y") >= fit.LABEL_GAP_PX, name
