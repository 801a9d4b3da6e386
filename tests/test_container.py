"""The Dockerfile, built for real and run: buildah builds it, podman runs it, and the container
answers /_stcore/health, its own HEALTHCHECK, and real page runs over Streamlit's websocket.

No Docker engine and no registry is needed. The Dockerfile's base image (python:3.11-slim) is
stood in for by a Debian bookworm root filesystem made with debootstrap (Python 3.11 from Debian,
`python` linked into /usr/local/bin as in the real image), cached as a tarball in
$SELFATTN_TEST_CACHE (default ~/.cache/selfattn-test) and imported under the name
docker.io/library/python:3.11-slim into a private container store in a temporary folder (the
host's own images are never touched), then `buildah bud --pull=never --isolation chroot
--format docker`. The build sees the host's pip configuration (`pip config list`, PIP_* included)
as /etc/pip.conf, the local files it names (indexes, wheels, constraints) and the CA bundle,
mounted read-only for the build only: nothing of them stays in the image.

TORCH_INDEX_URL is passed as a build argument: $SELFATTN_TEST_TORCH_INDEX_URL, else the host
pip's index (where this machine's pip finds the CPU build of the pin). Set
SELFATTN_TEST_TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu where that index is reachable.

Needs root and Debian's buildah, podman, runc and debootstrap (tests/run.sh installs them; this
test installs them too when root and apt-get are there). Skipped with the reason otherwise.
Cold on a 2-core VM: debootstrap about 45 s, the build about 1.5 minutes, the container
healthy in about 2 s.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import tempfile
import sys
import time
import urllib.request
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from support.deploy import requirement_pin

pytestmark = pytest.mark.system  # builds and runs the container image (buildah/podman)

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("SELFATTN_TEST_CACHE") or Path.home() / ".cache" / "selfattn-test")
BASE_IMAGE = "docker.io/library/python:3.11-slim"  # what the Dockerfile's FROM python:3.11-slim resolves to
BASE_RECIPE = "bookworm-minbase-python3-v1"  # change it to rebuild the cached tarball
MIRROR = os.environ.get("SELFATTN_TEST_DEBIAN_MIRROR", "http://deb.debian.org/debian")
PACKAGES = ("buildah", "podman", "runc", "debootstrap")
SBIN_PATH = os.environ.get("PATH", "/usr/bin:/bin") + ":/usr/local/sbin:/usr/sbin:/sbin"  # debootstrap is in /usr/sbin
HOST_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")

sys.path.insert(0, str(ROOT / "benchmarks"))


def run(cmd: list[str], timeout: float, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(cmd[:6])} ... exited {done.returncode}:\n"
                             f"{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    return done


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---- the tools ----------------------------------------------------------------------------------

def missing_tools() -> list[str]:
    return [tool for tool in PACKAGES if shutil.which(tool, path=SBIN_PATH) is None]


@pytest.fixture(scope="module")
def tools() -> None:
    if platform.system() != "Linux":
        pytest.skip("buildah and podman run containers on Linux only")
    if os.geteuid() != 0:
        pytest.skip("needs root: the image is built and run with rootful buildah/podman "
                    "(tests/run.sh runs as root in CI)")
    if missing_tools() and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, timeout=300)
        subprocess.run(["apt-get", "install", "-y", "-qq", *PACKAGES], env=env, capture_output=True, timeout=600)
    if missing := missing_tools():
        pytest.skip(f"{', '.join(missing)} missing and not installable here (apt-get install {' '.join(PACKAGES)})")


# ---- the base image -----------------------------------------------------------------------------

def base_tarball(work: Path) -> tuple[Path, float]:
    """The cached Debian bookworm root filesystem with Python 3.11, made on the first run.
    Returns its path and the seconds spent making it (0 when it came from the cache)."""
    tarball = CACHE / f"python3.11-{BASE_RECIPE}.tar"
    if tarball.is_file():
        return tarball, 0.0
    CACHE.mkdir(parents=True, exist_ok=True)
    rootfs = work / "rootfs"
    started = time.monotonic()
    done = run(["debootstrap", "--variant=minbase", "--include=python3,python3-venv,ca-certificates",
                "bookworm", str(rootfs), MIRROR], timeout=600, check=False, env={**os.environ, "PATH": SBIN_PATH})
    if done.returncode != 0:
        pytest.skip(f"debootstrap could not make a Debian bookworm root filesystem from {MIRROR} "
                    f"(set SELFATTN_TEST_DEBIAN_MIRROR): {done.stderr.strip()[-500:]}")
    for name in ("python", "python3"):  # python:3.11-slim has them in /usr/local/bin, first on PATH
        (rootfs / "usr/local/bin" / name).symlink_to("/usr/bin/python3")
    for deb in (rootfs / "var/cache/apt/archives").glob("*.deb"):
        deb.unlink()
    partial = tarball.with_suffix(".partial")
    run(["tar", "-C", str(rootfs), "--numeric-owner", "-cf", str(partial), "."], timeout=300)
    partial.rename(tarball)
    shutil.rmtree(rootfs, ignore_errors=True)
    return tarball, time.monotonic() - started


# ---- pip's configuration for the build ----------------------------------------------------------

def host_pip_config() -> dict[tuple[str, str], str]:
    """The host pip's settings, {(section, key): value}, environment variables winning."""
    listed = run([sys.executable, "-m", "pip", "config", "list"], timeout=60).stdout
    settings: dict[tuple[str, str], str] = {}
    from_env: dict[tuple[str, str], str] = {}
    for line in listed.splitlines():
        match = re.match(r"^(:env:|[a-z]+)\.([a-z0-9-]+)='(.*)'$", line.strip())
        if match:
            section, key, value = match.groups()
            if section == ":env:":
                from_env[("global", key)] = value
            else:
                settings[(section, key)] = value
    settings.update(from_env)
    return settings


def pip_mounts(settings: dict[tuple[str, str], str]) -> list[str]:
    """The local paths the settings name (file:// indexes, find-links folders, constraints, the
    CA bundle), as read-only bind mounts at the same place."""
    paths: list[Path] = []
    for value in settings.values():
        for token in value.split():
            path = Path(urlsplit(token).path) if token.startswith("file://") else Path(token)
            if not path.is_absolute() or not path.exists():
                continue
            if path.name == "simple" and path.is_dir():  # an index's files sit beside simple/
                path = path.parent
            if len(path.parts) > 2 and path not in paths:  # never / or a top-level folder
                paths.append(path)
    if HOST_CA_BUNDLE.is_file() and HOST_CA_BUNDLE not in paths:
        paths.append(HOST_CA_BUNDLE)
    return [f"{p}:{p}:ro" for p in paths]


def write_pip_conf(settings: dict[tuple[str, str], str], path: Path) -> None:
    sections: dict[str, list[str]] = {}
    for (section, key), value in settings.items():
        sections.setdefault(section, []).append(f"{key} = {value}")
    path.write_text("".join(f"[{s}]\n" + "\n".join(lines) + "\n" for s, lines in sections.items()))


def torch_index_url(settings: dict[tuple[str, str], str]) -> str:
    return (os.environ.get("SELFATTN_TEST_TORCH_INDEX_URL") or settings.get(("global", "index-url"))
            or settings.get(("install", "index-url")) or "https://pypi.org/simple")


# ---- the container store ------------------------------------------------------------------------

class Store:
    """A private buildah/podman store in a temporary folder, removed afterwards."""

    def __init__(self, where: Path):
        self.where = where
        self.storage = ["--root", str(where / "storage"), "--runroot", str(where / "run"),
                        "--storage-driver", "overlay"]

    def buildah(self, *args: str, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess:
        return run(["buildah", *self.storage, *args], timeout=timeout, check=check)

    def podman(self, *args: str, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess:
        # cgroupfs and the file event log: no systemd needed; runc: Debian's crun refuses hybrid cgroups.
        return run(["podman", *self.storage, "--tmpdir", str(self.where / "run" / "libpod"),
                    "--cgroup-manager", "cgroupfs", "--events-backend", "file", "--runtime", "runc", *args],
                   timeout=timeout, check=check)

    def remove(self) -> None:
        self.podman("rm", "--force", "--all", timeout=120, check=False)
        self.podman("rmi", "--force", "--all", timeout=300, check=False)
        self.buildah("rm", "--all", timeout=120, check=False)
        mounts = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()
                  if line.split()[1].startswith(str(self.where) + "/")]
        for mount in sorted(mounts, key=len, reverse=True):
            subprocess.run(["umount", "--lazy", mount], capture_output=True, timeout=60)
        shutil.rmtree(self.where, ignore_errors=True)


def limits() -> list[str]:
    """podman's default rlimits (nofile 1048576 ...) need CAP_SYS_RESOURCE, which some hosts'
    root lacks; ask for less than the current ones instead."""
    import resource

    args = []
    for name, flag, most in (("nofile", resource.RLIMIT_NOFILE, 65536), ("nproc", resource.RLIMIT_NPROC, 32768)):
        soft, hard = resource.getrlimit(flag)
        value = min(v for v in (soft, hard, most) if v != resource.RLIM_INFINITY)
        args += ["--ulimit", f"{name}={value // 2}:{value // 2}"]
    return args


def http_get(port: int, path: str, timeout: float = 10) -> tuple[int, bytes]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as response:
        return response.status, response.read()


# ---- the test -----------------------------------------------------------------------------------

@pytest.mark.timeout(1500)  # slow on purpose: debootstrap (cold), a real image build, a container
def test_the_dockerfile_builds_and_the_container_serves_the_app_slow(tools, tmp_path_factory):
    work = tmp_path_factory.mktemp("container")
    # podman refuses a run root over 50 characters, which pytest's numbered folders pass after run 99
    # (/tmp/pytest-of-root/pytest-143/container0/store/run): the store gets a short folder of its own.
    store = Store(Path(tempfile.mkdtemp(prefix="sa-ctr-", dir="/tmp")))
    tag = f"localhost/selfattn-test:{uuid.uuid4().hex[:8]}"
    timings: dict[str, float] = {}
    try:
        tarball, timings["debootstrap_s"] = base_tarball(work)
        started = time.monotonic()
        store.podman("import", "--change", "ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin",
                     "--change", "ENV LANG=C.UTF-8", "--change", 'CMD ["python3"]', str(tarball), BASE_IMAGE,
                     timeout=300)
        timings["import_s"] = time.monotonic() - started

        settings = host_pip_config()
        write_pip_conf(settings, work / "pip.conf")
        volumes = [f"{work / 'pip.conf'}:/etc/pip.conf:ro", *pip_mounts(settings)]
        index = torch_index_url(settings)
        started = time.monotonic()
        build = store.buildah(
            "bud", "--pull=never", "--isolation", "chroot", "--format", "docker", "--layers=false",
            *[arg for volume in volumes for arg in ("--volume", volume)],
            "--build-arg", f"TORCH_INDEX_URL={index}", "--build-arg", "PREFETCH=",
            "--tag", tag, "--file", str(ROOT / "Dockerfile"), str(ROOT), timeout=900, check=False)
        timings["build_s"] = time.monotonic() - started
        log = build.stdout + build.stderr
        assert build.returncode == 0, log[-6000:]
        # The build argument reached install.sh (the Dockerfile's default index is unreachable here).
        assert "install.sh: installing torch==" in log and f"(CPU build) from {index}" in log, log[-6000:]
        assert "PREFETCH is empty: no hub model baked in" in log
        assert "(CPU build), transformers" in log  # install.sh's import check

        inspected = json.loads(store.buildah("inspect", "--type", "image", tag).stdout)
        config = inspected["Docker"]["config"]
        env = dict(item.split("=", 1) for item in config["Env"])
        assert env["HF_HUB_OFFLINE"] == "1" and env["SELFATTN_HOSTED"] == "1" and env["PORT"] == "7860"
        assert config["User"] == "user"
        health = config.get("Healthcheck") or {}
        assert health.get("Test") == ["CMD", "python", "/home/user/app/deploy/healthcheck.py"], health
        size = json.loads(store.podman("image", "inspect", tag).stdout)[0]["Size"]
        timings["image_gb"] = size / 1e9

        port = free_port()
        started = time.monotonic()
        store.podman("run", "--detach", "--name", "selfattn-test", "--network", "host", *limits(),
                     "--env", f"PORT={port}", tag, timeout=120)
        while True:
            try:
                if http_get(port, "/_stcore/health", timeout=2) == (200, b"ok"):
                    break
            except OSError:
                pass
            if time.monotonic() - started > 90:
                logs = store.podman("logs", "selfattn-test", check=False)
                raise AssertionError("no /_stcore/health after 90 s:\n" + logs.stdout[-3000:] + logs.stderr[-3000:])
            time.sleep(0.2)
        timings["healthy_s"] = time.monotonic() - started

        # The image's own HEALTHCHECK, run by podman; and the same script as an OCI image's platform calls it.
        store.podman("healthcheck", "run", "selfattn-test", timeout=60)
        state = json.loads(store.podman("inspect", "selfattn-test").stdout)[0]["State"]
        assert (state.get("Health") or state.get("Healthcheck") or {}).get("Status") == "healthy", state
        store.podman("exec", "selfattn-test", "python", "/home/user/app/deploy/healthcheck.py", timeout=60)
        script = ("id -u; env; python -c 'import torch; print(torch.__version__)'; pip list --format=freeze; "
                  'ls "$SELFATTN_CACHE_DIR"')
        inside = store.podman("exec", "selfattn-test", "sh", "-c", script, timeout=120).stdout
        assert inside.splitlines()[0] == "1000"
        assert "HF_HUB_OFFLINE=1" in inside and "SELFATTN_HOSTED=1" in inside
        # install.sh's steps from nothing (tests/test_deploy.py runs them in a venv that sees this machine's
        # packages): the pins as requirements.txt has them, torch the CPU build and nothing of CUDA, the character
        # vectors built into the image
        assert re.search(rf"(?m)^{re.escape(requirement_pin('torch'))}\+cpu$", inside), "torch is not the pinned CPU build"
        assert re.search(rf"(?m)^streamlit=={re.escape(requirement_pin('streamlit'))}$", inside), "streamlit is not the pin"
        assert not re.search(r"(?im)^nvidia-", inside), "CUDA packages came in with torch"
        assert re.search(r"(?m)^charvec-.*\.npz$", inside), "no character vectors in the image"
        # pip compiled nothing (the Dockerfile's PIP_COMPILE=0): torch's compiler (torch._inductor), never imported,
        # has no bytecode; the server's modules have theirs, written by install.sh's check as it imported them
        count = ("import os, sys, torch, streamlit; print(*(sum(n.endswith('.pyc') for _, _, names in os.walk(d) "
                 "for n in names) for d in (os.path.dirname(torch.__file__) + '/_inductor', "
                 "os.path.dirname(streamlit.__file__) + '/web/server')))")
        never_imported, server = map(int, store.podman("exec", "selfattn-test", "python", "-c", count).stdout.split())
        assert never_imported == 0 and server > 0, (never_imported, server)

        # The command warms the server (deploy/warm.py: one open of the home page starts the background load).
        deadline = time.monotonic() + 60
        while "opened in" not in (logs := store.podman("logs", "selfattn-test", check=False).stdout):
            assert time.monotonic() < deadline and "warm: " not in logs, logs[-2000:]
            time.sleep(0.5)
        status, page = http_get(port, "/playground")
        assert status == 200 and b"<html" in page.lower()
        timings.update(asyncio.run(visit_pages(port)))

        started = time.monotonic()
        store.podman("stop", "--time", "20", "selfattn-test", timeout=60)
        timings["stop_s"] = time.monotonic() - started
    finally:
        store.remove()
    print("\ncontainer: " + ", ".join(f"{k} {v:.2f}" for k, v in timings.items()))
    assert not store.where.exists()


async def visit_pages(port: int) -> dict[str, float]:
    """Open every page as a browser tab does (benchmarks/bench_load.py's Visitor) and type one
    number into the Playground; each run must finish without an exception."""
    from support import visitor as wire

    seconds = {}
    for page in wire.PAGES:
        tally = wire.Tally()
        visitor = wire.Visitor(f"http://127.0.0.1:{port}", tally, timeout=120)
        try:
            seconds[f"open_{page}_s"] = await visitor.open(page)
            if page == "playground":
                before = visitor.step_text()
                seconds["edit_playground_s"] = await visitor.edit("5")
                assert visitor.step_text() != before
        finally:
            await visitor.close()
        assert tally.exceptions == 0 and not tally.errors, (page, tally)
    return seconds
