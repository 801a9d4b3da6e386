"""Downloading a model from the hub, for real, against a hub on 127.0.0.1.

``FakeHub`` serves repos in the URL layout huggingface_hub's client uses (read from its source,
huggingface_hub 2.x): ``GET /api/models/{repo}/revision/{rev}`` (model_info: ``sha`` and
``siblings`` with sizes), ``GET /api/models/{repo}/tree/{sha}`` (the listing snapshot_download
caches), and ``HEAD``/``GET /{repo}/resolve/{rev}/{file}`` with ``ETag``, ``X-Repo-Commit`` and
``Content-Length`` (Range requests answered with 206). Errors carry ``X-Error-Code``
(RepoNotFound, RevisionNotFound, EntryNotFound) as the hub's do. ``HF_ENDPOINT`` points at it and
the Hugging Face cache is a temporary folder; a guard refuses any connection that is not to
127.0.0.1, so these tests never reach the network.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from selfattn.errors import InputError
from selfattn.text import models, prefetch, readout

ROOT = Path(__file__).resolve().parents[1]
REPO = "selfattn-tests/tiny-zh"
PICKLE_REPO = "selfattn-tests/pickle-only"
CHINESE_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *"我爱自然语言处理早上好今天气很，。"]


def make_tiny_chinese_bert(folder: Path) -> Path:
    """Save a 2-layer, 2-head, 32-d random BERT with a character-level Chinese WordPiece tokenizer
    (like bert-base-chinese's, 22 tokens: characters outside it become [UNK])."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(CHINESE_VOCAB), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64, initializer_range=0.5)
    BertModel(config).save_pretrained(folder)  # config.json + model.safetensors
    BertTokenizer(vocab={token: i for i, token in enumerate(CHINESE_VOCAB)}).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_files(tmp_path_factory) -> dict[str, bytes]:
    """The tiny model's files, plus a pickle file and a README that must never be downloaded."""
    folder = make_tiny_chinese_bert(tmp_path_factory.mktemp("tiny-zh") / "model")
    files = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= set(files)
    return {**files, "pytorch_model.bin": b"pickle bytes, never to be fetched", "README.md": b"# tiny\n"}


class FakeHub:
    """Repos served over HTTP the way the hub serves them, with a log of every request."""

    def __init__(self):
        self.repos: dict[str, tuple[str, dict[str, bytes]]] = {}  # repo id -> (commit sha, {path: bytes})
        self.requests: list[tuple[str, str]] = []  # (method, path)
        self.drop: set[str] = set()  # files whose GET is cut off half-way, and never served again
        self.sizes_in_info = True  # False: model_info's siblings without sizes, as some mirrors answer
        self.server: ThreadingHTTPServer | None = None

    def add(self, repo: str, files: dict[str, bytes]) -> str:
        sha = hashlib.sha1(json.dumps(sorted((k, hashlib.sha256(v).hexdigest()) for k, v in files.items()))
                           .encode()).hexdigest()
        self.repos[repo] = (sha, dict(files))
        return sha

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def fetched(self) -> list[str]:
        """Files downloaded (GET .../resolve/...), in order."""
        return [path.rsplit("/resolve/", 1)[1].split("/", 1)[1] for method, path in self.requests
                if method == "GET" and "/resolve/" in path]

    def find(self, rest: str) -> tuple[str, str] | None:
        """(repo id, what follows it) for a path that starts with a known repo id."""
        for repo in sorted(self.repos, key=len, reverse=True):
            if rest == repo or rest.startswith(repo + "/"):
                return repo, rest[len(repo) + 1:]
        return None

    def start(self) -> None:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_HEAD(self):
                self.answer(body=False)

            def do_GET(self):
                self.answer(body=True)

            def send(self, status: int, data: bytes = b"", headers: dict | None = None, body: bool = True):
                self.send_response(status)
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if body:
                    self.wfile.write(data)

            def json(self, value, body):
                self.send(200, json.dumps(value).encode(), {"Content-Type": "application/json"}, body)

            def error(self, status, code, body, commit=None):
                headers = {"X-Error-Code": code, "Content-Type": "application/json"}
                if commit:
                    headers["X-Repo-Commit"] = commit
                self.send(status, json.dumps({"error": code}).encode(), headers, body)

            def answer(self, body: bool):
                path = unquote(urlsplit(self.path).path)
                hub.requests.append((self.command, path))
                if path.startswith("/api/models/"):
                    found = hub.find(path[len("/api/models/"):])
                    if found is None:
                        return self.error(404, "RepoNotFound", body)
                    repo, rest = found
                    sha, files = hub.repos[repo]
                    match = re.fullmatch(r"(?:revision/(?P<rev>[^/]+))?|tree/(?P<tree>[^/]+)", rest)
                    revision = match and (match.group("rev") or match.group("tree") or "main")
                    if revision not in ("main", sha):
                        return self.error(404, "RevisionNotFound", body)
                    if match.group("tree"):
                        return self.json([{"type": "file", "path": p, "size": len(d),
                                           "oid": hashlib.sha1(d).hexdigest()} for p, d in sorted(files.items())], body)
                    return self.json({"id": repo, "sha": sha, "private": False, "siblings": [
                        {"rfilename": p, **({"size": len(d), "blobId": hashlib.sha1(d).hexdigest()}
                                            if hub.sizes_in_info else {})}
                        for p, d in sorted(files.items())]}, body)
                found = hub.find(path[1:])
                match = found and re.fullmatch(r"resolve/(?P<rev>[^/]+)/(?P<file>.+)", found[1])
                if not match:
                    return self.error(404, "RepoNotFound", body)
                sha, files = hub.repos[found[0]]
                if match.group("rev") not in ("main", sha):
                    return self.error(404, "RevisionNotFound", body)
                name = match.group("file")
                if name not in files:
                    return self.error(404, "EntryNotFound", body, commit=sha)
                data = files[name]
                headers = {"ETag": f'"{hashlib.sha256(data).hexdigest()}"', "X-Repo-Commit": sha,
                           "Accept-Ranges": "bytes", "Content-Type": "application/octet-stream"}
                if body and name in hub.drop:
                    return self.cut_off(data, headers, first=("GET", path) not in hub.requests[:-1])
                start = 0
                ranged = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range", ""))
                if body and ranged:
                    start = int(ranged.group(1))
                    headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
                self.send(206 if start else 200, data[start:], headers, body)

            def cut_off(self, data: bytes, headers: dict, first: bool):
                """The first GET sends the headers and half the bytes, then the connection drops;
                later ones (huggingface_hub retries) drop before answering."""
                if first:
                    self.send_response(200)
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(autouse=True)
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


WANTED = ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"]


def repo_folder(cache: Path, repo: str) -> Path:
    return cache / ("models--" + repo.replace("/", "--"))


def leftovers(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.rglob("*.incomplete"))


def test_plan_says_the_size_first_and_writes_nothing(hub, cache, tiny_files):
    plan = prefetch.plan_download(REPO)
    assert plan.endpoint == hub.url and not plan.cached and plan.commit == hub.repos[REPO][0]
    assert [path for path, _ in plan.files] == WANTED  # no pickle, no README
    assert plan.total_bytes == sum(len(tiny_files[name]) for name in WANTED)
    assert hub.requests == [("GET", f"/api/models/{REPO}/revision/main")]
    assert not cache.exists()
    hub.sizes_in_info = False  # a mirror that lists no sizes: they come from the repo's file tree
    assert prefetch.plan_download(REPO) == plan
    assert hub.requests[-1] == ("GET", f"/api/models/{REPO}/tree/{plan.commit}")


def test_download_reports_progress_then_works_offline(hub, cache, tiny_files):
    from huggingface_hub import constants

    offline_before = constants.HF_HUB_OFFLINE
    calls = []
    folder = prefetch.download_model(REPO, progress=lambda done, total: calls.append((done, total)))
    total = sum(len(tiny_files[name]) for name in WANTED)
    assert calls[0] == (0, total) and calls[-1] == (total, total) and len(calls) >= 3
    dones = [done for done, _ in calls]
    assert dones == sorted(set(dones)) and all(t == total for _, t in calls)  # rising, never repeated
    assert sorted(hub.fetched()) == WANTED  # the pickle file and the README never came
    assert folder.parent == repo_folder(cache, REPO) / "snapshots" and folder.name == hub.repos[REPO][0]
    assert sorted(p.name for p in folder.iterdir()) == WANTED and leftovers(cache) == []
    assert constants.HF_HUB_OFFLINE == offline_before  # the offline switch is back

    hub.stop()  # from now on, no hub at all
    bundle = models.load_model(REPO)
    assert bundle.origin == "hub" and Path(bundle.folder) == folder and bundle.num_layers == 2
    run = models.run_model(bundle, "我爱自然语言处理")
    assert run.tokens == ["[CLS]", *"我爱自然语言处理", "[SEP]"]
    assert readout.word_labels(run, readout.word_groups(run)) == ["[CLS]", "我", "爱", "自然语言", "处理", "[SEP]"]
    assert prefetch.download_model(REPO) == folder  # already there: no request, nothing downloaded
    assert prefetch.load_or_download(REPO) is bundle


def test_load_model_downloads_only_when_allowed(hub, cache):
    with pytest.raises(InputError) as err:
        models.load_model(REPO)
    assert err.value.code == "offline" and hub.requests == []
    calls = []
    bundle = prefetch.load_or_download(REPO, progress=lambda done, total: calls.append(done))
    assert bundle.origin == "hub" and calls[0] == 0 and calls[-1] == bundle_bytes(bundle)


def bundle_bytes(bundle) -> int:
    return sum(p.stat().st_size for p in Path(bundle.folder).iterdir())


def test_pickle_only_repo_is_refused_before_anything_is_fetched(hub, cache):
    with pytest.raises(InputError) as err:
        prefetch.download_model(PICKLE_REPO, progress=lambda *a: pytest.fail("no progress for a refused repo"))
    assert err.value.code == "hub_no_safetensors" and err.value.params == {"name": PICKLE_REPO}
    assert "pytorch_model.bin" in str(err.value) and "never downloaded" in str(err.value)
    assert hub.fetched() == [] and not cache.exists()


def test_unknown_repo_and_unreachable_hub(hub, cache, monkeypatch):
    with pytest.raises(InputError) as err:
        prefetch.download_model("selfattn-tests/no-such-model")
    assert err.value.code == "hub_not_found" and err.value.params["endpoint"] == hub.url
    hub.stop()
    with pytest.raises(InputError) as err:
        prefetch.plan_download(REPO)
    assert err.value.code == "hub_unreachable" and err.value.params == {"name": REPO}
    assert hub.url in str(err.value)  # the host's command line says where it tried; the page does not (below)
    monkeypatch.setenv("HF_ENDPOINT", "http://no-such-host.invalid")  # a name that does not resolve (no lookup
    with pytest.raises(InputError) as err:                              # leaves the machine: .invalid is reserved)
        prefetch.plan_download(REPO)
    assert err.value.code == "hub_unreachable"


def test_a_visitor_reads_plain_words_never_an_endpoint_or_errno(hub, cache):
    """What the page shows for each download error, in both languages: the model and what happened, no URL, no errno."""
    from selfattn.i18n import LANGS, t

    hub.stop()
    failures = []
    for call in (lambda: prefetch.plan_download(REPO), lambda: prefetch.download_model("selfattn-tests/none")):
        with pytest.raises(InputError) as err:
            call()
        failures.append(err.value)
    failures += [prefetch._as_input_error(OSError(-2, "Name or service not known"), REPO, hub.url),
                 InputError("hub_not_found", "", name=REPO, endpoint=hub.url),
                 InputError("download_failed", "", name=REPO, endpoint=hub.url, reason="[Errno 104] reset")]
    for exc in failures:
        for lang in LANGS:
            text = t(f"err.{exc.code}", lang, **exc.params)
            assert "http" not in text and "127.0.0.1" not in text and "Errno" not in text, text
            assert "[" not in text and not any(ch.isdigit() for ch in text), text
    assert t("err.hub_unreachable", "en") == ("The model could not be downloaded: this server cannot reach the "
                                              "model hub.")


def test_old_ids_are_one_model_stored_once(hub, cache, tiny_files):
    """bert-base-chinese moved to google-bert/bert-base-chinese on the hub: either id downloads and loads one copy."""
    hub.add("google-bert/bert-base-chinese", tiny_files)
    folder = prefetch.download_model("bert-base-chinese")
    assert prefetch.plan_download("Bert-Base-Chinese").cached  # any case, no request
    assert [p.name for p in cache.iterdir() if p.name.startswith("models--")] == \
        ["models--google-bert--bert-base-chinese"]
    assert hub.requests and all("/google-bert/bert-base-chinese/" in path for _, path in hub.requests)
    requests = len(hub.requests)
    for spec in ("bert-base-chinese", "google-bert/bert-base-chinese"):
        bundle = models.load_model(spec)
        assert bundle.name == "google-bert/bert-base-chinese" and Path(bundle.folder) == folder
    assert prefetch.download_model("google-bert/bert-base-chinese") == folder and len(hub.requests) == requests


def test_a_copy_cached_under_the_old_id_still_loads(hub, cache, tiny_files):
    """A server whose host prefetched bert-base-chinese before the ids were merged keeps using that copy."""
    hub.add("bert-base-chinese", tiny_files)
    from huggingface_hub import snapshot_download

    with prefetch.hub_online():  # a page opened earlier in this process set HF_HUB_OFFLINE (models.stay_offline)
        old = snapshot_download("bert-base-chinese", allow_patterns=list(models.DOWNLOAD_PATTERNS), endpoint=hub.url)
    hub.stop()
    bundle = models.load_model("google-bert/bert-base-chinese")
    assert bundle.name == "google-bert/bert-base-chinese" and Path(bundle.folder) == Path(old).resolve()


def test_visitors_of_a_hosted_demo_download_only_when_the_host_opts_in(hub, cache, monkeypatch):
    monkeypatch.delenv(prefetch.ALLOW_DOWNLOADS_ENV, raising=False)
    assert prefetch.visitors_may_download()  # on one's own machine, a click downloads
    monkeypatch.setenv(models.HOSTED_ENV, "1")
    assert not prefetch.visitors_may_download()
    with pytest.raises(InputError) as err:
        prefetch.check_visitor_download("google-bert/bert-base-chinese")
    assert err.value.code == "only_installed" and err.value.params == {"name": "google-bert/bert-base-chinese"}
    monkeypatch.setenv(prefetch.ALLOW_DOWNLOADS_ENV, "1")
    assert prefetch.visitors_may_download()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the host's own offline switch wins
    monkeypatch.delenv(models.OFFLINE_MARK, raising=False)
    assert not prefetch.visitors_may_download()
    monkeypatch.delenv(prefetch.ALLOW_DOWNLOADS_ENV)  # the Dockerfile: hosted, and offline after its prefetch
    with pytest.raises(InputError) as err:
        prefetch.check_visitor_download("google-bert/bert-base-chinese")
    assert err.value.code == "only_installed"  # what the visitor needs to know: this demo has what it has
    assert hub.requests == []


def test_hosted_mode_refuses_other_ids_without_contacting_the_server(hub, cache, monkeypatch, tiny_files):
    monkeypatch.setenv(models.HOSTED_ENV, "1")
    for call in (prefetch.plan_download, prefetch.download_model, prefetch.load_or_download):
        with pytest.raises(InputError) as err:
            call(REPO)
        assert err.value.code == "not_allowed_hosted"
    assert hub.requests == [] and not cache.exists()
    # the host's own call downloads an allow-listed id in hosted mode (here the tiny model, served under
    # bert-base-chinese's new id), with or without SELFATTN_ALLOW_DOWNLOADS, which is about visitors
    hub.add("google-bert/bert-base-chinese", tiny_files)
    assert "google-bert/bert-base-chinese" in models.HOSTED_ALLOWLIST
    bundle = prefetch.load_or_download("bert-base-chinese")
    assert bundle.origin == "hub" and bundle.name == "google-bert/bert-base-chinese"


def test_download_lifts_our_offline_switch_only_while_it_runs(hub, cache, monkeypatch):
    """As in the app: HF_HUB_OFFLINE=1 from stay_offline was read when huggingface_hub was imported."""
    from huggingface_hub import constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv(models.OFFLINE_MARK, "1")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    folder = prefetch.download_model(REPO)
    assert constants.HF_HUB_OFFLINE is True and sorted(hub.fetched()) == WANTED
    assert models.load_model(REPO).folder == str(folder)


def test_host_set_offline_switches_downloads_off(hub, cache, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv(models.OFFLINE_MARK, raising=False)  # the host's own setting, not stay_offline's
    with pytest.raises(InputError) as err:
        prefetch.load_or_download(REPO)
    assert err.value.code == "downloads_off" and hub.requests == []
    monkeypatch.setenv(models.OFFLINE_MARK, "1")  # set by stay_offline (here or in a parent process): ours to lift
    assert prefetch.download_model(REPO).is_dir()


class NoWaitTime:
    """The time module, with sleep() not waiting: huggingface_hub waits 1 s before each of its 5 retries."""

    def __getattr__(self, name):
        import time

        return getattr(time, name)

    @staticmethod
    def sleep(seconds):
        pass


def test_connection_dropped_mid_download_keeps_nothing_partial(hub, cache, tiny_files, monkeypatch):
    from huggingface_hub import file_download

    monkeypatch.setattr(file_download, "time", NoWaitTime(), raising=False)
    hub.drop = {"model.safetensors"}
    calls = []
    with pytest.raises(InputError) as err:
        prefetch.download_model(REPO, progress=lambda done, total: calls.append((done, total)))
    assert err.value.code == "download_failed" and "try again" in str(err.value)
    assert hub.fetched().count("model.safetensors") == 6  # cut off half-way, then 5 retries dropped unanswered
    assert calls and calls[-1][0] < calls[-1][1]  # progress stopped short of the total
    assert leftovers(cache) == []  # the half-written file was removed
    snapshot = repo_folder(cache, REPO) / "snapshots" / hub.repos[REPO][0]
    assert (snapshot / "config.json").is_file() and not (snapshot / "model.safetensors").exists()
    weights_blob = repo_folder(cache, REPO) / "blobs" / hashlib.sha256(tiny_files["model.safetensors"]).hexdigest()
    assert not weights_blob.exists()
    # the half-downloaded model is never used: loading says so, offline
    for allow in (False, True):
        hub.requests.clear()
        with pytest.raises(InputError) as err:
            (prefetch.load_or_download if allow else models.load_model)(REPO)  # with allow: the server still drops
        assert err.value.code == ("download_incomplete" if not allow else "download_failed")
    # the server is back: downloading again completes the copy, fetching only what is missing
    hub.drop = set()
    hub.requests.clear()
    bundle = prefetch.load_or_download(REPO)
    assert hub.fetched() == ["model.safetensors"] and bundle.num_heads == 2


def test_prefetch_command(hub, cache, tmp_path):
    env = {**os.environ, "HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_CACHE": str(cache),
           "PYTHONPATH": str(ROOT)}
    env.pop(models.HOSTED_ENV, None)
    done = subprocess.run([sys.executable, "-m", "selfattn.text.prefetch", REPO], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert re.fullmatch(rf"{REPO}: \d+\.\d kB in 4 files from {re.escape(hub.url)}", lines[0]), lines
    assert "  0%" in lines[1] and "100%" in lines[-2] and lines[-1].startswith(f"{REPO}: ready in {cache}")
    assert done.stderr == ""
    again = subprocess.run([sys.executable, "-m", "selfattn.text.prefetch", REPO, PICKLE_REPO], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 1 and again.stdout.startswith(f"{REPO}: already in the cache")
    assert again.stderr.startswith(f"prefetch: {PICKLE_REPO} has no .safetensors weights")


def test_install_sh_prefetch_step(hub, cache, tmp_path):
    """`deploy/install.sh prefetch` runs the command for SELFATTN_PREFETCH (not a default step)."""
    env = {**os.environ, "HF_ENDPOINT": hub.url, "HF_HUB_CACHE": str(cache), "PYTHON": sys.executable,
           "SELFATTN_PREFETCH": REPO, "PYTHONPATH": str(ROOT)}
    env.pop(models.HOSTED_ENV, None)
    done = subprocess.run(["bash", str(ROOT / "deploy" / "install.sh"), "prefetch"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"{REPO}: ready in" in done.stdout and "install.sh: done" in done.stdout
    assert (repo_folder(cache, REPO) / "snapshots" / hub.repos[REPO][0] / "model.safetensors").is_file()
    script = (ROOT / "deploy" / "install.sh").read_text()
    assert re.search(r"steps=\(deps cache check\)", script)  # prefetch stays off by default
