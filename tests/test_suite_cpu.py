"""benchmarks/suite_cpu.py: a whole run's CPU given to the test file it was spent for (issue 51 item 5's measure).

The attribution is checked on made-up samples and processes; one real run of a command that spends CPU in a child
and in a grandchild that ends between two samples checks what /proc gives against the command's own count.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load():
    spec = importlib.util.spec_from_file_location("suite_cpu", ROOT / "benchmarks" / "suite_cpu.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["suite_cpu"] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


suite_cpu = load()
Proc = suite_cpu.Proc


def test_a_stat_line_is_read_past_a_name_with_brackets_and_spaces():
    line = "4242 (Web Content (x)) S 17 4242 17 0 -1 4194560 0 0 0 0 150 30 7 3 20 0 1 0 100 0 0"
    assert suite_cpu.parse_stat(line) == Proc(4242, 17, "Web Content (x)", 180, 10)


def test_processes_are_told_apart_by_what_they_are():
    assert suite_cpu.kind("chromium", b"/usr/lib/chromium/chromium\0--type=renderer") == "Chromium"
    assert suite_cpu.kind("python3", b"python3\0-m\0streamlit\0run\0app.py") == "Streamlit servers"
    assert suite_cpu.kind("python3", b"python3\0-m\0pip\0install\0-r") == "pip"
    assert suite_cpu.kind("node-MainThread", b"/x/playwright/driver/node\0cli.js") == "Playwright drivers"
    assert suite_cpu.kind("buildah", b"buildah\0bud") == "container build"
    assert suite_cpu.kind("python3", b"python3\0-c\0import sys;exec(eval(sys.stdin.readline()))") \
        == "pytest and other Python"


def test_cpu_goes_to_the_file_its_worker_ran_then():
    lines = ["gw0 100.00 110.00 10.00 70 tests/test_a.py::test_one",
             "gw0 110.00 130.00 20.00 70 tests/test_b.py::test_two[x y]",
             "gw1 100.00 140.00 40.00 71 tests/test_c.py::test_three"]
    timeline = suite_cpu.read_timeline(lines)
    samples = [(105, {("gw0", "Chromium"): 1.0, ("gw1", "pip"): 2.0, (None, "pytest and other Python"): 0.5}),
               (111, {("gw0", "Chromium"): 1.5}),  # the test before ended a second ago: its teardown lags into it
               (120, {("gw0", "Streamlit servers"): 3.0}),
               (135, {("gw0", "Chromium"): 0.25})]  # gw0 runs nothing then
    by_file, by_kind, by_both = suite_cpu.attribute(samples, timeline)
    assert by_file == {"tests/test_a.py": 1.0, "tests/test_b.py": 4.5, "tests/test_c.py": 2.0,
                       "pytest (before a worker is known)": 0.5, "gw0 between tests": 0.25}
    assert by_kind == {"Chromium": 2.75, "pip": 2.0, "pytest and other Python": 0.5, "Streamlit servers": 3.0}
    assert by_both["tests/test_b.py"] == {"Chromium": 1.5, "Streamlit servers": 3.0}
    assert by_both["gw0 between tests"] == {"Chromium": 0.25}
    by_test, _, _ = suite_cpu.attribute(samples, suite_cpu.read_timeline(lines, by="test"))
    assert by_test["tests/test_b.py::test_two[x y]"] == 4.5 and by_test["tests/test_a.py::test_one"] == 1.0


def test_a_worker_that_starts_no_process_is_known_by_its_pid(monkeypatch):
    """A worker is named in its own environment only after it started (xdist names it then), and by a process it
    starts; one that starts none (the fast tier's) is known by its pid, which the timeline gives with each test."""
    files = {"/proc/10/cmdline": b"python3\0-c\0import sys;exec(eval(sys.stdin.readline()))",
             "/proc/1/cmdline": b"python3\0-m\0pytest"}
    monkeypatch.setattr(suite_cpu, "read_bytes", lambda path: files.get(path, b""))
    monkeypatch.setattr(suite_cpu, "TICK", 100)
    sampler = suite_cpu.Sampler(root=1)
    first = sampler.sample({1: Proc(1, 0, "python3", 100, 0), 10: Proc(10, 1, "python3", 300, 0)})
    assert first == {(None, "pytest and other Python"): 1.0, ("pid 10", "pytest and other Python"): 3.0}
    timeline = suite_cpu.read_timeline(["gw1 99.00 110.00 11.00 10 tests/test_a.py::test_one"])
    by_file, _, _ = suite_cpu.attribute([(105, first)], timeline)
    assert by_file == {"tests/test_a.py": 3.0, "pytest (before a worker is known)": 1.0}
    # named later by a process it starts: its name from then on
    files["/proc/11/environ"] = b"PYTEST_XDIST_WORKER=gw1\0"
    later = sampler.sample({1: Proc(1, 0, "python3", 100, 0), 10: Proc(10, 1, "python3", 400, 0),
                            11: Proc(11, 10, "chromium", 50, 0)})
    assert later == {("gw1", "pytest and other Python"): 1.0, ("gw1", "Chromium"): 0.5}


def test_a_child_that_ends_between_samples_is_counted_once_through_its_parent(monkeypatch):
    """A child seen alive counts what it spent until then; when it ends, its parent's reaped time grows by the child's
    whole time, of which only what was not counted yet is added. A worker is the parent of a process naming it (its
own environment does not: xdist names it after it started)."""
    files = {"/proc/11/environ": b"PYTEST_XDIST_WORKER=gw3\0", "/proc/10/cmdline": b"python3\0-c\0sys.stdin.readline"}
    monkeypatch.setattr(suite_cpu, "read_bytes", lambda path: files.get(path, b""))
    monkeypatch.setattr(suite_cpu, "TICK", 100)
    sampler = suite_cpu.Sampler(root=1)
    root, worker = Proc(1, 0, "bash", 0, 0), Proc(10, 1, "python3", 200, 0)
    first = sampler.sample({1: root, 10: worker, 11: Proc(11, 10, "chromium", 50, 0)})
    assert first == {("gw3", "pytest and other Python"): 2.0, ("gw3", "Chromium"): 0.5}
    # the child (50 ticks seen, 80 at its end) is gone and reaped; the worker spent 10 ticks of its own
    second = sampler.sample({1: root, 10: Proc(10, 1, "python3", 210, 80)})
    assert second == {("gw3", "pytest and other Python"): 0.4}  # its own 10 ticks, and 30 of the child's 80
    third = sampler.sample({1: root, 10: Proc(10, 1, "python3", 210, 80)})
    assert third == {}


def test_a_real_run_counts_what_its_processes_spent(tmp_path):
    """A command whose child spins 0.6 s of CPU in a grandchild that ends before the next sample (samples 2 s apart):
    /proc's own count of the command (its reaped children's time) and the script's agree within 0.2 s."""
    spin = "import time; t = time.process_time(); exec('while time.process_time() - t < 0.6: pass')"
    script = tmp_path / "run.sh"
    script.write_text(f'sleep 0.3; python3 -c "{spin}"; sleep 2.5\n')
    out = tmp_path / "cpu.json"
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "suite_cpu.py"), "--every", "2", "--json", str(out),
                           "--", "bash", str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    got = json.loads(out.read_text())
    assert 0.5 <= got["cpu_s"] <= 1.0, got
    assert "CPU by test file" in done.stdout and "the whole machine's CPU" in done.stdout


def test_a_child_and_its_child_ending_in_the_same_second_are_counted_once(monkeypatch):
    """A build step's shell and the pip under it end between two samples: pip's time reaches the shell as the shell
    reaps it, then with the shell's the step's parent; only what neither had been counted for is added (before:
    pip's 60 s of a container build were counted twice, 168 s against the machine's 121)."""
    monkeypatch.setattr(suite_cpu, "read_bytes", lambda path: b"")
    monkeypatch.setattr(suite_cpu, "TICK", 100)
    sampler = suite_cpu.Sampler(root=1)
    root = Proc(1, 0, "buildah", 0, 0)
    sampler.sample({1: root, 2: Proc(2, 1, "sh", 10, 0), 3: Proc(3, 2, "pip", 50, 0)})
    # the shell spent 2 more ticks, pip 10 more; the shell reaped pip (60), then buildah the shell (12 + 60)
    after = sampler.sample({1: Proc(1, 0, "buildah", 0, 72)})
    assert after == {(None, "container build"): 0.12}
