"""Shared fixtures, and the guard that keeps the fast tier fast.

Tiers: a test marked ``browser`` drives a real Chromium, one marked ``system`` starts a process
outside pytest (a Streamlit server, nginx, the container, an install into a fresh venv). The rest
is the fast tier, ``pytest -m "not browser and not system"``. A test in it that starts such a
process fails at once, naming the command: mark it, or make it cheaper.
"""

from __future__ import annotations

import os

# One thread a computation in every test process and every server it starts (unless set already): the workers fill
# the cores (tests/run.sh: four on two), and torch's and OpenBLAS's own pools of a thread a core in each worker waited
# for one another spinning. The fast tier's translation and embeddings files: 63 -> 47 s, 109 -> 89 CPU-s
# (docs/benchmarks.md). A test whose guarantee is about threads takes the ``two_threads`` fixture below.
for _pool in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_pool, "1")

import sys

# The test modules' and the app's bytecode kept between runs, as tests/run.sh keeps it (it unsets
# PYTHONDONTWRITEBYTECODE): with it set, as on this project's machines, each worker of the fast tier rewrote every test
# module's asserts and compiled the app again, run after run (a worker's collection 15-17 s, 10-11 s with the bytecode
# kept; docs/benchmarks.md).
sys.dont_write_bytecode = False

import shutil
import socket
import subprocess
import time
from pathlib import Path

import re

import pytest
from hypothesis import settings as hypothesis_settings

# Property tests check numbers, not time: hypothesis's default 200 ms deadline per example is a timed test, and on a
# loaded 2-core machine one example of test_order's match_text took 311 ms (the whole suite, 2026-11-27) and failed
# a correct test. Speed is the benchmarks' business (docs/benchmarks.md).
hypothesis_settings.register_profile("selfattn", deadline=None)
hypothesis_settings.load_profile("selfattn")
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from selfattn.hosting import HOSTED_ENV
from selfattn.text import models
from support.apptest import ask_one_key, keep_compiled_scripts
from support.chromium import chromium_browser
from support.deploy import find_nginx
from support.server import streamlit_server
from tests.fakehub import PICKLE_REPO, REPO, FakeHub, make_tiny_chinese_bert


@pytest.fixture
def two_threads():
    """torch on two threads for one test: the tests' own one thread (above) would hide code that sets none, or that
    does not give the threads back."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield 2
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def minilm() -> models.ModelBundle:
    """The bundled all-MiniLM-L6-v2, loaded once per test module (some tests empty the model cache)."""
    return models.load_model("minilm")


@pytest.fixture
def not_hosted(monkeypatch) -> None:
    """Local mode, whatever the environment says (hosted mode refuses local model folders)."""
    monkeypatch.delenv(HOSTED_ENV, raising=False)


@pytest.fixture
def downloads(monkeypatch) -> dict[str, bytes]:
    """Every file a download button offers during the test, by file name.

    Streamlit stores download data in its (real, in-memory) media file storage; this spy
    records each file on its way in and stores it as usual. A button whose file is made only
    when clicked (a callable, registered with ``add_deferred``) is recorded by calling the
    callable, as a click would, and then registered as usual.
    """
    files: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def spy(self, path_or_data, mimetype, kind, filename=None):
        if isinstance(path_or_data, bytes) and filename:
            files[filename] = path_or_data
        return original(self, path_or_data, mimetype, kind, filename)

    original_deferred = MediaFileManager.add_deferred

    def spy_deferred(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        data = data_callable()
        files[file_name] = data.encode("utf-8") if isinstance(data, str) else data
        return original_deferred(self, data_callable, mimetype, coordinates, file_name=file_name, **kwargs)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", spy)
    monkeypatch.setattr(MediaFileManager, "add_deferred", spy_deferred)
    return files


# ── A hub on 127.0.0.1 (tests/fakehub.py) ───────────────────────────────────────────────

@pytest.fixture(scope="module")
def tiny_files(tmp_path_factory) -> dict[str, bytes]:
    """The tiny model's files, plus a pickle file and a README that must never be downloaded."""
    folder = make_tiny_chinese_bert(tmp_path_factory.mktemp("tiny-zh") / "model")
    files = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= set(files)
    return {**files, "pytorch_model.bin": b"pickle bytes, never to be fetched", "README.md": b"# tiny\n"}


@pytest.fixture
def loopback_only(monkeypatch):
    """Any connection to a host other than 127.0.0.1 fails the test."""
    real_connect = socket.socket.connect

    def connect(sock, address):
        host = address[0] if isinstance(address, tuple) else address
        assert host in ("127.0.0.1", "::1", "localhost") or sock.family == socket.AF_UNIX, f"network use: {address}"
        return real_connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """An empty Hugging Face cache for this test, not hosted."""
    from huggingface_hub import constants

    monkeypatch.delenv(models.HOSTED_ENV, raising=False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    return tmp_path / "hub"


@pytest.fixture
def hub(tiny_files, cache, monkeypatch):
    """A running FakeHub with the tiny model and a pickle-only repo; HF_ENDPOINT points at it."""
    fake = FakeHub()
    fake.add(REPO, tiny_files)
    fake.add(PICKLE_REPO, {"config.json": tiny_files["config.json"], "vocab.txt": b"[PAD]\n[UNK]\n",
                           "pytorch_model.bin": b"pickle bytes"})
    fake.start()
    monkeypatch.setenv("HF_ENDPOINT", fake.url)
    yield fake
    fake.stop()


# ── Servers and a browser ────────────────────────────────────────────────────────────────

@pytest.fixture(scope="session")
def url():
    """`streamlit run app.py` on a free loopback port, one per test worker: the browser tests of every module it runs
    open their own sessions on it. (One a module started ~20 servers a run, each importing torch and loading MiniLM
    in its warm-up, 5-8 s of CPU each.) A module that needs a server of its own (hosted, or one it may stop) starts
    it itself."""
    with streamlit_server(timeout=120) as base:
        yield base


@pytest.fixture(scope="session")
def hosted(tmp_path_factory):
    """The app in hosted mode, one process per test worker, warmed up by one visit to the Playground: the hostile
    modules that attack it over its websocket and leave its configuration as they found it take turns on it (one
    a module started six such servers a run). A module that needs another configuration (a proxy's client header,
    a cache folder or a hub of its own) starts its own server."""
    from support import hostile

    with hostile.hosted_playground(tmp_path_factory.mktemp("hosted")) as target:
        yield target


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium per test module; each test opens its own context (tests/browser.py's browser_page)."""
    with chromium_browser() as chromium:
        yield chromium



@pytest.fixture(scope="module")
def nginx() -> str:
    """nginx from Debian; installed here when missing and we are root (tests/run.sh does it too)."""
    if find_nginx() is None and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, timeout=300)
        subprocess.run(["apt-get", "install", "-y", "-qq", "nginx"], env=env, capture_output=True, timeout=300)
    path = find_nginx()
    if path is None:
        pytest.skip("nginx is not installed and could not be installed (apt-get install nginx needs root)")
    return path


# ── One cache folder a worker ────────────────────────────────────────────────────────────

def _worker_cache() -> None:
    """Under pytest-xdist (tests/run.sh), each worker and the servers it starts get their own cache folder:
    the benchmark's one-sweep-at-a-time lock lives there, and two workers must not hold each other's turn.
    The character-vector tables already built are linked in, not built again."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker or os.environ.get("SELFATTN_CACHE_DIR_SHARED"):
        return
    from selfattn.text.charvec import CACHE_ENV, cache_dir

    shared = cache_dir()
    mine = shared / f"worker-{worker}"
    mine.mkdir(parents=True, exist_ok=True)
    for table in shared.glob("charvec-*.npz"):
        if not (mine / table.name).exists():
            try:
                os.link(table, mine / table.name)
            except OSError:
                shutil.copy2(table, mine / table.name)
    os.environ[CACHE_ENV] = str(mine)
    os.environ["SELFATTN_CACHE_DIR_SHARED"] = str(shared)


_worker_cache()
keep_compiled_scripts()  # AppTest compiles each script once a process, as a server does (support/apptest.py)
ask_one_key()  # `key in at.session_state` reads that key, not a copy of every key (support/apptest.py)


# ── The tier guard ───────────────────────────────────────────────────────────────────────

# Commands that only a browser or system test may start (matched in the command line).
SLOW_COMMANDS = re.compile(r"streamlit\s+run|chromium|playwright|nginx|haproxy|buildah|podman|debootstrap|\brunc\b"
                           r"|serve\.sh|-m\s+venv|benchmarks/bench_(?:load|browser|crowd|hostile|edit_bytes)")
_GUARD = {"on": False}
_real_popen_init = subprocess.Popen.__init__


def _guarded_popen_init(self, args, *more, **options):
    if _GUARD["on"]:
        command = " ".join(map(str, args)) if isinstance(args, (list, tuple)) else str(args)
        if SLOW_COMMANDS.search(command):
            raise AssertionError(f"a fast-tier test started {command[:200]!r}: mark it system or browser "
                                 "(pytest.ini), or keep it in-process")
    _real_popen_init(self, args, *more, **options)


subprocess.Popen.__init__ = _guarded_popen_init


def is_fast(item) -> bool:
    return not any(item.get_closest_marker(name) for name in ("browser", "system"))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _GUARD["on"] = is_fast(item)  # before any fixture of the test starts, a module's shared server included


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    _GUARD["on"] = False


# ── The longest files first ──────────────────────────────────────────────────────────────

# pytest-xdist (3.8, pytest.ini's --dist loadfile) hands whole files to its workers in the order they were
# collected: one to each worker, a second to each, then the next to whichever worker has at most two tests left.
# Handed longest first, the files that take minutes start at once and the run ends on short ones (a longest-
# processing-time schedule). xdist's own reordering (by the number of tests in a file, which put a one-test file
# of four minutes, the container build, last) is off in pytest.ini (--no-loadscope-reorder).
LONGEST_FIRST = (  # every file of 25 s or more in a whole run, longest first (SELFATTN_TEST_TIMELINE, 2026-11-29)
    "test_look_browser.py", "test_container.py", "test_layout_browser.py", "test_hostile.py",
    "test_benchmark_scripts.py", "test_hostile_flood.py", "test_playground_browser.py", "test_deploy.py",
    "test_bench_load.py", "test_seq2seq_browser.py", "test_block_browser.py", "test_hostile_messages.py",
    "test_efficient_browser.py", "test_translate.py", "test_linked_browser.py", "test_translator_browser.py",
    "test_hostile_heads.py", "test_share_browser.py", "test_hostile_embeddings.py", "test_faults.py",
    "test_preview_browser.py", "test_fuzz_block.py", "test_seq2seq_preview_browser.py", "test_poet_browser.py",
    "test_fuzz_embeddings.py", "test_embeddings_app.py", "test_fuzz_seq2seq.py", "test_fuzz_efficient.py",
    "test_fuzz_heads.py", "test_hostile_poet.py", "test_embeddings_browser.py", "test_fuzz_links.py",
    "test_charvec.py", "test_heads_browser.py", "test_map_scroll_browser.py", "test_seq2seq_app.py",
    "test_deploy_failover.py")


def run_order(files: list, longest: tuple = LONGEST_FIRST) -> list:
    """``files`` in the order xdist should take them: those named in ``longest``, in its order, then the others
    (a file not named there took under 25 s)."""
    named = sorted((f for f in files if f.name in longest), key=lambda f: longest.index(f.name))
    return named + [f for f in files if f.name not in longest]


def pytest_collection_modifyitems(config, items):
    by_file: dict = {}
    for item in items:
        by_file.setdefault(item.path, []).append(item)
    items[:] = [item for f in run_order(list(by_file)) for item in by_file[f]]


# ── Installed components, scanned once ────────────────────────────────────────────────────

def _scan_once():
    """Streamlit's server scans the installed packages for components once, as it starts; each AppTest scans them
    again (every distribution's metadata parsed: 0.13 s on a quiet machine, more under load), and the suite makes
    well over a thousand AppTests. The packages do not change while the tests run, so the first scan's answer is
    kept for the rest (a fresh list each time, as the scanner returns)."""
    from streamlit.components.v2 import manifest_scanner

    scan, kept = manifest_scanner.scan_component_manifests, []

    def scan_once(max_workers=None):
        if not kept:
            kept.append(scan(max_workers))
        return list(kept[0])

    manifest_scanner.scan_component_manifests = scan_once  # AppTest imports it from the module at each start


_scan_once()


# ── A timeline of the run, on request ─────────────────────────────────────────────────────

TIMELINE_ENV = "SELFATTN_TEST_TIMELINE"  # a file: each test appends "worker start end seconds pid nodeid" to it


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """With ``SELFATTN_TEST_TIMELINE=FILE``, each test's worker, wall-clock start and end (setup to teardown) and the
    worker's pid are appended to FILE: where a whole run's minutes go, and which worker's tail ends it (docs/benchmarks.md)."""
    path = os.environ.get(TIMELINE_ENV)
    started = time.time()
    yield
    if path:
        ended = time.time()
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')} {started:.2f} {ended:.2f} "
                      f"{ended - started:.2f} {os.getpid()} {item.nodeid}\n")


# ── A failure named as it happens ─────────────────────────────────────────────────────────

_CONFIG: dict = {}


def pytest_configure(config):
    _CONFIG["config"] = config


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failing test that served the app or drove Chromium says what they showed as it failed: the tail of each
    server's output (its warnings: a refused message, a run that waited long for its turn) and each open page's
    address and text. A race met once in a whole run then explains itself."""
    outcome = yield
    report = outcome.get_result()
    if not report.failed or call.when == "teardown":
        return
    from support.server import log_tail

    seen = set()
    for value in item.funcargs.values():
        url = value if isinstance(value, str) else getattr(value, "url", None)
        if isinstance(url, str) and url.startswith("http") and url not in seen and log_tail(url):
            seen.add(url)
            report.sections.append((f"server {url}: its last output", log_tail(url)))
    browser = item.funcargs.get("browser")
    for context in getattr(browser, "contexts", []):
        for page in context.pages:
            try:
                text = page.locator("body").inner_text(timeout=2000)[-3000:]
            except Exception as exc:  # the page may be the reason the test failed
                text = f"(its text could not be read: {exc})"
            report.sections.append((f"page {page.url[:300]}", text))


def pytest_runtest_logreport(report):
    """A failing test is named on its own line the moment it fails (pytest's progress line only shows an F, and
    its summary comes at the end: a run stopped before then never said which test failed)."""
    if report.failed and "PYTEST_XDIST_WORKER" not in os.environ and "config" in _CONFIG:
        reporter = _CONFIG["config"].pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"\nFAILED {report.nodeid} ({report.when}, {time.strftime('%H:%M:%S')})", red=True)
