"""deploy/serve.sh driven for the tests: replicas behind nginx on 127.0.0.1, their processes read from /proc."""

from __future__ import annotations

import http.client
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

from support.server import free_port  # noqa: F401 - part of this module's interface (tests/test_deploy.py)

ROOT = Path(__file__).resolve().parents[1]
SERVE = ROOT / "deploy" / "serve.sh"
INSTALL = ROOT / "deploy" / "install.sh"
COOKIE = "selfattn_route"
REPLICA_HEADER = "X-Selfattn-Replica"


def requirement_pin(name: str) -> str:
    """The version requirements.txt pins ``name`` to (the install tests hold installs to it)."""
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        if line.startswith(f"{name}=="):
            return line.split("==", 1)[1].split()[0]
    raise AssertionError(f"{name} is not pinned in requirements.txt")


def find_nginx() -> str | None:
    """Debian's nginx, or None."""
    return shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)


def request(port: int, path: str = "/", cookie: str | None = None, method: str = "GET",
            body: bytes | None = None, headers: dict[str, str] | None = None,
            ) -> tuple[int, http.client.HTTPMessage, bytes]:
    """One request from a fresh client (no cookie jar): status, headers, body."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=body, headers={**({"Cookie": cookie} if cookie else {}), **(headers or {})})
        resp = conn.getresponse()
        return resp.status, resp.headers, resp.read()
    finally:
        conn.close()


def route_cookie(headers: http.client.HTTPMessage) -> str | None:
    """The `selfattn_route=...` Set-Cookie header of a response, whole, or None."""
    for value in headers.get_all("Set-Cookie") or []:
        if value.startswith(COOKIE + "="):
            return value
    return None


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid``, from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        for child, ppid in parents.items():
            if ppid == parent and child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for its parent counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Served:
    """deploy/serve.sh running in the background, its stdout collected line by line."""

    def __init__(self, tmp: Path, replicas: int = 2, args: tuple[str, ...] = (), env: dict[str, str] | None = None,
                 ignored: tuple[int, ...] = ()):
        """``ignored``: signals ignored by the process that starts serve.sh (as ``serve.sh &`` from a script ignores
        SIGINT and SIGQUIT, or a test worker that a library left ignoring one): serve.sh starts with them ignored."""
        self.port = free_port()
        self.log_dir = tmp / f"serve-{self.port}"
        self.stderr = open(tmp / f"serve-{self.port}.stderr", "w+")  # noqa: SIM115 - closed in stop()
        started = time.monotonic()
        self.proc = subprocess.Popen(
            ["bash", str(SERVE), "--replicas", str(replicas), "--port", str(self.port), "--bind", "127.0.0.1",
             "--log-dir", str(self.log_dir), *args],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=self.stderr, text=True, start_new_session=True,
            env={**os.environ, **(env or {})},
            preexec_fn=(lambda: [signal.signal(s, signal.SIG_IGN) for s in ignored]) if ignored else None)
        self.lines: list[str] = []
        self._changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        try:
            self.wait_for_line(r"^ready: ", timeout=180)
        except BaseException:
            self.stop()
            raise
        self.seconds_to_ready = time.monotonic() - started

    def _read(self) -> None:
        for line in self.proc.stdout:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def wait_for_line(self, pattern: str, timeout: float, start: int = 0) -> re.Match:
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for line in self.lines[start:]:
                    if match := re.search(pattern, line):
                        return match
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    self.stderr.seek(0)
                    raise AssertionError(f"no line matching {pattern!r} from serve.sh (exit {self.proc.poll()}):\n"
                                         + "\n".join(self.lines) + "\n" + self.stderr.read()[-3000:])
                self._changed.wait(min(left, 0.5))

    def replica_ports(self) -> dict[int, int]:
        """The loopback port of each replica, from the 'replica <i>: pid <pid> on 127.0.0.1:<port>' lines."""
        found = (re.match(r"replica (\d+): pid \d+ on 127\.0\.0\.1:(\d+)", line) for line in self.lines)
        return {int(m[1]): int(m[2]) for m in found if m}

    def replica_pids(self) -> dict[int, int]:
        """The newest pid of each replica, from the 'replica <i>: pid <pid> ...' lines."""
        pids = {}
        for line in self.lines:
            if match := re.match(r"replica (\d+): pid (\d+) ", line):
                pids[int(match[1])] = int(match[2])
        return pids

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)  # the group this test started
                self.proc.wait(timeout=10)
        self.stderr.close()


def streamlit_session(port: int, cookie: str | None = None, timeout: float = 120) -> tuple[str, list[str]]:
    """Open Streamlit's websocket through the proxy as the browser does, ask for a page run and
    read ForwardMsgs until the run finishes. Returns the replica that answered the upgrade and
    the message types seen."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from websockets.sync.client import connect

    headers = {"Cookie": cookie} if cookie else None
    with connect(f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"],
                 additional_headers=headers, open_timeout=30) as ws:
        assert ws.response.status_code == 101
        assert ws.subprotocol == "streamlit"
        replica = ws.response.headers[REPLICA_HEADER]
        back = BackMsg()
        back.rerun_script.query_string = ""
        back.rerun_script.page_script_hash = ""
        ws.send(back.SerializeToString())
        kinds: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            msg = ForwardMsg()
            msg.ParseFromString(ws.recv(timeout=max(1.0, deadline - time.monotonic())))
            kind = msg.WhichOneof("type")
            kinds.append(kind)
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                assert msg.delta.new_element.WhichOneof("type") != "exception", msg.delta.new_element.exception
            if kind == "script_finished":
                assert msg.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY, msg.script_finished
                return replica, kinds
