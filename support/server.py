"""Servers for tests and benchmarks: ``streamlit run app.py`` on a free loopback port, stopped afterwards,
and what /proc says of its processes (CPU seconds, resident memory, children).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from support.visitor import VisitorError, http_get

ROOT = Path(__file__).resolve().parents[1]
LOGS: dict[str, Path] = {}  # a running server's base URL -> the file its output goes to


def log_tail(url: str, chars: int = 4000) -> str:
    """The last ``chars`` characters the server at ``url`` printed ("" when it is not one of ours)."""
    path = LOGS.get(url.rstrip("/"))
    return path.read_text(errors="replace")[-chars:] if path is not None and path.exists() else ""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(timeout: float = 60.0, *, hosted: bool = False):
    """Run the app on a free local port (as the public demo with ``hosted``); yield its base URL; stop it afterwards."""
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **({"SELFATTN_HOSTED": "1"} if hosted else {})}
    url = f"http://127.0.0.1:{port}"
    log = Path(tempfile.gettempdir()) / f"selfattn-server-{port}.log"  # a failing test shows its tail (conftest)
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true",
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    LOGS[url] = log
    try:
        deadline = time.time() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"streamlit did not start (exit code {proc.poll()})")
            time.sleep(0.3)
        yield url
    finally:
        stop_process(proc)
        LOGS.pop(url, None)
        log.unlink(missing_ok=True)


def stop_process(proc: subprocess.Popen, wait: float = 10) -> None:
    """Ask a server to stop (SIGTERM), and kill it if it has not within ``wait`` seconds."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(wait)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


# ── Server processes: memory and CPU from /proc ────────────────────────────────────────
def rss_mb(pid: int) -> float | None:
    """Resident memory of one process in MB (``VmRSS``), or None when it is gone."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return None


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds used so far by one process (0 when it is gone)."""
    with contextlib.suppress(OSError, IndexError, ValueError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


def children(pid: int) -> list[int]:
    """Every live descendant of ``pid``, from the parent ids in ``/proc/*/stat``."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        kids = [child for child, ppid in parents.items() if ppid == parent]
        found += kids
        frontier += kids
    return found


def cmdline(pid: int) -> list[str]:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    return []


async def wait_health(url: str, timeout: float, alive=lambda: True) -> None:
    """Wait until ``url/_stcore/health`` answers 200 (RuntimeError after ``timeout`` s or if not ``alive()``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and alive():
        with contextlib.suppress(VisitorError):
            await http_get(f"{url}/_stcore/health", 5)
            return
        await asyncio.sleep(0.3)
    raise RuntimeError(f"{url} did not answer /_stcore/health within {timeout:g} s")


class Target:
    """A server to measure: its base URL, its app processes, the URLs that reach each one directly."""

    label = "?"
    url = ""
    direct_urls: list[str] = []

    def pids(self) -> list[int]:
        return []

    async def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def rss(self) -> dict[int, float | None]:
        return {pid: rss_mb(pid) for pid in self.pids()}

    def cpu(self) -> dict[int, float]:
        return {pid: cpu_seconds(pid) for pid in self.pids()}

    async def wait_quiet(self, timeout: float = 90.0) -> None:
        """Wait until the app processes use < 5 % of a core over a second (``timeout`` at most)."""
        deadline = time.monotonic() + timeout
        while self.pids() and time.monotonic() < deadline:
            before = sum(self.cpu().values())
            await asyncio.sleep(1.0)
            if sum(self.cpu().values()) - before < 0.05:
                return


class LocalServer(Target):
    """``SELFATTN_HOSTED=1 streamlit run app.py`` in ``app_dir``, one process on a free port."""

    def __init__(self, app_dir: Path, label: str, work: Path):
        self.app_dir, self.label, self.port = app_dir, label, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.direct_urls = [self.url]
        self.log = work / f"server-{self.port}.log"
        LOGS[self.url] = self.log
        self.proc = None

    def pids(self) -> list[int]:
        return [self.proc.pid] if self.proc and self.proc.poll() is None else []

    async def start(self) -> None:
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                 "--server.port", str(self.port), "--server.address", "127.0.0.1",
                 "--browser.gatherUsageStats", "false"],  # the rest from the checkout's .streamlit/config.toml
                cwd=self.app_dir, env={**os.environ, "SELFATTN_HOSTED": "1", "PYTHONUNBUFFERED": "1"},
                stdout=log, stderr=subprocess.STDOUT)
        try:
            await wait_health(self.url, 90, alive=lambda: self.proc.poll() is None)
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}; its log: {self.log.read_text(errors='replace')[-2000:]}") from exc

    def stop(self) -> None:
        if self.proc:
            stop_process(self.proc, 15)


class Replicas(Target):
    """``deploy/serve.sh --replicas N --port P`` in ``app_dir``: a proxy in front of N app processes."""

    def __init__(self, app_dir: Path, replicas: int, label: str, work: Path):
        self.app_dir, self.replicas, self.label, self.port = app_dir, replicas, label, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = work / f"serve-{self.port}.log"
        self.proc = None
        self.app_pids: list[int] = []

    def pids(self) -> list[int]:
        return [pid for pid in self.app_pids if rss_mb(pid) is not None]

    async def start(self) -> None:
        script = self.app_dir / "deploy" / "serve.sh"
        if not script.exists():
            raise RuntimeError(f"{script} does not exist (needed by --serve-replicas)")
        command = ["bash", str(script), "--replicas", str(self.replicas), "--port", str(self.port)]
        if "--bind" in script.read_text(errors="replace"):
            command += ["--bind", "127.0.0.1"]  # loopback only
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(command, cwd=self.app_dir,
                                         env={**os.environ, "SELFATTN_HOSTED": "1", "PYTHON": sys.executable},
                                         stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        alive = lambda: self.proc.poll() is None  # noqa: E731
        try:
            await wait_health(self.url, 120, alive=alive)
            deadline = time.monotonic() + 120
            while alive() and time.monotonic() < deadline:
                self.app_pids = [pid for pid in children(self.proc.pid) if is_streamlit_server(pid)]
                ports = [replica_port(pid) for pid in self.app_pids]
                if len(self.app_pids) >= self.replicas and all(ports):
                    self.direct_urls = [f"http://127.0.0.1:{port}" for port in ports]
                    for url in self.direct_urls:
                        await wait_health(url, max(1.0, deadline - time.monotonic()))
                    return
                await asyncio.sleep(0.5)
            raise RuntimeError(f"found {len(self.app_pids)} of {self.replicas} streamlit processes under serve.sh")
        except RuntimeError as exc:
            self.stop()
            raise RuntimeError(f"{exc}; its log: {self.log.read_text(errors='replace')[-2000:]}") from exc

    def stop(self) -> None:
        """SIGTERM to serve.sh (it stops what it started); then kill, by pid, whatever it left."""
        if self.proc is None:
            return
        started = {pid: cmdline(pid) for pid in children(self.proc.pid)}
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        for pid, args in started.items():
            if cmdline(pid) == args:  # still the process serve.sh started, not a new one with its pid
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)


def is_streamlit_server(pid: int) -> bool:
    args = cmdline(pid)
    return any(arg.endswith("streamlit") or arg == "streamlit" for arg in args[:4]) and "run" in args


def replica_port(pid: int) -> int | None:
    """The port one app process listens on (its ``--server.port`` argument), or None."""
    args = cmdline(pid)
    for i, arg in enumerate(args):
        if arg == "--server.port" and i + 1 < len(args) and args[i + 1].isdigit():
            return int(args[i + 1])
        if arg.startswith("--server.port="):
            return int(arg.split("=", 1)[1])
    return None


class RemoteServer(Target):
    """A server started elsewhere (``--url``), its app processes given by ``--pids``."""

    def __init__(self, url: str, pids: list[int]):
        self.url, self.label, self._pids = url.rstrip("/"), url.rstrip("/"), pids
        self.direct_urls = [self.url]

    def pids(self) -> list[int]:
        return [pid for pid in self._pids if rss_mb(pid) is not None]

    async def start(self) -> None:
        await wait_health(self.url, 30)
