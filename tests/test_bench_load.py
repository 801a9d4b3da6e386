"""benchmarks/bench_load.py drives visitors through Streamlit's websocket protocol (tiny settings; no timings checked)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from streamlit.proto.Element_pb2 import Element

ROOT = Path(__file__).resolve().parents[1]

from support import visitor as wire  # noqa: E402


def test_an_edit_is_sent_as_the_browser_writes_it():
    assert wire.editor_state([["Input 1", "5"], ["输入 2", "0"]], 3) == \
        '{"table":{"rev":3,"cells":[["Input 1","5"],["输入 2","0"]]}}'
    assert len({wire.edit_value(k) for k in range(10)}) == 10  # every edit changes the page


def test_widgets_start_at_the_value_the_server_set_else_their_default():
    toggle = Element()
    toggle.checkbox.id, toggle.checkbox.default = "$$ID-1-pg_scale", True
    assert wire.widget_state(toggle).bool_value is True
    toggle.checkbox.value, toggle.checkbox.set_value = False, True
    assert wire.widget_state(toggle).bool_value is False
    box = Element()
    box.selectbox.id, box.selectbox.default = "$$ID-2-pg_preset", 1
    box.selectbox.options.extend(["Tutorial", "Random"])
    assert wire.widget_state(box).string_value == "Random"
    button = Element()
    button.button.id = "$$ID-3-go"
    assert wire.widget_state(button) is None  # a trigger: the browser sends it only when clicked


@pytest.mark.system  # bench_load.py starts a Streamlit server
def test_two_visitors_open_edit_and_soak_without_errors(tmp_path):
    out = tmp_path / "load.json"
    done = subprocess.run(
        [sys.executable, "benchmarks/bench_load.py", "--scenario", "all", "--visitors", "2", "--edits", "2",
         "--timeout", "60", "--soak-seconds", "30", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=150)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    rows = json.loads(out.read_text())["rows"]
    assert [(row["scenario"], row["page"]) for row in rows] == [
        ("open", "playground"), ("edit", "playground"), ("soak", "playground")]
    for row in rows:
        assert row["errors"] == {} and row["exceptions"] == 0, row["samples"]
        assert row["visitors"] == 2 and row["open"]["n"] == 2 and row["runs_per_s"] > 0
        (pid,) = row["rss_mb_after"]  # one server process, started by the script
        assert row["rss_mb_before"][pid] > 0 and row["rss_mb_after"][pid] > 0
        assert row["open"]["p50"] <= row["open"]["p95"] <= row["open"]["max"]
    edit = rows[1]["edit"]
    assert edit["n"] == 4 and edit["p50"] <= edit["max"]  # 2 visitors x 2 edits, each changed the page
    assert "growth_mb_per_visitor" in rows[2]
    assert "open p50" in done.stdout and "soak" in done.stdout


@pytest.mark.system  # bench_load.py starts two Streamlit servers: the app's, and the floor's
def test_the_floor_is_measured_beside_the_page(tmp_path):
    out = tmp_path / "floor.json"
    done = subprocess.run(
        [sys.executable, "benchmarks/bench_load.py", "--scenario", "open", "--page", "embeddings", "--visitors", "2",
         "--timeout", "90", "--floor", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    rows = json.loads(out.read_text())["rows"]
    assert [(row["target"], row["page"]) for row in rows] == [("1 process", "embeddings"), ("streamlit floor", "home")]
    for row in rows:
        assert row["errors"] == {} and row["exceptions"] == 0 and row["open"]["n"] == 2, row["samples"]
