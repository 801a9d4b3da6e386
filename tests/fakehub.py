"""A model hub on 127.0.0.1 for the download tests, and the tiny Chinese BERT it serves.

``FakeHub`` serves repos in the URL layout huggingface_hub's client uses (read from its source,
huggingface_hub 2.x): ``GET /api/models/{repo}/revision/{rev}`` (model_info: ``sha`` and
``siblings`` with sizes), ``GET /api/models/{repo}/tree/{sha}`` (the listing snapshot_download
caches), and ``HEAD``/``GET /{repo}/resolve/{rev}/{file}`` with ``ETag``, ``X-Repo-Commit`` and
``Content-Length`` (Range requests answered with 206). Errors carry ``X-Error-Code``
(RepoNotFound, RevisionNotFound, EntryNotFound) as the hub's do. ``HF_ENDPOINT`` points at it and
the Hugging Face cache is a temporary folder; the fixture ``loopback_only`` (tests/conftest.py)
refuses any connection that is not to 127.0.0.1, so these tests never reach the network.
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

REPO = "selfattn-tests/tiny-zh"
PICKLE_REPO = "selfattn-tests/pickle-only"
TINY_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", "good",
              "morning", ".", "早", "上", "好"]

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


def make_tiny_bert(folder, model_type="bert", num_layers=2, num_heads=2):
    """Save a 2-layer, 2-head (by default), 32-d random BERT (or DistilBERT) and a 16-word WordPiece tokenizer."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizer, DistilBertConfig, DistilBertModel

    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    if model_type == "bert":
        config = BertConfig(vocab_size=len(TINY_VOCAB), hidden_size=32, num_hidden_layers=num_layers,
                            num_attention_heads=num_heads, intermediate_size=64, max_position_embeddings=64,
                            initializer_range=0.5)
        model = BertModel(config)
    else:
        config = DistilBertConfig(vocab_size=len(TINY_VOCAB), dim=32, n_layers=num_layers, n_heads=num_heads,
                                  hidden_dim=64, max_position_embeddings=64, initializer_range=0.5)
        model = DistilBertModel(config)
    model.save_pretrained(folder)  # safetensors is the default format
    # transformers 5 builds the WordPiece tokenizer from a {token: id} dict; saved as tokenizer.json
    BertTokenizer(vocab={token: i for i, token in enumerate(TINY_VOCAB)}).save_pretrained(folder)
    return folder
