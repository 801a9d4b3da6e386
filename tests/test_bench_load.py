"""benchmarks/bench_load.py drives visitors through Streamlit's websocket protocol (tiny settings; no timings checked)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from streamlit.proto.Element_pb2 import Element

ROOT = Path(__file__).resolve().parents[1]

from support import visitor as wire  # noqa: E402


def load_bench():
    """benchmarks/bench_load.py as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location("bench_load", ROOT / "benchmarks" / "bench_load.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = load_bench()


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


def test_every_page_has_its_edit_and_no_two_edits_type_the_same():
    assert set(wire.EDITS) == set(wire.PAGES) - {"home"}
    for page in wire.EDITS:
        values = [wire.typed(page, k) for k in range(512)]
        assert len(set(values)) == 512, page
    assert wire.typed("playground", 3) == wire.edit_value(3)  # the Playground's edit as before
    sentences = {wire.typed("embeddings", k) for k in range(512)}
    assert {len(s) for s in sentences} == {6}  # the same length: each costs the same
    assert wire.typed("heads", 0) == "1" and wire.EDITS["heads"].kind == "int"


def test_content_is_what_the_page_shows_not_its_inputs():
    seen = wire.Visitor("http://127.0.0.1:1", wire.Tally(), 1)
    assert seen.content() == ""  # nothing drawn yet: an edit that leaves this cannot pass as a change
    text, box = Element(), Element()
    text.markdown.body = "weights 0.25"
    box.number_input.id, box.number_input.default = "$$ID-1-hd_seed", 0
    seen.elements = {(0, 1): text, (0, 2): box}
    before = seen.content()
    box.number_input.default = 7
    assert seen.content() == before  # an input's own element is not a result
    text.markdown.body = "weights 0.5"
    assert seen.content() != before


def test_the_pod_is_served_with_the_deployments_threads():
    deployment = yaml.safe_load((ROOT / "deploy" / "k8s" / "base" / "deployment.yaml").read_text())
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    threads = {e["name"]: e["value"] for e in container["env"] if e["name"].endswith("_NUM_THREADS")}
    assert threads == bench.POD_ENV


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2 or 0 not in os.sched_getaffinity(0), reason="needs CPU 0 and one more")
def test_a_process_started_while_pinned_runs_on_that_cpu_only():
    mine = os.sched_getaffinity(0)
    with bench.pinned({0}):
        child = subprocess.Popen([sys.executable, "-c", "import threading, time; "
                                  "threading.Thread(target=time.sleep, args=(30,)).start(); time.sleep(30)"])
    try:
        assert os.sched_getaffinity(0) == mine  # this process as before
        assert bench.cpus_allowed(child.pid) == ["0"]  # every thread of the child
    finally:
        child.kill()
        child.wait()


def rung(page_p95: float, floor_p95: float, errors: dict | None = None) -> dict:
    row = lambda p95, errs: {"open": {"p95": p95, "n": 4}, "errors": errs, "exceptions": 0,  # noqa: E731
                             "load_average": [1.0, 1.0, 1.0]}
    return {"page": row(page_p95, errors or {}), "floor": row(floor_p95, {})}


def test_a_rung_is_within_when_the_median_p95_is_within_twice_the_floors_and_the_bound():
    step = bench.judge([rung(0.10, 0.07), rung(0.14, 0.06)], "open", 1.0)
    assert step["p95"] == [0.10, 0.14] and step["ratio"] == [1.43, 2.33]
    assert step["within_2x_floor"] and step["within_bound"]  # median 0.12 <= 2 x 0.065, one repeat's 2.33 or not
    step = bench.judge([rung(0.9, 0.06), rung(1.3, 0.08)], "open", 1.0)
    assert not step["within_2x_floor"] and not step["within_bound"]  # median 1.1 s
    step = bench.judge([rung(0.10, 0.06), rung(0.10, 0.06, {"timeout": 1})], "open", 1.0)
    assert not step["within_2x_floor"] and not step["within_bound"]  # a run with an error is never within


def test_per_visitor_cost_comes_from_the_marks():
    marks = {"opened": (11.0, 0.0), "edited": (13.0, 530.0)}  # (server CPU s, RSS MB)
    got = bench.per_visitor(marks, cpu0=10.0, rss0=500.0, visitors=10, edits=40)
    assert got == {"open_cpu_s_per_visitor": 0.1, "edit_cpu_s_per_edit": 0.05, "mb_per_visitor": 3.0}
    assert bench.per_visitor({}, 10.0, 500.0, 10, 0) == {}


def test_capacity_serves_as_a_pod_beside_the_floor():
    args = bench.parse_args(["--scenario", "capacity", "--page", "block"])
    assert args.pod and args.floor
    assert bench.plan(args) == [("capacity", "block")]
    with pytest.raises(SystemExit):
        bench.parse_args(["--pod", "--url", "http://127.0.0.1:8501"])
    assert bench.plan(bench.parse_args(["--scenario", "all"])) == [
        ("open", "playground"), ("edit", "playground"), ("soak", "playground")]


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


@pytest.mark.system  # bench_load.py starts two Streamlit servers, pinned to CPU 0
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2 or 0 not in os.sched_getaffinity(0), reason="needs CPU 0 and one more")
def test_every_pages_edit_changes_it_and_its_cost_is_reported(tmp_path):
    out = tmp_path / "cost.json"
    done = subprocess.run(
        [sys.executable, "benchmarks/bench_load.py", "--scenario", "cost", "--page", *wire.EDITS, "--visitors", "1",
         "--edits", "2", "--timeout", "90", "--floor", "--pod", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=420)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert list(report["environment"]["pod"]["server_cpus"].values()) == [[["0"]], [["0"]]]  # app, floor: CPU 0
    rows = report["rows"]
    assert [row["page"] for row in rows] == [page for p in wire.EDITS for page in (p, "home")]
    for row in rows:  # no_effect would be an error: each edit changed what its page shows
        assert row["errors"] == {} and row["exceptions"] == 0, row["samples"]
        assert row["edit"]["n"] == 2 and row["open_cpu_s_per_visitor"] >= 0 and row["edit_cpu_s_per_edit"] >= 0
        assert "mb_per_visitor" in row and len(row["load_average"]) == 3
    assert "ms an open" in done.stdout and "ms an edit" in done.stdout


@pytest.mark.system  # bench_load.py starts two Streamlit servers, pinned to CPU 0
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2 or 0 not in os.sched_getaffinity(0), reason="needs CPU 0 and one more")
def test_capacity_climbs_the_ladder_beside_the_floor(tmp_path):
    out = tmp_path / "capacity.json"
    done = subprocess.run(
        [sys.executable, "benchmarks/bench_load.py", "--scenario", "capacity", "--page", "heads", "--max-visitors", "2",
         "--class-seconds", "2", "--every", "1", "--timeout", "90", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=420)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert [(s["page"], s["kind"]) for s in report["capacity"]] == [("heads", "open"), ("heads", "class")]
    for summary in report["capacity"]:
        assert [step["visitors"] for step in summary["steps"]] in ([1], [1, 2])
        for step in summary["steps"]:
            assert len(step["p95"]) == len(step["floor_p95"]) == 1
        assert summary["largest_within_bound"] in (0, 1, 2)
    kinds = {(row["scenario"], row["page"]) for row in report["rows"]}
    assert kinds == {("open", "heads"), ("open", "home"), ("class", "heads"), ("class", "home")}
    for row in report["rows"]:
        assert row["errors"] == {} and row["exceptions"] == 0, row["samples"]
    assert "capacity of one process on one CPU" in done.stdout
